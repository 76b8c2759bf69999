package serverbench

import (
	"net/http"
	"testing"
)

// BenchmarkAlone serves b.N reviews over TLS with one server in the process: the webhook, or the same
// server with an allow-all handler. Timed, it says little that BenchmarkThroughput does not; it is
// there to be counted whole, process and client included (hack/bench-process.sh runs it under
// callgrind at two b.N and takes the difference), where BenchmarkThroughput's servers share one
// process, its heap and its collections. One client sends the reviews one after another on one
// connection, and the handshakes are cheap (startServerWith): how many connections a run opens,
// each with its handshake, depends on timing, and an RSA handshake would move the count of a few
// thousand reviews by more than the difference measured.
func BenchmarkAlone(b *testing.B) {
	const workers = 1
	for _, tc := range []struct {
		name string
		h    func() http.Handler
	}{
		{"webhook", validator},
		{"allow-all", allowAll},
	} {
		b.Run(tc.name, func(b *testing.B) {
			t := startServerWith(b, tc.h(), workers, true)
			if _, err := t.hammer(200, workers); err != nil {
				b.Fatalf("warming up: %v", err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			d, err := t.hammer(b.N, workers)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/d.Seconds(), "req/s")
		})
	}
}
