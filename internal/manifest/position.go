package manifest

import (
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// tree is the text of one document, parsed into YAML nodes (which hold the line and column of
// every key and value) the first time a position is asked for: only documents with findings pay
// for it. JSON is YAML's flow style, so JSON documents are parsed alike.
type tree struct {
	text      []byte
	line, col int // where text starts in its source
	parsed    bool
	root      *yamlv3.Node
}

// node returns the document's root, nil when the text does not parse.
func (t *tree) node() *yamlv3.Node {
	if !t.parsed {
		t.parsed = true
		var doc yamlv3.Node
		if yamlv3.Unmarshal(t.text, &doc) == nil && doc.Kind == yamlv3.DocumentNode && len(doc.Content) == 1 {
			t.root = doc.Content[0]
		}
		t.text = nil
	}
	return t.root
}

// at turns a node's position in text into one in the source.
func (t *tree) at(n *yamlv3.Node) (line, column int) {
	if n.Line == 1 {
		return t.line, t.col + n.Column - 1
	}
	return t.line + n.Line - 1, n.Column
}

// locator finds the fields of one object, the root of a tree or an item of a List in it.
type locator struct {
	t *tree
	// item is the index of the object in the List's items, -1 for the root.
	item int
	// line and column are where the object starts, when the tree cannot say.
	line, column int
}

// locate returns the line and column of the field at path (a field path as the rules print it:
// spec.to[0].targetRef.sectionName, metadata.labels[kuma.io/mesh]): of its key in a mapping, of
// the item in a sequence. A field the text does not hold (a name the mutating webhook gives, a
// path cut for its length) is placed at the closest field above it that it holds; "" is the
// object itself.
func (l *locator) locate(path string) (line, column int) {
	n := l.t.node()
	if n == nil {
		return l.line, l.column
	}
	if l.item >= 0 {
		items := mapValue(n, "items")
		if items == nil || items.Kind != yamlv3.SequenceNode || l.item >= len(items.Content) {
			return l.line, l.column
		}
		n = items.Content[l.item]
	}
	at := n
	for path != "" && n != nil {
		n = resolveAlias(n)
		var next, key *yamlv3.Node
		before := len(path)
		switch {
		case strings.HasPrefix(path, "["):
			next, key, path = step(n, path, true)
		default:
			path = strings.TrimPrefix(path, ".")
			next, key, path = step(n, path, false)
		}
		// Every step takes some of path: an empty key cannot loop through an alias forever.
		if next == nil || len(path) >= before {
			break
		}
		if key != nil {
			at = key
		} else {
			at = next
		}
		n = next
	}
	return l.t.at(at)
}

// step follows the first element of path from n: a name (up to '.' or '['), or an index or a key
// in brackets. A key may itself hold '.', '[' or ']': the longest key of n that path starts with
// and ends where an element may end is taken. It returns the node reached, its key node when n
// is a mapping, and the rest of path; a nil node when n has no such element.
func step(n *yamlv3.Node, path string, bracket bool) (next, key *yamlv3.Node, rest string) {
	switch n.Kind {
	case yamlv3.SequenceNode:
		if !bracket {
			return nil, nil, path
		}
		end := strings.IndexByte(path, ']')
		if end < 0 {
			return nil, nil, path
		}
		i, err := strconv.Atoi(path[1:end])
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil, nil, path
		}
		return n.Content[i], nil, path[end+1:]
	case yamlv3.MappingNode:
		best := -1
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			r, ok := "", false
			if bracket {
				r, ok = strings.CutPrefix(path, "["+k+"]")
			} else {
				r, ok = strings.CutPrefix(path, k)
			}
			if ok && (r == "" || r[0] == '.' || r[0] == '[') && (best < 0 || len(k) > len(n.Content[best].Value)) {
				best, rest = i, r
			}
		}
		if best < 0 {
			return nil, nil, path
		}
		return n.Content[best+1], n.Content[best], rest
	}
	return nil, nil, path
}

func resolveAlias(n *yamlv3.Node) *yamlv3.Node {
	for i := 0; n.Kind == yamlv3.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// mapValue returns the value of key in the mapping n, or nil.
func mapValue(n *yamlv3.Node, key string) *yamlv3.Node {
	if n.Kind != yamlv3.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
