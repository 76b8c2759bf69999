package rules

import (
	"bytes"
	"unicode/utf8"

	"sigs.k8s.io/json"
)

// maxNesting is the deepest nesting the scanner follows: encoding/json's, which the API server's
// decoder and decodeFull share. Deeper input is left to decodeFull, which refuses it.
const maxNesting = 10000

// scanner reads JSON in one pass, checking its syntax as encoding/json does, for decodePartial: it
// replaces a strict decode (a pass to check the input, a pass to decode it, and both again for
// labels and annotations) that cost more than the rest of a review's decision
// (docs/performance.md). Anything it is unsure of, decodePartial leaves to decodeFull.
type scanner struct {
	data []byte
	i    int
	// depth is the nesting of the value being read (the top-level object is 1); bit d of objects
	// says whether the container at depth d is an object.
	depth   int
	objects [maxNesting/64 + 1]uint64
	// escaped says whether the last string read held an escape.
	escaped bool
}

// validJSON reports whether data is one JSON value with white space around it, as encoding/json's
// Valid does, in one pass of the scanner (FuzzScanner holds the two to each other).
func validJSON(data []byte) bool {
	s := scanner{data: data}
	_, ok := s.value()
	s.space()
	return ok && s.i == len(data)
}

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips white space and reports whether data[s.i] is c, which it then passes.
func (s *scanner) next(c byte) bool {
	s.space()
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str passes the string literal at data[s.i] and reports whether it is one.
func (s *scanner) str() bool {
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return false
	}
	s.escaped = false
	for i := s.i + 1; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.i = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			s.escaped = true
			if i++; i >= len(s.data) {
				return false
			}
			switch s.data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s.data) {
					return false
				}
				for _, h := range s.data[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				i += 4
			default:
				return false
			}
		}
	}
	return false
}

// stringValue reads the string literal at data[s.i] as encoding/json decodes it.
func (s *scanner) stringValue() (string, bool) {
	start := s.i
	if !s.str() {
		return "", false
	}
	return s.unquote(s.data[start:s.i])
}

// unquote decodes lit, the string literal just read, as encoding/json does.
func (s *scanner) unquote(lit []byte) (string, bool) {
	if in := lit[1 : len(lit)-1]; !s.escaped && utf8.Valid(in) {
		return string(in), true
	}
	// Escapes and invalid UTF-8 (which the decoder replaces): rare, left to the decoder.
	var v string
	if json.UnmarshalCaseSensitivePreserveInts(lit, &v) != nil {
		return "", false
	}
	return v, true
}

// key passes white space, an object key, white space and the colon, and returns the key's literal,
// quotes included; s.escaped says whether it holds an escape.
func (s *scanner) key() ([]byte, bool) {
	s.space()
	start := s.i
	if !s.str() {
		return nil, false
	}
	end := s.i
	if !s.next(':') {
		return nil, false
	}
	return s.data[start:end], true
}

// digits passes a run of decimal digits and reports whether there was one.
func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.data) && '0' <= s.data[s.i] && s.data[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// scalar passes the string, number, true, false or null at data[s.i].
func (s *scanner) scalar() bool {
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

func (s *scanner) literal(lit string) bool {
	if !bytes.HasPrefix(s.data[s.i:], []byte(lit)) {
		return false
	}
	s.i += len(lit)
	return true
}

// value passes white space and the value after it, of any depth up to maxNesting, and returns
// where the value starts.
func (s *scanner) value() (int, bool) {
	s.space()
	start, base := s.i, s.depth
	for {
		// A value starts at data[s.i].
		if s.i >= len(s.data) {
			return start, false
		}
		if c := s.data[s.i]; c == '{' || c == '[' {
			if s.depth >= maxNesting {
				return start, false
			}
			s.depth++
			bit := uint64(1) << (s.depth % 64)
			if c == '{' {
				s.objects[s.depth/64] |= bit
			} else {
				s.objects[s.depth/64] &^= bit
			}
			s.i++
			s.space()
			if s.i < len(s.data) && s.data[s.i] != s.closer() {
				if c == '{' {
					if _, ok := s.key(); !ok {
						return start, false
					}
					s.space()
				}
				continue
			}
		} else if !s.scalar() {
			return start, false
		}
		// After a value: the next one of its container, or the container's end, and so on up.
		for {
			if s.depth == base {
				return start, true
			}
			s.space()
			if s.i >= len(s.data) {
				return start, false
			}
			switch s.data[s.i] {
			case ',':
				s.i++
				if s.inObject() {
					if _, ok := s.key(); !ok {
						return start, false
					}
				}
				s.space()
			case s.closer():
				s.i++
				s.depth--
				continue
			default:
				return start, false
			}
			break
		}
	}
}

func (s *scanner) inObject() bool { return s.objects[s.depth/64]&(1<<(s.depth%64)) != 0 }

// closer is the byte that ends the container at the current depth.
func (s *scanner) closer() byte {
	if s.inObject() {
		return '}'
	}
	return ']'
}

// members reads the object at data[s.i], calling member for each key's literal with the scanner
// at its value, which member must pass. A key with an escape, which may spell a key the caller
// reads, is refused unless escapedKeys.
func (s *scanner) members(escapedKeys bool, member func(lit []byte) bool) bool {
	if !s.next('{') {
		return false
	}
	if s.depth >= maxNesting {
		return false
	}
	s.depth++
	s.objects[s.depth/64] |= 1 << (s.depth % 64)
	if s.next('}') {
		s.depth--
		return true
	}
	for {
		k, ok := s.key()
		if !ok || s.escaped && !escapedKeys || !member(k) {
			return false
		}
		switch {
		case s.next(','):
		case s.next('}'):
			s.depth--
			return true
		default:
			return false
		}
	}
}
