package testenv

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Options configure a control plane. The zero value starts one with the upstream CRDs of
// UpstreamCRDDirs(DefaultKuma) and those of KRIGUARD_EXTRA_CRDS.
type Options struct {
	// Scheme is the client's scheme. Nil means client-go's built-in types plus apiextensions/v1.
	Scheme *runtime.Scheme

	// Kuma is the Kuma version whose CRDs the control plane serves: a folder under
	// UpstreamDir/kuma, such as Kuma214 or Kuma30. Empty means DefaultKuma. Control planes of
	// different versions can run side by side in one test binary.
	Kuma string

	// OpenReports is the OpenReports version whose CRDs (Report, ClusterReport) the control plane
	// serves too: a folder under UpstreamDir/openreports, such as OpenReports. Empty means none.
	OpenReports string

	// ExtraCRDDirs are loaded after the folders of KRIGUARD_EXTRA_CRDS. Relative paths are taken
	// from the working directory (the test's package folder).
	ExtraCRDDirs []string

	// WebhookInstallOptions are handed to envtest unchanged: it generates a serving certificate,
	// installs the webhook configurations pointing at LocalServingHost:LocalServingPort and reports
	// both back in Env.Environment.WebhookInstallOptions.
	WebhookInstallOptions envtest.WebhookInstallOptions

	// StartTimeout bounds the start of etcd and of kube-apiserver each, and then the wait for the CRDs
	// to be established. Zero means 90 seconds: generous, because tests of several packages start
	// their control planes at once on a small machine.
	StartTimeout time.Duration
}

// attachOutputEnv is envtest's switch to show the control plane's output, honoured here too.
const attachOutputEnv = "KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT"

// defaultStartTimeout: a kube-apiserver takes a few seconds on an idle laptop, but `go test ./...`
// starts one per package in parallel on CI machines with two cores.
const defaultStartTimeout = 90 * time.Second

// Env is a running control plane.
type Env struct {
	// Config reaches the kube-apiserver as a member of system:masters.
	Config *rest.Config
	// Client is a controller-runtime client with Scheme.
	Client client.Client
	Scheme *runtime.Scheme
	// CRDs are the installed CRDs, as the apiserver returned them.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// Kinds describes the kind of every installed CRD, sorted by group and kind.
	Kinds []Kind
	// Kuma is the Kuma version whose CRDs are installed (Options.Kuma, defaulted).
	Kuma string
	// Environment is the underlying envtest environment, for what this package does not wrap (the
	// webhook serving options, AddUser, the control plane's processes).
	Environment *envtest.Environment

	workDir  string
	stopOnce sync.Once
	stopErr  error
}

// Start starts etcd and kube-apiserver, installs the CRDs and waits until every one is established.
// It fails with an error that says how to get them when the binaries are missing.
func Start(opts Options) (*Env, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	bins, err := findBinaries(root)
	if err != nil {
		return nil, err
	}
	loaded, err := crdsFor(root, opts)
	if err != nil {
		return nil, err
	}

	scheme := opts.Scheme
	if scheme == nil {
		scheme = runtime.NewScheme()
		if err := clientgoscheme.AddToScheme(scheme); err != nil {
			return nil, fmt.Errorf("building the scheme: %w", err)
		}
		if err := apiextensionsv1.AddToScheme(scheme); err != nil {
			return nil, fmt.Errorf("building the scheme: %w", err)
		}
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = defaultStartTimeout
	}

	sweepStaleWorkDirs()
	work, err := newWorkDir()
	if err != nil {
		return nil, err
	}
	e := &Env{Scheme: scheme, Kinds: kindsOf(loaded), Kuma: kumaVersion(opts), workDir: work}
	// Keep the end of what the processes print, to say why they did not start.
	apiServerOut, etcdOut := &tail{max: 4 << 10}, &tail{max: 4 << 10}
	var apiServerW, etcdW io.Writer = apiServerOut, etcdOut
	if os.Getenv(attachOutputEnv) == "true" {
		apiServerW, etcdW = io.MultiWriter(apiServerOut, os.Stderr), io.MultiWriter(etcdOut, os.Stderr)
	}
	e.Environment = &envtest.Environment{
		Scheme: scheme,
		ControlPlane: envtest.ControlPlane{
			APIServer: &envtest.APIServer{
				Path: bins.apiServer, CertDir: filepath.Join(work, "apiserver"), Out: apiServerW, Err: apiServerW,
			},
			Etcd:        &envtest.Etcd{Path: bins.etcd, DataDir: filepath.Join(work, "etcd"), Out: etcdW, Err: etcdW},
			KubectlPath: bins.kubectl,
		},
		CRDInstallOptions: envtest.CRDInstallOptions{
			CRDs:         crdCopies(loaded),
			MaxTime:      timeout,
			PollInterval: 50 * time.Millisecond,
		},
		WebhookInstallOptions:    opts.WebhookInstallOptions,
		ControlPlaneStartTimeout: timeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	for _, d := range []string{e.Environment.ControlPlane.APIServer.CertDir, e.Environment.ControlPlane.Etcd.DataDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, errors.Join(fmt.Errorf("creating the control plane's folder: %w", err), os.RemoveAll(work))
		}
	}

	before := map[int]bool{}
	for _, pid := range childPids() {
		before[pid] = true
	}
	cfg, err := e.Environment.Start()
	if rerr := recordProcesses(work, before); rerr != nil {
		return nil, errors.Join(rerr, e.Stop())
	}
	if err != nil {
		return nil, errors.Join(
			fmt.Errorf("starting the control plane (%s, %s): %w\nlast output of kube-apiserver:\n%s\nlast output of etcd:\n%s",
				bins.apiServer, bins.etcd, err, apiServerOut, etcdOut),
			e.Stop())
	}
	e.Config = cfg
	e.CRDs = e.Environment.CRDs
	if e.Client, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return nil, errors.Join(fmt.Errorf("creating the client: %w", err), e.Stop())
	}
	if err := waitEstablished(cfg, crdNames(loaded), timeout); err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	return e, nil
}

// crdsFor loads the CRDs a control plane started with opts installs.
func crdsFor(root string, opts Options) ([]sourcedCRD, error) {
	dirs, err := crdDirs(root, opts)
	if err != nil {
		return nil, err
	}
	loaded, err := loadCRDs(dirs.upstream, dirs.extra)
	if err != nil {
		return nil, fmt.Errorf("loading CRDs: %w", err)
	}
	return loaded, nil
}

// kumaVersion is opts.Kuma, defaulted.
func kumaVersion(opts Options) string {
	if opts.Kuma == "" {
		return DefaultKuma
	}
	return opts.Kuma
}

// crdFolders are the folders a control plane loads its CRDs from.
type crdFolders struct {
	// upstream are those of UpstreamCRDDirs; extra those of KRIGUARD_EXTRA_CRDS and
	// Options.ExtraCRDDirs that are not upstream ones too.
	upstream, extra []string
}

// crdDirs lists the folders a control plane started with opts loads: the upstream ones of its Kuma
// version, then those of KRIGUARD_EXTRA_CRDS and Options.ExtraCRDDirs, each folder once.
func crdDirs(root string, opts Options) (crdFolders, error) {
	upstream, err := upstreamCRDDirs(root, kumaVersion(opts), opts.OpenReports)
	if err != nil {
		return crdFolders{}, err
	}
	extra, err := extraCRDDirs(os.Getenv(ExtraCRDsEnv), opts.ExtraCRDDirs, root)
	if err != nil {
		return crdFolders{}, err
	}
	extra = slices.DeleteFunc(extra, func(d string) bool { return slices.Contains(upstream, d) })
	return crdFolders{upstream: upstream, extra: extra}, nil
}

// LoadKinds returns the kinds a control plane started with opts would serve, without starting one:
// for tests that compare a table of kinds with the CRDs but need no API server.
func LoadKinds(opts Options) ([]Kind, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	loaded, err := crdsFor(root, opts)
	if err != nil {
		return nil, err
	}
	return kindsOf(loaded), nil
}

// NewNamespace creates a namespace with a generated name for one test and deletes it when the test
// ends, so that tests sharing a control plane do not see each other's objects.
func (e *Env) NewNamespace(t testing.TB) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "test-"}}
	if err := e.Client.Create(context.Background(), ns); err != nil {
		t.Fatalf("testenv: creating a namespace: %v", err)
	}
	t.Cleanup(func() {
		// envtest runs no namespace controller, so the namespace only turns Terminating and keeps its
		// objects; that is enough to stop a later test from writing into it by mistake.
		_ = e.Client.Delete(context.Background(), ns)
	})
	return ns.Name
}

// Stop stops kube-apiserver and etcd and removes their folder. It is safe to call more than once.
func (e *Env) Stop() error {
	e.stopOnce.Do(func() {
		var errs []error
		if e.Environment != nil {
			if err := e.Environment.Stop(); err != nil {
				errs = append(errs, fmt.Errorf("stopping the control plane: %w", err))
			}
		}
		if err := os.RemoveAll(e.workDir); err != nil {
			errs = append(errs, fmt.Errorf("removing the control plane's folder: %w", err))
		}
		e.stopErr = errors.Join(errs...)
	})
	return e.stopErr
}

// Kind returns the loaded kind of the given group and kind name.
func (e *Env) Kind(group, kind string) (Kind, bool) {
	i := slices.IndexFunc(e.Kinds, func(k Kind) bool { return k.Group == group && k.Kind == kind })
	if i < 0 {
		return Kind{}, false
	}
	return e.Kinds[i], true
}

// StartForTest starts a control plane for one test and stops it when the test and its subtests end.
// It fails the test, never skips it, when the control plane cannot start.
func StartForTest(t testing.TB, opts Options) *Env {
	t.Helper()
	e, err := Start(opts)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Errorf("testenv: %v", err)
		}
	})
	return e
}

// Main starts one control plane for a whole test binary, stores it in *env, runs the tests and stops
// it; the result is the exit code for os.Exit. Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m, testenv.Options{}, &env)) }
//
// When the control plane cannot start, no test runs and the binary fails with the reason. Fuzz targets
// must not use *env: the worker processes of `go test -fuzz` start none.
func Main(m *testing.M, opts Options, env **Env) int {
	flag.Parse()
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		// A process that `go test -fuzz` starts to run a fuzz target only runs that target, and is
		// restarted often; fuzz targets get no control plane (*env stays nil).
		return m.Run()
	}
	e, err := Start(opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: testenv: %v\n", err)
		return 1
	}
	*env = e
	code := m.Run()
	if err := e.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: testenv: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// tail keeps the last max bytes written to it. The control plane writes from several goroutines.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// crdCopies hands envtest copies of the CRDs, which it fills in (resource versions, conversion
// settings) as it installs them.
func crdCopies(crds []sourcedCRD) []*apiextensionsv1.CustomResourceDefinition {
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(crds))
	for i, c := range crds {
		out[i] = c.crd.DeepCopy()
	}
	return out
}

func crdNames(crds []sourcedCRD) []string {
	names := make([]string, len(crds))
	for i, c := range crds {
		names[i] = c.crd.Name
	}
	return names
}

// waitEstablished waits until every named CRD has the Established condition. envtest only waits for
// the resources to show up in discovery, which can come first. It uses a client of its own, since
// Options.Scheme need not know CRDs.
func waitEstablished(cfg *rest.Config, names []string, timeout time.Duration) error {
	scheme := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return fmt.Errorf("waiting for CRDs to be established: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("waiting for CRDs to be established: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	pending := slices.Clone(names)
	var lastErr error
	err = wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		var list apiextensionsv1.CustomResourceDefinitionList
		if lastErr = c.List(ctx, &list); lastErr != nil {
			return false, nil // the apiserver may still be settling; retry until the deadline
		}
		established := map[string]bool{}
		for _, crd := range list.Items {
			for _, cond := range crd.Status.Conditions {
				if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					established[crd.Name] = true
				}
			}
		}
		pending = slices.DeleteFunc(pending, func(n string) bool { return established[n] })
		return len(pending) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for CRDs to be established: %d not established after %s, among them %q (last error: %v): %w",
			len(pending), timeout, pending[0], lastErr, err)
	}
	return nil
}
