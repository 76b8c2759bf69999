// Package e2e proves the kriguard admission webhook end to end, against a real kube-apiserver and etcd
// (internal/testenv) serving the real, unmodified Kuma and kong-operator CRDs.
//
// One control plane serves the whole package. TestMain starts the webhook in-process with
// webhook.NewManager, lets cert-controller issue a certificate for localhost and registers real
// Validating and Mutating webhook configurations that call https://localhost:<port>/validate and
// /mutate; the tests then create, update and delete Kuma and Kong objects through a controller-runtime
// client and assert exactly what the API server answers. Other tests run the cmd/webhook binary and the
// demo program (hack/demo) against control planes of their own.
//
// The binaries come from hack/tools.sh: `eval "$(./hack/tools.sh env)"` or `make test`.
package e2e
