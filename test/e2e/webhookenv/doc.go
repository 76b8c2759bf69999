// Package webhookenv connects a kriguard webhook to a test control plane the way a cluster does.
//
// It gives the webhook what the Helm chart and the kubelet give it in production: a namespace with an
// (empty) certificate Secret for cert-controller to fill, the Secret's tls.crt and tls.key copied into
// the webhook's certificate folder (the kubelet's job for a mounted Secret), and real
// ValidatingWebhookConfiguration and MutatingWebhookConfiguration objects that reach the webhook at
// https://localhost:<port>/validate and /mutate through clientConfig.url, with no caBundle:
// cert-controller must inject it. The end-to-end tests (test/e2e) and the demo (hack/demo) use it, with
// the webhook either in-process (StartManager) or as the cmd/webhook binary (Setup.Args).
//
// A typical use, with cfg the control plane's *rest.Config and c a client for it:
//
//	s, err := webhookenv.NewSetup(dir)
//	...
//	err = s.Prepare(ctx, c)              // namespace, empty Secret, certificate copier
//	stop, err := webhookenv.StartManager(ctx, cfg, s.Args())
//	err = s.Register(ctx, c)             // webhook configurations
//	err = s.WaitReady(ctx, c)            // CA bundle injected, handlers answering through the API server
package webhookenv
