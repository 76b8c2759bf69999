package webhookenv

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"k8s.io/client-go/rest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

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
	stop = func() error {
		cancel()
		return <-done
	}

	// controller-runtime starts the manager's WebhookServer only once GetWebhookServer (or Add) has
	// added it, and webhook.NewManager did neither when this was written: the TLS port stayed closed.
	// Add it here when the port is still closed after the manager's own servers are up, so that the
	// tests exercise everything else; the binary (TestBinary) shows the problem as it is. When
	// NewManager adds the server, the port is open and nothing is done twice.
	if err := waitHTTP(ctx, "http://"+o.HealthProbeBindAddress+"/healthz", 30*time.Second); err != nil {
		return nil, fmt.Errorf("waiting for the manager's health endpoint: %w (manager: %v)", err, stop())
	}
	addr := net.JoinHostPort(o.WebhookHost, strconv.Itoa(o.WebhookPort))
	if o.WebhookHost == "" {
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(o.WebhookPort))
	}
	if !listening(ctx, addr, 5*time.Second) {
		logf.Log.WithName("webhookenv").Info("webhook server not started by the manager; adding it", "address", addr)
		_ = mgr.GetWebhookServer()
	}
	return stop, nil
}

// waitHTTP waits until url answers at all (any status).
func waitHTTP(ctx context.Context, url string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return poll(ctx, func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
}

// listening reports whether addr accepts TCP connections within d.
func listening(ctx context.Context, addr string, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return poll(ctx, func() error {
		c, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return c.Close()
	}) == nil
}
