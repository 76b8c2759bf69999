package odd // want package:"has sinks"

// Unusual code shapes: krilint must neither panic nor guess.

import (
	"fmt"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
)

// Generic builder: the field of an instantiated type is the field of its origin.
type Builder[T any] struct {
	name string
	meta T
}

func (b *Builder[T]) Build() *clusterv3.Cluster { return &clusterv3.Cluster{Name: b.name} }

func NewBuilder[T any](name string, meta T) *Builder[T] { // want NewBuilder:`sink params 0->clusterv3.Cluster.Name`
	return &Builder[T]{name: name, meta: meta}
}

func UseGeneric() {
	NewBuilder("gen:x", 1).Build() // want `clusterv3\.Cluster\.Name gets "gen:x" \(literal "gen:x"\) through odd\.NewBuilder parameter name`
	NewBuilder[string]("_gen", "m").Build()
}

// Named results with a bare return: SSA reads them back.
func named() (name string) {
	name = "named:x"
	return
}

// A function or method value held by a local is followed, generic instances included.
func Indirect() {
	b := NewBuilder("_ok", 0)
	build := b.Build
	_ = build()
	f := NewBuilder[int]
	_ = f("fv:x", 0) // want `clusterv3\.Cluster\.Name gets "fv:x" \(literal "fv:x"\) through odd\.NewBuilder parameter name`
	_ = (*Builder[int]).Build
	_ = &clusterv3.Cluster{Name: named()} // want `gets "named:x" \(result of odd\.named\)`
}

// Embedded go-control-plane type: a promoted field is still the Envoy field.
type wrapped struct {
	*listenerv3.Listener
	extra string
}

func Promoted() {
	w := wrapped{Listener: &listenerv3.Listener{}}
	w.Name = "promoted:x" // want `listenerv3\.Listener\.Name gets "promoted:x"`
	w.extra = "extra:x"
}

// Labels, goto and multi-value assignments.
func Goto(parts []string) *clusterv3.Cluster {
	name, n := "_start", len(parts)
	i := 0
loop:
	if i < n {
		name = "_" + parts[i]
		i++
		goto loop
	}
	a, b, _ := strings.Cut("x:y", ":")
	_ = &clusterv3.Cluster{AltStatName: a + b}
	return &clusterv3.Cluster{Name: name}
}

// Format verbs: %% is a literal, %[1]s and * widths give up on argument matching, %q quotes.
func Verbs(s string) {
	_ = &clusterv3.Cluster{Name: fmt.Sprintf("_%d%%", 5)} // want `gets "_\*%" .*: holds '%', outside Envoy's stat-safe set`
	_ = &clusterv3.Cluster{Name: fmt.Sprintf("_%[1]s_%[1]s", s)}
	_ = &clusterv3.Cluster{Name: fmt.Sprintf("_%*d", 3, 4)}
	_ = &clusterv3.Cluster{Name: fmt.Sprintf("_%q", s)}
	_ = &clusterv3.Cluster{Name: fmt.Sprintf("%s", "a:b")} // want `gets "a:b" \(fmt\.Sprintf format "%s"\)`
	_ = &clusterv3.Cluster{Name: fmt.Sprintf("trailing%")}
	_ = &clusterv3.Cluster{Name: fmt.Sprint("x", ":", 1)} // want `gets "x:\*" \(fmt\.Sprint\)`
	args := []any{s}
	_ = &clusterv3.Cluster{Name: fmt.Sprintf("_%v", args...)}
}

// Many alternatives: the cap keeps the ones with ':'.
func Many(k int) *clusterv3.Cluster {
	var name string
	switch k {
	case 0:
		name = "_a"
	case 1:
		name = "_b"
	case 2:
		name = "_c"
	case 3:
		name = "_d"
	case 4:
		name = "_e"
	case 5:
		name = "_f"
	case 6:
		name = "_g"
	case 7:
		name = "_h"
	case 8:
		name = "_i"
	default:
		name = "late:j"
	}
	suffix := "_1"
	if k > 3 {
		suffix = "_2"
	}
	return &clusterv3.Cluster{Name: name + suffix} // want `gets "late:j_1"`
}

// Type conversions to named string types keep the value.
type ClusterName string

func Converted() {
	n := ClusterName("conv:x")
	_ = &clusterv3.Cluster{Name: string(n)} // want `gets "conv:x"`
}
