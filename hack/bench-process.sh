#!/usr/bin/env bash
# make bench-process: what one review costs the whole process over TLS, clients, TLS, HTTP, the
# collector and the scheduler included, with the webhook alone against the allow-all server alone
# (test/serverbench's BenchmarkAlone), counted by callgrind with its cache and branch simulations:
# instructions, first-level data and instruction cache misses (kriguard's own code's share of the
# latter) and mispredicted branches a review.
#
# Each server runs under callgrind twice, LOW and HIGH reviews (default 50 and 2,050); (HIGH - LOW)
# / (HIGH - LOW reviews) is a review's share, without the start. One client sends the reviews on one
# connection, with ECDSA keys and X25519 (BenchmarkAlone): RSA keys' generation and signatures
# would move the counts by more than the difference measured. The collector is off (GOGC=off): with
# it on, where its cycles fall (one every 200 reviews or so) moves a count by more than the
# difference measured; what each review leaves it to do, its allocations, is printed from an
# ordinary run beside (docs/performance.md, "The whole process"). The machine's load does not
# change the counts much (about ±2,000 instructions a review: the scheduler's work by the clock);
# a run takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

LOW=${LOW:-50}
HIGH=${HIGH:-2050}
command -v valgrind >/dev/null || { echo "bench-process needs valgrind (apt-get install valgrind)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "building test/serverbench"
go test -c -o "$tmp/serverbench.test" ./test/serverbench

# count prints callgrind's totals of one run: with sim set, L1 data misses and mispredicted
# branches, else instructions. Go's asynchronous preemption signals crash callgrind (3.19); one P
# keeps the count single-threaded. The simulations slow the process down three times more, and what
# the runtime does by the clock (sysmon, the scheduler's polls) then moves the instructions: they
# are counted without.
count() { # server, reviews, sim
  local out="$tmp/$1-$2-$3.out" sim=()
  [ "$3" = sim ] && sim=(--cache-sim=yes --branch-sim=yes)
  (cd test/serverbench && GOGC=off GODEBUG=asyncpreemptoff=1 \
    valgrind --tool=callgrind "${sim[@]}" --callgrind-out-file="$out" \
    "$tmp/serverbench.test" -test.run '^$' -test.bench "^BenchmarkAlone/$1\$" -test.benchtime "$2x" -test.cpu 1 \
    >"$out.log" 2>&1) || { cat "$out.log" >&2; exit 1; }
  # events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
  awk -v sim="$3" '/^events:/ {for (i = 2; i <= NF; i++) col[$i] = i - 1}
    /^(summary|totals):/ {
      if (sim == "sim") printf "%d %d %d ", $(col["D1mr"]+1) + $(col["D1mw"]+1), $(col["Bcm"]+1) + $(col["Bim"]+1), $(col["I1mr"]+1)
      else print $(col["Ir"]+1)
      exit}' "$out"
  # With the simulations, kriguard's own functions' share of the instruction cache misses: every
  # review's TLS and HTTP work evicts the judgement's code, so each line of it a review runs is a
  # miss (docs/performance.md, "The code a review touches").
  [ "$3" = sim ] && callgrind_annotate --auto=no --threshold=100 --show=I1mr "$out" |
    awk '/:github\.com\/kriguard\// { gsub(",", "", $1); if ($1 ~ /^[0-9]+$/) s += $1 } END { print s + 0 }'
  return 0
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
declare -A per
n=$((HIGH - LOW))
for server in webhook allow-all; do
  echo "counting $server alone: $LOW and $HIGH reviews, twice each"
  count "$server" "$LOW" plain >"$tmp/$server.low" &
  count "$server" "$HIGH" plain >"$tmp/$server.high" &
  wait
  count "$server" "$LOW" sim >"$tmp/$server.lowsim" &
  count "$server" "$HIGH" sim >"$tmp/$server.highsim" &
  wait
  read -r ir1 <"$tmp/$server.low"
  read -r ir2 <"$tmp/$server.high"
  read -r d1 b1 i1 k1 <"$tmp/$server.lowsim"
  read -r d2 b2 i2 k2 <"$tmp/$server.highsim"
  per[$server]="$(((ir2 - ir1) / n)) $(((d2 - d1) / n)) $(((b2 - b1) / n)) $(((i2 - i1) / n)) $(((k2 - k1) / n))"
done
printf '%-10s %13s %11s %16s %11s %16s\n' "per review" instructions "L1d misses" "branch mispred." "L1i misses" "of them kriguard"
read -r wi wd wb wc wk <<<"${per[webhook]}"
read -r ai ad ab ac ak <<<"${per[allow-all]}"
printf '%-10s %13d %11d %16d %11d %16d\n' webhook "$wi" "$wd" "$wb" "$wc" "$wk" allow-all "$ai" "$ad" "$ab" "$ac" "$ak"
printf '%-10s %+13d %+11d %+16d %+11d %+16d\n' difference $((wi - ai)) $((wd - ad)) $((wb - ab)) $((wc - ac)) $((wk - ak))
printf 'webhook over allow-all: instructions %.3f, L1d misses %.3f, mispredicted branches %.3f, L1i misses %.3f\n' \
  "$(echo "$wi/$ai" | bc -l)" "$(echo "$wd/$ad" | bc -l)" "$(echo "$wb/$ab" | bc -l)" "$(echo "$wc/$ac" | bc -l)"
echo "allocations a review (an ordinary run, the collector on):"
(cd test/serverbench && "$tmp/serverbench.test" -test.run '^$' -test.bench '^BenchmarkAlone/' \
  -test.benchtime 3000x | grep '^BenchmarkAlone' | awk '{print "  " $1, $(NF-3), $(NF-2), $(NF-1), $NF}')
