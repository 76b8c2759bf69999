package shapes // want package:"has sinks"

// The flow shapes where real names live: closures returned by helpers, method values, interfaces
// with several implementations, fields filled in one function and read in another, and maps of
// name functions. Each comes with a negative twin that must stay quiet: sanitized, compared,
// logged, or used as a header name.

import (
	"fmt"
	"log"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	healthv3 "github.com/envoyproxy/go-control-plane/envoy/service/health/v3"

	"cp/namefn"
)

func sanitize(s string) string { return strings.ReplaceAll(s, ":", "_") }

// Closure returned by a helper of another package and called with a default.

func ClosureDefault(unified bool, kri, addr string) *listenerv3.Listener {
	name := namefn.Unified(unified, kri)("inbound:" + addr)
	return &listenerv3.Listener{Name: name} // want `listenerv3\.Listener\.Name gets "inbound:\*" \(result of the function namefn\.Unified returns\): contains ':'`
}

func ClosureDefaultSanitized(unified bool, kri, addr string) *listenerv3.Listener {
	pick := namefn.Unified(unified, kri)
	return &listenerv3.Listener{Name: pick(sanitize("inbound:" + addr))}
}

func ClosureBuilds(mesh, svc string) *clusterv3.Cluster {
	outbound := namefn.Legacy(mesh)
	return &clusterv3.Cluster{Name: outbound(svc)} // want `clusterv3\.Cluster\.Name gets "outbound:\*:\*" \(result of the function namefn\.Legacy returns\): contains ':'`
}

func ClosureSanitizes(mesh, svc string) *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: namefn.Sanitized()(namefn.Legacy(mesh)(svc))}
}

// The same inside the package: a local helper returning a closure.

func orDefault(name string) func(string) string {
	return func(def string) string {
		if name != "" {
			return name
		}
		return def
	}
}

func LocalClosure(name, svc string) *clusterv3.Cluster { // want LocalClosure:`sink params 0->clusterv3.Cluster.Name`
	return &clusterv3.Cluster{Name: orDefault(name)("local:" + svc)} // want `clusterv3\.Cluster\.Name gets "local:\*" \(result of shapes\.orDefault\$1\): contains ':'`
}

func LocalClosureCompared(name, svc string) bool {
	return orDefault(name)("local:"+svc) == "local:x"
}

// Method values.

type secretRef struct{ mesh string }

func (r secretRef) Name() string     { return "mesh_ca:secret:" + r.mesh } // want Name:`result "mesh_ca:secret:\*"`
func (r secretRef) SafeName() string { return "mesh_ca_secret_" + r.mesh }

func MethodValue(mesh string) *tlsv3.Secret {
	name := secretRef{mesh: mesh}.Name
	return &tlsv3.Secret{Name: name()} // want `tlsv3\.Secret\.Name gets "mesh_ca:secret:\*" \(result of \(shapes\.secretRef\)\.Name\): contains ':'`
}

func MethodValueSafe(mesh string) *tlsv3.Secret {
	name := secretRef{mesh: mesh}.SafeName
	log.Printf("secret %s", secretRef{mesh: mesh}.Name())
	return &tlsv3.Secret{Name: name()}
}

// An interface with two implementations, one of them bad.

type Resource interface{ ResourceName() string }

type meshCA struct{ mesh string }

func (m meshCA) ResourceName() string { return "mesh_ca:secret:" + m.mesh } // want ResourceName:`result "mesh_ca:secret:\*"`

type kriSecret struct{ mesh string }

func (k *kriSecret) ResourceName() string { return "kri_secret_" + k.mesh + "___ca_" } // want ResourceName:`result "kri_secret_\*___ca_"`

func SecretFor(r Resource) *tlsv3.Secret { // want SecretFor:`sink params 0\.ResourceName\(\)->tlsv3\.Secret\.Name`
	return &tlsv3.Secret{Name: r.ResourceName()} // want `tlsv3\.Secret\.Name gets "mesh_ca:secret:\*" \(result of \(shapes\.meshCA\)\.ResourceName\): contains ':'`
}

// Its twin: two good implementations, and the bad one used as a header name.

type Good interface{ GoodName() string }

type goodA struct{ n string }

func (a goodA) GoodName() string { return "_a_" + a.n }

type goodB struct{}

func (goodB) GoodName() string { return "kri_msvc_mesh-1__ns_b_" } // want GoodName:`result "kri_msvc_mesh-1__ns_b_"`

func GoodFor(g Good, r Resource) (*tlsv3.Secret, *routev3.HeaderMatcher) { // want GoodFor:`sink params 0\.GoodName\(\)->tlsv3\.Secret\.Name`
	return &tlsv3.Secret{Name: g.GoodName()}, &routev3.HeaderMatcher{Name: r.ResourceName()}
}

// An interface whose implementation writes its parameter to a name field.

type Configurer interface {
	Configure(l *listenerv3.Listener, name string)
}

type namer struct{}

func (namer) Configure(l *listenerv3.Listener, name string) { l.Name = name } // want Configure:`sink params 1->listenerv3.Listener.Name`

func Configure(c Configurer, addr string) *listenerv3.Listener {
	l := &listenerv3.Listener{}
	c.Configure(l, "inbound:"+addr) // want `listenerv3\.Listener\.Name gets "inbound:\*" \(literal "inbound:"\) through \(shapes\.namer\)\.Configure parameter name: contains ':'`
	c.Configure(l, sanitize("inbound:"+addr))
	return l
}

// A field filled in a constructor and read in Build.

type ClusterGen struct {
	name  string
	namer func() string
	label string
}

func NewClusterGen(svc string, port int) *ClusterGen {
	g := &ClusterGen{}
	g.name = "outbound:" + svc // want `clusterv3\.Cluster\.Name gets "outbound:\*" \(literal "outbound:"\) through shapes\.ClusterGen\.name: contains ':'`
	g.namer = func() string { return fmt.Sprintf("outbound:%s:%d", svc, port) }
	g.label = "outbound:" + svc
	return g
}

func (g *ClusterGen) Build() *clusterv3.Cluster {
	log.Printf("building %s", g.label)
	return &clusterv3.Cluster{Name: g.name, AltStatName: g.namer()} // want `clusterv3\.Cluster\.AltStatName gets "outbound:\*:\*" \(result of shapes\.NewClusterGen\$1\): contains ':'`
}

func NewSafeClusterGen(svc string) *ClusterGen {
	g := &ClusterGen{namer: func() string { return "_" + svc }}
	g.name = sanitize("outbound:" + svc)
	if g.label == "outbound:"+svc {
		g.label = ""
	}
	return g
}

// A map of name functions.

var namers = map[string]func(string) string{
	"outbound": func(s string) string { return "outbound:" + s },
	"kri":      func(s string) string { return "kri_msvc_mesh-1__ns_" + s + "_" },
}

var safeNamers = map[string]func(string) string{
	"outbound": func(s string) string { return "outbound_" + s },
	"kri":      func(s string) string { return "kri_msvc_mesh-1__ns_" + s + "_" },
}

func ByKind(kind, svc string) *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: namers[kind](svc)} // want `clusterv3\.Cluster\.Name gets "outbound:\*" \(result of shapes\.init\$1\): contains ':'`
}

func ByKindSafe(kind, svc string) *clusterv3.Cluster {
	if f, ok := safeNamers[kind]; ok {
		return &clusterv3.Cluster{Name: f(svc)}
	}
	return nil
}

// A pass-through method and a reference field.

type passer struct{}

func (passer) Pass(name string) string { return name } // want Pass:`result "\{0\}"`

func PassThrough(svc string) *healthv3.ClusterHealthCheck {
	return &healthv3.ClusterHealthCheck{ClusterName: passer{}.Pass("hds:" + svc)} // want `healthv3\.ClusterHealthCheck\.ClusterName gets "hds:\*" \(result of \(shapes\.passer\)\.Pass\): contains ':'.* \(a reference to a cluster named elsewhere\)`
}

func PassThroughSafe(svc string) *healthv3.ClusterHealthCheck {
	return &healthv3.ClusterHealthCheck{ClusterName: passer{}.Pass(sanitize("hds:" + svc))}
}
