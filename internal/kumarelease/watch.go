package kumarelease

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	"github.com/kriguard/kriguard/naming"
)

// DefaultInterval is how often a Watcher reads the control plane's version again.
const DefaultInterval = 30 * time.Second

// detectTimeout is the least time one detection is given.
const detectTimeout = 10 * time.Second

// Watcher keeps the release of the control plane current: it detects it when started, then
// every Interval, and logs each change, so that an upgrade of Kuma is followed without a restart.
// Until the first detection, and whenever the release is unknown, Release is
// naming.DefaultRelease. It is a controller-runtime Runnable that needs no leader election.
type Watcher struct {
	get      GetDeployment
	lister   ResourceLister
	opts     Options
	interval time.Duration
	log      logr.Logger

	current atomic.Pointer[Detection]
	// checked is closed after the first detection.
	checked chan struct{}
}

// NewWatcher returns a Watcher that reads the Deployment with get and the served kinds with d
// (nil: no cross-check), every interval (DefaultInterval when not positive), logging to log.
func NewWatcher(get GetDeployment, d ResourceLister, o Options, interval time.Duration, log logr.Logger) *Watcher {
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &Watcher{get: get, lister: d, opts: o, interval: interval, log: log, checked: make(chan struct{})}
}

// Release returns the release to judge against now.
func (w *Watcher) Release() naming.Release { return w.Detection().Release }

// Mode returns the control plane's mode now (ModeOf); "" while it is unknown.
func (w *Watcher) Mode() string { return w.Detection().Mode }

// Detection returns the last detection; before the first one, naming.DefaultRelease, not Known.
func (w *Watcher) Detection() Detection {
	if d := w.current.Load(); d != nil {
		return *d
	}
	return Detection{Release: naming.DefaultRelease, Problem: "not detected yet", ModeProblem: "not detected yet"}
}

// Checked is closed once the first detection is done.
func (w *Watcher) Checked() <-chan struct{} { return w.checked }

// NeedLeaderElection returns false: every replica judges, so every replica detects.
func (w *Watcher) NeedLeaderElection() bool { return false }

// Start detects now and then every interval until ctx is done.
func (w *Watcher) Start(ctx context.Context) error {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for first := true; ; first = false {
		w.check(ctx)
		if first {
			close(w.checked)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// check detects once, stores the result and logs it when it changed.
func (w *Watcher) check(ctx context.Context) {
	// A slow API server gets more than a short interval: an answer late is better than none.
	ctx, cancel := context.WithTimeout(ctx, max(w.interval, detectTimeout))
	defer cancel()
	d := Detect(ctx, w.get, w.lister, w.opts)
	if ctx.Err() != nil && w.current.Load() != nil {
		return // stopping, or the API server did not answer in time: keep what was known
	}
	old := w.current.Swap(&d)
	if old != nil && *old == d {
		return
	}
	// One line says what objects are judged against: logged again when the release or the mode
	// changes.
	kv := []any{"kumaRelease", d.Release.String(), "version", d.Version, "source", d.Source}
	if old != nil {
		kv = append(kv, "previous", old.Release.String())
	}
	kv = append(kv, "kumaMode", modeLabel(d.Mode))
	if old != nil && old.Mode != d.Mode {
		kv = append(kv, "previousMode", modeLabel(old.Mode))
	}
	if d.Known {
		w.log.Info("kuma release detected", kv...)
	} else {
		if d.Served != (naming.Release{}) {
			kv = append(kv, "servedKindsOf", d.Served.String())
		}
		w.log.Info("warning: the Kuma release is unknown: objects are judged against the default release, the most permissive", append(kv, "reason", d.Problem)...)
	}
	if old == nil || old.Mode != d.Mode || old.ModeProblem != d.ModeProblem {
		kv := []any{"kumaMode", d.Mode}
		if old != nil {
			kv = append(kv, "previous", old.Mode)
		}
		if d.Mode != "" {
			w.log.Info("kuma mode detected", kv...)
		} else {
			w.log.Info("warning: the Kuma mode is unknown: KDS copies that cannot be stored are noted, not denied", append(kv, "reason", d.ModeProblem)...)
		}
	}
	if d.CrossCheck != "" {
		w.log.Info("warning: the served Kuma kinds disagree with the control plane's release", "kumaRelease", d.Release.String(), "crossCheck", d.CrossCheck)
	}
}

// modeLabel is how the log names a mode: "unknown" when it is.
func modeLabel(m string) string {
	if m == "" {
		return "unknown"
	}
	return m
}
