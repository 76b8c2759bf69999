package webhook

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	kjson "sigs.k8s.io/json"

	"github.com/kriguard/kriguard/internal/jsonscan"
	"github.com/kriguard/kriguard/rules"
)

// fullRequest is a review's request with every field the API server writes set.
func fullRequest() admission.Request {
	dry := true
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:                "705ab4f5-6393-11e8-b7cc-42010a800002",
		Kind:               metav1.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTimeout"},
		Resource:           metav1.GroupVersionResource{Group: "kuma.io", Version: "v1alpha1", Resource: "meshtimeouts"},
		SubResource:        "status",
		RequestKind:        &metav1.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTimeout"},
		RequestResource:    &metav1.GroupVersionResource{Group: "kuma.io", Version: "v1alpha1", Resource: "meshtimeouts"},
		RequestSubResource: "status",
		Name:               "t1",
		Namespace:          "kuma-system",
		Operation:          admissionv1.Update,
		UserInfo: authenticationv1.UserInfo{
			Username: "system:serviceaccount:kuma-system:kuma-control-plane",
			UID:      "1b2c",
			Groups:   []string{"system:serviceaccounts", "system:authenticated"},
			Extra:    map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/pod-name": {"cp-0"}, "scopes": {}},
		},
		Object:    runtime.RawExtension{Raw: []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"t1"}}`)},
		OldObject: runtime.RawExtension{Raw: []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"t1","labels":{"a":"b"}}}`)},
		DryRun:    &dry,
		Options:   runtime.RawExtension{Raw: []byte(`{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"kubectl"}`)},
	}}
}

// reviewSeeds are reviews as the API server writes them, with every field, and hostile shapes of
// them that the reading by hand must leave to the decoder or read as it does.
func reviewSeeds(tb testing.TB) [][]byte {
	full := string(reviewBody(tb, fullRequest()))
	const head = `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1",`
	deep := strings.Repeat("[", jsonscan.MaxDepth-5) + strings.Repeat("]", jsonscan.MaxDepth-5)
	tooDeep := strings.Repeat("[", jsonscan.MaxDepth) + strings.Repeat("]", jsonscan.MaxDepth)
	hugeKey := `"` + strings.Repeat("k", 70000) + `"`
	seeds := []string{
		full,
		strings.Replace(full, `"dryRun":true`, `"dryRun":false`, 1),
		strings.Replace(full, `"dryRun":true`, `"dryRun":null`, 1),
		strings.Replace(full, `"dryRun":true`, `"dryRun":"true"`, 1),
		strings.Replace(full, `"object":{`, `"object":null,"x":{`, 1),
		strings.Replace(full, `"uid":"705ab4f5`, `"uid":"\u0037\n05ab4f5`, 1),
		strings.Replace(full, `"uid":"705ab4f5`, `"u\u0069d":"x","uid":"705ab4f5`, 1),
		strings.Replace(full, `"name":"t1",`, `"name":"t1","name":"t2",`, 1),
		strings.Replace(full, `"groups":[`, `"groups":null,"groups":[`, 1),
		strings.Replace(full, `"groups":[`, `"groups":[null,`, 1),
		strings.Replace(full, `"groups":[`, `"groups":[1,`, 1),
		strings.Replace(full, `"scopes":[]`, `"scopes":null,"scopes":["a"],"sc\u006fpes":["b"],"\ud800":[]`, 1),
		strings.Replace(full, `"scopes":[]`, `"scopes":`+deep, 1),
		strings.Replace(full, `"scopes":[]`, `"scopes":[`+deep+`]`, 1),
		strings.Replace(full, `"scopes":[]`, `"scopes":{"a":`+deep+`}`, 1),
		strings.Replace(full, `"scopes":[]`, `"scopes":`+tooDeep, 1),
		strings.Replace(full, `"scopes":[]`, hugeKey+`:[]`, 1),
		strings.Replace(full, `"options":{`, hugeKey+`:1,"options":{`, 1),
		strings.Replace(full, `"kind":{"group"`, `"kind":{"group":"a","group"`, 1),
		strings.Replace(full, `"kind":{"group"`, `"kind":null,"x":{"group"`, 1),
		strings.Replace(full, `"requestKind":{`, `"requestKind":null,"x":{`, 1),
		strings.Replace(full, `"requestResource":{`, `"requestResource":null,"x":{`, 1),
		strings.Replace(full, `"userInfo":{`, `"userInfo":null,"x":{`, 1),
		strings.Replace(full, `"extra":{`, `"extra":null,"x":{`, 1),
		strings.Replace(full, `"extra":{`, `"extra":[],"x":{`, 1),
		strings.Replace(full, `"username":"`, `"username":5,"x":"`, 1),
		strings.Replace(full, `"request":{`, `"response":{"uid":"1","allowed":true},"request":{`, 1),
		strings.Replace(full, `"request":{`, `"request":{"Kind":{"kind":"Other"},`, 1),
		full[:len(full)-1] + `,"request":{"uid":"2"}}`,
		full + ` x`,
		full + " \n",
		full[:len(full)/2],
		strings.Replace(full, `"object":{`, `"object":{"a":1e999,`, 1),
		head + `"request":null}`,
		head + `"request":{}}`,
		head + `"request":{"uid":"1","object":{},"oldObject":[],"options":"x"}}`,
		head + `"request": { "uid" : "1" , "userInfo" : { "groups" : [ ] , "extra" : { } } } }`,
		head + `"request":{"uid":"1"},"apiVersion":"admission.k8s.io/v1beta1"}`,
		head + `"kind":null,"request":{"uid":"1"}}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1","request":{"uid":"1","operation":"DELETE","object":null}}`,
	}
	out := make([][]byte, len(seeds))
	for i, s := range seeds {
		out[i] = []byte(s)
	}
	return out
}

// FuzzReadReview holds the reading by hand to the decoder it stands in for: what it reads, the
// decoder decodes to the same review; what it gives up on, it leaves as it found it.
func FuzzReadReview(f *testing.F) {
	for _, s := range reviewSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var fast, slow admission.Request
		fr := unversionedReview{}
		fr.Request = &fast.AdmissionRequest
		fr.SetGroupVersionKind(admissionv1.SchemeGroupVersion.WithKind("AdmissionReview"))
		sr := fr
		sr.Request = &slow.AdmissionRequest
		r := reviewReader{}
		if !r.readReview(raw, &fr) {
			want := unversionedReview{}
			want.Request = &admissionv1.AdmissionRequest{}
			want.SetGroupVersionKind(admissionv1.SchemeGroupVersion.WithKind("AdmissionReview"))
			if !reflect.DeepEqual(fr, want) {
				t.Fatalf("gave up, but left %+v", fr)
			}
			return
		}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &sr); err != nil {
			t.Fatalf("read %q by hand; the decoder: %v", raw, err)
		}
		if !reflect.DeepEqual(fr, sr) {
			t.Fatalf("read by hand:\n%+v\n%+v\nthe decoder:\n%+v\n%+v", fr, *fr.Request, sr, *sr.Request)
		}
	})
}

// The reviews the API server writes are read by hand, every field of them.
func TestReadReview(t *testing.T) {
	want := fullRequest()
	for _, v := range []string{"v1", "v1beta1"} {
		raw := []byte(strings.Replace(string(reviewBody(t, want)), "admission.k8s.io/v1", "admission.k8s.io/"+v, 1))
		var got admission.Request
		ar := unversionedReview{}
		ar.Request = &got.AdmissionRequest
		r := reviewReader{}
		if !r.readReview(raw, &ar) {
			t.Fatalf("%s: not read by hand", v)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read\n%+v\nwant\n%+v", v, got, want)
		}
		if ar.APIVersion != "admission.k8s.io/"+v || ar.Kind != "AdmissionReview" {
			t.Errorf("%s: read %s %s", v, ar.APIVersion, ar.Kind)
		}
	}
}

// stopAfter is a context that ends after its Err has been asked n times.
type stopAfter struct {
	context.Context
	n int
}

func (c *stopAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.DeadlineExceeded
	}
	return nil
}

// A review whose decision's time is up stops being read before its next object, and is decoded by
// nothing else.
func TestDecodeReviewStops(t *testing.T) {
	raw := reviewBody(t, fullRequest())
	for n, read := range map[int]string{0: "", 1: "object", 2: "object and oldObject"} {
		var req admission.Request
		ar := unversionedReview{}
		ar.Request = &req.AdmissionRequest
		_, err := decodeReview(&stopAfter{context.Background(), n}, raw, &ar, nil)
		if !errors.Is(err, errStopped) {
			t.Fatalf("stopped after %d checks: error %v, want errStopped", n, err)
		}
		if req.Object.Raw != nil || req.OldObject.Raw != nil {
			t.Errorf("stopped after reading %q: left a request behind: %+v", read, req)
		}
	}
	var req admission.Request
	ar := unversionedReview{}
	ar.Request = &req.AdmissionRequest
	if _, err := decodeReview(&stopAfter{context.Background(), 3}, raw, &ar, nil); err != nil || req.Options.Raw == nil {
		t.Errorf("not stopped: %v, %+v", err, req)
	}
}

// The Validator and the Mutator have a review's objects read in the review's pass when the
// request names its kind and operation first, as the API server writes it, and the rules are sure
// of the object; every other review is read as before, and decided alike.
func TestObjectsReadInThePass(t *testing.T) {
	create := string(reviewBody(t, request("CREATE", benchTimeout, nil)))
	update := string(reviewBody(t, request("UPDATE", benchTimeout.with("generateName", "t-"), benchTimeout)))
	st := request("UPDATE", benchTimeout, benchTimeout)
	st.SubResource = "status"
	status := string(reviewBody(t, st))
	kind := regexp.MustCompile(`"kind":\{"group":"kuma.io","version":"v1alpha1","kind":"MeshTimeout"\},`)
	if !kind.MatchString(create) || !strings.Contains(create, `"object":{`) {
		t.Fatalf("the review is not written as this test expects: %s", create)
	}
	kindLast := kind.ReplaceAllString(create, "")
	kindLast = kindLast[:len(kindLast)-2] + `,` + strings.TrimSuffix(kind.FindString(create), ",") + `}}`
	for _, tc := range []struct {
		name, review string
		// object and old say whether the validating decision's objects are read in the pass;
		// mutated, whether the mutating one's object is.
		object, old, mutated bool
	}{
		{"create", create, true, false, true},
		{"update", update, true, true, true},
		{"delete", strings.Replace(create, `"operation":"CREATE"`, `"operation":"DELETE"`, 1), false, false, false},
		{"status", status, true, true, false},
		{"kind after the object", kindLast, false, false, false},
		{"an escaped key in the object", strings.Replace(create, `"metadata":{`, `"met\u0061data":{`, 1), false, false, false},
		{"an escaped key in the request", strings.Replace(create, `"object":{`, `"obj\u0065ct":{`, 1), false, false, false},
		{"a member twice", strings.Replace(create, `"metadata":{`, `"metadata":{"name":"a",`, 1), false, false, false},
		{"another kind", strings.Replace(create, `"kind":"MeshTimeout","metadata"`, `"kind":"MeshRetry","metadata"`, 1), false, false, false},
		{"not an object", strings.Replace(create, `"object":{`, `"object":[1],"x":{`, 1), false, false, false},
		{"null", strings.Replace(create, `"object":{`, `"object":null,"x":{`, 1), false, false, false},
		{"a bad label", strings.Replace(create, `"kuma.io/mesh":"mesh-1"`, `"kuma.io/mesh":5`, 1), false, false, false},
		{"trailing bytes", create + ` x`, false, false, false},
		{"an unguarded kind", strings.ReplaceAll(create, "MeshTimeout", "Other"), false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []struct {
				h                objectHandler
				wantObj, wantOld bool
			}{
				{NewValidator(rules.DefaultConfig()), tc.object, tc.old},
				{NewMutator(rules.DefaultConfig()).WithRecordKRI(rules.RecordKRIAdmission), tc.mutated, false},
			} {
				cfg, phase := c.h.objectReads()
				reads := newObjectReads(cfg, phase)
				var fast, plain admission.Request
				fr, pr := unversionedReview{}, unversionedReview{}
				fr.Request, pr.Request = &fast.AdmissionRequest, &plain.AdmissionRequest
				_, ferr := decodeReview(context.Background(), []byte(tc.review), &fr, reads)
				_, perr := decodeReview(context.Background(), []byte(tc.review), &pr, nil)
				if (ferr == nil) != (perr == nil) || !reflect.DeepEqual(fr, pr) {
					t.Fatalf("%T: the review with its objects read: %v %+v, without: %v %+v", c.h, ferr, fast, perr, plain)
				}
				if (reads.object != (rules.Read{})) != c.wantObj || (reads.oldObject != (rules.Read{})) != c.wantOld {
					t.Errorf("%T: object read %v, oldObject read %v; want %v, %v", c.h, reads.object != (rules.Read{}), reads.oldObject != (rules.Read{}), c.wantObj, c.wantOld)
				}
				if ferr != nil {
					continue
				}
				got, want := c.h.handleRead(context.Background(), &fast, reads), c.h.handleRead(context.Background(), &plain, nil)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%T: decided with the objects read:\n%+v\nfrom their bytes:\n%+v", c.h, got, want)
				}
			}
		})
	}
}

// A review whose time is up while its objects are read stops as one read as bytes does, with
// nothing read.
func TestObjectsReadStops(t *testing.T) {
	raw := reviewBody(t, request("UPDATE", benchTimeout, benchTimeout))
	for n := range 2 {
		reads := newObjectReads(rules.DefaultConfig(), rules.Validate)
		var req admission.Request
		ar := unversionedReview{}
		ar.Request = &req.AdmissionRequest
		if _, err := decodeReview(&stopAfter{context.Background(), n}, raw, &ar, reads); !errors.Is(err, errStopped) {
			t.Fatalf("stopped after %d checks: error %v, want errStopped", n, err)
		}
		if reads.object != (rules.Read{}) || reads.oldObject != (rules.Read{}) || req.Object.Raw != nil {
			t.Errorf("stopped after %d checks: left objects behind: %+v %+v", n, reads, req)
		}
	}
}
