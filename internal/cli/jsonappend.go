package cli

import (
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// appendObjectJSON appends objectJSON(r) as encoding/json encodes it with HTML escaping off, no
// newline after it: the same bytes, without reflection (an audit writes one per object;
// TestAppendObjectJSON and FuzzAppendJSONString hold it to encoding/json).
func appendObjectJSON(b []byte, r *Result) []byte {
	b = append(b, `{"source":`...)
	b = appendJSONString(b, r.Source)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(r.Line), 10)
	b = append(b, `,"apiVersion":`...)
	b = appendJSONString(b, r.APIVersion)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, r.Object.Kind.Kind)
	b = append(b, `,"namespace":`...)
	b = appendJSONString(b, r.Object.Namespace)
	if r.Object.Mesh != "" {
		b = append(b, `,"mesh":`...)
		b = appendJSONString(b, r.Object.Mesh)
	}
	b = append(b, `,"name":`...)
	b = appendJSONString(b, r.Name())
	b = append(b, `,"kri":`...)
	b = appendJSONString(b, r.KRI)
	b = append(b, `,"allowed":`...)
	b = strconv.AppendBool(b, r.Allowed)
	b = append(b, `,"enforcement":`...)
	b = appendJSONString(b, r.Enforcement)
	b = append(b, `,"causes":`...)
	b = appendJSONFindings(b, jsonFindings(r, r.Errors(), r.MoreErrors))
	if w := r.Warnings(); len(w) > 0 || r.MoreWarnings.N > 0 {
		if ws := jsonFindings(r, w, r.MoreWarnings); len(ws) > 0 {
			b = append(b, `,"warnings":`...)
			b = appendJSONFindings(b, ws)
		}
	}
	return append(b, '}')
}

// appendJSONFindings appends fs, never nil, as encoding/json encodes a []jsonFinding.
func appendJSONFindings(b []byte, fs []jsonFinding) []byte {
	b = append(b, '[')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		if f.Rule != "" {
			b = append(b, `"rule":`...)
			b = appendJSONString(b, string(f.Rule))
			b = append(b, ',')
		}
		if f.Level != "" {
			b = append(b, `"level":`...)
			b = appendJSONString(b, string(f.Level))
			b = append(b, ',')
		}
		b = append(b, `"field":`...)
		b = appendJSONString(b, f.Field)
		b = append(b, `,"message":`...)
		b = appendJSONString(b, f.Message)
		if f.Line != 0 {
			b = append(b, `,"line":`...)
			b = strconv.AppendInt(b, int64(f.Line), 10)
		}
		if f.Column != 0 {
			b = append(b, `,"column":`...)
			b = strconv.AppendInt(b, int64(f.Column), 10)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// load8 returns the first eight bytes of s, in little-endian order (one load).
func load8(s string) uint64 {
	s = s[:8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// escapeMask returns the top bit of each byte of w, in little-endian order, that appendJSONString
// cannot copy as it is (a quote, a backslash, a byte below 0x20, or one of 0x80 and above, which
// may start an invalid or escaped rune), up to the first such byte (the later ones may be set or
// not): zero when all eight are plain. The tests are jsonscan's (plainMask): (x - n in each byte)
// &^ x at the top bit of each byte flags a byte below n exactly up to the first, a borrow moving
// only to later bytes.
func escapeMask(w uint64) uint64 {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	q, bs, ctl := w^(ones*'"')-ones, w^(ones*'\\')-ones, w-ones*0x20
	return ((q|bs|ctl)&^w | w) & tops
}

// appendJSONString appends s as a JSON string as encoding/json writes it with HTML escaping off:
// '"' and '\\' escaped, the control characters as \b, \f, \n, \r, \t or \u00xx, invalid UTF-8 as
// \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while they need no escape and are ASCII.
		for i+8 <= len(s) {
			if m := escapeMask(load8(s[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
