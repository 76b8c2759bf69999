package naming_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming"
)

// A kumaVector is a Kubernetes object and the KRI one Kuma release's own code gives it
// (kri.FromResourceMetaE over its Kubernetes resource adapter), or the error that code returned.
type kumaVector struct {
	Release string         `json:"release"`
	Rule    string         `json:"rule"`
	Source  string         `json:"source,omitempty"`
	Object  map[string]any `json:"object"`
	KRI     string         `json:"kri"`
	Error   string         `json:"error,omitempty"`
}

// kumaVectorFiles are the vectors and the release whose code computed them ("" when each line names
// its release): Kuma's public sets beside the repository, and ours (testdata/kuma-kri.jsonl:
// objects of every rule and kind, and the public sets' objects under the other release, computed by
// running each release's pkg/core/kri in a scratch module; see the file's README).
var kumaVectorFiles = []struct{ path, release string }{
	{"../../shared/kuma-kri/vectors.jsonl", "2.14"},
	{"../../shared/kuma-kri/master-348b652.sample.jsonl", "3.0"},
	{"testdata/kuma-kri.jsonl", ""},
}

func readKumaVectors(t *testing.T) []kumaVector {
	t.Helper()
	var all []kumaVector
	for _, f := range kumaVectorFiles {
		file, err := os.Open(f.path)
		if err != nil {
			t.Fatal(err)
		}
		s := bufio.NewScanner(file)
		s.Buffer(nil, 1<<20)
		for line := 1; s.Scan(); line++ {
			var v kumaVector
			if err := json.Unmarshal(s.Bytes(), &v); err != nil {
				t.Fatalf("%s:%d: %v", f.path, line, err)
			}
			if f.release != "" {
				var shared struct {
					Case string `json:"case"`
				}
				_ = json.Unmarshal(s.Bytes(), &shared)
				v.Release, v.Rule = f.release, "shared: "+shared.Case
			}
			if v.Source == "" {
				v.Source = fmt.Sprintf("%s:%d", f.path, line)
			}
			all = append(all, v)
		}
		if err := s.Err(); err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		file.Close()
	}
	return all
}

// TestKRIOfEveryRelease: for every object, each release's KRI is the one that release's code
// computes, byte for byte; a kind the release does not have, or that has no KRI, is an error of the
// kind where Kuma's code failed or gave no KRI.
func TestKRIOfEveryRelease(t *testing.T) {
	vectors := readKumaVectors(t)
	count := map[string]int{}
	for _, v := range vectors {
		r, err := naming.ParseRelease(v.Release)
		if err != nil {
			t.Fatalf("%s: %v", v.Source, err)
		}
		u := &unstructured.Unstructured{Object: v.Object}
		mesh, _ := v.Object["mesh"].(string)
		k, errs := r.ForObject(naming.WithMesh(u, mesh), u.GetKind())
		kindErr := slices.ContainsFunc(errs, func(e *field.Error) bool { return e.Field == "kind" })
		switch noKRI := v.Error != "" || v.KRI == ""; {
		case noKRI && !kindErr:
			t.Errorf("%s (%s, Kuma %s): Kuma's code gives no KRI (%q), ours gives %s with %v", v.Source, v.Rule, r, v.Error, k, errs)
		case !noKRI && kindErr:
			t.Errorf("%s (%s, Kuma %s): %v, but Kuma's code names it %s", v.Source, v.Rule, r, errs, v.KRI)
		case !noKRI && k.String() != v.KRI:
			t.Errorf("%s (%s, Kuma %s): KRI %s, Kuma's %s", v.Source, v.Rule, r, k, v.KRI)
		}
		rule, _, _ := strings.Cut(v.Rule, ":")
		count[r.String()+" "+rule]++
	}
	keys := slices.Sorted(maps.Keys(count))
	for _, k := range keys {
		t.Logf("%4d vectors: %s", count[k], k)
	}
	for _, r := range naming.Releases() {
		if count[r.String()+" type"] < len(r.Registry().Types()) {
			t.Errorf("Kuma %s: %d vectors of rule type, fewer than its %d kinds", r, count[r.String()+" type"], len(r.Registry().Types()))
		}
	}
}
