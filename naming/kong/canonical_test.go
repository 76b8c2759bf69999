package kong

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// refCanonical is the canonical form as encoding/json computes it: decode
// into generic values (numbers kept as written), encode with sorted object
// keys and no HTML escaping.
func refCanonical(t testing.TB, src []byte) []byte {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(src))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decoding %q: %v", src, err)
	}
	return refEncode(t, v)
}

func refEncode(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatalf("encoding %v: %v", v, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// refString is a string's canonical form: invalid bytes become U+FFFD
// first, as the []rune conversion does byte by byte.
func refString(t testing.TB, s string) []byte {
	return refEncode(t, string([]rune(s)))
}

func TestAppendString(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain", "abc", `"abc"`},
		{"empty", "", `""`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`},
		{"short escapes", "\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"other control", "\x00\x1f", `"\u0000\u001f"`},
		{"del", "\x7f", "\"\x7f\""},
		{"html unescaped", "<&>", `"<&>"`},
		{"non-ASCII", "é日本", `"é日本"`},
		{"line separators", "\u2028\u2029", `"\u2028\u2029"`},
		{"invalid UTF-8", "a\xffb\xc3", "\"a\uFFFDb\uFFFD\""},
		{"slash", "a/b", `"a/b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := appendString(nil, tt.in); string(got) != tt.want {
				t.Errorf("appendString(%q) = %s, want %s", tt.in, got, tt.want)
			}
			if ref := refString(t, tt.in); string(ref) != tt.want {
				t.Errorf("encoding/json gives %s, want %s", ref, tt.want)
			}
		})
	}
}

func TestAppendStringRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			// Bias towards interesting bytes: controls, ASCII, UTF-8 lead bytes.
			switch r.IntN(4) {
			case 0:
				b[i] = byte(r.IntN(0x20))
			case 1:
				b[i] = byte(0x20 + r.IntN(0x60))
			default:
				b[i] = byte(r.IntN(256))
			}
		}
		s := string(b)
		if got, want := appendString(nil, s), refString(t, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, encoding/json %s", s, got, want)
		}
	}
}

// TestPlainBlock checks the SWAR test against the byte-by-byte rule, for
// every byte value at every position and for random blocks.
func TestPlainBlock(t *testing.T) {
	plain := func(b []byte) bool {
		for _, c := range b {
			if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
				return false
			}
		}
		return true
	}
	check := func(b []byte) {
		t.Helper()
		if got, want := plainBlock(load8(b, 0)), plain(b); got != want {
			t.Fatalf("plainBlock(%q) = %v, want %v", b, got, want)
		}
	}
	for pos := range 8 {
		for v := range 256 {
			for _, fill := range []byte{'a', 0x20, 0x7f, 0x21, 0x23, 0x5b, 0x5d, 0x00, 0x80} {
				b := bytes.Repeat([]byte{fill}, 8)
				b[pos] = byte(v)
				check(b)
			}
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		var b [8]byte
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		check(b[:])
	}
}

func TestAppendCanonicalJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{"sorted members", `{"b":1,"a":2}`, `{"a":2,"b":1}`, ""},
		{"white space", " { \"a\" : [ 1 , 2 ] ,\n\t\"b\":{ } } ", `{"a":[1,2],"b":{}}`, ""},
		{"nested", `{"z":{"y":[{"b":true,"a":null}]},"a":"x"}`, `{"a":"x","z":{"y":[{"a":null,"b":true}]}}`, ""},
		{"numbers as written", `[1.0,-0,1e3,2E-2,123456789012345678901234567890]`, `[1.0,-0,1e3,2E-2,123456789012345678901234567890]`, ""},
		{"escapes decoded and re-encoded", `"\u0041\/\u00e9\ud83d\ude00\t"`, `"A/é😀\t"`, ""},
		{"lone surrogate", `"\ud800x"`, "\"\uFFFDx\"", ""},
		{"escaped names sort by their text", `{"\u0062":1,"a":2}`, `{"a":2,"b":1}`, ""},
		{"many members", `{"p":1,"o":1,"n":1,"m":1,"l":1,"k":1,"j":1,"i":1,"h":1,"g":1,"f":1,"e":1,"d":1,"c":1,"b":1,"a":1,"q":1}`,
			`{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1,"m":1,"n":1,"o":1,"p":1,"q":1}`, ""},
		{"duplicate member", `{"a":1,"b":2,"a":3}`, "", "duplicate member"},
		{"escaped duplicate", `{"a":1,"\u0061":3}`, "", "duplicate member"},
		{"trailing comma", `[1,]`, "", "invalid JSON"},
		{"two values", `1 2`, "", "after the value"},
		{"leading zero", `01`, "", "after the value"},
		{"bare minus", `-`, "", "malformed number"},
		{"unterminated", `"abc`, "", "unterminated"},
		{"control in string", "\"a\nb\"", "", "control character"},
		{"bad escape", `"\x"`, "", "invalid escape"},
		{"bad literal", `nul`, "", "unexpected"},
		{"empty", ``, "", "end of input"},
		{"too deep", strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2), "", "nested deeper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := appendCanonicalJSON(nil, []byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("appendCanonicalJSON(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("appendCanonicalJSON(%q): %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Errorf("appendCanonicalJSON(%q) = %s, want %s", tt.in, got, tt.want)
			}
			if ref := refCanonical(t, []byte(tt.in)); !bytes.Equal(ref, got) {
				t.Errorf("encoding/json gives %s, appendCanonicalJSON %s", ref, got)
			}
		})
	}
}

func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,false,null,"x"]}`,
		`{"config":{"add":{"headers":["x-a:1"]}},"n":-1.5e+3}`,
		`"\ud83d\ude00\u2028<>&"`,
		`[[[[{}]]]]`,
		`{"a":1,"a":2}`,
		"\"\xff\"",
		`[1,]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, err := appendCanonicalJSON(nil, src)
		if !json.Valid(src) {
			if err == nil {
				t.Fatalf("appendCanonicalJSON(%q) = %s, want an error for invalid JSON", src, got)
			}
			return
		}
		if err != nil {
			// Valid JSON is refused only for duplicate names or depth.
			if !strings.Contains(err.Error(), "duplicate member") && !strings.Contains(err.Error(), "nested deeper") {
				t.Fatalf("appendCanonicalJSON(%q): %v", src, err)
			}
			return
		}
		if want := refCanonical(t, src); !bytes.Equal(got, want) {
			t.Fatalf("appendCanonicalJSON(%q) = %s, encoding/json %s", src, got, want)
		}
		// Canonical text is a fixed point.
		if again, err := appendCanonicalJSON(nil, got); err != nil || !bytes.Equal(again, got) {
			t.Fatalf("canonical form %s is not stable: %s, %v", got, again, err)
		}
	})
}
