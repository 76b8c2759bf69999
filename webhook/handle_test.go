package webhook

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// TestHandlePanic checks that a handler's panic is answered with a 500 carrying the request's
// uid, as controller-runtime's admission.Webhook answers it, and goes through when recovery is off.
func TestHandlePanic(t *testing.T) {
	panics := admission.HandlerFunc(func(context.Context, admission.Request) admission.Response { panic("boom") })
	req := request("CREATE", kuma("MeshTimeout", "kuma-system", "t1", nil, nil), nil)
	r := NewHTTPHandler(panics).(*reviewHandler).handle(context.Background(), &req, nil)
	if r.Allowed || r.Result == nil || r.Result.Code != http.StatusInternalServerError ||
		!strings.Contains(r.Result.Message, "panic: boom") || r.UID != req.UID {
		t.Errorf("answer to a panic: %+v", r)
	}
	defer func() {
		if p := recover(); p != "boom" {
			t.Errorf("recovery off: recovered %v, want the handler's panic", p)
		}
	}()
	newTestHTTPHandler(panics).(*reviewHandler).handle(context.Background(), &req, nil)
}

// TestHandleLog checks that the lines a handler logs carry the request's values, as
// controller-runtime's admission.DefaultLogConstructor adds them, and that a handler logging
// nothing gets the same answer.
func TestHandleLog(t *testing.T) {
	var lines []string
	h := NewHTTPHandler(admission.HandlerFunc(func(ctx context.Context, req admission.Request) admission.Response {
		log := logf.FromContext(ctx)
		log.Info("judged", "outcome", "allowed")
		log.V(1).Info("not written")
		log.WithName("inner").WithValues("k", "v").Info("named")
		return admission.Allowed("")
	})).(*reviewHandler)
	h.log = funcr.New(func(prefix, args string) { lines = append(lines, prefix+" "+args) }, funcr.Options{}).WithName("admission")
	req := request("CREATE", kuma("MeshTimeout", "kuma-system", "t1", nil, nil), nil)
	resp := h.handle(context.Background(), &req, nil)
	if !resp.Allowed || resp.UID != req.UID || resp.Result == nil || resp.Result.Code != http.StatusOK {
		t.Errorf("answer %+v, want allowed and completed", resp)
	}
	if len(lines) != 2 {
		t.Fatalf("lines %q, want 2", lines)
	}
	for _, want := range []string{`"requestID"="` + string(req.UID) + `"`, `"namespace"="kuma-system"`, `"name"="t1"`, `"user"=`, `"resource"=`, `"object"=`} {
		for _, l := range lines {
			if !strings.Contains(l, want) {
				t.Errorf("line %q lacks %s", l, want)
			}
		}
	}
	if !strings.Contains(lines[0], `"msg"="judged"`) || !strings.Contains(lines[0], `"outcome"="allowed"`) ||
		!strings.HasPrefix(lines[1], "admission/inner ") || !strings.Contains(lines[1], `"k"="v"`) {
		t.Errorf("lines %q", lines)
	}
	// Without a logger, nothing breaks.
	h.log = logr.Discard()
	if resp := h.handle(context.Background(), &req, nil); !resp.Allowed {
		t.Errorf("answer without a logger: %+v", resp)
	}
}
