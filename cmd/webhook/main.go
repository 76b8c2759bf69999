// Command webhook is kriguard's admission webhook server: it rejects Kuma and Kong custom
// resources whose names cannot form valid identifiers and gives generateName objects their
// deterministic names. See package github.com/kriguard/kriguard/webhook. `webhook audit` runs the
// continuous audit instead (package github.com/kriguard/kriguard/internal/continuous).
package main

import (
	"flag"
	"os"
	"runtime/debug"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kriguard/kriguard/webhook"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "audit" {
		os.Exit(audit(os.Args[2:]))
	}
	opts := webhook.NewOptions()
	opts.BindFlags(flag.CommandLine)
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	log := ctrl.Log.WithName("setup")

	if err := opts.Validate(); err != nil { // bad flags first, before any connection attempt
		log.Error(err, "invalid flags")
		os.Exit(2)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(webhook.GoMemoryLimit(opts.MemoryLimit))
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		log.Error(err, "loading kubeconfig")
		os.Exit(1)
	}
	mgr, err := webhook.NewManager(cfg, opts)
	if err != nil {
		log.Error(err, "setting up")
		os.Exit(1)
	}
	log.Info("starting")
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "running")
		os.Exit(1)
	}
}
