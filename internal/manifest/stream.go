package manifest

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// This file is a YAML reader that streams: it reads one document's text and hands each node to a
// sink as it is read (the start and end of each mapping and sequence, each scalar), holding
// nothing but the path from the root. It reads the YAML manifests are written in — block and
// one-line flow collections, plain (also multi-line), quoted and block scalars, comments — and
// gives up (errUnsupported) on anything else: anchors, aliases, tags, explicit keys, directives,
// tabs outside block scalars, CR line breaks, multi-line quoted scalars or flow collections, documents whose root is
// not a block mapping, and every construct whose reading it is not sure of. The scanning rules
// are go-yaml v2's (the library sigs.k8s.io/yaml converts with): where a scalar ends, how its
// lines fold, how a block scalar finds its indentation. docs/limits.md says why and how it is
// held to go-yaml.

// errUnsupported says that the streaming reader does not read a document; unsupported holds why.
var errUnsupported = errors.New("YAML the streaming reader does not read")

// unsupported is errUnsupported with the line and what was found there.
type unsupported struct {
	line int
	what string
}

func (u *unsupported) Error() string { return fmt.Sprintf("line %d: %s", u.line, u.what) }
func (u *unsupported) Unwrap() error { return errUnsupported }

// maxStreamDepth bounds the nesting the streaming reader reads; go-yaml refuses more than 10,000
// levels of block or of flow collections, and documents near that are left to it.
const maxStreamDepth = 9000

// maxSimpleKey is the longest key the streaming reader reads; go-yaml refuses a key of more than
// 1,024 characters before its ':' (a "simple key"), and keys near that are left to it.
const maxSimpleKey = 1000

type evKind uint8

const (
	evMapStart evKind = iota
	evMapEnd
	evSeqStart
	evSeqEnd
	evScalar
)

// event is one node as the reader hands it on; value is valid only during the call.
type event struct {
	kind evKind
	// line (1-based) and column (1-based, in characters) where the node starts.
	line, col int
	value     []byte
	plain     bool // a plain scalar, resolved by its text; others are strings
}

// sink receives the events of one document. entry is called before each entry of a block
// sequence with the offset of its '-', its line and the offset where that line starts.
type sink interface {
	event(e *event) error
	entry(dash, line, lineStart int) error
}

type streamReader struct {
	src  []byte
	pos  int
	line int // line of pos, 1-based
	ls   int // offset of the start of pos's line
	sink sink

	depth int
	ev    event
	buf   []byte // the value of the scalar being read

	// The last column counted, so that a long line is counted once: at colPos, on the line that
	// starts at colLS.
	colLS, colPos, col int
}

func (r *streamReader) bail(what string) error {
	return &unsupported{line: r.line, what: what}
}

// at returns the byte i past pos, 0 past the end.
func (r *streamReader) at(i int) byte {
	if r.pos+i < len(r.src) {
		return r.src[r.pos+i]
	}
	return 0
}

func (r *streamReader) eof() bool { return r.pos >= len(r.src) }

// column is the 0-based byte column of pos: indentation is spaces, so it counts characters
// wherever the structure depends on it.
func (r *streamReader) column() int { return r.pos - r.ls }

// charColumn is the 1-based column of pos in characters.
func (r *streamReader) charColumn() int {
	if r.colLS != r.ls || r.colPos > r.pos || r.col == 0 {
		r.colLS, r.colPos, r.col = r.ls, r.ls, 1
	}
	r.col += utf8.RuneCount(r.src[r.colPos:r.pos])
	r.colPos = r.pos
	return r.col
}

func isBlankz(c byte) bool { return c == ' ' || c == '\n' || c == 0 }

func (r *streamReader) skipSpaces() {
	for r.at(0) == ' ' {
		r.pos++
	}
}

// newline steps over the line break at pos.
func (r *streamReader) newline() {
	r.pos++
	r.line++
	r.ls = r.pos
}

// settle moves from the end of a node to the first character of the next line that holds
// content, past spaces, a comment and blank and comment lines. Anything else on the rest of the
// line is not read.
func (r *streamReader) settle() error {
	r.skipSpaces()
	for {
		switch r.at(0) {
		case 0:
			if r.eof() {
				return nil
			}
			return r.bail("NUL")
		case '#':
			if r.pos > r.ls && r.src[r.pos-1] != ' ' {
				return r.bail("a comment not after a space")
			}
			for r.at(0) != '\n' && !r.eof() {
				r.pos++
			}
		case '\n':
			r.newline()
			r.skipSpaces()
		default:
			if !r.onlySpacesBefore() {
				return r.bail(fmt.Sprintf("%q after a node", r.at(0)))
			}
			return nil
		}
	}
}

func (r *streamReader) onlySpacesBefore() bool {
	for i := r.ls; i < r.pos; i++ {
		if r.src[i] != ' ' {
			return false
		}
	}
	return true
}

func (r *streamReader) emit(kind evKind, line, col int, value []byte, plain bool) error {
	r.ev = event{kind: kind, line: line, col: col, value: value, plain: plain}
	return r.sink.event(&r.ev)
}

func (r *streamReader) push() error {
	r.depth++
	if r.depth > maxStreamDepth {
		return r.bail("nesting deeper than the streaming reader reads")
	}
	return nil
}

// document reads a whole document: nothing, or a block mapping at its root.
func (r *streamReader) document() error {
	r.line, r.ls = 1, 0
	if err := r.settle(); err != nil {
		return err
	}
	if r.eof() {
		return nil
	}
	key, err := r.isKey()
	if err != nil {
		return err
	}
	if !key {
		return r.bail("a root that is not a block mapping")
	}
	if err := r.blockMapping(r.column()); err != nil {
		return err
	}
	if !r.eof() {
		return r.bail("content after the root mapping")
	}
	return nil
}

// blockMapping reads the mapping whose first key is at pos, every key at column indent.
func (r *streamReader) blockMapping(indent int) error {
	if err := r.push(); err != nil {
		return err
	}
	if err := r.emit(evMapStart, r.line, r.charColumn(), nil, false); err != nil {
		return err
	}
	for {
		if err := r.key(); err != nil {
			return err
		}
		if err := r.value(indent, false); err != nil {
			return err
		}
		if r.eof() || r.column() < indent {
			break
		}
		if r.column() > indent {
			return r.bail("a line indented more than its mapping's keys")
		}
	}
	r.depth--
	return r.emit(evMapEnd, r.line, 0, nil, false)
}

// blockSequence reads the sequence whose first '-' is at pos, every '-' at column indent. An
// indentless sequence (the value of a key at the key's own column) ends at the first line that
// is not an entry.
func (r *streamReader) blockSequence(indent int, indentless bool) error {
	if !indentless {
		if err := r.push(); err != nil {
			return err
		}
	}
	if err := r.emit(evSeqStart, r.line, r.charColumn(), nil, false); err != nil {
		return err
	}
	for {
		if r.at(0) != '-' || !isBlankz(r.at(1)) {
			if indentless {
				break
			}
			return r.bail("a line in a sequence that is not an entry")
		}
		if err := r.sink.entry(r.pos, r.line, r.ls); err != nil {
			return err
		}
		r.pos++
		if err := r.value(indent, true); err != nil {
			return err
		}
		if r.eof() || r.column() < indent {
			break
		}
		if r.column() > indent {
			return r.bail("a line indented more than its sequence's entries")
		}
	}
	if !indentless {
		r.depth--
	}
	return r.emit(evSeqEnd, r.line, 0, nil, false)
}

// key reads the key at pos and its ':'.
func (r *streamReader) key() error {
	line, col, start := r.line, r.charColumn(), r.pos
	var plain bool
	var err error
	switch r.at(0) {
	case '"', '\'':
		err = r.quoted()
	default:
		if !r.plainStart(false) {
			return r.bail(fmt.Sprintf("a key that starts with %q", r.at(0)))
		}
		plain = true
		err = r.plainLine(false)
	}
	if err != nil {
		return err
	}
	if r.line != line {
		return r.bail("a key on more than one line")
	}
	r.skipSpaces()
	if r.at(0) != ':' || !isBlankz(r.at(1)) {
		return r.bail("a key without ': '")
	}
	if utf8.RuneCount(r.src[start:r.pos]) > maxSimpleKey {
		return r.bail("a key longer than the streaming reader reads")
	}
	if string(r.buf) == "<<" {
		return r.bail("a merge key")
	}
	r.pos++
	return r.emit(evScalar, line, col, r.buf, plain)
}

// isKey reports whether a key and its ': ' start at pos, without reading them.
func (r *streamReader) isKey() (bool, error) {
	save, saveLine, saveLS, saveBuf := r.pos, r.line, r.ls, r.buf
	defer func() { r.pos, r.line, r.ls, r.buf = save, saveLine, saveLS, saveBuf[:0] }()
	switch r.at(0) {
	case '"', '\'':
		if err := r.quoted(); err != nil {
			return false, err
		}
		if r.line != saveLine {
			return false, nil
		}
	default:
		if !r.plainStart(false) {
			return false, nil
		}
		if err := r.plainLine(false); err != nil {
			return false, err
		}
	}
	r.skipSpaces()
	return r.at(0) == ':' && isBlankz(r.at(1)), nil
}

// value reads the value after a key's ':' or a sequence entry's '-', the collection that holds
// it being at column indent, and settles on the next line.
func (r *streamReader) value(indent int, entry bool) error {
	line, col := r.line, r.charColumn() // of an empty value: right after its indicator, as go-yaml
	r.skipSpaces()
	switch c := r.at(0); {
	case c == '\n' || c == '#' || r.eof():
		if err := r.settle(); err != nil {
			return err
		}
		n := r.column()
		switch {
		case r.eof() || n < indent || n == indent && (entry || r.at(0) != '-' || !isBlankz(r.at(1))):
			return r.emit(evScalar, line, col, nil, true) // empty: null
		case n == indent:
			return r.blockSequence(n, true)
		case r.at(0) == '-' && isBlankz(r.at(1)):
			return r.blockSequence(n, false)
		}
		key, err := r.isKey()
		if err != nil {
			return err
		}
		if key {
			return r.blockMapping(n)
		}
		return r.inline(indent)
	case c == '-' && isBlankz(r.at(1)):
		if !entry {
			return r.bail("a sequence on the line of its key")
		}
		return r.blockSequence(r.column(), false)
	}
	key, err := r.isKey()
	if err != nil {
		return err
	}
	if key {
		if !entry {
			return r.bail("a mapping on the line of its key")
		}
		return r.blockMapping(r.column())
	}
	return r.inline(indent)
}

// inline reads a scalar or a flow collection at pos, in a block collection at column indent.
func (r *streamReader) inline(indent int) error {
	line, col := r.line, r.charColumn()
	switch c := r.at(0); c {
	case '"', '\'':
		if err := r.quoted(); err != nil {
			return err
		}
		if err := r.emit(evScalar, line, col, r.buf, false); err != nil {
			return err
		}
		return r.endOfNode()
	case '[', '{':
		if err := r.flow(); err != nil {
			return err
		}
		return r.endOfNode()
	case '|', '>':
		return r.blockScalar(indent)
	}
	if !r.plainStart(false) {
		return r.bail(fmt.Sprintf("a node that starts with %q", r.at(0)))
	}
	multi, err := r.plainBlock(indent + 1)
	if err != nil {
		return err
	}
	if r.at(0) == ':' && isBlankz(r.at(1)) {
		return r.bail("': ' after a value")
	}
	if err := r.emit(evScalar, line, col, r.buf, true); err != nil {
		return err
	}
	if multi && r.at(0) != '#' {
		return nil // settled on the line that ended it
	}
	return r.settle()
}

// endOfNode settles after a quoted scalar or a flow collection: the rest of its line must be
// empty or a comment after a space.
func (r *streamReader) endOfNode() error {
	switch c := r.at(0); {
	case c == ' ' || c == '\n' || r.eof():
		return r.settle()
	}
	return r.bail(fmt.Sprintf("%q right after a node", r.at(0)))
}

// plainStart reports whether a plain scalar may start at pos (go-yaml's rule, without the
// '?' and ':' starts it allows in block context).
func (r *streamReader) plainStart(flow bool) bool {
	switch c := r.at(0); c {
	case 0, ' ', '\n', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	case '-':
		n := r.at(1)
		return !isBlankz(n) && !(flow && isFlowIndicator(n))
	}
	return true
}

func isFlowIndicator(c byte) bool {
	return c == ',' || c == '[' || c == ']' || c == '{' || c == '}' || c == '?'
}

// plainLine reads a plain scalar that ends on its line into buf: a key, or a scalar in a flow
// collection. It ends before ": ", " #", the end of the line, and in flow also before ",?[]{}".
func (r *streamReader) plainLine(flow bool) error {
	r.buf = r.buf[:0]
	spaces := 0
	for {
		c := r.at(0)
		if c == '\t' {
			return r.bail("a tab outside a block scalar")
		}
		if c == ' ' {
			spaces++
			r.pos++
			continue
		}
		if c == '\n' || r.eof() || c == '#' && spaces > 0 {
			break
		}
		if c == ':' && isBlankz(r.at(1)) || flow && isFlowIndicator(c) {
			break
		}
		for ; spaces > 0; spaces-- {
			r.buf = append(r.buf, ' ')
		}
		r.buf = append(r.buf, c)
		r.pos++
	}
	r.pos -= spaces // trailing spaces are not part of it
	return nil
}

// plainBlock reads a plain scalar in block context into buf; its lines after the first must
// start at column indent or after. It returns whether it read past its first line (then pos is
// at the first character of the line that ended it).
func (r *streamReader) plainBlock(indent int) (multi bool, err error) {
	r.buf = r.buf[:0]
	var spaces, breaks int // blanks and line breaks read and not yet written
	leading := false       // the blanks follow a line break
	for {
		if r.column() == 0 && r.docIndicator() {
			return multi, r.bail("a document indicator in a plain scalar")
		}
		if r.at(0) == '#' {
			break
		}
		for c := r.at(0); !isBlankz(c); c = r.at(0) {
			if c == '\t' {
				return multi, r.bail("a tab outside a block scalar")
			}
			if c == ':' && isBlankz(r.at(1)) {
				break
			}
			if leading {
				if breaks == 1 {
					r.buf = append(r.buf, ' ')
				} else {
					for i := 1; i < breaks; i++ {
						r.buf = append(r.buf, '\n')
					}
				}
				leading, breaks = false, 0
			} else {
				for ; spaces > 0; spaces-- {
					r.buf = append(r.buf, ' ')
				}
			}
			r.buf = append(r.buf, c)
			r.pos++
		}
		spaces = 0
		if c := r.at(0); c != ' ' && c != '\n' || r.eof() {
			break
		}
		for c := r.at(0); (c == ' ' || c == '\n') && !r.eof(); c = r.at(0) {
			if c == ' ' {
				if !leading {
					spaces++
				}
				r.pos++
				continue
			}
			r.newline()
			multi, leading, spaces = true, true, 0
			breaks++
		}
		if r.column() < indent {
			break
		}
	}
	return multi, nil
}

// docIndicator reports whether "---" or "..." and a blank are at pos.
func (r *streamReader) docIndicator() bool {
	c := r.at(0)
	return (c == '-' || c == '.') && r.at(1) == c && r.at(2) == c && isBlankz(r.at(3))
}

// quoted reads a single- or double-quoted scalar into buf. Its lines fold as go-yaml folds
// them: a line break is a space, n+1 of them n newlines, the blanks around them dropped; an
// escaped line break (double quotes) is nothing.
func (r *streamReader) quoted() error {
	r.buf = r.buf[:0]
	q := r.at(0)
	r.pos++
	for {
		if r.eof() {
			return r.bail("a quoted scalar that does not end")
		}
		leading, leadingBreak := false, false
		for c := r.at(0); !isBlankz(c); c = r.at(0) {
			switch {
			case c == '\t':
				return r.bail("a tab outside a block scalar")
			case q == '\'' && c == '\'' && r.at(1) == '\'':
				r.buf = append(r.buf, '\'')
				r.pos += 2
				continue
			case c == q:
			case q == '"' && c == '\\' && r.at(1) == '\n':
				r.pos++
				r.newline()
				leading = true
			case q == '"' && c == '\\':
				if err := r.escape(); err != nil {
					return err
				}
				continue
			default:
				r.buf = append(r.buf, c)
				r.pos++
				continue
			}
			break
		}
		if r.at(0) == q {
			break
		}
		spaces, breaks := 0, 0
		for c := r.at(0); (c == ' ' || c == '\n') && !r.eof(); c = r.at(0) {
			if c == ' ' {
				if !leading {
					spaces++
				}
				r.pos++
				continue
			}
			if leading {
				breaks++
			} else {
				spaces, leading, leadingBreak = 0, true, true
			}
			r.newline()
			if r.docIndicator() {
				return r.bail("a document indicator in a quoted scalar")
			}
		}
		switch {
		case leadingBreak && breaks == 0:
			r.buf = append(r.buf, ' ')
		case leading:
			for range breaks {
				r.buf = append(r.buf, '\n')
			}
		default:
			for range spaces {
				r.buf = append(r.buf, ' ')
			}
		}
	}
	r.pos++
	return nil
}

// escape reads the escape sequence at pos in a double-quoted scalar (go-yaml v2's set: no "\/").
func (r *streamReader) escape() error {
	var b byte
	n := 0
	named := rune(-1) // a character named by one letter, written as UTF-8
	switch r.at(1) {
	case '0':
		b = 0
	case 'a':
		b = '\a'
	case 'b':
		b = '\b'
	case 't':
		b = '\t'
	case 'n':
		b = '\n'
	case 'v':
		b = '\v'
	case 'f':
		b = '\f'
	case 'r':
		b = '\r'
	case 'e':
		b = 0x1b
	case ' ', '"', '\'', '\\':
		b = r.at(1)
	case 'N':
		named = 0x85
	case '_':
		named = 0xA0
	case 'L':
		named = 0x2028
	case 'P':
		named = 0x2029
	case 'x':
		n = 2
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return r.bail("an escape the streaming reader does not read")
	}
	if named >= 0 {
		r.buf = utf8.AppendRune(r.buf, named)
		r.pos += 2
		return nil
	}
	if n == 0 {
		r.buf = append(r.buf, b)
		r.pos += 2
		return nil
	}
	v := 0
	for k := 0; k < n; k++ {
		d := r.at(2 + k)
		switch {
		case '0' <= d && d <= '9':
			v = v<<4 + int(d-'0')
		case 'a' <= d && d <= 'f':
			v = v<<4 + int(d-'a'+10)
		case 'A' <= d && d <= 'F':
			v = v<<4 + int(d-'A'+10)
		default:
			return r.bail("an escape without its hexadecimal digits")
		}
	}
	if v >= 0xD800 && v <= 0xDFFF || v > 0x10FFFF {
		return r.bail("an escape of no character")
	}
	// go-yaml writes the code point's UTF-8 bytes; \x80 to \xFF are characters, not bytes.
	r.buf = utf8.AppendRune(r.buf, rune(v))
	r.pos += 2 + n
	return nil
}

// blockScalar reads a literal (|) or folded (>) scalar, in a block collection at column indent.
func (r *streamReader) blockScalar(indent int) error {
	line, col := r.line, r.charColumn()
	literal := r.at(0) == '|'
	r.pos++
	chomping, increment := 0, 0
	for range 2 {
		switch c := r.at(0); {
		case (c == '+' || c == '-') && chomping == 0:
			chomping = 1
			if c == '-' {
				chomping = -1
			}
			r.pos++
		case '1' <= c && c <= '9' && increment == 0:
			increment = int(c - '0')
			r.pos++
		}
	}
	r.skipSpaces()
	if r.at(0) == '#' {
		for r.at(0) != '\n' && !r.eof() {
			r.pos++
		}
	}
	if r.at(0) != '\n' && !r.eof() {
		return r.bail("a block scalar header the streaming reader does not read")
	}
	if !r.eof() {
		r.newline()
	}
	// The collection is at column indent; go-yaml's block indentation is that column.
	want := 0
	if increment > 0 {
		want = indent + increment
	}
	r.buf = r.buf[:0]
	breaks := 0 // trailing line breaks not yet written
	if err := r.blockBreaks(&want, indent, &breaks); err != nil {
		return err
	}
	leadingBreak, leadingBlank := false, false
	for r.column() == want && !r.eof() {
		trailingBlank := r.at(0) == ' ' || r.at(0) == '\t'
		if !literal && leadingBreak && !leadingBlank && !trailingBlank {
			if breaks == 0 {
				r.buf = append(r.buf, ' ')
			}
		} else if leadingBreak {
			r.buf = append(r.buf, '\n')
		}
		for ; breaks > 0; breaks-- {
			r.buf = append(r.buf, '\n')
		}
		leadingBlank = trailingBlank
		end := r.pos
		for end < len(r.src) && r.src[end] != '\n' {
			end++
		}
		r.buf = append(r.buf, r.src[r.pos:end]...)
		r.pos = end
		leadingBreak = false
		if !r.eof() {
			r.newline()
			leadingBreak = true
		}
		if err := r.blockBreaks(&want, indent, &breaks); err != nil {
			return err
		}
	}
	if chomping != -1 && leadingBreak {
		r.buf = append(r.buf, '\n')
	}
	if chomping == 1 {
		for ; breaks > 0; breaks-- {
			r.buf = append(r.buf, '\n')
		}
	}
	if err := r.emit(evScalar, line, col, r.buf, false); err != nil {
		return err
	}
	return r.settle()
}

// blockBreaks reads the indentation and empty lines before a block scalar's next line, and
// finds its indentation (*want) when not known yet, as go-yaml does.
func (r *streamReader) blockBreaks(want *int, indent int, breaks *int) error {
	maxIndent := 0
	for {
		for (*want == 0 || r.column() < *want) && r.at(0) == ' ' {
			r.pos++
		}
		maxIndent = max(maxIndent, r.column())
		if (*want == 0 || r.column() < *want) && r.at(0) == '\t' {
			return r.bail("a tab in a block scalar's indentation")
		}
		if r.at(0) != '\n' || r.eof() {
			break
		}
		r.newline()
		*breaks++
	}
	if *want == 0 {
		*want = max(maxIndent, indent+1, 1)
	}
	return nil
}

// flow reads a flow collection that ends on its line.
func (r *streamReader) flow() error {
	if err := r.push(); err != nil {
		return err
	}
	open := r.at(0)
	kind, end, closer := evSeqStart, evSeqEnd, byte(']')
	if open == '{' {
		kind, end, closer = evMapStart, evMapEnd, '}'
	}
	if err := r.emit(kind, r.line, r.charColumn(), nil, false); err != nil {
		return err
	}
	r.pos++
	for n := 0; ; n++ {
		r.skipSpaces()
		if r.at(0) == closer {
			if n > 0 {
				return r.bail("a flow collection that ends with ','")
			}
			break
		}
		if open == '{' {
			if err := r.flowKey(); err != nil {
				return err
			}
			r.skipSpaces()
			if c := r.at(0); c == ',' || c == '}' {
				if err := r.emit(evScalar, r.line, r.charColumn(), nil, true); err != nil {
					return err
				}
			} else if err := r.flowNode(); err != nil {
				return err
			}
		} else if err := r.flowNode(); err != nil {
			return err
		}
		r.skipSpaces()
		if r.at(0) == closer {
			break
		}
		if r.at(0) != ',' {
			return r.bail(fmt.Sprintf("%q in a flow collection", r.at(0)))
		}
		r.pos++
	}
	r.pos++
	r.depth--
	return r.emit(end, r.line, 0, nil, false)
}

// flowKey reads a key in a flow mapping and its ':'.
func (r *streamReader) flowKey() error {
	line, col := r.line, r.charColumn()
	plain := false
	switch r.at(0) {
	case '"', '\'':
		if err := r.quoted(); err != nil {
			return err
		}
		if r.line != line {
			return r.bail("a flow collection on more than one line")
		}
	default:
		if !r.plainStart(true) {
			return r.bail(fmt.Sprintf("a flow key that starts with %q", r.at(0)))
		}
		plain = true
		if err := r.plainLine(true); err != nil {
			return err
		}
	}
	r.skipSpaces()
	if r.at(0) != ':' || plain && !isBlankz(r.at(1)) {
		return r.bail("a flow key without ':'")
	}
	if string(r.buf) == "<<" {
		return r.bail("a merge key")
	}
	r.pos++
	return r.emit(evScalar, line, col, r.buf, plain)
}

// flowNode reads a node in a flow collection.
func (r *streamReader) flowNode() error {
	line, col := r.line, r.charColumn()
	switch r.at(0) {
	case '[', '{':
		return r.flow()
	case '"', '\'':
		if err := r.quoted(); err != nil {
			return err
		}
		if r.line != line {
			return r.bail("a flow collection on more than one line")
		}
		return r.emit(evScalar, line, col, r.buf, false)
	}
	if !r.plainStart(true) {
		return r.bail(fmt.Sprintf("a flow node that starts with %q", r.at(0)))
	}
	if err := r.plainLine(true); err != nil {
		return err
	}
	if c := r.at(0); c == '#' || c == '\n' || r.eof() {
		return r.bail("a flow collection on more than one line")
	}
	if r.at(0) == ':' {
		return r.bail("a pair in a flow sequence")
	}
	return r.emit(evScalar, line, col, r.buf, true)
}

// prescan finds what the streaming reader leaves to go-yaml anywhere in a document: tabs, CR,
// the line breaks and characters YAML reads otherwise than as text (NEL, LS, PS, BOM), the
// characters go-yaml refuses, directives and document markers.
func prescan(b []byte) error {
	line := 1
	atLineStart := true
	for i := 0; i < len(b); {
		c := b[i]
		if atLineStart && (c == '%' || (c == '-' || c == '.') && i+2 < len(b) && b[i+1] == c && b[i+2] == c && (i+3 == len(b) || isBlankz(b[i+3]))) {
			return &unsupported{line: line, what: "a directive or a document marker"}
		}
		atLineStart = false
		if c < 0x80 {
			switch {
			case c == '\n':
				line++
				atLineStart = true
			case c == '\t':
				// Read in block scalars only; anywhere else the reader stops at it.
			case c < 0x20 || c == 0x7f:
				return &unsupported{line: line, what: fmt.Sprintf("the control character %q", c)}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == 0x85, r == 0x2028, r == 0x2029, r == 0xFEFF,
			r < 0xA0, r >= 0xD800 && r < 0xE000, r == 0xFFFE, r == 0xFFFF, r == utf8.RuneError && size == 1:
			return &unsupported{line: line, what: fmt.Sprintf("the character %U", r)}
		}
		i += size
	}
	return nil
}
