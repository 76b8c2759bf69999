// Package analyzer defines krilint, a go/analysis analyzer that reports Envoy resource names in Go
// code that contain ':' or claim to be a KRI without being one (docs/krilint.md).
//
// # Analyzer krilint
//
// krilint: report Envoy resource names with ':' or invalid KRIs
//
// A sink is a place whose value becomes an Envoy resource name: a name field of a go-control-plane
// type (Listener.Name, Cluster.AltStatName, RouteAction_Cluster.Cluster, …) or a field that
// references such a resource (Rds.RouteConfigName, SdsSecretConfig.Name, the keys of the health
// check filter's ClusterMinHealthyPercentages, …), a function argument
// named with -sinks, and — found by the analyzer — every parameter and struct field whose value is
// copied to a sink. Those are exported as facts, so a builder API in one package makes its callers in
// every other package checked:
//
//	// package builders
//	func NewListenerBuilder(version, name string) *ListenerBuilder { return &ListenerBuilder{name: name} }
//	func (b *ListenerBuilder) Build() *listenerv3.Listener { return &listenerv3.Listener{Name: b.name} }
//
//	// package generator
//	builders.NewListenerBuilder("v3", names.Inbound(addr, port)) // reported here
//
// Values are followed on the SSA form of the package (go/ssa, built only where needed): constants, +,
// fmt.Sprintf and fmt.Sprint with a constant format (a verb is a hole), strings.Join of a slice literal
// with a constant separator, net.JoinHostPort, locals through their φ-nodes (every definition that may
// reach the use), cells captured by closures, package variables, slice literals, and calls into their
// callees: functions of any package (result shapes are exported as facts), closures returned by
// functions (closureFact), method values, functions kept in fields or maps, and interface methods —
// every implementation in the package or described by an imported fact, or by the implementations
// fact that packages forward to their importers (implsFact). A value that goes through any
// other call — a sanitizer, a formatter — is unknown and never reported.
//
// The rule is the naming core's (naming.CheckEnvoyPattern): ':' anywhere is reported, with a
// suggested fix replacing it with '_' when it comes from a literal of the package; a name that
// starts with "kri_" must be able to form a KRI; names starting with "_" are internal; others are
// legacy and reported only with -strict. Accepted prefixes are set with -prefixes (default
// "self_,system_").
//
// Configuration: [New] builds an analyzer from [Options]; [Analyzer] is New over its flags:
//
//	-strict          also report legacy names
//	-prefixes=LIST   comma-separated accepted prefixes
//	-sinks=LIST      extra sinks: pkgpath.Func:argIndex or pkgpath.Type.Method:argIndex
//	-types=LIST      extra KRI resource types: Kind:short:Scope
//
// A suggested fix replaces ':' with '_' where the value is written: a literal of the package, or the use
// of a constant; a constant's declaration only when every use of it is an Envoy name. Fixes that cannot
// be made safe are left out. See docs/krilint.md.
//
// A struct field declared in one package and copied to a sink in another is carried by a
// package fact to the importers of the package that found it, which check the writes to it, and
// forwarded by every package to its own importers (forwardFact): go vet hands a package the package
// facts of its direct imports only. Two calls of one closure that returns one of its arguments,
// chosen by values it captured (selectFact, Kuma's naming.GetNameOrFallbackFunc), choose alike.
//
// What krilint does not follow: implementations of an interface in packages that the analysed package
// does not import; function parameters called as functions; names accumulated in slices, maps,
// strings.Builder or bytes.Buffer. Those values are unknown and never reported.
//
// Packages that import no go-control-plane package, no package with sink facts and hold no
// configured sink only have their exported functions' results summarised, and only when they have
// such a function and are not a dependency at a version; the standard library and go-control-plane
// are skipped. SSA is built only where it is used, so that running krilint as a vet tool costs little
// more than type checking.
package analyzer
