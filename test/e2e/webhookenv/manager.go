package webhookenv

import (
	"context"
	"flag"
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/kriguard/kriguard/webhook"
)

// StartManager runs the webhook in this process, configured by the same flags as cmd/webhook (see
// Setup.Args), until ctx ends or stop is called. stop returns what the manager returned.
//
// controller-runtime allows one controller of a name per process, so a process runs at most one
// manager built this way; a second webhook runs as the cmd/webhook binary.
func StartManager(ctx context.Context, cfg *rest.Config, args []string) (stop func() error, err error) {
	var o webhook.Options
	fs := flag.NewFlagSet("webhook", flag.ContinueOnError)
	o.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("parsing webhook flags: %w", err)
	}
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("validating webhook flags: %w", err)
	}
	mgr, err := webhook.NewManager(cfg, o)
	if err != nil {
		return nil, fmt.Errorf("creating the webhook manager: %w", err)
	}
	// The manager starts its webhook server only once GetWebhookServer has added it;
	// webhook.NewManager (at the time of writing) never calls it, so the TLS port would stay closed.
	// Calling it again after a fix is harmless: it adds the server once.
	_ = mgr.GetWebhookServer()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() error {
		cancel()
		return <-done
	}, nil
}
