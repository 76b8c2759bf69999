package policy

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/admissionpolicy"
	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

func gk(k testenv.Kind) schema.GroupKind { return schema.GroupKind{Group: k.Group, Kind: k.Kind} }

func judge(name string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{judgeLabel: name}}
}

// TestAgreement: the policy alone and the validating webhook alone give the same allow/deny for every
// object of the corpus the policy covers.
func TestAgreement(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t, "agreement", nil)
	cfg := rules.DefaultConfig()

	var corpus []item
	ex, err := exampleObjects(ns)
	if err != nil {
		t.Fatal(err)
	}
	vec, err := vectorObjects(ns)
	if err != nil {
		t.Fatal(err)
	}
	corpus = append(corpus, ex...)
	corpus = append(corpus, vec...)
	corpus = append(corpus, generatedObjects(ns, env.Kinds, cfg)...)
	corpus = append(corpus, fuzzed(corpus, 600, 19)...)

	// The webhook judges the objects labelled judge=webhook, the policy those labelled judge=policy.
	if err := registerWebhook(ctx, hook.ValidatingName, "", "", nil, judge(judgeWebhook), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = registerWebhook(context.Background(), hook.ValidatingName, "", "", nil, selectNothing(), selectNothing())
	})
	policies := installPolicies(t, judge(judgePolicy), nil)
	typeCheck(t, policies)
	waitActive(t, ns)

	type result struct {
		it   item
		w, p outcome
	}
	results := make([]result, len(corpus))
	var wg sync.WaitGroup
	work := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				it := corpus[i]
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				results[i] = result{it: it, w: create(cctx, labelled(it.obj, judgeWebhook), true), p: create(cctx, labelled(it.obj, judgePolicy), true)}
				cancel()
			}
		}()
	}
	for i := range corpus {
		work <- i
	}
	close(work)
	wg.Wait()

	type tally struct{ total, allowed, denied, rejected, uncovered, disagree int }
	counts := map[string]*tally{}
	var uncovered []string
	for _, r := range results {
		c := counts[r.it.source]
		if c == nil {
			c = &tally{}
			counts[r.it.source] = c
		}
		c.total++
		kind := r.it.obj.GetKind()
		switch {
		case r.w.verdict == r.p.verdict:
			switch r.w.verdict {
			case allowed:
				c.allowed++
			case denied:
				c.denied++
			default:
				c.rejected++
			}
		case r.w.verdict == denied && r.p.verdict == allowed && !anyCovered(kind, r.w.causes):
			c.uncovered++
			uncovered = append(uncovered, fmt.Sprintf("%s %s: webhook: %s", r.it.source, r.it.name, r.w.message))
		default:
			c.disagree++
			t.Errorf("%s %q (%s): webhook %s, policy %s\n  webhook: %s\n  policy: %s\n  object: %s",
				r.it.source, r.it.name, kind, r.w.verdict, r.p.verdict, r.w.message, r.p.message, dump(r.it.obj))
		}
	}
	sources := make([]string, 0, len(counts))
	for s := range counts {
		sources = append(sources, s)
	}
	sort.Strings(sources)
	var sum tally
	for _, s := range sources {
		c := counts[s]
		t.Logf("%-10s %5d objects: %5d allowed by both, %5d denied by both, %4d rejected by the API server itself, %3d not covered, %3d disagreements",
			s, c.total, c.allowed, c.denied, c.rejected, c.uncovered, c.disagree)
		sum.total += c.total
		sum.allowed += c.allowed
		sum.denied += c.denied
		sum.rejected += c.rejected
		sum.uncovered += c.uncovered
		sum.disagree += c.disagree
	}
	t.Logf("%-10s %5d objects: %5d allowed by both, %5d denied by both, %4d rejected by the API server itself, %3d not covered, %3d disagreements",
		"all", sum.total, sum.allowed, sum.denied, sum.rejected, sum.uncovered, sum.disagree)
	for _, u := range uncovered {
		t.Logf("not covered: %s", u)
	}
	if sum.allowed == 0 || sum.denied == 0 {
		t.Errorf("the corpus must hold objects both judges allow and objects both deny")
	}
}

// labelled returns a copy of obj routed to judge j.
func labelled(obj *unstructured.Unstructured, j string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj.Object)}
	l := u.GetLabels()
	if l == nil {
		l = map[string]string{}
	}
	l[judgeLabel] = j
	u.SetLabels(l)
	return u
}

// waitActive waits until the policies judge requests: the API server loads policies and bindings
// asynchronously. It probes every kind for which a bad object is easy to build (a bad zone label for
// KRI kinds, a broken relation for KongService, KongTarget and KongPluginBinding), then waits two
// seconds more for the kinds whose policies only the API server's own checks can trigger.
func waitActive(t testing.TB, ns string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, k := range env.Kinds {
		if _, ok := rules.DefaultConfig().Enforcement(gk(k)); !ok {
			continue
		}
		u := testenv.NewObject(k, ns, "probe")
		switch k.Kind {
		case "KongService":
			_ = unstructured.SetNestedField(u.Object, "cp1.2", "spec", "host")
		case "KongTarget":
			u.SetName("cp1.2.3")
		case "KongPluginBinding":
			u.SetName("a.cp1.2.pl3")
			_ = unstructured.SetNestedField(u.Object, map[string]any{"group": "configuration.konghq.com", "kind": "KongRoute", "name": "b.cp1.2"}, "spec", "targets", "routeRef")
			_ = unstructured.SetNestedField(u.Object, "OnlyTargets", "spec", "scope")
		default:
			if k.Group == rules.KongGroup {
				continue
			}
			setMap(u, "labels", naming.LabelZone, "Not_A_Zone")
		}
		for {
			if o := create(context.Background(), labelled(u, judgePolicy), true); o.verdict == denied {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the policy of %s did not start judging within a minute", k.Kind)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	time.Sleep(2 * time.Second)
}

// covered lists the fields the policy checks, per kind, as patterns over the webhook's cause fields.
func anyCovered(kind string, causes []string) bool {
	for _, c := range causes {
		if isCovered(kind, c) {
			return true
		}
	}
	return false
}

var index = regexp.MustCompile(`\[[0-9]+\]`)

func isCovered(kind, field string) bool {
	switch field {
	case "mesh", "metadata.name",
		"metadata.labels[" + naming.LabelMesh + "]", "metadata.labels[" + naming.LabelZone + "]",
		"metadata.labels[" + naming.LabelNamespace + "]", "metadata.labels[" + naming.LabelDisplayName + "]",
		"metadata.annotations[" + naming.LabelDisplayName + "]", "metadata.annotations[" + naming.AnnotationKRI + "]":
		return true
	}
	for _, s := range admissionpolicy.KnownSchemas {
		if s.Kind != kind {
			continue
		}
		f := index.ReplaceAllString(field, "[*]")
		for _, p := range slices.Concat(s.SectionNames, s.KRIs) {
			if admissionpolicy.Path(p) == f {
				return true
			}
		}
	}
	if kind == "MeshProxyPatch" && strings.HasPrefix(field, "spec.default.appendModifications[") {
		return true // hand-typed Envoy names
	}
	switch kind { // the port SNIs
	case "MeshService", "MeshMultiZoneService":
		switch index.ReplaceAllString(field, "[*]") {
		case "spec.ports[*]", "spec.ports[*].name", "spec.ports[*].port":
			return true
		}
	case "MeshExternalService":
		if field == "spec.match" || field == "spec.match.port" {
			return true
		}
	}
	return strings.HasPrefix(kind, "Kong") && (field == "spec.upstreamRef.name" || field == "spec.targets.routeRef.name" || field == "spec.pluginRef.name")
}
