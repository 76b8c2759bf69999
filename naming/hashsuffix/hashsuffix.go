package hashsuffix

import "strings"

const (
	// SuffixLen is the number of characters of the encoded hash.
	SuffixLen = 16
	// MaxLen is the longest name Name returns: a Kubernetes object name.
	MaxLen = 253
	// MaxBaseLen is the number of bytes of the base name Name keeps: room for
	// "-" and the suffix within MaxLen.
	MaxBaseLen = MaxLen - 1 - SuffixLen
)

const (
	// alphabet is rand.SafeEncodeString's alphabet from
	// k8s.io/apimachinery/pkg/util/rand. The tests compare against the
	// real function so that a change upstream cannot go unnoticed.
	alphabet  = "bcdfghjklmnpqrstvwxz2456789"
	hexDigits = "0123456789abcdef"

	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// encoded maps a hex nibble to the character SafeEncodeString makes of the
// nibble's hex digit: the digit's byte value modulo len(alphabet).
var encoded = func() (t [16]byte) {
	for i := range t {
		t[i] = alphabet[int(hexDigits[i])%len(alphabet)]
	}
	return t
}()

// isSuffixChar reports which bytes can appear in a suffix: the image of the
// 16 hex digits, which is only 15 of the alphabet's 27 characters.
var isSuffixChar = func() (t [256]bool) {
	for _, c := range encoded {
		t[c] = true
	}
	return t
}()

// Name returns Kuma's KDS name for a resource called name in mesh, with
// extra values (zone, then namespace, each only when present) hashed
// after mesh and name. The result is name cut to MaxBaseLen bytes, "-" and
// a 16-character hash suffix; it is at most MaxLen bytes long.
func Name(mesh, name string, extra ...string) string {
	var sfx [SuffixLen]byte
	suffix(&sfx, mesh, name, extra)
	base := name
	if len(base) > MaxBaseLen {
		base = base[:MaxBaseLen]
	}
	var b strings.Builder
	b.Grow(len(base) + 1 + SuffixLen)
	b.WriteString(base)
	b.WriteByte('-')
	b.Write(sfx[:])
	return b.String()
}

// suffix writes the encoded hash of mesh, name and extra into dst.
func suffix(dst *[SuffixLen]byte, mesh, name string, extra []string) {
	h := uint64(fnvOffset64)
	h = fnv1a(h, mesh)
	h = fnv1a(h, name)
	for _, s := range extra {
		h = fnv1a(h, s)
	}
	// Big-endian: the most significant nibble comes first, as in the hex
	// encoding of hash.Hash64.Sum.
	for i := SuffixLen - 1; i >= 0; i-- {
		dst[i] = encoded[h&0xf]
		h >>= 4
	}
}

func fnv1a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}

// Split splits a name of Name's shape into the base name and the suffix. ok
// is false when name does not end in "-" and SuffixLen characters that an
// encoded hash can contain; the base may be empty.
func Split(name string) (base, suffix string, ok bool) {
	if len(name) < SuffixLen+1 {
		return "", "", false
	}
	cut := len(name) - SuffixLen
	if name[cut-1] != '-' {
		return "", "", false
	}
	for i := cut; i < len(name); i++ {
		if !isSuffixChar[name[i]] {
			return "", "", false
		}
	}
	return name[:cut-1], name[cut:], true
}

// HasSuffix reports whether name ends in "-" and a possible hash suffix.
// Any name can end that way by chance; Matches tells for sure.
func HasSuffix(name string) bool {
	_, _, ok := Split(name)
	return ok
}

// Matches reports whether name is exactly Name(mesh, fullName, extra...),
// without building that name.
func Matches(name, mesh, fullName string, extra ...string) bool {
	base, sfx, ok := Split(name)
	if !ok {
		return false
	}
	want := fullName
	if len(want) > MaxBaseLen {
		want = want[:MaxBaseLen]
	}
	if base != want {
		return false
	}
	var got [SuffixLen]byte
	suffix(&got, mesh, fullName, extra)
	return string(got[:]) == sfx
}
