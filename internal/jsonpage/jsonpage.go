// Package jsonpage splits a page of a paginated list, a JSON object with an array of items, into
// its items without copying or decoding them: audit's listings (the Kubernetes API's LIST and Kuma's
// REST API) hand each item to a decoder that reads only what the rules need (docs/performance.md).
package jsonpage

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kriguard/kriguard/internal/jsonscan"
)

// Split checks that page is valid JSON, as encoding/json does, and returns the elements of its
// member named itemsKey, each the bytes of page it spans, appended to dst[:0]. It then calls
// member, when not nil, with each other member's key and value, in order; an error of member ends
// the split. It reads page once.
//
// Keys match as encoding/json matches a struct's fields: without regard to case, the last of a
// repeated member winning. A page that is null has no items; an items member that is null has
// none; one that is not an array is an error.
func Split(dst [][]byte, page []byte, itemsKey string, member func(key string, value []byte) error) ([][]byte, error) {
	dst, members, err := split(dst[:0], page, itemsKey)
	if err == errSyntax {
		// encoding/json says what is wrong, as it did when it decoded the whole page.
		var v any
		if err := json.Unmarshal(page, &v); err != nil {
			return nil, err
		}
		return nil, errors.New("invalid JSON") // unreachable: jsonscan is held to encoding/json's
	}
	if err != nil {
		return nil, err
	}
	if member != nil {
		for _, m := range members {
			if err := member(m.key, m.value); err != nil {
				return nil, err
			}
		}
	}
	return dst, nil
}

// errSyntax is an error of split's for a page that is not valid JSON.
var errSyntax = errors.New("syntax")

type keyValue struct {
	key   string
	value []byte
}

// split validates page, an object or null, in one pass, and returns the elements of its itemsKey
// member and its other members. A page that is valid JSON of another shape is an error other than
// errSyntax, as a type error of encoding/json's comes after its syntax errors.
func split(dst [][]byte, page []byte, itemsKey string) ([][]byte, []keyValue, error) {
	var s jsonscan.Scanner
	s.Reset(page)
	if c, ok := s.Peek(); !ok {
		return nil, nil, errSyntax
	} else if c != '{' {
		if !jsonscan.Valid(page) {
			return nil, nil, errSyntax
		}
		if c == 'n' {
			return dst, nil, nil
		}
		return nil, nil, fmt.Errorf("the page is a JSON %s, not an object", kindOf(c))
	}
	var (
		members []keyValue
		shape   error
	)
	element := func() bool {
		e, ok := s.Value()
		dst = append(dst, e)
		return ok
	}
	ok := s.Object(true, func(lit []byte) bool {
		key := string(lit[1 : len(lit)-1])
		if s.Escaped() && json.Unmarshal(lit, &key) != nil {
			return false
		}
		c, _ := s.Peek()
		switch {
		case !Is(key, itemsKey):
			v, ok := s.Value()
			members = append(members, keyValue{key, v})
			return ok
		case c == '[':
			dst = dst[:0]
			return s.Array(element)
		}
		v, ok := s.Value()
		if ok && c == 'n' {
			dst = dst[:0]
		} else if ok && shape == nil {
			shape = fmt.Errorf("%s is a JSON %s, not an array", itemsKey, kindOf(v[0]))
		}
		return ok
	})
	if !ok || !s.End() {
		return nil, nil, errSyntax
	}
	if shape != nil {
		return nil, nil, shape
	}
	return dst, members, nil
}

// Is reports whether key names the member name as encoding/json matches a key to a struct's
// field: without regard to case (its folding is strings.EqualFold's).
func Is(key, name string) bool { return strings.EqualFold(key, name) }

// Member decodes a member's value, as encoding/json decodes that of a struct's field.
func Member(key string, value []byte, v any) error {
	if err := json.Unmarshal(value, v); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

func kindOf(c byte) string {
	switch c {
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case '{':
		return "object"
	}
	return "number"
}
