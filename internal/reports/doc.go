// Package reports turns the rules' decisions into OpenReports (openreports.io/v1alpha1) and keeps
// them current in a cluster, the way Kyverno and Kubewarden write theirs, so that policy-reporter
// and other readers of OpenReports show kriguard's findings beside theirs (docs/reports.md).
//
// Build makes the report of one judged object: a Report in the object's namespace, or a
// ClusterReport for a cluster-scoped object, named after the object's UID and owned by the object,
// so that the garbage collector removes it with the object. An object without findings has no
// report. A Writer writes a report only when it differs from the one the cluster holds, compared
// without the results' timestamps, retries each write on conflict, and counts what it wrote. A
// Batch runs a Writer's writes for a whole audit, a bounded number at once, and prunes the reports
// of objects no longer found or no longer at fault. WriteYAML prints a report as the cluster would
// receive it.
package reports
