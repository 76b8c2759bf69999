package layers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

const module = "github.com/kriguard/kriguard"

// layer is a layer of docs/architecture.md, bottom first.
type layer int

const (
	scan layer = iota
	naming
	rules
	frontEnd
)

func (l layer) String() string { return [...]string{"scan", "naming", "rules", "front end"}[l] }

// layerOf returns the layer of a package of the module (its path without the module's), and false
// for the packages outside the four layers: commands, tests and tools. Every other package is a
// front end or serves one (internal/manifest, internal/envoydump), so that a new package is held
// to the layers without being listed here.
func layerOf(rel string) (layer, bool) {
	switch {
	case under(rel, "internal/jsonscan"):
		return scan, true
	case under(rel, "naming"):
		return naming, true
	case under(rel, "rules"):
		return rules, true
	case under(rel, "cmd"), under(rel, "test"), under(rel, "hack"), strings.Contains(rel, "/testdata/"):
		return 0, false
	}
	return frontEnd, true
}

// under reports whether rel is dir or a package below it.
func under(rel, dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }

// mayImportWebhook are the packages besides the webhook's own that may import it: its command and
// tests (test/..., whose test support packages start the webhook in envtest).
func mayImportWebhook(rel string) bool {
	return under(rel, "webhook") || rel == "cmd/webhook" || under(rel, "test")
}

// forbiddenInRules are dependencies the rules must never reach: they count nothing and serve
// nothing, the transport does (a decision says which override applied; the webhook counts it).
var forbiddenInRules = []string{
	"github.com/prometheus/",
	"sigs.k8s.io/controller-runtime",
}

// TestLayers fails on an import across the layers: the JSON scanner imports nothing of ours,
// naming imports neither the rules nor a front end, the rules import no front end and nothing that counts or serves, and only the webhook's
// command and tests import the webhook.
func TestLayers(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps,
		Dir:  "../..",
	}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	var seen int
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		rel, ok := strings.CutPrefix(p.PkgPath, module+"/")
		if !ok {
			continue
		}
		seen++
		watch(t, p)
		from, layered := layerOf(rel)
		for path := range p.Imports {
			irel, ours := strings.CutPrefix(path, module+"/")
			if !ours {
				continue
			}
			if under(irel, "webhook") && !mayImportWebhook(rel) {
				t.Errorf("%s imports %s: only the webhook's command and tests may (docs/architecture.md)", rel, irel)
			}
			to, ok := layerOf(irel)
			if layered && ok && to > from {
				t.Errorf("%s (%s) imports %s (%s): a layer imports only the layers below it (docs/architecture.md)", rel, from, irel, to)
			}
		}
		if from <= rules && layered {
			for _, dep := range deps(p) {
				for _, bad := range forbiddenInRules {
					if strings.HasPrefix(dep, bad) {
						t.Errorf("%s depends on %s: the rules and the layers below them count and serve nothing, the front ends do", rel, dep)
					}
				}
			}
		}
	}
	if seen < 10 {
		t.Fatalf("listed %d packages of %s: the test does not see the module", seen, module)
	}
}

// watch reads p's directory and files, which go/packages reads in a child process: so that the
// test cache sees them, and a new import or file is tested again rather than answered from cache.
func watch(t *testing.T, p *packages.Package) {
	for i, f := range p.GoFiles {
		if i == 0 {
			if _, err := os.ReadDir(filepath.Dir(f)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := os.Stat(f); err != nil {
			t.Fatal(err)
		}
	}
}

// deps returns every package p depends on, sorted.
func deps(p *packages.Package) []string {
	all := map[string]bool{}
	var walk func(*packages.Package)
	walk = func(p *packages.Package) {
		for path, q := range p.Imports {
			if !all[path] {
				all[path] = true
				walk(q)
			}
		}
	}
	walk(p)
	out := make([]string, 0, len(all))
	for path := range all {
		out = append(out, path)
	}
	slices.Sort(out)
	return out
}

// TestLayerOf pins the classification the test rests on, so that moving a package out of its
// layer's directory is noticed.
func TestLayerOf(t *testing.T) {
	for rel, want := range map[string]layer{
		"naming": naming, "naming/kong": naming, "rules": rules, "webhook": frontEnd,
		"admissionpolicy": frontEnd, "internal/cli": frontEnd, "analyzer": frontEnd, "internal/fix": frontEnd,
		"internal/manifest": frontEnd, "internal/jsonscan": scan, "internal/jsonpage": frontEnd,
	} {
		if got, ok := layerOf(rel); !ok || got != want {
			t.Errorf("layerOf(%s) = %v, %v; want %v", rel, got, ok, want)
		}
	}
	for _, rel := range []string{"cmd/webhook", "test/e2e", "hack/demo"} {
		if _, ok := layerOf(rel); ok {
			t.Errorf("layerOf(%s) puts it in a layer", rel)
		}
	}
	for _, rel := range []string{"namingx", "rulesets", "internal/jsonscanx"} {
		if l, _ := layerOf(rel); l != frontEnd {
			t.Errorf("layerOf(%s) = %v, want a front end: only internal/jsonscan, naming/ and rules/ are lower layers", rel, l)
		}
	}
}
