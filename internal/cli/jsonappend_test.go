package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/rules"
)

// encodeJSON is what jsonWriter writes of v with encoding/json: HTML escaping off, no newline.
func encodeJSON(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// jsonStrings are strings at the edges of encoding/json's escaping.
var jsonStrings = []string{
	"", "plain", `quote " and \ backslash`, "<a & b>", "tab\tline\nreturn\rbs\bff\f", "\x00\x01\x1f\x7f",
	"é ü 日本", "\u2028\u2029", "bad \xff utf-8 \xc3", "\xed\xa0\x80", "kri_mt_default_zone-1__backend_", "🙂",
}

// TestAppendObjectJSON holds appendObjectJSON to encoding/json's encoding of objectJSON: every
// field with every string of jsonStrings, results with and without mesh, errors, warnings, counts
// of findings left out and positions.
func TestAppendObjectJSON(t *testing.T) {
	finding := func(rule rules.Rule, level rules.Level, s string, line int) rules.Finding {
		return rules.Finding{Rule: rule, Level: level, Problem: field.Invalid(field.NewPath("metadata", "labels").Key(s), s, "detail "+s),
			Position: rules.Position{Line: line, Column: line / 2}}
	}
	var results []Result
	for i, s := range jsonStrings {
		r := Result{Source: s, Line: i, APIVersion: "kuma.io/v1alpha1", KRI: s, Allowed: i%2 == 0, Enforcement: s,
			Object: rules.Object{Kind: schema.GroupKind{Group: "kuma.io", Kind: s}, Namespace: s, Name: s}}
		results = append(results, r)
		r.Object.Mesh = s
		r.Findings = []rules.Finding{finding(rules.RuleKRI, rules.LevelError, s, i), finding(rules.RuleKDSCopy, rules.LevelWarning, s, 0)}
		results = append(results, r)
		r.MoreErrors = more{N: i + 1, Position: rules.Position{Line: 3, Column: 4}}
		r.MoreWarnings = more{N: i}
		results = append(results, r)
		r.Findings = r.Findings[1:]
		r.MoreErrors = more{}
		r.Object.Name, r.Object.GenerateName = "", s
		results = append(results, r)
		r.Findings = []rules.Finding{{Problem: field.Required(field.NewPath("spec"), s)}}
		results = append(results, r)
	}
	for _, r := range results {
		want := encodeJSON(t, objectJSON(&r))
		if got := appendObjectJSON(nil, &r); !bytes.Equal(got, want) {
			t.Errorf("appendObjectJSON:\n got  %s\n want %s", got, want)
		}
	}
}

// FuzzAppendJSONString holds appendJSONString to encoding/json's encoding of a string.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendJSONString(nil, s), encodeJSON(t, s); !bytes.Equal(got, want) {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	})
}

// TestAppendJSONStringEightAtATime: a byte that must not be copied as it is, at every position of
// a string long enough for the eight-byte steps, and after every other kind of byte, comes out as
// encoding/json writes it.
func TestAppendJSONStringEightAtATime(t *testing.T) {
	specials := []string{`"`, `\`, "\x00", "\x1f", "\n", "\x7f", " ", "\x80", "\xff", "é", "\u2028", "\u2029", "\xe2\x80", "🙂", "<&>"}
	for n := 1; n <= 24; n++ {
		for pos := 0; pos < n; pos++ {
			for _, sp := range specials {
				for _, before := range []string{"a", "\x01", "ü"} {
					s := strings.Repeat("k", pos) + sp + strings.Repeat(before, n-pos)
					if got, want := appendJSONString(nil, s), encodeJSON(t, s); !bytes.Equal(got, want) {
						t.Fatalf("appendJSONString(%q) = %s, want %s", s, got, want)
					}
				}
			}
		}
	}
	for w := range 256 {
		// Every byte in every lane of the first word.
		for lane := range 8 {
			b := []byte("abcdefghijkl")
			b[lane] = byte(w)
			if got, want := appendJSONString(nil, string(b)), encodeJSON(t, string(b)); !bytes.Equal(got, want) {
				t.Fatalf("appendJSONString(%q) = %s, want %s", b, got, want)
			}
		}
	}
}
