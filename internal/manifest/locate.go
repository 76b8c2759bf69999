package manifest

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// positioner finds the fields of one object.
type positioner interface {
	locate(path string) (line, column int)
}

// errFound stops a read once a path is placed.
var errFound = errors.New("found")

type pos struct{ line, col int }

// matcher places one field path (spec.to[0].targetRef.sectionName, metadata.labels[kuma.io/mesh])
// in a stream of events, holding only the containers on the way: at its key in a mapping, at its
// item in a sequence; a field the object does not hold at the closest field above it. A key may
// hold '.', '[' or ']': of the keys of a mapping that the path starts with (ending where a step
// may end), the longest is followed.
type matcher struct {
	path   string
	frames []mframe
	skip   int // depth inside a subtree that is not on the way
	root   pos
	begun  bool
	result pos
	done   bool
}

type mframe struct {
	isMap     bool
	path      string // what is left of the path at this container
	expectKey bool
	// The entry being read: whether it is on the way, what is left after it and its place.
	on   bool
	rest string
	at   pos
	kl   int // its key's length
	// The best entry so far.
	found bool
	best  pos
	bestL int
	index int // of the next item of a sequence
	want  int // the item a sequence's step names, -1 for none
}

func (m *matcher) entry(int, int, int) error { return nil }

func (m *matcher) event(e *event) error {
	p := pos{e.line, e.col}
	if m.skip > 0 {
		switch e.kind {
		case evMapStart, evSeqStart:
			m.skip++
		case evMapEnd, evSeqEnd:
			m.skip--
			if m.skip == 0 {
				m.valueDone(false, pos{})
			}
		}
		return nil
	}
	if !m.begun {
		m.begun, m.root = true, p
		if m.path == "" || e.kind == evScalar {
			m.result, m.done = p, true
			return errFound
		}
		m.push(e.kind == evMapStart, m.path)
		return nil
	}
	f := &m.frames[len(m.frames)-1]
	switch e.kind {
	case evMapEnd, evSeqEnd:
		found, best := f.found, f.best
		m.frames = m.frames[:len(m.frames)-1]
		if len(m.frames) == 0 {
			m.result, m.done = m.root, true
			if found {
				m.result = best
			}
			return errFound
		}
		m.valueDone(found, best)
		return nil
	}
	if f.isMap && f.expectKey {
		f.expectKey = false
		f.on = false
		k := e.value
		rest, ok := cutKey(f.path, k)
		if ok && (rest == "" || rest[0] == '.' || rest[0] == '[') && (!f.found || len(k) > f.bestL) {
			f.on, f.rest, f.at, f.kl = true, rest, p, len(k)
		}
		return nil
	}
	if !f.isMap {
		i := f.index
		f.index++
		f.on = false
		if i == f.want {
			end := strings.IndexByte(f.path, ']')
			f.on, f.rest, f.at, f.kl = true, f.path[end+1:], p, 0
		}
	}
	// A value.
	if !f.on || f.rest == "" {
		if e.kind == evScalar {
			m.valueDone(false, pos{})
		} else {
			m.skip = 1
		}
		return nil
	}
	if e.kind == evScalar {
		m.valueDone(false, pos{})
		return nil
	}
	m.push(e.kind == evMapStart, f.rest)
	return nil
}

// cutKey takes the step of key k off path: "[k]" or, after an optional '.', "k".
func cutKey(path string, k []byte) (rest string, ok bool) {
	if strings.HasPrefix(path, "[") {
		if len(path) >= len(k)+2 && path[1:1+len(k)] == string(k) && path[1+len(k)] == ']' {
			return path[len(k)+2:], true
		}
		return path, false
	}
	path = strings.TrimPrefix(path, ".")
	if len(path) >= len(k) && path[:len(k)] == string(k) {
		return path[len(k):], true
	}
	return path, false
}

func (m *matcher) push(isMap bool, path string) {
	f := mframe{isMap: isMap, path: path, expectKey: true, want: -1}
	if !isMap && strings.HasPrefix(path, "[") {
		if end := strings.IndexByte(path, ']'); end > 0 {
			if i, err := strconv.Atoi(path[1:end]); err == nil && i >= 0 {
				f.want = i
			}
		}
	}
	m.frames = append(m.frames, f)
}

// valueDone closes the value of the entry on top: found says that the path went further inside
// it, to best.
func (m *matcher) valueDone(found bool, best pos) {
	f := &m.frames[len(m.frames)-1]
	if f.isMap {
		f.expectKey = true
	}
	if !f.on {
		return
	}
	f.on = false
	at := f.at
	if found {
		at = best
	}
	if !f.found || f.kl > f.bestL {
		f.found, f.best, f.bestL = true, at, f.kl
	}
}

// streamPositioner places fields by reading the object's YAML again with the streaming reader:
// the whole document, or one List item from its '-'.
type streamPositioner struct {
	src          []byte
	startLine    int // of src in its source
	item         bool
	dash, line   int // the item's '-', its line in src and the start of that line
	ls           int
	fallbackLine int // where the object starts, when nothing else is known
	fallbackCol  int
}

func (s *streamPositioner) locate(path string) (line, column int) {
	m := &matcher{path: path}
	r := &streamReader{src: s.src, sink: m}
	var err error
	if s.item {
		r.pos, r.line, r.ls = s.dash+1, s.line, s.ls
		err = r.value(s.dash-s.ls, true)
	} else {
		err = r.document()
	}
	if !m.done && (err == nil || err == errFound) && m.begun {
		m.result, m.done = m.root, true
	}
	if !m.done {
		return s.fallbackLine, s.fallbackCol
	}
	return s.startLine + m.result.line - 1, m.result.col
}

// jsonPositioner places fields in a JSON value's text, which starts at line and col of its
// source.
type jsonPositioner struct {
	text      []byte
	line, col int
}

func (j *jsonPositioner) locate(path string) (line, column int) {
	m := &matcher{path: path}
	if err := jsonEvents(j.text, m); err != nil && err != errFound || !m.done {
		return j.line, j.col
	}
	if m.result.line == 1 {
		return j.line, j.col + m.result.col - 1
	}
	return j.line + m.result.line - 1, m.result.col
}

// jsonEvents hands s the events of the valid JSON text b.
func jsonEvents(b []byte, s sink) error {
	line := 1
	colPos, col := 0, 1 // the last column counted, at colPos on the line
	var e event
	var stack []bool // whether each open container is an object
	expectKey := false
	for i := 0; i < len(b); {
		c := b[i]
		switch c {
		case '\n':
			line++
			i++
			colPos, col = i, 1
			continue
		case ' ', '\t', '\r', ',', ':':
			i++
			continue
		}
		col += utf8.RuneCount(b[colPos:i])
		colPos = i
		e = event{line: line, col: col}
		switch c {
		case '{', '[':
			e.kind = evSeqStart
			if c == '{' {
				e.kind = evMapStart
			}
			stack = append(stack, c == '{')
			expectKey = c == '{'
			i++
		case '}', ']':
			e.kind = evSeqEnd
			if c == '}' {
				e.kind = evMapEnd
			}
			stack = stack[:len(stack)-1]
			i++
		default:
			e.kind = evScalar
			end := i + 1
			if c == '"' {
				for end < len(b) && b[end] != '"' {
					if b[end] == '\\' {
						end++
					}
					end++
				}
				end++
				raw := b[i:end]
				if expectKey {
					if k, err := strconv.Unquote(string(raw)); err == nil && strings.IndexByte(string(raw), '\\') >= 0 {
						e.value = []byte(k)
					} else {
						e.value = raw[1 : len(raw)-1]
					}
				}
			} else {
				for end < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[end])) {
					end++
				}
			}
			i = end
		}
		wasKey := expectKey && e.kind == evScalar
		if err := s.event(&e); err != nil {
			return err
		}
		switch {
		case wasKey:
			expectKey = false
		case e.kind != evMapStart && len(stack) > 0:
			expectKey = stack[len(stack)-1]
		}
	}
	return nil
}

// jsonItems returns where each item of the "items" array of the JSON object j is; ok is false
// when j has no such array. j must be valid JSON.
func jsonItems(j []byte) (items [][2]int, ok bool) {
	i := skipSpace(j, 0)
	if i >= len(j) || j[i] != '{' {
		return nil, false
	}
	i++
	for {
		i = skipSpace(j, i)
		if i >= len(j) || j[i] != '"' {
			return nil, false
		}
		kEnd := skipJSON(j, i)
		key := j[i:kEnd]
		i = skipSpace(j, kEnd)
		i = skipSpace(j, i+1) // ':'
		isItems := string(key) == `"items"`
		if !isItems && strings.IndexByte(string(key), '\\') >= 0 {
			k, err := strconv.Unquote(string(key))
			isItems = err == nil && k == "items"
		}
		if isItems {
			if i >= len(j) || j[i] != '[' {
				return nil, false
			}
			i = skipSpace(j, i+1)
			for i < len(j) && j[i] != ']' {
				end := skipJSON(j, i)
				items = append(items, [2]int{i, end})
				i = skipSpace(j, end)
				if i < len(j) && j[i] == ',' {
					i = skipSpace(j, i+1)
				}
			}
			return items, true
		}
		i = skipSpace(j, skipJSON(j, i))
		if i >= len(j) || j[i] != ',' {
			return nil, false
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipJSON returns the end of the valid JSON value at b[i].
func skipJSON(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		default:
			for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
				i++
			}
		}
		if depth == 0 {
			return i
		}
		for depth > 0 && i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n' || b[i] == ',' || b[i] == ':') {
			i++
		}
	}
	return i
}
