#!/usr/bin/env bash
# make demo: a local control plane guarded by the kriguard webhook; applies examples/ and prints what the
# API server answered for each. KEEP=1 leaves it running (kubeconfig path printed) until Ctrl-C.
# Builds the pinned tools first (once; cached, about 7 minutes on 2 cores the first time).
set -euo pipefail
cd "$(dirname "$0")/.."

eval "$(./hack/tools.sh env kube-apiserver kubectl etcd)"

keep=()
if [ -n "${KEEP:-}" ] && [ "${KEEP}" != "0" ]; then
  keep=(-keep)
fi

echo "building the demo…"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/demo" ./hack/demo
"$bin/demo" -examples examples "${keep[@]}"
