// Package chart tests kriguard's Helm chart (charts/kriguard) and its container image against the
// real tools: the pinned helm binary that hack/tools.sh builds, a real kube-apiserver started by
// internal/testenv, and the OCI archive that hack/image.sh writes.
//
// The tests render the chart with several value sets and check what a cluster operator relies on (no
// caBundle in the templates, no wildcard rules, the security context, the least RBAC), submit every
// rendered object to the API server in a server-side dry run, install the webhook configurations and
// route real requests through them to a recording server, run cert-controller as the chart's
// ServiceAccount, and install, upgrade and uninstall the chart with helm.
//
// Nothing here is skipped when a tool is missing: the tests fail and say how to get it (`make test`
// builds the tools and the image first).
package chart
