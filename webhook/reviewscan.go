package webhook

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/internal/jsonscan"
	"github.com/kriguard/kriguard/rules"
)

// reviewReader reads a review as the API server writes it, in one pass of the scanner, into what
// the decoder would make of it (sigs.k8s.io/json, case-sensitive, over admissionv1.AdmissionReview):
// a tenth of the decoder's reflection (docs/performance.md). It gives up on anything it is unsure
// of, which the decoder then reads: a key with an escape (outside userInfo.extra), a member the
// decoder reads given twice, a value of another type than the field's, a response, a request that
// is null, invalid JSON. FuzzDecodeReview holds the two to the same result.
type reviewReader struct {
	s   jsonscan.Scanner
	ctx context.Context
	// stopped says that ctx ended while the review was read: the reading stopped, and no decoder
	// is to read it again.
	stopped bool
	// reads, when set, has the request's object and oldObject read by the rules in the review's
	// pass, as its handler's decision decodes them (objectReads); nil reads them as bytes only.
	reads *objectReads
	// data is the review being read.
	data []byte
}

// objectReads are the objects of a review read in the review's pass (rules.Config.ReadObject),
// for a handler whose decision decodes them (objectHandler: the Validator and the Mutator), which
// then does not decode their bytes again (docs/performance.md, "Change 16"). A handler that does
// not decide them, such as an allow-all one, has none: its reviews are read as before.
type objectReads struct {
	cfg   *rules.Config
	phase rules.Phase
	*readObjects
}

// newObjectReads returns the objectReads of a review for cfg and phase, with nothing read yet.
func newObjectReads(cfg *rules.Config, phase rules.Phase) *objectReads {
	return &objectReads{cfg: cfg, phase: phase, readObjects: &readObjects{}}
}

// readObjects are what objectReads read: apart from the rest of the review's serve (servedObjects),
// so that each of its allocations is at most 512 bytes, the largest the runtime allocates without
// a header of the type's layout, a path of its own every review would run (docs/performance.md,
// "Change 22").
type readObjects struct {
	// object and oldObject are what was read, the zero Read when the object was read as bytes
	// only.
	object, oldObject rules.Read
	// space holds the object read into object; the old object has one of its own.
	space rules.ReadSpace
}

// readReview reads raw into ar, whose request must be a zero AdmissionRequest, and reports whether
// it did; when it did not, ar is as it was. It checks ctx before each object of the request, the
// large members, and stops once ctx has ended (r.stopped).
func (r *reviewReader) readReview(raw []byte, ar *unversionedReview) bool {
	r.s.Reset(raw)
	r.data = raw
	tm, req := ar.TypeMeta, ar.Request
	var seen uint8
	ok := r.s.Object(false, func(key []byte) bool {
		switch string(key[1 : len(key)-1]) {
		case "kind":
			return once(&seen, 1) && r.str(&ar.Kind)
		case "apiVersion":
			return once(&seen, 2) && r.str(&ar.APIVersion)
		case "request":
			return once(&seen, 4) && r.request(req)
		case "response":
			return false
		}
		_, ok := r.s.Value()
		return ok
	})
	if !ok || !r.s.End() {
		ar.TypeMeta = tm
		*req = admissionv1.AdmissionRequest{}
		if r.reads != nil {
			r.reads.object, r.reads.oldObject = rules.Read{}, rules.Read{}
		}
		return false
	}
	return true
}

// once sets bit in seen and reports whether it was not set: a member read twice is left to the
// decoder, which merges or replaces what it read first.
func once[T uint8 | uint16](seen *T, bit T) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// null passes a null, if one comes next, and reports whether it did. A field given null keeps its
// zero value, as in the decoder (which sets pointers, slices and maps to nil, and leaves the rest,
// here zero, as it is).
func (r *reviewReader) null() bool {
	if c, _ := r.s.Peek(); c == 'n' {
		return r.s.Literal("null")
	}
	return false
}

// str reads a string, or null, into to.
func (r *reviewReader) str(to *string) bool {
	if r.null() {
		return true
	}
	v, ok := r.s.String()
	*to = v
	return ok
}

// request reads the request object into req.
func (r *reviewReader) request(req *admissionv1.AdmissionRequest) bool {
	if c, _ := r.s.Peek(); c != '{' {
		return false // null makes the decoder drop the request
	}
	var seen uint16
	return r.s.Object(false, func(key []byte) bool {
		switch string(key[1 : len(key)-1]) {
		case "uid":
			return once(&seen, 1<<0) && r.str((*string)(&req.UID))
		case "kind":
			return once(&seen, 1<<1) && r.gvk(&req.Kind)
		case "resource":
			return once(&seen, 1<<2) && r.gvr(&req.Resource)
		case "subResource":
			return once(&seen, 1<<3) && r.str(&req.SubResource)
		case "requestKind":
			if !once(&seen, 1<<4) {
				return false
			}
			if r.null() {
				return true
			}
			req.RequestKind = &metav1.GroupVersionKind{}
			return r.gvk(req.RequestKind)
		case "requestResource":
			if !once(&seen, 1<<5) {
				return false
			}
			if r.null() {
				return true
			}
			req.RequestResource = &metav1.GroupVersionResource{}
			return r.gvr(req.RequestResource)
		case "requestSubResource":
			return once(&seen, 1<<6) && r.str(&req.RequestSubResource)
		case "name":
			return once(&seen, 1<<7) && r.str(&req.Name)
		case "namespace":
			return once(&seen, 1<<8) && r.str(&req.Namespace)
		case "operation":
			return once(&seen, 1<<9) && r.str((*string)(&req.Operation))
		case "userInfo":
			return once(&seen, 1<<10) && r.userInfo(&req.UserInfo)
		case "object":
			return once(&seen, 1<<11) && r.object(&req.Object, req, false)
		case "oldObject":
			return once(&seen, 1<<12) && r.object(&req.OldObject, req, true)
		case "options":
			return once(&seen, 1<<13) && r.raw(&req.Options)
		case "dryRun":
			if !once(&seen, 1<<14) {
				return false
			}
			switch c, _ := r.s.Peek(); c {
			case 'n':
				return r.s.Literal("null")
			case 't':
				t := true
				req.DryRun = &t
				return r.s.Literal("true")
			case 'f':
				f := false
				req.DryRun = &f
				return r.s.Literal("false")
			}
			return false
		}
		_, ok := r.s.Value()
		return ok
	})
}

// raw reads an object, or any value, into to as a copy (the body's buffer is reused once the
// review is read), as RawExtension's UnmarshalJSON does; null leaves it nil. It stops first when
// ctx has ended.
func (r *reviewReader) raw(to *runtime.RawExtension) bool {
	if r.ctx != nil && r.ctx.Err() != nil {
		r.stopped = true
		return false
	}
	if r.null() {
		return true
	}
	v, ok := r.s.Value()
	if ok {
		to.Raw = append([]byte(nil), v...)
	}
	return ok
}

// object reads request.object (old: oldObject) into to, as raw does. When the handler's decision
// decodes it (objectReads), and the request has named its kind and operation (the API server
// writes both before the objects), the rules read it in this pass, unless they are unsure of it
// (rules.Config.ReadObject): then, and in every other case, raw passes it.
func (r *reviewReader) object(to *runtime.RawExtension, req *admissionv1.AdmissionRequest, old bool) bool {
	if r.reads == nil || !r.decides(req, old) {
		return r.raw(to)
	}
	if r.ctx != nil && r.ctx.Err() != nil {
		r.stopped = true
		return false
	}
	gk := schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
	read, space := &r.reads.object, &r.reads.space
	if old {
		read, space = &r.reads.oldObject, nil
	} else {
		space.Expect(req.Name, req.Namespace)
	}
	v, ok := r.reads.cfg.ReadObjectIn(&r.s, r.data, gk, r.reads.phase, read, space)
	if !ok {
		return r.raw(to)
	}
	to.Raw = v
	return true
}

// decides reports whether the handler's decision on req decodes its object (old: oldObject), as
// far as the members read so far say: the validating decision decodes the object of a CREATE or
// an UPDATE and the old object of an UPDATE, the mutating one the object of a CREATE or an UPDATE
// of no subresource.
func (r *reviewReader) decides(req *admissionv1.AdmissionRequest, old bool) bool {
	if req.Kind.Kind == "" {
		return false
	}
	switch r.reads.phase {
	case rules.Validate:
		return req.Operation == admissionv1.Update || !old && req.Operation == admissionv1.Create
	case rules.Mutate:
		return !old && req.SubResource == "" && (req.Operation == admissionv1.Create || req.Operation == admissionv1.Update)
	}
	return false
}

// gvk reads a GroupVersionKind object, or null.
func (r *reviewReader) gvk(to *metav1.GroupVersionKind) bool {
	return r.groupVersion(&to.Group, &to.Version, "kind", &to.Kind)
}

// gvr reads a GroupVersionResource object, or null.
func (r *reviewReader) gvr(to *metav1.GroupVersionResource) bool {
	return r.groupVersion(&to.Group, &to.Version, "resource", &to.Resource)
}

// groupVersion reads an object of a group, a version and the member named third, or null.
func (r *reviewReader) groupVersion(group, version *string, third string, to *string) bool {
	if r.null() {
		return true
	}
	var seen uint8
	return r.s.Object(false, func(key []byte) bool {
		switch string(key[1 : len(key)-1]) {
		case "group":
			return once(&seen, 1) && r.str(group)
		case "version":
			return once(&seen, 2) && r.str(version)
		case third:
			return once(&seen, 4) && r.str(to)
		}
		_, ok := r.s.Value()
		return ok
	})
}

// userInfo reads the requester, or null.
func (r *reviewReader) userInfo(to *authenticationv1.UserInfo) bool {
	if r.null() {
		return true
	}
	var seen uint8
	return r.s.Object(false, func(key []byte) bool {
		switch string(key[1 : len(key)-1]) {
		case "username":
			return once(&seen, 1) && r.str(&to.Username)
		case "uid":
			return once(&seen, 2) && r.str(&to.UID)
		case "groups":
			if !once(&seen, 4) {
				return false
			}
			if r.null() {
				return true
			}
			var ok bool
			to.Groups, ok = r.stringList()
			return ok
		case "extra":
			return once(&seen, 8) && r.extra(&to.Extra)
		}
		_, ok := r.s.Value()
		return ok
	})
}

// stringList reads an array of strings: empty, not nil, when it has none, as the decoder makes it.
func (r *reviewReader) stringList() ([]string, bool) {
	l := []string{}
	return l, r.s.Array(func() bool {
		v, ok := r.s.String() // null, which the decoder makes "", is left to it
		l = append(l, v)
		return ok
	})
}

// extra reads userInfo.extra, a map of arrays of strings, or null. A key given twice keeps its last
// value, as in the decoder; keys may hold escapes.
func (r *reviewReader) extra(to *map[string]authenticationv1.ExtraValue) bool {
	if r.null() {
		return true
	}
	if c, _ := r.s.Peek(); c != '{' {
		return false
	}
	m := map[string]authenticationv1.ExtraValue{}
	*to = m
	return r.s.Object(true, func(key []byte) bool {
		k, ok := r.s.Unquote(key)
		if !ok {
			return false
		}
		if r.null() {
			m[k] = nil
			return true
		}
		v, ok := r.stringList()
		m[k] = v
		return ok
	})
}
