package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kriguard/kriguard/rules"
)

// marshalReview is the answer as json.Marshal writes it: the reference appendReview is held to.
func marshalReview(t testing.TB, r admissionv1.AdmissionResponse, gvk schema.GroupVersionKind) []byte {
	t.Helper()
	review := admissionv1.AdmissionReview{Response: &r}
	review.SetGroupVersionKind(gvk)
	out, err := json.Marshal(review)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// TestAppendReview checks that the answers appendReview writes are json.Marshal's, byte for byte,
// and that it leaves the others to it.
func TestAppendReview(t *testing.T) {
	const uid = types.UID("6f1b0d5c-1d8a-4f7e-b8f5-0d2b7b6f9c11")
	v1 := admissionv1.SchemeGroupVersion.WithKind("AdmissionReview")
	v1beta1 := admissionv1beta1.SchemeGroupVersion.WithKind("AdmissionReview")
	patched := admission.Patched("", jsonpatch.Operation{Operation: "add", Path: "/metadata/annotations", Value: map[string]string{"kriguard.io/kri": "kri_mt_a_b_c_d_"}})
	withUID := func(r admission.Response, uid types.UID) admissionv1.AdmissionResponse {
		if err := r.Complete(admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{UID: uid}}); err != nil {
			t.Fatal(err)
		}
		return r.AdmissionResponse
	}
	for _, tc := range []struct {
		name string
		resp admissionv1.AdmissionResponse
		gvk  schema.GroupVersionKind
		fast bool
	}{
		{"allowed", withUID(admission.Allowed(""), uid), v1, true},
		{"v1beta1", withUID(admission.Allowed(""), uid), v1beta1, true},
		{"patched", withUID(patched, uid), v1, true},
		{"no status", admissionv1.AdmissionResponse{UID: uid, Allowed: true}, v1, true},
		{"code 0", admissionv1.AdmissionResponse{UID: uid, Result: &metav1.Status{}}, v1, true},
		{"empty uid", withUID(admission.Allowed(""), ""), v1, true},
		{"no group", withUID(admission.Allowed(""), uid), schema.GroupVersionKind{Version: "v1", Kind: "AdmissionReview"}, true},
		{"no version", withUID(admission.Allowed(""), uid), schema.GroupVersionKind{Group: "g", Kind: "AdmissionReview"}, true},
		{"no group or version", withUID(admission.Allowed(""), uid), schema.GroupVersionKind{Kind: "AdmissionReview"}, true},
		{"no kind", withUID(admission.Allowed(""), uid), schema.GroupVersionKind{Version: "v1"}, false},
		{"uid to escape", withUID(admission.Allowed(""), `a"<é>`), v1, false},
		{"message", withUID(admission.Allowed("fine"), uid), v1, false},
		{"denied", withUID(admission.Denied("no"), uid), v1, false},
		{"errored", withUID(admission.Errored(http.StatusBadRequest, http.ErrBodyNotAllowed), uid), v1, false},
		{"warnings", withUID(admission.Allowed("").WithWarnings("w"), uid), v1, false},
		{"empty warnings", withUID(admission.Allowed("").WithWarnings(), uid), v1, true},
		{"audit annotations", admissionv1.AdmissionResponse{UID: uid, Allowed: true, AuditAnnotations: map[string]string{"a": "b"}}, v1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := appendReview([]byte("prefix"), &tc.resp, &tc.gvk)
			if ok != tc.fast {
				t.Fatalf("appendReview wrote it: %v, want %v", ok, tc.fast)
			}
			if !ok {
				if string(got) != "prefix" {
					t.Errorf("appendReview wrote %q without taking the answer", got)
				}
				return
			}
			if want := marshalReview(t, tc.resp, tc.gvk); !bytes.Equal(got[len("prefix"):], want) {
				t.Errorf("appendReview:\n %s\nwant\n %s", got[len("prefix"):], want)
			}
		})
	}
}

// FuzzAppendReview holds appendReview to json.Marshal for any UID, code, patch and version.
func FuzzAppendReview(f *testing.F) {
	f.Add("6f1b0d5c-1d8a-4f7e-b8f5-0d2b7b6f9c11", true, true, int32(200), []byte(`[{"op":"add"}]`), "JSONPatch", "admission.k8s.io", "v1", "AdmissionReview")
	f.Add("", false, false, int32(0), []byte(nil), "", "", "", "")
	f.Add("\u2028<", false, true, int32(-1), []byte{0xff}, "a\"b", "g/h", "v\x00", "K&")
	f.Fuzz(func(t *testing.T, uid string, allowed, hasStatus bool, code int32, patch []byte, patchType, group, version, kind string) {
		r := admissionv1.AdmissionResponse{UID: types.UID(uid), Allowed: allowed, Patch: patch}
		if hasStatus {
			r.Result = &metav1.Status{Code: code}
		}
		if patchType != "" {
			pt := admissionv1.PatchType(patchType)
			r.PatchType = &pt
		}
		gvk := schema.GroupVersionKind{Group: group, Version: version, Kind: kind}
		got, ok := appendReview(nil, &r, &gvk)
		if !ok {
			return
		}
		if want := marshalReview(t, r, gvk); !bytes.Equal(got, want) {
			t.Errorf("appendReview:\n %s\nwant\n %s", got, want)
		}
	})
}

// TestAllowedIsAdmissionAllowed holds allowed, which shares one status among all answers, to
// admission.Allowed("").WithWarnings: the same response, and the same bytes written.
func TestAllowedIsAdmissionAllowed(t *testing.T) {
	for _, warnings := range [][]string{nil, {}, {"one"}, {"one", "two"}} {
		got, want := allowed(warnings...), admission.Allowed("").WithWarnings(warnings...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("allowed(%q) = %+v, want %+v", warnings, got, want)
		}
		got.UID, want.UID = "u", "u"
		var gotBody, wantBody bytes.Buffer
		writeReview(&discard{body: &gotBody}, got, nil)
		writeReview(&discard{body: &wantBody}, want, nil)
		if gotBody.String() != wantBody.String() {
			t.Errorf("allowed(%q) writes %s, admission.Allowed %s", warnings, gotBody.Bytes(), wantBody.Bytes())
		}
	}
	if *allowedStatus != (metav1.Status{Code: http.StatusOK}) {
		t.Errorf("allowedStatus changed: %+v", *allowedStatus)
	}
}

// TestShrinkLeavesTheStatus checks that an answer cut to MaxResponseBytes gets a status of its own:
// the one it had may be shared by every allowed answer (allowedStatus), read by other reviews
// meanwhile.
func TestShrinkLeavesTheStatus(t *testing.T) {
	long := strings.Repeat("m", 2*MaxResponseBytes)
	st := &metav1.Status{Code: http.StatusUnprocessableEntity, Message: long,
		Details: &metav1.StatusDetails{Name: long, Causes: []metav1.StatusCause{{Message: "a"}, {Message: "b"}}}}
	r := admissionv1.AdmissionResponse{Result: st}
	shrink(&r)
	if r.Result == st || len(st.Message) != len(long) || len(st.Details.Name) != len(long) || len(st.Details.Causes) != 2 {
		t.Errorf("shrink wrote into the status it was given")
	}
	if len(r.Result.Message) > 5<<10 || len(r.Result.Details.Name) > 2*rules.MaxValueBytes || len(r.Result.Details.Causes) != 1 {
		t.Errorf("shrink did not cut the answer's status: message %d bytes, name %d, %d causes",
			len(r.Result.Message), len(r.Result.Details.Name), len(r.Result.Details.Causes))
	}

	// An allowed answer whose warnings are cut: written within the bound, allowedStatus untouched.
	resp := allowed(long, long, long, long)
	resp.UID = "u"
	var body bytes.Buffer
	writeReview(&discard{body: &body}, resp, nil)
	if body.Len() > MaxResponseBytes {
		t.Errorf("answer of %d bytes, more than %d", body.Len(), MaxResponseBytes)
	}
	if *allowedStatus != (metav1.Status{Code: http.StatusOK}) || resp.Result != allowedStatus {
		t.Errorf("writing a cut answer changed allowedStatus: %+v", *allowedStatus)
	}
}

// TestPlainJSON checks plainJSON for every byte: it takes printable ASCII but for the five bytes
// encoding/json escapes, and json.Marshal writes each string it takes as it is, quoted.
func TestPlainJSON(t *testing.T) {
	for b := range 256 {
		s := string([]byte{'a', byte(b), 'z'})
		want := b >= 0x20 && b <= 0x7e && !strings.ContainsRune(`"\<>&`, rune(b))
		if plainJSON(s) != want {
			t.Errorf("plainJSON(%q) = %v, want %v", s, !want, want)
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if want && string(out) != `"`+s+`"` {
			t.Errorf("json.Marshal(%q) = %s: not plain", s, out)
		}
	}
	if !plainJSON("") {
		t.Error(`plainJSON("") = false`)
	}
}
