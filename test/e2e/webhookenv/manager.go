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
func StartManager(ctx context.Context, cfg *rest.Config, args []string) (stop func() error, err error) {
	o := webhook.NewOptions()
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
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() error {
		cancel()
		return <-done
	}, nil
}
