#!/usr/bin/env bash
# make test: every test of the project, on a fresh machine. Builds the pinned tools first (once; cached).
set -euo pipefail
cd "$(dirname "$0")/.."

eval "$(./hack/tools.sh env)"

./hack/lint.sh

echo "==> image (buildah, FROM scratch; TestImage inspects the archive)"
./hack/image.sh

echo "==> go test (unit, fuzz seed corpora, envtest end-to-end, chart, analyzer integration)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
go test -count=1 -timeout 45m -v ./... >"$log" 2>&1
rc=$?
set -e
grep -E '^(=== RUN|\s*--- (PASS|FAIL|SKIP)|ok |FAIL|PASS$|panic:)' "$log" | grep -vE '^=== RUN' | grep -E -- '--- FAIL|^ok |^FAIL|panic:' || true
if [ $rc -ne 0 ]; then
  echo "==> failures in detail"
  grep -nE -B2 -A30 -- '--- FAIL|^FAIL: |panic:' "$log" | head -n 400
fi
passed=$(grep -cE '^\s*--- PASS' "$log" || true)
failed=$(grep -cE '^\s*--- FAIL' "$log" || true)
skipped=$(grep -cE '^\s*--- SKIP' "$log" || true)
if [ "$skipped" -gt 0 ]; then
  echo "==> skipped (opt-in tests and why)"
  awk '/^=== RUN/ {why=""; next} /^[[:space:]]+[A-Za-z0-9_]+\.go:[0-9]+: / {sub(/^[[:space:]]+[A-Za-z0-9_]+\.go:[0-9]+: /, ""); why=$0; next} /^[[:space:]]*--- SKIP: / {print "  " $3 ": " why}' "$log" || true
fi
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
exit $rc
