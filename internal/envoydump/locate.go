package envoydump

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// Position is where a value is written in a JSON document: its 1-based line, and its column in
// Unicode code points.
type Position struct {
	Line, Column int
}

// Locate finds paths, written as Name.Path writes them, in the config dump r: the position of
// each one's key ("name": …), or of the element for an item of a list. A path the document does
// not hold (a dump written with camelCase field names, say) is left out of the map. r is read
// twice, from its start: once for the offsets of the paths, once to turn them into lines and
// columns; memory is that of the paths and of the nesting, not of the document.
func Locate(r io.ReadSeeker, paths []string) (map[string]Position, error) {
	if len(paths) == 0 {
		return map[string]Position{}, nil
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	targets, err := offsets(bufio.NewReaderSize(r, 64<<10), paths)
	if err != nil {
		return nil, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return positions(bufio.NewReaderSize(r, 64<<10), targets)
}

// target is a path found at a byte offset: the end of the token before it, so that what lies
// between (white space, ',' and ':') is to be skipped.
type target struct {
	offset int64
	path   string
}

// frame is a container of the document being read.
type frame struct {
	path  string
	array bool
	n     int  // items of an array read so far
	key   bool // an object's next token is a key
}

// offsets reads the document for the offsets of paths.
func offsets(r io.Reader, paths []string) ([]target, error) {
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	dec := json.NewDecoder(r)
	var (
		stack   []frame
		targets []target
		pending string // the path of the value that follows a key
	)
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			if len(stack) > 0 {
				return nil, fmt.Errorf("locating names: %w", io.ErrUnexpectedEOF)
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("locating names: %w", err)
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		path := ""
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			switch {
			case top.array:
				path = top.path + "[" + strconv.Itoa(top.n) + "]"
				top.n++
				if want[path] {
					targets = append(targets, target{off, path})
				}
			case top.key:
				k, ok := tok.(string)
				if !ok {
					return nil, errors.New("locating names: an object key that is not a string")
				}
				// A message field is "parent.field", a map entry "parent[key]".
				pending = join(top.path, k)
				for _, p := range []string{pending, top.path + "[" + k + "]"} {
					if want[p] {
						targets = append(targets, target{off, p})
					}
				}
				top.key = false
				continue
			default:
				path = pending
				top.key = true
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{path: path, key: true})
		case json.Delim('['):
			stack = append(stack, frame{path: path, array: true})
		}
	}
	slices.SortStableFunc(targets, func(a, b target) int {
		switch {
		case a.offset < b.offset:
			return -1
		case a.offset > b.offset:
			return 1
		}
		return 0
	})
	return targets, nil
}

// positions reads the document again and places each target at the first byte after its offset
// that is not white space, ',' or ':'.
func positions(r *bufio.Reader, targets []target) (map[string]Position, error) {
	out := make(map[string]Position, len(targets))
	line, col := 1, 1
	var off int64
	for len(targets) > 0 {
		c, err := r.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if off >= targets[0].offset {
			switch c {
			case ' ', '\t', '\r', '\n', ',', ':':
			default:
				for len(targets) > 0 && targets[0].offset <= off {
					out[targets[0].path] = Position{Line: line, Column: col}
					targets = targets[1:]
				}
			}
		}
		switch {
		case c == '\n':
			line, col = line+1, 1
		case c&0xC0 != 0x80: // the first byte of a code point
			col++
		}
		off++
	}
	return out, nil
}
