package continuous

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the continuous audit's progress and outcome, for Prometheus (docs/reports.md lists
// them).
type Metrics struct {
	objects     *prometheus.GaugeVec
	judged      *prometheus.CounterVec
	errors      *prometheus.CounterVec
	writes      *prometheus.CounterVec
	writeErrors prometheus.Counter
	passes      prometheus.Counter
	lastPass    prometheus.Gauge

	queue  func() int
	synced func() bool
}

// NewMetrics returns the metrics of one Auditor; Register adds them to a registry.
func NewMetrics() *Metrics {
	return &Metrics{
		objects: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kriguard_audit_objects",
			Help: "Objects watched, by kind and the outcome of their last judgement (allowed, denied, warned, dryrun).",
		}, []string{"kind", "outcome"}),
		judged: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kriguard_audit_judgements_total",
			Help: "Objects judged, by kind and the Kuma release judged against: on each change, on each interval and when the release changes.",
		}, []string{"kind", "kuma_release"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kriguard_audit_judgement_errors_total",
			Help: "Objects that could not be judged (not decodable), by kind.",
		}, []string{"kind"}),
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kriguard_audit_report_writes_total",
			Help: "Reports written, by operation (created, updated, deleted); a report already current is not written.",
		}, []string{"operation"}),
		writeErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kriguard_audit_report_write_errors_total",
			Help: "Report writes that failed after their retries on conflict; the object is queued again.",
		}),
		passes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kriguard_audit_passes_total",
			Help: "Intervals at which every object was queued to be judged again.",
		}),
		lastPass: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kriguard_audit_last_pass_timestamp_seconds",
			Help: "When every object was last queued to be judged again (Unix time).",
		}),
	}
}

// Register adds the metrics to r.
func (m *Metrics) Register(r prometheus.Registerer) error {
	queue := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "kriguard_audit_queue_length",
		Help: "Objects waiting to be judged: the progress of a pass.",
	}, func() float64 {
		if m.queue == nil {
			return 0
		}
		return float64(m.queue())
	})
	synced := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "kriguard_audit_synced",
		Help: "1 once every watched kind and the reports are listed, 0 before.",
	}, func() float64 {
		if m.synced != nil && m.synced() {
			return 1
		}
		return 0
	})
	for _, c := range []prometheus.Collector{m.objects, m.judged, m.errors, m.writes, m.writeErrors, m.passes, m.lastPass, queue, synced} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}
