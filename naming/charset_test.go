package naming

import (
	"net/url"
	"testing"
)

func TestCharsets(t *testing.T) {
	tests := []struct {
		in          string
		path, query bool
	}{
		{"", true, true},
		{"kri_msvc_mesh-1__ns_backend_", true, true},
		{"a.b~c", true, true},
		{"a!$&'()*+,;=@", true, false},
		{"inbound:10.0.0.1:80", false, false},
		{"a b", false, false},
		{"a%20b", false, false},
		{"a/b", false, false},
		{"a?b", false, false},
		{"caf\u00e9", false, false},
	}
	for _, tt := range tests {
		if got := IsURLPathSafe(tt.in); got != tt.path {
			t.Errorf("IsURLPathSafe(%q) = %v", tt.in, got)
		}
		if got := IsURLQuerySafe(tt.in); got != tt.query {
			t.Errorf("IsURLQuerySafe(%q) = %v", tt.in, got)
		}
	}
}

// Whatever the predicates accept must survive net/url unescaped, in a path and in a query.
func TestCharsetsAgreeWithNetURL(t *testing.T) {
	for c := 0; c < 256; c++ {
		s := string([]byte{'a', byte(c), 'b'})
		if IsURLPathSafeByte(byte(c)) != IsURLPathSafe(s) || IsURLQuerySafeByte(byte(c)) != IsURLQuerySafe(s) {
			t.Fatalf("byte and string predicates disagree on %q", rune(c))
		}
		if IsURLPathSafe(s) {
			u, err := url.Parse("http://h/p/" + s)
			if err != nil || u.Path != "/p/"+s || u.EscapedPath() != "/p/"+s {
				t.Errorf("%q is path-safe but net/url reads the path as %v, %v", s, u, err)
			}
		}
		if IsURLQuerySafe(s) {
			if url.QueryEscape(s) != s {
				t.Errorf("%q is query-safe but net/url escapes it as %q", s, url.QueryEscape(s))
			}
			if q, err := url.ParseQuery("k=" + s); err != nil || q.Get("k") != s {
				t.Errorf("%q is query-safe but net/url reads it as %v, %v", s, q, err)
			}
		}
		if IsURLQuerySafeByte(byte(c)) && !IsURLPathSafeByte(byte(c)) {
			t.Errorf("%q is query-safe but not path-safe", rune(c))
		}
	}
}
