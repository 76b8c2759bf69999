package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/kriguard/kriguard/internal/cli"
	"github.com/kriguard/kriguard/internal/envoydump/dumptest"
	"github.com/kriguard/kriguard/internal/testenv"
)

// demoConfig is the demo webhook's configuration: deny, except MeshRetry, which only warns, so
// that the demo can create objects the audit then finds.
const demoConfig = `apiVersion: kriguard.io/v1alpha1
kind: Configuration
defaultEnforcement: deny
kinds:
  - group: kuma.io
    version: v1alpha1
    kind: MeshRetry
    enforcement: warn
`

// warnedKind is the kind demoConfig only warns about.
const warnedKind = "MeshRetry"

// writeDemoConfig writes demoConfig into workDir and returns its path.
func writeDemoConfig(workDir string) (string, error) {
	p := filepath.Join(workDir, "kriguard.yaml")
	if err := os.WriteFile(p, []byte(demoConfig), 0o600); err != nil {
		return "", fmt.Errorf("writing the webhook configuration: %w", err)
	}
	return p, nil
}

// showCommand shows the kriguard command on what the demo built: check on the examples, audit on
// the cluster after a few objects got in while the webhook only warned, and envoy on a config
// dump served the way Envoy's admin interface serves it. It runs the command in-process, as
// cmd/kriguard does, and prints what it prints; the exit statuses must be the ones each step
// expects.
func showCommand(ctx context.Context, say func(string, ...any), out io.Writer, env *testenv.Env, examplesDir, kubeconfig, configFile, workDir string) error {
	kriguard := func(want int, args ...string) error {
		say("$ kriguard %s", strings.Join(args, " "))
		code := cli.Main(ctx, args, cli.Streams{In: strings.NewReader(""), Out: out, Err: out})
		say("(exit %d)", code)
		if code != want {
			return fmt.Errorf("kriguard %s: exit %d, want %d", strings.Join(args, " "), code, want)
		}
		return nil
	}

	say("")
	say("the same rules before admission, offline, with the webhook's configuration file:")
	if err := kriguard(cli.ExitDenied, "check", "--config", configFile, examplesDir); err != nil {
		return err
	}

	say("")
	say("creating 3 %s objects with broken names: the webhook only warns for %s (%s)…", warnedKind, warnedKind, configFile)
	k, ok := env.Kind("kuma.io", warnedKind)
	if !ok {
		return fmt.Errorf("the control plane serves no %s", warnedKind)
	}
	for i, labels := range []map[string]string{
		{"kuma.io/mesh": "Payments_Mesh"},
		{"kuma.io/zone": "EU-West"},
		{"kuma.io/display-name": "Retry_Policy"},
	} {
		obj := testenv.NewObject(k, "kuma-demo", fmt.Sprintf("legacy-retries-%d", i+1))
		obj.SetLabels(labels)
		if err := env.Client.Create(ctx, obj); err != nil {
			return fmt.Errorf("creating %s: %w", obj.GetName(), err)
		}
		say("  created %s/%s (labels %v)", obj.GetNamespace(), obj.GetName(), labels)
	}

	say("")
	say("and after admission, on what the cluster holds: under the webhook's configuration they are only warned about,")
	if err := kriguard(cli.ExitOK, "audit", "--kubeconfig", kubeconfig, "--config", configFile, "-A"); err != nil {
		return err
	}
	say("and under the built-in one (deny everywhere), what switching %s to deny would have refused:", warnedKind)
	if err := kriguard(cli.ExitDenied, "audit", "--kubeconfig", kubeconfig, "-A"); err != nil {
		return err
	}

	say("")
	say("and at the proxy, on a config dump served like Envoy's admin /config_dump:")
	url, stop, err := serveConfigDump(workDir)
	if err != nil {
		return err
	}
	defer stop()
	return kriguard(cli.ExitDenied, "envoy", url+"?include_eds")
}

// serveConfigDump writes a Kuma-sidecar-shaped config dump into workDir and serves it on
// loopback at /config_dump, with endpoints for ?include_eds as Envoy does.
func serveConfigDump(workDir string) (string, func(), error) {
	if err := os.WriteFile(filepath.Join(workDir, "config_dump.json"), dumptest.KumaSidecar(true), 0o600); err != nil {
		return "", nil, fmt.Errorf("writing the config dump: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("serving the config dump: %w", err)
	}
	srv := &http.Server{Handler: dumptest.AdminHandler()}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String() + "/config_dump", func() { _ = srv.Close() }, nil
}
