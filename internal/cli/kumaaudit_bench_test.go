package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kriguard/kriguard/internal/kumaapi/kumaapitest"
)

// manyResourcesServer serves the index and the types of the v2.14.3 fixture, and n stored
// MeshTimeouts (kumaapitest.Timeouts); other types list empty.
func manyResourcesServer(tb testing.TB, n int) *httptest.Server {
	tb.Helper()
	f := readKumaFixture(tb, "v2.14.3-0c7aaec")
	s := httptest.NewUnstartedServer(kumaapitest.Handler(f["/"].Body, f["/_resources"].Body, kumaapitest.Timeouts(n)))
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.Start()
	tb.Cleanup(s.Close)
	return s
}

// bareListing reads every page of /meshtimeouts as a client that only lists does: GET, decode the
// page with its items left raw, follow next.
func bareListing(tb testing.TB, base string, size int) int {
	n := 0
	uri := base + "/meshtimeouts?size=" + strconv.Itoa(size)
	for uri != "" {
		resp, err := http.Get(uri)
		if err != nil {
			tb.Fatal(err)
		}
		var p struct {
			Items []json.RawMessage `json:"items"`
			Next  *string           `json:"next"`
		}
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if err != nil {
			tb.Fatal(err)
		}
		n += len(p.Items)
		uri = ""
		if p.Next != nil {
			uri = base + (*p.Next)[strings.Index(*p.Next, "/meshtimeouts"):]
		}
	}
	return n
}

// BenchmarkKumaAudit: audit --kuma-api over 10,000 stored resources against a bare paged listing
// of the same resources from the same server, both in each iteration; x-bare is their ratio.
func BenchmarkKumaAudit(b *testing.B) {
	const n, size = 10_000, 500
	s := manyResourcesServer(b, n)
	b.ReportAllocs()
	var bare, audit time.Duration
	for b.Loop() {
		t0 := time.Now()
		if got := bareListing(b, s.URL, size); got != n {
			b.Fatalf("listed %d, want %d", got, n)
		}
		t1 := time.Now()
		var errOut bytes.Buffer
		code := Main(context.Background(), []string{"audit", "--kuma-api", s.URL, "--chunk-size", strconv.Itoa(size), "-o", "json"},
			Streams{In: strings.NewReader(""), Out: io.Discard, Err: &errOut, Version: "bench"})
		if code != ExitDenied {
			b.Fatalf("exit %d: %s", code, errOut.String())
		}
		t2 := time.Now()
		bare += t1.Sub(t0)
		audit += t2.Sub(t1)
	}
	b.ReportMetric(float64(audit.Nanoseconds())/float64(n*b.N), "ns/resource-audit")
	b.ReportMetric(float64(bare.Nanoseconds())/float64(n*b.N), "ns/resource-bare")
	b.ReportMetric(float64(audit)/float64(bare), "x-bare")
}
