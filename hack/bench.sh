#!/usr/bin/env bash
# make bench: every benchmark of the project, then the krilint vet-tool overhead benchmark.
#
# BENCHTIME (default 1s) applies to the ordinary benchmarks. VETBENCH_ROUNDS (default 6) is the number of
# rounds of BenchmarkVetTool: one round vets the whole corpus twice (krilint and the do-nothing tool), which
# takes seconds, so it runs a fixed number of rounds instead of a time budget; keep it even, so that each
# tool goes first equally often. VETBENCH_PACKAGES (default 50) is the number of generator packages in its
# corpus.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCHTIME=${BENCHTIME:-1s}
VETBENCH_ROUNDS=${VETBENCH_ROUNDS:-6}
VETBENCH_PACKAGES=${VETBENCH_PACKAGES:-50}

# Packages that hold benchmarks, except the vet-tool benchmark, which runs on its own below. Listing them
# saves compiling the test binary of every other package.
pkgs=$(git ls-files -co --exclude-standard '*_test.go' | grep -v '/testdata/' \
  | xargs grep -l '^func Benchmark' | xargs -n1 dirname | sort -u \
  | grep -v '^test/vetbench$' | sed 's|^|./|; s|^\./\.$|.|')

# A failing benchmark package does not stop the others; the exit status reports it at the end.
rc=0

echo "==> go test -bench . (benchtime ${BENCHTIME})"
# shellcheck disable=SC2086
go test -run '^$' -bench . -benchmem -benchtime "$BENCHTIME" $pkgs || rc=$?

echo "==> krilint as a vet tool versus a do-nothing vet tool (${VETBENCH_ROUNDS} rounds, ${VETBENCH_PACKAGES} packages)"
echo "    krilint/nop is krilint's time over the do-nothing tool's; SPEC §6 wants at most 1.15"
go test -run '^$' -bench 'VetTool' -benchmem -benchtime "${VETBENCH_ROUNDS}x" -timeout 60m \
  ./test/vetbench -vetbench.packages="$VETBENCH_PACKAGES" || rc=$?

exit $rc
