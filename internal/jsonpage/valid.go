package jsonpage

// maxDepth is the deepest nesting encoding/json accepts (its scanner's maxNestingDepth).
const maxDepth = 10000

// Valid reports whether b is one JSON value, with white space around it, exactly as
// encoding/json.Valid does (strings are not checked for valid UTF-8, nesting is bounded at
// 10,000), in a fraction of its instructions: one pass of table-driven loops instead of a state
// machine called for every byte.
func Valid(b []byte) bool {
	v := validator{b: b}
	v.space()
	if !v.value() {
		return false
	}
	v.space()
	return v.i == len(b)
}

// validator reads JSON values from b at i, checking their syntax.
type validator struct {
	b     []byte
	i     int
	depth int
}

// strPlain is the bytes a string holds as they are: all but the quote, the backslash and the
// control characters.
var strPlain [256]bool

func init() {
	for c := 0x20; c < 256; c++ {
		strPlain[c] = c != '"' && c != '\\'
	}
}

func (v *validator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

// value checks the value at i and passes it.
func (v *validator) value() bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '"':
		return v.str()
	case c == '{':
		return v.object()
	case c == '[':
		return v.array()
	case c == '-' || '0' <= c && c <= '9':
		return v.number()
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	}
	return false
}

func (v *validator) literal(lit string) bool {
	if len(v.b)-v.i < len(lit) || string(v.b[v.i:v.i+len(lit)]) != lit {
		return false
	}
	v.i += len(lit)
	return true
}

// str checks the string whose opening quote is at i and passes it.
func (v *validator) str() bool {
	b, i := v.b, v.i+1
	for {
		for i < len(b) && strPlain[b[i]] {
			i++
		}
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '"':
			v.i = i + 1
			return true
		case '\\':
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

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func (v *validator) digits() bool {
	start := v.i
	for v.i < len(v.b) && '0' <= v.b[v.i] && v.b[v.i] <= '9' {
		v.i++
	}
	return v.i > start
}

// number checks the number at i: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (v *validator) number() bool {
	if v.b[v.i] == '-' {
		v.i++
	}
	if v.i < len(v.b) && v.b[v.i] == '0' {
		v.i++
	} else if !v.digits() {
		return false
	}
	if v.i < len(v.b) && v.b[v.i] == '.' {
		v.i++
		if !v.digits() {
			return false
		}
	}
	if v.i < len(v.b) && (v.b[v.i] == 'e' || v.b[v.i] == 'E') {
		v.i++
		if v.i < len(v.b) && (v.b[v.i] == '+' || v.b[v.i] == '-') {
			v.i++
		}
		if !v.digits() {
			return false
		}
	}
	return true
}

func (v *validator) enter() bool {
	v.depth++
	return v.depth <= maxDepth
}

// object checks the object whose brace is at i and passes it.
func (v *validator) object() bool {
	if !v.enter() {
		return false
	}
	v.i++
	v.space()
	if v.i < len(v.b) && v.b[v.i] == '}' {
		v.i++
		v.depth--
		return true
	}
	for {
		if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() {
			return false
		}
		v.space()
		if v.i >= len(v.b) || v.b[v.i] != ':' {
			return false
		}
		v.i++
		v.space()
		if !v.value() {
			return false
		}
		v.space()
		if v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case ',':
			v.i++
			v.space()
		case '}':
			v.i++
			v.depth--
			return true
		default:
			return false
		}
	}
}

// array checks the array whose bracket is at i and passes it.
func (v *validator) array() bool { return v.elements(nil) }

// elements checks the array whose bracket is at i and passes it, calling each, when not nil, with
// each element.
func (v *validator) elements(each func([]byte)) bool {
	if !v.enter() {
		return false
	}
	v.i++
	v.space()
	if v.i < len(v.b) && v.b[v.i] == ']' {
		v.i++
		v.depth--
		return true
	}
	for {
		start := v.i
		if !v.value() {
			return false
		}
		if each != nil {
			each(v.b[start:v.i])
		}
		v.space()
		if v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case ',':
			v.i++
			v.space()
		case ']':
			v.i++
			v.depth--
			return true
		default:
			return false
		}
	}
}
