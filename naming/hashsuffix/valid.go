package hashsuffix

import "strings"

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

// The classes of a byte in the names these checks accept (charClass): exactly one for a lower case
// letter or digit, '-', '.', an upper case letter or '_'; 0 for any other byte.
const (
	lowerDigit uint8 = 1 << iota
	dash
	dot
	upperCase
	underscore

	// alnumAny are the letters of either case and the digits: what starts and ends a label name.
	alnumAny = lowerDigit | upperCase
	// labelChars are the bytes of a label name.
	labelChars = alnumAny | dash | dot | underscore
)

// charClass is the class of each byte. The rules ask these checks of every object's name and label
// keys: a look-up is one predictable branch a byte, where comparisons with the ranges' bounds were
// several, which a name's mix of letters, digits and '-' mispredicts (docs/performance.md,
// "Change 22").
var charClass = func() (t [256]uint8) {
	for c := range t {
		switch {
		case alnum(byte(c), false):
			t[c] = lowerDigit
		case alnum(byte(c), true):
			t[c] = upperCase
		case c == '-':
			t[c] = dash
		case c == '.':
			t[c] = dot
		case c == '_':
			t[c] = underscore
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
	if n == 0 || n > 253 || charClass[s[0]] != lowerDigit || charClass[s[n-1]] != lowerDigit {
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
		c := charClass[s[i]]
		if c&(lowerDigit|dash) != 0 {
			continue
		}
		if c != dot || charClass[s[i-1]] != lowerDigit || charClass[s[i+1]] != lowerDigit {
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
	if n == 0 || charClass[name[0]] != lowerDigit {
		return false
	}
	// The last byte may be '-' (the suffix's "-" follows it), not '.'; the others are
	// IsDNS1123Subdomain's.
	last := charClass[name[n-1]]
	return (last == lowerDigit || last == dash) && dnsInner(name)
}

// labelName reports whether s is at most 63 characters of letters, digits, '-', '_' and '.',
// starting and ending with a letter or digit (the name part of validation.IsQualifiedName, and a
// non-empty validation.IsValidLabelValue).
func labelName(s string) bool {
	n := len(s)
	if n == 0 || n > 63 || charClass[s[0]]&alnumAny == 0 || charClass[s[n-1]]&alnumAny == 0 {
		return false
	}
	for i := 1; i < n-1; i++ {
		if charClass[s[i]]&labelChars == 0 {
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
	if name, ok := strings.CutPrefix(s, recommendedPrefix); ok {
		return labelName(name) // the prefix is a subdomain: not checked again on every key
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return IsDNS1123Subdomain(s[:i]) && labelName(s[i+1:])
	}
	return labelName(s)
}

// recommendedPrefix is the prefix of the keys of Kubernetes' recommended labels
// (app.kubernetes.io/name, app.kubernetes.io/part-of, …), common on objects; IsQualifiedName does
// not check it again for every key that has it (docs/performance.md, "Change 24").
const recommendedPrefix = "app.kubernetes.io/"

// IsLabelValue reports whether s is a label value: empty, or a name as IsQualifiedName's without
// the prefix. Its answer is apimachinery's (validation.IsValidLabelValue finds nothing wrong), held
// to it by FuzzValidChecks.
func IsLabelValue(s string) bool { return s == "" || labelName(s) }
