package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jsonpatchapply "github.com/evanphx/json-patch/v5"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/yaml"

	"github.com/kriguard/kriguard/rules"
	"github.com/kriguard/kriguard/webhook"
)

const kumaVectors = "../../../shared/kuma-kri/vectors.jsonl"

// admitted is what the webhooks answer for the CREATE of one object.
type admitted struct {
	guarded  bool
	allowed  bool
	name     string
	causes   []jsonFinding
	warnings []string
}

// admit sends obj through the two webhook handlers as the API server does for a CREATE by an
// ordinary user: the mutating webhook, its patch applied, a generated name when there is still
// none (the API server's random suffix, here the five characters Judge uses), then the
// validating webhook.
func admit(t testing.TB, cfg *rules.Config, obj []byte) admitted {
	t.Helper()
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name, GenerateName, Namespace string
		} `json:"metadata"`
	}
	if err := json.Unmarshal(obj, &meta); err != nil {
		t.Fatal(err)
	}
	gv, _ := schema.ParseGroupVersion(meta.APIVersion)
	gk := schema.GroupKind{Group: gv.Group, Kind: meta.Kind}
	if _, ok := cfg.Enforcement(gk); !ok {
		return admitted{}
	}
	req := func(raw []byte, name string) admission.Request {
		return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			UID:       "1",
			Kind:      metav1.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: meta.Kind},
			Operation: admissionv1.Create,
			Name:      name,
			Namespace: meta.Metadata.Namespace,
			UserInfo:  authenticationv1.UserInfo{Username: "jane", Groups: []string{"developers", "system:authenticated"}},
			Object:    runtime.RawExtension{Raw: raw},
		}}
	}
	ctx := context.Background()
	resp := webhook.NewMutator(cfg).Handle(ctx, req(obj, meta.Metadata.Name))
	if !resp.Allowed {
		t.Fatalf("the mutating webhook refused %s: %v", obj, resp.Result)
	}
	if len(resp.Patches) > 0 {
		p, err := json.Marshal(resp.Patches)
		if err != nil {
			t.Fatal(err)
		}
		patch, err := jsonpatchapply.DecodePatch(p)
		if err != nil {
			t.Fatal(err)
		}
		if obj, err = patch.Apply(obj); err != nil {
			t.Fatal(err)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatal(err)
	}
	md, _ := m["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	shown := name
	if name == "" && meta.Metadata.GenerateName != "" {
		name = meta.Metadata.GenerateName + "xxxxx"
		md["name"] = name
		shown = meta.Metadata.GenerateName + "*"
		var err error
		if obj, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	resp = webhook.NewValidator(cfg).Handle(ctx, req(obj, name))
	a := admitted{guarded: true, allowed: resp.Allowed, name: shown, causes: []jsonFinding{}, warnings: resp.Warnings}
	if resp.Result != nil && resp.Result.Details != nil {
		for _, c := range resp.Result.Details.Causes {
			a.causes = append(a.causes, jsonFinding{Field: c.Field, Message: c.Message})
		}
	}
	return a
}

// corpusFiles writes every object of the examples and of Kuma's public KRI vectors into one
// multi-document file, and returns it with the objects as JSON, in order.
func corpusFiles(t *testing.T) (string, [][]byte) {
	t.Helper()
	var objects [][]byte
	paths, err := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		j, err := yaml.YAMLToJSON(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		objects = append(objects, j)
	}
	f, err := os.Open(kumaVectors)
	if err != nil {
		t.Fatalf("Kuma's public KRI vectors: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	vectors := 0
	for s.Scan() {
		var v struct {
			Object json.RawMessage `json:"object"`
		}
		if err := json.Unmarshal(s.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		objects = append(objects, v.Object)
		vectors++
	}
	if err := s.Err(); err != nil || vectors == 0 {
		t.Fatalf("reading the vectors: %v (%d read)", err, vectors)
	}
	// Objects of our own for what the examples and vectors lack: a warning, a generateName the
	// mutating webhook leaves to the API server, a KRI annotation that disagrees.
	objects = append(objects,
		[]byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshProxyPatch","metadata":{"name":"patch","namespace":"kuma-system"},"spec":{"targetRef":{"kind":"Mesh"},"default":{"appendModifications":[{"listener":{"operation":"Patch","match":{"name":"inbound:10.42.0.9:8080"},"value":"{}"}},{"cluster":{"operation":"Patch","match":{"name":"kri_msvc_Default___backend_http"},"value":"{}"}}]}}}`),
		[]byte(`{"apiVersion":"configuration.konghq.com/v1alpha1","kind":"KongRoute","metadata":{"generateName":"route-","namespace":"kong"}}`),
		[]byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"t","namespace":"ns","annotations":{"kriguard.io/kri":"kri_mt_other___t_"}}}`),
	)
	var doc strings.Builder
	for _, o := range objects {
		doc.Write(o)
		doc.WriteString("\n")
	}
	return writeFile(t, t.TempDir(), "corpus.json", doc.String()), objects
}

// check and the webhooks decide the same for every example and every object of Kuma's public
// KRI vectors: the same objects guarded, the same allow or deny, the same name, the same causes
// at the same fields, under the default configuration and one that only warns.
func TestCheckAgreesWithWebhook(t *testing.T) {
	file, objects := corpusFiles(t)
	warn := writeFile(t, t.TempDir(), "warn.yaml", "apiVersion: kriguard.io/v1alpha1\nkind: Configuration\ndefaultEnforcement: warn\n")
	for _, tc := range []struct{ name, config string }{{"default", ""}, {"warn", warn}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := rules.LoadConfig(tc.config)
			if err != nil {
				t.Fatal(err)
			}
			r := run(t, "", "check", "-o", "json", "--config", tc.config, file)
			if r.code == ExitError {
				t.Fatalf("check: %s", r.stderr)
			}
			results := decodeResults(t, r.stdout)
			denied, guarded, warned := 0, 0, 0
			for i, obj := range objects {
				want := admit(t, cfg, obj)
				if !want.guarded {
					continue
				}
				if guarded >= len(results) {
					t.Fatalf("check judged %d objects, the webhook guards more", len(results))
				}
				got := results[guarded]
				guarded++
				if tc.config != "" {
					// Under warn the webhook allows and turns causes into warnings; compare check's
					// causes with what the default configuration denies.
					want = admit(t, rules.DefaultConfig(), obj)
					want.allowed = true
				}
				if !want.allowed {
					denied++
				}
				if len(want.warnings) > 0 {
					warned++
				}
				// Every finding check prints names its rule, with the level of the webhook's
				// answer: a cause is an error, a warning a warning or a note.
				for _, c := range got.Causes {
					if _, ok := rules.Describe(c.Rule); (!ok || c.Level != rules.LevelError) && c.Field != "" {
						t.Errorf("object %d (%s:%d): cause %+v, want an error of a known rule", i, got.Source, got.Line, c)
					}
				}
				for _, c := range got.Warnings {
					if _, ok := rules.Describe(c.Rule); (!ok || c.Level == rules.LevelError) && c.Field != "" {
						t.Errorf("object %d (%s:%d): warning %+v, want a warning or note of a known rule", i, got.Source, got.Line, c)
					}
				}
				// The webhook words a warning as `Kind.group "name": field: message`.
				// The webhook cuts each warning to 512 bytes (webhook/limits.go boundWarnings); check
				// does not.
				var gotWarnings []string
				for j, c := range got.Warnings {
					w := c.Field + ": " + c.Message
					if j < len(want.warnings) {
						if prefix, _, ok := strings.Cut(want.warnings[j], `": `); ok {
							w = strings.TrimPrefix(boundString(prefix+`": `+w, 512), prefix+`": `)
						}
					}
					gotWarnings = append(gotWarnings, w)
				}
				var wantWarnings []string
				for _, w := range want.warnings {
					if _, rest, ok := strings.Cut(w, `": `); ok {
						wantWarnings = append(wantWarnings, rest)
					}
				}
				g := fmt.Sprintf("allowed=%v name=%s causes=%v warnings=%q", got.Allowed, got.Name, withoutPositions(got.Causes), gotWarnings)
				w := fmt.Sprintf("allowed=%v name=%s causes=%v warnings=%q", want.allowed, want.name, want.causes, wantWarnings)
				if g != w {
					t.Errorf("object %d (%s:%d):\ncheck   %s\nwebhook %s", i, got.Source, got.Line, g, w)
				}
			}
			if guarded != len(results) {
				t.Errorf("check judged %d objects, the webhook guards %d", len(results), guarded)
			}
			if tc.config == "" && (denied == 0 || denied == guarded || warned == 0) {
				t.Errorf("%d of %d objects denied, %d warned about: the corpus should have every outcome", denied, guarded, warned)
			}
			t.Logf("%d objects guarded, %d denied", guarded, denied)
		})
	}
}

// The webhook's answer carries at most webhook.MaxCauses causes, the last counting the rest, to
// keep admission responses small; check shows the same causes, the same count, exactly as the
// webhook words them, so that an object with millions of problems prints a bounded answer.
func TestCheckCapsCausesAsTheWebhook(t *testing.T) {
	for _, n := range []int{webhook.MaxCauses, webhook.MaxCauses + 1, 1500} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var to []string
			for i := range n {
				to = append(to, fmt.Sprintf(`{"targetRef":{"kind":"MeshService","name":"s%d","sectionName":"Port_%d"},"default":{"idleTimeout":"1s"}}`, i, i))
			}
			obj := []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"many","namespace":"ns"},"spec":{"targetRef":{"kind":"Mesh"},"to":[` + strings.Join(to, ",") + `]}}`)
			r := run(t, string(obj), "check", "-o", "json", "-")
			results := decodeResults(t, r.stdout)
			if r.code != ExitDenied || len(results) != 1 {
				t.Fatalf("exit %d, %d results", r.code, len(results))
			}
			got := withoutPositions(results[0].Causes)
			want := admit(t, rules.DefaultConfig(), obj)
			if len(got) != len(want.causes) || len(got) != webhook.MaxCauses {
				t.Fatalf("check lists %d causes, the webhook %d; want %d", len(got), len(want.causes), webhook.MaxCauses)
			}
			for i, c := range want.causes {
				if got[i] != c {
					t.Errorf("cause %d: check %v, webhook %v", i, got[i], c)
				}
			}
			if more := n - webhook.MaxCauses + 1; n > webhook.MaxCauses {
				if want := fmt.Sprintf("… and %s more", formatCount(more)); got[len(got)-1].Message != want {
					t.Errorf("last cause %v, want %q", got[len(got)-1], want)
				}
				text := run(t, string(obj), "check", "-").stdout
				if last := text[strings.LastIndex(text[:len(text)-1], "\n")+1:]; last != "-:1:1: MeshTimeout ns/many: "+got[len(got)-1].Message+"\n" {
					t.Errorf("last text line %q", last)
				}
			}
		})
	}
}

// withoutPositions drops what only a file has, the line and column of each cause, to compare
// causes with the webhook's.
func withoutPositions(cs []jsonFinding) []jsonFinding {
	out := make([]jsonFinding, len(cs))
	for i, c := range cs {
		out[i] = jsonFinding{Field: c.Field, Message: c.Message}
	}
	return out
}
