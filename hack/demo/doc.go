// Command demo is what `make demo` runs (through hack/demo.sh): a local control plane guarded by the
// kriguard webhook, and every sample object of examples/ applied to it with kubectl.
//
// It starts kube-apiserver and etcd from the harness's binaries (internal/testenv) with the Kuma and
// Kong CRDs, runs the webhook in-process (webhook.NewManager) with a certificate for localhost issued
// by cert-controller and KRI recording turned on (--record-kri=admission, the opt-in: it says so, and
// each created Kuma object's line shows its recorded KRI), registers real validating and mutating webhook configurations, writes a
// kubeconfig, and then, per file of examples/, runs `kubectl create` (objects with generateName) or
// `kubectl apply` and prints what the API server answered: the object created and the name it got, or
// the exact rejection.
//
// Every example states what it expects in a comment line:
//
//	# expect: created
//	# expect: created as timeouts-c6zz4z2f8d7c9x6x
//	# expect: rejected
//
// Then it shows the kriguard command (internal/cli, run in-process as cmd/kriguard runs it): `kriguard
// check` on examples/, `kriguard audit` on the cluster after creating three MeshRetry objects with
// broken names (the demo's webhook configuration only warns for MeshRetry), and `kriguard envoy` on a
// Kuma-sidecar-shaped config dump it writes and serves like Envoy's admin /config_dump.
//
// The demo exits non-zero when an outcome differs. With -keep it leaves everything running, prints
// the kubeconfig and a kubectl command to try, and waits for Ctrl-C.
package main
