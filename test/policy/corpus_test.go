package policy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/kriguard/kriguard/admissionpolicy"
	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// item is one object of the agreement corpus.
type item struct {
	source string // examples/…, vectors, generated, fuzzed
	name   string
	obj    *unstructured.Unstructured
}

// exampleObjects reads every object of examples/.
func exampleObjects(ns string) ([]item, error) {
	files, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no examples found: %v", err)
	}
	var out []item
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for i := 0; ; i++ {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(mustJSON(doc)); err != nil {
				continue // comments only
			}
			if u.GetNamespace() != "" {
				u.SetNamespace(ns)
			}
			out = append(out, item{source: "example", name: fmt.Sprintf("%s#%d", filepath.Base(f), i), obj: u})
		}
	}
	return out, nil
}

func mustJSON(doc []byte) []byte {
	j, err := utilyaml.ToJSON(doc)
	if err != nil {
		return nil
	}
	return j
}

// vectorObjects reads the objects of the public Kuma vectors.
func vectorObjects(ns string) ([]item, error) {
	data, err := os.ReadFile("../../../shared/kuma-kri/vectors.jsonl")
	if err != nil {
		return nil, err
	}
	var out []item
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var v struct {
			Case   string         `json:"case"`
			Object map[string]any `json:"object"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			return nil, fmt.Errorf("vector %d: %w", i, err)
		}
		u := &unstructured.Unstructured{Object: v.Object}
		if u.GetNamespace() != "" {
			u.SetNamespace(ns)
		}
		out = append(out, item{source: "vector", name: v.Case, obj: u})
	}
	return out, nil
}

// Values tried for each checked string: valid ones, the empty string, and each way to break a rule.
var (
	meshValues      = []string{"default", "custom-mesh", "m", "", "Mesh_1", "1mesh", "mesh-", strings.Repeat("m", 64), "a.b"}
	zoneValues      = []string{"zone-1", "", "Zone_1", "-zone", "9zone", strings.Repeat("z", 64)}
	namespaceValues = []string{"kuma-demo", "", "Kuma_Demo", "ns-", "9ns", strings.Repeat("n", 64)}
	nameValues      = []string{"backend", "a.b", "a..b", "", "Backend_1", "-x", "x-", strings.Repeat("x", 253), strings.Repeat("x", 254), "backend:8080"}
	sectionValues   = []string{"http", "8080", "", "HTTP_8080", "-http", strings.Repeat("s", 63), strings.Repeat("s", 64), "a.b"}
)

// generatedObjects builds good and bad objects of every guarded kind: each KRI input and every
// sectionName path of the kind's schema set to each value above, the KRI annotation right, wrong
// and malformed, and for Kong kinds the generated-name shapes and relations.
func generatedObjects(ns string, kinds []testenv.Kind, cfg *rules.Config) []item {
	var out []item
	n := 0
	add := func(k testenv.Kind, what string, edit func(u *unstructured.Unstructured)) {
		n++
		u := testenv.NewObject(k, ns, fmt.Sprintf("gen-%d", n))
		edit(u)
		out = append(out, item{source: "generated", name: k.Kind + ": " + what, obj: u})
	}
	for _, k := range kinds {
		if _, ok := cfg.Enforcement(gk(k)); !ok {
			continue
		}
		add(k, "minimal", func(*unstructured.Unstructured) {})
		if k.Group == rules.KongGroup {
			out = append(out, kongObjects(k, ns, &n)...)
			continue
		}
		for _, v := range meshValues {
			add(k, "mesh label "+q(v), func(u *unstructured.Unstructured) { setMap(u, "labels", naming.LabelMesh, v) })
			add(k, "top-level mesh "+q(v), func(u *unstructured.Unstructured) { u.Object["mesh"] = v })
			add(k, "mesh annotation "+q(v), func(u *unstructured.Unstructured) { setMap(u, "annotations", naming.LabelMesh, v) })
		}
		for _, v := range zoneValues {
			add(k, "zone label "+q(v), func(u *unstructured.Unstructured) { setMap(u, "labels", naming.LabelZone, v) })
		}
		for _, v := range namespaceValues {
			add(k, "namespace label "+q(v), func(u *unstructured.Unstructured) { setMap(u, "labels", naming.LabelNamespace, v) })
		}
		for _, v := range nameValues {
			add(k, "display-name annotation "+q(v), func(u *unstructured.Unstructured) { setMap(u, "annotations", naming.LabelDisplayName, v) })
			add(k, "display-name label "+q(v), func(u *unstructured.Unstructured) { setMap(u, "labels", naming.LabelDisplayName, v) })
			if v != "" && len(v) <= 253 {
				add(k, "name "+q(v), func(u *unstructured.Unstructured) { u.SetName(v) })
			}
		}
		add(k, "long name, empty display-name annotation", func(u *unstructured.Unstructured) {
			u.SetName(strings.Repeat("l", 250))
			setMap(u, "annotations", naming.LabelDisplayName, "")
		})
		// The KRI annotation: the object's own, another one, and malformed ones.
		add(k, "own KRI annotation", func(u *unstructured.Unstructured) {
			if kri, errs := cfg.Registry().ForObject(naming.WithMesh(u, meshOf(u)), k.Kind); len(errs) == 0 {
				setMap(u, "annotations", naming.AnnotationKRI, kri.String())
			}
		})
		add(k, "own KRI annotation, zone label", func(u *unstructured.Unstructured) {
			setMap(u, "labels", naming.LabelZone, "zone-1")
			if kri, errs := cfg.Registry().ForObject(naming.WithMesh(u, meshOf(u)), k.Kind); len(errs) == 0 {
				setMap(u, "annotations", naming.AnnotationKRI, kri.String())
			}
		})
		for _, v := range []string{"kri_mt_default___other_", "kri_m____default_", "kri_mt_default", "kri_MT_default___x_", "kri_mt_default___x_y_z", "not-a-kri", "", strings.Repeat("kri_", 200)} {
			add(k, "KRI annotation "+q(v), func(u *unstructured.Unstructured) { setMap(u, "annotations", naming.AnnotationKRI, v) })
		}
		if k.Kind == "MeshService" || k.Kind == "MeshMultiZoneService" {
			// Port SNIs: sni.<type>.<mesh>[.<zone>[.<namespace>]].<name>.<section>.
			for _, port := range []map[string]any{
				{"port": int64(8080)}, {"port": int64(8080), "name": "http"}, {"port": int64(8080), "name": ""},
				{"port": int64(8080), "name": "HTTP"}, {"port": int64(8080), "name": "a.b"}, {"port": int64(8080), "name": strings.Repeat("p", 63)},
			} {
				for _, name := range []string{"backend", "backend.v2", strings.Repeat("n", 150), strings.Repeat("n", 230)} {
					for _, labels := range []map[string]string{nil, {naming.LabelZone: "zone-1", naming.LabelNamespace: "kuma-demo"}, {naming.LabelNamespace: "a.b"}} {
						add(k, fmt.Sprintf("port %v name %s labels %v", port, q(name), labels), func(u *unstructured.Unstructured) {
							u.SetName(name)
							for key, v := range labels {
								setMap(u, "labels", key, v)
							}
							_ = unstructured.SetNestedSlice(u.Object, []any{runtime.DeepCopyJSONValue(port)}, "spec", "ports")
						})
					}
				}
			}
		}
		if k.Kind == "MeshExternalService" {
			for _, name := range []string{"httpbin", "httpbin.org", strings.Repeat("n", 230), strings.Repeat("n", 63)} {
				add(k, "name "+q(name)+" with a zone", func(u *unstructured.Unstructured) {
					u.SetName(name)
					setMap(u, "labels", naming.LabelZone, "zone-1")
				})
			}
		}
		if k.Kind == "MeshProxyPatch" {
			// Hand-typed Envoy names: the webhook's alone (docs/policy.md).
			for _, v := range []string{"kri_msvc_default_zone-1_kuma-demo_backend_http", "kri_msvc_Default___backend_", "kri_msvc_default", "kri_", "inbound:10.0.0.1:8080", "my-cluster", "self_inbound_dp_http"} {
				mods := map[string]map[string]any{
					"cluster match name":                 {"cluster": map[string]any{"operation": "Patch", "match": map[string]any{"name": v}, "value": "name: x"}},
					"listener unified-name tag":          {"listener": map[string]any{"operation": "Patch", "match": map[string]any{"tags": map[string]any{"kuma.io/unified-name": v}}, "value": "name: x"}},
					"virtualHost routeConfigurationName": {"virtualHost": map[string]any{"operation": "Patch", "match": map[string]any{"routeConfigurationName": v}, "value": "name: x"}},
					"httpFilter listenerName":            {"httpFilter": map[string]any{"operation": "Patch", "match": map[string]any{"listenerName": v, "name": "envoy.filters.http.router"}, "value": "name: x"}},
				}
				for what, mod := range mods {
					add(k, what+" "+q(v), func(u *unstructured.Unstructured) {
						_ = unstructured.SetNestedSlice(u.Object, []any{runtime.DeepCopyJSONValue(map[string]any(mod))}, "spec", "default", "appendModifications")
					})
				}
			}
		}
		s, ok := schemaOf(k)
		if !ok {
			continue
		}
		for _, p := range s.SectionNames {
			for _, v := range sectionValues {
				add(k, admissionpolicy.Path(p)+" "+q(v), func(u *unstructured.Unstructured) { setPath(u.Object, p, v) })
			}
		}
		for _, p := range s.KRIs {
			for _, v := range []string{"kri_mtrust_default___trust-1_", "kri_mtrust_default", "Kri"} {
				add(k, admissionpolicy.Path(p)+" "+q(v), func(u *unstructured.Unstructured) { setPath(u.Object, p, v) })
			}
		}
	}
	return out
}

// meshOf is the top-level mesh of an unstructured object, "" when it has none.
func meshOf(u *unstructured.Unstructured) string {
	m, _ := u.Object["mesh"].(string)
	return m
}

func q(s string) string {
	if len(s) > 20 {
		return fmt.Sprintf("%q… (%d bytes)", s[:20], len(s))
	}
	return fmt.Sprintf("%q", s)
}

func schemaOf(k testenv.Kind) (admissionpolicy.KindSchema, bool) {
	for _, s := range admissionpolicy.KnownSchemas {
		if s.Group == k.Group && s.Kind == k.Kind {
			return s, true
		}
	}
	return admissionpolicy.KindSchema{}, false
}

func setMap(u *unstructured.Unstructured, field, key, value string) {
	md := u.Object["metadata"].(map[string]any)
	m, _ := md[field].(map[string]any)
	if m == nil {
		m = map[string]any{}
		md[field] = m
	}
	m[key] = value
}

// setPath sets the value at p, a schema path, creating what is missing: a list gets one element, a
// reference the fields the upstream schemas require of it.
func setPath(obj map[string]any, p []string, value string) {
	cur := obj
	for i, s := range p {
		name, isList := strings.CutSuffix(s, "[]")
		if i == len(p)-1 {
			cur[name] = value
			return
		}
		if isList {
			l, _ := cur[name].([]any)
			if len(l) == 0 {
				l = []any{refLike(name)}
				cur[name] = l
			}
			cur = l[0].(map[string]any)
			continue
		}
		next, _ := cur[name].(map[string]any)
		if next == nil {
			next = refLike(name)
			if i == 1 && name == "targetRef" {
				// The policy's own target: a proxy, whose inbounds are its sections.
				next["kind"] = "Dataplane"
			}
			cur[name] = next
		}
		cur = next
	}
}

// refLike returns the smallest object the upstream schemas accept at a property called name.
func refLike(name string) map[string]any {
	switch name {
	case "targetRef", "backendRefs", "backendRef":
		return map[string]any{"kind": "MeshService", "labels": map[string]any{"kuma.io/display-name": "backend"}}
	case "to":
		return map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{}}
	case "rules":
		// MeshHTTPRoute's rules need matches; other kinds' schemas drop them.
		return map[string]any{"default": map[string]any{}, "matches": []any{map[string]any{"path": map[string]any{"type": "PathPrefix", "value": "/"}}}}
	}
	return map[string]any{}
}

// kongObjects are the Kong names: generated shapes that hold, and ones that break a shape or a
// relation.
func kongObjects(k testenv.Kind, ns string, n *int) []item {
	var out []item
	add := func(what, name string, edit func(u *unstructured.Unstructured)) {
		*n++
		u := testenv.NewObject(k, ns, name)
		if edit != nil {
			edit(u)
		}
		out = append(out, item{source: "generated", name: k.Kind + ": " + what, obj: u})
	}
	const (
		upstream = "cp431ef96.5a7cc34c"
		route    = "default-httproute-echo.cp431ef96.1b69eced"
		plugin   = "pl72ae1b9a"
	)
	for _, name := range []string{"plain-name", upstream, route, plugin, route + "." + plugin, upstream + ".46cb9d28",
		"cp431ef96", "cp431ef96.", "cp123456789.1", "pl123456789", "x.cp12.1234", "http.default-echo.cp431ef96.1b69eced.m00", "cp0.0.0"} {
		add("name "+q(name), name, nil)
	}
	switch k.Kind {
	case "KongService":
		const current = "http.backend.1.cp1fbfa93f.1b69eced" // the operator's current upstream scheme
		for _, host := range []string{upstream, current, "example.com", "cp431ef96.5a7cc34c.x", "http.cp1.bnf2.3"} {
			for _, name := range []string{upstream, "http." + upstream, current, "http." + current, "my-service", "cp431ef96.00000000",
				"http.backend.1.cp1fbfa93f.bnf12345678.1b69eced", "http.backend.cp1fbfa93f.bnf1.1b69eced", "http.backend.2.cp1fbfa93f.bnf1.1b69eced",
				"http.backend.1.cp1fbfa93f.bnf1.2b69eced", "http.backend.1.cp2fbfa93f.bnf1.1b69eced", "cp431ef96.bnf1.5a7cc34c"} {
				add(fmt.Sprintf("host %q name %q", host, name), name, func(u *unstructured.Unstructured) {
					_ = unstructured.SetNestedField(u.Object, host, "spec", "host")
				})
			}
		}
	case "KongTarget":
		for _, up := range []string{upstream, "cp431ef96.0badf00d", "my-upstream", ""} {
			for _, name := range []string{upstream + ".46cb9d28", "my-target", "cp431ef96.0badf00d.1"} {
				add(fmt.Sprintf("upstream %q name %q", up, name), name, func(u *unstructured.Unstructured) {
					if up == "" {
						unstructured.RemoveNestedField(u.Object, "spec", "upstreamRef")
						return
					}
					_ = unstructured.SetNestedField(u.Object, up, "spec", "upstreamRef", "name")
				})
			}
		}
	case "KongPluginBinding":
		for _, refs := range [][2]string{{route, plugin}, {route, "pl00000000"}, {"other.cp431ef96.1b69eced", plugin}, {"", plugin}, {route, ""}, {route, "ns.key-auth.1234abcd"}} {
			for _, name := range []string{route + "." + plugin, "my-binding", "other.cp431ef96.1b69eced." + plugin, route + ".ns.key-auth.1234abcd", route + ".ns.key-auth.99"} {
				add(fmt.Sprintf("refs %q name %q", refs, name), name, func(u *unstructured.Unstructured) {
					if refs[0] != "" {
						_ = unstructured.SetNestedField(u.Object, map[string]any{"group": "configuration.konghq.com", "kind": "KongRoute", "name": refs[0]}, "spec", "targets", "routeRef")
						_ = unstructured.SetNestedField(u.Object, "OnlyTargets", "spec", "scope")
					}
					if refs[1] != "" {
						_ = unstructured.SetNestedField(u.Object, map[string]any{"kind": "KongPlugin", "name": refs[1]}, "spec", "pluginRef")
					}
				})
			}
		}
	}
	if k.Kind == "KongPluginBinding" {
		const service = "http.backend.1.cp1fbfa93f.1b69eced"
		for _, name := range []string{service + "." + plugin, service + ".pl1", "my-binding"} {
			add(fmt.Sprintf("service %q name %q", service, name), name, func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, map[string]any{"group": "configuration.konghq.com", "kind": "KongService", "name": service}, "spec", "targets", "serviceRef")
				_ = unstructured.SetNestedField(u.Object, map[string]any{"kind": "KongPlugin", "name": plugin}, "spec", "pluginRef")
				_ = unstructured.SetNestedField(u.Object, "OnlyTargets", "spec", "scope")
			})
		}
	}
	return out
}

// fuzzed returns count variants of items, each with one string it holds (a label, an annotation,
// the name, a sectionName) mutated at random: a character flipped to upper case, '_', '.', ':' or a
// non-ASCII letter inserted, the value doubled, emptied or cut.
func fuzzed(items []item, count int, seed uint64) []item {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var out []item
	for len(out) < count {
		src := items[rng.IntN(len(items))]
		u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(src.obj.Object)}
		var slots []*string
		var names []string
		collect(u.Object, "", &slots, &names)
		if len(slots) == 0 {
			continue
		}
		i := rng.IntN(len(slots))
		before := *slots[i]
		*slots[i] = mutate(rng, before)
		writeBack(u.Object, names[i], *slots[i])
		out = append(out, item{source: "fuzzed", name: fmt.Sprintf("%s / %s: %q → %q", src.name, names[i], before, *slots[i]), obj: u})
	}
	return out
}

// collect lists the strings a mutation may change: labels, annotations, metadata.name and every
// sectionName, host and ref name.
func collect(v any, path string, slots *[]*string, names *[]string) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := path + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			if s, ok := t[k].(string); ok {
				if interesting.MatchString(p) {
					s := s
					*slots = append(*slots, &s)
					*names = append(*names, p)
				}
				continue
			}
			collect(t[k], p, slots, names)
		}
	case []any:
		for i, c := range t {
			collect(c, fmt.Sprintf("%s/%d", path, i), slots, names)
		}
	}
}

// interesting matches the JSON pointers of the strings a mutation may change.
var interesting = regexp.MustCompile(`^/metadata/(labels|annotations)/|^/metadata/name$|/sectionName$|^/mesh$|/host$|Ref/name$`)

func writeBack(obj map[string]any, path, value string) {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var cur any = obj
	for i, p := range parts {
		p = strings.NewReplacer("~1", "/", "~0", "~").Replace(p)
		last := i == len(parts)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[p] = value
				return
			}
			cur = c[p]
		case []any:
			var idx int
			fmt.Sscan(p, &idx)
			cur = c[idx]
		}
	}
}

func mutate(rng *rand.Rand, s string) string {
	switch rng.IntN(8) {
	case 0:
		return ""
	case 1:
		return s + s
	case 2:
		return strings.ToUpper(s)
	case 3:
		if len(s) > 1 {
			return s[:rng.IntN(len(s))]
		}
		return s + "-"
	}
	ins := []string{"_", ".", ":", "-", "é", "A", "..", "0"}[rng.IntN(8)]
	at := 0
	if len(s) > 0 {
		at = rng.IntN(len(s) + 1)
	}
	return s[:at] + ins + s[at:]
}
