package webhook

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/naming/hashsuffix"
	"github.com/kriguard/kriguard/rules"
)

func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// TestNewManager runs the whole server against a real API server: cert-controller issues the
// certificate and injects the CA, the webhooks are served over TLS 1.3 without HTTP/2, the API
// server calls them, readiness follows the certificates and the shutdown, and the counter is on
// /metrics.
func TestNewManager(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	env := testenv.StartForTest(t, testenv.Options{})
	t.Run("cert-controller", func(t *testing.T) { testCertController(t, env) })
	t.Run("external", func(t *testing.T) { testExternalCerts(t, env) })
	t.Run("peer count", func(t *testing.T) { testPeerCount(t, env) })
}

// testPeerCount: a real API server gives the count of KongSNIs and KongCertificates from a list of
// one object each (remainingItemCount), so that a PeerCache over its bound lists nothing whole.
func testPeerCount(t *testing.T, env *testenv.Env) {
	ctx := t.Context()
	ns := env.NewNamespace(t)
	for _, kind := range []string{"KongSNI", "KongSNI", "KongCertificate", "KongCertificate", "KongCertificate"} {
		k, ok := env.Kind(rules.KongGroup, kind)
		if !ok {
			t.Fatalf("no %s served", kind)
		}
		o := testenv.NewObject(k, ns, "")
		o.SetGenerateName("peer-")
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
	}
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	if n, known := countPeers(ctx, dc); !known || n != 5 {
		t.Fatalf("countPeers = %d, %t; want 5, known", n, known)
	}
	p, err := NewPeerCache(env.Config, 4)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = p.Start(runCtx); close(done) }()
	defer func() { cancel(); <-done }()
	waitPeers(t, "past its bound", func() bool { return p.over.Load() == 5 })
	if p.cur.Load() != nil {
		t.Error("a cluster counted past the bound was listed")
	}
}

func testCertController(t *testing.T, env *testenv.Env) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := env.Client

	ports := freePorts(t, 3)
	o := NewOptions()
	o.WebhookHost, o.WebhookPort = "127.0.0.1", ports[0]
	o.HealthProbeBindAddress = "127.0.0.1:" + strconv.Itoa(ports[1])
	o.MetricsBindAddress = "127.0.0.1:" + strconv.Itoa(ports[2])
	o.CertDir = filepath.Join(t.TempDir(), "certs")
	o.CertSecretNamespace = "kriguard-system"
	o.CertDNSName = "localhost"
	o.ShutdownDelay = 5 * time.Second
	o.RecordKRI = rules.RecordKRIAdmission // the generateName object below gets its KRI recorded

	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.CertSecretNamespace}}); err != nil {
		t.Fatal(err)
	}
	createWebhookConfigurations(ctx, t, c, o)

	mgr, err := NewManager(env.Config, o)
	if err != nil {
		t.Fatal(err)
	}
	mgrCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mgrCtx) }()
	defer func() {
		stop()
		<-done
	}()

	readyz := "http://" + o.HealthProbeBindAddress + "/readyz"
	// Only through /readyz: calling mgr.GetWebhookServer here would add the server to the manager
	// and hide a NewManager that forgot to.
	waitFor(t, 90*time.Second, "readiness", func() error {
		select {
		case err := <-done:
			done <- err // for the deferred stop
			t.Fatalf("manager stopped before it was ready: %v", err)
		default:
		}
		return httpGet(readyz)
	})

	// cert-controller filled the Secret, the process copied it to --cert-dir, and the CA is in
	// both configurations.
	var secret corev1.Secret
	if err := c.Get(ctx, client.ObjectKey{Namespace: o.CertSecretNamespace, Name: o.CertSecretName}, &secret); err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile(filepath.Join(o.CertDir, "tls.crt"))
	if err != nil || string(onDisk) != string(secret.Data["tls.crt"]) {
		t.Fatalf("tls.crt in --cert-dir does not match the Secret: %v", err)
	}
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := c.Get(ctx, client.ObjectKey{Name: o.ValidatingWebhookConfiguration}, &vwc); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(vwc.Webhooks[0].ClientConfig.CABundle) {
		t.Fatal("no CA bundle injected into the validating configuration")
	}

	// TLS: 1.3 minimum, HTTP/1.1 only, a certificate for the DNS name.
	addr := net.JoinHostPort(o.WebhookHost, strconv.Itoa(o.WebhookPort))
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "localhost", NextProtos: []string{"h2", "http/1.1"}})
	if err != nil {
		t.Fatalf("TLS handshake with the injected CA: %v", err)
	}
	if st := conn.ConnectionState(); st.Version != tls.VersionTLS13 || st.NegotiatedProtocol != "http/1.1" {
		t.Errorf("TLS version %x, protocol %q; want TLS 1.3 and http/1.1", st.Version, st.NegotiatedProtocol)
	}
	conn.Close()
	if conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "localhost", MaxVersion: tls.VersionTLS12}); err == nil {
		conn.Close()
		t.Error("TLS 1.2 handshake succeeded with --tls-min-version=1.3")
	}

	// The API server calls both webhooks.
	bad := &unstructured.Unstructured{Object: kuma("MeshTimeout", "default", "t1", map[string]string{"kuma.io/mesh": "Mesh_1"}, nil)}
	err = c.Create(ctx, bad)
	if !apierrors.IsInvalid(err) {
		t.Fatalf("creating a MeshTimeout with a bad mesh: %v, want Invalid", err)
	}
	if causes := err.(apierrors.APIStatus).Status().Details.Causes; len(causes) != 1 || causes[0].Field != "metadata.labels[kuma.io/mesh]" {
		t.Errorf("causes %+v", causes)
	}
	gen := &unstructured.Unstructured{Object: kuma("MeshTimeout", "default", "", map[string]string{"kuma.io/mesh": "default"}, nil).with("generateName", "backend-")}
	if err := c.Create(ctx, gen); err != nil {
		t.Fatal(err)
	}
	if want := hashsuffix.Name("default", "backend"); gen.GetName() != want || gen.GetAnnotations()["kriguard.io/kri"] != "kri_mt_default___backend_" ||
		gen.GetAnnotations()["kuma.io/display-name"] != "backend" {
		t.Errorf("generateName object is %s %v, want %s", gen.GetName(), gen.GetAnnotations(), want)
	}

	metrics, err := httpBody("http://" + o.MetricsBindAddress + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`kriguard_admission_decisions_total{decision="denied",enforcement="deny",kind="MeshTimeout",kuma_mode="unknown",kuma_release="2.14",operation="CREATE",override="none"}`,
		`kriguard_admission_decisions_total{decision="mutated",enforcement="deny",kind="MeshTimeout",kuma_mode="unknown",kuma_release="2.14",operation="CREATE",override="none"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	// Shutdown: not ready at once, still serving during the delay, then gone.
	stop()
	waitFor(t, 5*time.Second, "readiness to fail", func() error {
		if httpGet(readyz) == nil {
			return fmt.Errorf("still ready")
		}
		return nil
	})
	https := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}}}
	body := reviewBody(t, request("CREATE", kuma("MeshTimeout", "default", "t2", nil, nil), nil))
	resp, err := https.Post("https://"+addr+ValidatePath, "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("webhook stopped serving before the shutdown delay: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !resp.Close {
		t.Errorf("while draining: status %d, Connection: close %v; want 200 and the connection closed", resp.StatusCode, resp.Close)
	}
	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Fatalf("manager: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("manager did not stop")
	}
	if conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "localhost"}); err == nil {
		conn.Close()
		t.Error("webhook still serving after the manager stopped")
	}
}

// testExternalCerts serves the certificate found in --cert-dir, registers the webhooks at once
// and does not touch the API server's Secrets.
func testExternalCerts(t *testing.T, env *testenv.Env) {
	ports := freePorts(t, 2)
	o := NewOptions()
	o.CertManagement = CertManagementExternal
	o.CertSecretNamespace = ""
	o.WebhookHost, o.WebhookPort = "127.0.0.1", ports[0]
	o.HealthProbeBindAddress = "127.0.0.1:" + strconv.Itoa(ports[1])
	o.MetricsBindAddress = "0"
	o.CertDir = t.TempDir()
	o.TLSMinVersion = "1.2"
	o.EnableHTTP2 = true
	o.ShutdownDelay = 0
	o.RecordKRI = rules.RecordKRIOff
	pool := writeSelfSigned(t, o.CertDir, "localhost")

	mgr, err := NewManager(env.Config, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	waitFor(t, 60*time.Second, "readiness", func() error {
		select {
		case err := <-done:
			done <- err // for the deferred stop
			t.Fatalf("manager stopped before it was ready: %v", err)
		default:
		}
		return httpGet("http://" + o.HealthProbeBindAddress + "/readyz")
	})

	addr := net.JoinHostPort(o.WebhookHost, strconv.Itoa(o.WebhookPort))
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "localhost", MaxVersion: tls.VersionTLS12, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatalf("TLS 1.2 with --tls-min-version=1.2: %v", err)
	}
	if p := conn.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Errorf("protocol %q with --enable-http2, want h2", p)
	}
	conn.Close()

	https := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}}}
	body := reviewBody(t, request("CREATE", kuma("MeshTimeout", "default", "t1", map[string]string{"kuma.io/mesh": "Mesh_1"}, nil), nil))
	resp, err := https.Post("https://"+addr+ValidatePath, "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&review); err != nil {
		t.Fatal(err)
	}
	if r := review.Response; r == nil || r.Allowed || r.Result.Code != 422 || r.UID != "uid-1" {
		t.Fatalf("response %+v, want a 422 for uid-1", r)
	}

	// --record-kri=off reaches the mutating webhook: a named object gets no patch, a generateName one
	// its name and display name, never the KRI annotation.
	labels := map[string]string{"kuma.io/mesh": "default"}
	for _, tc := range []struct {
		object obj
		want   string
	}{
		{kuma("MeshTimeout", "default", "t1", labels, nil), ""},
		{kuma("MeshTimeout", "default", "", labels, nil).with("generateName", "backend-"),
			`[{"op":"add","path":"/metadata/name","value":"` + hashsuffix.Name("default", "backend") + `"},{"op":"add","path":"/metadata/annotations","value":{"kuma.io/display-name":"backend"}}]`},
	} {
		body := reviewBody(t, request("CREATE", tc.object, nil))
		resp, err := https.Post("https://"+addr+MutatePath, "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		var review admissionv1.AdmissionReview
		err = json.NewDecoder(resp.Body).Decode(&review)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if r := review.Response; r == nil || !r.Allowed || string(r.Patch) != tc.want {
			t.Errorf("mutating %v with --record-kri=off: response %+v, want the patch %s", tc.object, r, tc.want)
		}
	}
}

// writeSelfSigned writes tls.crt and tls.key for dnsName into dir and returns a pool that
// trusts them.
func writeSelfSigned(t *testing.T, dir, dnsName string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: dnsName}, DNSNames: []string{dnsName},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	return pool
}

func createWebhookConfigurations(ctx context.Context, t *testing.T, c client.Client, o Options) {
	t.Helper()
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	timeout := int32(10)
	url := func(path string) *string {
		u := "https://localhost:" + strconv.Itoa(o.WebhookPort) + path
		return &u
	}
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{rules.KumaGroup}, APIVersions: []string{"v1alpha1"}, Resources: []string{"meshtimeouts"},
		},
	}}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: o.ValidatingWebhookConfiguration},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "validate.kriguard.io", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: url(ValidatePath)},
			Rules: rules, FailurePolicy: &fail, SideEffects: &none, TimeoutSeconds: &timeout,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: o.MutatingWebhookConfiguration},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "mutate.kriguard.io", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: url(MutatePath)},
			Rules: rules, FailurePolicy: &fail, SideEffects: &none, TimeoutSeconds: &timeout,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	for _, obj := range []client.Object{vwc, mwc} {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
}

func waitFor(t *testing.T, d time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func httpGet(url string) error {
	_, err := httpBody(url)
	return err
}

func httpBody(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s: %s", url, resp.Status, b)
	}
	return string(b), err
}
