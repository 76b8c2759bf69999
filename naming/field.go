package naming

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Field is one of the six fields of a KRI, in the order they appear in the string form.
type Field uint8

// The fields of a KRI, in string order.
const (
	FieldType Field = iota
	FieldMesh
	FieldZone
	FieldNamespace
	FieldName
	FieldSection
)

// Fields returns every field in string order.
func Fields() [6]Field {
	return [...]Field{FieldType, FieldMesh, FieldZone, FieldNamespace, FieldName, FieldSection}
}

// Character classes. One table lookup tells which classes a byte belongs to, so that every
// field check is a single pass over the bytes with no allocation.
const (
	classLower uint8 = 1 << iota
	classDigit
	classDash
	classDot
)

var classOf = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = classLower
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classDigit
	}
	t['-'] = classDash
	t['.'] = classDot
	return t
}()

type fieldRule struct {
	name               string
	chars, first, last uint8
	max                int
	// Human-readable forms of the three masks, used only on the error path.
	charsText, firstText, lastText string
}

const (
	alnum      = classLower | classDigit
	alnumText  = "a lowercase letter or digit"
	letterText = "a lowercase letter"
)

var rules = [...]fieldRule{
	FieldType: {
		name: "type", chars: classLower, first: classLower, last: classLower, max: 63,
		charsText: "lowercase letters", firstText: letterText, lastText: letterText,
	},
	FieldMesh: {
		name: "mesh", chars: alnum | classDash, first: classLower, last: alnum, max: 63,
		charsText: "lowercase letters, digits or '-'", firstText: letterText, lastText: alnumText,
	},
	FieldZone: {
		name: "zone", chars: alnum | classDash, first: classLower, last: alnum, max: 63,
		charsText: "lowercase letters, digits or '-'", firstText: letterText, lastText: alnumText,
	},
	FieldNamespace: {
		name: "namespace", chars: alnum | classDash, first: alnum, last: alnum, max: 63,
		charsText: "lowercase letters, digits or '-'", firstText: alnumText, lastText: alnumText,
	},
	FieldName: {
		name: "name", chars: alnum | classDash | classDot, first: alnum, last: alnum, max: 253,
		charsText: "lowercase letters, digits, '-' or '.'", firstText: alnumText, lastText: alnumText,
	},
	FieldSection: {
		name: "section", chars: alnum | classDash, first: alnum, last: alnum, max: 63,
		charsText: "lowercase letters, digits or '-'", firstText: alnumText, lastText: alnumText,
	},
}

// String returns the field's name as used in error paths: "type", "mesh", "zone", "namespace",
// "name" or "section".
func (f Field) String() string {
	if int(f) < len(rules) {
		return rules[f].name
	}
	return "Field(" + strconv.Itoa(int(f)) + ")"
}

func (f Field) rule() *fieldRule {
	if int(f) < len(rules) {
		return &rules[f]
	}
	return &fieldRule{} // matches nothing
}

// MaxLen is the longest value the field accepts, in bytes.
func (f Field) MaxLen() int { return f.rule().max }

// IsChar reports whether c may appear in the field.
func (f Field) IsChar(c byte) bool { return classOf[c]&f.rule().chars != 0 }

// IsFirst reports whether c may start the field.
func (f Field) IsFirst(c byte) bool { return classOf[c]&f.rule().first != 0 }

// IsLast reports whether c may end the field.
func (f Field) IsLast(c byte) bool { return classOf[c]&f.rule().last != 0 }

// Valid reports whether s is a valid, non-empty value of the field. It does not allocate.
func (f Field) Valid(s string) bool {
	r := f.rule()
	n := len(s)
	if n == 0 || n > r.max || classOf[s[0]]&r.first == 0 || classOf[s[n-1]]&r.last == 0 {
		return false
	}
	for i := 1; i < n-1; i++ {
		if classOf[s[i]]&r.chars == 0 {
			return false
		}
	}
	return true
}

// Validate checks a non-empty value against the field's rules and returns one error per broken
// rule, at path p. An empty value is valid here: whether a field is required depends on the
// resource type and is decided by the caller.
func (f Field) Validate(v string, p *field.Path) field.ErrorList {
	if v == "" || f.Valid(v) {
		return nil
	}
	return f.problems(v, p)
}

// problems is Validate for a value that breaks f's rule: apart, so that the frame of Validate, on
// the stack of every admission review, does not hold the one of building the problems
// (docs/performance.md, "Change 19").
func (f Field) problems(v string, p *field.Path) field.ErrorList {
	r := f.rule()
	var errs field.ErrorList
	if len(v) > r.max {
		errs = append(errs, field.TooLong(p, v, r.max))
	}
	var broken []string
	if classOf[v[0]]&r.first == 0 {
		broken = append(broken, "must start with "+r.firstText)
	}
	if classOf[v[len(v)-1]]&r.last == 0 {
		broken = append(broken, "must end with "+r.lastText)
	}
	if bad := badChars(v, r.chars); bad != "" {
		broken = append(broken, "must contain only "+r.charsText+" (found "+bad+")")
	}
	if len(broken) > 0 {
		shown := v
		if len(shown) > r.max {
			// The TooLong error above already says so; keep the message readable.
			shown = shown[:r.max] + "…"
		}
		errs = append(errs, field.Invalid(p, shown, strings.Join(broken, "; ")))
	}
	return errs
}

// badChars lists the distinct bytes of v outside mask, quoted, at most five of them, so that a
// hostile value cannot blow up the message.
func badChars(v string, mask uint8) string {
	const most = 5
	var seen [256]bool
	var b strings.Builder
	n := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if classOf[c]&mask != 0 || seen[c] {
			continue
		}
		seen[c] = true
		if n == most {
			b.WriteString(", …")
			break
		}
		if n > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteByte(c))
		n++
	}
	return b.String()
}

// quoteByte renders a byte as Go would quote it as a one-character string; bytes that are not
// printable ASCII are shown as escapes, so that non-UTF-8 input stays readable.
func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f && c != '\'' && c != '\\' {
		return "'" + string(rune(c)) + "'"
	}
	return strconv.QuoteToASCII(string([]byte{c}))
}
