package serverbench

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeCerts writes tls.crt and tls.key for localhost and 127.0.0.1 into dir, signed by a fresh CA,
// and returns the CA certificate in PEM. The keys are RSA 2048, as cert-controller issues them, so the
// handshakes cost what they cost in a cluster.
func writeCerts(tb testing.TB, dir string) []byte {
	tb.Helper()
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatalf("generating the CA key: %v", err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatalf("generating the server key: %v", err)
	}
	return writeCertsFor(tb, dir, caKey, key)
}

// writeECDSACerts is writeCerts with ECDSA P-256 keys.
func writeECDSACerts(tb testing.TB, dir string) []byte {
	tb.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("generating the CA key: %v", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("generating the server key: %v", err)
	}
	return writeCertsFor(tb, dir, caKey, key)
}

// writeCertsFor writes the certificate of key for localhost and 127.0.0.1, signed by a CA of caKey,
// and key into dir, and returns the CA certificate in PEM.
func writeCertsFor(tb testing.TB, dir string, caKey, key crypto.Signer) []byte {
	tb.Helper()
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kriguard-serverbench-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		tb.Fatalf("creating the CA certificate: %v", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		tb.Fatalf("parsing the CA certificate: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		tb.Fatalf("creating the server certificate: %v", err)
	}
	write := func(name, typ string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			tb.Fatalf("writing %s: %v", name, err)
		}
	}
	write("tls.crt", "CERTIFICATE", der)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		tb.Fatalf("encoding the server key: %v", err)
	}
	write("tls.key", "PRIVATE KEY", keyDER)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}
