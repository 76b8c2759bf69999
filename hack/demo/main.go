package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/rules"
	"github.com/kriguard/kriguard/test/e2e/webhookenv"
)

func main() {
	keep := flag.Bool("keep", os.Getenv("KEEP") != "" && os.Getenv("KEEP") != "0",
		"leave the control plane and the webhook running until Ctrl-C (default from $KEEP)")
	examples := flag.String("examples", "examples", "folder of the sample objects")
	workDir := flag.String("workdir", "", "folder for the kubeconfig, certificates and logs (default: a new temporary folder)")
	flag.Parse()
	os.Exit(run(*examples, *workDir, *keep, os.Stdout))
}

// run returns the exit code: 0 when every example had the outcome it expects.
func run(examplesDir, workDir string, keep bool, out io.Writer) int {
	say := func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }
	fail := func(err error) int {
		say("demo: %v", err)
		return 1
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	exs, err := readExamples(examplesDir)
	if err != nil {
		return fail(err)
	}
	if workDir == "" {
		if workDir, err = os.MkdirTemp("", "kriguard-demo-"); err != nil {
			return fail(err)
		}
		defer os.RemoveAll(workDir)
	}
	logPath := filepath.Join(workDir, "webhook.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return fail(err)
	}
	defer logFile.Close()
	ctrl.SetLogger(zap.New(zap.WriteTo(logFile)))

	say("starting kube-apiserver and etcd, installing the CRDs of %s…", crdsNote())
	env, err := testenv.Start(testenv.Options{})
	if err != nil {
		return fail(err)
	}
	defer func() {
		say("stopping kube-apiserver and etcd…")
		if err := env.Stop(); err != nil {
			say("demo: %v", err)
		}
	}()
	say("  %d CRDs established (%s)", len(env.CRDs), crdSummary(env))

	s, err := webhookenv.NewSetup(workDir)
	if err != nil {
		return fail(err)
	}
	// Recording the KRI is opt-in (off by default); the demo turns it on so that each created Kuma
	// object's line shows the KRI the webhook recorded.
	s.RecordKRI = rules.RecordKRIAdmission
	say("starting kriguard webhook (in-process, cert-controller, --record-kri=%s, log: %s)…", s.RecordKRI, logPath)
	say("  recording each Kuma object's KRI in its kriguard.io/kri annotation is opt-in, off by default; the demo")
	say(`  turns it on to show it (the chart's webhook.recordKRI=admission; docs/install.md, "Recording the KRI, or not")`)
	if s.ConfigFile, err = writeDemoConfig(workDir); err != nil {
		return fail(err)
	}
	if err := s.Prepare(ctx, env.Client); err != nil {
		return fail(err)
	}
	stop, err := webhookenv.StartManager(ctx, env.Config, s.Args())
	if err != nil {
		return fail(err)
	}
	defer func() {
		say("stopping kriguard webhook…")
		if err := stop(); err != nil {
			say("demo: webhook: %v", err)
		}
	}()
	say("registering webhook configurations %s (%s) and %s (%s)…", s.ValidatingName, s.URL("/validate"), s.MutatingName, s.URL("/mutate"))
	if err := s.Register(ctx, env.Client); err != nil {
		return fail(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Unregister(ctx, env.Client); err != nil {
			say("demo: %v", err)
		}
	}()
	say("waiting for certificate (cert-controller issues it for %s and injects its CA bundle)…", s.DNSName)
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	err = s.WaitReady(wctx, env.Client)
	wcancel()
	if err != nil {
		return fail(fmt.Errorf("%w (see %s)", err, logPath))
	}
	say("  webhook ready on %s", s.URL(""))

	kubeconfig := filepath.Join(workDir, "kubeconfig")
	if err := writeKubeconfig(env, kubeconfig); err != nil {
		return fail(err)
	}
	namespaces := namespacesOf(exs)
	say("creating namespaces %s…", strings.Join(namespaces, ", "))
	for _, name := range namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := env.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
			return fail(fmt.Errorf("creating namespace %s: %w", name, err))
		}
	}

	say("applying %d examples from %s with kubectl…", len(exs), examplesDir)
	k := kubectl{path: env.Environment.ControlPlane.KubectlPath, kubeconfig: kubeconfig}
	if k.path == "" {
		k.path = "kubectl"
	}
	unexpected := 0
	for _, ex := range exs {
		res := k.apply(ctx, ex)
		if res.rejected != "" {
			if msg, err := apiMessage(ctx, env.Client, ex); err != nil {
				res.err = err.Error()
			} else if msg != "" {
				res.rejected = msg
			}
		}
		ok := ex.expect.matches(res)
		if !ok {
			unexpected++
		}
		say("%s", res.line(ex, ok))
	}
	if unexpected > 0 {
		say("%d of %d examples did not have the outcome they expect", unexpected, len(exs))
	} else {
		say("all %d examples had the outcome they expect", len(exs))
	}
	if err := showCommand(ctx, say, out, env, examplesDir, kubeconfig, s.ConfigFile, workDir); err != nil {
		say("demo: %v", err)
		unexpected++
	}

	if keep {
		say("")
		say("the control plane and the webhook keep running; try:")
		say("  %s --kubeconfig %s get meshtimeouts -A", k.path, kubeconfig)
		say("  go run ./cmd/kriguard audit --kubeconfig %s -A", kubeconfig)
		say(`  %s --kubeconfig %s get meshtimeouts -A -o custom-columns=NAME:.metadata.name,KRI:.metadata.annotations.kriguard\.io/kri`, k.path, kubeconfig)
		for _, ex := range exs {
			if ex.generateName != "" && ex.expect.created {
				say("  %s --kubeconfig %s create -f %s   # the same inputs again: the same name, AlreadyExists", k.path, kubeconfig, ex.path)
				break
			}
		}
		say("press Ctrl-C to stop")
		<-ctx.Done()
	}
	if unexpected > 0 {
		return 1
	}
	return 0
}

// crdsNote says where the CRDs come from: always the upstream folders, and those of
// KRIGUARD_EXTRA_CRDS when it names any.
func crdsNote() string {
	note := strings.Join(testenv.UpstreamCRDDirs(testenv.DefaultKuma), " and ")
	if v := os.Getenv(testenv.ExtraCRDsEnv); v != "" {
		note += " and those of " + v
	}
	return note
}

// crdSummary counts the installed CRDs per API group.
func crdSummary(env *testenv.Env) string {
	n := map[string]int{}
	for _, crd := range env.CRDs {
		n[crd.Spec.Group]++
	}
	var parts []string
	for _, g := range slices.Sorted(maps.Keys(n)) {
		parts = append(parts, fmt.Sprintf("%s: %d", g, n[g]))
	}
	return strings.Join(parts, ", ")
}

// writeKubeconfig writes a kubeconfig for a new member of system:masters.
func writeKubeconfig(env *testenv.Env, path string) error {
	user, err := env.Environment.AddUser(envtest.User{Name: "demo-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("adding the demo user: %w", err)
	}
	b, err := user.KubeConfig()
	if err != nil {
		return fmt.Errorf("building the kubeconfig: %w", err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return nil
}
