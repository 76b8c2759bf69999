package fix

import (
	"bytes"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// lineEdits are edits of a document's text, line by line (1-based lines of the chunk). ok turns
// false when an edit could not be expressed as whole lines; the document is then written from its
// tree.
type lineEdits struct {
	ok      bool
	before  map[int][]string // lines inserted before a line
	replace map[int][]string // a line's replacement; empty deletes it
}

func newLineEdits() *lineEdits {
	return &lineEdits{ok: true, before: map[int][]string{}, replace: map[int][]string{}}
}

func (e *lineEdits) insertBefore(line int, lines ...string) {
	e.before[line] = append(e.before[line], lines...)
}

func (e *lineEdits) replaceLine(line int, lines ...string) {
	if _, dup := e.replace[line]; dup {
		e.ok = false
		return
	}
	e.replace[line] = lines
}

func (e *lineEdits) deleteLine(line int) { e.replaceLine(line) }

// apply returns text with the edits made. New lines end as the line they replace or precede.
func (e *lineEdits) apply(text []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(text) + 256)
	lines := bytes.SplitAfter(text, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		n := i + 1
		eol := "\n"
		if bytes.HasSuffix(l, []byte("\r\n")) {
			eol = "\r\n"
		}
		for _, s := range e.before[n] {
			b.WriteString(s)
			b.WriteString(eol)
		}
		r, replaced := e.replace[n]
		if !replaced {
			b.Write(l)
			continue
		}
		for j, s := range r {
			b.WriteString(s)
			if j < len(r)-1 || bytes.HasSuffix(l, []byte("\n")) {
				b.WriteString(eol)
			}
		}
	}
	return b.Bytes()
}

// lineOf returns line n (1-based) of text without its line ending, and whether text has it.
func lineOf(text []byte, n int) (string, bool) {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(text, '\n')
		if j < 0 {
			return "", false
		}
		text = text[j+1:]
	}
	if j := bytes.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return strings.TrimSuffix(string(text), "\r"), true
}

// entryLine reports whether the mapping entry k: v sits alone on one line of text that a line
// edit can replace: the mapping is in block style, v is a one-line scalar, and what comes before
// the key on its line is indentation and sequence dashes only. It returns that prefix.
func entryLine(text []byte, m, k, v *yaml.Node) (prefix string, ok bool) {
	if m.Style&yaml.FlowStyle != 0 || k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
		return "", false
	}
	if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || v.Line != k.Line || strings.ContainsAny(v.Value, "\n\r") {
		return "", false
	}
	return linePrefix(text, k)
}

// linePrefix returns what comes before node n on its line, when that is indentation and
// sequence dashes only.
func linePrefix(text []byte, n *yaml.Node) (string, bool) {
	l, ok := lineOf(text, n.Line)
	if !ok || n.Column < 1 || n.Column-1 > len(l) {
		return "", false
	}
	p := l[:n.Column-1]
	if strings.Trim(p, " -") != "" {
		return "", false
	}
	return p, true
}

// indentOf is a prefix as spaces only: the indentation of the lines after a "- " line.
func indentOf(prefix string) string { return strings.Repeat(" ", len(prefix)) }

// scalarText is how a new string scalar with the value and quoting style of like is written.
func scalarText(value string, like *yaml.Node) string {
	n := newString(value, like)
	s, err := yaml.String(n, yaml.Trim)
	if err != nil || strings.ContainsAny(s, "\n\r") {
		return "" // cannot happen for a one-line string; the splice check would reject it
	}
	return s
}

// newString is a string scalar node with value, quoted as like when like is quoted.
func newString(value string, like *yaml.Node) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	if like != nil {
		n.Style = like.Style & (yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle)
	}
	return n
}

// withComment appends the line comment of the first node that has one.
func withComment(line string, nodes ...*yaml.Node) string {
	for _, n := range nodes {
		if n != nil && n.LineComment != "" {
			return line + " " + n.LineComment
		}
	}
	return line
}
