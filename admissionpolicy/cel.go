package admissionpolicy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kriguard/kriguard/naming"
)

// The CEL below is built from the naming core's tables: a field's character classes, first and
// last characters and length come from naming.Field, never from a second copy of the rules.

// lit quotes s as a CEL string literal.
func lit(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\\', '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// list renders a CEL list of string literals.
func list(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = lit(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// class renders the RE2 character class of the bytes for which in reports true; '-' goes last so
// that it needs no escape.
func class(in func(c byte) bool) string {
	var b strings.Builder
	dash := false
	for c := 0; c < 128; c++ {
		if !in(byte(c)) {
			continue
		}
		if c == '-' {
			dash = true
			continue
		}
		// Collapse runs such as a-z and 0-9.
		end := c
		for end+1 < 128 && end+1 != '-' && in(byte(end+1)) {
			end++
		}
		switch {
		case end-c >= 2:
			b.WriteByte(byte(c))
			b.WriteByte('-')
			b.WriteByte(byte(end))
			c = end
		default:
			b.WriteByte(byte(c))
		}
		if strings.ContainsRune(`\]^[`, rune(c)) {
			panic(fmt.Sprintf("class: byte %q needs escaping", rune(c))) // no field allows it
		}
	}
	if dash {
		b.WriteByte('-')
	}
	return "[" + b.String() + "]"
}

// fieldRegexp is the RE2 form of f's shape, length aside: one character that may both start and
// end the field, or a first character, any inner ones and a last one.
//
// Every first character of the naming fields may also end one, and then the shorter form
// ^F(C*L)?$ says the same: a regular expression's length is part of its CEL cost.
func fieldRegexp(f naming.Field) string {
	firstEnds := true
	for c := 0; c < 256; c++ {
		if f.IsFirst(byte(c)) && !f.IsLast(byte(c)) {
			firstEnds = false
		}
	}
	if firstEnds {
		return "^" + class(f.IsFirst) + "(" + class(f.IsChar) + "*" + class(f.IsLast) + ")?$"
	}
	both := class(func(c byte) bool { return f.IsFirst(c) && f.IsLast(c) })
	return "^(" + both + "|" + class(f.IsFirst) + class(f.IsChar) + "*" + class(f.IsLast) + ")$"
}

// validField is a CEL condition that v, a non-empty string expression, is a valid value of f.
func validField(f naming.Field, v string) string {
	return fmt.Sprintf("(size(%s) <= %d && %s.matches(%s))", v, f.MaxLen(), v, lit(fieldRegexp(f)))
}

// maxShown bounds the value a message echoes, as the webhook does.
const maxShown = 256

// shown is a CEL expression that renders v for a message, cut to maxShown characters.
func shown(v string) string {
	return fmt.Sprintf("(size(%[1]s) > %[2]d ? %[1]s.substring(0, %[2]d) + '...' : %[1]s)", v, maxShown)
}

// fieldProblems is a CEL expression listing what is wrong with v, a string expression that breaks
// f's rules, joined with "; ", in the words of naming.Field.Validate.
func fieldProblems(f naming.Field, v string) string {
	first, last, chars := class(f.IsFirst), class(f.IsLast), class(f.IsChar)
	parts := []string{
		fmt.Sprintf("(size(%s) > %d ? ['must be no more than %d bytes'] : [])", v, f.MaxLen(), f.MaxLen()),
		fmt.Sprintf("(%s.matches(%s) ? [] : [%s])", v, lit("^"+first), lit("must start with "+describe(f.IsFirst))),
		fmt.Sprintf("(%s.matches(%s) ? [] : [%s])", v, lit(last+"$"), lit("must end with "+describe(f.IsLast))),
		fmt.Sprintf("(%s.matches(%s) ? [%s] : [])", v, lit("[^"+chars[1:]), lit("must contain only "+describe(f.IsChar))),
	}
	return "(" + strings.Join(parts, " + ") + ").join('; ')"
}

// describe names a character set in the webhook's words.
func describe(in func(c byte) bool) string {
	lower, digit, dash, dot := in('a'), in('0'), in('-'), in('.')
	var names []string
	switch {
	case lower && !digit && !dash && !dot:
		return "a lowercase letter"
	case lower && digit && !dash && !dot:
		return "a lowercase letter or digit"
	}
	if lower {
		names = append(names, "lowercase letters")
	}
	if digit {
		names = append(names, "digits")
	}
	if dash {
		names = append(names, "'-'")
	}
	if dot {
		names = append(names, "'.'")
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// invalidMessage is a messageExpression in the form of a field.Invalid error.
func invalidMessage(path string, f naming.Field, v string) string {
	return fmt.Sprintf("%s + ': Invalid value: \"' + %s + '\": ' + %s", lit(path), shown(v), fieldProblems(f, v))
}

// maxKRILen is the longest valid KRI: the prefix, six separators and every field at its longest.
func maxKRILen() int {
	n := len(naming.Prefix) + naming.Segments - 1
	for _, f := range naming.Fields() {
		n += f.MaxLen()
	}
	return n
}

// validKRIParts is a CEL condition that parts, the '_'-separated segments of a string, form a valid
// KRI (naming.Registry.Parse): seven segments, the prefix, every field's rules, a registered type and
// the mesh its scope asks for.
func validKRIParts(parts string, global, mesh []string) string {
	seg := func(f naming.Field) string { return parts + "[" + strconv.Itoa(int(f)+1) + "]" }
	optional := func(f naming.Field) string {
		return fmt.Sprintf("(%s == '' || %s)", seg(f), validField(f, seg(f)))
	}
	return strings.Join([]string{
		fmt.Sprintf("size(%s) == %d", parts, naming.Segments),
		fmt.Sprintf("%s[0] == %s", parts, lit(naming.Prefix)),
		fmt.Sprintf("(%s in %s ? %s == '' : %s in %s && %s != '' && %s)",
			seg(naming.FieldType), list(global), seg(naming.FieldMesh),
			seg(naming.FieldType), list(mesh), seg(naming.FieldMesh), validField(naming.FieldMesh, seg(naming.FieldMesh))),
		optional(naming.FieldZone),
		optional(naming.FieldNamespace),
		fmt.Sprintf("%s != '' && %s", seg(naming.FieldName), validField(naming.FieldName, seg(naming.FieldName))),
		optional(naming.FieldSection),
	}, " && ")
}
