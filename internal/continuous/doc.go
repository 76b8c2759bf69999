// Package continuous is the continuous audit: it watches the guarded kinds a cluster serves
// (informers), judges each object as kriguard audit does when it is created or changed and again on an
// interval, and keeps each object's OpenReports report current (package reports): it writes only
// what changed, and deletes the reports of objects fixed or gone. Its progress and outcome are
// Prometheus metrics. The chart runs it as an optional Deployment (audit.enabled); docs/reports.md
// describes it.
//
// An object is kept in memory as its JSON without managedFields, not as a decoded object: about
// docs/reports.md's figure per 10,000 objects.
package continuous
