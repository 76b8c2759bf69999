package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kriguard/kriguard/internal/reports"
	"github.com/kriguard/kriguard/rules"
)

// The values of audit's --report.
const (
	reportNone    = ""
	reportCluster = "cluster"
	reportYAML    = "yaml"
)

func reportFlags(a *app, fs *pflag.FlagSet) {
	fs.StringVar(&a.report, "report", reportNone, "also write OpenReports to the cluster (cluster), or print them instead of the results (yaml)")
	fs.IntVar(&a.reportConcurrency, "report-concurrency", 8, "report writes under way at once with --report=cluster")
}

// reporter makes the reports of one audit: writes them (--report=cluster) or prints them
// (--report=yaml).
type reporter struct {
	a     *app
	now   time.Time
	batch *reports.Batch // cluster only
	w     *reports.Writer
	// partial are the kinds (reports.Subject.GroupKind) whose objects were not all listed and
	// judged: their reports are not pruned.
	partial []string
	failed  int
	err     error // the first write error of yaml
}

// newReporter sets au up to report its decisions, or returns nil without --report.
func (a *app) newReporter(ctx context.Context, au *auditor) (*reporter, error) {
	switch a.report {
	case reportNone:
		return nil, nil
	case reportCluster, reportYAML:
	default:
		return nil, usagef("--report must be cluster or yaml, not %q", a.report)
	}
	if a.reportConcurrency < 1 {
		return nil, usagef("--report-concurrency must be positive")
	}
	r := &reporter{a: a, now: time.Now()}
	if a.report == reportCluster {
		// A client of its own: its writes have their own rate limit, as the lists have theirs.
		c, err := reports.NewClientForConfig(clientConfig(au.rest))
		if err != nil {
			return nil, fmt.Errorf("building the reports client: %w", err)
		}
		existing, err := reports.List(ctx, c, au.namespace, au.namespace == "", au.chunk)
		if err != nil {
			return nil, err
		}
		r.w = reports.NewWriter(c)
		r.batch = reports.NewBatch(r.w, existing, a.reportConcurrency, func(err error) {
			r.failed++
			fmt.Fprintf(a.errOut, "kriguard audit: %v\n", err)
		})
	}
	au.decided = r.decided
	au.listed = func(k auditKind, all bool) {
		if !all {
			r.partial = append(r.partial, subject(k, objectMeta{}).GroupKind())
		}
	}
	return r, nil
}

// objectMeta is what a report reads of a listed object's metadata.
type objectMeta struct {
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	UID       types.UID `json:"uid"`
}

func subject(k auditKind, m objectMeta) reports.Subject {
	return reports.Subject{APIVersion: k.APIVersion(), Kind: k.Kind, Namespace: m.Namespace, Name: m.Name, UID: m.UID}
}

func (r *reporter) decided(k auditKind, item []byte, d *rules.Decision) {
	var obj struct {
		Metadata objectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(item, &obj); err != nil || obj.Metadata.UID == "" {
		return // Decide read it: it has metadata; an object without a UID is none the cluster holds
	}
	s := subject(k, obj.Metadata)
	desired := reports.Build(s, d, r.now)
	if r.batch != nil {
		r.batch.Put(context.Background(), s, desired)
		return
	}
	if desired != nil && r.err == nil {
		r.err = reports.WriteYAML(r.a.out, desired)
	}
}

// finish prunes, waits for the writes and says what they did; a write that failed counts as an
// error in t.
func (r *reporter) finish(ctx context.Context, t *tally) error {
	if r.batch == nil {
		if r.err != nil {
			return writeError{r.err}
		}
		return nil
	}
	if ctx.Err() == nil {
		r.batch.Prune(ctx, func(kind string) bool { return slices.Contains(r.partial, kind) })
	}
	r.batch.Wait()
	st := &r.w.Stats
	fmt.Fprintf(r.a.errOut, "reports: %d created, %d updated, %d deleted, %d unchanged, %d failed (%d writes)\n",
		st.Created.Load(), st.Updated.Load(), st.Deleted.Load(), st.Unchanged.Load(), st.Failed.Load(), st.Writes.Load())
	t.errors += r.failed
	return errors.Join(ctx.Err())
}

// discard drops results: --report=yaml prints the reports instead.
type discard struct{}

func (discard) write(Result) error { return nil }
func (discard) close() error       { return nil }
