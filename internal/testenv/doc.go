// Package testenv starts a real kube-apiserver and etcd for kriguard's tests, with the Kuma and Kong
// CustomResourceDefinitions installed, and hands back a *rest.Config and a controller-runtime client.
//
// It wraps controller-runtime's envtest. The binaries come from hack/tools.sh, which builds pinned
// versions from the Go module proxy: run `./hack/tools.sh install` (or `make test`, which does it) once.
// The binaries are found in $KUBEBUILDER_ASSETS, else in the repository's bin/ folder that
// hack/tools.sh fills. When they are missing, Start returns an error that says so and how to fix it;
// the tests fail rather than skip, because a suite that silently skips its end-to-end half proves nothing.
//
// CRDs come from three places. The project's own test CRDs under test/crds carry the upstream group,
// versions, names, scope and short names with a loose schema that accepts any spec; they serve the
// kinds no upstream folder has. The real, unmodified Kuma and Kong CRDs are always loaded from
// ../shared/crds/kuma and ../shared/crds/kong beside the checkout (UpstreamCRDDirs; shared reference
// data, never copied into the repository): when they are missing, Start and LoadKinds fail with an
// error that says so, so every test that needs a control plane fails rather than runs on loose
// schemas. The folders listed in KRIGUARD_EXTRA_CRDS (separated by ':'; relative paths are taken from
// the repository root) and in Options.ExtraCRDDirs are loaded as well. A CRD from any of these folders
// replaces the project's own CRD of the same name, so the real schemas are the ones tested. The files
// are read by envtest's own reader (envtest.ReadCRDFiles).
//
// A package that needs a control plane usually starts one for all of its tests:
//
//	var env *testenv.Env
//
//	func TestMain(m *testing.M) {
//		os.Exit(testenv.Main(m, testenv.Options{}, &env))
//	}
//
// A single test can also start its own with StartForTest, which stops it when the test ends.
//
// Env.Kinds lists every served kind (group, version, kind, plural, scope), so a test can cover "every
// kind" without a table of its own; LoadKinds gives the same list without a control plane. NewObject
// builds an object of a kind that the upstream schema accepts too, and Env.NewNamespace gives a test a
// namespace of its own.
//
// Each control plane keeps its etcd data and certificates in a private folder under the system
// temporary folder, which also records the pids of the etcd and kube-apiserver started for it. Stop
// removes it; a later Start removes the folders that a killed test binary left behind, and stops the
// processes recorded there that still run.
package testenv
