// Package testenv starts a real kube-apiserver and etcd for kriguard's tests, with the Kuma and Kong
// CustomResourceDefinitions installed, and hands back a *rest.Config and a controller-runtime client.
//
// It wraps controller-runtime's envtest. The binaries come from hack/tools.sh, which builds pinned
// versions from the Go module proxy: run `./hack/tools.sh install` (or `make test`, which does it) once.
// The binaries are found in $KUBEBUILDER_ASSETS, else in the repository's bin/ folder that
// hack/tools.sh fills. When they are missing, Start returns an error that says so and how to fix it;
// the tests fail rather than skip, because a suite that silently skips its end-to-end half proves nothing.
//
// The CRDs are the real, unmodified ones each project publishes, shared reference data beside the
// checkout in ../shared/upstream/<project>/<version>/crds (UpstreamCRDDirs; never copied into the
// repository): those of one Kuma version, Options.Kuma (Kuma214, the 2.14 release line, or Kuma30,
// the 3.0 development line; DefaultKuma when empty), and kong-operator's; with Options.OpenReports, also
// the OpenReports CRDs (Report, ClusterReport) of that version. Control planes of both Kuma
// versions can run in one test binary. When the folders are missing, Start and LoadKinds fail with
// an error that says so, so every test that needs a control plane fails rather than runs on made-up
// schemas. The folders listed in KRIGUARD_EXTRA_CRDS (separated by ':'; relative paths are taken from
// the repository root) and in Options.ExtraCRDDirs are loaded as well; a CRD name defined twice is an
// error. The files are read by envtest's own reader (envtest.ReadCRDFiles).
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
