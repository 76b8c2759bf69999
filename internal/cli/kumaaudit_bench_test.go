package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// manyResourcesServer serves the index and the types of the v2.14.3 fixture, and n stored
// MeshTimeouts, shaped as that control plane listed them (one in ten with a display-name label no
// KRI can hold), paged as Kuma pages: size, offset, next. Other types list empty.
func manyResourcesServer(tb testing.TB, n int) *httptest.Server {
	tb.Helper()
	f := readKumaFixture(tb, "v2.14.3-0c7aaec")
	items := make([]json.RawMessage, n)
	for i := range n {
		label := ""
		if i%10 == 0 {
			label = `,"kuma.io/display-name":"Timeout_` + strconv.Itoa(i) + `"`
		}
		items[i] = json.RawMessage(fmt.Sprintf(`{"type":"MeshTimeout","mesh":"default","name":"timeout-%[1]d",`+
			`"creationTime":"2026-11-25T20:19:30.436334032Z","modificationTime":"2026-11-25T20:19:30.436334032Z",`+
			`"labels":{"kuma.io/env":"universal","kuma.io/mesh":"default","kuma.io/origin":"zone","kuma.io/zone":"default"%[2]s},`+
			`"spec":{"targetRef":{"kind":"Mesh"},"to":[{"targetRef":{"kind":"MeshService","labels":{"kuma.io/display-name":"backend-%[1]d"},"sectionName":"http"},`+
			`"default":{"idleTimeout":"20s","connectionTimeout":"2s","http":{"requestTimeout":"5s"}}}]},`+
			`"kri":"kri_mt_default_default__timeout-%[1]d_"}`, i, label))
	}
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/", "/_resources":
			_, _ = w.Write(f[r.URL.Path].Body)
			return
		}
		all := items
		if r.URL.Path != "/meshtimeouts" {
			all = nil
		}
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		end := min(offset+size, len(all))
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"total":%d,"items":[`, len(all))
		for i, it := range all[min(offset, end):end] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(it)
		}
		next := "null"
		if end < len(all) {
			next = strconv.Quote(fmt.Sprintf("http://%s%s?offset=%d&size=%d", r.Host, r.URL.Path, end, size))
		}
		fmt.Fprintf(&b, `],"next":%s}`, next)
		_, _ = w.Write(b.Bytes())
	}))
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
