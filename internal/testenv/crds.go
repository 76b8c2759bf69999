package testenv

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ExtraCRDsEnv names the environment variable that lists, separated by ':', folders of CRDs to load
// besides the upstream ones.
const ExtraCRDsEnv = "KRIGUARD_EXTRA_CRDS"

// UpstreamDir is the folder, relative to the repository root, of the upstream reference data: the
// unmodified files each project publishes, in <project>/<version>/ (the CRDs in its crds/ folder).
// It is shared data beside the checkout, as CI has it; the repository never holds copies.
const UpstreamDir = "../shared/upstream"

// The Kuma versions whose CRDs a control plane can serve: their folders under UpstreamDir/kuma.
const (
	// Kuma214 is the 2.14 release line (tag v2.14.3), the one users run.
	Kuma214 = "v2.14.3"
	// Kuma30 is the 3.0 development line (master @348b6528bc).
	Kuma30 = "master-348b652"
	// DefaultKuma is the version a control plane serves when Options.Kuma is empty: the release
	// users run.
	DefaultKuma = Kuma214
)

// OpenReports is the version of the OpenReports API (openreports.io/v1alpha1, Report and
// ClusterReport), a folder under UpstreamDir/openreports, whose CRDs a control plane serves when
// Options.OpenReports asks for them.
const OpenReports = "v0.2.1"

// KongOperator is the kong-operator version, a folder under UpstreamDir/kong-operator, whose CRDs
// every control plane serves.
const KongOperator = "cefc384"

// UpstreamCRDDirs returns the folders, relative to the repository root, of the real, unmodified CRDs
// a control plane serving Kuma version kuma (Kuma214, Kuma30, …) loads: Kuma's and kong-operator's.
func UpstreamCRDDirs(kuma string) []string {
	return []string{
		path.Join(UpstreamDir, "kuma", kuma, "crds"),
		path.Join(UpstreamDir, "kong-operator", KongOperator, "crds"),
	}
}

// OpenReportsCRDDir returns the folder, relative to the repository root, of the OpenReports CRDs of
// version v (OpenReports).
func OpenReportsCRDDir(v string) string { return path.Join(UpstreamDir, "openreports", v, "crds") }

// upstreamCRDDirs returns UpstreamCRDDirs(kuma), and OpenReportsCRDDir(openReports) unless it is
// "", taken from root, or an error that says what is missing and why the tests need it.
func upstreamCRDDirs(root, kuma, openReports string) ([]string, error) {
	if !isFolderName(kuma) {
		return nil, fmt.Errorf("upstream Kuma version %q: must name one folder under %s/kuma", kuma, UpstreamDir)
	}
	want := UpstreamCRDDirs(kuma)
	if openReports != "" {
		if !isFolderName(openReports) {
			return nil, fmt.Errorf("upstream OpenReports version %q: must name one folder under %s/openreports", openReports, UpstreamDir)
		}
		want = append(want, OpenReportsCRDDir(openReports))
	}
	dirs := make([]string, 0, len(want))
	for _, d := range want {
		abs := filepath.Clean(filepath.Join(root, filepath.FromSlash(d)))
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("the upstream CRDs are missing: no folder %s (%s from the repository root). "+
				"kriguard's tests run against the real CRDs of each release, which are shared reference data beside the checkout, as CI has it; "+
				"put them there (the repository never holds copies)", abs, d)
		}
		dirs = append(dirs, abs)
	}
	return dirs, nil
}

// isFolderName reports whether v can name one folder: not empty, no separator, not . or ..
func isFolderName(v string) bool {
	return v != "" && !strings.ContainsAny(v, `/\`) && v != "." && v != ".."
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
	// Upstream is true when the CRD came from the upstream folders (UpstreamCRDDirs), false when
	// from an extra one (KRIGUARD_EXTRA_CRDS or Options.ExtraCRDDirs).
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

// loadCRDs reads the CRDs of the upstream folders, then those of every extra folder, in order. A CRD
// name defined twice is an error, because it is not clear which one was meant.
func loadCRDs(upstreamDirs, extraDirs []string) ([]sourcedCRD, error) {
	var out []sourcedCRD
	seen := map[string]string{}
	for i, dir := range slices.Concat(upstreamDirs, extraDirs) {
		crds, err := readCRDDir(dir, i < len(upstreamDirs))
		if err != nil {
			return nil, err
		}
		if len(crds) == 0 {
			return nil, fmt.Errorf("no CRDs in %s", dir)
		}
		for _, c := range crds {
			if prev, dup := seen[c.crd.Name]; dup {
				return nil, fmt.Errorf("CRD %q defined twice: in %s and in %s", c.crd.Name, prev, c.source)
			}
			seen[c.crd.Name] = c.source
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
	err = filepath.WalkDir(dir, func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		crds, err := readCRDFile(file)
		for _, c := range crds {
			out = append(out, sourcedCRD{crd: c, source: file, upstream: upstream})
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
func readCRDFile(file string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	opts := envtest.CRDInstallOptions{Paths: []string{file}, ErrorIfPathMissing: true}
	if err := envtest.ReadCRDFiles(&opts); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	slices.SortFunc(opts.CRDs, func(a, b *apiextensionsv1.CustomResourceDefinition) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range opts.CRDs {
		if err := checkCRD(c); err != nil {
			return nil, fmt.Errorf("reading %s: %w", file, err)
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
// twice is kept once. The variable is set
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
