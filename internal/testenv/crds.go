package testenv

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ExtraCRDsEnv names the environment variable that lists, separated by ':', folders of CRDs to load
// besides the project's own. .ci/run points it at the unmodified upstream Kuma and Kong CRDs.
const ExtraCRDsEnv = "KRIGUARD_EXTRA_CRDS"

// OwnCRDDir is the folder, relative to the repository root, of the project's own test CRDs.
const OwnCRDDir = "test/crds"

// UpstreamCRDDirs returns the folders, relative to the repository root, of the real, unmodified Kuma
// and Kong CRDs: shared reference data beside the checkout (CI has it there), never copied into the
// repository. Every control plane loads them.
func UpstreamCRDDirs() []string { return []string{"../shared/crds/kuma", "../shared/crds/kong"} }

// upstreamCRDDirs returns UpstreamCRDDirs taken from root, or an error that says what is missing and
// why the tests need it.
func upstreamCRDDirs(root string) ([]string, error) {
	dirs := make([]string, 0, 2)
	for _, d := range UpstreamCRDDirs() {
		abs := filepath.Clean(filepath.Join(root, d))
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("the upstream Kuma and Kong CRDs are missing: no folder %s (%s from the repository root). "+
				"kriguard's tests run against the real CRDs, which are shared reference data beside the checkout, as CI has it; "+
				"put them there (the repository never holds copies)", abs, d)
		}
		dirs = append(dirs, abs)
	}
	return dirs, nil
}

// Kind is one kind served by a loaded CRD, in the terms a test needs to build and address an object of
// it.
type Kind struct {
	Group string
	// Version is the storage version; Versions lists every served one, in the CRD's order.
	Version  string
	Versions []string
	Kind     string
	ListKind string
	Plural   string
	Singular string
	// ShortNames are the CRD's short names (kubectl's), not necessarily the KRI short name.
	ShortNames []string
	Namespaced bool
	// HasSpec is true when the storage version's schema declares a spec (Kuma's older kinds, such as
	// DataplaneInsight, and KongPlugin have none).
	HasSpec bool
	// Upstream is true when the CRD came from an extra folder (KRIGUARD_EXTRA_CRDS or
	// Options.ExtraCRDDirs) rather than test/crds; its schema may then require a valid spec.
	Upstream bool
	// Source is the file the CRD was read from.
	Source string
}

// GroupVersionKind returns the kind at its storage version.
func (k Kind) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
}

// GroupVersionResource returns the resource at its storage version.
func (k Kind) GroupVersionResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: k.Group, Version: k.Version, Resource: k.Plural}
}

// CRDName returns the name of the CRD that serves the kind (plural.group).
func (k Kind) CRDName() string { return k.Plural + "." + k.Group }

// sourcedCRD is a CRD with the file it came from.
type sourcedCRD struct {
	crd      *apiextensionsv1.CustomResourceDefinition
	source   string
	upstream bool
}

// loadCRDs reads the project's own CRDs from ownDir and those of every extra folder, in order. A CRD in
// an extra folder replaces the own CRD of the same name, so that the upstream schema is the one tested;
// the same name twice within the own CRDs, or twice across the extra folders, is an error because it
// is not clear which one was meant.
func loadCRDs(ownDir string, extraDirs []string) ([]sourcedCRD, error) {
	own, err := readCRDDir(ownDir, false)
	if err != nil {
		return nil, err
	}
	if len(own) == 0 {
		return nil, fmt.Errorf("no CRDs in %s", ownDir)
	}
	byName := make(map[string]int, len(own))
	out := make([]sourcedCRD, 0, len(own))
	for _, c := range own {
		if i, dup := byName[c.crd.Name]; dup {
			return nil, fmt.Errorf("CRD %q defined twice: in %s and in %s", c.crd.Name, out[i].source, c.source)
		}
		byName[c.crd.Name] = len(out)
		out = append(out, c)
	}
	seenExtra := map[string]string{}
	for _, dir := range extraDirs {
		extra, err := readCRDDir(dir, true)
		if err != nil {
			return nil, err
		}
		if len(extra) == 0 {
			return nil, fmt.Errorf("no CRDs in %s", dir)
		}
		for _, c := range extra {
			if prev, dup := seenExtra[c.crd.Name]; dup {
				return nil, fmt.Errorf("CRD %q defined twice: in %s and in %s", c.crd.Name, prev, c.source)
			}
			seenExtra[c.crd.Name] = c.source
			if i, ok := byName[c.crd.Name]; ok {
				out[i] = c
				continue
			}
			byName[c.crd.Name] = len(out)
			out = append(out, c)
		}
	}
	return out, nil
}

// readCRDDir reads the CRDs of every file under dir with envtest's own reader
// (envtest.ReadCRDFiles: .yaml, .yml and .json files, documents of other kinds skipped), one file
// at a time so that each CRD keeps its file and a name defined in two files is seen; envtest reads
// only the top of a folder, so the walk into subfolders is here. Every CRD must pass checkCRD.
func readCRDDir(dir string, upstream bool) ([]sourcedCRD, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("reading CRD folder: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("reading CRD folder: %s is not a folder", dir)
	}
	var out []sourcedCRD
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		crds, err := readCRDFile(path)
		for _, c := range crds {
			out = append(out, sourcedCRD{crd: c, source: path, upstream: upstream})
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading CRD folder %s: %w", dir, err)
	}
	return out, nil
}

// readCRDFile reads the CRDs of one file with envtest.ReadCRDFiles, sorted by name (envtest
// returns them in map order), and checks each.
func readCRDFile(path string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	opts := envtest.CRDInstallOptions{Paths: []string{path}, ErrorIfPathMissing: true}
	if err := envtest.ReadCRDFiles(&opts); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	slices.SortFunc(opts.CRDs, func(a, b *apiextensionsv1.CustomResourceDefinition) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range opts.CRDs {
		if err := checkCRD(c); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	return opts.CRDs, nil
}

// checkCRD rejects the mistakes that would otherwise surface as a puzzling apiserver error or a kind
// missing from Env.Kinds.
func checkCRD(crd *apiextensionsv1.CustomResourceDefinition) error {
	s := crd.Spec
	switch {
	case crd.APIVersion != apiextensionsv1.SchemeGroupVersion.String():
		return fmt.Errorf("CRD %q: apiVersion %q, want %s", crd.Name, crd.APIVersion, apiextensionsv1.SchemeGroupVersion)
	case s.Group == "" || s.Names.Kind == "" || s.Names.Plural == "":
		return fmt.Errorf("CRD %q: spec.group, spec.names.kind and spec.names.plural are required", crd.Name)
	case crd.Name != s.Names.Plural+"."+s.Group:
		return fmt.Errorf("CRD %q: name must be %s.%s", crd.Name, s.Names.Plural, s.Group)
	case storageVersion(crd) == "":
		return fmt.Errorf("CRD %q: no storage version", crd.Name)
	}
	return nil
}

func storageVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

func hasSpec(crd *apiextensionsv1.CustomResourceDefinition) bool {
	storage := storageVersion(crd)
	for _, v := range crd.Spec.Versions {
		if v.Name == storage && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			_, ok := v.Schema.OpenAPIV3Schema.Properties["spec"]
			return ok
		}
	}
	return false
}

// kindsOf describes the kind each CRD serves, sorted by group and kind.
func kindsOf(crds []sourcedCRD) []Kind {
	kinds := make([]Kind, 0, len(crds))
	for _, c := range crds {
		s := c.crd.Spec
		k := Kind{
			Group:      s.Group,
			Version:    storageVersion(c.crd),
			Kind:       s.Names.Kind,
			ListKind:   s.Names.ListKind,
			Plural:     s.Names.Plural,
			Singular:   s.Names.Singular,
			ShortNames: slices.Clone(s.Names.ShortNames),
			Namespaced: s.Scope == apiextensionsv1.NamespaceScoped,
			HasSpec:    hasSpec(c.crd),
			Upstream:   c.upstream,
			Source:     c.source,
		}
		for _, v := range s.Versions {
			if v.Served {
				k.Versions = append(k.Versions, v.Name)
			}
		}
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b Kind) int {
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return kinds
}

// extraCRDDirs returns the folders of KRIGUARD_EXTRA_CRDS, relative ones taken from root, followed by
// those of Options.ExtraCRDDirs, relative ones taken from the working directory. A folder that comes
// twice is kept once (CI names the upstream folders in the variable too). The variable is set
// once for the whole `go test ./...`, whose packages each run in their own folder, so only the
// repository root gives its relative paths one meaning; an option is written in one package's test,
// where testdata/… is the natural spelling.
func extraCRDDirs(env string, fromOpts []string, root string) ([]string, error) {
	var dirs []string
	for _, d := range filepath.SplitList(env) {
		if d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(root, d)
		}
		dirs = append(dirs, filepath.Clean(d))
	}
	for _, d := range fromOpts {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("resolving CRD folder %q: %w", d, err)
		}
		dirs = append(dirs, abs)
	}
	return dedupDirs(dirs), nil
}

// dedupDirs keeps the first of folders named more than once.
func dedupDirs(dirs []string) []string {
	seen := map[string]bool{}
	out := dirs[:0:0]
	for _, d := range dirs {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}
