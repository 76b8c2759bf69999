// Package jsonpage splits a page of a paginated list, a JSON object with an array of items, into
// its items without copying or decoding them: audit's listings (the Kubernetes API's LIST and Kuma's
// REST API) hand each item to a decoder that reads only what the rules need (docs/performance.md).
package jsonpage

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
		return nil, errors.New("invalid JSON") // unreachable: Valid is held to encoding/json's
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
	v := validator{b: page}
	v.space()
	if v.i < len(page) && page[v.i] != '{' {
		if !Valid(page) {
			return nil, nil, errSyntax
		}
		if page[v.i] == 'n' {
			return dst, nil, nil
		}
		return nil, nil, fmt.Errorf("the page is a JSON %s, not an object", kindOf(page[v.i]))
	}
	if v.i >= len(page) {
		return nil, nil, errSyntax
	}
	var (
		members []keyValue
		shape   error
	)
	v.enter()
	v.i++
	v.space()
	for v.i < len(page) && page[v.i] != '}' {
		ks := v.i
		if page[ks] != '"' || !v.str() {
			return nil, nil, errSyntax
		}
		key := string(page[ks+1 : v.i-1])
		if strings.IndexByte(key, '\\') >= 0 {
			if err := json.Unmarshal(page[ks:v.i], &key); err != nil {
				return nil, nil, errSyntax
			}
		}
		v.space()
		if v.i >= len(page) || page[v.i] != ':' {
			return nil, nil, errSyntax
		}
		v.i++
		v.space()
		vs := v.i
		switch {
		case !Is(key, itemsKey):
			if !v.value() {
				return nil, nil, errSyntax
			}
			members = append(members, keyValue{key, page[vs:v.i]})
		case vs < len(page) && page[vs] == '[':
			dst = dst[:0]
			if !v.elements(func(e []byte) { dst = append(dst, e) }) {
				return nil, nil, errSyntax
			}
		default:
			if !v.value() {
				return nil, nil, errSyntax
			}
			if page[vs] == 'n' {
				dst = dst[:0]
			} else if shape == nil {
				shape = fmt.Errorf("%s is a JSON %s, not an array", itemsKey, kindOf(page[vs]))
			}
		}
		v.space()
		if v.i < len(page) && page[v.i] == ',' {
			v.i++
			v.space()
			if v.i < len(page) && page[v.i] == '}' {
				return nil, nil, errSyntax // a trailing comma
			}
		} else if v.i >= len(page) || page[v.i] != '}' {
			return nil, nil, errSyntax
		}
	}
	if v.i >= len(page) {
		return nil, nil, errSyntax
	}
	v.i++
	v.space()
	if v.i != len(page) {
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
