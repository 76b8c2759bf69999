package manifest

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/maphash"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file turns the events of the streaming reader into JSON as sigs.k8s.io/yaml's
// YAMLToJSONStrict does (go-yaml v2 decodes into interface{} values, which are made JSON's):
// plain scalars resolved by go-yaml v2's YAML 1.1 rules (yes/no/on/off and y/n are booleans,
// 0777 octal, 0x and 0b ints, big ints as unsigned or floats, timestamps kept as written), keys
// converted to strings as sigs.k8s.io/yaml converts them, a repeated key refused. The JSON is
// written as the document is read, keys in the document's order (sigs.k8s.io/yaml sorts them;
// the values are the same).

// listItem is where one item of a List is, in the JSON and in the YAML.
type listItem struct {
	start, end int // in the JSON
	line, col  int // of the item's node
	dash       int // offset of the item's '-' in the YAML, -1 when it is in a flow sequence
	dashLine   int // the line of the '-' and where that line starts
	dashLS     int
}

type jsonFrame struct {
	isMap, expectKey bool
	n                int
	keys             int // index in jsonSink.keys of this mapping's first key
	items            bool
}

// keyRef is one key of an open mapping: 16 bytes a key, the most the reader keeps per node.
type keyRef struct {
	hash  uint64
	start uint32 // of the key's JSON string in out
	line  uint32
}

// jsonSink writes the JSON of one document.
type jsonSink struct {
	out   []byte
	stack []jsonFrame
	keys  []keyRef

	// The List items: entries of the root mapping's "items" sequence.
	items    []listItem
	dash     int
	dashLine int
	dashLS   int
	itemsKey bool // the last key of the root mapping is "items"

	dupLine int // the first repeated key, 0 when none
	dupKey  string
	key     []byte // scratch for a key's text
}

var keySeed = maphash.MakeSeed()

// yamlToJSON converts one YAML document with the streaming reader. An error that wraps
// errUnsupported says that the document holds something the reader leaves to go-yaml.
func yamlToJSON(src []byte) (j []byte, items []listItem, err error) {
	if err := prescan(src); err != nil {
		return nil, nil, err
	}
	// JSON is about as long as the YAML it comes from: grown by doubling, it would cost twice.
	s := &jsonSink{dash: -1, out: make([]byte, 0, len(src)+len(src)/8)}
	r := &streamReader{src: src, sink: s}
	if err := r.document(); err != nil {
		return nil, nil, err
	}
	if s.dupLine > 0 {
		return nil, nil, fmt.Errorf("unmarshal errors:\n  line %d: key %q already set in map", s.dupLine, s.dupKey)
	}
	if len(s.out) == 0 {
		return []byte("null"), nil, nil
	}
	return s.out, s.items, nil
}

func (s *jsonSink) entry(dash, line, lineStart int) error {
	s.dash, s.dashLine, s.dashLS = dash, line, lineStart
	return nil
}

func (s *jsonSink) top() *jsonFrame {
	if len(s.stack) == 0 {
		return nil
	}
	return &s.stack[len(s.stack)-1]
}

// beginValue writes what comes before a value and notes where a List item starts.
func (s *jsonSink) beginValue(e *event) {
	f := s.top()
	if f == nil || f.isMap {
		return
	}
	if f.n > 0 {
		s.out = append(s.out, ',')
	}
	if f.items {
		s.items = append(s.items, listItem{start: len(s.out), line: e.line, col: e.col, dash: s.dash, dashLine: s.dashLine, dashLS: s.dashLS})
	}
	s.dash = -1
}

// endValue notes that a value was written in the collection on top.
func (s *jsonSink) endValue() {
	f := s.top()
	if f == nil {
		return
	}
	if f.isMap {
		f.expectKey = true
		return
	}
	if f.items {
		s.items[len(s.items)-1].end = len(s.out)
	}
	f.n++
}

func (s *jsonSink) event(e *event) error {
	switch e.kind {
	case evMapStart, evSeqStart:
		items := len(s.stack) == 1 && s.itemsKey && e.kind == evSeqStart
		s.beginValue(e)
		if items && s.items == nil {
			s.items = []listItem{}
		}
		c := byte('[')
		if e.kind == evMapStart {
			c = '{'
		}
		s.out = append(s.out, c)
		s.stack = append(s.stack, jsonFrame{isMap: e.kind == evMapStart, expectKey: true, keys: len(s.keys), items: items})
		return nil
	case evMapEnd, evSeqEnd:
		f := s.top()
		if f.isMap {
			s.out = append(s.out, '}')
			s.checkKeys(s.keys[f.keys:])
			s.keys = s.keys[:f.keys]
		} else {
			s.out = append(s.out, ']')
		}
		s.stack = s.stack[:len(s.stack)-1]
		s.endValue()
		return nil
	}
	if f := s.top(); f != nil && f.isMap && f.expectKey {
		return s.writeKey(f, e)
	}
	s.beginValue(e)
	if err := s.writeScalar(e); err != nil {
		return err
	}
	s.endValue()
	return nil
}

// writeKey writes a mapping key, converted to a string as sigs.k8s.io/yaml converts go-yaml's
// keys.
func (s *jsonSink) writeKey(f *jsonFrame, e *event) error {
	k := e.value
	if e.plain {
		v := resolvePlain(e.value)
		switch v.kind {
		case kNull:
			return fmt.Errorf("line %d: unsupported map key of type: <nil>", e.line)
		case kUint:
			return fmt.Errorf("line %d: unsupported map key of type: uint64, key: 0x%x", e.line, v.u)
		case kFloat:
			return &unsupported{line: e.line, what: "a key that is a number with a fraction"}
		case kBool:
			k = strconv.AppendBool(s.key[:0], v.b)
		case kInt:
			k = strconv.AppendInt(s.key[:0], v.i, 10)
		}
	}
	if f.n > 0 {
		s.out = append(s.out, ',')
	}
	f.n++
	start := len(s.out)
	if start > math.MaxUint32 {
		return &unsupported{line: e.line, what: "a document of more than 4 GiB"}
	}
	s.out = appendJSONString(s.out, k)
	s.out = append(s.out, ':')
	s.keys = append(s.keys, keyRef{hash: maphash.Bytes(keySeed, k), start: uint32(start), line: uint32(e.line)})
	f.expectKey = false
	s.itemsKey = len(s.stack) == 1 && string(k) == "items"
	return nil
}

// checkKeys notes the first repeated key of one mapping.
func (s *jsonSink) checkKeys(keys []keyRef) {
	same := func(a, b keyRef) {
		if a.hash != b.hash {
			return
		}
		ka, kb := jsonStringAt(s.out, int(a.start)), jsonStringAt(s.out, int(b.start))
		if !bytes.Equal(ka, kb) {
			return
		}
		line := int(max(a.line, b.line))
		if s.dupLine == 0 || line < s.dupLine {
			s.dupLine = line
			if k, err := strconv.Unquote(string(ka)); err == nil {
				s.dupKey = k
			} else {
				s.dupKey = string(ka)
			}
		}
	}
	if len(keys) <= 16 {
		for i := range keys {
			for j := range i {
				same(keys[j], keys[i])
			}
		}
		return
	}
	// By hash, then text: a repeated key is next to its twin.
	slices.SortFunc(keys, func(a, b keyRef) int {
		if c := cmp.Compare(a.hash, b.hash); c != 0 {
			return c
		}
		return bytes.Compare(jsonStringAt(s.out, int(a.start)), jsonStringAt(s.out, int(b.start)))
	})
	for i := 1; i < len(keys); i++ {
		same(keys[i-1], keys[i])
	}
}

// jsonStringAt returns the JSON string that starts at out[start], quotes included.
func jsonStringAt(out []byte, start int) []byte {
	for i := start + 1; i < len(out); i++ {
		switch out[i] {
		case '\\':
			i++
		case '"':
			return out[start : i+1]
		}
	}
	return out[start:]
}

func (s *jsonSink) writeScalar(e *event) error {
	if !e.plain {
		s.out = appendJSONString(s.out, e.value)
		return nil
	}
	v := resolvePlain(e.value)
	switch v.kind {
	case kNull:
		s.out = append(s.out, "null"...)
	case kBool:
		s.out = strconv.AppendBool(s.out, v.b)
	case kInt:
		s.out = strconv.AppendInt(s.out, v.i, 10)
	case kUint:
		s.out = strconv.AppendUint(s.out, v.u, 10)
	case kFloat:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return fmt.Errorf("line %d: json: unsupported value: %s", e.line, strconv.FormatFloat(v.f, 'g', -1, 64))
		}
		s.out = appendJSONFloat(s.out, v.f)
	default:
		s.out = appendJSONString(s.out, e.value)
	}
	return nil
}

// appendJSONFloat writes f as encoding/json does.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 is written 1e-7.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s, valid UTF-8, as a JSON string.
func appendJSONString(b, s []byte) []byte {
	b = append(b, '"')
	start := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

type scalarKind uint8

const (
	kString scalarKind = iota
	kNull
	kBool
	kInt
	kUint
	kFloat
)

type resolved struct {
	kind scalarKind
	b    bool
	i    int64
	u    uint64
	f    float64
}

// yamlStyleFloat is the float syntax go-yaml v2 reads besides its named values.
var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// resolvePlain resolves an untagged plain scalar as go-yaml v2 does for an interface{} value.
func resolvePlain(b []byte) resolved {
	if len(b) == 0 {
		return resolved{kind: kNull}
	}
	switch c := b[0]; {
	case c == '+' || c == '-' || '0' <= c && c <= '9' || c == '.':
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
	default:
		return resolved{}
	}
	s := string(b)
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return resolved{kind: kBool, b: true}
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return resolved{kind: kBool}
	case "~", "null", "Null", "NULL":
		return resolved{kind: kNull}
	case ".nan", ".NaN", ".NAN":
		return resolved{kind: kFloat, f: math.NaN()}
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return resolved{kind: kFloat, f: math.Inf(1)}
	case "-.inf", "-.Inf", "-.INF":
		return resolved{kind: kFloat, f: math.Inf(-1)}
	}
	switch c := s[0]; {
	case c == '.':
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return resolved{kind: kFloat, f: f}
		}
	case c == '+' || c == '-' || '0' <= c && c <= '9':
		if isTimestamp(s) {
			return resolved{} // kept as written
		}
		plain := strings.ReplaceAll(s, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return resolved{kind: kInt, i: i}
		}
		if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return resolved{kind: kUint, u: u}
		}
		if yamlStyleFloat.MatchString(plain) {
			if f, err := strconv.ParseFloat(plain, 64); err == nil {
				return resolved{kind: kFloat, f: f}
			}
		}
		if rest, ok := strings.CutPrefix(plain, "0b"); ok {
			if i, err := strconv.ParseInt(rest, 2, 64); err == nil {
				return resolved{kind: kInt, i: i}
			}
			if u, err := strconv.ParseUint(rest, 2, 64); err == nil {
				return resolved{kind: kUint, u: u}
			}
		} else if rest, ok := strings.CutPrefix(plain, "-0b"); ok {
			if i, err := strconv.ParseInt("-"+rest, 2, 64); err == nil {
				return resolved{kind: kInt, i: i}
			}
		}
	}
	return resolved{}
}

// timestampFormats are the layouts go-yaml v2 reads a timestamp in.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// isTimestamp reports whether go-yaml v2 reads s as a timestamp (which it gives an interface{}
// value as the string written).
func isTimestamp(s string) bool {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, f := range timestampFormats {
		if _, err := time.Parse(f, s); err == nil {
			return true
		}
	}
	return false
}
