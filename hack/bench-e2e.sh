#!/usr/bin/env bash
# make bench-e2e: CREATE of a MeshTimeout through a real kube-apiserver and etcd under each
# configuration of test/policy's BenchmarkCreate, among them kriguard's webhooks (b) and a
# do-nothing mutating + validating pair over TLS (e), in one run: p50/p99 per mode, b over e, and
# the API server's own apiserver_admission_webhook_admission_duration_seconds per webhook.
# On a loaded machine the times are noise: the machine's cores and load are printed beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(./hack/tools.sh env)"
go test ./test/policy -run '^$' -bench "${BENCH:-Create}" -benchtime 1x -timeout 30m
