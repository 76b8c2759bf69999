#!/usr/bin/env bash
# make bench-throughput: test/serverbench's BenchmarkThroughput in ROUNDS rounds (default 5) of
# BENCHTIME (default 3000x): the webhook's throughput over TLS over the same server's with an
# allow-all handler, in one run, and the median of the rounds' ratios (issue 28's bar: 0.95).
# The rounds interleave the servers, so they see the same load; the machine's cores and load are
# printed beside the ratios (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
BENCHTIME=${BENCHTIME:-3000x}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
out=$(go test ./test/serverbench -run '^$' -bench '^BenchmarkThroughput$' -benchmem -benchtime "$BENCHTIME" -count "$ROUNDS")
echo "$out" | grep '^Benchmark'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$out" | grep '^BenchmarkThroughput' | sed -n 's/.* \([0-9.]*\) throughput-ratio.*/\1/p' | sort -n \
  | awk '{r[NR]=$1} END {if (NR == 0) exit 1; m = (NR % 2) ? r[(NR+1)/2] : (r[NR/2]+r[NR/2+1])/2;
    printf "throughput-ratio: median %.3f of %d rounds (min %.3f, max %.3f); bar 0.95\n", m, NR, r[1], r[NR]}'
