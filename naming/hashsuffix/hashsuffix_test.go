package hashsuffix

import (
	"encoding/binary"
	"encoding/hex"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"

	krand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
)

// reference is the algorithm spelt out with the library pieces Kuma uses:
// hash/fnv, encoding/hex and rand.SafeEncodeString.
func reference(mesh, name string, extra ...string) string {
	h := fnv.New64a()
	h.Write([]byte(mesh))
	h.Write([]byte(name))
	for _, s := range extra {
		h.Write([]byte(s))
	}
	sfx := krand.SafeEncodeString(hex.EncodeToString(h.Sum(nil)))
	if len(name) > 236 {
		name = name[:236]
	}
	return name + "-" + sfx
}

func TestNameVectors(t *testing.T) {
	tests := []struct {
		name  string
		mesh  string
		base  string
		extra []string
		want  string
	}{
		{"zone and namespace", "default", "backend", []string{"east", "kuma-demo"}, "backend-4dv9w4x47w8w98v4"},
		{"empty mesh", "", "foo", nil, "foo-zxw6c95d42zfz9cc"},
		{"mesh only", "default", "without-namespace", nil, "without-namespace-c5v4498z5w4x9bcx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Name(tt.mesh, tt.base, tt.extra...); got != tt.want {
				t.Errorf("Name(%q, %q, %q) = %q, want %q", tt.mesh, tt.base, tt.extra, got, tt.want)
			}
			if !Matches(tt.want, tt.mesh, tt.base, tt.extra...) {
				t.Errorf("Matches(%q, %q, %q, %q) = false, want true", tt.want, tt.mesh, tt.base, tt.extra)
			}
		})
	}
}

// TestEncodingMatchesSafeEncodeString checks the hand-rolled hash and
// alphabet against the library functions for random sums and inputs, so the
// alphabet is the real one and not a copy that drifted.
func TestEncodingMatchesSafeEncodeString(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var sum [8]byte
		v := r.Uint64()
		binary.BigEndian.PutUint64(sum[:], v)
		var got [SuffixLen]byte
		for i := SuffixLen - 1; i >= 0; i-- {
			got[i] = encoded[v&0xf]
			v >>= 4
		}
		if want := krand.SafeEncodeString(hex.EncodeToString(sum[:])); string(got[:]) != want {
			t.Fatalf("encoding of %x = %q, want %q", sum, got, want)
		}
	}
	for range 2000 {
		mesh, name := randString(r, 20), randString(r, 300)
		var extra []string
		for range r.IntN(3) {
			extra = append(extra, randString(r, 20))
		}
		if got, want := Name(mesh, name, extra...), reference(mesh, name, extra...); got != want {
			t.Fatalf("Name(%q, %q, %q) = %q, want %q", mesh, name, extra, got, want)
		}
	}
}

func randString(r *rand.Rand, max int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789-."
	b := make([]byte, r.IntN(max+1))
	for i := range b {
		b[i] = chars[r.IntN(len(chars))]
	}
	return string(b)
}

func TestNameLength(t *testing.T) {
	for _, n := range []int{0, 1, 63, 235, 236, 237, 252, 253, 254, 1000} {
		name := strings.Repeat("a", n)
		got := Name("default", name)
		wantBase := min(n, MaxBaseLen)
		if len(got) != wantBase+1+SuffixLen {
			t.Errorf("len(Name(%d bytes)) = %d, want %d", n, len(got), wantBase+1+SuffixLen)
		}
		if len(got) > MaxLen {
			t.Errorf("len(Name(%d bytes)) = %d, over %d", n, len(got), MaxLen)
		}
		if got[:wantBase] != name[:wantBase] {
			t.Errorf("Name(%d bytes) does not start with the first %d bytes of the name", n, wantBase)
		}
		if n > 0 && len(validation.IsDNS1123Subdomain(got)) != 0 {
			t.Errorf("Name(%d bytes) = %q is not a DNS-1123 subdomain: %v", n, got, validation.IsDNS1123Subdomain(got))
		}
		if !Matches(got, "default", name) {
			t.Errorf("Matches(Name(%d bytes)) = false", n)
		}
	}
}

// TestNameFullNameHashed checks that names cut to one base still differ: the
// hash covers the full name.
func TestNameFullNameHashed(t *testing.T) {
	long := strings.Repeat("x", MaxBaseLen)
	a, b := Name("m", long+"a"), Name("m", long+"b")
	if a == b {
		t.Fatalf("names differing after byte %d got one name %q", MaxBaseLen, a)
	}
	if a[:MaxBaseLen] != b[:MaxBaseLen] {
		t.Fatalf("bases differ: %q, %q", a, b)
	}
	if Matches(a, "m", long+"b") {
		t.Errorf("Matches(%q, name ending in b) = true", a)
	}
}

// TestNameCutAtDot pins a documented weakness: a cut that ends in '.'
// leaves ".-", which Kuma produces too and which is no DNS-1123 subdomain.
func TestNameCutAtDot(t *testing.T) {
	name := strings.Repeat("a", MaxBaseLen-1) + ".b"
	if len(validation.IsDNS1123Subdomain(name)) != 0 {
		t.Fatalf("test name %q is not valid", name)
	}
	got := Name("m", name)
	if want := reference("m", name); got != want {
		t.Fatalf("Name = %q, reference %q", got, want)
	}
	if !strings.Contains(got, ".-") || len(validation.IsDNS1123Subdomain(got)) == 0 {
		t.Errorf("Name(%q) = %q; want Kuma's invalid \".-\" cut", name, got)
	}
}

// TestNameNoSeparator pins the documented weakness: the hash input has no
// separator, so moving the boundary between values changes nothing.
func TestNameNoSeparator(t *testing.T) {
	if a, b := Name("default", "without-namespace"), Name("default", "without-namespace", "", ""); a != b {
		t.Errorf("empty extra values change the name: %q, %q", a, b)
	}
	_, a, _ := Split(Name("ab", "c"))
	_, b, _ := Split(Name("a", "bc"))
	if a != b {
		t.Errorf("suffixes of (ab, c) and (a, bc) = %q, %q; Kuma hashes them alike", a, b)
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		base, sfx string
		ok        bool
	}{
		{"vector", "backend-4dv9w4x47w8w98v4", "backend", "4dv9w4x47w8w98v4", true},
		{"empty base", "-4dv9w4x47w8w98v4", "", "4dv9w4x47w8w98v4", true},
		{"dashes in base", "a-b-c-zxw6c95d42zfz9cc", "a-b-c", "zxw6c95d42zfz9cc", true},
		{"too short", "a-4dv9w4x47w8w98v", "", "", false},
		{"no dash", "a4dv9w4x47w8w98v4", "", "", false},
		{"empty", "", "", "", false},
		{"upper case", "a-4DV9W4X47W8W98V4", "", "", false},
		// 'k' is in the alphabet but no hex digit maps to it.
		{"unreachable alphabet char", "a-kdv9w4x47w8w98v4", "", "", false},
		{"hex digit", "a-0dv9w4x47w8w98v4", "", "", false},
		{"17 chars after the dash", "a-44dv9w4x47w8w98v4", "", "", false},
		{"suffix-like base", "a-4dv9w4x47w8w98v4-4dv9w4x47w8w98v4", "a-4dv9w4x47w8w98v4", "4dv9w4x47w8w98v4", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, sfx, ok := Split(tt.in)
			if base != tt.base || sfx != tt.sfx || ok != tt.ok {
				t.Errorf("Split(%q) = %q, %q, %v; want %q, %q, %v", tt.in, base, sfx, ok, tt.base, tt.sfx, tt.ok)
			}
			if HasSuffix(tt.in) != tt.ok {
				t.Errorf("HasSuffix(%q) = %v, want %v", tt.in, !tt.ok, tt.ok)
			}
		})
	}
}

func TestMatches(t *testing.T) {
	name := Name("default", "backend", "east", "kuma-demo")
	tests := []struct {
		desc     string
		name     string
		mesh     string
		fullName string
		extra    []string
		want     bool
	}{
		{"same inputs", name, "default", "backend", []string{"east", "kuma-demo"}, true},
		{"other mesh", name, "other", "backend", []string{"east", "kuma-demo"}, false},
		{"other zone", name, "default", "backend", []string{"west", "kuma-demo"}, false},
		{"missing extra", name, "default", "backend", nil, false},
		{"other name, same suffix", "frontend" + name[len("backend"):], "default", "backend", []string{"east", "kuma-demo"}, false},
		{"not a hash name", "backend", "default", "backend", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := Matches(tt.name, tt.mesh, tt.fullName, tt.extra...); got != tt.want {
				t.Errorf("Matches(%q, %q, %q, %q) = %v, want %v", tt.name, tt.mesh, tt.fullName, tt.extra, got, tt.want)
			}
		})
	}
}

func TestRecognisersDoNotAllocate(t *testing.T) {
	name := Name("default", "backend", "east", "kuma-demo")
	if n := testing.AllocsPerRun(100, func() {
		Split(name)
		HasSuffix(name)
		Matches(name, "default", "backend", "east", "kuma-demo")
	}); n != 0 {
		t.Errorf("recognisers allocate %v times, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { Name("default", "backend", "east", "kuma-demo") }); n > 1 {
		t.Errorf("Name allocates %v times, want at most 1", n)
	}
}

func FuzzName(f *testing.F) {
	f.Add("default", "backend", "east", "kuma-demo")
	f.Add("", "foo", "", "")
	f.Add("m", strings.Repeat("a.", 130), "z", "")
	f.Add("m", strings.Repeat("é", 200), "", "ns")
	f.Fuzz(func(t *testing.T, mesh, name, zone, namespace string) {
		got := Name(mesh, name, zone, namespace)
		if len(got) > MaxLen {
			t.Fatalf("len(Name) = %d, over %d", len(got), MaxLen)
		}
		if again := Name(mesh, name, zone, namespace); again != got {
			t.Fatalf("Name is not deterministic: %q, %q", got, again)
		}
		if want := reference(mesh, name, zone, namespace); got != want {
			t.Fatalf("Name = %q, reference %q", got, want)
		}
		base, sfx, ok := Split(got)
		if !ok || len(sfx) != SuffixLen || got != base+"-"+sfx {
			t.Fatalf("Split(%q) = %q, %q, %v", got, base, sfx, ok)
		}
		if !Matches(got, mesh, name, zone, namespace) {
			t.Fatalf("Matches(%q) = false", got)
		}
		// A valid base stays valid unless the cut leaves a '.' before the '-'.
		if len(validation.IsDNS1123Subdomain(name)) == 0 && base[len(base)-1] != '.' {
			if errs := validation.IsDNS1123Subdomain(got); len(errs) != 0 {
				t.Fatalf("Name(%q) = %q is not a DNS-1123 subdomain: %v", name, got, errs)
			}
		}
	})
}

var sink string

func BenchmarkName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sink = Name("default", "backend", "east", "kuma-demo")
	}
}

func BenchmarkNameLong(b *testing.B) {
	name := strings.Repeat("a", 300)
	b.ReportAllocs()
	for b.Loop() {
		sink = Name("default", name, "east", "kuma-demo")
	}
}

func BenchmarkSplit(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, sink, _ = Split("backend-4dv9w4x47w8w98v4")
	}
}

func BenchmarkMatches(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if !Matches("backend-4dv9w4x47w8w98v4", "default", "backend", "east", "kuma-demo") {
			b.Fatal("no match")
		}
	}
}
