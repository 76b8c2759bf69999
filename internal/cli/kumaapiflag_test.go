package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testCA is a CA of its own for one test control plane, so that one control plane's CA does not
// verify another's certificate (httptest's servers all share one).
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	file string // the CA certificate, PEM
}

func newTestCA(t testing.TB, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name + " CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	ca := &testCA{cert: cert, key: key}
	ca.file = writeFile(t, t.TempDir(), name+"-ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	return ca
}

// issue returns a certificate the CA signs, for the server at 127.0.0.1 or for a client, and the
// files of the certificate and its key.
func (ca *testCA) issue(t testing.TB, name string, server bool) (tls.Certificate, string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	return pair, writeFile(t, dir, name+".pem", string(certPEM)), writeFile(t, dir, name+"-key.pem", string(keyPEM))
}

// controlPlane is a recorded control plane served over TLS with a certificate of its own CA,
// answering only requests with its own token (and, with clientCA, only callers with a client
// certificate that CA signs).
type controlPlane struct {
	url       string
	ca        *testCA
	tokenFile string
	requests  atomic.Int64 // requests answered with 200
}

func newControlPlane(t testing.TB, name string, f kumaFixture, clientCA *testCA) *controlPlane {
	t.Helper()
	cp := &controlPlane{ca: newTestCA(t, name)}
	token := name + "-token"
	cp.tokenFile = writeFile(t, t.TempDir(), name+".token", token+"\n")
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(f["401"].Status)
			_, _ = w.Write(f["401"].Body)
			return
		}
		rec, ok := f[r.URL.RequestURI()]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		cp.requests.Add(1)
		w.WriteHeader(rec.Status)
		_, _ = w.Write(rec.Body)
	}))
	pair, _, _ := cp.ca.issue(t, name, true)
	s.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if clientCA != nil {
		pool := x509.NewCertPool()
		pool.AddCert(clientCA.cert)
		s.TLS.ClientCAs, s.TLS.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are the point of some cases
	s.StartTLS()
	t.Cleanup(s.Close)
	cp.url = s.URL
	return cp
}

// audit --kuma-api reads each control plane with its own token, CA and client certificate, given
// after its URL; what a value does not give comes from the flags.
func TestKumaAuditPerURL(t *testing.T) {
	f := readKumaFixture(t, "v2.14.3-0c7aaec")
	clientCA := newTestCA(t, "clients")
	_, certFile, keyFile := clientCA.issue(t, "auditor", false)
	global := newControlPlane(t, "global", f, nil)
	zone := newControlPlane(t, "zone", f, clientCA) // asks for a client certificate
	t.Setenv("KUMA_API_TOKEN", "")

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"each its own", []string{
			"--kuma-api", global.url + ",token-file=" + global.tokenFile + ",ca-file=" + global.ca.file,
			"--kuma-api", zone.url + ",token-file=" + zone.tokenFile + ",ca-file=" + zone.ca.file + ",client-cert=" + certFile + ",client-key=" + keyFile,
		}},
		{"the flags for one, its own for the other", []string{
			"--kuma-api", global.url,
			"--kuma-api", zone.url + ", ca-file=" + zone.ca.file + ", token-file=" + zone.tokenFile,
			"--kuma-ca-file", global.ca.file, "--kuma-token-file", global.tokenFile,
			"--kuma-client-cert", certFile, "--kuma-client-key", keyFile,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, z := global.requests.Load(), zone.requests.Load()
			r := run(t, "", append([]string{"audit", "--chunk-size", "5", "-o", "json"}, tc.args...)...)
			if r.code == ExitError {
				t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
			}
			for _, cp := range []*controlPlane{global, zone} {
				if !strings.Contains(r.stderr, "audit: "+cp.url+" is Kuma 2.14.3") {
					t.Errorf("stderr does not name %s:\n%s", cp.url, r.stderr)
				}
			}
			if global.requests.Load()-g < 3 || zone.requests.Load()-z < 3 {
				t.Errorf("%d and %d requests answered, want the index, the types and the lists of each", global.requests.Load()-g, zone.requests.Load()-z)
			}
			decodeResults(t, r.stdout)
		})
	}

	// What reaches one control plane does not reach the other.
	for _, tc := range []struct {
		name, want string
		args       []string
	}{
		{"the other's CA", global.url + "/: control plane unreachable", []string{"--kuma-api", global.url + ",token-file=" + global.tokenFile + ",ca-file=" + zone.ca.file}},
		{"the other's token", global.url + "/: 401 Unauthorized", []string{"--kuma-api", global.url + ",token-file=" + zone.tokenFile + ",ca-file=" + global.ca.file}},
		{"no client certificate", zone.url + "/: control plane unreachable", []string{"--kuma-api", zone.url + ",token-file=" + zone.tokenFile + ",ca-file=" + zone.ca.file}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, "", append([]string{"audit"}, tc.args...)...)
			if r.code != ExitError || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want %d and %q; stderr:\n%s", r.code, ExitError, tc.want, r.stderr)
			}
		})
	}
}

// A --kuma-api value the audit cannot use fails before any request, exit 2, naming the option (or
// the flag) at fault and the control plane it is for.
func TestKumaAuditPerURLErrors(t *testing.T) {
	f := readKumaFixture(t, "v2.14.3-0c7aaec")
	cp := newControlPlane(t, "cp", f, nil)
	dir := t.TempDir()
	empty := writeFile(t, dir, "empty.token", " \n")
	notPEM := writeFile(t, dir, "not.pem", "not a certificate\n")
	missing := filepath.Join(dir, "missing.pem")
	// A first, good control plane: the bad second one must stop the run before it is read.
	good := cp.url + ",token-file=" + cp.tokenFile + ",ca-file=" + cp.ca.file
	for _, tc := range []struct {
		name, value, want string
		flags             []string
	}{
		{"unknown option", cp.url + ",ca=" + cp.ca.file, `unknown option "ca" (options: token-file, ca-file, client-cert, client-key)`, nil},
		{"not key=value", cp.url + ",insecure", `"insecure" is not key=value`, nil},
		{"empty value", cp.url + ",ca-file=", `: ca-file is empty`, nil},
		{"twice", cp.url + ",ca-file=a,ca-file=b", `ca-file given twice`, nil},
		{"no URL", ",ca-file=" + cp.ca.file, `no URL before the options`, nil},
		{"a certificate without its key", cp.url + ",client-cert=" + cp.ca.file, `client-cert needs client-key beside it`, nil},
		{"a key without its certificate", cp.url + ",client-key=" + cp.ca.file, `client-key needs client-cert beside it`, nil},
		{"missing CA file", cp.url + ",ca-file=" + missing, "--kuma-api " + cp.url + ": ca-file: reading the CA file: open " + missing, nil},
		{"CA file without PEM", cp.url + ",ca-file=" + notPEM, "--kuma-api " + cp.url + ": ca-file: CA file " + notPEM + " holds no PEM certificate", nil},
		{"empty token file", cp.url + ",token-file=" + empty, "--kuma-api " + cp.url + ": token-file: " + empty + " is empty", nil},
		{"missing token file", cp.url + ",token-file=" + missing, "--kuma-api " + cp.url + ": token-file: open " + missing, nil},
		{"bad client certificate", cp.url + ",client-cert=" + notPEM + ",client-key=" + notPEM, "--kuma-api " + cp.url + ": client-cert: loading the client certificate", nil},
		{"bad URL", "ftp://cp,ca-file=" + cp.ca.file, `--kuma-api "ftp://cp,ca-file=` + cp.ca.file + `": control plane URL "ftp://cp": want http:// or https://`, nil},
		{"the flag's CA, missing", cp.url, "--kuma-ca-file (for " + cp.url + "): reading the CA file", []string{"--kuma-ca-file", missing}},
		{"the flag's key alone", cp.url, "--kuma-client-cert (for " + cp.url + "): a client key needs its certificate file too", []string{"--kuma-client-key", notPEM}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := cp.requests.Load()
			r := run(t, "", append([]string{"audit", "--kuma-api", good, "--kuma-api", tc.value}, tc.flags...)...)
			if r.code != ExitError || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want %d and %q; stderr:\n%s", r.code, ExitError, tc.want, r.stderr)
			}
			if n := cp.requests.Load() - before; n > 0 {
				t.Errorf("%d requests made before the error, want none", n)
			}
		})
	}
}

// parseKumaAPI never panics; what it accepts has a URL with no comma, values that are not empty,
// and a client certificate and key both or neither.
func FuzzParseKumaAPI(f *testing.F) {
	for _, s := range []string{"https://cp:5682", "https://cp:5682,token-file=t,ca-file=c", "http://x,client-cert=a,client-key=b",
		",", "a,=", "a,ca-file=", "a,ca-file=b,ca-file=c", "a,b", "a, token-file = t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := parseKumaAPI(v)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--kuma-api ") {
				t.Errorf("%q: error %q does not name the flag", v, err)
			}
			return
		}
		if got.url == "" || strings.Contains(got.url, ",") {
			t.Errorf("%q: URL %q", v, got.url)
		}
		if (got.certFile == "") != (got.keyFile == "") {
			t.Errorf("%q: certificate %q, key %q", v, got.certFile, got.keyFile)
		}
		n := strings.Count(v, ",")
		set := 0
		for _, s := range []string{got.tokenFile, got.caFile, got.certFile, got.keyFile} {
			if s != "" {
				set++
			}
		}
		if set != n {
			t.Errorf("%q: %d options set, %d given", v, set, n)
		}
	})
}
