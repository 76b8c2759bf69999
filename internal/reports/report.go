package reports

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/openreports/reports-api/apis/openreports.io/v1alpha1"

	"github.com/kriguard/kriguard/rules"
)

// Source is the source of kriguard's reports and of each of their results.
const Source = "kriguard"

// The labels of every report kriguard writes.
const (
	// ManagedByLabel is the recommended label that says which tool writes the report; its value
	// is ManagedBy. kriguard lists, updates and prunes only reports that carry it.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "kriguard"
	// UIDLabel holds the UID of the object the report is about.
	UIDLabel = "kriguard.io/resource.uid"
	// KindLabel holds the kind of the object the report is about, as Kind.group
	// (MeshTimeout.kuma.io).
	KindLabel = "kriguard.io/resource.kind"
)

// Selector selects the reports kriguard writes.
const Selector = ManagedByLabel + "=" + ManagedBy

// MaxResults is the most results a report holds; the summary counts every finding. A report is one
// etcd object, and an object can have tens of thousands of findings (one per bad target
// reference).
const MaxResults = rules.MaxCauses

// Subject is a judged object, as its report refers to it.
type Subject struct {
	APIVersion, Kind string
	Namespace, Name  string
	UID              types.UID
}

// GroupKind returns the subject's kind as KindLabel holds it: Kind.group, or Kind for the core
// group.
func (s Subject) GroupKind() string {
	group, _, _ := strings.Cut(s.APIVersion, "/")
	if !strings.Contains(s.APIVersion, "/") {
		group = ""
	}
	if group == "" {
		return s.Kind
	}
	return s.Kind + "." + group
}

// Name returns the name of the report on the object with uid. The prefix keeps it apart from the
// reports other tools name after the same UID (Kyverno's).
func Name(uid types.UID) string { return "kriguard-" + string(uid) }

// Key returns where the report on s is: its namespace ("" for a ClusterReport) and name.
func Key(s Subject) types.NamespacedName {
	return types.NamespacedName{Namespace: s.Namespace, Name: Name(s.UID)}
}

// Build returns the report of d on s, its results stamped with now; nil when d has no findings: an
// object without findings has no report (docs/reports.md says why). A report with an empty
// Namespace is a ClusterReport.
func Build(s Subject, d *rules.Decision, now time.Time) *v1alpha1.Report {
	findings := d.Findings()
	if len(findings) == 0 {
		return nil
	}
	r := &v1alpha1.Report{
		ObjectMeta: metav1.ObjectMeta{
			Name:      Name(s.UID),
			Namespace: s.Namespace,
			Labels: map[string]string{
				ManagedByLabel: ManagedBy,
				UIDLabel:       string(s.UID),
				KindLabel:      s.GroupKind(),
			},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: s.APIVersion, Kind: s.Kind, Name: s.Name, UID: s.UID}},
		},
		Source: Source,
		Scope:  &corev1.ObjectReference{APIVersion: s.APIVersion, Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, UID: s.UID},
	}
	if len(findings) > MaxResults {
		r.Configuration = &v1alpha1.ReportConfiguration{Limits: v1alpha1.Limits{MaxResults: MaxResults}}
	}
	kri := ""
	if d.KRIValid {
		kri = d.KRI()
	}
	ts := metav1.Timestamp{Seconds: now.Unix()}
	for i := range findings {
		f := &findings[i]
		res, sev := outcome(f.Level)
		switch res {
		case v1alpha1.Result("fail"):
			r.Summary.Fail++
		case v1alpha1.Result("warn"):
			r.Summary.Warn++
		}
		if len(r.Results) == MaxResults {
			continue
		}
		props := map[string]string{
			"field":       boundField(f.Problem.Field),
			"level":       string(f.Level),
			"enforcement": string(d.Enforcement),
		}
		if kri != "" {
			props["kri"] = kri
		}
		r.Results = append(r.Results, v1alpha1.ReportResult{
			Source:      Source,
			Policy:      string(f.Rule),
			Rule:        string(f.Rule),
			Category:    category(f.Rule),
			Severity:    sev,
			Timestamp:   ts,
			Result:      res,
			Description: f.Message(),
			Properties:  props,
		})
	}
	return r
}

// outcome maps a finding's level to an OpenReports result and severity: a problem is a failure
// whatever the kind's enforcement (the enforcement is a property), a pre-existing problem a
// warning, a note a warning of severity info.
func outcome(l rules.Level) (v1alpha1.Result, v1alpha1.ResultSeverity) {
	switch l {
	case rules.LevelError:
		return "fail", "high"
	case rules.LevelWarning:
		return "warn", "medium"
	}
	return "warn", "info"
}

// category is the system a rule is about: Kuma or Kong, from its id.
func category(r rules.Rule) string {
	switch system, _, _ := strings.Cut(string(r), "/"); system {
	case "kuma":
		return "Kuma"
	case "kong":
		return "Kong"
	default:
		return system
	}
}

// boundField cuts a field path to rules.MaxFieldBytes, as the other outputs do.
func boundField(s string) string {
	if len(s) <= rules.MaxFieldBytes {
		return s
	}
	return strings.ToValidUTF8(s[:rules.MaxFieldBytes], "") + "..."
}

// Same reports whether existing already says what desired says: the labels kriguard sets, the
// owner, scope, configuration, summary and results, the results compared without their
// timestamps. Labels and annotations that others add are not compared.
func Same(desired, existing *v1alpha1.Report) bool {
	for k, v := range desired.Labels {
		if existing.Labels[k] != v {
			return false
		}
	}
	if !apiequality.Semantic.DeepEqual(desired.OwnerReferences, existing.OwnerReferences) ||
		desired.Source != existing.Source ||
		!apiequality.Semantic.DeepEqual(desired.Scope, existing.Scope) ||
		!apiequality.Semantic.DeepEqual(desired.ScopeSelector, existing.ScopeSelector) ||
		!apiequality.Semantic.DeepEqual(desired.Configuration, existing.Configuration) ||
		desired.Summary != existing.Summary ||
		len(desired.Results) != len(existing.Results) {
		return false
	}
	for i := range desired.Results {
		if !sameResult(&desired.Results[i], &existing.Results[i]) {
			return false
		}
	}
	return true
}

func sameResult(a, b *v1alpha1.ReportResult) bool {
	ac, bc := *a, *b
	ac.Timestamp, bc.Timestamp = metav1.Timestamp{}, metav1.Timestamp{}
	return apiequality.Semantic.DeepEqual(ac, bc)
}

// update returns desired as an update of existing: existing's metadata (its resourceVersion, and
// the labels and annotations others set) with desired's labels, and the timestamps of the results
// that did not change, so that a result's timestamp says since when it holds.
func update(desired, existing *v1alpha1.Report) *v1alpha1.Report {
	u := existing.DeepCopy()
	if u.Labels == nil {
		u.Labels = map[string]string{}
	}
	for k, v := range desired.Labels {
		u.Labels[k] = v
	}
	u.OwnerReferences = desired.OwnerReferences
	u.Source, u.Scope, u.ScopeSelector, u.Configuration = desired.Source, desired.Scope, desired.ScopeSelector, desired.Configuration
	u.Summary = desired.Summary
	u.Results = make([]v1alpha1.ReportResult, len(desired.Results))
	for i := range desired.Results {
		u.Results[i] = *desired.Results[i].DeepCopy()
		for j := range existing.Results {
			if sameResult(&desired.Results[i], &existing.Results[j]) {
				u.Results[i].Timestamp = existing.Results[j].Timestamp
				break
			}
		}
	}
	return u
}
