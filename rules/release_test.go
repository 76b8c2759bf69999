package rules

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming"
)

// TestReleaseRules: each object judged under both releases, the rules of each release from its
// facts (docs/releases.md): 2.14 finds none of them, 3.0 what it refuses or silently changes, and
// neither what 3.0 admits unchanged.
func TestReleaseRules(t *testing.T) {
	obj := func(kind, meta, rest string) []byte {
		return []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"` + kind + `","metadata":{"namespace":"kuma-demo",` + meta + `}` + rest + `}`)
	}
	const mesh = `"labels":{"kuma.io/mesh":"m1"}`
	owner := func(apiVersion, name string) string {
		return `,"ownerReferences":[{"apiVersion":"` + apiVersion + `","kind":"Mesh","name":"` + name + `","uid":"u"}]`
	}
	tests := []struct {
		name, kind string
		raw        []byte
		user       string
		// want are the rules found on 3.0 (on 2.14: none of the release rules); inMessage is a
		// text the first finding's message holds.
		want      []Rule
		inMessage string
	}{
		{name: "MeshGateway removed", kind: "MeshGateway", raw: obj("MeshGateway", `"name":"gw"`, `,"mesh":"default"`),
			want: []Rule{RuleRemovedKind}, inMessage: "removed in Kuma 3.0: the built-in gateway is gone"},
		{name: "ZoneIngress removed", kind: "ZoneIngress", raw: obj("ZoneIngress", `"name":"zi"`, ""), want: []Rule{RuleRemovedKind}},
		{name: "ZoneEgress removed", kind: "ZoneEgress", raw: obj("ZoneEgress", `"name":"ze"`, ""), want: []Rule{RuleRemovedKind}},
		{name: "legacy policy removed", kind: "TrafficRoute", raw: obj("TrafficRoute", `"name":"tr"`, `,"mesh":"default"`),
			want: []Rule{RuleRemovedKind}, inMessage: "superseded by the Mesh* policies"},
		{name: "MeshGatewayInstance removed", kind: "MeshGatewayInstance", raw: obj("MeshGatewayInstance", `"name":"gwi"`, ""), want: []Rule{RuleRemovedKind}},
		{name: "RFC 1035 MeshService", kind: "MeshService", raw: obj("MeshService", `"name":"1svc",`+mesh, ""),
			want: []Rule{RuleReleaseName}, inMessage: "RFC 1035"},
		{name: "RFC 1035 Mesh with a dot", kind: "Mesh", raw: []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"Mesh","metadata":{"name":"mesh.a"}}`),
			want: []Rule{RuleReleaseName}},
		{name: "RFC 1035 on metadata.name, not the annotation", kind: "MeshService",
			raw:  obj("MeshService", `"name":"svc.v1",`+mesh+`,"annotations":{"kuma.io/display-name":"svc"}`, ""),
			want: []Rule{RuleReleaseName, RuleOverwrittenKey}},
		{name: "policies are not held to RFC 1035", kind: "MeshTimeout", raw: obj("MeshTimeout", `"name":"1timeout",`+mesh, "")},
		{name: "owner Mesh of another mesh", kind: "MeshTimeout", raw: obj("MeshTimeout", `"name":"t",`+mesh+owner("kuma.io/v1alpha1", "m2"), ""),
			want: []Rule{RuleMeshOwnerReference}, inMessage: `must be the same as the mesh of the resource "m1"`},
		{name: "owner Mesh of the object's mesh", kind: "MeshTimeout", raw: obj("MeshTimeout", `"name":"t",`+mesh+owner("kuma.io/v1alpha1", "m1"), "")},
		{name: "owner Mesh of another group", kind: "MeshTimeout", raw: obj("MeshTimeout", `"name":"t",`+mesh+owner("example.com/v1", "m2"), "")},
		{name: "owner Mesh written by the control plane", kind: "MeshTimeout", user: KumaControlPlaneUser,
			raw: obj("MeshTimeout", `"name":"t",`+mesh+owner("kuma.io/v1alpha1", "m2"), "")},
		{name: "to[] by name", kind: "MeshTimeout",
			raw:  obj("MeshTimeout", `"name":"t",`+mesh, `,"spec":{"to":[{"targetRef":{"kind":"MeshService","name":"backend","sectionName":"http"}}]}`),
			want: []Rule{RuleRefByName}, inMessage: `labels {kuma.io/display-name: "backend", k8s.kuma.io/namespace: "kuma-demo"}`},
		{name: "backendRefs and requestMirror by name", kind: "MeshHTTPRoute",
			raw: obj("MeshHTTPRoute", `"name":"r",`+mesh, `,"spec":{"targetRef":{"kind":"Mesh"},"to":[{"targetRef":{"kind":"MeshService","labels":{"a":"b"}},"rules":[{"default":{`+
				`"backendRefs":[{"kind":"MeshService","name":"v1","namespace":"other","port":80}],`+
				`"filters":[{"type":"RequestMirror","requestMirror":{"backendRef":{"kind":"MeshService","name":"v2"}}}]}}]}]}`),
			want: []Rule{RuleRefByName, RuleRefByName}, inMessage: `k8s.kuma.io/namespace: "other"`},
		{name: "by labels", kind: "MeshTimeout",
			raw: obj("MeshTimeout", `"name":"t",`+mesh, `,"spec":{"targetRef":{"kind":"Dataplane","labels":{"app":"a"}},"to":[{"targetRef":{"kind":"MeshService","labels":{"kuma.io/display-name":"b"}}}]}`)},
		{name: "kind Mesh keeps no name", kind: "MeshTimeout", raw: obj("MeshTimeout", `"name":"t",`+mesh, `,"spec":{"targetRef":{"kind":"Mesh","name":"m1"}}`)},
		{name: "removed ref kinds", kind: "MeshTimeout",
			raw:  obj("MeshTimeout", `"name":"t",`+mesh, `,"spec":{"targetRef":{"kind":"MeshSubset","tags":{"a":"b"}},"to":[{"targetRef":{"kind":"MeshServiceSubset","name":"s"}}]}`),
			want: []Rule{RuleRemovedRefKind, RuleRemovedRefKind}, inMessage: "select with kind Dataplane and labels"},
		{name: "top-level Dataplane by name", kind: "MeshTimeout", raw: obj("MeshTimeout", `"name":"t",`+mesh, `,"spec":{"targetRef":{"kind":"Dataplane","name":"dp-1"}}`),
			want: []Rule{RuleDataplaneRefByName}, inMessage: "selects every Dataplane"},
		{name: "a Dataplane's own outbounds", kind: "Dataplane",
			raw: obj("Dataplane", `"name":"dp"`, `,"mesh":"m1","spec":{"networking":{"outbound":[{"backendRef":{"kind":"MeshService","name":"b"}}]}}`)},
		{name: "origin label", kind: "MeshTimeout", raw: obj("MeshTimeout", `"name":"t","labels":{"kuma.io/mesh":"m1","kuma.io/origin":"global"}`, ""),
			want: []Rule{RuleOverwrittenKey}},
		{name: "display name equal to metadata.name", kind: "MeshTimeout", raw: obj("MeshTimeout", `"name":"t",`+mesh+`,"annotations":{"kuma.io/display-name":"t"}`, "")},
		{name: "origin label of the control plane's copy", kind: "MeshTimeout", user: KumaControlPlaneUser,
			raw: obj("MeshTimeout", `"name":"t","labels":{"kuma.io/mesh":"m1","kuma.io/origin":"global"}`, "")},
		// A KDS copy of a 63-character MeshService: 80 characters of metadata.name, the original in
		// the annotation, which the control plane keeps on what it syncs (compute.go:127).
		{name: "KDS copy written by the control plane", kind: "MeshService", user: KumaControlPlaneUser,
			raw: obj("MeshService", `"name":"`+strings.Repeat("s", 63)+`-4dv9w4x47w8w98v4","labels":{"kuma.io/mesh":"m1","kuma.io/origin":"global","kuma.io/zone":"east"},"annotations":{"kuma.io/display-name":"`+strings.Repeat("s", 63)+`"}`, "")},
		{name: "the same copy sent by a user", kind: "MeshService",
			raw:  obj("MeshService", `"name":"`+strings.Repeat("s", 63)+`-4dv9w4x47w8w98v4","labels":{"kuma.io/mesh":"m1","kuma.io/origin":"global","kuma.io/zone":"east"},"annotations":{"kuma.io/display-name":"`+strings.Repeat("s", 63)+`"}`, ""),
			want: []Rule{RuleReleaseName, RuleOverwrittenKey, RuleOverwrittenKey}, inMessage: "RFC 1035"},
	}
	releaseRules := Rules()[slices.Index(Rules(), RuleRemovedKind):slices.Index(Rules(), RuleKongRouteName)]
	c := DefaultConfig()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, rel := range naming.Releases() {
				d, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: schema.GroupKind{Group: KumaGroup, Kind: tt.kind},
					Object: tt.raw, User: tt.user, Release: rel})
				if err != nil {
					t.Fatal(err)
				}
				var got []Rule
				var first string
				for _, f := range d.Findings() {
					if slices.Contains(releaseRules, f.Rule) {
						got = append(got, f.Rule)
						if first == "" {
							first = f.Message()
						}
					}
				}
				want := tt.want
				if rel == naming.Kuma2_14 {
					want = nil
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("Kuma %s: rules %v, want %v (findings %v)", rel, got, want, d.Findings())
				}
				if len(want) > 0 && !strings.Contains(first, tt.inMessage) {
					t.Errorf("Kuma %s: message %q does not hold %q", rel, first, tt.inMessage)
				}
				if rel == naming.Kuma2_14 && len(d.Findings()) > 0 && !strings.Contains(tt.name, "RFC 1035") {
					t.Errorf("Kuma 2.14: findings %v", d.Findings())
				}
			}
		})
	}
}

// TestReleaseRulesInTheWebhook: the validating webhook judges under the release it is given; a
// by-name reference that reaches it (the served CRDs are 2.14's) is refused on 3.0 only.
func TestReleaseRulesInTheWebhook(t *testing.T) {
	c := DefaultConfig()
	raw := []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshGateway","metadata":{"name":"gw"},"mesh":"default"}`)
	for _, rel := range naming.Releases() {
		d, err := c.Decide(context.Background(), Request{Kind: schema.GroupKind{Group: KumaGroup, Kind: "MeshGateway"}, Operation: "CREATE", Object: raw, Release: rel})
		if err != nil {
			t.Fatal(err)
		}
		// 2.14 judges a MeshGateway (and admits this one); 3.0 refuses it.
		if refused := rel == naming.Kuma3_0; !d.Guarded || d.Allowed == refused {
			t.Errorf("Kuma %s: MeshGateway guarded %v, allowed %v (%v)", rel, d.Guarded, d.Allowed, d.Findings())
		}
	}
	raw = []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"t","namespace":"n"},"spec":{"to":[{"targetRef":{"kind":"MeshService","name":"b"}}]}}`)
	for _, rel := range naming.Releases() {
		d, err := c.Decide(context.Background(), Request{Kind: schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}, Operation: "CREATE", Object: raw, Release: rel})
		// 2.14 selects by name; 3.0 refuses the name that its own CRDs would have pruned.
		if refused := rel == naming.Kuma3_0; err != nil || d.Allowed == refused {
			t.Errorf("webhook, Kuma %s, by name: allowed %v, %v, err %v", rel, d.Allowed, d.Findings(), err)
		}
	}
}

// TestRefsByNameInTheWebhook: a targetRef or backendRef by name reaches the webhook when the
// cluster still serves 2.14's CRDs (which keep name and namespace); on 3.0 the webhook refuses it
// as check does, with the same findings at the same fields, keeps it on an UPDATE of an object that
// had it, and admits it on 2.14. A top-level Dataplane by name stays a note; a removed kind in
// requestMirror.backendRef is refused too.
func TestRefsByNameInTheWebhook(t *testing.T) {
	c := DefaultConfig()
	gk := schema.GroupKind{Group: KumaGroup, Kind: "MeshHTTPRoute"}
	route := func(top, backend, mirror string) []byte {
		return []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshHTTPRoute","metadata":{"name":"r","namespace":"n","labels":{"kuma.io/mesh":"m1"}},` +
			`"spec":{"targetRef":{"kind":"Dataplane","name":"` + top + `"},"to":[{"targetRef":{"kind":"MeshService","name":"web","namespace":"w"},` +
			`"rules":[{"default":{"filters":[{"type":"RequestMirror","requestMirror":{"backendRef":{"kind":"` + mirror + `","name":"m"}}}],` +
			`"backendRefs":[{"kind":"MeshService","labels":{"a":"b"}},{"kind":"MeshService","name":"` + backend + `","port":80}]}}]}]}}`)
	}
	offline, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: gk, Object: route("dp", "v1", "MeshServiceSubset"), Release: naming.Kuma3_0})
	if err != nil {
		t.Fatal(err)
	}
	want, wantNotes := sortedMessages(offline.Errors()), sortedMessages(offline.Notes())
	if len(want) != 3 || len(wantNotes) != 1 {
		t.Fatalf("check on 3.0: errors %q, notes %q; want two by name and a removed kind, and a note", want, wantNotes)
	}
	for _, m := range []string{`spec.to[0].targetRef: Invalid value: "web": Kuma 3.0 selects by labels only: replace name and namespace with labels {kuma.io/display-name: "web", k8s.kuma.io/namespace: "w"}`,
		`spec.to[0].rules[0].default.filters[0].requestMirror.backendRef.kind: Invalid value: "MeshServiceSubset": Kuma 3.0 removed the targetRef kind MeshServiceSubset`} {
		if !slices.ContainsFunc(want, func(s string) bool { return strings.HasPrefix(s, m) }) {
			t.Errorf("check on 3.0: errors %q, want one starting %q", want, m)
		}
	}
	for _, rel := range naming.Releases() {
		d, err := c.Decide(context.Background(), Request{Kind: gk, Operation: "CREATE", Object: route("dp", "v1", "MeshServiceSubset"), Release: rel})
		if err != nil {
			t.Fatal(err)
		}
		if rel == naming.Kuma2_14 {
			if !d.Allowed || len(d.Findings()) > 0 {
				t.Errorf("webhook, Kuma 2.14: allowed %t, %v", d.Allowed, d.Findings())
			}
			continue
		}
		if got := sortedMessages(d.Errors()); d.Allowed || !slices.Equal(got, want) {
			t.Errorf("webhook, Kuma 3.0: allowed %t, errors\n%q\nwant check's\n%q", d.Allowed, got, want)
		}
		if got := sortedMessages(d.Notes()); !slices.Equal(got, wantNotes) {
			t.Errorf("webhook, Kuma 3.0: notes %q, want check's %q", got, wantNotes)
		}
		for _, f := range d.Findings() {
			if f.Rule != RuleRefByName && f.Rule != RuleRemovedRefKind && f.Rule != RuleDataplaneRefByName {
				t.Errorf("webhook, Kuma 3.0: finding %v", f)
			}
		}
		// An update that keeps them keeps them as pre-existing; one that changes a name is refused
		// for that reference only.
		d, err = c.Decide(context.Background(), Request{Kind: gk, Operation: "UPDATE", Object: route("dp2", "v1", "MeshServiceSubset"),
			OldObject: route("dp", "v1", "MeshServiceSubset"), Release: rel})
		if err != nil || !d.Allowed || len(d.PreExisting()) != 3 {
			t.Errorf("webhook, Kuma 3.0, update keeping them: allowed %t, pre-existing %v, err %v", d.Allowed, d.PreExisting(), err)
		}
		d, err = c.Decide(context.Background(), Request{Kind: gk, Operation: "UPDATE", Object: route("dp", "v2", "MeshServiceSubset"),
			OldObject: route("dp", "v1", "MeshServiceSubset"), Release: rel})
		if err != nil || d.Allowed || len(d.Errors()) != 1 || d.Errors()[0].Field != "spec.to[0].rules[0].default.backendRefs[1]" || len(d.PreExisting()) != 2 {
			t.Errorf("webhook, Kuma 3.0, update changing a name: allowed %t, errors %v, pre-existing %v, err %v", d.Allowed, d.Errors(), d.PreExisting(), err)
		}
		d, err = c.Decide(context.Background(), Request{Kind: gk, Operation: "UPDATE", Object: route("dp", "v1", "MeshServiceSubset"),
			OldObject: route("dp", "v1", "MeshService"), Release: rel})
		if err != nil || d.Allowed || len(d.Errors()) != 1 || d.Errors()[0].Field != "spec.to[0].rules[0].default.filters[0].requestMirror.backendRef.kind" {
			t.Errorf("webhook, Kuma 3.0, update adding a removed kind: allowed %t, errors %v, err %v", d.Allowed, d.Errors(), err)
		}
	}
}

// TestRemovedRefKindsInTheWebhook: a targetRef or backendRefs kind 3.0 removed reaches the webhook
// when the cluster still serves 2.14's CRDs (whose enums have it); the webhook then refuses it on
// 3.0 as check does, with the same finding at the same field, keeps it on an UPDATE of an object
// that had it, and admits it on 2.14.
func TestRemovedRefKindsInTheWebhook(t *testing.T) {
	c := DefaultConfig()
	gk := schema.GroupKind{Group: KumaGroup, Kind: "MeshHTTPRoute"}
	route := func(top string) []byte {
		return []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshHTTPRoute","metadata":{"name":"r","namespace":"n","labels":{"kuma.io/mesh":"m1"}},` +
			`"spec":{"targetRef":{"kind":"` + top + `","tags":{"a":"b"}},"to":[{"targetRef":{"kind":"MeshServiceSubset","name":"s"},` +
			`"rules":[{"default":{"backendRefs":[{"kind":"MeshService","labels":{"a":"b"}},{"kind":"MeshServiceSubset","name":"v2"}]}}]}]}}`)
	}
	offline, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: gk, Object: route("MeshSubset"), Release: naming.Kuma3_0})
	if err != nil {
		t.Fatal(err)
	}
	want := sortedMessages(offline.Errors())
	if len(want) != 3 {
		t.Fatalf("check on 3.0: %v, want three removed ref kinds", want)
	}
	for _, rel := range naming.Releases() {
		d, err := c.Decide(context.Background(), Request{Kind: gk, Operation: "CREATE", Object: route("MeshSubset"), Release: rel})
		if err != nil {
			t.Fatal(err)
		}
		if rel == naming.Kuma2_14 {
			if !d.Allowed || len(d.Findings()) > 0 {
				t.Errorf("webhook, Kuma 2.14: allowed %t, %v", d.Allowed, d.Findings())
			}
			continue
		}
		if got := sortedMessages(d.Errors()); d.Allowed || !slices.Equal(got, want) {
			t.Errorf("webhook, Kuma 3.0: allowed %t, errors\n%q\nwant check's\n%q", d.Allowed, got, want)
		}
		for _, f := range d.Findings() {
			if f.Rule != RuleRemovedRefKind {
				t.Errorf("webhook, Kuma 3.0: finding %v", f)
			}
		}
		// An update that keeps them keeps them as pre-existing; one that adds one is refused for it.
		d, err = c.Decide(context.Background(), Request{Kind: gk, Operation: "UPDATE", Object: route("MeshSubset"), OldObject: route("MeshSubset"), Release: rel})
		if err != nil || !d.Allowed || len(d.PreExisting()) != 3 {
			t.Errorf("webhook, Kuma 3.0, update keeping them: allowed %t, pre-existing %v, err %v", d.Allowed, d.PreExisting(), err)
		}
		d, err = c.Decide(context.Background(), Request{Kind: gk, Operation: "UPDATE", Object: route("MeshSubset"), OldObject: route("Mesh"), Release: rel})
		if err != nil || d.Allowed || len(d.Errors()) != 1 || d.Errors()[0].Field != "spec.targetRef.kind" || len(d.PreExisting()) != 2 {
			t.Errorf("webhook, Kuma 3.0, update adding one: allowed %t, errors %v, pre-existing %v, err %v", d.Allowed, d.Errors(), d.PreExisting(), err)
		}
	}
}

// TestRemovedKindsRouted: a Kuma kind a release removed and no configuration guards (it has no KRI:
// MeshGatewayInstance, the legacy policies, …) reaches the webhooks so that the release that removed
// it refuses it: 3.0 denies its CREATE naming the release, lets an UPDATE of a leftover object through
// with the problem as pre-existing (a finalizer must still be removable), never patches it and lets
// DELETE through; 2.14 admits it untouched, with no finding, no patch and no KRI, and without the
// warning of a kind the configuration does not guard. The command and the audit judge it on 3.0 only.
func TestRemovedKindsRouted(t *testing.T) {
	c := DefaultConfig()
	var kinds []string
	for _, k := range naming.Kuma3_0.RemovedKinds() {
		if _, guarded := c.Enforcement(schema.GroupKind{Group: KumaGroup, Kind: k}); !guarded {
			kinds = append(kinds, k)
		}
	}
	for _, want := range []string{"MeshGatewayInstance", "TrafficRoute", "ExternalService", "ZoneIngressInsight"} {
		if !slices.Contains(kinds, want) {
			t.Fatalf("%s is not among the removed kinds the configuration does not guard: %q", want, kinds)
		}
	}
	ctx := context.Background()
	for _, kind := range kinds {
		gk := schema.GroupKind{Group: KumaGroup, Kind: kind}
		raw := []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"` + kind + `","metadata":{"name":"old","namespace":"kuma-demo","labels":{"kuma.io/mesh":"m1"}},"mesh":"default","spec":{}}`)
		generated := []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"` + kind + `","metadata":{"generateName":"old-","namespace":"kuma-demo"},"mesh":"default","spec":{}}`)
		for _, rel := range naming.Releases() {
			_, removed := rel.Removed(kind)
			if got := c.Judges(gk, rel); got != removed {
				t.Errorf("Kuma %s: Judges(%s) = %t, want %t", rel, kind, got, removed)
			}
			for _, r := range []Request{
				{Phase: Validate, Operation: "CREATE", Object: raw},
				{Phase: Validate, Operation: "UPDATE", Object: raw, OldObject: raw},
				{Phase: Validate, Operation: "DELETE", OldObject: raw},
				{Phase: Mutate, Operation: "CREATE", Object: raw},
				{Phase: Mutate, Operation: "CREATE", Object: generated},
				{Phase: Mutate, Operation: "UPDATE", Object: raw, OldObject: raw},
			} {
				r.Kind, r.Release = gk, rel
				d, err := c.Decide(ctx, r)
				if err != nil {
					t.Fatalf("Kuma %s: %s %s: %v", rel, r.Operation, kind, err)
				}
				id := fmt.Sprintf("Kuma %s, phase %d, %s %s", rel, r.Phase, r.Operation, kind)
				if !d.Guarded || d.Release != rel || len(d.Patch) > 0 || d.KRI() != "" {
					t.Errorf("%s: guarded %t, release %s, patch %v, KRI %q; want guarded, untouched, no KRI", id, d.Guarded, d.Release, d.Patch, d.KRI())
				}
				refused := removed && r.Phase == Validate && r.Operation == "CREATE"
				if d.Allowed == refused {
					t.Errorf("%s: allowed %t, want %t (%v)", id, d.Allowed, !refused, d.Findings())
				}
				var findings []Rule
				for _, f := range d.Findings() {
					findings = append(findings, f.Rule)
				}
				var want []Rule
				switch {
				case refused:
					if es := d.Errors(); len(es) != 1 || es[0].Field != "kind" || !strings.Contains(es[0].Error(), "removed in Kuma "+rel.String()+": ") {
						t.Errorf("%s: errors %v, want one at kind naming the release", id, es)
					}
					want = []Rule{RuleRemovedKind}
				case removed && r.Phase == Validate && r.Operation == "UPDATE":
					if len(d.PreExisting()) != 1 {
						t.Errorf("%s: pre-existing %v, want the removed kind", id, d.PreExisting())
					}
					want = []Rule{RuleRemovedKind}
				}
				if !slices.Equal(findings, want) {
					t.Errorf("%s: findings %v, want %v", id, d.Findings(), want)
				}
			}
		}
	}

	// A Kuma kind no release removed and the configuration does not guard stays unguarded.
	for _, rel := range naming.Releases() {
		d, err := c.Decide(ctx, Request{Kind: schema.GroupKind{Group: KumaGroup, Kind: "DataplaneInsight"}, Operation: "CREATE",
			Object: []byte(`{"metadata":{"name":"dpi"}}`), Release: rel})
		if err != nil || d.Guarded {
			t.Errorf("Kuma %s: DataplaneInsight guarded %t, err %v", rel, d.Guarded, err)
		}
	}
}

// sortedMessages returns the messages of es, sorted, to compare the webhook's findings with check's.
func sortedMessages(es field.ErrorList) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Error())
	}
	slices.Sort(out)
	return out
}
