package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kriguard/kriguard/internal/continuous"
	"github.com/kriguard/kriguard/internal/kumarelease"
	"github.com/kriguard/kriguard/rules"
)

// audit runs the continuous audit (`kriguard-webhook audit`, the chart's audit.enabled) instead of
// the webhook: package continuous, its metrics on /metrics, /healthz, and /readyz once synced.
func audit(args []string) int {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	configFile := fs.String("config", "", "configuration file (empty: built-in defaults)")
	interval := fs.Duration("interval", 10*time.Minute, "how often every object is judged again")
	kinds := fs.String("kinds", "", "comma-separated Kind.group of the guarded kinds to watch (empty: every guarded kind served)")
	workers := fs.Int("workers", 4, "objects judged, and report writes under way, at once")
	recheck := fs.Duration("kuma-recheck-interval", kumarelease.DefaultInterval, "with kuma.version or kuma.mode auto, how often the Kuma control plane's version and mode are read again")
	metricsAddr := fs.String("metrics-bind-address", ":8080", `address of /metrics ("0" disables)`)
	healthAddr := fs.String("health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	log := ctrl.Log.WithName("audit")
	if *interval <= 0 || *workers <= 0 || *recheck <= 0 {
		log.Error(errors.New("--interval, --workers and --kuma-recheck-interval must be positive"), "invalid flags")
		return 2
	}
	var watch []schema.GroupKind
	for k := range strings.SplitSeq(*kinds, ",") {
		if k = strings.TrimSpace(k); k == "" {
			continue
		}
		gk := schema.ParseGroupKind(k)
		if gk.Group == "" {
			log.Error(fmt.Errorf("--kinds: %q is not Kind.group", k), "invalid flags")
			return 2
		}
		watch = append(watch, gk)
	}
	conf, err := rules.LoadConfig(*configFile)
	if err != nil {
		log.Error(err, "loading the configuration")
		return 2
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		log.Error(err, "loading kubeconfig")
		return 1
	}
	m := continuous.NewMetrics()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if err := m.Register(reg); err != nil {
		log.Error(err, "registering the metrics")
		return 1
	}
	ctx := ctrl.SetupSignalHandler()
	opts := continuous.Options{Rules: conf, Kinds: watch, Interval: *interval, Workers: *workers, Metrics: m, Log: log}
	var detected <-chan struct{}
	if conf.Auto() || conf.Mode() == rules.ModeAuto {
		// As the webhook: the release and the mode of the control plane, followed as they change.
		w, err := releaseWatcher(cfg, conf, *recheck, log.WithName("kuma"))
		if err != nil {
			log.Error(err, "setting up")
			return 1
		}
		go func() { _ = w.Start(ctx) }()
		detected = w.Checked()
		if conf.Auto() {
			opts.Release = w.Release
		}
		if conf.Mode() == rules.ModeAuto {
			opts.Mode = func() rules.Mode { return rules.Mode(w.Mode()) }
		}
	}
	a, err := continuous.New(cfg, opts)
	if err != nil {
		log.Error(err, "setting up")
		return 1
	}
	health := http.NewServeMux()
	health.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	health.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !a.Synced() {
			http.Error(w, "not synced", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	servers := []*http.Server{{Addr: *healthAddr, Handler: health, ReadHeaderTimeout: 5 * time.Second}}
	if *metricsAddr != "0" {
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		servers = append(servers, &http.Server{Addr: *metricsAddr, Handler: mux, ReadHeaderTimeout: 5 * time.Second})
	}
	errs := make(chan error, len(servers)+1)
	for _, s := range servers {
		go func() {
			if err := s.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
				errs <- err
			}
		}()
	}
	log.Info("starting", "interval", *interval, "workers", *workers)
	go func() {
		if detected != nil {
			// Nothing is judged before the release is known, or known to be unknown: the first
			// detection ends within the recheck interval or 10s, whichever is longer.
			select {
			case <-detected:
			case <-ctx.Done():
				errs <- nil
				return
			}
		}
		errs <- a.Run(ctx)
	}()
	code := 0
	select {
	case err := <-errs:
		if err != nil {
			log.Error(err, "running")
			code = 1
		}
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(shutdown)
	}
	return code
}

// releaseWatcher returns the watcher of the Kuma release and mode that kuma.version or kuma.mode
// auto ask for, as the webhook's (docs/releases.md): one GET of the control plane's Deployment by name, which RBAC can
// limit to that name, and the served Kuma kinds with discovery.
func releaseWatcher(cfg *rest.Config, conf *rules.Config, interval time.Duration, log logr.Logger) (*kumarelease.Watcher, error) {
	get, err := kumarelease.FromConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the discovery client: %w", err)
	}
	ns, name := conf.ControlPlaneDeployment()
	return kumarelease.NewWatcher(get, dc, kumarelease.Options{Namespace: ns, Deployment: name}, interval, log), nil
}
