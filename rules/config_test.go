package rules

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/naming"
)

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	kinds := c.GuardedKinds()
	// Kuma's kinds with a KRI and a CRD in a supported release (docs/releases.md), counted
	// independently of the registry: 28 in both, and MeshGateway, ZoneIngress and ZoneEgress of 2.14.
	if want := 31 + len(kongKinds); len(kinds) != want {
		t.Fatalf("%d guarded kinds, want %d", len(kinds), want)
	}
	for _, k := range kinds {
		if k.Enforcement != EnforcementDeny {
			t.Errorf("%s: enforcement %q, want deny", k.Kind, k.Enforcement)
		}
		switch k.Group {
		case KumaGroup:
			rt, ok := naming.DefaultRegistry().ByKind(k.Kind)
			if !ok || k.Version != "v1alpha1" || k.ShortName != rt.ShortName || k.Scope != rt.Scope.String() {
				t.Errorf("Kuma kind %+v does not match the registry (%+v, %v)", k, rt, ok)
			}
		case KongGroup:
			want := "v1alpha1"
			if k.Kind == "KongPlugin" {
				want = "v1"
			}
			if k.Version != want || k.ShortName != "" {
				t.Errorf("Kong kind %+v, want version %s and no short name", k, want)
			}
		default:
			t.Errorf("unexpected group in %+v", k)
		}
	}
	for _, gk := range []schema.GroupKind{{Group: KumaGroup, Kind: "MeshInsight"}, {Group: KumaGroup, Kind: "ContainerPatch"}} {
		if _, ok := c.Enforcement(gk); ok {
			t.Errorf("%s is guarded: it has no KRI", gk)
		}
	}
}

// TestKindListDrift holds the one list of Kuma kinds, naming's registry, to the upstream CRDs, and
// the webhook's defaults to the registry: a Kuma CRD with kubectl short names is a kind with a KRI,
// which the registry must know with CRD set; a kind the registry marks CRD must have an upstream CRD;
// the webhook guards exactly those and the Kong kinds, each at a version its CRD serves. The chart's
// default kinds are held to DefaultConfig by test/chart.
func TestKindListDrift(t *testing.T) {
	loaded, err := testenv.LoadKinds(testenv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	upstream := map[schema.GroupKind]testenv.Kind{}
	for _, k := range loaded {
		if k.Upstream {
			upstream[schema.GroupKind{Group: k.Group, Kind: k.Kind}] = k
		}
	}
	for gk, k := range upstream {
		if gk.Group != KumaGroup {
			continue
		}
		rt, known := naming.DefaultRegistry().ByKind(gk.Kind)
		switch hasKRI := len(k.ShortNames) > 0; {
		case hasKRI && !known:
			t.Errorf("%s: upstream CRD %s with short names %v, unknown to naming's registry", gk.Kind, k.Source, k.ShortNames)
		case hasKRI && !rt.CRD:
			t.Errorf("%s: upstream CRD %s, but naming's registry says it has none", gk.Kind, k.Source)
		case !hasKRI && known:
			t.Errorf("%s: in naming's registry, but its upstream CRD %s has no short names", gk.Kind, k.Source)
		}
	}
	guarded := map[schema.GroupKind]bool{}
	for _, k := range DefaultConfig().GuardedKinds() {
		gk := schema.GroupKind{Group: k.Group, Kind: k.Kind}
		guarded[gk] = true
		crd, ok := upstream[gk]
		switch {
		case !ok:
			t.Errorf("%s is guarded by default but has no upstream CRD", gk)
		case !slices.Contains(crd.Versions, k.Version):
			t.Errorf("%s is guarded at version %s, its CRD serves %v", gk, k.Version, crd.Versions)
		}
	}
	for _, rt := range naming.KumaTypes() {
		gk := schema.GroupKind{Group: KumaGroup, Kind: rt.Kind}
		if _, ok := upstream[gk]; ok != rt.CRD {
			t.Errorf("%s: naming's registry says CRD %v, an upstream CRD exists: %v", rt.Kind, rt.CRD, ok)
		}
		if guarded[gk] != rt.CRD {
			t.Errorf("%s: guarded by default %v, naming's registry says CRD %v", rt.Kind, guarded[gk], rt.CRD)
		}
	}
	// kong-operator's hybrid gateway also generates these; kriguard has no rule for their names yet.
	unguardedKong := []string{"KongCACertificate", "KongConsumer"}
	for gk := range upstream {
		if gk.Group == KongGroup && guarded[gk] == slices.Contains(unguardedKong, gk.Kind) {
			t.Errorf("%s has an upstream CRD; guarded by default: %t", gk, guarded[gk])
		}
	}
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		err  string // substring; "" = valid
		gk   schema.GroupKind
		want Enforcement
	}{
		{name: "minimal", yaml: header, gk: schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}, want: EnforcementDeny},
		{
			name: "default enforcement", yaml: header + "defaultEnforcement: warn\n",
			gk: schema.GroupKind{Group: KongGroup, Kind: "KongRoute"}, want: EnforcementWarn,
		},
		{
			name: "kind override",
			yaml: header + "defaultEnforcement: warn\nkinds:\n- {group: kuma.io, version: v1alpha1, kind: MeshTimeout, shortName: mt, scope: Mesh, enforcement: dryrun}\n",
			gk:   schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}, want: EnforcementDryRun,
		},
		{
			name: "old kind known to the registry",
			yaml: header + "kinds:\n- {group: kuma.io, version: v1alpha1, kind: MeshGateway}\n",
			gk:   schema.GroupKind{Group: KumaGroup, Kind: "MeshGateway"}, want: EnforcementDeny,
		},
		{
			name: "new kind registered from its entry",
			yaml: header + "kinds:\n- {group: example.com, version: v1, kind: MeshGadget, shortName: mgad, scope: Global, enforcement: warn}\n",
			gk:   schema.GroupKind{Group: "example.com", Kind: "MeshGadget"}, want: EnforcementWarn,
		},
		{
			name: "the example of the contract",
			yaml: header + `defaultEnforcement: deny
types:
  - kind: MeshWidget
    shortName: mw
    scope: Mesh
kinds:
  - group: kuma.io
    version: v1alpha1
    kind: MeshTimeout
    shortName: mt
    scope: Mesh
    enforcement: warn
`,
			gk: schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}, want: EnforcementWarn,
		},
		{
			name: "unsupported enforcement",
			yaml: header + "kinds:\n- {group: kuma.io, version: v1alpha1, kind: MeshTimeout}\n- {group: kuma.io, version: v1alpha1, kind: MeshRetry}\n" +
				"- {group: kuma.io, version: v1alpha1, kind: MeshTrace}\n- {group: kuma.io, version: v1alpha1, kind: MeshTLS, enforcement: block}\n",
			err: `kinds[3].enforcement: Unsupported value: "block": supported values: "deny", "dryrun", "warn"`,
		},
		{name: "unknown field", yaml: header + "defaultEnforcment: warn\n", err: `decoding: unknown field "defaultEnforcment"`},
		{name: "every unknown field", yaml: header + "x: 1\ntypes:\n- {kind: A, shortName: a, scope: Mesh, z: 2}\n", err: "decoding: unknown field \"types[0].z\"\nunknown field \"x\""},
		{name: "unknown nested field", yaml: header + "kinds:\n- {group: kuma.io, version: v1alpha1, kind: MeshTimeout, mode: warn}\n", err: `decoding: unknown field "kinds[0].mode"`},
		{name: "duplicate key", yaml: header + "defaultEnforcement: warn\ndefaultEnforcement: deny\n", err: `key "defaultEnforcement" already set`},
		{name: "wrongly-cased apiVersion", yaml: "APIVERSION: kriguard.io/v1alpha1\nkind: Configuration\n", err: `decoding: unknown field "APIVERSION"`},
		{name: "wrongly-cased defaultEnforcement", yaml: header + "defaultenforcement: warn\n", err: `decoding: unknown field "defaultenforcement"`},
		{name: "wrongly-cased nested key", yaml: header + "kinds:\n- {group: kuma.io, version: v1alpha1, Kind: MeshTimeout}\n", err: `decoding: unknown field "kinds[0].Kind"`},
		{name: "wrongly-cased requester key", yaml: header + "requesters:\n- {name: a, users: [u], Enforcement: warn}\n", err: `decoding: unknown field "requesters[0].Enforcement"`},
		{name: "both spellings", yaml: header + "defaultEnforcement: warn\nDefaultEnforcement: deny\n", err: `decoding: unknown field "DefaultEnforcement"`},
		{name: "duplicate nested key", yaml: header + "kinds:\n- {group: kuma.io, version: v1alpha1, kind: MeshTimeout, kind: MeshRetry}\n", err: `already set in map`},
		{name: "wrong apiVersion", yaml: "apiVersion: v1\nkind: Configuration\n", err: `apiVersion: Unsupported value: "v1": supported values: "kriguard.io/v1alpha1"`},
		{name: "missing kind", yaml: "apiVersion: kriguard.io/v1alpha1\n", err: "kind: Required value"},
		{name: "bad default enforcement", yaml: header + "defaultEnforcement: strict\n", err: `defaultEnforcement: Unsupported value: "strict"`},
		{name: "unknown Kuma release", yaml: header + "kuma:\n  version: \"3.1\"\n", err: `kuma.version: Unsupported value: "3.1": supported values: "auto", "2.14", "3.0"`},
		{name: "bad control plane", yaml: header + "kuma:\n  controlPlane: {namespace: Kuma_System, deployment: \"cp/1\"}\n", err: `kuma.controlPlane.namespace: Invalid value: "Kuma_System"`},
		{name: "Kuma release with a patch", yaml: header + "kuma:\n  version: v2.14.3\n", err: `kuma.version: Unsupported value: "v2.14.3"`},
		{name: "unknown field of kuma", yaml: header + "kuma:\n  release: \"3.0\"\n", err: `unknown field "kuma.release"`},
		{name: "type without short name", yaml: header + "types:\n- {kind: MeshWidget, scope: Mesh}\n", err: "types[0].shortName: Required value"},
		{name: "type with a bad short name", yaml: header + "types:\n- {kind: MeshWidget, shortName: M_W, scope: Mesh}\n", err: `types[0].shortName: Invalid value: "M_W"`},
		{name: "type with a bad scope", yaml: header + "types:\n- {kind: MeshWidget, shortName: mw, scope: Zone}\n", err: `types[0].scope: Unsupported value: "Zone": supported values: "Global", "Mesh"`},
		{name: "type clashing with Kuma", yaml: header + "types:\n- {kind: MeshWidget, shortName: mt, scope: Mesh}\n", err: `types[0]: Invalid value: "MeshWidget": short name "mt" is already registered for kind "MeshTimeout"`},
		{name: "unknown kind without a type", yaml: header + "kinds:\n- {group: example.com, version: v1, kind: Gizmo}\n", err: "kinds[0].shortName: Required value"},
		{name: "removed kind without a KRI", yaml: header + "kinds:\n- {group: kuma.io, version: v1alpha1, kind: TrafficRoute, enforcement: warn}\n",
			err: `kinds[0].kind: Invalid value: "TrafficRoute": a Kuma kind a release removed, which has no KRI: not configured, the webhook judges it only as removed`},
		{name: "known kind with another short name", yaml: header + "kinds:\n- {group: kuma.io, version: v1alpha1, kind: MeshTimeout, shortName: tm}\n", err: `kinds[0].shortName: Invalid value: "tm": kind MeshTimeout is registered with short name "mt"`},
		{name: "known kind with another scope", yaml: header + "kinds:\n- {group: kuma.io, version: v1alpha1, kind: Mesh, scope: Mesh}\n", err: `kinds[0].scope: Invalid value: "Mesh": kind Mesh is registered with scope Global`},
		{name: "unknown Kong kind", yaml: header + "kinds:\n- {group: configuration.konghq.com, version: v1, kind: KongConsumer}\n", err: `kinds[0].kind: Unsupported value: "KongConsumer"`},
		{name: "Kong kind with a short name", yaml: header + "kinds:\n- {group: configuration.konghq.com, version: v1, kind: KongPlugin, shortName: kp}\n", err: "kinds[0].shortName: Forbidden: Kong kinds have no KRI"},
		{name: "duplicate kind", yaml: header + "kinds:\n- {group: kuma.io, version: v1alpha1, kind: MeshTimeout}\n- {group: kuma.io, version: v1alpha2, kind: MeshTimeout}\n", err: `kinds[1]: Duplicate value: "MeshTimeout.kuma.io"`},
		{name: "missing group and version", yaml: header + "kinds:\n- {kind: MeshTimeout}\n", err: "kinds[0].group: Required value, kinds[0].version: Required value"},
		{name: "not YAML", yaml: "{[", err: "decoding: "},
		{name: "an unknown rule turned off", yaml: header + "rules:\n  disabled: [kuma/stat-unsafe]\n", err: `rules.disabled[0]: Invalid value: "kuma/stat-unsafe": not a rule id (docs/rules.md)`},
		{name: "a rule that denies turned off", yaml: header + "rules:\n  disabled: [kuma/proxy-patch-stat-unsafe, kuma/proxy-patch-kri]\n", err: `rules.disabled[1]: Invalid value: "kuma/proxy-patch-kri": denies objects, so it cannot be turned off`},
		{name: "a rule turned off twice", yaml: header + "rules:\n  disabled: [envoy/stat-unsafe, envoy/stat-unsafe]\n", err: `rules.disabled[1]: Duplicate value: "envoy/stat-unsafe"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tt.yaml))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := c.Enforcement(tt.gk); !ok || got != tt.want {
				t.Errorf("Enforcement(%s) = %q, %v; want %q", tt.gk, got, ok, tt.want)
			}
		})
	}
}

func TestRequesters(t *testing.T) {
	mt := schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}
	tests := []struct {
		name         string
		yaml         string // "" = DefaultConfig
		user         string
		groups       []string
		want         Enforcement
		wantOverride string
	}{
		{"ordinary user", "", "alice", nil, EnforcementDeny, ""},
		{"Kuma's control plane", "", KumaControlPlaneUser, nil, EnforcementWarn, "kuma-control-plane"},
		{"Kong's operator (chart)", "", KongOperatorUser, nil, EnforcementWarn, "kong-operator"},
		{"Kong's operator (kustomize)", "", KongOperatorKustomizeUser, nil, EnforcementWarn, "kong-operator"},
		{"another account in kuma-system", "", "system:serviceaccount:kuma-system:other", nil, EnforcementDeny, ""},
		{"a file without requesters keeps the defaults", header, KumaControlPlaneUser, nil, EnforcementWarn, "kuma-control-plane"},
		{"an empty list removes them", header + "requesters: []\n", KumaControlPlaneUser, nil, EnforcementDeny, ""},
		{"Kuma's control plane set to deny", header + "requesters:\n- {name: kuma, users: [\"" + KumaControlPlaneUser + "\"], enforcement: deny}\n",
			KumaControlPlaneUser, nil, EnforcementDeny, "kuma"},
		{"by group", header + "requesters:\n- {name: ci, groups: [ci-bots], enforcement: dryrun}\n", "bot", []string{"ci-bots"}, EnforcementDryRun, "ci"},
		{"by service-account namespace", header + "requesters:\n- {name: argo, serviceAccountNamespaces: [argocd], enforcement: warn}\n",
			"system:serviceaccount:argocd:argocd-application-controller", nil, EnforcementWarn, "argo"},
		{"service-account namespace does not match a user name", header + "requesters:\n- {name: argo, serviceAccountNamespaces: [argocd], enforcement: warn}\n",
			"argocd", nil, EnforcementDeny, ""},
		{"first match wins", header + "requesters:\n- {name: a, groups: [g], enforcement: dryrun}\n- {name: b, users: [u], enforcement: warn}\n",
			"u", []string{"g"}, EnforcementDryRun, "a"},
		{"first match wins, by user", header + "requesters:\n- {name: a, users: [u], enforcement: dryrun}\n- {name: b, groups: [g], enforcement: warn}\n",
			"u", []string{"g"}, EnforcementDryRun, "a"},
		{"first match wins, among groups", header + "requesters:\n- {name: a, groups: [g2], enforcement: dryrun}\n- {name: b, groups: [g1], enforcement: warn}\n",
			"u", []string{"g1", "g2"}, EnforcementDryRun, "a"},
		{"first match wins, by service-account namespace", header + "requesters:\n- {name: a, serviceAccountNamespaces: [argocd], enforcement: dryrun}\n- {name: b, users: [\"system:serviceaccount:argocd:x\"], groups: [g], enforcement: warn}\n",
			"system:serviceaccount:argocd:x", []string{"g"}, EnforcementDryRun, "a"},
		{"a user listed by two overrides", header + "requesters:\n- {name: a, users: [u], enforcement: dryrun}\n- {name: b, users: [u], enforcement: warn}\n",
			"u", nil, EnforcementDryRun, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			if tt.yaml != "" {
				c = mustConfig(t, tt.yaml)
			}
			e, override, ok := c.RequesterEnforcement(mt, tt.user, tt.groups)
			if !ok || e != tt.want || override != tt.wantOverride {
				t.Errorf("RequesterEnforcement = %q, %q, %v; want %q, %q", e, override, ok, tt.want, tt.wantOverride)
			}
		})
	}
}

// TestRequestersMayMatch holds enforcementFor's skip of requesters.first (mayMatch) to first: for
// every configuration, user and groups, first finds an override only where mayMatch says it may,
// users of every length to past 128 bytes among them; and the default overrides, which name users
// only, skip an ordinary user.
func TestRequestersMayMatch(t *testing.T) {
	long := strings.Repeat("u", 64)
	configs := []*Config{
		DefaultConfig(),
		mustConfig(t, header+"requesters: []\n"),
		mustConfig(t, header+"requesters:\n- {name: a, users: [u, "+long+"], enforcement: warn}\n"),
		mustConfig(t, header+"requesters:\n- {name: ci, groups: [ci-bots], enforcement: dryrun}\n"),
		mustConfig(t, header+"requesters:\n- {name: argo, serviceAccountNamespaces: [argocd], enforcement: warn}\n"),
	}
	users := []string{"", "u", long, "u" + long, KumaControlPlaneUser, KongOperatorUser, KongOperatorKustomizeUser,
		"system:serviceaccount:argocd:x", "alice"}
	for n := range 140 {
		users = append(users, strings.Repeat("x", n))
	}
	for i, c := range configs {
		for _, user := range users {
			for _, groups := range [][]string{nil, {"ci-bots"}, {"system:masters", "system:authenticated"}} {
				if c.requesters.first(user, groups) != nil && !c.requesters.mayMatch(user) {
					t.Errorf("config %d: first(%q, %q) finds an override, mayMatch says none can", i, user, groups)
				}
			}
		}
	}
	for _, user := range []string{"alice", "kubernetes-admin", "system:serviceaccount:argocd:argocd-application-controller"} {
		if DefaultConfig().requesters.mayMatch(user) {
			t.Errorf("the default overrides: mayMatch(%q) = true; want false", user)
		}
	}
}

// TestFirstIndex holds the look-up of requester overrides' names to the first override that names
// each, whether it compares them one by one (up to smallIndex names) or hashes them.
func TestFirstIndex(t *testing.T) {
	for _, n := range []int{0, 1, smallIndex, smallIndex + 1, 3 * smallIndex} {
		var x firstIndex
		for i := range n {
			x.add("user-"+strconv.Itoa(i), i)
			x.add("user-"+strconv.Itoa(i/2), 100+i) // named again by a later override: the first wins
		}
		if x.len() != n {
			t.Errorf("%d names: len %d", n, x.len())
		}
		for i := range n {
			if at, ok := x.get("user-" + strconv.Itoa(i)); !ok || at != i {
				t.Errorf("%d names: get(user-%d) = %d, %v; want %d, true", n, i, at, ok, i)
			}
		}
		for _, name := range []string{"", "user-", "user-" + strconv.Itoa(n), "USER-0"} {
			if at, ok := x.get(name); ok {
				t.Errorf("%d names: get(%q) = %d, true; want none", n, name, at)
			}
		}
	}
}

func TestRequesterErrors(t *testing.T) {
	for _, tt := range []struct{ yaml, err string }{
		{"requesters:\n- {users: [u], enforcement: warn}\n", "requesters[0].name: Required value"},
		{"requesters:\n- {name: a, users: [u]}\n", "requesters[0].enforcement: Required value"},
		{"requesters:\n- {name: a, users: [u], enforcement: allow}\n", `requesters[0].enforcement: Unsupported value: "allow"`},
		{"requesters:\n- {name: a, enforcement: warn}\n", "requesters[0]: Required value: at least one of users, groups or serviceAccountNamespaces"},
		{"requesters:\n- {name: a, users: [u], enforcement: warn}\n- {name: a, users: [v], enforcement: warn}\n", `requesters[1].name: Duplicate value: "a"`},
		{"requesters:\n- {name: none, users: [u], enforcement: warn}\n", `requesters[0].name: Invalid value: "none"`},
		{"requesters:\n- {name: A_b, users: [u], enforcement: warn}\n", `requesters[0].name: Invalid value: "A_b"`},
		{"requesters:\n- {name: a, users: [\"\"], enforcement: warn}\n", "requesters[0].users[0]: Required value"},
		{"requesters:\n- {name: a, serviceAccountNamespaces: [Kuma_System], enforcement: warn}\n", `requesters[0].serviceAccountNamespaces[0]: Invalid value: "Kuma_System"`},
		{"requesters:\n- {name: a, user: [u], enforcement: warn}\n", `unknown field "requesters[0].user"`},
	} {
		_, err := ParseConfig([]byte(header + tt.yaml))
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%q: error %v, want one containing %q", tt.yaml, err, tt.err)
		}
	}
}

func TestConfigTypesDoNotLeak(t *testing.T) {
	c := mustConfig(t, header+"types:\n- {kind: MeshWidget, shortName: mw, scope: Mesh}\n")
	if _, ok := c.Registry().ByShortName("mw"); !ok {
		t.Fatal("configured type not registered")
	}
	if _, ok := naming.DefaultRegistry().ByShortName("mw"); ok {
		t.Fatal("configured type leaked into naming.DefaultRegistry()")
	}
	if _, ok := DefaultConfig().Registry().ByShortName("mw"); ok {
		t.Fatal("configured type leaked into the defaults")
	}
}

func mustConfig(t testing.TB, yaml string) *Config {
	t.Helper()
	c, err := ParseConfig([]byte(yaml))
	if err != nil {
		t.Fatalf("ParseConfig: %v", err)
	}
	return c
}

// header starts every configuration document.
const header = "apiVersion: kriguard.io/v1alpha1\nkind: Configuration\n"

func TestLoadConfig(t *testing.T) {
	c, err := LoadConfig("")
	if err != nil || len(c.GuardedKinds()) != len(DefaultConfig().GuardedKinds()) {
		t.Fatalf("LoadConfig(\"\") = %v, %v; want the defaults", c, err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(header+"kinds:\n- {group: kuma.io, version: v1alpha1, kind: MeshTimeout, enforcement: block}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = LoadConfig(path)
	want := "configuration " + path + `: kinds[0].enforcement: Unsupported value: "block": supported values: "deny", "dryrun", "warn"`
	if err == nil || err.Error() != want {
		t.Fatalf("LoadConfig = %v, want %q", err, want)
	}
	if _, err := LoadConfig(filepath.Join(dir, "missing.yaml")); err == nil || !strings.HasPrefix(err.Error(), "reading configuration: ") {
		t.Fatalf("missing file: %v", err)
	}
}

// FuzzParseConfig: any document either fails with an error or yields a configuration that
// survives a round trip through YAML unchanged.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		header,
		header + "defaultEnforcement: warn\ntypes:\n- {kind: MeshWidget, shortName: mw, scope: Mesh}\nkinds:\n- {group: example.com, version: v1, kind: MeshWidget, enforcement: dryrun}\n",
		header + "kinds:\n- {group: configuration.konghq.com, version: v1, kind: KongPlugin, enforcement: warn}\n",
		header + "kinds:\n- {group: kuma.io, version: v1alpha1, kind: MeshTLS, enforcement: block}\n",
		header + "types: {}\n",
		header + "requesters: []\n",
		header + "requesters:\n- {name: ci, groups: [g], serviceAccountNamespaces: [argocd], users: [u], enforcement: dryrun}\n",
		header + "requesters:\n- {name: none, enforcement: warn}\n",
		"kinds: [[]]",
		"\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		out, err := yaml.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseConfig(out)
		if err != nil {
			t.Fatalf("re-parsing %s: %v", out, err)
		}
		if !reflect.DeepEqual(c.GuardedKinds(), again.GuardedKinds()) {
			t.Fatalf("round trip changed the kinds:\n%v\n%v", c.GuardedKinds(), again.GuardedKinds())
		}
		if !reflect.DeepEqual(c.Requesters, again.Requesters) && len(c.Requesters)+len(again.Requesters) > 0 {
			t.Fatalf("round trip changed the requesters:\n%v\n%v", c.Requesters, again.Requesters)
		}
	})
}

// TestConfigRelease: kuma.version is the release a request that names none is judged against; auto
// (and no kuma section) is naming.DefaultRelease until the release is detected.
func TestConfigRelease(t *testing.T) {
	const header = "apiVersion: kriguard.io/v1alpha1\nkind: Configuration\n"
	gw := []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshGateway","metadata":{"name":"gw"},"mesh":"default"}`)
	for _, tt := range []struct {
		yaml    string
		want    naming.Release
		refused bool
	}{
		{header, naming.DefaultRelease, false},
		{header + "kuma:\n  version: auto\n", naming.DefaultRelease, false},
		{header + "kuma:\n  version: \"2.14\"\n", naming.Kuma2_14, false},
		{header + "kuma:\n  version: \"3.0\"\n", naming.Kuma3_0, true},
	} {
		c, err := ParseConfig([]byte(tt.yaml))
		if err != nil {
			t.Fatal(err)
		}
		if c.Release() != tt.want {
			t.Errorf("%q: release %s, want %s", tt.yaml, c.Release(), tt.want)
		}
		d, err := c.Decide(t.Context(), Request{Kind: schema.GroupKind{Group: KumaGroup, Kind: "MeshGateway"}, Operation: "CREATE", Object: gw})
		if err != nil {
			t.Fatal(err)
		}
		if refused := d.Guarded && !d.Allowed; refused != tt.refused {
			t.Errorf("%q: MeshGateway refused %v, want %v", tt.yaml, refused, tt.refused)
		}
		// A release the request names wins over the configuration's: 2.14 judges a MeshGateway.
		d, _ = c.Decide(t.Context(), Request{Kind: schema.GroupKind{Group: KumaGroup, Kind: "MeshGateway"}, Operation: "CREATE", Object: gw, Release: naming.Kuma2_14})
		if !d.Guarded || !d.Allowed || d.KRI() != "kri_mgw_default___gw_" {
			t.Errorf("%q: MeshGateway on 2.14: guarded %v, allowed %v, KRI %q (%v)", tt.yaml, d.Guarded, d.Allowed, d.KRI(), d.Findings())
		}
	}
}
