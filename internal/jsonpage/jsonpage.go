// Package jsonpage splits a page of a paginated list, a JSON object with an array of items, into
// its items without copying or decoding them: audit's listings (the Kubernetes API's LIST and Kuma's
// REST API) hand each item to a decoder that reads only what the rules need (docs/performance.md).
package jsonpage

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Split checks that page is valid JSON, as encoding/json does, and returns the elements of its
// member named itemsKey, each the bytes of page it spans, appended to dst[:0]. It calls member, when
// not nil, with each other member's key and value, in order; an error of member ends the split.
//
// Keys match as encoding/json matches a struct's fields: without regard to case, the last of a
// repeated member winning. A page that is null has no items; an items member that is null has
// none; one that is not an array is an error.
func Split(dst [][]byte, page []byte, itemsKey string, member func(key string, value []byte) error) ([][]byte, error) {
	dst = dst[:0]
	if !json.Valid(page) {
		// encoding/json says what is wrong, as it did when it decoded the whole page.
		var v any
		if err := json.Unmarshal(page, &v); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("invalid JSON") // unreachable: Valid and Unmarshal agree
	}
	i := skipSpace(page, 0)
	switch page[i] {
	case 'n':
		return dst, nil
	case '{':
	default:
		return nil, fmt.Errorf("the page is a JSON %s, not an object", kindOf(page[i]))
	}
	i++
	for {
		i = skipSpace(page, i)
		if page[i] == '}' {
			return dst, nil
		}
		if page[i] == ',' {
			i = skipSpace(page, i+1)
		}
		end := skipString(page, i)
		key := string(page[i+1 : end-1])
		if strings.IndexByte(key, '\\') >= 0 {
			if err := json.Unmarshal(page[i:end], &key); err != nil {
				return nil, err
			}
		}
		i = skipSpace(page, skipSpace(page, end)+1) // past the ':'
		vend := skipValue(page, i)
		v := page[i:vend]
		i = vend
		if !Is(key, itemsKey) {
			if member != nil {
				if err := member(key, v); err != nil {
					return nil, err
				}
			}
			continue
		}
		dst = dst[:0]
		switch v[0] {
		case 'n':
			continue
		case '[':
		default:
			return nil, fmt.Errorf("%s is a JSON %s, not an array", itemsKey, kindOf(v[0]))
		}
		for j := skipSpace(v, 1); v[j] != ']'; {
			e := skipValue(v, j)
			dst = append(dst, v[j:e])
			if j = skipSpace(v, e); v[j] == ',' {
				j = skipSpace(v, j+1)
			}
		}
	}
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

// The skips below read valid JSON only: Split checks the page first.

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index past the string whose opening quote is at b[i].
func skipString(b []byte, i int) int {
	for i++; ; i++ {
		for !stringStop[b[i]] {
			i++
		}
		if b[i] == '"' {
			return i + 1
		}
		i++ // an escape: \" is not the end
	}
}

// stringStop and nestStop are the bytes that end a run of skipped bytes in a string, and in an
// object or array.
var stringStop, nestStop [256]bool

func init() {
	for _, c := range `"\` {
		stringStop[c] = true
	}
	for _, c := range `"{}[]` {
		nestStop[c] = true
	}
}

// skipValue returns the index past the value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for {
			for !nestStop[b[i]] {
				i++
			}
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			default: // '}', ']'
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}
