package naming

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Names in Envoy's stats (docs/envoy-names.md). Envoy puts a cluster's name (or its
// alt_stat_name), a virtual host's name and the stat_prefix of a listener, an HTTP connection
// manager or a TCP proxy into the names of its stats, where '.' separates the levels and its
// default tag extractors take a name up to the first '.'; ':' becomes '_'. Kuma keeps its own
// stats whole by replacing every character outside [a-zA-Z0-9_-] with '_', which is the set
// checked here.

// StatSafe reports whether every byte of s is in Envoy's stat-safe set: ASCII letters, digits,
// '_' and '-'.
func StatSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if !statSafeByte(s[i]) {
			return false
		}
	}
	return true
}

func statSafeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// SanitizeStatName returns s with every character outside the stat-safe set replaced by '_', as
// Kuma's metric sanitizer does (one '_' per character, so a multi-byte character is one '_', an
// invalid byte one '_' too). It is the alt_stat_name Kuma gives a cluster whose name is not
// stat-safe.
func SanitizeStatName(s string) string {
	if StatSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if statSafeByte(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		b.WriteByte('_')
		i += size
	}
	return b.String()
}

// IsSanitizedAltStatName reports whether alt is the alt_stat_name Kuma writes for a cluster named
// cluster: the cluster's name, sanitized, where sanitizing changed it. Such a name is derived,
// not chosen: it is held to no rule of the Envoy-name check (a KRI's sanitized form starts with
// "kri_" and is no KRI).
func IsSanitizedAltStatName(alt, cluster string) bool {
	return alt != cluster && alt == SanitizeStatName(cluster)
}

// CheckStatName reports the characters of name outside the stat-safe set, other than ':' (the
// colon rule reports those), or nil when there are none.
func CheckStatName(name string) *EnvoyNameProblem {
	return CheckStatPattern([]PatternPart{{Lit: name}})
}

// CheckStatPattern is CheckStatName over the literal parts of a name known only partly: a hole
// may be anything, so only what the literal parts hold is reported.
func CheckStatPattern(parts []PatternPart) *EnvoyNameProblem {
	var bad []rune
	for _, p := range parts {
		for _, r := range p.Lit {
			if r == ':' || r < utf8.RuneSelf && statSafeByte(byte(r)) {
				continue
			}
			if !containsRune(bad, r) {
				bad = append(bad, r)
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("holds ")
	for i, r := range bad {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.QuoteRune(r))
	}
	b.WriteString(", outside Envoy's stat-safe set [a-zA-Z0-9_-]: ")
	if containsRune(bad, '.') {
		b.WriteString("'.' splits the name in Envoy's stats, and the tag extractors keep only its first segment")
	} else {
		b.WriteString("stats sinks rewrite it")
	}
	return &EnvoyNameProblem{Rule: EnvoyStatUnsafe, Message: b.String()}
}

func containsRune(rs []rune, r rune) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}
