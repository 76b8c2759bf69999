package cli

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kriguard/kriguard/rules"
)

// kumaFixture is what a real kuma-cp answered, recorded as testdata/kumaapi/README.md says: each
// request URI (path and query) with its status and body, and under "401" a refused request.
type kumaFixture map[string]struct {
	Path   string          `json:"path"`
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

func readKumaFixture(t testing.TB, name string) kumaFixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "kumaapi", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f kumaFixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// kumaServer serves a fixture over loopback TLS as the control plane served it: with token set,
// a request without it as Bearer gets the recorded 401; a URI the control plane was not asked
// gets a 404. fail, when it returns true for a URI, answers it with a 500 instead.
type kumaServer struct {
	*httptest.Server
	caFile   string
	requests atomic.Int64
}

func newKumaServer(t testing.TB, f kumaFixture, token string, fail func(uri string) bool) *kumaServer {
	t.Helper()
	s := &kumaServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(f["401"].Status)
			_, _ = w.Write(f["401"].Body)
			return
		}
		uri := r.URL.RequestURI()
		if fail != nil && fail(uri) {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"title":"Could not list resources","detail":"store failure"}`))
			return
		}
		rec, ok := f[uri]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = fmt.Fprintf(w, `{"title":"no fixture for %s"}`, uri)
			return
		}
		w.WriteHeader(rec.Status)
		_, _ = w.Write(rec.Body)
	}))
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the unknown-CA case fails a handshake on purpose
	s.StartTLS()
	t.Cleanup(s.Close)
	s.caFile = filepath.Join(t.TempDir(), "ca.pem")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	if err := os.WriteFile(s.caFile, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// listedKRIs returns the KRI the control plane listed for each resource of the fixture, by
// "Type mesh/name".
func listedKRIs(t testing.TB, f kumaFixture) map[string]string {
	t.Helper()
	out := map[string]string{}
	for uri, rec := range f {
		if uri == "/" || uri == "/_resources" || uri == "401" {
			continue
		}
		var p struct {
			Items []struct{ Type, Mesh, Name, KRI string } `json:"items"`
		}
		if err := json.Unmarshal(rec.Body, &p); err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		for _, it := range p.Items {
			out[it.Type+" "+it.Mesh+"/"+it.Name] = it.KRI
		}
	}
	return out
}

const fixtureToken = "fixture-user-token"

// audit --kuma-api reads each release's recorded control plane over TLS with a token, page by
// page, detects the release from the index, and gives each resource the KRI the control plane
// itself listed for it.
func TestKumaAuditFixtures(t *testing.T) {
	for _, tt := range []struct {
		fixture, release string
		// refused are resources the release refuses or whose KRI it cannot hold.
		refused []string
	}{
		{"v2.14.3-0c7aaec", "2.14", []string{"MeshTimeout default/timeout-5", "MeshTimeout mesh.a/timeout-md", "MeshService default/backend.v1"}},
		{"master-348b652", "3.0", []string{"MeshTimeout default/timeout-sn"}},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			f := readKumaFixture(t, tt.fixture)
			s := newKumaServer(t, f, fixtureToken, nil)
			t.Setenv("KUMA_API_TOKEN", fixtureToken)
			r := run(t, "", "audit", "--kuma-api", s.URL, "--kuma-ca-file", s.caFile, "--chunk-size", "5", "-o", "json")
			if r.code != ExitDenied {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitDenied, r.stderr)
			}
			if want := "judged as Kuma " + tt.release; !strings.Contains(r.stderr, want) {
				t.Errorf("stderr %q does not say %q", r.stderr, want)
			}
			listed := listedKRIs(t, f)
			got := map[string]jsonResult{}
			for _, res := range decodeResults(t, r.stdout) {
				key := res.Kind + " " + res.Mesh + "/" + res.Name
				got[key] = res
				want, ok := listed[key]
				if !ok {
					t.Errorf("%s: judged, but not in the fixture", key)
					continue
				}
				if res.KRI != "" && res.KRI != want {
					t.Errorf("%s: KRI %q, the control plane lists %q", key, res.KRI, want)
				}
				if res.Source != s.URL {
					t.Errorf("%s: source %q, want the control plane's URL", key, res.Source)
				}
			}
			if len(got) < 20 {
				t.Errorf("judged %d resources: the fixture holds more", len(got))
			}
			// Every resource of every guarded type the fixture holds was judged: paging went
			// through every page (the fixture's pages are of 5).
			for key, kri := range listed {
				if _, ok := got[key]; !ok && kri != "" && !strings.HasPrefix(key, "ZoneEgress") {
					t.Errorf("%s (%s) listed by the control plane, not judged", key, kri)
				}
			}
			for _, key := range tt.refused {
				if res, ok := got[key]; !ok || res.Allowed {
					t.Errorf("%s: want it refused, got %+v", key, res)
				}
			}
		})
	}
}

// Every output format audit has, text by default, for a control plane too.
func TestKumaAuditOutputs(t *testing.T) {
	f := readKumaFixture(t, "v2.14.3-0c7aaec")
	s := newKumaServer(t, f, "", nil)
	r := run(t, "", "audit", "--kuma-api", s.URL, "--kuma-ca-file", s.caFile, "--chunk-size", "5")
	want := s.URL + `: MeshTimeout timeout-5 (mesh default): labels[kuma.io/display-name]: Invalid value: "Shown": `
	if r.code != ExitDenied || !strings.Contains(r.stdout, want) {
		t.Errorf("text: exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, "", "audit", "--kuma-api", s.URL, "--kuma-ca-file", s.caFile, "--chunk-size", "5", "-o", "junit")
	if r.code != ExitDenied || !strings.Contains(r.stdout, "<testsuites") || !strings.Contains(r.stdout, "timeout-5") {
		t.Errorf("junit: exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// The 3.0 readiness of a 2.14 control plane: --kuma-version 3.0 overrides the index, and reports
// what 3.0 refuses among the stored resources.
func TestKumaAuditReadiness(t *testing.T) {
	f := readKumaFixture(t, "v2.14.3-0c7aaec")
	s := newKumaServer(t, f, fixtureToken, nil)
	tokenFile := writeFile(t, t.TempDir(), "token", fixtureToken+"\n")
	r := run(t, "", "audit", "--kuma-api", s.URL, "--kuma-ca-file", s.caFile, "--kuma-token-file", tokenFile, "--kuma-version", "3.0", "--chunk-size", "5", "-o", "json")
	if r.code != ExitDenied || !strings.Contains(r.stderr, "is Kuma 2.14.3; judged as Kuma 3.0") {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	causeAt := map[string]string{}
	for _, res := range decodeResults(t, r.stdout) {
		for _, c := range res.Causes {
			causeAt[res.Kind+" "+res.Name+" "+c.Field] = c.Message
		}
	}
	for _, want := range []string{
		"Mesh mesh.a name",                               // RFC 1035
		"Mesh 1mesh name",                                // RFC 1035
		"MeshService 1backend name",                      // RFC 1035
		"MeshTimeout timeout-to-ms spec.to[0].targetRef", // by name
		"MeshTimeout timeout-subset spec.targetRef.kind", // MeshSubset
		"ZoneEgress ze-1 type",                           // removed
	} {
		if _, ok := causeAt[want]; !ok {
			t.Errorf("no cause %q; causes: %v", want, causeAt)
		}
	}
}

// A refusing or unreachable control plane, and a listing that fails part way, are exit 2 with
// the URL and the status; nothing is reported as complete.
func TestKumaAuditErrors(t *testing.T) {
	f := readKumaFixture(t, "v2.14.3-0c7aaec")
	t.Run("no token", func(t *testing.T) {
		s := newKumaServer(t, f, fixtureToken, nil)
		t.Setenv("KUMA_API_TOKEN", "")
		r := run(t, "", "audit", "--kuma-api", s.URL, "--kuma-ca-file", s.caFile)
		if r.code != ExitError || !strings.Contains(r.stderr, s.URL+"/: 401 Unauthorized: Invalid authentication data") {
			t.Errorf("exit %d; stderr:\n%s", r.code, r.stderr)
		}
	})
	t.Run("unknown CA", func(t *testing.T) {
		s := newKumaServer(t, f, "", nil)
		r := run(t, "", "audit", "--kuma-api", s.URL)
		if r.code != ExitError || !strings.Contains(r.stderr, s.URL+"/: control plane unreachable") || !strings.Contains(r.stderr, "certificate") {
			t.Errorf("exit %d; stderr:\n%s", r.code, r.stderr)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + l.Addr().String()
		l.Close()
		r := run(t, "", "audit", "--kuma-api", url)
		if r.code != ExitError || !strings.Contains(r.stderr, url+"/: control plane unreachable") {
			t.Errorf("exit %d; stderr:\n%s", r.code, r.stderr)
		}
	})
	t.Run("fails part way", func(t *testing.T) {
		s := newKumaServer(t, f, "", func(uri string) bool { return uri == "/meshtimeouts?offset=10&size=5" })
		r := run(t, "", "audit", "--kuma-api", s.URL, "--kuma-ca-file", s.caFile, "--chunk-size", "5", "-o", "json")
		if r.code != ExitError || !strings.Contains(r.stderr, s.URL+"/meshtimeouts: 500 Internal Server Error") || !strings.Contains(r.stderr, "the audit is incomplete") {
			t.Errorf("exit %d; stderr:\n%s", r.code, r.stderr)
		}
		decodeResults(t, r.stdout) // what was judged is still a whole JSON array
	})
	t.Run("a distribution based on Kuma", func(t *testing.T) {
		g := kumaFixture{}
		for k, v := range f {
			g[k] = v
		}
		ix := g["/"]
		ix.Body = json.RawMessage(`{"product":"Kong Mesh","version":"2.14.1","basedOnKuma":"0.0.0-348b6528b"}`)
		g["/"] = ix
		s := newKumaServer(t, g, "", nil)
		r := run(t, "", "audit", "--kuma-api", s.URL, "--kuma-ca-file", s.caFile, "--chunk-size", "5")
		if !strings.Contains(r.stderr, "is Kong Mesh 2.14.1 (based on Kuma 0.0.0-348b6528b); judged as Kuma 3.0") {
			t.Errorf("exit %d; stderr:\n%s", r.code, r.stderr)
		}
	})
	t.Run("unknown version", func(t *testing.T) {
		g := kumaFixture{}
		for k, v := range f {
			g[k] = v
		}
		ix := g["/"]
		ix.Body = json.RawMessage(`{"product":"Kuma","version":"0.0.0-abcdef012"}`)
		g["/"] = ix
		s := newKumaServer(t, g, "", nil)
		r := run(t, "", "audit", "--kuma-api", s.URL, "--kuma-ca-file", s.caFile)
		if r.code != ExitError || !strings.Contains(r.stderr, `version "0.0.0-abcdef012" names no Kuma release`) {
			t.Errorf("exit %d; stderr:\n%s", r.code, r.stderr)
		}
	})
}

// plantMeshService returns f with its MeshService "name" of mesh default relabelled, or, when the
// fixture has none, with one added (and the list's total with it).
func plantMeshService(t testing.TB, f kumaFixture, name string, labels map[string]string) kumaFixture {
	t.Helper()
	const uri = "/meshservices?size=5"
	var page struct {
		Total int              `json:"total"`
		Items []map[string]any `json:"items"`
		Next  *string          `json:"next"`
	}
	if err := json.Unmarshal(f[uri].Body, &page); err != nil || page.Next != nil {
		t.Fatalf("%s: %v (next %v): the planting wants one page", uri, err, page.Next)
	}
	planted := map[string]any{"type": "MeshService", "mesh": "default", "name": name, "labels": labels,
		"spec": map[string]any{"ports": []any{map[string]any{"port": 80, "targetPort": 8080, "appProtocol": "http"}}}}
	i := slices.IndexFunc(page.Items, func(it map[string]any) bool { return it["mesh"] == "default" && it["name"] == name })
	if i < 0 {
		page.Items = append(page.Items, planted)
		page.Total++
	} else {
		page.Items[i] = planted
	}
	body, err := json.Marshal(page)
	if err != nil {
		t.Fatal(err)
	}
	out := maps.Clone(f)
	rec := out[uri]
	rec.Body = body
	out[uri] = rec
	return out
}

// audit --kuma-api, given global's control plane and a zone's, finds two zones' MeshServices whose
// KDS copies get one name on global: global holds zone-1's copy (zone-1's namespace abc), the zone
// zone-1a holds its own backend of namespace bc. The resources both control planes hold (the
// fixture's own) are the same resources, seen twice, and do not clash.
func TestKumaAuditCopyCollision(t *testing.T) {
	f := readKumaFixture(t, "v2.14.3-0c7aaec")
	global := newKumaServer(t, plantMeshService(t, f, "backend-z9vdzz8dx42ffz26", map[string]string{
		"kuma.io/mesh": "default", "kuma.io/origin": "zone", "kuma.io/zone": "zone-1",
		"k8s.kuma.io/namespace": "abc", "kuma.io/display-name": "backend",
	}), "", nil)
	zone := newKumaServer(t, plantMeshService(t, f, "backend", map[string]string{
		"kuma.io/mesh": "default", "kuma.io/origin": "zone", "kuma.io/zone": "zone-1a", "k8s.kuma.io/namespace": "bc",
	}), "", nil)
	cas, err := os.ReadFile(global.caFile)
	if err != nil {
		t.Fatal(err)
	}
	more, err := os.ReadFile(zone.caFile)
	if err != nil {
		t.Fatal(err)
	}
	caFile := writeFile(t, t.TempDir(), "cas.pem", string(cas)+string(more))

	r := run(t, "", "audit", "--kuma-api", global.URL, "--kuma-api", zone.URL, "--kuma-ca-file", caFile, "--chunk-size", "5", "-o", "json")
	if r.code != ExitDenied {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitDenied, r.stderr)
	}
	var clashes []string
	for _, res := range decodeResults(t, r.stdout) {
		for _, c := range res.Causes {
			if c.Rule == rules.RuleKDSCollision {
				clashes = append(clashes, res.Source+" "+res.Kind+" "+res.Mesh+"/"+res.Name+" "+c.Field+": "+c.Message)
			}
		}
	}
	if len(clashes) != 1 {
		t.Fatalf("%d KDS copy collisions, want 1:\n%s", len(clashes), strings.Join(clashes, "\n"))
	}
	for _, want := range []string{
		zone.URL + " MeshService default/backend name: ",
		"MeshService backend-z9vdzz8dx42ffz26 of mesh default of zone zone-1", // the other
		`one copy name "backend-z9vdzz8dx42ffz26" on global`,
	} {
		if !strings.Contains(clashes[0], want) {
			t.Errorf("collision %q does not say %q", clashes[0], want)
		}
	}
	// The same pair in the other order, the zone first: the finding is about global's copy.
	r = run(t, "", "audit", "--kuma-api", zone.URL, "--kuma-api", global.URL, "--kuma-ca-file", caFile, "--chunk-size", "5")
	if want := global.URL + ": MeshService backend-z9vdzz8dx42ffz26 (mesh default): name: Duplicate value"; r.code != ExitDenied || !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d, stdout does not say %q:\n%s", r.code, want, r.stdout)
	}
}

// audit --kuma-api gives global's copy of a zone's Universal MeshService the KRI Kuma gives it:
// the original's, named after the display-name label the copy keeps, in 3.0 too
// (rules/testdata/universal/kds-copies.jsonl, "MeshService backend: zone, no labels").
func TestKumaAuditCopyKRI(t *testing.T) {
	for _, fixture := range []string{"v2.14.3-0c7aaec", "master-348b652"} {
		global := newKumaServer(t, plantMeshService(t, readKumaFixture(t, fixture), "backend-d8466458x7574b7b", map[string]string{
			"kuma.io/mesh": "default", "kuma.io/origin": "zone", "kuma.io/zone": "zone-1", "kuma.io/env": "universal",
			"kuma.io/display-name": "backend",
		}), "", nil)
		r := run(t, "", "audit", "--kuma-api", global.URL, "--kuma-ca-file", global.caFile, "--chunk-size", "5", "-o", "json")
		if r.code != ExitOK && r.code != ExitDenied {
			t.Fatalf("%s: exit %d; stderr:\n%s", fixture, r.code, r.stderr)
		}
		var got []string
		for _, res := range decodeResults(t, r.stdout) {
			if res.Kind == "MeshService" && res.Name == "backend-d8466458x7574b7b" {
				got = append(got, res.KRI)
			}
		}
		if want := "kri_msvc_default_zone-1__backend_"; len(got) != 1 || got[0] != want {
			t.Errorf("%s: global's copy has the KRI %q, Kuma's is %s", fixture, got, want)
		}
	}
}

// On a terminal, audit --kuma-api shows its progress on standard error between pages and ends with
// the summary; every page's results reach standard output, none of the progress does.
func TestKumaAuditProgress(t *testing.T) {
	const n = 1200 // three pages of 500, one resource in ten denied (kumaapitest.Timeouts)
	s := manyResourcesServer(t, n)
	var out, errOut strings.Builder
	code := Main(context.Background(), []string{"audit", "--kuma-api", s.URL, "--chunk-size", "500", "-o", "json"},
		Streams{In: strings.NewReader(""), Out: &out, Err: &errOut, ErrIsTerminal: true})
	if code != ExitDenied {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "\r\x1b[Kaudit: 0/") || !strings.Contains(errOut.String(), fmt.Sprintf("audit: %d objects checked in ", n)) ||
		!strings.Contains(errOut.String(), fmt.Sprintf("%d denied, 0 errors\n", n/10)) {
		t.Errorf("stderr lacks the progress line or the summary:\n%q", errOut.String())
	}
	var results []struct {
		Allowed bool `json:"allowed"`
	}
	if err := json.Unmarshal([]byte(out.String()), &results); err != nil {
		t.Fatalf("standard output is not the JSON results: %v\n%s", err, out.String())
	}
	denied := 0
	for _, r := range results {
		if !r.Allowed {
			denied++
		}
	}
	if len(results) != n || denied != n/10 {
		t.Errorf("%d results, %d denied; want %d, %d", len(results), denied, n, n/10)
	}
}
