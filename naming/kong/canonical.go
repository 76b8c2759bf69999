package kong

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds the canonical JSON primitives H is defined over (see the
// package documentation). Every function appends to dst and returns it, so
// that callers can encode into a stack buffer without allocating.

const (
	fnvOffset32 = 2166136261
	fnvPrime32  = 16777619
	hexDigits   = "0123456789abcdef"
	// hashLen is the length of a hash as generators render it.
	hashLen = 8
)

// sum is FNV-1a 32-bit of b.
func sum(b []byte) uint32 {
	h := uint32(fnvOffset32)
	for _, c := range b {
		h ^= uint32(c)
		h *= fnvPrime32
	}
	return h
}

// appendHash appends h as exactly 8 lower-case hex digits.
func appendHash(dst []byte, h uint32) []byte {
	var b [hashLen]byte
	for i := hashLen - 1; i >= 0; i-- {
		b[i] = hexDigits[h&0xf]
		h >>= 4
	}
	return append(dst, b[:]...)
}

// appendString appends s as a canonical JSON string: the escapes of Go's
// encoding/json without HTML escaping (\" \\ \b \f \n \r \t, \u00xx for
// other control characters, \u2028 and \u2029), every other character as
// itself, and each byte of invalid UTF-8 replaced by U+FFFD.
func appendString[T ~string | ~[]byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Skip eight plain bytes at a time: names and paths are mostly
		// plain ASCII, and this loop is most of the cost of encoding.
		if i+8 <= len(s) && plainBlock(load8(s, i)) {
			i += 8
			continue
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		// Converting at most UTFMax bytes keeps the string on the stack.
		r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = utf8.AppendRune(dst, utf8.RuneError)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// load8 reads 8 bytes of s from i, little-endian.
func load8[T ~string | ~[]byte](s T, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// plainBlock reports whether none of the 8 bytes in x is a control
// character, '"', '\\' or non-ASCII: the bytes appendString copies as they
// are. (The classic SWAR tests: a byte below n sets its top bit in
// (x - n·lsb) &^ x, a zero byte does so in (x - lsb) &^ x.)
func plainBlock(x uint64) bool {
	ctl := (x - 0x20*lsb) &^ x
	q := x ^ '"'*lsb
	q = (q - lsb) &^ q
	bs := x ^ '\\'*lsb
	bs = (bs - lsb) &^ bs
	return (ctl|q|bs|x)&msb == 0
}

// appendKey appends a member name and its colon, preceded by a comma
// unless the member is the first of its object (dst ends in '{').
func appendKey(dst []byte, key string) []byte {
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

func appendStringMember[T ~string](dst []byte, key string, value T) []byte {
	return appendString(appendKey(dst, key), value)
}

func appendIntMember(dst []byte, key string, v int64) []byte {
	return strconv.AppendInt(appendKey(dst, key), v, 10)
}

// span is one element of a list, dst[from:to].
type span struct{ from, to int }

// appendSet turns the elements at dst[start:] (each listed in elems, in
// order of appearance, with nothing in between) into a JSON array of the
// distinct elements sorted bytewise, written at dst[start:].
func appendSet(dst []byte, start int, elems []span) []byte {
	// Insertion sort: lists are short (the API caps them at 16 or 64) and
	// it needs no closure or interface that could escape.
	for i := 1; i < len(elems); i++ {
		for j := i; j > 0 && bytes.Compare(dst[elems[j].from:elems[j].to], dst[elems[j-1].from:elems[j-1].to]) < 0; j-- {
			elems[j], elems[j-1] = elems[j-1], elems[j]
		}
	}
	end := len(dst)
	dst = append(dst, '[')
	for i, e := range elems {
		if i > 0 && bytes.Equal(dst[e.from:e.to], dst[elems[i-1].from:elems[i-1].to]) {
			continue
		}
		if dst[len(dst)-1] != '[' {
			dst = append(dst, ',')
		}
		dst = append(dst, dst[e.from:e.to]...)
	}
	dst = append(dst, ']')
	n := copy(dst[start:], dst[end:])
	return dst[:start+n]
}

// maxDepth bounds the nesting of a plugin configuration, so that hostile
// input cannot exhaust the stack.
const maxDepth = 512

// appendCanonicalJSON appends the canonical form of the JSON text in src:
// no insignificant white space, object members sorted bytewise by their
// unescaped names, strings re-escaped as appendString does, numbers as
// written. Duplicate member names are an error, as is anything but exactly
// one JSON value.
func appendCanonicalJSON(dst, src []byte) ([]byte, error) {
	p := jsonParser{src: src}
	dst, err := p.value(dst, 0)
	if err != nil {
		return dst, err
	}
	p.space()
	if p.pos != len(p.src) {
		return dst, p.errorf("unexpected %q after the value", p.src[p.pos])
	}
	return dst, nil
}

type jsonParser struct {
	src []byte
	pos int
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *jsonParser) space() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value(dst []byte, depth int) ([]byte, error) {
	if depth > maxDepth {
		return dst, p.errorf("nested deeper than %d levels", maxDepth)
	}
	p.space()
	if p.pos >= len(p.src) {
		return dst, p.errorf("unexpected end of input")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(dst, depth)
	case c == '[':
		return p.array(dst, depth)
	case c == '"':
		start := len(dst)
		dst, err := p.unquote(dst)
		if err != nil {
			return dst, err
		}
		// Re-escape the decoded text in place, through the free room after it.
		raw := len(dst)
		dst = appendString(dst, dst[start:raw])
		n := copy(dst[start:], dst[raw:])
		return dst[:start+n], nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number(dst)
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if bytes.HasPrefix(p.src[p.pos:], []byte(lit)) {
				p.pos += len(lit)
				return append(dst, lit...), nil
			}
		}
		return dst, p.errorf("unexpected %q", c)
	}
}

func (p *jsonParser) object(dst []byte, depth int) ([]byte, error) {
	p.pos++ // '{'
	// Each member is written as its unescaped name (for sorting) followed
	// by its canonical text; members then get sorted and copied out.
	type member struct{ name, text span }
	var buf [16]member
	members := buf[:0]
	start := len(dst)
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return append(dst, '{', '}'), nil
	}
	for {
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return dst, p.errorf("expected a member name")
		}
		var m member
		m.name.from = len(dst)
		var err error
		if dst, err = p.unquote(dst); err != nil {
			return dst, err
		}
		m.name.to = len(dst)
		m.text.from = len(dst)
		dst = appendString(dst, dst[m.name.from:m.name.to])
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return dst, p.errorf("expected ':'")
		}
		p.pos++
		dst = append(dst, ':')
		if dst, err = p.value(dst, depth+1); err != nil {
			return dst, err
		}
		m.text.to = len(dst)
		members = append(members, m)
		p.space()
		if p.pos >= len(p.src) {
			return dst, p.errorf("unexpected end of input")
		}
		if p.src[p.pos] == '}' {
			p.pos++
			break
		}
		if p.src[p.pos] != ',' {
			return dst, p.errorf("expected ',' or '}'")
		}
		p.pos++
	}
	for i := 1; i < len(members); i++ {
		for j := i; j > 0; j-- {
			c := bytes.Compare(dst[members[j].name.from:members[j].name.to], dst[members[j-1].name.from:members[j-1].name.to])
			if c == 0 {
				return dst, fmt.Errorf("invalid JSON: duplicate member %q", dst[members[j].name.from:members[j].name.to])
			}
			if c > 0 {
				break
			}
			members[j], members[j-1] = members[j-1], members[j]
		}
	}
	end := len(dst)
	dst = append(dst, '{')
	for i, m := range members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, dst[m.text.from:m.text.to]...)
	}
	dst = append(dst, '}')
	n := copy(dst[start:], dst[end:])
	return dst[:start+n], nil
}

func (p *jsonParser) array(dst []byte, depth int) ([]byte, error) {
	p.pos++ // '['
	dst = append(dst, '[')
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return append(dst, ']'), nil
	}
	for {
		var err error
		if dst, err = p.value(dst, depth+1); err != nil {
			return dst, err
		}
		p.space()
		if p.pos >= len(p.src) {
			return dst, p.errorf("unexpected end of input")
		}
		c := p.src[p.pos]
		p.pos++
		if c == ']' {
			return append(dst, ']'), nil
		}
		if c != ',' {
			p.pos--
			return dst, p.errorf("expected ',' or ']'")
		}
		dst = append(dst, ',')
	}
}

// number copies a JSON number after checking its grammar.
func (p *jsonParser) number(dst []byte) ([]byte, error) {
	start := p.pos
	s := p.src
	i := p.pos
	if s[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		p.pos = i
		return dst, p.errorf("malformed number")
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			p.pos = i
			return dst, p.errorf("malformed number")
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			p.pos = i
			return dst, p.errorf("malformed number")
		}
	}
	p.pos = i
	return append(dst, s[start:i]...), nil
}

// unquote appends the decoded text of the JSON string at p.pos, as
// encoding/json decodes it: invalid UTF-8 and unpaired surrogates become
// U+FFFD.
func (p *jsonParser) unquote(dst []byte) ([]byte, error) {
	p.pos++ // '"'
	s := p.src
	for p.pos < len(s) {
		c := s[p.pos]
		switch {
		case c == '"':
			p.pos++
			return dst, nil
		case c < 0x20:
			return dst, p.errorf("control character %q in string", c)
		case c == '\\':
			if p.pos+1 >= len(s) {
				return dst, p.errorf("unexpected end of input")
			}
			e := s[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return dst, p.errorf("malformed \\u escape")
				}
				if utf16.IsSurrogate(r) {
					// A low surrogate must follow as another \u escape.
					r2 := utf8.RuneError
					if p.pos+1 < len(s) && s[p.pos] == '\\' && s[p.pos+1] == 'u' {
						save := p.pos
						p.pos += 2
						lo, ok := p.hex4()
						if !ok {
							return dst, p.errorf("malformed \\u escape")
						}
						if d := utf16.DecodeRune(r, lo); d != utf8.RuneError {
							r2 = d
						} else {
							p.pos = save
						}
					}
					r = r2
				}
				dst = utf8.AppendRune(dst, r)
			default:
				return dst, p.errorf("invalid escape %q", e)
			}
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(s[p.pos:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[p.pos:p.pos+size]...)
			}
			p.pos += size
		}
	}
	return dst, p.errorf("unterminated string")
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.pos+4 > len(p.src) {
		return 0, false
	}
	var r rune
	for _, c := range p.src[p.pos : p.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	p.pos += 4
	return r, true
}
