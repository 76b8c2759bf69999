// Package analyzer defines krilint, a go/analysis analyzer that reports Envoy resource names in Go
// code that contain ':' or claim to be a KRI without being one (SPEC §4).
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
// A value is followed through constants, +, fmt.Sprintf and fmt.Sprint with a constant format (a
// verb is a hole), strings.Join with a constant separator, net.JoinHostPort, unexported package
// variables that only their declaration sets, local variables (every definition that
// may reach the use counts, so a ':' assigned on one branch is reported even if another branch
// reassigns), and functions in any package whose result shape is exported as a fact (a function
// returning fmt.Sprintf("inbound:%s:%d", …) taints its callers, as do join helpers called with two
// parts or more). A value that goes through any other call — a sanitizer, a formatter — is unknown
// and never reported.
//
// The rule is the naming core's (naming.CheckEnvoyPattern): ':' anywhere is reported, with a
// suggested fix replacing it with '_' when it comes from a literal of the package; a name that
// starts with "kri_" must be able to form a KRI; names starting with "_" are internal; others are
// legacy and reported only with -strict. Accepted prefixes are set with -prefixes (default
// "self_,system_").
//
// Flags:
//
//	-strict          also report legacy names
//	-prefixes=LIST   comma-separated accepted prefixes
//	-sinks=LIST      extra sinks: pkgpath.Func:argIndex or pkgpath.Type.Method:argIndex
//
// A struct field declared in one package and copied to a sink in another is carried by a
// package fact to the importers of the package that found it, which check the writes to it.
//
// What krilint does not follow, by design or for now: calls through interfaces, and through
// function values other than a local defined once with a function or method (only calls whose
// callee is known carry sinks and result shapes); writes to such a foreign field from a package
// that does not import the package that found it to be a sink; names accumulated in slices,
// maps, strings.Builder or bytes.Buffer; exported variables of the package scope, and unexported
// ones written anywhere but in their declaration. Those values are unknown and never reported.
//
// Packages that import no go-control-plane package, no package with sink facts and hold no
// configured sink only have their function results summarised, so that running krilint as a vet
// tool costs little more than type checking.
package analyzer
