package rules

import (
	stdjson "encoding/json"
	"strings"
	"testing"
)

// FuzzScanner holds the scanner's syntax check to encoding/json's: it takes exactly the inputs
// that are one JSON value, nesting limit included.
func FuzzScanner(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add([]byte(tc.raw))
	}
	for _, s := range []string{
		`1`, `-0.5e+3`, `"a\u00e9\n"`, `[]`, `{}`, `[{},[],""]`, `{"a":[1,{"b":null}]}`, ` true `,
		`01`, `1.`, `-`, `1e`, `.5`, `[1,]`, `{"a"}`, `{"a":1,}`, `{1:2}`, `["\x"]`, `"\u12g4"`,
		"\"\x01\"", `[}`, `{]`, `nul`, `truex`, `"`, `[`, `{"a":`,
		strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting),
		strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1),
		strings.Repeat(`{"a":`, maxNesting-1) + "{}" + strings.Repeat("}", maxNesting-1),
		strings.Repeat(`{"a":`, maxNesting) + "{}" + strings.Repeat("}", maxNesting),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := validJSON(raw)
		if want := stdjson.Valid(raw); got != want {
			t.Fatalf("scanner took %q: %v, encoding/json: %v", raw, got, want)
		}
	})
}
