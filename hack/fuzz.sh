#!/usr/bin/env bash
# make fuzz: runs every fuzz target of the project for FUZZTIME each (default 30s), one after another.
# A failure found is written by `go test` to the package's testdata/fuzz/<Target>/ folder: commit that
# file with the fix, so that every later `go test` (and so `make test`) replays it.
#
#   make fuzz                        every target, 30s each
#   make fuzz FUZZTIME=5m FUZZ=Parse only targets whose name contains Parse
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-30s}
filter=${FUZZ:-}

mapfile -t targets < <(
  git ls-files -co --exclude-standard '*_test.go' | grep -v '/testdata/' |
    xargs grep -HoE '^func Fuzz[A-Za-z0-9_]+\(' | sed -E 's/:func (Fuzz[A-Za-z0-9_]+)\(/ \1/' | sort -u
)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi

failed=()
ran=0
for t in "${targets[@]}"; do
  file=${t% *}
  name=${t#* }
  [ -z "${filter}" ] || [[ "${name}" == *"${filter}"* ]] || continue
  pkg=./$(dirname "${file}")
  echo "==> ${pkg} ${name} for ${fuzztime}"
  ran=$((ran + 1))
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "${fuzztime}" "${pkg}"; then
    failed+=("${pkg} ${name}")
  fi
done

echo "fuzz: ${ran} targets run, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
  printf '  %s\n' "${failed[@]}"
  echo "fuzz: the failing inputs are under each package's testdata/fuzz/; commit them with the fix" >&2
  exit 1
fi
