#!/usr/bin/env bash
# Builds the pinned test tools (kube-apiserver, kubectl, etcd, helm) from the Go module proxy, caches each
# binary under $HOME/.cache/kriguard/tools/<tool>-<key>/ and links it into the repository's bin/. The
# validators of the report formats come from npm, pinned to exact versions and cached the same way:
# Microsoft's SARIF multitool (bin/sarif-multitool) and libxml2's xmllint built for node
# (bin/xsd-validate, run by hack/xsd-validate.cjs).
#
#   hack/tools.sh install [TOOL...]  build what is missing, link bin/ (progress on stderr); with TOOLs,
#                                    only those (the demo needs no helm or staticcheck)
#   hack/tools.sh env [TOOL...]      install, then print `export` lines for eval (the only thing on
#                                    stdout): eval "$(hack/tools.sh env)"
#   hack/tools.sh list      print the tools with their cache folders
#   hack/tools.sh prune     remove cached builds of the tools that no current key refers to
#
# The key of a tool is the sha256 of its helper module's go.mod and go.sum, `go version`, GOFLAGS and the
# fixed build flags below, so a version bump or a new Go rebuilds it and nothing else does. The build flags
# never change between runs: toggling one (say -trimpath) would invalidate the whole Go build cache.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${KRIGUARD_TOOLS_CACHE:-${HOME}/.cache/kriguard/tools}
bindir="${root}/bin"

# modversion prints the version at which a helper module requires a module, so that bumping it in the
# helper's go.mod is the only change a version bump needs.
modversion() {
  awk -v m="$2" '($1 == m || ($1 == "require" && $2 == m)) && $NF ~ /^v[0-9]/ { print $NF; exit }' \
    "${root}/test/tools/$1/go.mod"
}

k8s_version=$(modversion kube-apiserver k8s.io/kubernetes)
helm_version=$(modversion helm helm.sh/helm/v4)
if [ -z "${k8s_version}" ] || [ -z "${helm_version}" ]; then
  echo "tools: error: cannot read the pinned versions from test/tools/*/go.mod" >&2
  exit 1
fi
# Stamp the version that `kube-apiserver --version`, the discovery API and `kubectl version` report;
# unstamped, they say v0.0.0-master. The build date stays at its default so that the flags, and with
# them the Go build cache, never change.
k8s_minor=${k8s_version#v*.}
k8s_minor=${k8s_minor%%.*}
k8s_major=${k8s_version#v}
k8s_major=${k8s_major%%.*}
k8s_ldflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  k8s_ldflags+=" -X ${pkg}.gitVersion=${k8s_version} -X ${pkg}.gitMajor=${k8s_major} -X ${pkg}.gitMinor=${k8s_minor}"
  k8s_ldflags+=" -X ${pkg}.gitTreeState=clean"
done
k8s_ldflags=${k8s_ldflags# }

# One line per binary: name, helper module folder (under test/tools), package, version ldflags, the
# rough cold build time on 2 cores (for the message printed before a build) and the arguments that make
# the binary print its version (run once after the build, as a smoke test).
tools=(
  "kube-apiserver|kube-apiserver|k8s.io/kubernetes/cmd/kube-apiserver|${k8s_ldflags}|about 7 minutes|--version"
  "kubectl|kube-apiserver|k8s.io/kubernetes/cmd/kubectl|${k8s_ldflags}|about 1 minute after kube-apiserver|version --client"
  "etcd|etcd|go.etcd.io/etcd/server/v3||about 1 minute|--version"
  "helm|helm|helm.sh/helm/v4/cmd/helm|-X helm.sh/helm/v4/internal/version.version=${helm_version}|about 3 minutes|version --short"
  "staticcheck|staticcheck|honnef.co/go/tools/cmd/staticcheck||about 1 minute|-version"
)

# One line per npm tool: name, the exact package versions installed (each name@version, space-separated),
# the executable inside the install folder, and the arguments that make it print its version. An
# executable ending in .cjs is a script of this repository (hack/) run by node with the install folder
# as its first argument.
npm_tools=(
  "sarif-multitool|@microsoft/sarif-multitool-linux@5.7.0|node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool|--version"
  "xsd-validate|xmllint-wasm@5.3.0|hack/xsd-validate.cjs|--version"
)

# Fixed for every build: static binaries, no local paths, no VCS stamping (the helper modules sit inside
# kriguard's own checkout, whose state must not leak into the binaries or their keys).
build_flags=(-trimpath -buildvcs=false)
export CGO_ENABLED=0
# A go.work of the developer must not pull the helper modules into a workspace.
export GOWORK=off

# An interrupt must still run the EXIT trap that removes a half-written binary.
trap 'exit 130' INT TERM

log() { printf 'tools: %s\n' "$*" >&2; }

die() {
  log "error: $*"
  exit 1
}

# key prints the cache key of one tool.
key() {
  local moddir=$1 pkg=$2 ldflags=$3
  {
    cat "${moddir}/go.mod" "${moddir}/go.sum"
    (cd "${moddir}" && go version) # the toolchain that builds in that module (GOTOOLCHAIN may pick another)
    printf 'GOFLAGS=%s\nCGO_ENABLED=%s\nGOOS=%s\nGOARCH=%s\npkg=%s\nflags=%s\nldflags=%s\n' \
      "${GOFLAGS:-}" "${CGO_ENABLED}" "${GOOS:-}" "${GOARCH:-}" "${pkg}" "${build_flags[*]}" "${ldflags}"
  } | sha256sum | cut -c1-16
}

# only holds the tools named on the command line; empty means every tool.
only=()

wanted() {
  local t
  [ ${#only[@]} -eq 0 ] && return 0
  for t in "${only[@]}"; do
    [ "${t}" = "$1" ] && return 0
  done
  return 1
}

# each calls "$1 name moddir pkg ldflags estimate version-args dir" for every wanted tool.
each() {
  local fn=$1 line name mod pkg ldflags estimate versionargs moddir
  for line in "${tools[@]}"; do
    IFS='|' read -r name mod pkg ldflags estimate versionargs <<<"${line}"
    wanted "${name}" || continue
    moddir="${root}/test/tools/${mod}"
    [ -f "${moddir}/go.mod" ] || die "missing helper module ${moddir}/go.mod"
    "${fn}" "${name}" "${moddir}" "${pkg}" "${ldflags}" "${estimate}" "${versionargs}" \
      "${cache}/${name}-$(key "${moddir}" "${pkg}" "${ldflags}")"
  done
}

build_one() {
  local name=$1 moddir=$2 pkg=$3 ldflags=$4 estimate=$5 versionargs=$6 dir=$7
  if [ ! -x "${dir}/${name}" ]; then
    log "building ${name} (${pkg}) from the Go module proxy into ${dir}"
    log "this happens once per version and is cached; it takes ${estimate} on 2 cores with a cold Go build cache, less when warm"
    mkdir -p "${dir}"
    # Build into a temporary name and rename, so an interrupted build never leaves a binary that looks
    # done; leftovers of an interrupted run are removed first (the lock is held, nobody else builds).
    rm -f "${dir}/.${name}.tmp."*
    local tmp="${dir}/.${name}.tmp.$$" start=${SECONDS} out
    trap 'rm -f "'"${tmp}"'"' EXIT
    (cd "${moddir}" && go build "${build_flags[@]}" -ldflags "${ldflags}" -o "${tmp}" "${pkg}") >&2 ||
      die "building ${name} failed (see above)"
    # shellcheck disable=SC2086 # versionargs holds several words on purpose
    out=$("${tmp}" ${versionargs} 2>&1) || die "${name} ${versionargs} failed: ${out}"
    mv -f "${tmp}" "${dir}/${name}"
    trap - EXIT
    log "built ${name} in $((SECONDS - start))s: ${out%%$'\n'*}"
  fi
  ln -sfn "${dir}/${name}" "${bindir}/${name}"
}

# lock serialises the runs that write the cache. Two runs at once (two terminals, parallel CI jobs)
# would build the same tool twice on 2 cores; the second waits for the first and then finds everything
# cached.
lock() {
  mkdir -p "${cache}"
  exec 9>"${cache}/.lock"
  if command -v flock >/dev/null && ! flock -n 9; then
    log "another hack/tools.sh is building; waiting for it"
    flock 9
  fi
}

# npm_each calls "$1 name packages exe version-args dir" for every wanted npm tool.
npm_each() {
  local fn=$1 line name pkgs exe versionargs k
  for line in "${npm_tools[@]}"; do
    IFS='|' read -r name pkgs exe versionargs <<<"${line}"
    wanted "${name}" || continue
    k=$(printf '%s\n' "${pkgs}" | sha256sum | cut -c1-16)
    "${fn}" "${name}" "${pkgs}" "${exe}" "${versionargs}" "${cache}/${name}-${k}"
  done
}

npm_one() {
  local name=$1 pkgs=$2 exe=$3 versionargs=$4 dir=$5 out
  if [ ! -f "${dir}/.done" ]; then
    if ! command -v npm >/dev/null 2>&1; then
      if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        log "npm is missing; installing it from Debian (apt-get install -y nodejs npm)"
        apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm >&2 ||
          die "installing npm failed (see above)"
      else
        die "npm is missing: install Node.js and npm (e.g. 'sudo apt-get install -y nodejs npm')"
      fi
    fi
    log "installing ${name} (${pkgs}) from npm into ${dir}"
    rm -rf "${dir}"
    mkdir -p "${dir}"
    # shellcheck disable=SC2086 # pkgs holds several packages on purpose
    (cd "${dir}" && npm install --no-audit --no-fund --no-save --ignore-scripts --prefix . ${pkgs}) >&2 ||
      die "installing ${name} failed (see above)"
    # --ignore-scripts: the multitool's own postinstall only makes its binary executable.
    case "${exe}" in
    *.cjs) ;;
    *) chmod u+x "${dir}/${exe}" ;;
    esac
    touch "${dir}/.done"
  fi
  case "${exe}" in
  *.cjs)
    # A wrapper in bin/ (per checkout: it names this checkout's script), over the shared install.
    printf '#!/bin/sh\nexec node %q %q "$@"\n' "${root}/${exe}" "${dir}" >"${bindir}/${name}"
    chmod +x "${bindir}/${name}"
    ;;
  *)
    # The multitool is a self-contained .NET program: without the invariant mode it needs libicu,
    # which a minimal machine lacks.
    rm -f "${bindir}/${name}"
    printf '#!/bin/sh\nDOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 exec %q "$@"\n' "${dir}/${exe}" >"${bindir}/${name}"
    chmod +x "${bindir}/${name}"
    ;;
  esac
  # shellcheck disable=SC2086 # versionargs holds several words on purpose
  out=$("${bindir}/${name}" ${versionargs} 2>&1) || die "${name} ${versionargs} failed: ${out}"
}

install() {
  mkdir -p "${bindir}"
  lock
  each build_one
  npm_each npm_one
  exec 9>&-
}

list_one() { printf '%s\t%s\n' "$1" "$7"; }

npm_list_one() { printf '%s\t%s\n' "$1" "$5"; }

keep=()
collect() { keep+=("$(basename "$7")"); }

npm_collect() { keep+=("$(basename "$5")"); }

prune() {
  lock
  each collect
  npm_each npm_collect
  local d k found
  for d in "${cache}"/*/; do
    [ -d "${d}" ] || continue
    found=""
    for k in "${keep[@]}"; do
      [ "$(basename "${d}")" = "${k}" ] && found=1
    done
    if [ -z "${found}" ]; then
      log "removing ${d}"
      rm -rf "${d}"
    fi
  done
}

command -v go >/dev/null || die "go is not on PATH; install Go (see go.mod for the version)"

cmd=${1:-}
[ $# -gt 0 ] && shift
only=("$@")
for t in "${only[@]}"; do
  found=""
  for line in "${tools[@]}" "${npm_tools[@]}"; do
    [ "${line%%|*}" = "${t}" ] && found=1
  done
  [ -n "${found}" ] || die "unknown tool ${t}"
done

case "${cmd}" in
install)
  install
  log "ready in ${bindir}"
  ;;
env)
  install
  printf 'export KUBEBUILDER_ASSETS=%q\n' "${bindir}"
  # shellcheck disable=SC2016 # $PATH is for the shell that evals this line
  printf 'export PATH=%q:"$PATH"\n' "${bindir}"
  ;;
list)
  each list_one
  npm_each npm_list_one
  ;;
prune) prune ;;
*)
  echo "usage: $0 install|env [TOOL...] | list | prune" >&2
  exit 2
  ;;
esac
