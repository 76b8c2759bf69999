// Package jsonscan reads JSON in one pass without decoding it, checking its syntax exactly as
// encoding/json does (strings are not checked for valid UTF-8, nesting is bounded at MaxDepth). It
// is the one JSON scanner of kriguard, below every other package (docs/architecture.md): the rules
// read an admitted object with it (rules.decodePartial), the webhook counts the values of a review
// (Count) and reads the review itself with it, the audit splits a page of a list into its items
// (internal/jsonpage). Its callers read what they need of the values it passes and leave the rest
// to a decoder, when they are unsure of anything (docs/performance.md).
package jsonscan

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting encoding/json accepts (its scanner's maxNestingDepth), which
// the API server's decoder and sigs.k8s.io/json share. Deeper input is not valid to the Scanner.
const MaxDepth = 10000

// Scanner reads the JSON of data from a position, checking its syntax. Its methods report false at
// the first syntax error, where the position is then left; a Scanner is not reused after one.
// The zero Scanner reads an empty input; Reset sets the input.
type Scanner struct {
	data []byte
	i    int
	// depth is the nesting of the value being read (a top-level container is 1). Bit k of stack
	// says whether the container at depth-k is an object; deep holds the bits of the containers
	// further out, which only hostile input has: a Scanner is small enough for the stack.
	depth int
	stack uint64
	deep  []byte
	// closing is the byte that ends the container at depth: '}' or ']' (at depth 0, neither).
	closing byte
	// escaped says whether the last key or String read held an escape.
	escaped bool
	// values counts the values passed, containers and the values in them each once.
	values int64
	// Known, when set, gives the string of in, the bytes of a string literal that need no decoding
	// (no escape, valid UTF-8), without a copy when it is one a reader meets in most inputs, kept
	// once; false has String and Unquote copy in. Reset keeps it.
	Known func(in []byte) (string, bool)
}

// Reset makes s read data from its start.
func (s *Scanner) Reset(data []byte) {
	s.data, s.i, s.depth, s.stack, s.deep, s.closing, s.escaped, s.values = data, 0, 0, 0, s.deep[:0], 0, false, 0
}

// Pos is the offset in the input that s reads next.
func (s *Scanner) Pos() int { return s.i }

// Escaped reports whether the last key s handed to an Object's member, or the last String, held
// an escape.
func (s *Scanner) Escaped() bool { return s.escaped }

// Valid reports whether data is one JSON value with white space around it, exactly as
// encoding/json.Valid does, in a fraction of its instructions: one pass of loops over the bytes
// instead of a state machine called for each (FuzzValid holds the two to each other).
func Valid(data []byte) bool {
	var s Scanner
	s.Reset(data)
	_, ok := s.Value()
	return ok && s.End()
}

// Count returns the number of values in data, containers and the values in them each once, and
// whether data is one valid JSON value. Of data that is not valid, it counts the values before the
// first error: a decoder that checks its input before it decodes (encoding/json, sigs.k8s.io/json)
// makes none of them.
func Count(data []byte) (int64, bool) {
	var s Scanner
	s.Reset(data)
	_, ok := s.Value()
	ok = ok && s.End()
	return s.values, ok
}

// End passes white space and reports whether the input ends there.
func (s *Scanner) End() bool {
	s.space()
	return s.i == len(s.data)
}

func (s *Scanner) space() {
	b, i := s.data, s.i
	for i < len(b) && isSpace[b[i]] {
		i++
	}
	s.i = i
}

// isSpace is the white space of JSON.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// Peek passes white space and returns the byte after it, which it does not pass; false at the end
// of the input.
func (s *Scanner) Peek() (byte, bool) {
	s.space()
	if s.i < len(s.data) {
		return s.data[s.i], true
	}
	return 0, false
}

// Next passes white space and reports whether the byte after it is c, which it then passes.
func (s *Scanner) Next(c byte) bool {
	s.space()
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// Literal passes white space and reports whether lit (true, false, null) follows, which it then
// passes as a value.
func (s *Scanner) Literal(lit string) bool {
	s.space()
	if !s.literal(lit) {
		return false
	}
	s.values++
	return true
}

func (s *Scanner) literal(lit string) bool {
	if len(s.data)-s.i < len(lit) || string(s.data[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// strPlain is the bytes a string holds as they are: all but the quote, the backslash and the
// control characters.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str passes the string literal whose opening quote is at data[s.i] and reports whether it is
// one. It sets s.escaped at an escape; its callers that read the string clear it first.
func (s *Scanner) str() bool {
	b, i := s.data, s.i+1
	for {
		// Eight bytes at a time up to the first that is a quote, a backslash or a control
		// character; the last few of the input a byte at a time.
		for {
			if len(b)-i < 8 {
				for i < len(b) && strPlain[b[i]] {
					i++
				}
				break
			}
			if n := plainRun8(binary.LittleEndian.Uint64(b[i:])); n < 8 {
				i += n
				break
			}
			i += 8
		}
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '"':
			s.i = i + 1
			return true
		case '\\':
			s.escaped = true
			if i+1 >= len(b) {
				return false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return false
				}
				i += 6
			default:
				return false
			}
		default: // a control character
			return false
		}
	}
}

// plainRun8 returns how many of the eight bytes of w, in little-endian order, are strPlain before
// the first that is not (8 when all are): a quote, a backslash or a byte below 0x20. Each test is
// the exact one for "some byte of x is below n" (n <= 0x80), (x - n in each byte) &^ x at the top
// bit of each byte, whose lowest flag is the first such byte: a borrow moves only to later bytes. A
// quote or a backslash is a zero byte of w XOR it.
func plainRun8(w uint64) int {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	q, bs := w^(ones*'"'), w^(ones*'\\')
	return bits.TrailingZeros64(((q-ones)&^q|(bs-ones)&^bs|(w-ones*0x20)&^w)&tops) >> 3
}

// StringAhead passes white space and returns the literal of the string after it, quotes included,
// which it does not pass: the next call of any method reads the string again. Escaped is left as
// it was.
func (s *Scanner) StringAhead() ([]byte, bool) {
	s.space()
	start, escaped := s.i, s.escaped
	if !s.isQuote() || !s.str() {
		s.i, s.escaped = start, escaped
		return nil, false
	}
	lit := s.data[start:s.i]
	s.i, s.escaped = start, escaped
	return lit, true
}

// isQuote reports whether data[s.i] is a quote.
func (s *Scanner) isQuote() bool { return s.i < len(s.data) && s.data[s.i] == '"' }

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// String passes white space and the string after it, and returns it decoded as encoding/json
// decodes a string.
func (s *Scanner) String() (string, bool) {
	s.space()
	start := s.i
	if s.escaped = false; !s.isQuote() || !s.str() {
		return "", false
	}
	s.values++
	return s.Unquote(s.data[start:s.i])
}

// Unquote decodes lit, the literal of the last string s passed, as encoding/json does.
func (s *Scanner) Unquote(lit []byte) (string, bool) {
	if in := lit[1 : len(lit)-1]; !s.escaped && utf8.Valid(in) {
		if s.Known != nil {
			if k, ok := s.Known(in); ok {
				return k, true
			}
		}
		return string(in), true
	}
	// Escapes and invalid UTF-8 (which the decoder replaces): rare, left to the decoder.
	var v string
	if json.Unmarshal(lit, &v) != nil {
		return "", false
	}
	return v, true
}

// key passes white space, an object key, white space and the colon, and returns the key's literal,
// quotes included; s.escaped says whether it holds an escape.
func (s *Scanner) key() ([]byte, bool) {
	s.space()
	start := s.i
	if s.escaped = false; !s.isQuote() || !s.str() {
		return nil, false
	}
	end := s.i
	if !s.colon() {
		return nil, false
	}
	return s.data[start:end], true
}

// colon passes white space and a colon.
func (s *Scanner) colon() bool {
	if s.i < len(s.data) && s.data[s.i] == ':' { // as the API server writes JSON
		s.i++
		return true
	}
	return s.Next(':')
}

// digits passes a run of decimal digits and reports whether there was one.
func (s *Scanner) digits() bool {
	b, i := s.data, s.i
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	start := s.i
	s.i = i
	return i > start
}

// scalar passes the string, number, true, false or null at data[s.i].
func (s *Scanner) scalar() bool {
	if s.i >= len(s.data) {
		return false
	}
	switch c := s.data[s.i]; {
	case c == '"':
		return s.str()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
		if c == '-' {
			s.i++
		}
		if s.i < len(s.data) && s.data[s.i] == '0' {
			s.i++
		} else if !s.digits() {
			return false
		}
		if s.i < len(s.data) && s.data[s.i] == '.' {
			s.i++
			if !s.digits() {
				return false
			}
		}
		if s.i < len(s.data) && (s.data[s.i] == 'e' || s.data[s.i] == 'E') {
			s.i++
			if s.i < len(s.data) && (s.data[s.i] == '+' || s.data[s.i] == '-') {
				s.i++
			}
			return s.digits()
		}
		return true
	}
	return false
}

// open enters the container whose bracket or brace c is at data[s.i], and reports false past
// MaxDepth.
func (s *Scanner) open(c byte) bool {
	if s.depth >= 64 && !s.push() {
		return false
	}
	s.depth++
	s.values++
	s.i++
	s.closing = c + 2                     // '{' + 2 is '}', '[' + 2 is ']'
	s.stack = s.stack<<1 | uint64(c>>5&1) // '{' has bit 5, '[' not
	return true
}

// push keeps the outermost bit of the stack, which open shifts out, in deep.
func (s *Scanner) push() bool {
	if s.depth >= MaxDepth {
		return false
	}
	s.deep = append(s.deep, byte(s.stack>>63))
	return true
}

// close leaves the container whose end s has just passed.
func (s *Scanner) close() {
	s.depth--
	s.stack >>= 1
	if s.depth >= 64 {
		s.stack |= uint64(s.deep[len(s.deep)-1]) << 63
		s.deep = s.deep[:len(s.deep)-1]
	}
	s.closing = ']' + byte(s.stack&1)*('}'-']')
}

// Value passes white space and the value after it, of any depth up to MaxDepth, and returns the
// bytes it spans. It reads nested values in a loop, not by recursion: a deep value costs no stack.
func (s *Scanner) Value() ([]byte, bool) { return s.value(nil, nil) }

// ValueStrings is Value calling str with the literal of each string of the value that may be one
// of want (every string when want is nil), quotes included, in order: each key (key set) once the
// colon after it is passed, so that Peek shows the first byte of its value, and each string value.
// Escaped tells whether the literal holds an escape; a literal with one may spell any string, and
// is passed to str whatever want holds. It reports false when str does. A reader that needs a few
// strings of a value it passes finds them in the same pass (rules.decodePartial reads spec so).
func (s *Scanner) ValueStrings(want *Strings, str func(lit []byte, key bool) bool) ([]byte, bool) {
	return s.value(want, str)
}

// Strings is a set of strings for ValueStrings, by their first byte and length: bit n of
// Strings[c] is set for the strings of n bytes that start with c. It holds more strings than
// were added (those of the same first byte and length), never fewer: the reader compares the
// strings it is passed. Filtering so costs a look-up, where a call for every string costs the call.
type Strings [256]uint64

// Add adds s, which must not be empty and must be shorter than 64 bytes.
func (t *Strings) Add(s string) {
	if len(s) == 0 || len(s) >= 64 {
		panic(fmt.Sprintf("jsonscan: %q cannot be in a Strings", s))
	}
	t[s[0]] |= 1 << len(s)
}

// may reports whether lit, a string literal without escapes, may be in t.
func (t *Strings) may(lit []byte) bool {
	n := len(lit) - 2
	// Of the empty string, lit[1] is the closing quote, and Add never sets bit 0.
	return t == nil || n < 64 && t[lit[1]]&(1<<n) != 0
}

func (s *Scanner) value(want *Strings, each func(lit []byte, key bool) bool) ([]byte, bool) {
	s.space()
	start, base := s.i, s.depth
	key := false // a key comes first, before the value
	for {
		if key {
			s.space()
			k := s.i
			if each != nil {
				s.escaped = false
			}
			if !s.isQuote() || !s.str() {
				return nil, false
			}
			end := s.i
			if s.i < len(s.data) && s.data[s.i] == ':' { // as the API server writes JSON
				s.i++
			} else if !s.Next(':') {
				return nil, false
			}
			s.space()
			if each != nil && (s.escaped || want.may(s.data[k:end])) && !each(s.data[k:end], true) {
				return nil, false
			}
		}
		// A value starts at data[s.i].
		if s.i >= len(s.data) {
			return nil, false
		}
		switch c := s.data[s.i]; c {
		case '"': // the most frequent value, passed here rather than in scalar
			v := s.i
			if each != nil {
				s.escaped = false
			}
			if !s.str() {
				return nil, false
			}
			s.values++
			if each != nil && (s.escaped || want.may(s.data[v:s.i])) && !each(s.data[v:s.i], false) {
				return nil, false
			}
		case '{', '[':
			if !s.open(c) {
				return nil, false
			}
			s.space()
			if s.i < len(s.data) && s.data[s.i] != s.closing {
				key = c == '{'
				continue
			}
		default:
			if !s.scalar() {
				return nil, false
			}
			s.values++
		}
		// After a value: the next one of its container, or the container's end, and so on up.
		for {
			if s.depth == base {
				return s.data[start:s.i], true
			}
			s.space()
			if s.i >= len(s.data) {
				return nil, false
			}
			switch c := s.data[s.i]; {
			case c == ',':
				s.i++
				if key = s.closing == '}'; !key {
					s.space()
				}
			case c == s.closing:
				s.i++
				s.close()
				continue
			default:
				return nil, false
			}
			break
		}
	}
}

// Object passes white space and the object after it, calling member for each key's literal
// (quotes included, Escaped telling whether it holds an escape) with s at the member's value,
// which member must pass. It reports false when member does, and at a key with an escape, which
// may spell a key the caller reads, unless escapedKeys.
func (s *Scanner) Object(escapedKeys bool, member func(key []byte) bool) bool {
	s.space()
	if s.i >= len(s.data) || s.data[s.i] != '{' || !s.open('{') {
		return false
	}
	if s.Next('}') {
		s.close()
		return true
	}
	for {
		k, ok := s.key()
		if !ok || s.escaped && !escapedKeys || !member(k) {
			return false
		}
		if closed, ok := s.separator('}'); !ok || closed {
			return ok
		}
	}
}

// Array passes white space and the array after it, calling each with s at each of its elements,
// which each must pass. It reports false when each does.
func (s *Scanner) Array(each func() bool) bool {
	s.space()
	if s.i >= len(s.data) || s.data[s.i] != '[' || !s.open('[') {
		return false
	}
	if s.Next(']') {
		s.close()
		return true
	}
	for {
		if !each() {
			return false
		}
		if closed, ok := s.separator(']'); !ok || closed {
			return ok
		}
	}
}

// separator passes white space and what follows a member or an element: a comma, or end, which
// closes the object or array. It reports whether it was end, and whether it was either.
func (s *Scanner) separator(end byte) (closed, ok bool) {
	s.space()
	if s.i >= len(s.data) {
		return false, false
	}
	switch s.data[s.i] {
	case ',':
		s.i++
		return false, true
	case end:
		s.i++
		s.close()
		return true, true
	}
	return false, false
}
