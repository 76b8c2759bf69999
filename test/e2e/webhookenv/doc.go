// Package webhookenv connects a kriguard webhook to a test control plane the way a cluster does.
//
// It gives the webhook what the Helm chart gives it in production: its namespace, free ports, and real
// ValidatingWebhookConfiguration and MutatingWebhookConfiguration objects that reach the webhook at
// https://localhost:<port>/validate and /mutate through clientConfig.url, with no caBundle:
// cert-controller, inside the webhook, must issue a certificate for localhost and the webhook inject its CA. The end-to-end tests (test/e2e) and the demo (hack/demo) use it, with
// the webhook either in-process (StartManager) or as the cmd/webhook binary (Setup.Args).
//
// A typical use, with cfg the control plane's *rest.Config and c a client for it:
//
//	s, err := webhookenv.NewSetup(dir)
//	...
//	err = s.Prepare(ctx, c)              // the webhook's namespace
//	stop, err := webhookenv.StartManager(ctx, cfg, s.Args())
//	err = s.Register(ctx, c)             // webhook configurations
//	err = s.WaitReady(ctx, c)            // CA bundle injected, handlers answering through the API server
package webhookenv
