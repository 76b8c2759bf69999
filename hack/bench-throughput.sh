#!/usr/bin/env bash
# make bench-throughput: test/serverbench's BenchmarkThroughput in ROUNDS rounds (default 5) of
# BENCHTIME (default 30000x): the webhook's throughput over TLS over the same server's with an
# allow-all handler, in one run, and the median of the rounds' ratios (issue 28's bar: 0.95).
# The rounds interleave the servers in rotating turns, so they see the same load and none always
# goes first; a control (the allow-all server twice) shows what the benchmark cannot tell apart. The
# machine's cores and load are printed beside the ratios (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
BENCHTIME=${BENCHTIME:-30000x}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
out=$(go test ./test/serverbench -run '^$' -bench '^BenchmarkThroughput$' -benchmem -benchtime "$BENCHTIME" -count "$ROUNDS")
echo "$out" | grep '^Benchmark'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# median metric bar: the median of the rounds' metric, with its spread.
median() {
  echo "$out" | grep '^BenchmarkThroughput' | awk -v name="$1" '{for (i = 2; i <= NF; i++) if ($i == name) print $(i-1)}' | sort -n \
    | awk -v name="$1" -v bar="$2" '{r[NR]=$1} END {if (NR == 0) exit 1; m = (NR % 2) ? r[(NR+1)/2] : (r[NR/2]+r[NR/2+1])/2;
      printf "%s: median %.3f of %d rounds (min %.3f, max %.3f); %s\n", name, m, NR, r[1], r[NR], bar}'
}
median throughput-ratio "bar 0.95"
median control-ratio "two identical servers: its spread is the benchmark's own"
median turn-ratio "the same, each round's median of its turns' ratios (docs/performance.md)"
median control-turn-ratio "the control's"
