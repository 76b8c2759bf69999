package webhook

import (
	"bytes"
	"slices"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// encodePatch encodes the JSON patch of resp as admission.Response.Complete does, with
// json.Marshal, but by hand for the patches the mutating webhook answers: operations whose path and
// value, a string or a map of strings, need no escaping (appendPatch). It leaves any other patch to
// Complete. json.Marshal of the one-annotation patch was more instructions than the whole mutating
// decision (docs/performance.md).
func encodePatch(resp *admission.Response) {
	if len(resp.Patches) == 0 {
		return
	}
	// Encoded on the stack, then copied once to its size: sizing it first took a pass over the
	// operations' maps of its own.
	var buf [512]byte
	p, ok := appendPatch(buf[:0], resp.Patches)
	if !ok {
		return
	}
	resp.Patch, resp.PatchType, resp.Patches = bytes.Clone(p), &jsonPatchType, nil
}

// jsonPatchType is the patchType of every patch encodePatch encodes: one for all answers, which
// only read it.
var jsonPatchType = admissionv1.PatchTypeJSONPatch

// appendPatch appends ops to b as json.Marshal writes them (TestAppendPatch, FuzzAppendPatch),
// when every operation's op and path, and its value, a string or a map of strings, are plainJSON;
// else it returns false.
func appendPatch(b []byte, ops []jsonpatch.Operation) ([]byte, bool) {
	b = append(b, '[')
	for i, op := range ops {
		if !plainJSON(op.Operation) || !plainJSON(op.Path) {
			return b, false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"op":"`...)
		b = append(b, op.Operation...)
		b = append(b, `","path":"`...)
		b = append(b, op.Path...)
		b = append(b, `","value":`...)
		switch v := op.Value.(type) {
		case string:
			if !plainJSON(v) {
				return b, false
			}
			b = appendString(b, v)
		case map[string]string:
			if v == nil {
				return b, false
			}
			b = append(b, '{')
			var buf [4]string // the keys, sorted as json.Marshal sorts them
			keys := buf[:0]
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for j, k := range keys {
				if !plainJSON(k) || !plainJSON(v[k]) {
					return b, false
				}
				if j > 0 {
					b = append(b, ',')
				}
				b = appendString(b, k)
				b = append(b, ':')
				b = appendString(b, v[k])
			}
			b = append(b, '}')
		default:
			return b, false
		}
		b = append(b, '}')
	}
	return append(b, ']'), true
}

// appendString appends s, a plainJSON string, quoted.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
