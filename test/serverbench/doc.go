// Package serverbench measures the kriguard webhook server as the API server sees it: over TLS on
// loopback, against the same server with an allow-all handler. It holds benchmarks only:
//
//	go test -run '^$' -bench . -benchtime 1x ./test/serverbench/
//
// BenchmarkThroughput reports throughput-ratio (the webhook's requests per second over those of the same
// server with an allow-all handler; target at least 0.95) and ratio-vs-bare (over controller-runtime's
// bare admission plumbing with an allow-all handler), BenchmarkAlone serves the webhook or the
// allow-all server alone in the process, for hack/bench-process.sh to count under callgrind,
// BenchmarkLatency reports p50-ms and p99-ms at a steady 500
// requests per second (target p99 under 2 ms), and BenchmarkIdleMemory reports idle-rss-MiB, the
// resident memory of an idle cmd/webhook process with external certificates and with cert-controller
// against a real control plane (target under 64 MiB). BenchmarkLargeReviews reports peak-rss-MiB of the
// binary, run with the chart's memory limit, under 30 concurrent 6 MiB reviews, against limit-MiB
// (docs/limits.md), and how many were decided or refused for want of budget before their deadline. Every loop is bounded and every socket is on
// 127.0.0.1. KRIGUARD_WEBHOOK_BINARY names a prebuilt webhook binary to measure instead of building
// cmd/webhook.
package serverbench
