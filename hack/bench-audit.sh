#!/usr/bin/env bash
# make bench-audit: kriguard audit as whole processes against a bare paginated listing of the same
# objects (test/auditbench/barelist), in one run: a kube-apiserver (envtest) seeded with OBJECTS
# guarded objects (default 6000), then a Kuma REST API served in process (audit --kuma-api, OBJECTS
# default 10000). ROUNDS (default 5) interleaved rounds; each process's median wall and CPU time,
# and the medians of the per-round ratios, are printed with the machine's cores and load average.
# BENCH picks one of the two (AuditProcess, KumaAuditProcess).
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(./hack/tools.sh env)"
go test ./test/auditbench -run '^$' -bench "${BENCH:-.}" -benchtime 1x -timeout 30m
