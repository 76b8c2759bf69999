package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The Secret's keys and annotation besides cert-controller's own (ca.crt, ca.key, tls.crt,
// tls.key): the CAs the webhooks keep trusting after a rotation, and until when.
const (
	caName              = "ca.crt"
	previousCAName      = "previous-ca.crt"
	previousUntilAnnot  = "kriguard.io/previous-ca-until"
	defaultCAOverlap    = time.Minute
	certSyncFast        = 500 * time.Millisecond
	certSyncSlow        = 10 * time.Second
	certWatchRetryDelay = time.Second
)

// secretCerts serves the certificate cert-controller keeps in a Secret, keeps the webhook
// configurations' CA bundle, and heals the Secret (docs/limits.md, "Certificates"). Every replica
// runs one; they agree because they compute the same thing from the same Secret.
//
//   - It watches the Secret (one object, no cluster-wide informer) and also reads it on a timer.
//   - A deleted Secret is created again, empty but for the CAs the webhooks trust now, recorded
//     as previous CAs; cert-controller then issues a new CA and serving certificate into it.
//   - The CA bundle it writes into both webhook configurations is the Secret's CA plus the
//     previous CAs until the overlap ends. A CA found in a bundle that is neither is recorded as
//     previous before any bundle without it is written, so that the API server never stops
//     trusting a certificate a replica may still serve: a rotation (a deleted or corrupted Secret,
//     a new CA) has no window where admissions fail.
//   - A replica serves a new certificate only once the bundles trust it.
//
// It keeps the key pair in memory for the TLS server and writes it into the certificate folder,
// where cert-controller's readiness check looks for it: no Secret volume, no kubelet sync delay,
// and it works on a bare API server (envtest).
type secretCerts struct {
	key      types.NamespacedName
	dir      string
	webhooks []string // validating, mutating
	overlap  time.Duration
	client   client.WithWatch
	log      logr.Logger

	cert    atomic.Pointer[tls.Certificate]
	certPEM []byte
	now     func() time.Time
}

func (s *secretCerts) NeedLeaderElection() bool { return false }

// GetCertificate is the TLS server's certificate source.
func (s *secretCerts) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := s.cert.Load(); c != nil {
		return c, nil
	}
	return nil, errors.New("serving certificate is not ready yet")
}

func (s *secretCerts) Start(ctx context.Context) error {
	if s.now == nil {
		s.now = time.Now
	}
	if s.overlap <= 0 {
		s.overlap = defaultCAOverlap
	}
	changed := make(chan struct{}, 1)
	go s.watch(ctx, changed)
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-changed:
		}
		busy, err := s.sync(ctx)
		if err != nil {
			s.log.Error(err, "syncing serving certificate")
			busy = true
		}
		t.Stop()
		if busy {
			t.Reset(certSyncFast)
		} else {
			t.Reset(certSyncSlow)
		}
	}
}

// watch signals changed on every event of the Secret, re-watching when the watch ends.
func (s *secretCerts) watch(ctx context.Context, changed chan<- struct{}) {
	for ctx.Err() == nil {
		w, err := s.client.Watch(ctx, &corev1.SecretList{}, client.InNamespace(s.key.Namespace),
			client.MatchingFields{"metadata.name": s.key.Name})
		if err != nil {
			s.log.Error(err, "watching certificate secret")
			select {
			case <-ctx.Done():
			case <-time.After(certWatchRetryDelay):
			}
			continue
		}
		for range w.ResultChan() {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
		w.Stop()
	}
}

// sync does one round; busy says that something is under way (a certificate not trusted yet, an
// overlap running) and the next round should come soon.
func (s *secretCerts) sync(ctx context.Context) (busy bool, err error) {
	var secret corev1.Secret
	if err := s.client.Get(ctx, s.key, &secret); err != nil {
		if apierrors.IsNotFound(err) {
			return true, s.recreate(ctx)
		}
		return true, fmt.Errorf("reading secret %s: %w", s.key, err)
	}
	current := firstCert(secret.Data[caName])
	if current == nil {
		return true, nil // cert-controller has yet to issue a CA
	}
	live, configs, err := s.liveBundle(ctx)
	if err != nil {
		return true, err
	}
	previous := parseCerts(secret.Data[previousCAName])
	until, _ := time.Parse(time.RFC3339, secret.Annotations[previousUntilAnnot])
	var missing []*x509.Certificate
	for _, c := range live {
		if !c.Equal(current) && !containsCert(previous, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		// Record first, so that no replica writes a bundle without them.
		previous = append(previous, missing...)
		until = s.now().Add(s.overlap)
		if secret.Annotations == nil {
			secret.Annotations = map[string]string{}
		}
		secret.Annotations[previousUntilAnnot] = until.UTC().Format(time.RFC3339)
		secret.Data[previousCAName] = encodeCerts(previous)
		if err := s.client.Update(ctx, &secret); err != nil {
			return true, fmt.Errorf("recording previous CAs in secret %s: %w", s.key, err)
		}
		s.log.Info("CA changed: the webhooks keep trusting the previous CAs for the overlap", "previous", len(previous), "until", until)
	}
	bundle := []*x509.Certificate{current}
	overlapping := s.now().Before(until)
	if overlapping {
		for _, c := range previous {
			if !c.Equal(current) {
				bundle = append(bundle, c)
			}
		}
	}
	want := encodeCerts(bundle)
	for _, c := range configs {
		if err := s.inject(ctx, c, want); err != nil {
			return true, err
		}
	}
	trusted := x509.NewCertPool()
	for _, c := range bundle {
		trusted.AddCert(c)
	}
	pending, err := s.load(secret.Data[certName], secret.Data[keyName], trusted)
	return pending || overlapping, err
}

// recreate creates the deleted Secret again, recording the CAs the webhooks trust now as
// previous ones; cert-controller issues a new CA into it.
func (s *secretCerts) recreate(ctx context.Context) error {
	live, _, err := s.liveBundle(ctx)
	if err != nil {
		return err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.key.Namespace, Name: s.key.Name,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "kriguard"}},
		Type: corev1.SecretTypeOpaque,
	}
	if len(live) > 0 {
		secret.Annotations = map[string]string{previousUntilAnnot: s.now().Add(s.overlap).UTC().Format(time.RFC3339)}
		secret.Data = map[string][]byte{previousCAName: encodeCerts(live)}
	}
	if err := s.client.Create(ctx, secret); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating deleted secret %s: %w", s.key, err)
	}
	s.log.Info("certificate secret was deleted: created it again for a new CA", "secret", s.key.String(), "previousCAs", len(live))
	return nil
}

// webhookConfig is one of the two configurations, as read.
type webhookConfig struct {
	obj     client.Object
	bundles func() [][]byte
	set     func([]byte)
}

// liveBundle reads both webhook configurations and returns the CAs their bundles hold.
func (s *secretCerts) liveBundle(ctx context.Context) ([]*x509.Certificate, []webhookConfig, error) {
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
	configs := []webhookConfig{
		{vwc, func() (out [][]byte) {
			for _, w := range vwc.Webhooks {
				out = append(out, w.ClientConfig.CABundle)
			}
			return out
		}, func(b []byte) {
			for i := range vwc.Webhooks {
				vwc.Webhooks[i].ClientConfig.CABundle = b
			}
		}},
		{mwc, func() (out [][]byte) {
			for _, w := range mwc.Webhooks {
				out = append(out, w.ClientConfig.CABundle)
			}
			return out
		}, func(b []byte) {
			for i := range mwc.Webhooks {
				mwc.Webhooks[i].ClientConfig.CABundle = b
			}
		}},
	}
	var live []*x509.Certificate
	var found []webhookConfig
	for i, c := range configs {
		if err := s.client.Get(ctx, types.NamespacedName{Name: s.webhooks[i]}, c.obj); err != nil {
			if apierrors.IsNotFound(err) {
				continue // not installed (yet): nothing to keep trusted, nothing to inject
			}
			return nil, nil, fmt.Errorf("reading webhook configuration %s: %w", s.webhooks[i], err)
		}
		found = append(found, c)
		for _, b := range c.bundles() {
			for _, cert := range parseCerts(b) {
				if !containsCert(live, cert) {
					live = append(live, cert)
				}
			}
		}
	}
	return live, found, nil
}

// inject writes bundle into every webhook of c that does not hold it.
func (s *secretCerts) inject(ctx context.Context, c webhookConfig, bundle []byte) error {
	if !slices.ContainsFunc(c.bundles(), func(b []byte) bool { return !bytes.Equal(b, bundle) }) {
		return nil
	}
	c.set(bundle)
	if err := s.client.Update(ctx, c.obj); err != nil {
		return fmt.Errorf("injecting CA bundle into %s: %w", c.obj.GetName(), err)
	}
	s.log.Info("CA bundle injected", "configuration", c.obj.GetName(), "cas", len(parseCerts(bundle)))
	return nil
}

// load serves the key pair of the Secret once trusted verifies it, and writes it into the
// certificate folder. It reports true while the Secret holds a certificate it does not serve.
func (s *secretCerts) load(certPEM, keyPEM []byte, trusted *x509.CertPool) (pending bool, err error) {
	if len(certPEM) == 0 || len(keyPEM) == 0 {
		return true, nil
	}
	if bytes.Equal(certPEM, s.certPEM) {
		return false, nil
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return true, fmt.Errorf("parsing key pair of secret %s: %w", s.key, err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return true, fmt.Errorf("parsing certificate of secret %s: %w", s.key, err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: trusted, CurrentTime: s.now()}); err != nil {
		return true, nil // the bundles do not trust it yet: keep serving the one they trust
	}
	pair.Leaf = leaf
	s.cert.Store(&pair)
	s.certPEM = certPEM
	s.log.Info("serving certificate loaded", "secret", s.key.String(), "notAfter", leaf.NotAfter)
	// Key first: a reader that sees the new certificate finds its key.
	if err := writeFileAtomic(s.dir, keyName, keyPEM); err != nil {
		return false, err
	}
	return false, writeFileAtomic(s.dir, certName, certPEM)
}

// parseCerts returns the certificates of a PEM bundle, skipping what does not parse.
func parseCerts(b []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			return out
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if c, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, c)
		}
	}
}

// firstCert is the first certificate of a PEM bundle (cert-controller's CA), or nil.
func firstCert(b []byte) *x509.Certificate {
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil || !c.IsCA {
		return nil
	}
	return c
}

func encodeCerts(certs []*x509.Certificate) []byte {
	var b bytes.Buffer
	for _, c := range certs {
		_ = pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return b.Bytes()
}

func containsCert(certs []*x509.Certificate, c *x509.Certificate) bool {
	return slices.ContainsFunc(certs, c.Equal)
}
