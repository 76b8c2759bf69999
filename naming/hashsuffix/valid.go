package hashsuffix

// The checks below answer, without a regular expression, whether apimachinery's validation
// functions would find nothing wrong: the rules ask them of every KDS copy an audit reads, and
// their regular expressions were a few percent of it (docs/performance.md). Their answers are
// apimachinery's (FuzzValidChecks); only a no asks apimachinery, which words the problem. The
// package does not import apimachinery's validation: krilint links naming, and that package
// brings in klog, net and os/user, whose cgo makes every vet process load the C library
// (docs/krilint.md, "Start-up").

// alnum reports whether c is an ASCII letter (upper case when upper is set) or digit.
func alnum(c byte, upper bool) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || upper && 'A' <= c && c <= 'Z'
}

// The classes of a byte in a DNS-1123 subdomain (dnsClass): a lower case letter or digit, '-', '.';
// 0 for any other byte.
const (
	dnsAlnum uint8 = 1 << iota
	dnsDash
	dnsDot
)

// dnsClass is the class of each byte in a DNS-1123 subdomain. The rules ask IsDNS1123Subdomain and
// ValidBase of every object's name: a look-up is one predictable branch a byte, where comparisons
// with the ranges' bounds were several, which a name's mix of letters, digits and '-' mispredicts
// (docs/performance.md, "Change 22").
var dnsClass = func() (t [256]uint8) {
	for c := range t {
		switch {
		case alnum(byte(c), false):
			t[c] = dnsAlnum
		case c == '-':
			t[c] = dnsDash
		case c == '.':
			t[c] = dnsDot
		}
	}
	return t
}()

// IsDNS1123Subdomain reports whether s is a DNS-1123 subdomain: at most 253 characters of
// dot-separated labels of lower case letters, digits and '-', each starting and ending with a
// letter or digit. Its answer is apimachinery's (validation.IsDNS1123Subdomain finds nothing
// wrong), held to it by FuzzValidChecks; the rules ask it of every name KDS copies.
func IsDNS1123Subdomain(s string) bool {
	n := len(s)
	if n == 0 || n > 253 || dnsClass[s[0]] != dnsAlnum || dnsClass[s[n-1]] != dnsAlnum {
		return false
	}
	// The labels start and end with a letter or digit when s does and every '.' has one on both
	// sides: an empty label is a '.' next to another.
	return dnsInner(s)
}

// dnsInner reports whether the bytes of s between its first and its last are those of a DNS-1123
// subdomain whose first and last bytes are letters or digits: letters, digits, '-', and '.'
// between two letters or digits.
func dnsInner(s string) bool {
	for i := 1; i < len(s)-1; i++ {
		c := dnsClass[s[i]]
		if c&(dnsAlnum|dnsDash) != 0 {
			continue
		}
		if c != dnsDot || dnsClass[s[i-1]] != dnsAlnum || dnsClass[s[i+1]] != dnsAlnum {
			return false
		}
	}
	return true
}

// ValidBase reports whether every name Name makes of name, whatever its mesh and extra values, is
// a DNS-1123 subdomain (IsDNS1123Subdomain), without building one: the "-" and the suffix are
// DNS-1123 characters that end the last label with a letter or digit, so only name's first
// MaxBaseLen bytes decide. Its labels are IsDNS1123Subdomain's but for the end of the last one;
// that one must still be there, starting with a letter or digit: a name that is empty or ends in
// '.' leaves a label that starts with the "-". FuzzValidBase holds it to IsDNS1123Subdomain of
// Name's names.
func ValidBase(name string) bool {
	if len(name) > MaxBaseLen {
		name = name[:MaxBaseLen]
	}
	n := len(name)
	if n == 0 || dnsClass[name[0]] != dnsAlnum {
		return false
	}
	// The last byte may be '-' (the suffix's "-" follows it), not '.'; the others are
	// IsDNS1123Subdomain's.
	last := dnsClass[name[n-1]]
	return (last == dnsAlnum || last == dnsDash) && dnsInner(name)
}

// labelName reports whether s is at most 63 characters of letters, digits, '-', '_' and '.',
// starting and ending with a letter or digit (the name part of validation.IsQualifiedName, and a
// non-empty validation.IsValidLabelValue).
func labelName(s string) bool {
	if len(s) == 0 || len(s) > 63 || !alnum(s[0], true) || !alnum(s[len(s)-1], true) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c != '-' && c != '_' && c != '.' && !alnum(c, true) {
			return false
		}
	}
	return true
}

// IsQualifiedName reports whether s is a label key: a name of at most 63 letters, digits, '-',
// '_' and '.', starting and ending with a letter or digit, with a DNS-1123 subdomain and '/' before
// it or not. Its answer is apimachinery's (validation.IsQualifiedName finds nothing wrong), held to
// it by FuzzValidChecks.
func IsQualifiedName(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return IsDNS1123Subdomain(s[:i]) && labelName(s[i+1:])
		}
	}
	return labelName(s)
}

// IsLabelValue reports whether s is a label value: empty, or a name as IsQualifiedName's without
// the prefix. Its answer is apimachinery's (validation.IsValidLabelValue finds nothing wrong), held
// to it by FuzzValidChecks.
func IsLabelValue(s string) bool { return s == "" || labelName(s) }
