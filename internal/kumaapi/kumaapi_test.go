package kumaapi

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
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pager serves n resources of /meshtimeouts as Kuma pages them; change, when set, alters the
// answer for a page (its offset).
func pager(t *testing.T, n int, change func(offset int, total *int, next *string)) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/meshtimeouts" {
			http.NotFound(w, r)
			return
		}
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		end := min(offset+size, n)
		items := []string{}
		for i := offset; i < end; i++ {
			items = append(items, fmt.Sprintf(`{"type":"MeshTimeout","mesh":"default","name":"t-%d"}`, i))
		}
		total := n
		next := ""
		if end < n {
			// Kuma builds next from the Host it was asked: here another host, which the client
			// must not follow.
			next = fmt.Sprintf("http://elsewhere.test/meshtimeouts?offset=%d&size=%d", end, size)
		}
		if change != nil {
			change(offset, &total, &next)
		}
		nx := "null"
		if next != "" {
			nx = strconv.Quote(next)
		}
		fmt.Fprintf(w, `{"total":%d,"items":[%s],"next":%s}`, total, strings.Join(items, ","), nx)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestListPages(t *testing.T) {
	for _, tt := range []struct {
		name      string
		n, size   int
		change    func(int, *int, *string)
		wantErr   string
		wantCount int
	}{
		{"one page", 3, 10, nil, "", 3},
		{"pages", 23, 5, nil, "", 23},
		{"exact pages", 20, 5, nil, "", 20},
		{"empty", 0, 5, nil, "", 0},
		// Only the first page's total counts: a later one that differs changes nothing.
		{"later total differs", 12, 5, func(off int, total *int, _ *string) {
			if off > 0 {
				*total = 11
			}
		}, "", 12},
		{"next that does not move", 12, 5, func(off int, _ *int, next *string) {
			if off == 5 {
				*next = "http://x/meshtimeouts?offset=5&size=5"
			}
		}, "does not move past offset", 10},
		{"total changes between pages", 12, 5, func(off int, total *int, _ *string) {
			if off == 0 {
				*total = 13
			}
		}, "listed 12 resources, the control plane counted 13", 12},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := pager(t, tt.n, tt.change)
			c, err := New(Options{URL: s.URL, PageSize: tt.size})
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			got, err := c.List(context.Background(), ResourceType{Name: "MeshTimeout", Path: "meshtimeouts"}, func(raw json.RawMessage) error {
				var r struct{ Name string }
				if err := json.Unmarshal(raw, &r); err != nil {
					return err
				}
				if names[r.Name] {
					t.Errorf("%s listed twice", r.Name)
				}
				names[r.Name] = true
				return nil
			})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one with %q", err, tt.wantErr)
			}
			if tt.wantErr == "" && got != tt.wantCount {
				t.Errorf("listed %d, want %d", got, tt.wantCount)
			}
		})
	}
}

// A refusal names the URL, the status and what Kuma said; a 401 says how to give a token.
func TestStatusError(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"type":"/std-errors","status":401,"title":"Invalid authentication data","detail":"Unauthenticated"}`)
			return
		}
		fmt.Fprint(w, `{"product":"Kuma","version":"2.14.3"}`)
	}))
	defer s.Close()
	c, _ := New(Options{URL: s.URL + "/"})
	_, err := c.Index(context.Background())
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 401 {
		t.Fatalf("error %v, want a 401", err)
	}
	want := s.URL + "/: 401 Unauthorized: Invalid authentication data: Unauthenticated (give a user token with --kuma-token-file or KUMA_API_TOKEN)"
	if err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
	c, _ = New(Options{URL: s.URL, Token: " tok\n"})
	if ix, err := c.Index(context.Background()); err != nil || ix.Version != "2.14.3" {
		t.Errorf("with the token: %+v, %v", ix, err)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, o := range []Options{
		{URL: "cp:5681"}, {URL: "ftp://cp"}, {URL: "http://user:pw@cp"}, {URL: "http://cp", PageSize: 1001},
		{URL: "https://cp", CertFile: "c.pem"}, {URL: "https://cp", CAFile: "/nonexistent/ca.pem"},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

// A control plane that asks for a client certificate gets the one of CertFile and KeyFile, and its
// own certificate is checked against CAFile.
func TestClientCertificate(t *testing.T) {
	dir := t.TempDir()
	caCert, caKey := newCert(t, nil, nil, "kuma-ca", true)
	clientCert, clientKey := newCert(t, caCert, caKey, "kriguard", false)
	writePEM(t, filepath.Join(dir, "client.pem"), "CERTIFICATE", clientCert.Raw)
	der, err := x509.MarshalECPrivateKey(clientKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "client-key.pem"), "EC PRIVATE KEY", der)

	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"product":"Kuma","version":"2.14.3","hostname":%q}`, r.TLS.PeerCertificates[0].Subject.CommonName)
	}))
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	s.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	defer s.Close()
	writePEM(t, filepath.Join(dir, "server-ca.pem"), "CERTIFICATE", s.Certificate().Raw)

	c, err := New(Options{URL: s.URL, CAFile: filepath.Join(dir, "server-ca.pem"),
		CertFile: filepath.Join(dir, "client.pem"), KeyFile: filepath.Join(dir, "client-key.pem")})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := c.Index(context.Background())
	if err != nil || ix.Hostname != "kriguard" {
		t.Fatalf("with the client certificate: %+v, %v", ix, err)
	}
	c, _ = New(Options{URL: s.URL, CAFile: filepath.Join(dir, "server-ca.pem")})
	if _, err := c.Index(context.Background()); err == nil || !strings.Contains(err.Error(), "control plane unreachable") {
		t.Errorf("without it: %v", err)
	}
}

func newCert(t *testing.T, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, cn string, ca bool) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: ca, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestListBadPages: a page that is not one of Kuma's lists ends the listing with an error that
// names the URL, after the resources of the pages before it.
func TestListBadPages(t *testing.T) {
	for _, tt := range []struct{ name, second, err string }{
		{"not JSON", `{"total":2,"items":[{"name":"b"}`, "not an answer of Kuma's API: unexpected end of JSON input"},
		{"two items without a comma", `{"total":2,"items":[{"name":"b"} {"name":"c"}]}`, "not an answer of Kuma's API: invalid character '{'"},
		{"items not a list", `{"total":2,"items":{"name":"b"}}`, "not an answer of Kuma's API: items is a JSON object, not an array"},
		{"total not a number", `{"total":"2","items":[{"name":"b"}]}`, "not an answer of Kuma's API: total: json: cannot unmarshal string"},
		{"no total", `{"items":[{"name":"b"}]}`, "a list answer without total"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Get("offset") == "" {
					fmt.Fprint(w, `{"total":2,"items":[{"name":"a"}],"next":"http://x/meshtimeouts?offset=1&size=1"}`)
					return
				}
				fmt.Fprint(w, tt.second)
			}))
			defer s.Close()
			c, err := New(Options{URL: s.URL, PageSize: 1})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			n, err := c.List(context.Background(), ResourceType{Name: "MeshTimeout", Path: "meshtimeouts"}, func(raw json.RawMessage) error {
				var r struct{ Name string }
				if err := json.Unmarshal(raw, &r); err != nil {
					return err
				}
				names = append(names, r.Name)
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), s.URL+"/meshtimeouts") {
				t.Fatalf("error %v, want one naming %s/meshtimeouts and saying %q", err, s.URL, tt.err)
			}
			if n != 1 || strings.Join(names, ",") != "a" {
				t.Errorf("listed %d (%q) before the error, want the 1 of the first page", n, names)
			}
		})
	}
}

// New names the option it cannot use, so that the command can name the flag it came from.
func TestNewOptionError(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("no certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		o     Options
		field string
	}{
		{Options{URL: "ftp://cp"}, "URL"},
		{Options{URL: "https://user:pw@cp"}, "URL"},
		{Options{URL: "https://cp", PageSize: MaxPageSize + 1}, "PageSize"},
		{Options{URL: "https://cp", CAFile: filepath.Join(dir, "missing")}, "CAFile"},
		{Options{URL: "https://cp", CAFile: notPEM}, "CAFile"},
		{Options{URL: "https://cp", CertFile: notPEM}, "KeyFile"},
		{Options{URL: "https://cp", KeyFile: notPEM}, "CertFile"},
		{Options{URL: "https://cp", CertFile: notPEM, KeyFile: notPEM}, "CertFile"},
	} {
		_, err := New(tc.o)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Field != tc.field {
			t.Errorf("%+v: %v, want an OptionError of %s", tc.o, err, tc.field)
		}
	}
}

// TestListPagesWhole: ListPages hands over each page whole, in order, and stops at fn's error,
// with the pages fn took before it counted; the page it was fetching meanwhile is dropped.
func TestListPagesWhole(t *testing.T) {
	s := pager(t, 12, nil)
	c, err := New(Options{URL: s.URL, PageSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	typ := ResourceType{Name: "MeshTimeout", Path: "meshtimeouts"}
	var sizes []int
	n, err := c.ListPages(context.Background(), typ, func(items [][]byte) error {
		sizes = append(sizes, len(items))
		return nil
	})
	if err != nil || n != 12 || !slices.Equal(sizes, []int{5, 5, 2}) {
		t.Errorf("listed %d in pages of %v, error %v; want 12 in pages of [5 5 2]", n, sizes, err)
	}
	stop := errors.New("stop")
	pages := 0
	n, err = c.ListPages(context.Background(), typ, func(items [][]byte) error {
		if pages++; pages == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 5 || pages != 2 {
		t.Errorf("after fn's error on the second page: %d listed, %d pages, error %v; want 5, 2, stop", n, pages, err)
	}
}
