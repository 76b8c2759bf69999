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

// IsDNS1123Subdomain reports whether s is a DNS-1123 subdomain: at most 253 characters of
// dot-separated labels of lower case letters, digits and '-', each starting and ending with a
// letter or digit. Its answer is apimachinery's (validation.IsDNS1123Subdomain finds nothing
// wrong), held to it by FuzzValidChecks; the rules ask it of every name KDS copies.
func IsDNS1123Subdomain(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			if c := s[i]; c != '-' && !alnum(c, false) {
				return false
			}
			continue
		}
		if i == start || !alnum(s[start], false) || !alnum(s[i-1], false) {
			return false
		}
		start = i + 1
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
	if len(name) == 0 || name[len(name)-1] == '.' {
		return false
	}
	start := 0
	for i := 0; i < len(name); i++ {
		if c := name[i]; c != '.' {
			if c != '-' && !alnum(c, false) {
				return false
			}
			continue
		}
		if i == start || !alnum(name[start], false) || !alnum(name[i-1], false) {
			return false
		}
		start = i + 1
	}
	return alnum(name[start], false)
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
