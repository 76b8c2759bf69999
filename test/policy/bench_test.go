package policy

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/naming"
)

// The configurations compared, each in a namespace of its own.
var benchModes = []struct{ key, namespace, what string }{
	{"a", "bench-none", "nothing of kriguard's"},
	{"b", "bench-webhook", "the webhook (mutating + validating)"},
	{"c", "bench-policy", "the policy"},
	{"d", "bench-both", "the webhook and the policy"},
	{"e", "bench-nop", "a do-nothing webhook (mutating + validating)"},
	{"f", "bench-policy-mode", "the policy and the mutating webhook (the chart's validation.mode: policy)"},
	{"g", "bench-one-rule", "a one-rule policy (the floor any policy pays)"},
}

// benchClients is the number of concurrent clients, as in the measurements the issue quotes.
const benchClients = 4

// benchSetup registers every configuration once, each for its namespaces only, and returns one
// client per concurrent caller, each with its own connection and no client-side rate limit.
func benchSetup(b *testing.B) []client.Client {
	b.Helper()
	ctx := context.Background()
	for _, m := range benchModes {
		newNamespace(b, m.namespace, nil)
	}
	in := func(ns ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: ns,
		}}}
	}
	steps := []error{
		registerWebhook(ctx, hook.ValidatingName, "", "", nil, nil, in("bench-webhook", "bench-both")),
		registerWebhook(ctx, "", hook.MutatingName, "", nil, nil, in("bench-webhook", "bench-both", "bench-policy-mode")),
		registerWebhook(ctx, "policy-bench-nop-validating", "policy-bench-nop-mutating", nop.URL, nopCABundle(), nil, in("bench-nop")),
	}
	for _, err := range steps {
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() {
		ctx := context.Background()
		_ = registerWebhook(ctx, hook.ValidatingName, hook.MutatingName, "", nil, selectNothing(), selectNothing())
		_ = registerWebhook(ctx, "policy-bench-nop-validating", "policy-bench-nop-mutating", nop.URL, nopCABundle(), selectNothing(), selectNothing())
	})
	installPolicies(b, nil, in("bench-policy", "bench-both", "bench-policy-mode"))
	installOneRule(b, in("bench-one-rule"))
	waitActive(b, "bench-policy")

	clients := make([]client.Client, benchClients)
	for i := range clients {
		cfg := rest.CopyConfig(env.Config)
		cfg.QPS, cfg.Burst = -1, 0
		// A dialer of its own gives each client its own transport and connection.
		cfg.Dial = (&net.Dialer{Timeout: 5 * time.Second}).DialContext
		c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
		if err != nil {
			b.Fatal(err)
		}
		clients[i] = c
	}
	// Warm every path (connections, informers, the webhooks' TLS sessions).
	for _, m := range benchModes {
		for range 20 {
			if err := clients[0].Create(ctx, benchObject(m.namespace)); err != nil {
				b.Fatalf("%s: %v", m.key, err)
			}
		}
	}
	return clients
}

// installOneRule installs a policy with one trivial rule on MeshTimeouts, and its binding.
func installOneRule(b *testing.B, namespaces *metav1.LabelSelector) {
	b.Helper()
	fail := admissionregistrationv1.Fail
	scope := admissionregistrationv1.NamespacedScope
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "policy-bench-one-rule"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: namespaces,
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"kuma.io"}, APIVersions: []string{"*"}, Resources: []string{"meshtimeouts"}, Scope: &scope},
				}}},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.metadata.name != 'forbidden'"}},
		},
	}
	bind := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "policy-bench-one-rule"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: p.Name, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	for _, o := range []client.Object{p, bind} {
		if err := env.Client.Create(context.Background(), o); err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), bind)
		_ = env.Client.Delete(context.Background(), p)
	})
}

var benchSeq atomic.Int64

// benchObject is a valid MeshTimeout to one port of a service, with a unique name.
func benchObject(ns string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout",
		"metadata": map[string]any{
			"name": fmt.Sprintf("bench-%d", benchSeq.Add(1)), "namespace": ns,
			// As Kuma's own webhook labels a locally created object.
			"labels": map[string]any{naming.LabelMesh: "default", naming.LabelNamespace: ns},
		},
		"spec": map[string]any{
			"targetRef": map[string]any{"kind": "Mesh"},
			"to": []any{map[string]any{
				"targetRef": map[string]any{"kind": "MeshService", "labels": map[string]any{"kuma.io/display-name": "backend"}, "sectionName": "http"},
				"default":   map[string]any{"idleTimeout": "20s", "connectionTimeout": "2s"},
			}},
		},
	}}
}

type sample struct {
	latencies []time.Duration
	elapsed   time.Duration
}

func (s *sample) add(o sample) {
	s.latencies = append(s.latencies, o.latencies...)
	s.elapsed += o.elapsed
}

func (s *sample) quantile(q float64) float64 {
	l := slices.Clone(s.latencies)
	slices.Sort(l)
	if len(l) == 0 {
		return 0
	}
	return float64(l[int(q*float64(len(l)-1))].Microseconds()) / 1000
}

// saturate runs n creates in ns from every client, back to back.
func saturate(b *testing.B, clients []client.Client, ns string, n int) sample {
	var mu sync.Mutex
	var out sample
	var wg sync.WaitGroup
	start := time.Now()
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, n)
			for range n {
				t := time.Now()
				if err := c.Create(context.Background(), benchObject(ns)); err != nil {
					b.Error(err)
					return
				}
				local = append(local, time.Since(t))
			}
			mu.Lock()
			out.latencies = append(out.latencies, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	out.elapsed = time.Since(start)
	return out
}

// BenchmarkCreate measures CREATE of a MeshTimeout through the API server under each configuration
// of benchModes, side by side: at saturation (4 clients back to back, the modes in alternating
// blocks) and at a fixed rate (every mode's requests interleaved, paced). It reports, per mode,
// creates/s, p50 and p99 in milliseconds, and the differences that matter: each mode over (a), and
// the webhook over the do-nothing webhook (e).
//
//	go test ./test/policy -run XXX -bench Create -benchtime 1x
func BenchmarkCreate(b *testing.B) {
	clients := benchSetup(b)
	fmt.Printf("machine: %d cores, load average %s\n", runtime.NumCPU(), loadAverage())
	b.Run("saturation", func(b *testing.B) {
		before := admissionDurations(b)
		const perBlock = 10 // per client: short blocks, many rounds, so that every mode sees the same machine
		got := map[string]*sample{}
		for range b.N {
			for round := range 15 {
				for i := range benchModes {
					// Alternate the order of the modes between rounds.
					m := benchModes[(i+round)%len(benchModes)]
					s := saturate(b, clients, m.namespace, perBlock)
					if got[m.key] == nil {
						got[m.key] = &sample{}
					}
					got[m.key].add(s)
				}
			}
		}
		report(b, got, true)
		reportAdmission(b, before, admissionDurations(b))
	})
	b.Run("rate", func(b *testing.B) {
		const perSecond = 100 // all modes together
		const perMode = 300
		got := map[string]*sample{}
		for _, m := range benchModes {
			got[m.key] = &sample{}
		}
		before := admissionDurations(b)
		var mu sync.Mutex
		for range b.N {
			tick := time.NewTicker(time.Second / perSecond)
			var wg sync.WaitGroup
			sem := make(chan client.Client, len(clients))
			for _, c := range clients {
				sem <- c
			}
			for i := range perMode * len(benchModes) {
				<-tick.C
				m := benchModes[i%len(benchModes)]
				c := <-sem
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { sem <- c }()
					t := time.Now()
					if err := c.Create(context.Background(), benchObject(m.namespace)); err != nil {
						b.Error(err)
						return
					}
					d := time.Since(t)
					mu.Lock()
					got[m.key].latencies = append(got[m.key].latencies, d)
					mu.Unlock()
				}()
			}
			wg.Wait()
			tick.Stop()
		}
		report(b, got, false)
		reportAdmission(b, before, admissionDurations(b))
	})
}

func report(b *testing.B, got map[string]*sample, throughput bool) {
	base, nopHook := got["a"], got["e"]
	for _, m := range benchModes {
		s := got[m.key]
		b.ReportMetric(s.quantile(0.5), m.key+"-p50-ms")
		b.ReportMetric(s.quantile(0.99), m.key+"-p99-ms")
		if throughput {
			b.ReportMetric(float64(len(s.latencies))/s.elapsed.Seconds(), m.key+"-creates/s")
		}
		if m.key != "a" {
			b.ReportMetric(s.quantile(0.5)-base.quantile(0.5), m.key+"-over-a-p50-ms")
			b.ReportMetric(s.quantile(0.99)-base.quantile(0.99), m.key+"-over-a-p99-ms")
		}
	}
	b.ReportMetric(got["c"].quantile(0.5)-got["g"].quantile(0.5), "c-over-g-p50-ms")
	for _, k := range []string{"b", "d"} {
		b.ReportMetric(got[k].quantile(0.5)-nopHook.quantile(0.5), k+"-over-e-p50-ms")
		b.ReportMetric(got[k].quantile(0.99)-nopHook.quantile(0.99), k+"-over-e-p99-ms")
	}
	b.ReportMetric(0, "ns/op") // one op is a whole round: the metrics above are the measurement
}

// The API server's own time per webhook call.
const admissionMetric = "apiserver_admission_webhook_admission_duration_seconds"

// histogram is one series of admissionMetric: cumulative counts per upper bound, and the sum.
type histogram struct {
	bounds []float64
	counts []float64
	sum    float64
	count  float64
}

// admissionDurations reads admissionMetric from the API server's /metrics, per webhook and type
// (admit: mutating, validating), for CREATE.
func admissionDurations(b *testing.B) map[string]*histogram {
	b.Helper()
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]*histogram{}
	for line := range strings.Lines(string(raw)) {
		name, rest, ok := strings.Cut(line, "{")
		if !ok || !strings.HasPrefix(name, admissionMetric) {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			b.Fatalf("%s: %v", line, err)
		}
		l := map[string]string{}
		for kv := range strings.SplitSeq(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			l[k] = strings.Trim(v, `"`)
		}
		if l["operation"] != "CREATE" {
			continue
		}
		key := l["name"] + "/" + l["type"]
		h := out[key]
		if h == nil {
			h = &histogram{}
			out[key] = h
		}
		switch strings.TrimPrefix(name, admissionMetric) {
		case "_bucket":
			le, err := strconv.ParseFloat(l["le"], 64)
			if err != nil { // +Inf
				le = math.Inf(1)
			}
			h.bounds = append(h.bounds, le)
			h.counts = append(h.counts, v)
		case "_sum":
			h.sum += v
		case "_count":
			h.count += v
		}
	}
	return out
}

// quantile is the q-quantile of the calls between before and h, interpolated within its bucket as
// Prometheus's histogram_quantile does; NaN without calls.
func (h *histogram) quantile(before *histogram, q float64) float64 {
	counts := slices.Clone(h.counts)
	if before != nil && len(before.counts) == len(counts) {
		for i := range counts {
			counts[i] -= before.counts[i]
		}
	}
	if len(counts) == 0 || counts[len(counts)-1] == 0 {
		return math.NaN()
	}
	rank := q * counts[len(counts)-1]
	lower, below := 0.0, 0.0
	for i, c := range counts {
		if c >= rank {
			if math.IsInf(h.bounds[i], 1) {
				return lower
			}
			if c == below {
				return h.bounds[i]
			}
			return lower + (h.bounds[i]-lower)*(rank-below)/(c-below)
		}
		lower, below = h.bounds[i], c
	}
	return lower
}

// reportAdmission reports the API server's time per call of each webhook of the run, kriguard's
// and the do-nothing one's, mutating and validating separately, in milliseconds: the mean and
// the p50 and p99 of its histogram (coarse: its buckets are 5, 25, 100, 500 ms...).
func reportAdmission(b *testing.B, before, after map[string]*histogram) {
	for _, key := range []string{
		"mutate.kriguard.io/admit", "mutate.nop.kriguard.io/admit",
		"validate.kriguard.io/validating", "validate.nop.kriguard.io/validating",
	} {
		h, old := after[key], before[key]
		if h == nil {
			b.Errorf("the API server has no %s for %s", admissionMetric, key)
			continue
		}
		n, sum := h.count, h.sum
		if old != nil {
			n, sum = n-old.count, sum-old.sum
		}
		metric := "apiserver-" + strings.NewReplacer(".kriguard.io", "", "/", "-").Replace(key)
		fmt.Printf("%s: %.0f calls, mean %.3f ms, p50 %.3f ms, p99 %.3f ms\n", key, n, 1000*sum/n,
			1000*h.quantile(old, 0.5), 1000*h.quantile(old, 0.99))
		b.ReportMetric(1000*sum/n, metric+"-mean-ms")
	}
}

// loadAverage is the machine's load average over 1, 5 and 15 minutes.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(raw))[:3], " ")
}
