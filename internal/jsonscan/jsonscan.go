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
	// ascii is the span in data of a key passed that is ASCII without an escape (the last such),
	// which Unquote then takes as it is without looking at its bytes again.
	ascii struct{ start, end int }
	// want and base are those of the ValueStrings in progress, for valueTo: the strings it stops
	// at and the depth of the value's start.
	want *Strings
	base int
	// Known, when set, gives the string of in, the bytes of a string literal that need no decoding
	// (no escape, valid UTF-8), without a copy when it is one a reader meets in most inputs, kept
	// once; false has String and Unquote copy in. Reset keeps it.
	Known func(in []byte) (string, bool)
}

// Reset makes s read data from its start.
func (s *Scanner) Reset(data []byte) {
	s.data, s.i, s.depth, s.stack, s.deep, s.closing, s.escaped, s.values = data, 0, 0, 0, s.deep[:0], 0, false, 0
	s.ascii.start, s.ascii.end = 0, 0
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
	end := literalEnd(s.data, s.i, lit)
	if end < 0 {
		return false
	}
	s.i = end
	s.values++
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

// stringEnd returns the offset after the string literal whose opening quote is at b[i], or -1 when
// there is none, whether the literal holds an escape, and whether its bytes are all ASCII. Its
// callers keep the position in a local variable: a call with the offset in a register, not in the
// Scanner (docs/performance.md, "Change 13").
func stringEnd(b []byte, i int) (end int, escaped, ascii bool) {
	const tops = 0x8080808080808080
	i++
	var high uint64 // the bytes passed, ORed: the top bit of a byte is set when one is not ASCII
	for {
		// Eight bytes at a time up to the first that is a quote, a backslash or a control
		// character; the last few of the input a byte at a time.
		for {
			if i > len(b)-8 {
				for i < len(b) && strPlain[b[i]] {
					high |= uint64(b[i])
					i++
				}
				break
			}
			w := binary.LittleEndian.Uint64(b[i:])
			if m := plainMask(w); m != 0 {
				high |= w & (m&-m - 1) // the bytes before the first flagged one
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			high |= w
			i += 8
		}
		if i >= len(b) {
			return -1, escaped, false
		}
		switch b[i] {
		case '"':
			return i + 1, escaped, high&tops == 0
		case '\\':
			escaped = true
			if i+1 >= len(b) {
				return -1, escaped, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1, escaped, false
				}
				i += 6
			default:
				return -1, escaped, false
			}
		default: // a control character
			return -1, escaped, false
		}
	}
}

// plainEnd returns the offset of the first byte at or after b[i] that is not strPlain, looked for
// eight bytes at a time: when the whole words of b from i hold none, the offset of the last few
// bytes, which it does not look at. Small enough to be inlined: the string loops' fast path.
func plainEnd(b []byte, i int) int {
	for ; i <= len(b)-8; i += 8 {
		if m := plainMask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return i
}

// asciiEnd is plainEnd stopping at a byte that is not ASCII as well: a string whose closing quote
// it finds is ASCII without an escape.
func asciiEnd(b []byte, i int) int {
	for ; i <= len(b)-8; i += 8 {
		if m := asciiMask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return i
}

// plainRun8 returns how many of the eight bytes of w, in little-endian order, are strPlain before
// the first that is not (8 when all are).
func plainRun8(w uint64) int { return bits.TrailingZeros64(plainMask(w)) >> 3 }

// plainMask returns the top bit of each byte of w, in little-endian order, that is not strPlain,
// up to the first such byte (the later ones may be set or not): zero when all eight are. Its
// bytes that are not strPlain are a quote, a backslash or a byte below 0x20. Each test is the exact
// one for "some byte of x is below n" (n <= 0x80), (x - n in each byte) &^ x at the top bit of each
// byte, whose lowest flag is the first such byte: a borrow moves only to later bytes. A quote or a
// backslash is a zero byte of w XOR it. The three share their &^: the top bit of each byte of w XOR
// a quote or a backslash is that of w, as both are below 0x80.
func plainMask(w uint64) uint64 {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	q, bs, ctl := w^(ones*'"')-ones, w^(ones*'\\')-ones, w-ones*0x20
	return (q | bs | ctl) &^ w & tops
}

// asciiMask is plainMask flagging the bytes that are not ASCII as well: plainMask without its &^ w,
// which clears their flags. A byte of 0x80 or more has the top bit set in at least one of the
// three differences (w-0x20 from 0xa0 up, w XOR a quote less one below it); the bytes before the
// first flagged one are ASCII and plain, so that no borrow reaches them.
func asciiMask(w uint64) uint64 {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	q, bs, ctl := w^(ones*'"')-ones, w^(ones*'\\')-ones, w-ones*0x20
	return (q | bs | ctl) & tops
}

// StringAhead passes white space and returns the literal of the string after it, quotes included,
// which it does not pass: the next call of any method reads the string again. Escaped is left as
// it was.
func (s *Scanner) StringAhead() ([]byte, bool) {
	b := s.data
	i := skipSpace(b, s.i)
	if s.i = i; i >= len(b) || b[i] != '"' {
		return nil, false
	}
	end := plainEnd(b, i+1)
	if end < len(b) && b[end] == '"' {
		return b[i : end+1], true
	}
	if end, _, _ = stringEnd(b, i); end < 0 {
		return nil, false
	}
	return b[i:end], true
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// String passes white space and the string after it, and returns it decoded as encoding/json
// decodes a string.
func (s *Scanner) String() (string, bool) {
	b := s.data
	i := skipSpace(b, s.i)
	if i >= len(b) || b[i] != '"' {
		s.i = i
		return "", false
	}
	end, escaped, ascii := asciiEnd(b, i+1), false, true
	if end < len(b) && b[end] == '"' {
		end++
	} else if end, escaped, ascii = stringEnd(b, i); end < 0 {
		s.i = i
		return "", false
	}
	s.i, s.escaped = end, escaped
	s.values++
	if ascii && !escaped { // Unquote's first case, without looking at the bytes again
		return s.known(b[i+1 : end-1]), true
	}
	return s.Unquote(b[i:end])
}

// StringOr is String returning or itself, not a copy, when the string after the white space is or
// spelled in ASCII without an escape: a string its reader holds already.
func (s *Scanner) StringOr(or string) (string, bool) {
	b := s.data
	if i := skipSpace(b, s.i); i < len(b) && b[i] == '"' {
		// String's first case.
		if end := asciiEnd(b, i+1); end < len(b) && b[end] == '"' {
			s.i, s.escaped = end+1, false
			s.values++
			if in := b[i+1 : end]; string(in) != or {
				return s.known(in), true
			}
			return or, true
		}
	}
	return s.String()
}

// known returns the string of in, a literal's bytes that need no decoding: Known's, or a copy.
func (s *Scanner) known(in []byte) string {
	if s.Known != nil {
		if k, ok := s.Known(in); ok {
			return k
		}
	}
	return string(in)
}

// Unquote decodes lit, the literal of the last string s passed, as encoding/json does.
func (s *Scanner) Unquote(lit []byte) (string, bool) {
	in := lit[1 : len(lit)-1]
	if a := s.ascii; len(lit) == a.end-a.start && &lit[0] == &s.data[a.start] || !s.escaped && utf8.Valid(in) {
		return s.known(in), true
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
	b := s.data
	i := skipSpace(b, s.i)
	if i >= len(b) || b[i] != '"' {
		s.i = i
		return nil, false
	}
	end, escaped, ascii := asciiEnd(b, i+1), false, true
	if end < len(b) && b[end] == '"' {
		end++
	} else if end, escaped, ascii = stringEnd(b, i); end < 0 {
		s.i = i
		return nil, false
	}
	if s.escaped = escaped; ascii && !escaped {
		s.ascii.start, s.ascii.end = i, end
	}
	j := end
	if j >= len(b) || b[j] != ':' { // not as the API server writes JSON
		if j = skipSpace(b, j); j >= len(b) || b[j] != ':' {
			s.i = j
			return nil, false
		}
	}
	s.i = j + 1
	return b[i:end], true
}

// digitsEnd returns the offset after the run of decimal digits at b[i], i itself when there is none.
func digitsEnd(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// scalarEnd returns the offset after the number, true, false or null at b[i], or -1 when there is
// none.
func scalarEnd(b []byte, i int) int {
	switch c := b[i]; {
	case c == 't':
		return literalEnd(b, i, "true")
	case c == 'f':
		return literalEnd(b, i, "false")
	case c == 'n':
		return literalEnd(b, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
		if c == '-' {
			i++
		}
		if i < len(b) && b[i] == '0' {
			i++
		} else if j := digitsEnd(b, i); j > i {
			i = j
		} else {
			return -1
		}
		if i < len(b) && b[i] == '.' {
			j := digitsEnd(b, i+1)
			if j == i+1 {
				return -1
			}
			i = j
		}
		if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
			i++
			if i < len(b) && (b[i] == '+' || b[i] == '-') {
				i++
			}
			if j := digitsEnd(b, i); j > i {
				return j
			}
			return -1
		}
		return i
	}
	return -1
}

// literalEnd returns the offset after lit at b[i], or -1 when lit is not there.
func literalEnd(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// skipSpace returns the offset of the first byte at or after b[i] that is not white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace[b[i]] {
		i++
	}
	return i
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

// Strings is a set of strings for ValueStrings, by their length and their first and last bytes:
// bit n%64 of first[c] is set for the strings of n bytes that start with c, and of
// ends[endsHash(c, l)] for those that start with c and end with l. It holds more strings than
// were added (those of the same length modulo 64 and of ends that hash alike), never fewer: the
// reader compares the strings it is passed. Filtering so costs a look-up or two, where a call for
// every string costs the call.
type Strings struct {
	first, ends [256]uint64
}

// endsHash is the index in Strings.ends of a string that starts with c and ends with l.
func endsHash(c, l byte) byte { return c ^ l<<1 }

// Add adds s, which must not be empty and must be shorter than 64 bytes.
func (t *Strings) Add(s string) {
	if len(s) == 0 || len(s) >= 64 {
		panic(fmt.Sprintf("jsonscan: %q cannot be in a Strings", s))
	}
	t.first[s[0]] |= 1 << len(s)
	t.ends[endsHash(s[0], s[len(s)-1])] |= 1 << len(s)
}

// may reports whether the string literal b[lit:end], quotes included and without escapes, may be
// in t.
func (t *Strings) may(b []byte, lit, end int) bool {
	// Of the empty string, the first byte is the closing quote and the last the opening one, and
	// Add never sets bit 0.
	n, c := uint(end-lit-2)%64, b[lit+1]
	return t.first[c]>>n&1 != 0 && t.ends[endsHash(c, b[end-2])]>>n&1 != 0
}

// everyString is the Strings of ValueStrings' nil: every string, the empty one included.
var everyString = func() (t Strings) {
	for c := range t.first {
		t.first[c], t.ends[c] = ^uint64(0), ^uint64(0)
	}
	return t
}()

func (s *Scanner) value(want *Strings, each func(lit []byte, key bool) bool) ([]byte, bool) {
	if each == nil {
		return s.valuePlain()
	}
	if want == nil {
		want = &everyString
	}
	start := skipSpace(s.data, s.i)
	i, base, key := start, s.depth, false
	for {
		// The loop over the value's tokens (valueTo) stops at each string of want, and each is
		// called here: the call and its variables, for a few strings of the value, are not the
		// loop's to keep in registers (docs/performance.md, "Change 17"). each may have read
		// the scanner with another ValueStrings: want and base are set again.
		s.want, s.base = want, base
		next, lit, end, st := s.valueTo(i, key)
		switch st {
		case toEnd:
			return s.data[start:next], true
		case toFailed:
			return nil, false
		}
		s.i = next
		if !each(s.data[lit:end], st == toKey) {
			return nil, false
		}
		i, key = s.i, false
		if st == toValue {
			if i, key, st = s.afterValue(i, base); st != toToken {
				if st == toEnd {
					return s.data[start:i], true
				}
				return nil, false
			}
		}
	}
}

// What valueTo and afterValue stopped at.
const (
	toToken  = iota // a token of the value, at next
	toEnd           // the end of the value, at next
	toFailed        // a syntax error, at s.i
	toKey           // a key of want, its colon passed
	toValue         // a string value of want
)

// valueTo is value's loop from the token at b[i] (a key when key is set) to the next string that
// may be one of s.want, which it passes (a key with its colon) and returns the literal's span of,
// or to the end of the value whose container is at depth s.base. It sets s.escaped to whether the
// string it stops at holds an escape: such a string is always one it stops at. It is valuePlain's
// loop but for that stop; want and base are read from s, not kept in registers.
func (s *Scanner) valueTo(i int, key bool) (next, lit, end, st int) {
	b := s.data
	for i < len(b) {
		// A key, when key is set, or a value starts at b[i], or white space before it.
		c := b[i]
		switch {
		case c == '"': // the most frequent token
			// stringEnd's loop, inlined (a call spills the loop's registers), to the first byte
			// that is not strPlain; a string with an escape, or in the last bytes of the input, is
			// read again by stringEnd.
			end = plainEnd(b, i+1)
			escaped := false
			if end < len(b) && b[end] == '"' {
				end++
			} else if end, escaped, _ = stringEnd(b, i); end < 0 {
				s.i = i
				return 0, 0, 0, toFailed
			}
			lit, i = i, end
			if key {
				if i >= len(b) || b[i] != ':' { // not as the API server writes JSON
					if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
						s.i = i
						return 0, 0, 0, toFailed
					}
				}
				i++
				if escaped || s.want.may(b, lit, end) {
					s.escaped = escaped
					return i, lit, end, toKey
				}
				key = false
				continue // to the value
			}
			s.values++
			if escaped || s.want.may(b, lit, end) {
				s.escaped = escaped
				return i, lit, end, toValue
			}
		case key:
			if !isSpace[c] {
				s.i = i
				return 0, 0, 0, toFailed
			}
			i = skipSpace(b, i)
			continue
		case c == '{' || c == '[':
			if s.depth >= 64 && !s.push() {
				s.i = i
				return 0, 0, 0, toFailed
			}
			s.depth++
			s.values++
			s.closing = c + 2                     // '{' + 2 is '}', '[' + 2 is ']'
			s.stack = s.stack<<1 | uint64(c>>5&1) // '{' has bit 5, '[' not
			if i = skipSpace(b, i+1); i < len(b) && b[i] != s.closing {
				key = c == '{'
				continue
			}
		case isSpace[c]:
			i = skipSpace(b, i)
			continue
		default:
			end := scalarEnd(b, i)
			if end < 0 {
				s.i = i
				return 0, 0, 0, toFailed
			}
			i = end
			s.values++
		}
		// After a value: the next one of its container, or the container's end, and so on up.
		for {
			if s.depth == s.base {
				s.i = i
				return i, 0, 0, toEnd
			}
			if i >= len(b) {
				s.i = i
				return 0, 0, 0, toFailed
			}
			switch c := b[i]; {
			case c == ',':
				i++
				key = s.closing == '}'
			case c == s.closing:
				i++
				s.close()
				continue
			case isSpace[c]:
				i = skipSpace(b, i)
				continue
			default:
				s.i = i
				return 0, 0, 0, toFailed
			}
			break
		}
	}
	s.i = i
	return 0, 0, 0, toFailed
}

// afterValue is valueTo's pass after a value, from b[i], for value to resume valueTo after a
// string value: to the next token of the value (a key when key is set), or to the end of the
// value whose container is at depth base.
func (s *Scanner) afterValue(i, base int) (next int, key bool, st int) {
	b := s.data
	for {
		if s.depth == base {
			s.i = i
			return i, false, toEnd
		}
		if i >= len(b) {
			s.i = i
			return i, false, toFailed
		}
		switch c := b[i]; {
		case c == ',':
			return i + 1, s.closing == '}', toToken
		case c == s.closing:
			i++
			s.close()
		case isSpace[c]:
			i = skipSpace(b, i)
		default:
			s.i = i
			return i, false, toFailed
		}
	}
}

// valuePlain is value without each: the loop of Value and Count, with fewer variables to keep
// in registers.
func (s *Scanner) valuePlain() ([]byte, bool) {
	b, i := s.data, skipSpace(s.data, s.i)
	start, base := i, s.depth
	key := false // a key comes first, before the value
	for i < len(b) {
		// A key, when key is set, or a value starts at b[i], or white space before it.
		c := b[i]
		switch {
		case c == '"': // the most frequent token
			// stringEnd's loop, inlined (a call spills the loop's registers), to the first byte
			// that is not strPlain; a string with an escape, or in the last bytes of the input, is
			// read again by stringEnd.
			end, escaped := plainEnd(b, i+1), false
			if end < len(b) && b[end] == '"' {
				end++
			} else if end, escaped, _ = stringEnd(b, i); end < 0 {
				s.i = i
				return nil, false
			}
			i = end
			if escaped {
				s.escaped = true
			}
			if key {
				if i >= len(b) || b[i] != ':' { // not as the API server writes JSON
					if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
						s.i = i
						return nil, false
					}
				}
				i++
				key = false
				continue // to the value
			}
			s.values++
		case key:
			if !isSpace[c] {
				s.i = i
				return nil, false
			}
			i = skipSpace(b, i)
			continue
		case c == '{' || c == '[':
			if s.depth >= 64 && !s.push() {
				s.i = i
				return nil, false
			}
			s.depth++
			s.values++
			s.closing = c + 2                     // '{' + 2 is '}', '[' + 2 is ']'
			s.stack = s.stack<<1 | uint64(c>>5&1) // '{' has bit 5, '[' not
			if i = skipSpace(b, i+1); i < len(b) && b[i] != s.closing {
				key = c == '{'
				continue
			}
		case isSpace[c]:
			i = skipSpace(b, i)
			continue
		default:
			end := scalarEnd(b, i)
			if end < 0 {
				s.i = i
				return nil, false
			}
			i = end
			s.values++
		}
		// After a value: the next one of its container, or the container's end, and so on up.
		for {
			if s.depth == base {
				s.i = i
				return b[start:i], true
			}
			if i >= len(b) {
				s.i = i
				return nil, false
			}
			switch c := b[i]; {
			case c == ',':
				i++
				key = s.closing == '}'
			case c == s.closing:
				i++
				s.close()
				continue
			case isSpace[c]:
				i = skipSpace(b, i)
				continue
			default:
				s.i = i
				return nil, false
			}
			break
		}
	}
	s.i = i
	return nil, false
}

// Object passes white space and the object after it, calling member for each key's literal
// (quotes included, Escaped telling whether it holds an escape) with s at the member's value,
// which member must pass. It reports false when member does, and at a key with an escape, which
// may spell a key the caller reads, unless escapedKeys.
//
// It is the loop of FirstKey and NextKey: the code of a reader that reads some objects with the one
// and some with the other runs once (docs/performance.md, "Change 23").
func (s *Scanner) Object(escapedKeys bool, member func(key []byte) bool) bool {
	key, ok := s.FirstKey()
	for ; ok && key != nil; key, ok = s.NextKey() {
		if s.escaped && !escapedKeys || !member(key) {
			return false
		}
	}
	return ok
}

// FirstKey passes white space, the opening brace of the object after it and its first key with
// the colon after it, and returns the key's literal, quotes included, with s at the member's value;
// nil for an empty object, which it then passes. It reports false at a syntax error. With NextKey,
// it reads an object as Object does, without a call of a callback for each member: the caller
// passes each member's value and asks for the next key, until the end (docs/performance.md,
// "Change 23").
//
//	key, ok := s.FirstKey()
//	for ; ok && key != nil; key, ok = s.NextKey() {
//		// read or pass the value of key
//	}
//
// Escaped tells whether the key holds an escape.
func (s *Scanner) FirstKey() ([]byte, bool) {
	s.space()
	if s.i >= len(s.data) || s.data[s.i] != '{' || !s.open('{') {
		return nil, false
	}
	if s.Next('}') {
		s.close()
		return nil, true
	}
	return s.key()
}

// NextKey passes what follows a member's value in the object FirstKey entered: a comma, then the
// next key and its colon, whose literal it returns as FirstKey does; or the end of the object,
// which it passes, returning nil. It reports false at a syntax error.
func (s *Scanner) NextKey() ([]byte, bool) {
	// separator('}'), its comma here: the most frequent byte after a member.
	if s.i < len(s.data) && s.data[s.i] == ',' {
		s.i++
		return s.key()
	}
	if closed, ok := s.separator('}'); !ok || closed {
		return nil, ok
	}
	return s.key()
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
		if s.i < len(s.data) && s.data[s.i] == ',' {
			s.i++
			continue
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
