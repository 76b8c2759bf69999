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
}

// envoySinks lists the name fields (SPEC §4) and the reference fields (issue 7) krilint checks.
// They are matched on type information: the package path and name of the struct type and the name
// of the field, never on how the code spells them. go-control-plane uses the open struct API, so
// there are no generated setters to list.
var envoySinks = []envoySink{
	// Resource names.
	{"config/listener/v3", "Listener", "Name"},
	{"config/listener/v3", "Listener", "StatPrefix"},
	{"config/listener/v3", "FilterChain", "Name"},
	{"config/cluster/v3", "Cluster", "Name"},
	{"config/cluster/v3", "Cluster", "AltStatName"},
	{"config/endpoint/v3", "ClusterLoadAssignment", "ClusterName"},
	{"config/route/v3", "RouteConfiguration", "Name"},
	{"config/route/v3", "VirtualHost", "Name"},
	{"config/route/v3", "Route", "Name"},
	{"config/route/v3", "RouteAction_Cluster", "Cluster"},
	{"extensions/transport_sockets/tls/v3", "Secret", "Name"},
	{"extensions/filters/network/http_connection_manager/v3", "HttpConnectionManager", "StatPrefix"},
	{"extensions/filters/network/tcp_proxy/v3", "TcpProxy", "StatPrefix"},
	{"extensions/filters/network/tcp_proxy/v3", "TcpProxy_Cluster", "Cluster"},
	// References to resources named elsewhere.
	{"config/cluster/v3", "Cluster_EdsClusterConfig", "ServiceName"},
	{"config/route/v3", "WeightedCluster_ClusterWeight", "Name"},
	{"config/route/v3", "RouteAction_RequestMirrorPolicy", "Cluster"},
	{"extensions/transport_sockets/tls/v3", "SdsSecretConfig", "Name"},
	{"extensions/filters/network/http_connection_manager/v3", "Rds", "RouteConfigName"},
	{"extensions/filters/network/tcp_proxy/v3", "TcpProxy_WeightedCluster_ClusterWeight", "Name"},
	{"config/core/v3", "GrpcService_EnvoyGrpc", "ClusterName"},
	{"config/core/v3", "HttpUri_Cluster", "Cluster"},
	{"config/trace/v3", "ZipkinConfig", "CollectorCluster"},
	{"config/trace/v3", "DatadogConfig", "CollectorCluster"},
	{"config/trace/v3", "LightstepConfig", "CollectorCluster"},
}

// envoyKeySinks lists the go-control-plane maps whose keys are names of resources defined
// elsewhere: every key is a sink. Other map keys are not.
var envoyKeySinks = []envoySink{
	{"extensions/filters/http/health_check/v3", "HealthCheck", "ClusterMinHealthyPercentages"},
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
	return Sink{Field: "a key of " + obj.Pkg().Name() + "." + obj.Name() + "." + f.Name()}, true
}

// envoySinkIndex maps "pkgpath.Type.Field" to the field's display name ("listenerv3.Listener.Name").
var envoySinkIndex = func() map[string]bool {
	m := make(map[string]bool, len(envoySinks))
	for _, s := range envoySinks {
		m[envoyPrefix+s.pkg+"."+s.typ+"."+s.field] = true
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
	if !envoySinkIndex[path+"."+obj.Name()+"."+f.Name()] {
		return Sink{}, false
	}
	return Sink{Field: obj.Pkg().Name() + "." + obj.Name() + "." + f.Name()}, true
}

// configuredSinks are the functions named with -sinks: "pkgpath.Func:1" or
// "pkgpath.Type.Method:0", the index counting parameters from 0 without the receiver.
type configuredSinks map[string][]int

func parseSinks(s string) (configuredSinks, error) {
	out := configuredSinks{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		colon := strings.LastIndexByte(item, ':')
		if colon < 0 {
			return nil, fmt.Errorf("sink %q: want pkgpath.Func:argIndex", item)
		}
		idx, err := strconv.Atoi(item[colon+1:])
		if err != nil || idx < 0 {
			return nil, fmt.Errorf("sink %q: argument index must be a non-negative integer", item)
		}
		name := item[:colon]
		slash := strings.LastIndexByte(name, '/')
		if strings.IndexByte(name[slash+1:], '.') < 0 {
			return nil, fmt.Errorf("sink %q: want pkgpath.Func:argIndex", item)
		}
		out[name] = append(out[name], idx)
	}
	return out, nil
}

// parseTypes reads "Kind:short:Scope,…" into a copy of the default registry with those types added.
func parseTypes(s string) (*naming.Registry, error) {
	var types []naming.ResourceType
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		parts := strings.Split(item, ":")
		if len(parts) != 3 {
			return nil, fmt.Errorf("type %q: want Kind:short:Scope", item)
		}
		scope, err := naming.ParseScope(parts[2])
		if err != nil {
			return nil, fmt.Errorf("type %q: %w", item, err)
		}
		types = append(types, naming.ResourceType{Kind: parts[0], ShortName: parts[1], Scope: scope})
	}
	r := naming.Default.Clone()
	if err := r.Register(types...); err != nil {
		return nil, err
	}
	return r, nil
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
