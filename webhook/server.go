package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/kriguard/kriguard/internal/kumarelease"
	"github.com/kriguard/kriguard/rules"
)

// The HTTP paths of the two webhooks.
const (
	ValidatePath = "/validate"
	MutatePath   = "/mutate"
)

const (
	certName = "tls.crt"
	keyName  = "tls.key"
	// drainTimeout is what in-flight requests get to finish once the listener closes.
	drainTimeout = 30 * time.Second
)

// NewManager builds the webhook process: a controller-runtime manager whose webhook server
// serves /validate and /mutate over TLS, with /healthz and /readyz on the health-probe address and
// the framework's metrics plus kriguard_admission_decisions_total on the metrics address.
//
// With --cert-management=cert-controller, cert-controller keeps a CA and a serving certificate in
// the Secret --cert-secret-name (created empty when missing, and again when deleted); the process
// injects the CA into both webhook configurations, keeping a replaced CA trusted for --ca-overlap,
// copies the certificate from the Secret into --cert-dir and serves it from memory once the
// configurations trust it, so no Secret volume is needed and a rotation fails no admission
// (docs/limits.md). The webhooks are registered, and /readyz passes,
// only once cert-controller reports the certificates ready. With --cert-management=external
// the files in --cert-dir are served (and reloaded on change) and the webhooks are registered at
// once.
//
// On stop, /readyz fails first and the server keeps serving for --shutdown-delay, so that
// endpoints drop the pod before its listener closes, answering with "Connection: close" so that
// the API server moves its keep-alive connections elsewhere; in-flight requests then get 30s to
// finish. The requests in flight share one memory budget derived from --memory-limit, and a
// --client-ca-file makes the server require client certificates.
func NewManager(cfg *rest.Config, o Options) (manager.Manager, error) {
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("invalid options: %w", err)
	}
	conf, err := rules.LoadConfig(o.ConfigFile)
	if err != nil {
		return nil, err
	}
	minTLS, _ := tlsVersion(o.TLSMinVersion)
	log := logf.Log.WithName("kriguard")
	if !conf.Auto() {
		log.Info("judging against the configured Kuma release", "kumaRelease", conf.Release().String())
	}
	budget, err := NewBudgetBeside(o.MemoryLimit, PeerCacheMemory(o.PeerCacheMaxObjects))
	if err != nil {
		return nil, fmt.Errorf("memory budget: %w", err)
	}
	clientCAs, err := loadClientCAs(o.ClientCAFile)
	if err != nil {
		return nil, err
	}

	var certs *secretCerts
	tlsOpts := []func(*tls.Config){serverTLS(minTLS, o.EnableHTTP2, clientCAs)}
	if o.CertManagement == CertManagementController {
		certs = &secretCerts{
			key:      types.NamespacedName{Namespace: o.CertSecretNamespace, Name: o.CertSecretName},
			dir:      o.CertDir,
			webhooks: []string{o.ValidatingWebhookConfiguration, o.MutatingWebhookConfiguration},
			overlap:  o.CAOverlap,
			log:      log.WithName("certs"),
		}
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.GetCertificate = certs.GetCertificate })
	}
	server := crwebhook.NewServer(crwebhook.Options{
		Host:     o.WebhookHost,
		Port:     o.WebhookPort,
		CertDir:  o.CertDir,
		CertName: certName,
		KeyName:  keyName,
		TLSOpts:  tlsOpts,
	})
	grace := o.ShutdownDelay + drainTimeout
	mgr, err := manager.New(cfg, manager.Options{
		Metrics:                 metricsserver.Options{BindAddress: o.MetricsBindAddress},
		HealthProbeBindAddress:  o.HealthProbeBindAddress,
		WebhookServer:           server,
		GracefulShutdownTimeout: &grace,
		Logger:                  log,
	})
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	// The manager adds its webhook server as a runnable only on the first GetWebhookServer call;
	// without this one nothing would ever serve, and /readyz would stay red.
	mgr.GetWebhookServer()

	ready := make(chan struct{})
	if certs == nil {
		close(ready)
	} else {
		if err := ensureSecret(cfg, mgr, certs.key); err != nil {
			return nil, err
		}
		if certs.client, err = client.NewWithWatch(cfg, client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()}); err != nil {
			return nil, fmt.Errorf("creating client: %w", err)
		}
		if err := mgr.Add(certs); err != nil {
			return nil, fmt.Errorf("adding certificate sync: %w", err)
		}
		err := rotator.AddRotator(mgr, &rotator.CertRotator{
			SecretKey:      certs.key,
			CertDir:        o.CertDir,
			CertName:       certName,
			KeyName:        keyName,
			CAName:         "kriguard-ca",
			CAOrganization: "kriguard",
			DNSName:        o.dnsName(),
			IsReady:        ready,
			// No Webhooks: secretCerts injects the CA bundle, keeping a rotated CA trusted
			// until every replica serves a certificate of the new one.
			FieldOwner:            "kriguard",
			ControllerName:        rotatorName(),
			RequireLeaderElection: false,
			EnableReadinessCheck:  true,
		})
		if err != nil {
			return nil, fmt.Errorf("adding cert-controller: %w", err)
		}
	}

	drain := &drainer{delay: o.ShutdownDelay, log: log}
	reg := &registrar{server: server, ready: ready, conf: conf, budget: budget, drain: drain, log: log, record: o.RecordKRI, registered: make(chan struct{})}
	if conf.Auto() || conf.Mode() == rules.ModeAuto {
		w, err := releaseWatcher(cfg, mgr, conf, o.KumaRecheckInterval, log.WithName("kuma"))
		if err != nil {
			return nil, err
		}
		reg.detected = w.Checked()
		if conf.Auto() {
			reg.release = w.Release
		}
		if conf.Mode() == rules.ModeAuto {
			reg.mode = func() rules.Mode { return rules.Mode(w.Mode()) }
		}
	}
	if o.PeerCacheMaxObjects > 0 {
		peers, err := NewPeerCache(cfg, o.PeerCacheMaxObjects)
		if err != nil {
			return nil, err
		}
		if err := mgr.Add(peers); err != nil {
			return nil, fmt.Errorf("adding the peer cache: %w", err)
		}
		reg.peers = peers
	}
	if err := mgr.Add(reg); err != nil {
		return nil, fmt.Errorf("adding webhook registration: %w", err)
	}
	if err := mgr.Add(drain); err != nil {
		return nil, fmt.Errorf("adding shutdown delay: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding healthz check: %w", err)
	}
	for name, check := range map[string]healthz.Checker{
		"webhook":  server.StartedChecker(),
		"certs":    closedChecker(ready, "certificates are not ready"),
		"webhooks": closedChecker(reg.registered, "the webhooks are not registered yet"),
		"shutdown": drain.Check,
	} {
		if err := mgr.AddReadyzCheck(name, check); err != nil {
			return nil, fmt.Errorf("adding readyz check %s: %w", name, err)
		}
	}
	return mgr, nil
}

// serverTLS sets up the webhook server's TLS: the minimum version, HTTP/1.1 unless HTTP/2 is
// allowed, and, with clientCAs, a client certificate signed by one of them required of every
// caller.
func serverTLS(minVersion uint16, http2 bool, clientCAs *x509.CertPool) func(*tls.Config) {
	return func(c *tls.Config) {
		c.MinVersion = minVersion
		if !http2 {
			c.NextProtos = []string{"http/1.1"}
		}
		if clientCAs != nil {
			c.ClientCAs = clientCAs
			c.ClientAuth = tls.RequireAndVerifyClientCert
		}
	}
}

// loadClientCAs reads the PEM bundle of client CAs; "" means none.
func loadClientCAs(path string) (*x509.CertPool, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading client CA bundle: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("client CA bundle %s holds no PEM certificate", path)
	}
	return pool, nil
}

// rotators counts the cert-controller instances of this process: controller-runtime wants a
// unique controller name per process, and tests run several managers in one.
var rotators atomic.Int32

func rotatorName() string {
	if n := rotators.Add(1); n > 1 {
		return fmt.Sprintf("kriguard-cert-rotator-%d", n)
	}
	return "kriguard-cert-rotator"
}

func closedChecker(ch <-chan struct{}, msg string) healthz.Checker {
	return func(*http.Request) error {
		select {
		case <-ch:
			return nil
		default:
			return errors.New(msg)
		}
	}
}

// releaseWatcher adds to mgr the watcher of the Kuma release and mode that kuma.version auto and
// kuma.mode auto ask for (docs/releases.md, "Which release a cluster runs"; docs/kds.md): it reads the control plane's Deployment with
// the manager's uncached reader (one GET by name, which RBAC can limit to that name) and the
// served Kuma kinds with discovery.
func releaseWatcher(cfg *rest.Config, mgr manager.Manager, conf *rules.Config, interval time.Duration, log logr.Logger) (*kumarelease.Watcher, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating discovery client: %w", err)
	}
	ns, name := conf.ControlPlaneDeployment()
	w := kumarelease.NewWatcher(deploymentReader(mgr.GetAPIReader()), dc,
		kumarelease.Options{Namespace: ns, Deployment: name}, interval, log)
	if err := mgr.Add(w); err != nil {
		return nil, fmt.Errorf("adding Kuma release detection: %w", err)
	}
	return w, nil
}

// registrar registers the webhooks once the certificates are ready, the cert-controller way: a
// request that arrives before is answered 404 by the server, which the API server treats as a
// webhook failure, rather than served with a certificate the API server does not trust yet. With
// kuma.version auto it also waits for the first detection of the release (which ends, known or
// not, within the recheck interval or 10s, whichever is longer), so that no request is judged
// before it.
type registrar struct {
	server   crwebhook.Server
	peers    rules.Peers
	ready    <-chan struct{}
	conf     *rules.Config
	budget   *Budget
	drain    *drainer
	log      logr.Logger
	release  ReleaseFunc
	mode     ModeFunc
	record   rules.RecordKRI
	detected <-chan struct{}
	// registered is closed once the webhooks are registered.
	registered chan struct{}
}

func (r *registrar) NeedLeaderElection() bool { return false }

func (r *registrar) Start(ctx context.Context) error {
	for _, ch := range []<-chan struct{}{r.ready, r.detected} {
		if ch == nil {
			continue // no detection: the configured release
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil
		}
	}
	r.server.Register(ValidatePath, r.drain.wrap(NewBoundedHTTPHandler(NewValidator(r.conf).WithPeers(r.peers).WithRelease(r.release).WithMode(r.mode), r.budget)))
	r.server.Register(MutatePath, r.drain.wrap(NewBoundedHTTPHandler(NewMutator(r.conf).WithRelease(r.release).WithRecordKRI(r.record), r.budget)))
	close(r.registered)
	r.log.Info("webhooks registered", "validate", ValidatePath, "mutate", MutatePath, "reviewBudgetBytes", r.budget.Size())
	<-ctx.Done()
	return nil
}

// drainer delays the stop of the webhook server. The manager stops runnables like this one
// before it stops the webhook server, so while Start sleeps the server still serves; /readyz
// fails from the first moment so that the pod leaves the Service's endpoints.
type drainer struct {
	delay    time.Duration
	draining atomic.Bool
	log      logr.Logger
}

func (d *drainer) NeedLeaderElection() bool { return false }

func (d *drainer) Start(ctx context.Context) error {
	<-ctx.Done()
	d.draining.Store(true)
	d.log.Info("shutting down: serving until the delay is over", "delay", d.delay.String())
	time.Sleep(d.delay)
	return nil
}

// wrap makes h answer with "Connection: close" once shutdown has begun. The API server keeps
// its connections to a pod after the pod has left the endpoints; closing each one after a
// completed response, while the delay runs, means none is idle-closed under a request when the
// listener finally shuts down.
func (d *drainer) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.draining.Load() {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}

// Check is the readiness check: it fails once shutdown has begun.
func (d *drainer) Check(*http.Request) error {
	if d.draining.Load() {
		return errors.New("shutting down")
	}
	return nil
}

// ensureSecret creates the (empty) Secret cert-controller fills when it does not exist yet:
// cert-controller only updates it.
func ensureSecret(cfg *rest.Config, mgr manager.Manager, key types.NamespacedName) error {
	c, err := client.New(cfg, client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return fmt.Errorf("creating client: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = c.Get(ctx, key, &corev1.Secret{})
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("reading secret %s: %w", key, err)
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name,
		Labels: map[string]string{"app.kubernetes.io/managed-by": "kriguard"}}}
	if err := c.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating secret %s: %w", key, err)
	}
	return nil
}

// writeFileAtomic replaces dir/name with data, unless it already holds data (a read-only
// Secret volume mounted there is fine).
func writeFileAtomic(dir, name string, data []byte) error {
	if have, err := os.ReadFile(filepath.Join(dir, name)); err == nil && bytes.Equal(have, data) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating certificate folder: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
