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

# Packages that hold benchmarks, except the vet-tool benchmark and the adversarial ones, which run on their own
# below, and the audit's processes (make bench-audit). Listing them
# saves compiling the test binary of every other package.
pkgs=$(git ls-files -co --exclude-standard '*_test.go' | grep -v '/testdata/' \
  | xargs grep -l '^func Benchmark' | xargs -n1 dirname | sort -u \
  | grep -v '^test/vetbench$' | grep -v '^test/auditbench$' | sed 's|^|./|; s|^\./\.$|.|')

# A failing benchmark package does not stop the others; the exit status reports it at the end.
rc=0

echo "==> go test -bench . (benchtime ${BENCHTIME})"
# shellcheck disable=SC2086
go test -run '^$' -bench . -skip 'ManyCauses|LargeReviews' -benchmem -benchtime "$BENCHTIME" $pkgs || rc=$?

echo "==> adversarial input: many causes (1k/4k/16k bad references) and 30 concurrent 6 MiB reviews"
echo "    time-16k/1k is the 16k object's time over the 1k one's, for 16x the input; docs/limits.md wants at most 20"
go test -run '^$' -bench 'ManyCauses' -benchmem -benchtime "$BENCHTIME" ./webhook || rc=$?
echo "    peak-rss-MiB of one replica (the cmd/webhook binary, --memory-limit of the chart's default) must stay below limit-MiB"
go test -run '^$' -bench 'LargeReviews' -benchmem -benchtime 1x ./test/serverbench || rc=$?

echo "==> krilint as a vet tool versus a do-nothing vet tool (${VETBENCH_ROUNDS} rounds, ${VETBENCH_PACKAGES} packages)"
echo "    krilint/nop is krilint's time over the do-nothing tool's; the target is at most 1.15"
go test -run '^$' -bench 'VetTool' -benchmem -benchtime "${VETBENCH_ROUNDS}x" -timeout 60m \
  ./test/vetbench -vetbench.packages="$VETBENCH_PACKAGES" || rc=$?

exit $rc
