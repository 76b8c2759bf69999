// Package auditbench measures kriguard audit as whole processes against the floor of a bare
// paginated listing of the same objects (the barelist command), in one run, on one machine:
// `make bench-audit`.
//
// BenchmarkAuditProcess seeds a real kube-apiserver (internal/testenv) with guarded objects and runs,
// in interleaved rounds, the built kriguard binary's audit (text, the default, and -o json) and
// barelist over the same kinds with the same page size. BenchmarkKumaAuditProcess does the same
// against a Kuma REST API served in the test process (audit --kuma-api). Each prints every round,
// the median wall time and CPU time (user + system) of each process, and the medians of the
// per-round ratios, with the machine's cores and load average (docs/performance.md).
package auditbench
