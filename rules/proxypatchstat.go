package rules

import (
	"bytes"
	stdjson "encoding/json"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kriguard/kriguard/naming"
)

// The names a MeshProxyPatch's modifications give the Envoy resources they add or patch, read from
// each modification's value: an Envoy resource as YAML text, which Kuma turns into the resource with
// sigs.k8s.io/yaml and jsonpb (docs/envoy-names.md, "MeshProxyPatch"). Only the names Envoy's stats
// read are looked at; a value that does not parse as such a resource is Kuma's own validator's
// business and gives no finding.

// The bounds of reading the values of one object (docs/limits.md, "MeshProxyPatch values"). A
// value is user input at admission, and go-yaml allocates up to about 260 bytes per byte of it: a
// value larger than maxPatchValueBytes, or past maxPatchValuesBytes of values in one object, or
// nested deeper than maxPatchValueDepth once read, is not read; nor is one with a '&', which may be
// an anchor, whose aliases expand to over a thousand bytes of memory per byte.
const (
	maxPatchValueBytes  = 8 << 10
	maxPatchValuesBytes = 32 << 10
	maxPatchValueDepth  = 64
)

// proxyPatchValueTypes are the modification types whose value is read. An HTTP filter's value
// holds no name Envoy's stats read (the stat_prefix of HTTP filters is not one the rule covers:
// docs/envoy-names.md).
var proxyPatchValueTypes = []string{"cluster", "listener", "networkFilter", "virtualHost"}

// proxyPatchStatNotes reads the value of each modification of a MeshProxyPatch and notes every name
// in it that Envoy puts into its stats and that is not stat-safe (naming.CheckStatName): a cluster's
// name without an alt_stat_name, an alt_stat_name, a listener's stat_prefix, the stat_prefix of an
// HTTP connection manager or a TCP proxy in a network filter's typed_config (a network filter's
// value, or a filter of a listener's filter chains), and a virtual host's name (a virtual host's
// value, or one of an HTTP connection manager's route_config). The notes are tagged
// RuleProxyPatchStatUnsafe, a rule of level warning.
func proxyPatchStatNotes(obj *admitted, notes field.ErrorList) field.ErrorList {
	mods, _ := mapAt(obj.specMap(), "default")
	list, _ := mods["appendModifications"].([]any)
	base := specPath.Child("default", "appendModifications")
	budget := maxPatchValuesBytes
	n := len(notes)
	for i, item := range list {
		mod, ok := item.(map[string]any)
		if !ok {
			continue
		}
		for _, typ := range proxyPatchValueTypes {
			m, ok := mod[typ].(map[string]any)
			if !ok {
				continue
			}
			value, ok := m["value"].(string)
			if !ok || len(value) > maxPatchValueBytes || len(value) > budget {
				continue
			}
			budget -= len(value)
			o, ok := readPatchValue(value)
			if !ok {
				continue
			}
			r := statReader{path: base.Index(i).Child(typ, "value"), notes: notes}
			switch typ {
			case "cluster":
				r.cluster(o)
			case "listener":
				r.listener("", o)
			case "networkFilter":
				r.filter("", o)
			case "virtualHost":
				r.virtualHost("", o)
			}
			notes = r.notes
		}
	}
	return tag(notes, n, RuleProxyPatchStatUnsafe)
}

// readPatchValue reads a value as Kuma does (sigs.k8s.io/yaml's YAMLToJSON, then the fields of a
// JSON object), but not one with a '&' nor one nested deeper than maxPatchValueDepth. It never
// panics: go-yaml's own panics are a value not read.
func readPatchValue(value string) (o pbObject, ok bool) {
	if strings.IndexByte(value, '&') >= 0 {
		return nil, false
	}
	defer func() {
		if recover() != nil {
			o, ok = nil, false
		}
	}()
	j, err := yaml.YAMLToJSON([]byte(value))
	if err != nil || jsonDepth(j) > maxPatchValueDepth {
		return nil, false
	}
	return decodePBObject(j)
}

// jsonDepth returns the deepest nesting of objects and arrays in j, valid JSON.
func jsonDepth(j []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(j); i++ {
		switch j[i] {
		case '"':
			for i++; i < len(j) && j[i] != '"'; i++ {
				if j[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// pbObject is a JSON object as jsonpb reads a message from it: each field found by its proto name
// or, winning over it, its JSON name; null is an unset field.
type pbObject map[string]stdjson.RawMessage

func decodePBObject(raw []byte) (pbObject, bool) {
	var o pbObject
	if stdjson.Unmarshal(raw, &o) != nil || o == nil {
		return nil, false
	}
	return o, true
}

// field returns the raw value of the field of proto name protoName and JSON name jsonName; nil
// when it is unset.
func (o pbObject) field(protoName, jsonName string) stdjson.RawMessage {
	v, ok := o[jsonName]
	if !ok {
		v = o[protoName]
	}
	if bytes.Equal(v, []byte("null")) {
		return nil
	}
	return v
}

// str returns the string field; false when it is unset or not a string (jsonpb then refuses the
// value, and so does Kuma).
func (o pbObject) str(protoName, jsonName string) (string, bool) {
	raw := o.field(protoName, jsonName)
	var s string
	if raw == nil || stdjson.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func (o pbObject) object(protoName, jsonName string) (pbObject, bool) {
	raw := o.field(protoName, jsonName)
	if raw == nil {
		return nil, false
	}
	return decodePBObject(raw)
}

func (o pbObject) list(protoName, jsonName string) []stdjson.RawMessage {
	raw := o.field(protoName, jsonName)
	var l []stdjson.RawMessage
	if raw == nil || stdjson.Unmarshal(raw, &l) != nil {
		return nil
	}
	return l
}

// The messages whose stat_prefix Envoy's stats read, by the full name of an Any's type.
const (
	hcmType      = "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager"
	tcpProxyType = "envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy"
)

// statReader notes the stat-unsafe names of one value at path (the value's field), each with where
// it is in the value (in proto field names, as Envoy's docs name them).
type statReader struct {
	path  *field.Path
	notes field.ErrorList
}

func (r *statReader) check(at, what, name, hint string) {
	p := naming.CheckStatName(name)
	if p == nil {
		return
	}
	r.notes = append(r.notes, field.Invalid(r.path, name, at+" ("+what+") "+p.Message+hint))
}

func (r *statReader) cluster(o pbObject) {
	name, _ := o.str("name", "name")
	if alt, ok := o.str("alt_stat_name", "altStatName"); ok && alt != "" {
		// Envoy's stats use alt_stat_name instead of the name. Kuma's sanitized form of the name
		// is stat-safe by construction.
		r.check("alt_stat_name", "the cluster's name in stats", alt, "")
		return
	}
	if name != "" {
		r.check("name", "a cluster's name, with no alt_stat_name", name,
			"; alt_stat_name: "+strconv.Quote(naming.SanitizeStatName(name))+" keeps the stats whole, as Kuma writes it")
	}
}

func (r *statReader) listener(at string, o pbObject) {
	if s, ok := o.str("stat_prefix", "statPrefix"); ok {
		r.check(at+"stat_prefix", "a listener's stat_prefix", s, "")
	}
	for i, raw := range o.list("filter_chains", "filterChains") {
		if chain, ok := decodePBObject(raw); ok {
			r.filters(at+"filter_chains["+strconv.Itoa(i)+"].", chain)
		}
	}
	if chain, ok := o.object("default_filter_chain", "defaultFilterChain"); ok {
		r.filters(at+"default_filter_chain.", chain)
	}
}

func (r *statReader) filters(at string, chain pbObject) {
	for i, raw := range chain.list("filters", "filters") {
		if f, ok := decodePBObject(raw); ok {
			r.filter(at+"filters["+strconv.Itoa(i)+"].", f)
		}
	}
}

// filter reads a network filter: its typed_config, an Any whose @type says which message it holds.
func (r *statReader) filter(at string, o pbObject) {
	tc, ok := o.object("typed_config", "typedConfig")
	if !ok {
		return
	}
	typeURL, _ := tc.str("@type", "@type")
	at += "typed_config."
	switch typeURL[strings.LastIndexByte(typeURL, '/')+1:] {
	case hcmType:
		if s, ok := tc.str("stat_prefix", "statPrefix"); ok {
			r.check(at+"stat_prefix", "an HTTP connection manager's stat_prefix", s, "")
		}
		if rc, ok := tc.object("route_config", "routeConfig"); ok {
			for i, raw := range rc.list("virtual_hosts", "virtualHosts") {
				if vh, ok := decodePBObject(raw); ok {
					r.virtualHost(at+"route_config.virtual_hosts["+strconv.Itoa(i)+"].", vh)
				}
			}
		}
	case tcpProxyType:
		if s, ok := tc.str("stat_prefix", "statPrefix"); ok {
			r.check(at+"stat_prefix", "a TCP proxy's stat_prefix", s, "")
		}
	}
}

func (r *statReader) virtualHost(at string, o pbObject) {
	if s, ok := o.str("name", "name"); ok {
		r.check(at+"name", "a virtual host's name", s, "")
	}
}
