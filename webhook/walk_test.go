package webhook

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// badRefs returns n target references with the invalid section name section.
func badRefs(n int, section string) []any {
	refs := make([]any, n)
	for i := range refs {
		refs[i] = map[string]any{"targetRef": targetRef("MeshService", section)}
	}
	return refs
}

// TestRatchetComparesPlaces: a problem is pre-existing only at the same place of the old object,
// found by keys and indices; a map key with a dot is not the nested path it prints like.
func TestRatchetComparesPlaces(t *testing.T) {
	mt := func(s obj) obj {
		return kuma("MeshTimeout", "kuma-demo", "t1", map[string]string{naming.LabelMesh: "default"}, spec(s))
	}
	nested := mt(obj{"a": map[string]any{"b": map[string]any{"targetRef": targetRef("MeshService", "Bad_1")}}})
	dotted := mt(obj{"a.b": map[string]any{"targetRef": targetRef("MeshService", "Bad_1")}})
	moved := mt(obj{"to": badRefs(2, "Bad_1")[1:]})
	for _, tt := range []struct {
		name     string
		obj, old obj
		allowed  bool
	}{
		{"same place", nested, nested, true},
		{"a dotted key prints alike", dotted, nested, false},
		{"the nested path prints alike", nested, dotted, false},
		{"same list index", mt(obj{"to": badRefs(3, "Bad_1")}), mt(obj{"to": badRefs(3, "Bad_1")}), true},
		{"one more at the end", mt(obj{"to": badRefs(4, "Bad_1")}), mt(obj{"to": badRefs(3, "Bad_1")}), false},
		{"another value", mt(obj{"to": badRefs(1, "Bad_2")}), mt(obj{"to": badRefs(1, "Bad_1")}), false},
		{"same list, old has none", moved, mt(obj{"to": []any{}}), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := NewValidator(rules.DefaultConfig()).Handle(context.Background(), request(admissionv1.Update, tt.obj, tt.old))
			if resp.Allowed != tt.allowed {
				t.Fatalf("allowed = %v, want %v: %+v", resp.Allowed, tt.allowed, resp.Result)
			}
		})
	}
}

// TestLongKeyPaths: a field path through a map key of megabytes is cut to maxFieldBytes, saying
// how long it was, and the answer of an update with every problem new or every problem kept stays
// within MaxResponseBytes.
func TestLongKeyPaths(t *testing.T) {
	key := strings.Repeat("k", 1<<20)
	mt := func(section string) obj {
		return kuma("MeshTimeout", "kuma-demo", "t1", map[string]string{naming.LabelMesh: "default"},
			spec(obj{key: map[string]any{"to": badRefs(300, section)}}))
	}
	want := fmt.Sprintf("... (%d bytes in all)", len("spec.")+len(key)+len(".to[0].targetRef.sectionName"))
	for _, tt := range []struct {
		name     string
		op       admissionv1.Operation
		obj, old obj
	}{
		{"create", admissionv1.Create, mt("Bad_1"), nil},
		{"update, all new", admissionv1.Update, mt("Bad_1"), mt("Bad_2")},
		{"update, all kept", admissionv1.Update, mt("Bad_1"), mt("Bad_1")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := NewValidator(rules.DefaultConfig()).Handle(context.Background(), request(tt.op, tt.obj, tt.old))
			if resp.Allowed {
				if len(resp.Warnings) != maxWarnings || !strings.HasSuffix(resp.Warnings[maxWarnings-1], "281 more warnings") {
					t.Fatalf("%d warnings, the last %q, want %d, the last counting 281 more", len(resp.Warnings), resp.Warnings[len(resp.Warnings)-1], maxWarnings)
				}
				for _, w := range resp.Warnings {
					if len(w) > maxDetailBytes+32 {
						t.Errorf("warning of %d bytes, want it cut to %d", len(w), maxDetailBytes)
					}
				}
				return
			}
			causes := resp.Result.Details.Causes
			if len(causes) < 2 || !strings.HasSuffix(causes[0].Field, want) || len(causes[0].Field) > maxFieldBytes {
				t.Fatalf("first cause at %.80q… (%d bytes), want it cut to %d bytes ending %q", causes[0].Field, len(causes[0].Field), maxFieldBytes, want)
			}
			if last := causes[len(causes)-1]; last.Type != causeTypeMore || !strings.Contains(last.Message, "more") {
				t.Errorf("last cause %+v, want the count of the others", last)
			}
		})
	}
}

// TestWalkStopsAtDeadline: a decision whose deadline passes during the walk answers 504.
func TestWalkStopsAtDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := kuma("MeshTimeout", "kuma-demo", "t1", map[string]string{naming.LabelMesh: "default"}, spec(obj{"to": badRefs(5000, "Bad_1")}))
	resp := NewValidator(rules.DefaultConfig()).Handle(ctx, request(admissionv1.Create, o, nil))
	if resp.Allowed || resp.Result.Code != 504 {
		t.Fatalf("answer %+v, want a 504", resp.Result)
	}
}
