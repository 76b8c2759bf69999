package analyzer

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"

	"github.com/kriguard/kriguard/naming"
)

// envoyPrefix is the import path prefix of the go-control-plane packages.
const envoyPrefix = "github.com/envoyproxy/go-control-plane/envoy/"

// envoySink is one go-control-plane field whose value is an Envoy resource name, or the name of a
// resource defined elsewhere (a reference).
type envoySink struct {
	pkg, typ, field string
	ref             string // what a reference field names: "cluster", "secret", "route configuration"
	stat            string // how Envoy's stats use the name (Sink.Stat)
}

// envoySinks lists the name fields and the reference fields krilint checks (docs/krilint.md).
// They are matched on type information: the package path and name of the struct type and the name
// of the field, never on how the code spells them. go-control-plane uses the open struct API, so
// there are no generated setters to list.
var envoySinks = []envoySink{
	// Resource names.
	{"config/listener/v3", "Listener", "Name", "", ""},
	{"config/listener/v3", "Listener", "StatPrefix", "", "stat_prefix"},
	{"config/listener/v3", "FilterChain", "Name", "", ""},
	{"config/cluster/v3", "Cluster", "Name", "", "cluster"},
	{"config/cluster/v3", "Cluster", "AltStatName", "", "alt_stat_name"},
	{"config/endpoint/v3", "ClusterLoadAssignment", "ClusterName", "", ""},
	{"config/route/v3", "RouteConfiguration", "Name", "", ""},
	{"config/route/v3", "VirtualHost", "Name", "", "virtual host"},
	{"config/route/v3", "Route", "Name", "", ""},
	{"config/route/v3", "RouteAction_Cluster", "Cluster", "", ""},
	{"extensions/transport_sockets/tls/v3", "Secret", "Name", "", ""},
	{"extensions/filters/network/http_connection_manager/v3", "HttpConnectionManager", "StatPrefix", "", "stat_prefix"},
	{"extensions/filters/network/tcp_proxy/v3", "TcpProxy", "StatPrefix", "", "stat_prefix"},
	{"extensions/filters/network/tcp_proxy/v3", "TcpProxy_Cluster", "Cluster", "", ""},
	// References to resources named elsewhere.
	{"config/cluster/v3", "Cluster_EdsClusterConfig", "ServiceName", "cluster load assignment", ""},
	{"config/route/v3", "WeightedCluster_ClusterWeight", "Name", "cluster", ""},
	{"config/route/v3", "RouteAction_RequestMirrorPolicy", "Cluster", "cluster", ""},
	{"extensions/transport_sockets/tls/v3", "SdsSecretConfig", "Name", "secret", ""},
	{"extensions/filters/network/http_connection_manager/v3", "Rds", "RouteConfigName", "route configuration", ""},
	{"extensions/filters/network/tcp_proxy/v3", "TcpProxy_WeightedCluster_ClusterWeight", "Name", "cluster", ""},
	{"config/core/v3", "GrpcService_EnvoyGrpc", "ClusterName", "cluster", ""},
	{"config/core/v3", "HttpUri_Cluster", "Cluster", "cluster", ""},
	{"config/trace/v3", "ZipkinConfig", "CollectorCluster", "cluster", ""},
	{"config/trace/v3", "DatadogConfig", "CollectorCluster", "cluster", ""},
	{"config/trace/v3", "LightstepConfig", "CollectorCluster", "cluster", ""},
	{"service/health/v3", "ClusterHealthCheck", "ClusterName", "cluster", ""},
	{"service/health/v3", "ClusterEndpointsHealth", "ClusterName", "cluster", ""},
}

// envoyKeySinks lists the go-control-plane maps whose keys are names of resources defined
// elsewhere: every key is a sink. Other map keys are not.
var envoyKeySinks = []envoySink{
	{"extensions/filters/http/health_check/v3", "HealthCheck", "ClusterMinHealthyPercentages", "cluster", ""},
}

var envoyKeySinkIndex = func() map[string]bool {
	m := make(map[string]bool, len(envoyKeySinks))
	for _, s := range envoyKeySinks {
		m[envoyPrefix+s.pkg+"."+s.typ+"."+s.field] = true
	}
	return m
}()

// envoyKeyField returns the sink of the keys of map field f of struct type owner.
func envoyKeyField(owner *types.Named, f *types.Var) (Sink, bool) {
	if owner == nil {
		return Sink{}, false
	}
	obj := owner.Origin().Obj()
	if obj.Pkg() == nil || !strings.HasPrefix(obj.Pkg().Path(), envoyPrefix) {
		return Sink{}, false
	}
	if !envoyKeySinkIndex[obj.Pkg().Path()+"."+obj.Name()+"."+f.Name()] {
		return Sink{}, false
	}
	return Sink{Field: "a key of " + obj.Pkg().Name() + "." + obj.Name() + "." + f.Name(), Ref: "cluster"}, true
}

// envoySinkIndex maps "pkgpath.Type.Field" to the sink.
var envoySinkIndex = func() map[string]envoySink {
	m := make(map[string]envoySink, len(envoySinks))
	for _, s := range envoySinks {
		m[envoyPrefix+s.pkg+"."+s.typ+"."+s.field] = s
	}
	return m
}()

// envoyField returns the sink of field f of struct type owner when it is a go-control-plane name
// field.
func envoyField(owner *types.Named, f *types.Var) (Sink, bool) {
	obj := owner.Origin().Obj()
	if obj.Pkg() == nil {
		return Sink{}, false
	}
	path := obj.Pkg().Path()
	if !strings.HasPrefix(path, envoyPrefix) {
		return Sink{}, false
	}
	es, ok := envoySinkIndex[path+"."+obj.Name()+"."+f.Name()]
	if !ok {
		return Sink{}, false
	}
	return Sink{Field: obj.Pkg().Name() + "." + obj.Name() + "." + f.Name(), Ref: es.ref, Stat: es.stat}, true
}

// configuredSinks are the functions named with -sinks, by their -sinks spelling, with the
// indexes of their sink parameters.
type configuredSinks map[string][]int

// SinkSpec is one configured sink: the argument Arg (0-based, receiver not counted) of function
// Func, "pkgpath.Func" or "pkgpath.Type.Method".
type SinkSpec struct {
	Func string
	Arg  int
}

// ParseSink reads one sink, "pkgpath.Func:argIndex" or "pkgpath.Type.Method:argIndex". It is the
// parser of the -sinks flag and of the golangci-lint plugin's sinks setting.
func ParseSink(s string) (SinkSpec, error) {
	if strings.ContainsAny(s, ", \t") {
		return SinkSpec{}, fmt.Errorf("%q: must not contain ',' or spaces", s)
	}
	colon := strings.LastIndexByte(s, ':')
	if colon < 0 {
		return SinkSpec{}, fmt.Errorf("%q: want pkgpath.Func:argIndex or pkgpath.Type.Method:argIndex", s)
	}
	idx, err := strconv.Atoi(s[colon+1:])
	if err != nil || idx < 0 {
		return SinkSpec{}, fmt.Errorf("%q: argument index %q must be a non-negative integer", s, s[colon+1:])
	}
	name := s[:colon]
	slash := strings.LastIndexByte(name, '/')
	if dot := strings.IndexByte(name[slash+1:], '.'); dot <= 0 || strings.HasSuffix(name, ".") {
		return SinkSpec{}, fmt.Errorf("%q: want pkgpath.Func:argIndex or pkgpath.Type.Method:argIndex", s)
	}
	return SinkSpec{Func: name, Arg: idx}, nil
}

// SplitList splits a comma-separated flag value into its items, without blanks around them, and
// drops empty items.
func SplitList(s string) ([]string, error) {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out, nil
}

// ParseTypes reads the -types flag, "Kind:short:Scope,…", into resource types; Options.Validate
// has the registry judge them, as the webhook's configuration does.
func ParseTypes(s string) ([]naming.ResourceType, error) {
	items, _ := SplitList(s)
	out := make([]naming.ResourceType, 0, len(items))
	for _, item := range items {
		parts := strings.Split(item, ":")
		if len(parts) != 3 {
			return nil, fmt.Errorf("type %q: want Kind:short:Scope", item)
		}
		scope, err := naming.ParseScope(parts[2])
		if err != nil {
			return nil, fmt.Errorf("type %q: %w", item, err)
		}
		out = append(out, naming.ResourceType{Kind: parts[0], ShortName: parts[1], Scope: scope})
	}
	return out, nil
}

// inPackage reports whether a configured sink may be a function or method of package path. A
// path with dots in its last element makes the spelling ambiguous ("gopkg.in/a.v1.F"), so this
// may say yes for a package that has none: it only decides whether a package is worth a look.
func (c configuredSinks) inPackage(path string) bool {
	for key := range c {
		if rest, ok := strings.CutPrefix(key, path+"."); ok && strings.IndexByte(rest, '/') < 0 && strings.Count(rest, ".") <= 1 {
			return true
		}
	}
	return false
}

// funcKey is the -sinks spelling of fn: "pkgpath.Func" or "pkgpath.Type.Method".
func funcKey(fn *types.Func) string {
	if fn.Pkg() == nil {
		return ""
	}
	sig := fn.Type().(*types.Signature)
	if recv := sig.Recv(); recv != nil {
		if n := namedOf(recv.Type()); n != nil {
			return fn.Pkg().Path() + "." + n.Obj().Name() + "." + fn.Name()
		}
		return ""
	}
	return fn.Pkg().Path() + "." + fn.Name()
}

// funcName is how diagnostics name fn: "names.Inbound", "(*builders.B).Build".
func funcName(fn *types.Func) string {
	sig, _ := fn.Type().(*types.Signature)
	pkg := ""
	if fn.Pkg() != nil {
		pkg = fn.Pkg().Name() + "."
	}
	if sig != nil && sig.Recv() != nil {
		t := sig.Recv().Type()
		star := ""
		if p, ok := t.(*types.Pointer); ok {
			star, t = "*", p.Elem()
		}
		if n, ok := t.(*types.Named); ok {
			return "(" + star + pkg + n.Obj().Name() + ")." + fn.Name()
		}
	}
	return pkg + fn.Name()
}

// namedOf returns the named type t is or points to.
func namedOf(t types.Type) *types.Named {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

func isString(t types.Type) bool {
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}
