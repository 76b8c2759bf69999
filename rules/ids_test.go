package rules

import (
	"context"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
)

// TestRuleIDs: each rule's finding carries its id, and only its own.
func TestRuleIDs(t *testing.T) {
	kuma := func(kind, meta, rest string) []byte {
		return []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"` + kind + `","metadata":{"namespace":"kuma-system",` + meta + `}` + rest + `}`)
	}
	kong := func(kind, name, spec string) []byte {
		v := "v1alpha1"
		if kind == "KongPlugin" {
			v = "v1"
		}
		return []byte(`{"apiVersion":"configuration.konghq.com/` + v + `","kind":"` + kind + `","metadata":{"name":"` + name + `","namespace":"default"},"spec":{` + spec + `}}`)
	}
	const mesh = `"labels":{"kuma.io/mesh":"default"}`
	tests := []struct {
		kind string
		raw  []byte
		want Rule
		// release and phase are those of the request: the zero Release and Validate for the
		// naming rules.
		release naming.Release
		phase   Phase
		// universal: raw is a Kuma Universal resource.
		universal bool
	}{
		{"MeshTimeout", kuma("MeshTimeout", `"name":"t1","labels":{"kuma.io/mesh":"Mesh_1"}`, ""), RuleKRI, naming.Release{}, Validate, false},
		{"MeshTimeout", kuma("MeshTimeout", `"name":"t1","labels":{"kuma.io/mesh":"default","kuma.io/display-name":"Bad_Name"}`, ""), RuleDisplayNameLabel, naming.Release{}, Validate, false},
		{"MeshTimeout", kuma("MeshTimeout", `"name":"t1",`+mesh, `,"spec":{"to":[{"targetRef":{"kind":"MeshService","sectionName":"Bad_1"}}]}`), RuleSectionName, naming.Release{}, Validate, false},
		{"MeshService", kuma("MeshService", `"name":"svc",`+mesh, `,"spec":{"ports":[{"name":"http_1","port":80}]}`), RuleSNI, naming.Release{}, Validate, false},
		{"MeshProxyPatch", kuma("MeshProxyPatch", `"name":"p",`+mesh, `,"spec":{"default":{"appendModifications":[{"cluster":{"match":{"name":"kri_x"}}}]}}`), RuleProxyPatchKRI, naming.Release{}, Validate, false},
		{"MeshProxyPatch", kuma("MeshProxyPatch", `"name":"p",`+mesh, `,"spec":{"default":{"appendModifications":[{"cluster":{"match":{"name":"outbound:a"}}}]}}`), RuleProxyPatchLegacyName, naming.Release{}, Validate, false},
		{"MeshProxyPatch", kuma("MeshProxyPatch", `"name":"p",`+mesh, `,"spec":{"default":{"appendModifications":[{"cluster":{"operation":"Add","value":"name: httpbin.org_443"}}]}}`), RuleProxyPatchStatUnsafe, naming.Release{}, Validate, false},
		{"MeshTimeout", kuma("MeshTimeout", `"name":"t1",`+mesh+`,"annotations":{"kriguard.io/kri":"kri_mt_default___other_"}`, ""), RuleKRIAnnotation, naming.Release{}, Validate, false},
		{"MeshTrust", kuma("MeshTrust", `"name":"trust",`+mesh, `,"status":{"origin":{"kri":"kri_x"}}`), RuleOriginKRI, naming.Release{}, Validate, false},
		{"MeshTimeout", []byte(`{"type":"MeshTimeout","mesh":"default","name":"t1","labels":{"bad key":"v"}}`), RuleUniversalName, naming.Release{}, Admit, true},
		{"KongRoute", kong("KongRoute", "Bad_Route", ""), RuleKongRouteName, naming.Release{}, Validate, false},
		{"KongService", kong("KongService", "http.default-echo-8080.1.cp1fbfa93f.29652d0c", `"host":"http.default-other-8080.1.cp1fbfa93f.29652d0c"`), RuleKongServiceName, naming.Release{}, Validate, false},
		{"KongUpstream", kong("KongUpstream", "http.default-echo-8080.1.cp1fbfa93f.29652d0X", ""), RuleKongUpstreamName, naming.Release{}, Validate, false},
		{"KongTarget", kong("KongTarget", "http.default-echo-8080.1.cp1fbfa93f.29652d0c.bb0118c8", `"upstreamRef":{"name":"http.default-other-8080.1.cp1fbfa93f.29652d0c"}`), RuleKongTargetName, naming.Release{}, Validate, false},
		{"KongPlugin", kong("KongPlugin", "Bad_Plugin", ""), RuleKongPluginName, naming.Release{}, Validate, false},
		{"KongPluginBinding", kong("KongPluginBinding", "http.default-echo.cp1fbfa93f.5cff32e8.m00.default.request-transformer.5c69e6e8", `"pluginRef":{"name":"other"},"targets":{"routeRef":{"name":"http.default-echo.cp1fbfa93f.5cff32e8.m00"}}`), RuleKongPluginBindingName, naming.Release{}, Validate, false},
		{"MeshTimeout", kuma("MeshTimeout", `"name":"`+strings.Repeat("a", 235)+"."+strings.Repeat("b", 17)+`",`+mesh, ""), RuleKDSCopy, naming.Release{}, Validate, false},
		{"MeshTimeout", kuma("MeshTimeout", `"name":"mesh-timeout-all-default-w4dzbd54v9x64485",`+mesh, ""), RuleKDSSquat, naming.Release{}, Validate, false},
		{"KongCertificate", kong("KongCertificate", "cert.Gw.443.https", ""), RuleKongCertificateName, naming.Release{}, Validate, false},
		{"KongSNI", kong("KongSNI", "cert.gw.443.https", `"name":"*","certificateRef":{"name":"cert.gw.8443.https"}`), RuleKongSNIName, naming.Release{}, Validate, false},
		{"MeshGateway", kuma("MeshGateway", `"name":"gw"`, `,"mesh":"default"`), RuleRemovedKind, naming.Kuma3_0, Validate, false},
		{"MeshService", kuma("MeshService", `"name":"svc.v1",`+mesh, ""), RuleReleaseName, naming.Kuma3_0, Validate, false},
		{"MeshTimeout", kuma("MeshTimeout", `"name":"t1",`+mesh+`,"ownerReferences":[{"apiVersion":"kuma.io/v1alpha1","kind":"Mesh","name":"other","uid":"u"}]`, ""), RuleMeshOwnerReference, naming.Kuma3_0, Validate, false},
		{"MeshTimeout", kuma("MeshTimeout", `"name":"t1",`+mesh, `,"spec":{"to":[{"targetRef":{"kind":"MeshService","name":"backend"}}]}`), RuleRefByName, naming.Kuma3_0, Admit, false},
		{"MeshTimeout", kuma("MeshTimeout", `"name":"t1",`+mesh, `,"spec":{"targetRef":{"kind":"MeshSubset","tags":{"a":"b"}}}`), RuleRemovedRefKind, naming.Kuma3_0, Admit, false},
		{"MeshTimeout", kuma("MeshTimeout", `"name":"t1",`+mesh, `,"spec":{"targetRef":{"kind":"Dataplane","name":"dp-1"}}`), RuleDataplaneRefByName, naming.Kuma3_0, Admit, false},
		{"MeshTimeout", kuma("MeshTimeout", `"name":"t1",`+mesh+`,"annotations":{"kuma.io/display-name":"other"}`, ""), RuleOverwrittenKey, naming.Kuma3_0, Validate, false},
	}
	c := DefaultConfig()
	seen := map[Rule]bool{}
	for _, tt := range tests {
		t.Run(string(tt.want), func(t *testing.T) {
			group := KumaGroup
			if strings.HasPrefix(tt.kind, "Kong") {
				group = KongGroup
			}
			d, err := c.Decide(context.Background(), Request{Phase: tt.phase, Kind: schema.GroupKind{Group: group, Kind: tt.kind}, Operation: "CREATE", Object: tt.raw, Release: tt.release, Universal: tt.universal})
			if err != nil {
				t.Fatal(err)
			}
			fs := d.Findings()
			if len(fs) == 0 {
				t.Fatalf("no finding, want one of %s", tt.want)
			}
			for _, f := range fs {
				if f.Rule != tt.want {
					t.Errorf("finding %q of rule %q, want %q", f.Message(), f.Rule, tt.want)
				}
			}
			seen[tt.want] = true
		})
	}
	envoy := []struct {
		name   string
		strict bool
		want   Rule
	}{
		{"inbound:10.0.0.1:80", false, RuleEnvoyColon},
		{"kri_msvc_Mesh__ns_backend_", false, RuleEnvoyNotKRI},
		{"outbound_backend", true, RuleEnvoyLegacy},
	}
	for _, tt := range envoy {
		t.Run(string(tt.want), func(t *testing.T) {
			fs := EnvoyFindings("listener", tt.name, "configs[0].x.name", naming.CheckEnvoyName(tt.name, naming.EnvoyNameOptions{Strict: tt.strict}))
			if len(fs) == 0 {
				t.Fatalf("no finding, want one of %s", tt.want)
			}
			for _, f := range fs {
				if f.Rule != tt.want || f.Level != LevelError || f.Position.JSONPath != "configs[0].x.name" || f.Object.Name != tt.name {
					t.Errorf("finding %+v, want rule %s, level error, at configs[0].x.name", f, tt.want)
				}
			}
			seen[tt.want] = true
		})
	}
	unsafe := naming.CheckStatName("a.b")
	if fs := EnvoyFindings("cluster", "a.b", "p", []naming.EnvoyNameProblem{*unsafe}); len(fs) != 1 || fs[0].Rule != RuleEnvoyStatUnsafe || fs[0].Level != LevelWarning {
		t.Errorf("stat-unsafe name: %+v, want one warning of %s", fs, RuleEnvoyStatUnsafe)
	} else {
		seen[RuleEnvoyStatUnsafe] = true
	}
	for _, r := range Rules() {
		if !seen[r] && !acrossObjects[r] {
			t.Errorf("rule %s has no case", r)
		}
	}
}

// TestRulesDocumented: docs/rules.md has a section for every rule id, and no other.
func TestRulesDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[Rule]bool{}
	levels := map[Rule]Level{} // the level the section's first sentence gives
	var last Rule
	for line := range strings.Lines(string(b)) {
		if id, ok := strings.CutPrefix(strings.TrimSpace(line), "## `"); ok {
			last = Rule(strings.TrimSuffix(id, "`"))
			documented[last] = true
			continue
		}
		if l, ok := strings.CutPrefix(line, "Level `"); ok && last != "" && levels[last] == "" {
			levels[last] = Level(l[:strings.IndexByte(l, '`')])
		}
	}
	for _, r := range Rules() {
		if !documented[r] {
			t.Errorf("docs/rules.md has no section ## `%s`", r)
		}
		info, ok := Describe(r)
		switch {
		case !ok || info.Summary == "" || info.Description == "":
			t.Errorf("rule %s has no description", r)
		case levels[r] != info.Level:
			t.Errorf("docs/rules.md gives %s level %q, Describe %q", r, levels[r], info.Level)
		}
		delete(documented, r)
	}
	for r := range documented {
		t.Errorf("docs/rules.md documents %s, which is no rule", r)
	}
}
