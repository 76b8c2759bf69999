package webhook

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kriguard/kriguard/rules"
)

func TestOptions(t *testing.T) {
	t.Setenv("POD_NAMESPACE", "kriguard-system")
	var o Options
	fs := flag.NewFlagSet("webhook", flag.ContinueOnError)
	o.BindFlags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if o.CertSecretNamespace != "kriguard-system" || o.WebhookPort != 9443 || o.TLSMinVersion != "1.3" ||
		o.ShutdownDelay != 5*time.Second || o.EnableHTTP2 || o.CertManagement != CertManagementController ||
		o.RecordKRI != rules.RecordKRIOff {
		t.Fatalf("defaults: %+v", o)
	}
	if err := o.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	if got := o.dnsName(); got != "kriguard-webhook.kriguard-system.svc" {
		t.Errorf("dnsName = %q", got)
	}

	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"--webhook-port=0"}, "--webhook-port: 0 is not a port number"},
		{[]string{"--cert-management=manual"}, `--cert-management: unsupported value "manual"`},
		{[]string{"--cert-secret-namespace="}, "--cert-secret-namespace: required with --cert-management=cert-controller"},
		{[]string{"--cert-secret-name="}, "--cert-secret-name: required"},
		{[]string{"--validating-webhook-configuration="}, "--validating-webhook-configuration: required"},
		{[]string{"--mutating-webhook-configuration="}, "--mutating-webhook-configuration: required"},
		{[]string{"--tls-min-version=1.1"}, `--tls-min-version: unsupported value "1.1"`},
		{[]string{"--shutdown-delay=-1s"}, "--shutdown-delay: -1s is negative"},
		{[]string{"--cert-dir="}, "--cert-dir: must not be empty"},
		{[]string{"--record-kri=off"}, ""},
		{[]string{"--record-kri=admission"}, ""},
		{[]string{"--record-kri=controller"}, `--record-kri: unsupported value "controller": must be "admission" or "off"`},
		{[]string{"--cert-management=external", "--cert-secret-namespace="}, ""},
		{[]string{"--tls-min-version=1.2", "--enable-http2", "--shutdown-delay=0"}, ""},
		{[]string{"--peer-cache-max-objects=-1"}, "--peer-cache-max-objects: -1 is negative"},
		// The cache's memory at its bound is charged to the budget: 256Mi holds maxPeersFor(256Mi).
		{[]string{fmt.Sprintf("--peer-cache-max-objects=%d", maxPeersFor(DefaultMemoryLimit))}, ""},
		{[]string{fmt.Sprintf("--peer-cache-max-objects=%d", maxPeersFor(DefaultMemoryLimit)+1)},
			fmt.Sprintf("--peer-cache-max-objects: %d objects hold up to", maxPeersFor(DefaultMemoryLimit)+1)},
		{[]string{"--peer-cache-max-objects=50000"}, fmt.Sprintf("more than --memory-limit 256Mi leaves beside the reviews: at most %d fit", maxPeersFor(DefaultMemoryLimit))},
		{[]string{"--peer-cache-max-objects=50000", "--memory-limit=448Mi"}, ""},
		// A limit too small for the reviews alone names --memory-limit, not the cache.
		{[]string{"--peer-cache-max-objects=50000", "--memory-limit=100Mi"}, "--memory-limit: "},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var o Options
			fs := flag.NewFlagSet("webhook", flag.ContinueOnError)
			o.BindFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			err := o.Validate()
			if tt.err == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Validate = %v, want %q", err, tt.err)
			}
		})
	}
}
