package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/rules"
	"github.com/kriguard/kriguard/test/e2e/webhookenv"
)

// bypassLabel marks objects the API server does not send to the webhooks: they stand in for objects
// admitted before the webhook was installed (see webhookenv.Setup.BypassLabel).
const bypassLabel = "e2e.kriguard.io/bypass"

// The in-process webhook's configuration: deny by default, one kind in each other mode, on a global
// control plane (KDS copies the zones cannot store are denied).
const webhookConfig = `apiVersion: kriguard.io/v1alpha1
kind: Configuration
defaultEnforcement: deny
kuma:
  mode: global
kinds:
  - group: kuma.io
    version: v1alpha1
    kind: MeshRetry
    enforcement: warn
  - group: kuma.io
    version: v1alpha1
    kind: MeshRateLimit
    enforcement: dryrun
`

var (
	// env is the package's control plane.
	env *testenv.Env
	// hook is the in-process webhook that guards it.
	hook *webhookenv.Setup
	// webhookLog is the file the in-process webhook logs to; a failing test points at it.
	webhookLog string
	// buildDir receives the binaries the tests build.
	buildDir string
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kriguard-e2e-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	buildDir = filepath.Join(dir, "bin")
	if err := os.Mkdir(buildDir, 0o700); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}

	if env, err = testenv.Start(testenv.Options{}); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: testenv: %v\n", err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		}
	}()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop, err := startWebhook(ctx, dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: starting the webhook: %v\n(webhook log: %s)\n", err, webhookLog)
		if b, rerr := os.ReadFile(webhookLog); rerr == nil {
			os.Stderr.Write(tailOf(b, 8<<10))
		}
		return 1
	}
	code := m.Run()
	if code != 0 {
		if b, err := os.ReadFile(webhookLog); err == nil {
			fmt.Fprintf(os.Stderr, "--- last lines of the in-process webhook's log:\n%s\n", tailOf(b, 16<<10))
		}
	}
	uctx, ucancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer ucancel()
	if err := hook.Unregister(uctx, env.Client); err != nil {
		fmt.Fprintf(os.Stderr, "unregistering the webhook: %v\n", err)
	}
	if err := stop(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: the webhook manager returned: %v\n", err)
		code = 1
	}
	return code
}

// startWebhook runs the webhook in this process as cmd/webhook would run in a cluster, registers it
// and waits until the API server can reach it.
func startWebhook(ctx context.Context, dir string) (stop func() error, err error) {
	webhookLog = filepath.Join(dir, "webhook.log")
	logFile, err := os.Create(webhookLog)
	if err != nil {
		return nil, err
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(logFile), zap.UseDevMode(true)))

	if hook, err = webhookenv.NewSetup(dir); err != nil {
		return nil, err
	}
	hook.BypassLabel = bypassLabel
	hook.RecordKRI = rules.RecordKRIAdmission // the admission tests check the recorded KRI; TestBinary the default
	hook.ConfigFile = filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(hook.ConfigFile, []byte(webhookConfig), 0o600); err != nil {
		return nil, err
	}
	if err := hook.Prepare(ctx, env.Client); err != nil {
		return nil, err
	}
	if stop, err = webhookenv.StartManager(ctx, env.Config, append(hook.Args(), "--peer-cache-max-objects=10000")); err != nil {
		return nil, err
	}
	if err := hook.Register(ctx, env.Client); err != nil {
		return nil, fmt.Errorf("%w (manager stopped: %v)", err, stop())
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := hook.WaitReady(wctx, env.Client); err != nil {
		return nil, fmt.Errorf("%w (manager stopped: %v)", err, stop())
	}
	return stop, nil
}

// tailOf returns the last n bytes of b.
func tailOf(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
