#!/usr/bin/env bash
# make image: builds the webhook image with buildah into dist/kriguard-webhook.oci.tar (an OCI archive;
# load it with `podman load -i`, `skopeo copy oci-archive:dist/kriguard-webhook.oci.tar docker://…`, or
# `ctr images import`).
#
#   hack/image.sh              build the static binary from ./cmd/webhook, then the image
#   BINARY=path hack/image.sh  package a binary built elsewhere (it must be static: CGO_ENABLED=0)
#   IMAGE=name hack/image.sh   the name recorded in the archive (default ghcr.io/kriguard/kriguard-webhook)
#
# buildah runs with the vfs storage driver in a throw-away store, so it needs no overlay support, no
# daemon and no registry (the base is `scratch`). Missing buildah is installed from Debian when this runs
# as root with apt-get; otherwise the script stops and says how to install it.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'image: %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

if ! command -v buildah >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "buildah is missing; installing it from Debian (apt-get install -y buildah)"
    apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y buildah >&2 ||
      die "installing buildah failed (see above)"
  else
    die "buildah is missing: install it with 'sudo apt-get install -y buildah' (Debian/Ubuntu) or 'sudo dnf install -y buildah' (Fedora)"
  fi
fi

image=${IMAGE:-ghcr.io/kriguard/kriguard-webhook}
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
# The commit time, not the build time: two builds of one commit give the same labels and layer timestamps.
epoch=$(git log -1 --format=%ct 2>/dev/null || echo 0)
created=$(date -u -d "@${epoch}" +%Y-%m-%dT%H:%M:%SZ)
out=dist/kriguard-webhook.oci.tar

work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
mkdir -p "${work}/context" dist

if [ -n "${BINARY:-}" ]; then
  [ -x "${BINARY}" ] || die "BINARY=${BINARY} is not an executable file"
  cp "${BINARY}" "${work}/context/kriguard-webhook"
else
  log "building ./cmd/webhook (CGO_ENABLED=0, linux/$(go env GOARCH))"
  CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false -ldflags "-s -w" \
    -o "${work}/context/kriguard-webhook" ./cmd/webhook || die "building ./cmd/webhook failed (see above)"
fi

bah=(buildah --storage-driver vfs --root "${work}/storage" --runroot "${work}/run")
log "building ${image}:${version} with $(buildah --version)"
"${bah[@]}" build --quiet --layers=false --timestamp "${epoch}" \
  --build-arg "VERSION=${version}" --build-arg "REVISION=${revision}" --build-arg "CREATED=${created}" \
  -f Containerfile -t "${image}:${version}" "${work}/context" >/dev/null || die "buildah build failed (see above)"
# Written aside and renamed, so a reader (TestImage) never sees half an archive.
"${bah[@]}" push --quiet "${image}:${version}" "oci-archive:${work}/image.tar:${image}:${version}" ||
  die "writing the archive failed (see above)"
mv -f "${work}/image.tar" "${out}"
log "wrote ${out} (${image}:${version}, $(du -h "${out}" | cut -f1))"
