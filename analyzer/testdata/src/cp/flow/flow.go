// Package flow exercises the may-analysis of locals: any definition that may reach the sink counts,
// one that is always overwritten first does not.
package flow

import (
	"net"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
)

func Branch(unified bool) *clusterv3.Cluster {
	name := "legacy:backend"
	if unified {
		name = "kri_msvc_mesh-1__ns_backend_"
	}
	return &clusterv3.Cluster{Name: name} // want `clusterv3\.Cluster\.Name gets "legacy:backend" \(variable name \(literal "legacy:backend"\)\): contains ':'`
}

func Killed() *clusterv3.Cluster {
	name := "legacy:backend"
	name = "kri_msvc_mesh-1__ns_backend_"
	return &clusterv3.Cluster{Name: name}
}

func Switch(k int) *clusterv3.Cluster {
	var name string
	switch k {
	case 1:
		name = "one:x"
	default:
		name = "_default"
	}
	return &clusterv3.Cluster{Name: name} // want `gets "one:x"`
}

func BackEdge(parts []string) {
	name := "_first"
	for _, p := range parts {
		_ = &clusterv3.Cluster{Name: name} // want `gets "loop:\*"`
		name = "loop:" + p
	}
}

func KilledInLoop(parts []string) {
	for _, p := range parts {
		name := "_" + p
		_ = &clusterv3.Cluster{Name: name}
		name = "later:" + p
		_ = name
	}
}

func AfterUse() *clusterv3.Cluster {
	name := "_ok"
	c := &clusterv3.Cluster{Name: name}
	name = "late:x"
	_ = name
	return c
}

func Closure() *clusterv3.Cluster {
	name := "_ok"
	set := func() { name = "closure:x" }
	set()
	return &clusterv3.Cluster{Name: name} // want `gets "closure:x"`
}

func pick() string { return "picked:name" }

func IfInit() {
	if name := pick(); name != "" {
		_ = &clusterv3.Cluster{Name: name} // want `gets "picked:name" \(result of flow\.pick\)`
	}
}

func PlusAssign(svc string) *clusterv3.Cluster {
	name := "outbound"
	name += ":" + svc
	return &clusterv3.Cluster{Name: name} // want `gets "outbound:\*"`
}

func Pointer() *clusterv3.Cluster {
	name := "_ok"
	setName(&name)
	return &clusterv3.Cluster{Name: name}
}

func setName(p *string) { *p = "_other" }

// build copies its parameter to a local and then to the sink: the parameter is a sink.
func build(name string) *clusterv3.Cluster {
	n := name
	return &clusterv3.Cluster{Name: n}
}

func UseBuild() {
	build("local:x") // want `clusterv3\.Cluster\.Name gets "local:x" \(literal "local:x"\) through flow\.build parameter name: contains ':'`
	build("_local")
}

// reassigned sanitizes its parameter first: it is no sink.
func reassigned(name string) *clusterv3.Cluster {
	name = sanitize(name)
	return &clusterv3.Cluster{Name: name}
}

func sanitize(s string) string { return "_" + s[1:] }

func UseReassigned() {
	reassigned("x:y")
}

// Param is reassigned on one branch only: the argument may reach the sink.
func maybe(name string, internal bool) *clusterv3.Cluster {
	if internal {
		name = "_internal"
	}
	return &clusterv3.Cluster{Name: name}
}

func UseMaybe() {
	maybe("a:b", true) // want `gets "a:b" \(literal "a:b"\) through flow\.maybe parameter name`
}

// Recursive helpers terminate.
func rec(n int) string {
	if n == 0 {
		return "base:"
	}
	return rec(n-1) + "x"
}

func UseRec() {
	_ = &clusterv3.Cluster{Name: rec(3)} // want `gets "base:"`
}

// Every branch redefines name, or leaves: the first definition never reaches the sink.
func BothBranches(unified bool) *clusterv3.Cluster {
	name := "legacy:backend"
	if unified {
		name = "kri_msvc_mesh-1__ns_backend_"
	} else {
		name = "_backend"
	}
	return &clusterv3.Cluster{Name: name}
}

func EarlyReturn(unified bool) *clusterv3.Cluster {
	name := "legacy:backend"
	if unified {
		name = "_backend"
	} else {
		return nil
	}
	return &clusterv3.Cluster{Name: name}
}

func SwitchAll(k int) *clusterv3.Cluster {
	name := "legacy:backend"
	switch k {
	case 0:
		name = "_zero"
	case 1:
		panic("one")
	default:
		name = "_other"
	}
	return &clusterv3.Cluster{Name: name}
}

// Without a default clause the first definition may survive the switch.
func SwitchPartial(k int) *clusterv3.Cluster {
	name := "legacy:backend"
	switch k {
	case 0:
		name = "_zero"
	}
	return &clusterv3.Cluster{Name: name} // want `gets "legacy:backend"`
}

// A parameter redefined on every branch is no sink.
func bothParam(name string, internal bool) *clusterv3.Cluster {
	if internal {
		name = "_internal"
	} else {
		name = "_external"
	}
	return &clusterv3.Cluster{Name: name}
}

func UseBothParam() {
	bothParam("a:b", true)
}

func JoinLocal(svc string) {
	parts := []string{"outbound", svc}
	_ = &clusterv3.Cluster{Name: strings.Join(parts, ":")} // want `gets "outbound:\*" \(strings\.Join with separator ":"\)`
	grown := []string{"outbound"}
	grown = append(grown, svc)
	_ = &clusterv3.Cluster{Name: strings.Join(grown, "_")}
	one := []string{svc}
	_ = &clusterv3.Cluster{Name: strings.Join(one, ":")}
}

func Ranges(svc string) {
	for _, n := range []string{"_a", "range:b"} {
		_ = &clusterv3.Cluster{Name: n} // want `gets "range:b"`
	}
	names := [...]string{"_a", "_b"}
	for i, n := range names {
		_ = &clusterv3.Cluster{Name: n}
		_ = i
	}
	dyn := strings.Fields(svc)
	for _, n := range dyn {
		_ = &clusterv3.Cluster{Name: n}
	}
}

func HostPort(host, port string) {
	_ = &clusterv3.Cluster{Name: net.JoinHostPort(host, port)} // want `gets "\*:\*" \(net\.JoinHostPort\)`
}

var (
	adminName   = "admin:9901"
	rewritten   = "_first"
	addressed   = "_addr"
	ExportedVar = "exported:x"
)

func init() { rewritten = "rewritten:x" }

// Every store to an unexported package variable counts; an exported one may also hold what
// importers write, which stays unknown, but its own initialiser still counts.
func PackageVars() {
	_ = &clusterv3.Cluster{Name: adminName} // want `gets "admin:9901" \(variable adminName \(literal "admin:9901"\)\)`
	_ = &clusterv3.Cluster{Name: rewritten} // want `gets "rewritten:x" \(variable rewritten \(literal "rewritten:x"\)\)`
	p := &addressed
	_ = &clusterv3.Cluster{Name: addressed}
	_ = &clusterv3.Cluster{Name: ExportedVar} // want `gets "exported:x"`
	_ = p
}
