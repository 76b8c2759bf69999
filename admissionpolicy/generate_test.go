package admissionpolicy

import (
	"bytes"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// upstreamCRDs are the folders go generate reads the upstream CRDs from (doc.go).
var upstreamCRDs = []string{
	"../../shared/upstream/kuma/v2.14.3/crds",
	"../../shared/upstream/kong-operator/cefc384/crds",
}

func TestGeneratedSchemasAreCurrent(t *testing.T) {
	for _, d := range upstreamCRDs {
		if _, err := os.Stat(d); err != nil {
			t.Skipf("the upstream CRDs are not beside the repository: nothing to compare with (%v)", err)
		}
	}
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if want := "go run ./internal/schemagen -o schemas_generated.go " + strings.Join(upstreamCRDs, " ") + "\n"; !bytes.Contains(src, []byte(want)) {
		t.Fatalf("doc.go's go:generate line does not read the folders of this test: want %q", want)
	}
	schemas, err := SchemasFromCRDs(upstreamCRDs...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := SchemasSource(schemas)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("schemas_generated.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("schemas_generated.go is stale: run go generate ./admissionpolicy")
	}
}

func TestChartPoliciesAreCurrent(t *testing.T) {
	cfg, err := rules.LoadConfig("chart-rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Generate(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := objs.YAML()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../charts/kriguard/files/policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("charts/kriguard/files/policies.yaml is stale: run go generate ./admissionpolicy")
	}
}

// TestKnownSchemas pins facts of the upstream CRDs that the policies rely on, so that a CRD update
// that moves them shows up here and not only as a policy that silently checks less.
func TestKnownSchemas(t *testing.T) {
	find := func(kind string) KindSchema {
		for _, s := range KnownSchemas {
			if s.Kind == kind {
				return s
			}
		}
		t.Fatalf("no schema for %s", kind)
		return KindSchema{}
	}
	var paths []string
	for _, p := range find("MeshHTTPRoute").SectionNames {
		paths = append(paths, Path(p))
	}
	want := []string{"spec.targetRef.sectionName", "spec.to[*].rules[*].default.backendRefs[*].sectionName", "spec.to[*].targetRef.sectionName"}
	if !slices.Equal(paths, want) {
		t.Errorf("MeshHTTPRoute sectionNames = %q, want %q (a requestMirror.backendRef is not a target reference the webhook checks)", paths, want)
	}
	for kind, legacy := range map[string]bool{"Dataplane": true, "Mesh": true, "Zone": true, "MeshTimeout": false, "HostnameGenerator": false} {
		if got := find(kind).TopLevelMesh; got != legacy {
			t.Errorf("%s: TopLevelMesh = %t, want %t", kind, got, legacy)
		}
	}
	if kris := find("MeshTrust").KRIs; len(kris) != 1 || Path(kris[0]) != "status.origin.kri" {
		t.Errorf("MeshTrust KRIs = %q", kris)
	}
}

// TestFieldRegexpAgreesWithNaming: the CEL form of each field's rule accepts exactly what
// naming.Field.Valid accepts.
func TestFieldRegexpAgreesWithNaming(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "abz09-._AZ:é\x00 "
	for _, f := range naming.Fields() {
		re := regexp.MustCompile(fieldRegexp(f))
		check := func(s string) {
			got := len(s) <= f.MaxLen() && re.MatchString(s)
			if want := f.Valid(s); got != want {
				t.Errorf("%s: %q: CEL rule says %t, naming says %t", f, s, got, want)
			}
		}
		for _, s := range []string{"", "a", "0", "-", ".", "a-", "-a", "a.b", "a..b", "ab", "a-b", strings.Repeat("a", f.MaxLen()), strings.Repeat("a", f.MaxLen()+1)} {
			check(s)
		}
		for range 20000 {
			n := rng.IntN(8)
			var b strings.Builder
			for range n {
				b.WriteByte(alphabet[rng.IntN(len(alphabet))])
			}
			check(b.String())
		}
	}
}

func FuzzFieldRegexp(f *testing.F) {
	for _, s := range []string{"", "a", "a-b", "A", "a.b", "-"} {
		f.Add(s)
	}
	fields := naming.Fields()
	res := make([]*regexp.Regexp, len(fields))
	for i, fl := range fields {
		res[i] = regexp.MustCompile(fieldRegexp(fl))
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, fl := range fields {
			if got, want := len(s) <= fl.MaxLen() && res[i].MatchString(s), fl.Valid(s); got != want {
				t.Errorf("%s: %q: CEL rule says %t, naming says %t", fl, s, got, want)
			}
		}
	})
}

func TestEnforcementBecomesValidationActions(t *testing.T) {
	cfg, err := rules.ParseConfig([]byte(`apiVersion: kriguard.io/v1alpha1
kind: Configuration
kinds:
  - {group: kuma.io, version: v1alpha1, kind: MeshRetry, enforcement: warn}
  - {group: kuma.io, version: v1alpha1, kind: MeshRateLimit, enforcement: dryrun}
`))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Generate(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]admissionregistrationv1.ValidationAction{
		"MeshRetry": admissionregistrationv1.Warn, "MeshRateLimit": admissionregistrationv1.Audit, "MeshTimeout": admissionregistrationv1.Deny,
	}
	for _, b := range objs.Bindings {
		if strings.Contains(b.Name, ".requesters-") {
			continue // the control planes' own writes, warned about (DefaultRequesters)
		}
		if a, ok := want[b.Labels[LabelKind]]; ok {
			if !slices.Equal(b.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{a}) {
				t.Errorf("%s: actions %v, want [%s]", b.Name, b.Spec.ValidationActions, a)
			}
			delete(want, b.Labels[LabelKind])
		}
	}
	if len(want) > 0 {
		t.Errorf("no binding for %v", want)
	}
	base := 0
	for _, p := range objs.Policies {
		if !strings.Contains(p.Name, ".requesters-") {
			base++
		}
	}
	if base != len(cfg.GuardedKinds()) {
		t.Errorf("%d policies for %d guarded kinds", base, len(cfg.GuardedKinds()))
	}
}

// TestRequestersSplitPolicies: a requester override that changes a kind's enforcement gets a copy
// of the kind's policy, matched only for those requesters, and the kind's own policy skips them;
// the first override that matches wins.
func TestRequestersSplitPolicies(t *testing.T) {
	cfg, err := rules.ParseConfig([]byte(`apiVersion: kriguard.io/v1alpha1
kind: Configuration
requesters:
  - {name: kuma, serviceAccountNamespaces: [kuma-system], enforcement: warn}
  - {name: ops, users: [alice], groups: [ops], enforcement: deny}
  - {name: bob, users: [bob], enforcement: dryrun}
`))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Generate(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, p := range objs.Policies {
		if p.Labels[LabelKind] != "MeshTimeout" {
			continue
		}
		names = append(names, p.Name+" "+string(objs.Bindings[i].Spec.ValidationActions[0]))
		if len(p.Spec.MatchConditions) != 1 {
			t.Fatalf("%s: %d match conditions", p.Name, len(p.Spec.MatchConditions))
		}
	}
	want := []string{
		"kriguard.meshtimeout.kuma.io Deny",
		"kriguard.meshtimeout.kuma.io.requesters-warn Warn",
		"kriguard.meshtimeout.kuma.io.requesters-dryrun Audit",
	}
	if !slices.Equal(names, want) {
		t.Errorf("policies %q, want %q", names, want)
	}
	// The built-in configuration warns the control planes' own writes: every kind's policy skips them.
	objs, err = Generate(rules.DefaultConfig(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range objs.Policies {
		if len(p.Spec.MatchConditions) != 1 || !strings.Contains(p.Spec.MatchConditions[0].Expression, rules.KumaControlPlaneUser) {
			t.Errorf("%s: match conditions %v", p.Name, p.Spec.MatchConditions)
		}
	}
}
