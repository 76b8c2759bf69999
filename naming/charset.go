package naming

// The seed's two character sets for identifiers (RFC 3986): what may stand in a URL path
// segment without escaping (pchar, minus ':' which Envoy's admin output uses as a separator, minus
// '%' so that no value needs decoding), and the smaller set that may stand in a URL query
// unescaped (unreserved). A valid KRI uses only the query set.
var (
	pathSafe  = charset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=@")
	querySafe = charset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
)

func charset(chars string) (t [256]bool) {
	for i := 0; i < len(chars); i++ {
		t[chars[i]] = true
	}
	return t
}

// IsURLPathSafeByte reports whether c belongs to the seed's URL path identifier set:
// ALPHA / DIGIT / "-" / "." / "_" / "~" / "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," /
// ";" / "=" / "@".
func IsURLPathSafeByte(c byte) bool { return pathSafe[c] }

// IsURLQuerySafeByte reports whether c belongs to the seed's URL query identifier set:
// ALPHA / DIGIT / "-" / "." / "_" / "~".
func IsURLQuerySafeByte(c byte) bool { return querySafe[c] }

// IsURLPathSafe reports whether every byte of s is in the URL path identifier set, so that s can
// be used as a path segment without escaping. The empty string is safe.
func IsURLPathSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if !pathSafe[s[i]] {
			return false
		}
	}
	return true
}

// IsURLQuerySafe reports whether every byte of s is in the URL query identifier set, so that s
// can be used in a query without escaping. The empty string is safe.
func IsURLQuerySafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if !querySafe[s[i]] {
			return false
		}
	}
	return true
}
