package envoydump

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/kriguard/kriguard/naming"
)

// Name is one resource name or name reference found in a dump.
type Name struct {
	// Path is where the name is, in the dump's JSON: configs[1].dynamic_listeners[0]
	// .active_state.listener.name. Field names are the proto names Envoy prints.
	Path string
	// What the name names: "listener", "filter chain", "cluster", "alt_stat_name", "route
	// configuration", "virtual host", "route", "secret", "cluster load assignment",
	// "stat_prefix", or a reference: "cluster reference", "route configuration reference",
	// "secret reference", "cluster load assignment reference".
	What string
	// Name is the value.
	Name string
	// Problems are the rules the name breaks, empty when it breaks none: those of the Envoy-name
	// check (level error) and the stat-safe rule (naming.EnvoyStatUnsafe, level warning) where
	// Envoy's stats read the name (docs/envoy-names.md).
	Problems []naming.EnvoyNameProblem
}

// Dump is what Parse found in a config dump.
type Dump struct {
	// Names lists every name and name reference, in the order of the dump.
	Names []Name
	// Notes say what was skipped: embedded configurations of types this package does not know.
	Notes []string
}

// nameFields maps a message to its fields that hold names, and what each names.
var nameFields = map[protoreflect.FullName]map[protoreflect.Name]string{
	"envoy.config.listener.v3.Listener":                                                    {"name": "listener"},
	"envoy.config.listener.v3.FilterChain":                                                 {"name": "filter chain"},
	"envoy.config.cluster.v3.Cluster":                                                      {"name": "cluster", "alt_stat_name": "alt_stat_name"},
	"envoy.config.cluster.v3.Cluster.EdsClusterConfig":                                     {"service_name": "cluster load assignment reference"},
	"envoy.config.route.v3.RouteConfiguration":                                             {"name": "route configuration"},
	"envoy.config.route.v3.VirtualHost":                                                    {"name": "virtual host"},
	"envoy.config.route.v3.Route":                                                          {"name": "route"},
	"envoy.config.route.v3.RouteAction":                                                    {"cluster": "cluster reference"},
	"envoy.config.route.v3.RouteAction.RequestMirrorPolicy":                                {"cluster": "cluster reference"},
	"envoy.config.route.v3.WeightedCluster.ClusterWeight":                                  {"name": "cluster reference"},
	"envoy.config.endpoint.v3.ClusterLoadAssignment":                                       {"cluster_name": "cluster load assignment"},
	"envoy.extensions.transport_sockets.tls.v3.Secret":                                     {"name": "secret"},
	"envoy.extensions.transport_sockets.tls.v3.SdsSecretConfig":                            {"name": "secret reference"},
	"envoy.extensions.filters.network.http_connection_manager.v3.Rds":                      {"route_config_name": "route configuration reference"},
	"envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy":                               {"cluster": "cluster reference"},
	"envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy.WeightedCluster.ClusterWeight": {"name": "cluster reference"},
	"envoy.config.core.v3.GrpcService.EnvoyGrpc":                                           {"cluster_name": "cluster reference"},
	"envoy.config.core.v3.ApiConfigSource":                                                 {"cluster_names": "cluster reference"},
}

// statNamed maps a message to its fields whose value Envoy puts into stat names: the stat-safe
// rule applies to them (docs/envoy-names.md). A cluster's name is read only when it has no
// alt_stat_name.
var statNamed = map[protoreflect.FullName]map[protoreflect.Name]bool{
	"envoy.config.cluster.v3.Cluster":                                                   {"name": true, "alt_stat_name": true},
	"envoy.config.route.v3.VirtualHost":                                                 {"name": true},
	"envoy.config.listener.v3.Listener":                                                 {"stat_prefix": true},
	"envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager": {"stat_prefix": true},
	"envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy":                            {"stat_prefix": true},
}

const clusterMessage = "envoy.config.cluster.v3.Cluster"

// skipped are the dump sections left out: the bootstrap repeats the static resources that the
// listener and cluster dumps list, and would report each of their names twice.
var skipped = map[protoreflect.FullName]bool{
	"envoy.admin.v3.BootstrapConfigDump": true,
}

const emptyTypeURL = "type.googleapis.com/google.protobuf.Empty"

// Parse reads a config dump (the JSON of Envoy's /config_dump, with or without include_eds) and
// checks every name it holds with naming.CheckEnvoyName under o. Embedded configurations of
// unknown types are skipped, each with a note; anything else that is not a config dump is an
// error. Read does the same from a stream, holding one config at a time.
func Parse(data []byte, o naming.EnvoyNameOptions) (*Dump, error) {
	d := &Dump{}
	err := Read(bytes.NewReader(data), o, func(n Name) error {
		d.Names = append(d.Names, n)
		return nil
	}, func(note string) { d.Notes = append(d.Notes, note) })
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Read reads a config dump from r as Parse does and hands fn each name, note each note, as
// soon as the config that holds it is read: memory is bounded by the largest config of the
// dump (a listener, cluster or endpoint dump), not by the dump. It stops at fn's first error
// and returns it.
func Read(r io.Reader, o naming.EnvoyNameOptions, fn func(Name) error, note func(string)) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	invalid := func(err error) error { return fmt.Errorf("config dump: invalid JSON: %w", err) }
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return invalid(err)
	}
	if tok != json.Delim('{') {
		return errors.New("config dump: want a JSON object with a configs list")
	}
	sawConfigs := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return invalid(err)
		}
		if tok != "configs" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return invalid(err)
			}
			continue
		}
		sawConfigs = true
		if err := readConfigs(dec, o, fn, note); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return invalid(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("config dump: invalid JSON: more than one value")
	}
	if !sawConfigs {
		return errors.New("config dump: no configs: not the output of Envoy's /config_dump")
	}
	return nil
}

// readConfigs reads the configs list, one config at a time.
func readConfigs(dec *json.Decoder, o naming.EnvoyNameOptions, fn func(Name) error, note func(string)) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("config dump: invalid JSON: %w", err)
	}
	if tok == nil {
		return nil // "configs": null
	}
	if tok != json.Delim('[') {
		return errors.New("config dump: configs: want a list")
	}
	w := walker{opts: o, emit: fn, note: note}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("config dump: invalid JSON: %w", err)
		}
		path := "configs[" + strconv.Itoa(i) + "]"
		a, err := decodeConfig(raw, path, note)
		raw = nil
		if err != nil {
			return fmt.Errorf("config dump: %s: %w", path, err)
		}
		w.message(a.ProtoReflect(), path)
		if w.err != nil {
			return w.err
		}
	}
	_, err = dec.Token() // ]
	return err
}

// decodeConfig decodes one config, an Any. Embedded messages of unknown types are replaced by
// empty ones first, each with a note; only a config that holds one pays for the generic decode
// this needs.
func decodeConfig(raw []byte, path string, note func(string)) (*anypb.Any, error) {
	opts := protojson.UnmarshalOptions{DiscardUnknown: true}
	a := &anypb.Any{}
	if err := opts.Unmarshal(raw, a); err == nil {
		return a, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var notes []string
	if replaceUnknown(v, path, &notes) {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	for _, n := range notes {
		note(n)
	}
	a = &anypb.Any{}
	if err := opts.Unmarshal(raw, a); err != nil {
		return nil, err
	}
	return a, nil
}

// replaceUnknown replaces every embedded message (an object with "@type") whose type is not
// registered by an empty one, noting it, and reports whether it replaced any.
func replaceUnknown(v any, path string, notes *[]string) bool {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		if url, ok := t["@type"].(string); ok {
			if _, err := protoregistry.GlobalTypes.FindMessageByURL(url); err != nil {
				*notes = append(*notes, fmt.Sprintf("%s: skipped an embedded %s (a type kriguard does not read)", orRoot(path), typeName(url)))
				clear(t)
				t["@type"] = emptyTypeURL
				t["value"] = map[string]any{}
				return true
			}
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if replaceUnknown(t[k], join(path, k), notes) {
				changed = true
			}
		}
	case []any:
		for i, e := range t {
			if replaceUnknown(e, path+"["+strconv.Itoa(i)+"]", notes) {
				changed = true
			}
		}
	}
	return changed
}

func typeName(url string) string {
	if i := strings.LastIndexByte(url, '/'); i >= 0 {
		return url[i+1:]
	}
	return url
}

func orRoot(path string) string {
	if path == "" {
		return "."
	}
	return path
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

type walker struct {
	opts naming.EnvoyNameOptions
	emit func(Name) error
	note func(string)
	err  error // emit's first error, which ends the walk
}

// message visits the fields of m, which is at path, in the order the proto declares them.
func (w *walker) message(m protoreflect.Message, path string) {
	desc := m.Descriptor()
	if w.err != nil || skipped[desc.FullName()] {
		return
	}
	if desc.FullName() == "google.protobuf.Any" {
		a, ok := m.Interface().(*anypb.Any)
		if !ok || a.GetTypeUrl() == emptyTypeURL {
			return
		}
		inner, err := anypb.UnmarshalNew(a, proto.UnmarshalOptions{DiscardUnknown: true})
		if err != nil {
			w.note(fmt.Sprintf("%s: skipped an embedded %s: %v", orRoot(path), typeName(a.GetTypeUrl()), err))
			return
		}
		w.message(inner.ProtoReflect(), path)
		return
	}
	names := nameFields[desc.FullName()]
	fields := desc.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		p := join(path, string(fd.Name()))
		v := m.Get(fd)
		what := names[fd.Name()]
		if what == "" && fd.Name() == "stat_prefix" {
			what = "stat_prefix"
		}
		if fd.Kind() == protoreflect.StringKind && !fd.IsList() && !fd.IsMap() && what != "" {
			w.name(m, fd, v.String(), p, what)
			continue
		}
		switch {
		case fd.IsList():
			l := v.List()
			for j := 0; j < l.Len(); j++ {
				w.value(fd, l.Get(j), p+"["+strconv.Itoa(j)+"]", what)
			}
		case fd.IsMap():
			keys := []protoreflect.MapKey{}
			v.Map().Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
				keys = append(keys, k)
				return true
			})
			sort.Slice(keys, func(a, b int) bool { return keys[a].String() < keys[b].String() })
			for _, k := range keys {
				w.value(fd.MapValue(), v.Map().Get(k), p+"["+k.String()+"]", "")
			}
		default:
			w.value(fd, v, p, what)
		}
	}
}

// name judges the name in field fd of message m: the Envoy-name check, and the stat-safe rule
// where the stats read it. An alt_stat_name that is its cluster's name sanitized, as Kuma writes
// it, is derived from the name and held to no rule.
func (w *walker) name(m protoreflect.Message, fd protoreflect.FieldDescriptor, name, path, what string) {
	if name == "" {
		return
	}
	desc := m.Descriptor()
	if desc.FullName() == clusterMessage && fd.Name() == "alt_stat_name" &&
		naming.IsSanitizedAltStatName(name, m.Get(desc.Fields().ByName("name")).String()) {
		if w.err == nil {
			w.err = w.emit(Name{Path: path, What: what, Name: name})
		}
		return
	}
	probs := naming.CheckEnvoyName(name, w.opts)
	stat := statNamed[desc.FullName()][fd.Name()]
	if desc.FullName() == clusterMessage && fd.Name() == "name" && m.Get(desc.Fields().ByName("alt_stat_name")).String() != "" {
		stat = false // the alt_stat_name stands in for it
	}
	if stat {
		if p := naming.CheckStatName(name); p != nil {
			probs = append(probs, *p)
		}
	}
	if w.err == nil {
		w.err = w.emit(Name{Path: path, What: what, Name: name, Problems: probs})
	}
}

func (w *walker) value(fd protoreflect.FieldDescriptor, v protoreflect.Value, path, what string) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		w.message(v.Message(), path)
	case protoreflect.StringKind:
		if what != "" && v.String() != "" && w.err == nil {
			w.err = w.emit(Name{Path: path, What: what, Name: v.String(),
				Problems: naming.CheckEnvoyName(v.String(), w.opts)})
		}
	}
}
