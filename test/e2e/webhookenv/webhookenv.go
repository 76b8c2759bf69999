package webhookenv

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/rules"
)

// Guarded API groups: every Kuma and Kong kind the webhook may be configured to guard.
var guardedGroups = []string{"kuma.io", "configuration.konghq.com"}

// Setup describes one webhook instance and how the control plane reaches it. NewSetup fills it with
// free loopback ports and the names the tests use; fields may be changed before Prepare.
type Setup struct {
	// Namespace is the webhook's own namespace, where cert-controller keeps its Secret.
	Namespace  string
	SecretName string
	// ValidatingName and MutatingName name the webhook configurations Register creates and
	// the webhook injects the CA bundle into.
	ValidatingName string
	MutatingName   string
	// Host is the address the webhook binds; DNSName the name in its certificate and in the URLs.
	Host    string
	DNSName string
	// Ports on Host: the TLS webhook server, the health probes and the metrics.
	Port        int
	HealthPort  int
	MetricsPort int
	// CertDir is where the webhook reads tls.crt and tls.key.
	CertDir string
	// ConfigFile, when set, is passed as --config.
	ConfigFile string
	// ShutdownDelay is passed as --shutdown-delay.
	ShutdownDelay time.Duration
	// Namespaces, when set, are the only namespaces whose objects the webhooks guard (a second
	// webhook under test then leaves the rest of the control plane to the first).
	Namespaces []string
	// RecordKRI, when set, is passed as --record-kri; empty leaves the webhook's default, off (no
	// kriguard.io/kri annotation written). Tests of the recording set rules.RecordKRIAdmission.
	RecordKRI rules.RecordKRI
	// BypassLabel, when set, is a label key that keeps the API server from calling the webhooks for
	// the objects carrying it. It stands in for objects that were admitted before the webhook was
	// installed: an update that drops the label is the first request the webhook sees for them.
	BypassLabel string
}

// NewSetup returns a Setup with free loopback ports and its certificate folder under dir.
func NewSetup(dir string) (*Setup, error) {
	ports, err := FreePorts(3)
	if err != nil {
		return nil, err
	}
	return &Setup{
		Namespace:      "kriguard-system",
		SecretName:     "kriguard-webhook-tls",
		ValidatingName: "kriguard-validating",
		MutatingName:   "kriguard-mutating",
		Host:           "127.0.0.1",
		DNSName:        "localhost",
		Port:           ports[0],
		HealthPort:     ports[1],
		MetricsPort:    ports[2],
		CertDir:        filepath.Join(dir, "certs"),
		ShutdownDelay:  time.Second,
	}, nil
}

// FreePorts returns n distinct TCP ports that were free on 127.0.0.1 a moment ago.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	// Hold every listener until all ports are chosen so that the kernel cannot hand out one twice.
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Args returns the cmd/webhook flags (also accepted by webhook.Options.BindFlags) for this setup.
func (s *Setup) Args() []string {
	args := []string{
		"--webhook-host=" + s.Host,
		"--webhook-port=" + strconv.Itoa(s.Port),
		"--cert-dir=" + s.CertDir,
		"--cert-management=cert-controller",
		"--cert-secret-name=" + s.SecretName,
		"--cert-secret-namespace=" + s.Namespace,
		"--cert-dns-name=" + s.DNSName,
		"--validating-webhook-configuration=" + s.ValidatingName,
		"--mutating-webhook-configuration=" + s.MutatingName,
		"--metrics-bind-address=" + net.JoinHostPort(s.Host, strconv.Itoa(s.MetricsPort)),
		"--health-probe-bind-address=" + net.JoinHostPort(s.Host, strconv.Itoa(s.HealthPort)),
		"--shutdown-delay=" + s.ShutdownDelay.String(),
	}
	if s.ConfigFile != "" {
		args = append(args, "--config="+s.ConfigFile)
	}
	if s.RecordKRI != "" {
		args = append(args, "--record-kri="+string(s.RecordKRI))
	}
	return args
}

// URL returns the address of one of the webhook's paths as the API server is told to call it.
func (s *Setup) URL(path string) string {
	return "https://" + net.JoinHostPort(s.DNSName, strconv.Itoa(s.Port)) + path
}

// Prepare creates the webhook's namespace, which in a cluster exists before the webhook is
// installed. The webhook itself creates the certificate Secret and fills CertDir.
func (s *Setup) Prepare(ctx context.Context, c client.Client) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.Namespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", s.Namespace, err)
	}
	return nil
}

// Register creates (or replaces) the validating and mutating webhook configurations. They guard every
// resource of the Kuma and Kong API groups outside kube-system and the webhook's own namespace, call
// the webhook by URL and carry no CA bundle: the webhook injects it.
func (s *Setup) Register(ctx context.Context, c client.Client) error {
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	timeout := int32(5)
	nsSelector := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key:      corev1.LabelMetadataName,
		Operator: metav1.LabelSelectorOpNotIn,
		Values:   []string{metav1.NamespaceSystem, s.Namespace},
	}}}
	if len(s.Namespaces) > 0 {
		nsSelector.MatchExpressions = append(nsSelector.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: s.Namespaces,
		})
	}
	objSelector := &metav1.LabelSelector{}
	if s.BypassLabel != "" {
		objSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{
			Key: s.BypassLabel, Operator: metav1.LabelSelectorOpDoesNotExist,
		}}
	}
	rules := func(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
		all := admissionregistrationv1.AllScopes
		return []admissionregistrationv1.RuleWithOperations{{
			Operations: ops,
			Rule: admissionregistrationv1.Rule{
				APIGroups:   guardedGroups,
				APIVersions: []string{"*"},
				Resources:   []string{"*"},
				Scope:       &all,
			},
		}}
	}
	validateURL, mutateURL := s.URL("/validate"), s.URL("/mutate")
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: s.ValidatingName},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "validate.kriguard.io",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &validateURL},
			Rules:                   rules(admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete),
			FailurePolicy:           &fail,
			SideEffects:             &none,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1"},
			NamespaceSelector:       nsSelector,
			ObjectSelector:          objSelector,
		}},
	}
	never := admissionregistrationv1.NeverReinvocationPolicy
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: s.MutatingName},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "mutate.kriguard.io",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &mutateURL},
			Rules:                   rules(admissionregistrationv1.Create, admissionregistrationv1.Update),
			FailurePolicy:           &fail,
			SideEffects:             &none,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1"},
			NamespaceSelector:       nsSelector,
			ObjectSelector:          objSelector,
			ReinvocationPolicy:      &never,
		}},
	}
	for _, obj := range []client.Object{vwc, mwc} {
		if err := c.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("replacing webhook configuration %s: %w", obj.GetName(), err)
		}
		if err := c.Create(ctx, obj); err != nil {
			return fmt.Errorf("creating webhook configuration %s: %w", obj.GetName(), err)
		}
	}
	return nil
}

// Unregister deletes the webhook configurations, so that the control plane stops calling the webhook.
func (s *Setup) Unregister(ctx context.Context, c client.Client) error {
	var errs []error
	for _, obj := range []client.Object{
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: s.ValidatingName}},
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: s.MutatingName}},
	} {
		if err := c.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting webhook configuration %s: %w", obj.GetName(), err))
		}
	}
	return errors.Join(errs...)
}

// CABundles returns the CA bundle of every webhook in the two configurations, validating first.
func (s *Setup) CABundles(ctx context.Context, c client.Client) ([][]byte, error) {
	var out [][]byte
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := c.Get(ctx, types.NamespacedName{Name: s.ValidatingName}, vwc); err != nil {
		return nil, fmt.Errorf("reading webhook configuration %s: %w", s.ValidatingName, err)
	}
	for _, w := range vwc.Webhooks {
		out = append(out, w.ClientConfig.CABundle)
	}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := c.Get(ctx, types.NamespacedName{Name: s.MutatingName}, mwc); err != nil {
		return nil, fmt.Errorf("reading webhook configuration %s: %w", s.MutatingName, err)
	}
	for _, w := range mwc.Webhooks {
		out = append(out, w.ClientConfig.CABundle)
	}
	return out, nil
}

// WaitReady waits until cert-controller has injected a CA bundle into every webhook, the webhook
// serves a certificate for DNSName signed by that CA, its admission paths answer (they are
// registered only once certificates are ready) and its readiness probe passes. The error says which
// of these did not happen before ctx ended.
func (s *Setup) WaitReady(ctx context.Context, c client.Client) error {
	var bundle []byte
	err := poll(ctx, func() error {
		bundles, err := s.CABundles(ctx, c)
		if err != nil {
			return err
		}
		for i, b := range bundles {
			if len(b) == 0 {
				return fmt.Errorf("webhook %d of the configurations %s and %s has no CA bundle yet", i, s.ValidatingName, s.MutatingName)
			}
			if i > 0 && !bytes.Equal(b, bundles[0]) {
				return errors.New("the webhooks carry different CA bundles")
			}
		}
		if len(bundles) == 0 {
			return errors.New("the webhook configurations hold no webhooks")
		}
		bundle = bundles[0]
		return nil
	})
	if err != nil {
		return fmt.Errorf("waiting for cert-controller to inject the CA bundle: %w", err)
	}
	hc, err := s.HTTPClient(bundle)
	if err != nil {
		return err
	}
	for _, path := range []string{"/validate", "/mutate"} {
		err := poll(ctx, func() error {
			resp, err := hc.Post(s.URL(path), "application/json", nil)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusNotFound {
				return fmt.Errorf("%s answers 404: handler not registered yet", path)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("waiting for the webhook to serve %s over TLS: %w", path, err)
		}
	}
	err = poll(ctx, func() error {
		resp, err := http.Get("http://" + net.JoinHostPort(s.Host, strconv.Itoa(s.HealthPort)) + "/readyz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/readyz answers %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the webhook to be ready: %w", err)
	}
	return nil
}

// HTTPClient returns a client that trusts only the PEM CA bundle and expects DNSName in the
// webhook's certificate, as the API server does, while dialling Host.
func (s *Setup) HTTPClient(caBundle []byte) (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caBundle) {
		return nil, errors.New("the CA bundle holds no PEM certificate")
	}
	dialer := &net.Dialer{Timeout: 2 * time.Second}
	return &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: s.DNSName, MinVersion: tls.VersionTLS12},
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return dialer.DialContext(ctx, network, net.JoinHostPort(s.Host, strconv.Itoa(s.Port)))
			},
		},
	}, nil
}

// poll calls f every 100ms until it succeeds or ctx ends, and then returns f's last error.
func poll(ctx context.Context, f func() error) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %w)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}
