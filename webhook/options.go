package webhook

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kriguard/kriguard/internal/kumarelease"
	"github.com/kriguard/kriguard/rules"
)

// Certificate management modes (--cert-management).
const (
	// CertManagementController rotates a self-signed CA and serving certificate in-process with
	// cert-controller, stores them in a Secret, and injects the CA into both webhook
	// configurations (the process does, keeping a replaced CA trusted for a while).
	CertManagementController = "cert-controller"
	// CertManagementExternal serves the certificate found in --cert-dir, managed by someone
	// else (cert-manager, a mounted Secret), and reloads it when the files change.
	CertManagementExternal = "external"
)

// Options are the webhook server's settings, one per command-line flag (docs/contracts.md).
type Options struct {
	// ConfigFile is the configuration file (--config); "" means DefaultConfig.
	ConfigFile string
	// WebhookHost and WebhookPort are where the TLS webhook server listens.
	WebhookHost string
	WebhookPort int
	// CertDir holds tls.crt and tls.key.
	CertDir string
	// CertManagement is CertManagementController or CertManagementExternal.
	CertManagement string
	// CertSecretName and CertSecretNamespace name the Secret cert-controller fills.
	CertSecretName      string
	CertSecretNamespace string
	// CertDNSName is the DNS name of the serving certificate; "" means
	// <ServiceName>.<CertSecretNamespace>.svc.
	CertDNSName string
	// ServiceName is the Service in front of the webhook.
	ServiceName string
	// ValidatingWebhookConfiguration and MutatingWebhookConfiguration are the configurations
	// whose CA bundle cert-controller keeps current.
	ValidatingWebhookConfiguration string
	MutatingWebhookConfiguration   string
	// MetricsBindAddress serves /metrics; "0" disables it.
	MetricsBindAddress string
	// HealthProbeBindAddress serves /healthz and /readyz.
	HealthProbeBindAddress string
	// TLSMinVersion is "1.2" or "1.3".
	TLSMinVersion string
	// EnableHTTP2 allows HTTP/2 on the webhook server (off: see the HTTP/2 rapid-reset CVEs).
	EnableHTTP2 bool
	// MemoryLimit is the container's memory limit in bytes, the one value the Go runtime's soft
	// limit and the byte budget of the reviews in flight derive from (docs/limits.md).
	MemoryLimit int64
	// ClientCAFile, when set, is a PEM bundle of the CAs whose client certificates the webhook
	// server requires: only a caller with such a certificate (the API server, configured with
	// an AdmissionConfiguration kubeconfig) gets an answer.
	ClientCAFile string
	// CAOverlap is how long the webhook configurations keep trusting a CA after cert-controller
	// replaced it, so that replicas still serving a certificate of the old CA are not cut off.
	CAOverlap time.Duration
	// ShutdownDelay is how long the server keeps serving after it was told to stop, marked not
	// ready, so that endpoints drop it before it closes its listener.
	ShutdownDelay time.Duration
	// PeerCacheMaxObjects bounds the cache of the existing objects the rules across objects read
	// at admission (PeerCache); 0, the default, turns the cache off. The webhook then needs list
	// and watch on KongSNIs and KongCertificates.
	PeerCacheMaxObjects int
	// KumaRecheckInterval is how often kuma.version auto reads the control plane's version again,
	// so that an upgrade of Kuma is followed without a restart.
	KumaRecheckInterval time.Duration
	// RecordKRI says whether the mutating webhook writes each Kuma object's KRI into its
	// kriguard.io/kri annotation at admission (rules.RecordKRIAdmission) or never
	// (rules.RecordKRIOff; docs/performance.md, "Recording the KRI").
	RecordKRI rules.RecordKRI
}

// NewOptions returns the defaults of every flag.
func NewOptions() Options {
	return Options{
		WebhookPort:                    9443,
		CertDir:                        "/tmp/k8s-webhook-server/serving-certs",
		CertManagement:                 CertManagementController,
		CertSecretName:                 "kriguard-webhook-tls",
		CertSecretNamespace:            os.Getenv("POD_NAMESPACE"),
		ServiceName:                    "kriguard-webhook",
		ValidatingWebhookConfiguration: "kriguard-validating",
		MutatingWebhookConfiguration:   "kriguard-mutating",
		MetricsBindAddress:             ":8080",
		HealthProbeBindAddress:         ":8081",
		TLSMinVersion:                  "1.3",
		ShutdownDelay:                  5 * time.Second,
		MemoryLimit:                    DefaultMemoryLimit,
		CAOverlap:                      defaultCAOverlap,
		KumaRecheckInterval:            kumarelease.DefaultInterval,
		RecordKRI:                      rules.RecordKRIOff,
	}
}

// BindFlags registers every option on fs, with the defaults of NewOptions.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	d := NewOptions()
	fs.StringVar(&o.ConfigFile, "config", d.ConfigFile, "configuration file (empty: built-in defaults)")
	fs.IntVar(&o.WebhookPort, "webhook-port", d.WebhookPort, "TLS port of the webhook server")
	fs.StringVar(&o.WebhookHost, "webhook-host", d.WebhookHost, "address the webhook server binds (empty: all)")
	fs.StringVar(&o.CertDir, "cert-dir", d.CertDir, "folder holding tls.crt and tls.key")
	fs.StringVar(&o.CertManagement, "cert-management", d.CertManagement,
		`"cert-controller" (rotate in-process) or "external" (cert-manager or any mounted secret)`)
	fs.StringVar(&o.CertSecretName, "cert-secret-name", d.CertSecretName, "Secret cert-controller fills")
	fs.StringVar(&o.CertSecretNamespace, "cert-secret-namespace", d.CertSecretNamespace,
		"namespace of that Secret (default $POD_NAMESPACE; required with cert-controller)")
	fs.StringVar(&o.CertDNSName, "cert-dns-name", d.CertDNSName,
		"DNS name in the serving certificate (empty: <service>.<namespace>.svc)")
	fs.StringVar(&o.ServiceName, "service-name", d.ServiceName, "Service that fronts the webhook")
	fs.StringVar(&o.ValidatingWebhookConfiguration, "validating-webhook-configuration", d.ValidatingWebhookConfiguration,
		"ValidatingWebhookConfiguration whose CA bundle the webhook injects")
	fs.StringVar(&o.MutatingWebhookConfiguration, "mutating-webhook-configuration", d.MutatingWebhookConfiguration,
		"MutatingWebhookConfiguration whose CA bundle the webhook injects")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", d.MetricsBindAddress, `address of /metrics ("0" disables)`)
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", d.HealthProbeBindAddress,
		"address of /healthz and /readyz")
	fs.StringVar(&o.TLSMinVersion, "tls-min-version", d.TLSMinVersion, `minimum TLS version, "1.2" or "1.3"`)
	fs.BoolVar(&o.EnableHTTP2, "enable-http2", d.EnableHTTP2, "allow HTTP/2 on the webhook server")
	o.MemoryLimit = d.MemoryLimit
	fs.Func("memory-limit", fmt.Sprintf("the container's memory limit (bytes or a quantity such as 256Mi; default %s): the Go soft limit and the review byte budget derive from it",
		resource.NewQuantity(d.MemoryLimit, resource.BinarySI)), func(s string) error {
		q, err := resource.ParseQuantity(s)
		if err != nil {
			return err
		}
		o.MemoryLimit = q.Value()
		return nil
	})
	fs.StringVar(&o.ClientCAFile, "client-ca-file", d.ClientCAFile,
		"PEM file of the CAs whose client certificates callers must present (empty: no client certificate required)")
	fs.DurationVar(&o.CAOverlap, "ca-overlap", d.CAOverlap,
		"how long the webhook configurations keep trusting a CA that cert-controller replaced")
	fs.IntVar(&o.PeerCacheMaxObjects, "peer-cache-max-objects", d.PeerCacheMaxObjects,
		"most KongSNIs and KongCertificates cached (list and watch) to compare admitted KongSNIs with (docs/unique.md; 4 KiB each is charged to the memory budget: 256Mi holds 18022); past it, or before the cache syncs, requests are admitted with a note; 0 turns the cache off")
	fs.DurationVar(&o.ShutdownDelay, "shutdown-delay", d.ShutdownDelay,
		"time the server keeps serving after SIGTERM before it stops")
	fs.DurationVar(&o.KumaRecheckInterval, "kuma-recheck-interval", d.KumaRecheckInterval,
		"with kuma.version auto, how often the Kuma control plane's version is read again")
	fs.StringVar((*string)(&o.RecordKRI), "record-kri", string(d.RecordKRI), fmt.Sprintf(
		`where each Kuma object's KRI is recorded in its kriguard.io/kri annotation: %q (the mutating webhook writes it on CREATE and UPDATE) or %q (never written, nor removed: a CREATE with a name then costs no patch; docs/performance.md)`,
		rules.RecordKRIAdmission, rules.RecordKRIOff))
}

// Validate reports every bad option, each naming its flag.
func (o *Options) Validate() error {
	var errs []error
	bad := func(flagName, format string, args ...any) {
		errs = append(errs, fmt.Errorf("--%s: %s", flagName, fmt.Sprintf(format, args...)))
	}
	if o.WebhookPort < 1 || o.WebhookPort > 65535 {
		bad("webhook-port", "%d is not a port number (1-65535)", o.WebhookPort)
	}
	if o.CertDir == "" {
		bad("cert-dir", "must not be empty")
	}
	switch o.CertManagement {
	case CertManagementController:
		if o.CertSecretName == "" {
			bad("cert-secret-name", "required with --cert-management=%s", CertManagementController)
		}
		if o.CertSecretNamespace == "" {
			bad("cert-secret-namespace", "required with --cert-management=%s (or set POD_NAMESPACE)", CertManagementController)
		}
		if o.ServiceName == "" && o.CertDNSName == "" {
			bad("service-name", "required with --cert-management=%s unless --cert-dns-name is set", CertManagementController)
		}
		if o.ValidatingWebhookConfiguration == "" {
			bad("validating-webhook-configuration", "required with --cert-management=%s", CertManagementController)
		}
		if o.MutatingWebhookConfiguration == "" {
			bad("mutating-webhook-configuration", "required with --cert-management=%s", CertManagementController)
		}
	case CertManagementExternal:
	default:
		bad("cert-management", "unsupported value %q: must be %q or %q", o.CertManagement, CertManagementController, CertManagementExternal)
	}
	if _, err := tlsVersion(o.TLSMinVersion); err != nil {
		bad("tls-min-version", "%v", err)
	}
	if _, err := NewBudget(o.MemoryLimit); err != nil {
		bad("memory-limit", "%v", err)
	} else if o.PeerCacheMaxObjects < 0 {
		bad("peer-cache-max-objects", "%d is negative", o.PeerCacheMaxObjects)
	} else if _, err := NewBudgetBeside(o.MemoryLimit, PeerCacheMemory(o.PeerCacheMaxObjects)); err != nil {
		// The cache's memory at its bound is charged to the budget (docs/limits.md).
		bad("peer-cache-max-objects", "%d objects hold up to %d bytes (%d each), more than --memory-limit %s leaves beside the reviews: at most %d fit; raise --memory-limit by %d bytes per object or lower --peer-cache-max-objects",
			o.PeerCacheMaxObjects, PeerCacheMemory(o.PeerCacheMaxObjects), peerObjectCost,
			resource.NewQuantity(o.MemoryLimit, resource.BinarySI), maxPeersFor(o.MemoryLimit), peerObjectCost*10/9+1)
	}
	if o.CAOverlap <= 0 {
		bad("ca-overlap", "%s is not positive", o.CAOverlap)
	}
	if o.KumaRecheckInterval <= 0 {
		bad("kuma-recheck-interval", "%s is not positive", o.KumaRecheckInterval)
	}
	if o.RecordKRI != rules.RecordKRIAdmission && o.RecordKRI != rules.RecordKRIOff {
		bad("record-kri", "unsupported value %q: must be %q or %q", o.RecordKRI, rules.RecordKRIAdmission, rules.RecordKRIOff)
	}
	if o.ShutdownDelay < 0 {
		bad("shutdown-delay", "%s is negative", o.ShutdownDelay)
	}
	return errors.Join(errs...)
}

// dnsName is the DNS name of the serving certificate.
func (o *Options) dnsName() string {
	if o.CertDNSName != "" {
		return o.CertDNSName
	}
	return o.ServiceName + "." + o.CertSecretNamespace + ".svc"
}

func tlsVersion(v string) (uint16, error) {
	switch v {
	case "1.2":
		return tls.VersionTLS12, nil
	case "1.3":
		return tls.VersionTLS13, nil
	}
	return 0, fmt.Errorf("unsupported value %q: must be \"1.2\" or \"1.3\"", v)
}
