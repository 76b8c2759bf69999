#!/usr/bin/env bash
# make bench-stages: the instructions one review costs in process, stage by stage (webhook's
# BenchmarkStages), counted with callgrind, which the load of the machine does not change.
#
# Each stage runs twice under callgrind, LOW and HIGH times (50 and 5,050); (HIGH - LOW) /
# (HIGH - LOW ops) is its instructions per review, without the process's start. A stage's share is of transport + serve,
# one review in full. The time per op of an ordinary run follows for comparison (noise under load).
set -euo pipefail
cd "$(dirname "$0")/.."

LOW=${LOW:-50}
HIGH=${HIGH:-5050}
command -v valgrind >/dev/null || { echo "bench-stages needs valgrind (apt-get install valgrind)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/webhook.test" ./webhook

# Go's asynchronous preemption signals crash callgrind (3.19); one P keeps the count single-threaded.
# Without collections (GOGC=off: 5,050 reviews allocate some 60 MB) the two runs differ by the
# reviews alone; with them, by when each collection fell, which left stages negative at 550 runs.
instructions() { # benchmark, times
  (cd webhook && GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    "$tmp/webhook.test" -test.run '^$' -test.bench "^BenchmarkStages/$1\$" -test.benchtime "$2x" -test.cpu 1 2>&1) \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
for webhook in validate mutate; do
  declare -A per=()
  for stage in transport read decode judge patch encode serve; do
    lo=$(instructions "$webhook/$stage" "$LOW")
    hi=$(instructions "$webhook/$stage" "$HIGH")
    per[$stage]=$(( (hi - lo) / (HIGH - LOW) ))
  done
  total=$(( per[transport] + per[serve] ))
  glue=$(( per[serve] - per[read] - per[decode] - per[judge] - per[patch] - per[encode] ))
  printf '%s: one review = %d instructions (transport + serve)\n' "$webhook" "$total"
  printf '  %-10s %12s %7s\n' stage instr/op share
  for stage in transport read decode judge patch encode; do
    printf '  %-10s %12d %6.1f%%\n' "$stage" "${per[$stage]}" "$(echo "100*${per[$stage]}/$total" | bc -l)"
  done
  printf '  %-10s %12d %6.1f%%\n' glue "$glue" "$(echo "100*$glue/$total" | bc -l)"
  printf '  %-10s %12d %6.1f%%\n' serve "${per[serve]}" "$(echo "100*${per[serve]}/$total" | bc -l)"
  [ "$webhook" = validate ] && validate_serve=${per[serve]}
  unset per
done
# test/serverbench's BenchmarkThroughput compares the validating webhook with the same server
# allowing every review: its ratio follows what validate/serve costs beyond allow-all/serve.
lo=$(instructions allow-all/serve "$LOW")
hi=$(instructions allow-all/serve "$HIGH")
allow=$(( (hi - lo) / (HIGH - LOW) ))
printf 'allow-all: serve = %d instructions; validate serve over it: %d\n' "$allow" "$(( validate_serve - allow ))"
echo "time and allocations per op (time is noise on a loaded machine):"
(cd webhook && "$tmp/webhook.test" -test.run '^$' -test.bench '^BenchmarkStages' -test.benchmem | grep '^Benchmark')
