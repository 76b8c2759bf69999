package serverbench

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// chartMemoryLimit is the chart's default resources.limits.memory, which it passes as --memory-limit.
const chartMemoryLimit = 256 << 20

// largeReview returns an UPDATE review of a MeshTimeout whose object and oldObject are each about
// objectBytes of JSON: many spec.to entries, their sectionName valid or, with bad, all invalid (so
// that the checks decode spec and compare both objects by value).
func largeReview(tb testing.TB, objectBytes int, bad bool) []byte {
	tb.Helper()
	section := "http"
	if bad {
		section = "Bad_Port"
	}
	obj := func(label string) []byte {
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"big","namespace":"kuma-demo","labels":{"kuma.io/mesh":"default","rev":%q}},"spec":{"targetRef":{"kind":"Mesh"},"to":[`, label)
		for i := 0; b.Len() < objectBytes; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"targetRef":{"kind":"MeshService","name":"backend-%d","namespace":"kuma-demo","sectionName":%q},"default":{"idleTimeout":"20s","connectionTimeout":"2s","http":{"requestTimeout":"2s"}}}`, i, section)
		}
		b.WriteString(`]}}`)
		return b.Bytes()
	}
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID("0d1f6a0e-large"),
			Kind:      metav1.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTimeout"},
			Resource:  metav1.GroupVersionResource{Group: "kuma.io", Version: "v1alpha1", Resource: "meshtimeouts"},
			Name:      "big",
			Namespace: "kuma-demo",
			Operation: admissionv1.Update,
			Object:    runtime.RawExtension{Raw: obj("2")},
			OldObject: runtime.RawExtension{Raw: obj("1")},
		},
	}
	b, err := json.Marshal(review)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkLargeReviews starts the cmd/webhook binary as the chart runs it (--memory-limit of the
// chart's default limit, external certificates), sends it 30 concurrent 6 MiB reviews over TLS with
// the API server's ?timeout=10s, and reports the peak resident memory (VmHWM) against the limit:
// peak-rss-MiB must stay below limit-MiB, and every review must be answered, with its decision
// (decided) or, when the budget had no room for it before its deadline, with a 429 (busy).
func BenchmarkLargeReviews(b *testing.B) {
	bin := buildWebhook(b)
	for _, bad := range []bool{false, true} {
		name := "valid-refs"
		if bad {
			name = "bad-refs"
		}
		b.Run(name, func(b *testing.B) {
			body := largeReview(b, 3<<20-64<<10, bad)
			if len(body) > 7<<20 {
				b.Fatalf("review of %d bytes, above the API server's largest", len(body))
			}
			dir := b.TempDir()
			ca := writeCerts(b, dir)
			ports := freePorts(b, 4)
			kubeconfig := unreachableKubeconfig(b, dir, ports[3])
			p := start(b, bin,
				"--kubeconfig="+kubeconfig,
				"--cert-management=external",
				"--cert-dir="+dir,
				"--webhook-host=127.0.0.1",
				"--webhook-port="+strconv.Itoa(ports[0]),
				"--metrics-bind-address=0",
				"--health-probe-bind-address=127.0.0.1:"+strconv.Itoa(ports[2]),
				"--shutdown-delay=0s",
				"--memory-limit="+strconv.Itoa(chartMemoryLimit),
			)
			defer p.stop()
			p.waitReady(b, "http://127.0.0.1:"+strconv.Itoa(ports[2])+"/readyz")
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(ca)
			const clients = 30
			hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
				TLSClientConfig:     &tls.Config{RootCAs: pool, ServerName: "localhost"},
				MaxIdleConnsPerHost: clients,
				// Loopback only: resolve localhost ourselves rather than trust the resolver.
				DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
					return (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0])))
				},
			}}
			url := "https://localhost:" + strconv.Itoa(ports[0]) + "/validate?timeout=10s"
			b.ReportAllocs()
			var elapsed time.Duration
			var decisions, busy int
			for range b.N {
				start := time.Now()
				errs := make([]error, clients)
				var wg sync.WaitGroup
				for i := range clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						errs[i] = decided(hc, url, body)
					}()
				}
				wg.Wait()
				elapsed += time.Since(start)
				for i, err := range errs {
					switch {
					case err == nil:
						decisions++
					case errors.Is(err, errBusy):
						busy++
					default:
						b.Errorf("review %d of %d: %v", i+1, clients, err)
					}
				}
			}
			peak, err := procStatus(p.cmd.Process.Pid, "VmHWM:")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(peak/(1<<20), "peak-rss-MiB")
			b.ReportMetric(chartMemoryLimit/(1<<20), "limit-MiB")
			b.ReportMetric(float64(len(body))/(1<<20), "review-MiB")
			b.ReportMetric(elapsed.Seconds()/float64(b.N), "s/30-reviews")
			b.ReportMetric(float64(decisions)/float64(b.N), "decided/30")
			b.ReportMetric(float64(busy)/float64(b.N), "busy/30")
			if peak >= chartMemoryLimit {
				b.Errorf("peak resident memory %.1f MiB, at or above the chart's limit of %d MiB", peak/(1<<20), chartMemoryLimit>>20)
			}
		})
	}
}

var errBusy = errors.New("answered 429 or 408: no room in the memory budget, or no time left to read the body, before the deadline")

// decided posts one review and checks that it was answered with a decision.
func decided(hc *http.Client, url string, body []byte) error {
	resp, err := hc.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusTooManyRequests && bytes.Contains(out, []byte("no memory left")) ||
		bytes.Contains(out, []byte(`"code":408`)) {
		return errBusy
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("answer %s: %s", resp.Status, out)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(out, &review); err != nil || review.Response == nil || review.Response.UID == "" {
		return fmt.Errorf("no decision: %v %.200s", err, out)
	}
	return nil
}

// procStatus reads one "Key: N kB" line of /proc/<pid>/status, in bytes.
func procStatus(pid int, key string) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", key, pid)
}
