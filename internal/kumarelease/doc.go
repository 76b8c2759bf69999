// Package kumarelease finds which Kuma release a cluster's control plane runs, for the
// configuration's kuma.version auto (docs/releases.md, "Which release a cluster runs").
//
// The control plane's own version decides: the tag of the image of the control-plane container of
// its Deployment (kuma-system/kuma-control-plane, as Kuma's chart installs it), else the
// Deployment's app.kubernetes.io/version label. The Kuma kinds the API server serves are only a
// cross-check: CRDs outlive an upgrade (Helm never deletes them), so a 3.0 control plane may
// still serve 2.14's MeshGateway. A version that cannot be read, or of no supported release,
// gives naming.DefaultRelease, the most permissive, and says why: detection never fails closed.
//
// Detect reads once; a Watcher reads again every interval, so that the webhook follows an
// upgrade without a restart, and logs each change.
package kumarelease
