package webhook

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestClientCertificateRequired: with --client-ca-file, a caller without a client certificate of
// those CAs gets no answer; one with such a certificate (the API server with an
// AdmissionConfiguration kubeconfig) does. Without it, anyone does.
func TestClientCertificateRequired(t *testing.T) {
	dir := t.TempDir()
	caCert, caKey := newCA(t, "api-server-client-ca")
	caFile := filepath.Join(dir, "client-ca.crt")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caCert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool, err := loadClientCAs(caFile)
	if err != nil {
		t.Fatal(err)
	}
	trusted := clientCert(t, caCert, caKey)
	otherCA, otherKey := newCA(t, "someone-else")
	untrusted := clientCert(t, otherCA, otherKey)

	for _, tt := range []struct {
		name    string
		pool    *x509.CertPool
		cert    *tls.Certificate
		answers bool
	}{
		{"required, none presented", pool, nil, false},
		{"required, another CA's", pool, untrusted, false},
		{"required, the API server's", pool, trusted, true},
		{"not required", nil, nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
			srv.TLS = &tls.Config{}
			serverTLS(tls.VersionTLS13, false, tt.pool)(srv.TLS)
			srv.StartTLS()
			defer srv.Close()
			c := srv.Client()
			tr := c.Transport.(*http.Transport)
			if tt.cert != nil {
				tr.TLSClientConfig.Certificates = []tls.Certificate{*tt.cert}
			}
			resp, err := c.Get(srv.URL)
			if err == nil {
				resp.Body.Close()
			}
			if (err == nil) != tt.answers {
				t.Errorf("answered: %v (%v), want %v", err == nil, err, tt.answers)
			}
		})
	}
	if _, err := loadClientCAs(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("a missing client CA file was accepted")
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), []byte("no PEM here"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadClientCAs(filepath.Join(dir, "empty")); err == nil {
		t.Errorf("a client CA file without certificates was accepted")
	}
}

func newCA(t *testing.T, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

func clientCert(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey) *tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
