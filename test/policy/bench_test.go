package policy

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
	b.Run("saturation", func(b *testing.B) {
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
	})
	b.Run("rate", func(b *testing.B) {
		const perSecond = 100 // all modes together
		const perMode = 300
		got := map[string]*sample{}
		for _, m := range benchModes {
			got[m.key] = &sample{}
		}
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
