package analyzer

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// The elements of a slice as the base of a method path (ParamSink.Method, sinkMethodsFact): Kuma's
// listeners.TcpProxyDeprecated(statsName string, clusters ...envoy.Cluster) copies cluster.Name()
// of each element of its variadic parameter towards the TCP proxy's cluster, and
// listeners/v3.TcpProxyConfigurer writes c.Splits[0].ClusterName() of its field Splits. The path
// "[].Name" is the Name() of each element: a sink of a parameter or field of slice type, checked
// where the slice is handed over or stored, element by element.

// elemSeg is the segment of a method path that stands for the elements of a slice.
const elemSeg = "[]"

// elemPaths lists the method paths of the elements of t, a slice of interface type, each behind
// elemSeg; nil for any other type.
func (st *state) elemPaths(t types.Type) []string {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return nil
	}
	var out []string
	for _, p := range st.methodPaths(s.Elem()) {
		out = append(out, elemSeg+"."+p)
	}
	return out
}

// isIfaceSlice reports whether t is a slice of interface type.
func isIfaceSlice(t types.Type) bool {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	_, ok = s.Elem().Underlying().(*types.Interface)
	return ok
}

// evalElemsMethod is what method path (behind the elements segment) of the elements of slice v
// may return: each element the package stores in it, evaluated as the call would be there. A slice
// that may hold more (a parameter, a slice of another package) adds its own base, when it has one,
// or a hole.
func (st *state) evalElemsMethod(fn *ssa.Function, v ssa.Value, path string) []tmpl {
	vals, unknown := st.elemStores(fn, v)
	var out []tmpl
	for _, va := range vals {
		out = append(out, st.evalMethod(va.fn, va.v, path)...)
	}
	if unknown || len(out) == 0 {
		if t, ok := st.methodBase(fn, v, elemSeg+"."+path, 0); ok {
			out = append(out, t)
		} else {
			out = append(out, hole()...)
		}
	}
	return capAlts(out)
}

// elemBase is the base of method path called on an element of a slice (s[i].M(), or the value of
// a range over s): the same path of the slice's elements, when the slice has a base.
func (st *state) elemBase(fn *ssa.Function, ia *ssa.IndexAddr, path string, depth int) (tmpl, bool) {
	if _, ok := ia.X.Type().Underlying().(*types.Slice); !ok || strings.HasPrefix(path, elemSeg) {
		return tmpl{}, false
	}
	return st.methodBase(fn, ia.X, elemSeg+"."+path, depth)
}

// callOn spells the call of method path on x for humans: "c.Name()", "clusters[i].Name()".
func callOn(x, path string) string {
	if strings.HasPrefix(path, elemSeg) {
		return x + methodCalls(path)
	}
	return x + "." + methodCalls(path)
}

// paramMethod is the result of method name called on v, a parameter or an element of one, as a
// method sink of the parameter (partMethod) even where the package sees implementations of the
// method: the callers may hand it a type the package does not see (Kuma's listeners sees
// envoy.ClusterImpl, its generators pass a plugins_xds.Cluster). Nothing for any other value.
func (st *state) paramMethod(fn *ssa.Function, v ssa.Value, name string) []tmpl {
	if t, ok := st.methodBase(fn, v, name, maxPath); ok && t.parts[0].Kind == partMethod {
		return []tmpl{t}
	}
	return nil
}

// noteNarrowGetters records the fields that the imported getters an interface call c runs return,
// when the types its receiver may hold are known (narrow): such a field, unexported in another
// package, is forwarded to the importers as a sink (pkgFact.Foreign) when it reaches one, so that
// the setters its package exports are checked where they are called — Kuma's generators hand a
// cluster named by plugins_xds.ClusterBuilder.WithName to listeners.TcpProxyDeprecated, and
// meshtls names the cluster with the same builder. A call resolved against every implementation in
// sight forwards nothing: its getters are candidates, not what the value holds.
func (st *state) noteNarrowGetters(fn *ssa.Function, c *ssa.CallCommon, callees []target) {
	if !c.IsInvoke() || len(c.Args) != 0 || len(callees) == 0 || st.concrete(fn, c.Value) == nil {
		return
	}
	for _, t := range callees {
		if t.obj == nil {
			continue
		}
		if fv := st.importedGetter(t.obj); fv != nil && !fv.Exported() {
			if st.narrowGetters == nil {
				st.narrowGetters = map[*types.Var]bool{}
			}
			st.narrowGetters[fv] = true
		}
	}
}
