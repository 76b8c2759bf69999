package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// validSeeds are inputs at the edges of JSON's syntax, valid and not.
var validSeeds = []string{
	`1`, `-0.5e+3`, `"a\u00e9\n"`, `[]`, `{}`, `[{},[],""]`, `{"a":[1,{"b":null}]}`, ` true `,
	`{"a":[1,-0.5e+3,true,false,null,"\u00e9\n\"",{}]}`, ` [ ] `, `"\ud800"`, "\"\xff\"", "\"\x1f\"", "\t\n\r 0 ",
	`01`, `1.`, `-`, `1e`, `.5`, `[1,]`, `{"a"}`, `{"a" 1}`, `{"a":1,}`, `{,}`, `{1:2}`, `["\x"]`, `"\u12g4"`,
	"\"\x01\"", `[}`, `{]`, `nul`, `truex`, `"`, `[`, `{"a":`, `1 2`, ``, ` `,
	strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
	strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
	strings.Repeat(`{"a":`, MaxDepth-1) + "{}" + strings.Repeat("}", MaxDepth-1),
	strings.Repeat(`{"a":`, MaxDepth) + "{}" + strings.Repeat("}", MaxDepth),
}

// FuzzValid holds Valid to encoding/json.Valid: it takes exactly the inputs that are one JSON
// value, nesting limit included.
func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}

// TestValidDepth: encoding/json's nesting bound, 10,000.
func TestValidDepth(t *testing.T) {
	for _, depth := range []int{MaxDepth, MaxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			closing := map[string]string{"[": "]", `{"a":`: "}"}[open]
			b := []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(closing, depth))
			if got, want := Valid(b), json.Valid(b); got != want || got != (depth <= MaxDepth) {
				t.Errorf("%d deep %s: Valid %v, encoding/json %v", depth, open, got, want)
			}
		}
	}
}

// values counts the values of v, decoded by encoding/json, containers and the values in them.
func values(v any) int64 {
	n := int64(1)
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			n += values(e)
		}
	case []any:
		for _, e := range v {
			n += values(e)
		}
	}
	return n
}

// TestCount: each value once, a container that follows a comma too.
func TestCount(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{`{}`, 1},
		{`[]`, 1},
		{`[{}]`, 2},
		{`[{},{},{}]`, 4},
		{`[ {} , {} ]`, 3},
		{`{"a":1,"b":[1,2,{"c":[]}]}`, 7},
		{`{"a,b:":"[{,"}`, 2},
		{`"x"`, 1},
		{`[[],[[]]]`, 4},
		{`{"a":{"b":{}}}`, 3},
	} {
		got, ok := Count([]byte(tt.in))
		if got != tt.want || !ok {
			t.Errorf("Count(%s) = %d, %v, want %d, true", tt.in, got, ok, tt.want)
		}
	}
	// Not JSON: no panic, not valid, the values before the error.
	for in, want := range map[string]int64{`]]]}},,[{"\`: 0, `[1,2,x]`: 3, `[1,2,3]]`: 4} {
		if got, ok := Count([]byte(in)); got != want || ok {
			t.Errorf("Count(%s) = %d, %v, want %d, false", in, got, ok, want)
		}
	}
}

// FuzzCount holds Count to the values encoding/json decodes: as many of a valid input, valid
// exactly when encoding/json says so.
func FuzzCount(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, ok := Count(b)
		if want := json.Valid(b); ok != want {
			t.Fatalf("Count(%q) says valid %v, encoding/json %v", b, ok, want)
		}
		if !ok {
			return
		}
		// json.Number: a number beyond float64's range is valid JSON that Unmarshal refuses.
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if want := values(v); n != want && !hasRepeatedKeys(b) {
			t.Fatalf("Count(%q) = %d, encoding/json decodes %d values", b, n, want)
		}
	})
}

// hasRepeatedKeys reports whether an object of b repeats a key: encoding/json keeps the last one,
// and decodes fewer values than b holds.
func hasRepeatedKeys(b []byte) bool {
	var s Scanner
	s.Reset(b)
	repeated := false
	var walk func() bool
	walk = func() bool {
		switch c, _ := s.Peek(); c {
		case '{':
			seen := map[string]bool{}
			return s.Object(true, func(lit []byte) bool {
				k, ok := s.Unquote(lit)
				repeated = repeated || seen[k]
				seen[k] = true
				return ok && walk()
			})
		case '[':
			return s.Array(walk)
		}
		_, ok := s.Value()
		return ok
	}
	walk()
	return repeated
}

// TestObjectArray reads members and elements through the callbacks, with their spans, and refuses
// what Valid refuses.
func TestObjectArray(t *testing.T) {
	var s Scanner
	s.Reset([]byte(` { "a" : [ 1 , "x" ] , "b\u0063" : null } `))
	var got []string
	ok := s.Object(true, func(lit []byte) bool {
		k, ok := s.Unquote(lit)
		got = append(got, k)
		if !ok {
			return false
		}
		if k == "a" {
			return s.Array(func() bool {
				v, ok := s.Value()
				got = append(got, string(v))
				return ok
			})
		}
		return s.Literal("null")
	})
	if !ok || !s.End() {
		t.Fatalf("read %q, ok %v", got, ok)
	}
	if want := []string{"a", "1", `"x"`, "bc"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("read %q, want %q", got, want)
	}
	s.Reset([]byte(`{"b\u0063":1}`))
	if s.Object(false, func([]byte) bool { _, ok := s.Value(); return ok }) {
		t.Error("an escaped key was taken without escapedKeys")
	}
	for _, in := range []string{`{"a":1,}`, `[1,]`, `{"a":1 "b":2}`, `[1 2]`, `{"a"}`, `[`, `{`} {
		s.Reset([]byte(in))
		each := func() bool { _, ok := s.Value(); return ok }
		if s.Object(true, func([]byte) bool { return each() }) || s.Array(each) {
			t.Errorf("%s taken", in)
		}
	}
}

// TestFirstKeyNextKey reads members in a loop of FirstKey and NextKey, nested objects so too, and
// refuses what Valid refuses.
func TestFirstKeyNextKey(t *testing.T) {
	var s Scanner
	s.Reset([]byte(` { "a" : { "x" : 1 , "y" : { } } , "b\u0063" : null , "d":[] } `))
	var got []string
	var read func() bool
	read = func() bool {
		key, ok := s.FirstKey()
		for ; ok && key != nil; key, ok = s.NextKey() {
			k, ok := s.Unquote(key)
			if s.Escaped() {
				k += " escaped"
			}
			got = append(got, k)
			if c, _ := s.Peek(); c == '{' {
				ok = ok && read()
			} else {
				_, ok2 := s.Value()
				ok = ok && ok2
			}
			if !ok {
				return false
			}
		}
		got = append(got, "}")
		return ok
	}
	if ok := read(); !ok || !s.End() {
		t.Fatalf("read %q, ok %v", got, ok)
	}
	if want := "a x y } } bc escaped d }"; strings.Join(got, " ") != want {
		t.Errorf("read %q, want %q", strings.Join(got, " "), want)
	}
	for _, in := range []string{`{"a":1,}`, `{"a":1 "b":2}`, `{"a"}`, `{"a" 1}`, `{,}`, `{1:2}`, `{`, `{"a":1`, `[]`, `null`, ``} {
		s.Reset([]byte(in))
		key, ok := s.FirstKey()
		for ; ok && key != nil; key, ok = s.NextKey() {
			_, ok = s.Value()
			if !ok {
				break
			}
		}
		if ok {
			t.Errorf("%s taken", in)
		}
	}
}

// objectBefore is Object as it was before it was a loop of FirstKey and NextKey, which
// FuzzFirstKeyNextKey holds them to.
func (s *Scanner) objectBefore(escapedKeys bool, member func(key []byte) bool) bool {
	s.space()
	if s.i >= len(s.data) || s.data[s.i] != '{' || !s.open('{') {
		return false
	}
	if s.Next('}') {
		s.close()
		return true
	}
	for {
		k, ok := s.key()
		if !ok || s.escaped && !escapedKeys || !member(k) {
			return false
		}
		if s.i < len(s.data) && s.data[s.i] == ',' {
			s.i++
			continue
		}
		if closed, ok := s.separator('}'); !ok || closed {
			return ok
		}
	}
}

// FuzzFirstKeyNextKey holds the loop of FirstKey and NextKey, and Object, to Object as it was
// (objectBefore), on any input: the same keys, each escaped or not, the same outcome, position,
// values and end; and to Valid.
func FuzzFirstKeyNextKey(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(` { "a" : { "x" : 1 , "y" : { } } , "b\u0063" : null , "d":[{"e":[]}] } `))
	f.Add([]byte(`{"a":{"b":1,}}`))
	f.Add([]byte(`{"a":{"b":1 ,"c" :2 } ,"d"  :3}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		type outcome struct {
			keys       []string
			ok, end    bool
			pos        int
			values     int64
			depth, ddp int
		}
		walk := func(how int) outcome {
			var s Scanner
			s.Reset(b)
			var keys []string
			var value func() bool
			member := func(key []byte) bool {
				keys = append(keys, string(key)+strings.Repeat("!", btoi(s.Escaped())))
				return value()
			}
			value = func() bool {
				switch c, _ := s.Peek(); c {
				case '{':
					switch how {
					case 1:
						return s.Object(true, member)
					case 2:
						return s.objectBefore(true, member)
					}
					key, ok := s.FirstKey()
					for ; ok && key != nil; key, ok = s.NextKey() {
						if !member(key) {
							return false
						}
					}
					return ok
				case '[':
					return s.Array(value)
				}
				_, ok := s.Value()
				return ok
			}
			ok := value()
			o := outcome{keys: keys, ok: ok, pos: s.Pos(), values: s.values, depth: s.depth, ddp: len(s.deep)}
			o.end = ok && s.End()
			return o
		}
		want := walk(2)
		for how, name := range []string{"FirstKey and NextKey", "Object"} {
			got := walk(how)
			if !slices.Equal(got.keys, want.keys) || got.ok != want.ok || got.end != want.end || got.pos != want.pos ||
				got.values != want.values || got.depth != want.depth || got.ddp != want.ddp {
				t.Fatalf("%q: %s read %+v, Object as it was %+v", b, name, got, want)
			}
		}
		got := want
		if got.end != Valid(b) {
			t.Fatalf("%q: read %v, Valid %v", b, got.end, !got.end)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkValid compares Valid with encoding/json.Valid on a list page of 500 objects.
func BenchmarkValid(b *testing.B) {
	var page strings.Builder
	page.WriteString(`{"apiVersion":"kuma.io/v1alpha1","items":[`)
	for i := range 500 {
		if i > 0 {
			page.WriteByte(',')
		}
		page.WriteString(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"creationTimestamp":"2026-11-25T23:21:57Z","generation":1,"labels":{"kuma.io/mesh":"default"},"name":"obj-` + strings.Repeat("7", i%5+1) + `","namespace":"bench-0","resourceVersion":"417","uid":"46ab4601-ee29-4734-9d62-3c4d25433dc3"},"spec":{"targetRef":{"kind":"Mesh"},"to":[{"targetRef":{"kind":"MeshService","name":"backend"},"default":{"idleTimeout":"20s"}}]}}`)
	}
	page.WriteString(`],"kind":"MeshTimeoutList","metadata":{"continue":"abc","resourceVersion":"9"}}`)
	data := []byte(page.String())
	b.SetBytes(int64(len(data)))
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			json.Valid(data)
		}
	})
	b.Run("jsonscan", func(b *testing.B) {
		for b.Loop() {
			Valid(data)
		}
	})
	b.Run("count", func(b *testing.B) {
		for b.Loop() {
			Count(data)
		}
	})
}

// FuzzValueStrings holds ValueStrings to Value (the same span, the same answer) and to
// encoding/json: of valid JSON it passes every string, keys and values, in order, each key with
// the scanner at its value, and says which literals hold an escape.
func FuzzValueStrings(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a\"b":["c\u0064",{"e":null,"f":"g"}],"h":"\/"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var plain, each Scanner
		plain.Reset(data)
		each.Reset(data)
		want, wantOK := plain.Value()
		var lits []string
		badPeek := false
		var ahead []byte // StringAhead at the last key, the literal of its value
		aheadFailed := false
		got, ok := each.ValueStrings(nil, func(lit []byte, key bool) bool {
			if ahead != nil && string(ahead) != string(lit) {
				t.Fatalf("%q: StringAhead read %s, the next string is %s", data, ahead, lit)
			}
			ahead = nil
			if key {
				// Peek shows the first byte of the key's value.
				if c, ok := each.Peek(); !ok || strings.IndexByte(`"{[tfn-0123456789`, c) < 0 {
					badPeek = true
				}
				pos, escaped := each.Pos(), each.Escaped()
				lit, ok := each.StringAhead()
				if c, _ := each.Peek(); c == '"' && ok {
					ahead = lit
				} else if c == '"' {
					aheadFailed = true // the string is not one: nor is the value
				} else if ok {
					t.Fatalf("%q: StringAhead read %s before %q", data, lit, c)
				}
				if each.Pos() != pos || each.Escaped() != escaped {
					t.Fatalf("%q: StringAhead moved the scanner", data)
				}
			}
			if each.Escaped() != strings.Contains(string(lit), `\`) {
				t.Errorf("%s: Escaped %v", lit, each.Escaped())
			}
			lits = append(lits, string(lit))
			return true
		})
		if ok != wantOK || string(got) != string(want) || each.Pos() != plain.Pos() && ok {
			t.Fatalf("ValueStrings(%q) = %q, %v; Value %q, %v", data, got, ok, want, wantOK)
		}
		if ok && aheadFailed {
			t.Fatalf("%q: StringAhead refused a string of valid JSON", data)
		}
		// With a set of every other string passed (and what shares its length modulo 64, its
		// first byte and the hash of its ends with one), it passes those and the strings with
		// an escape, in the same order.
		var set Strings
		var wantLits []string
		for i, lit := range lits {
			in := lit[1 : len(lit)-1]
			if i%2 == 0 && len(in) > 0 && len(in) < 64 {
				set.Add(in)
			}
		}
		for _, lit := range lits {
			in := lit[1 : len(lit)-1]
			n := len(in) % 64
			if strings.Contains(lit, `\`) || len(in) > 0 && set.first[in[0]]&(1<<n) != 0 && set.ends[in[0]^in[len(in)-1]<<1]&(1<<n) != 0 {
				wantLits = append(wantLits, lit)
			}
		}
		var filtered Scanner
		filtered.Reset(data)
		var gotLits []string
		if got, ok := filtered.ValueStrings(&set, func(lit []byte, key bool) bool {
			gotLits = append(gotLits, string(lit))
			return true
		}); ok != wantOK || string(got) != string(want) {
			t.Fatalf("ValueStrings(%q) with a set = %q, %v; Value %q, %v", data, got, ok, want, wantOK)
		}
		if ok && !slices.Equal(gotLits, wantLits) {
			t.Fatalf("ValueStrings(%q) with a set passed %q, want %q", data, gotLits, wantLits)
		}
		if !ok || !json.Valid(want) {
			return
		}
		if badPeek {
			t.Fatalf("%q: a key's value does not start where the scanner is", data)
		}
		// The strings of want in order, as encoding/json's tokens give them.
		d := json.NewDecoder(strings.NewReader(string(want)))
		var n int
		for {
			tok, err := d.Token()
			if err != nil {
				break
			}
			s, isString := tok.(string)
			if !isString {
				continue
			}
			if n >= len(lits) {
				t.Fatalf("%q: ValueStrings passed %d strings, more in the JSON", data, len(lits))
			}
			var lit string
			if json.Unmarshal([]byte(lits[n]), &lit) != nil || lit != s {
				t.Fatalf("%q: string %d is %s, encoding/json reads %q", data, n, lits[n], s)
			}
			n++
		}
		if n != len(lits) {
			t.Fatalf("%q: ValueStrings passed %d strings, encoding/json %d", data, len(lits), n)
		}
	})
}

// TestPlainRun8 holds plainRun8, the eight-byte step of the string loops, to strPlain, byte by byte,
// and asciiMask to strPlain and ASCII: every byte at every position among plain bytes of either
// half of the byte range, and random words.
func TestPlainRun8(t *testing.T) {
	want := func(w [8]byte) int {
		for i, c := range w {
			if !strPlain[c] {
				return i
			}
		}
		return 8
	}
	wantASCII := func(w [8]byte) int {
		for i, c := range w {
			if !strPlain[c] || c >= 0x80 {
				return i
			}
		}
		return 8
	}
	check := func(w [8]byte) {
		if got := plainRun8(binary.LittleEndian.Uint64(w[:])); got != want(w) {
			t.Fatalf("plainRun8(%q) = %d, want %d", w[:], got, want(w))
		}
		if got := bits.TrailingZeros64(asciiMask(binary.LittleEndian.Uint64(w[:]))) >> 3; got != wantASCII(w) {
			t.Fatalf("asciiMask(%q) flags byte %d first, want %d", w[:], got, wantASCII(w))
		}
	}
	for _, fill := range []byte{'a', 0x20, 0x7f, 0x80, 0xff, '"' + 1, '\\' + 1} {
		for pos := range 8 {
			for c := range 256 {
				var w [8]byte
				for i := range w {
					w[i] = fill
				}
				w[pos] = byte(c)
				check(w)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], r.Uint64())
		check(w)
		// Mostly plain words, a special byte or two at random places.
		for i := range w {
			w[i] = byte(0x20 + r.IntN(0xe0))
		}
		check(w)
	}
}

// TestKnown: String asks Known only of a literal that needs no decoding, and takes its answer;
// the others are decoded as without it.
func TestKnown(t *testing.T) {
	kept := "kuma.io/mesh"
	var asked []string
	s := &Scanner{Known: func(in []byte) (string, bool) {
		asked = append(asked, string(in))
		if string(in) == kept {
			return kept, true
		}
		return "", false
	}}
	for _, c := range []struct {
		in, want string
		asks     bool
	}{
		{`"kuma.io/mesh"`, "kuma.io/mesh", true},
		{`"other"`, "other", true},
		{`"kuma.io\/mesh"`, "kuma.io/mesh", false},
		{"\"kuma\xff\"", "kuma\uFFFD", false},
	} {
		asked = asked[:0]
		s.Reset([]byte(c.in))
		got, ok := s.String()
		if !ok || got != c.want || (len(asked) > 0) != c.asks {
			t.Errorf("String of %s = %q, %v (Known asked %q), want %q, Known asked: %v", c.in, got, ok, asked, c.want, c.asks)
		}
	}
}

// stringEndBytes is stringEnd a byte at a time, as the grammar reads a string: what FuzzStringEnd
// holds stringEnd's eight-byte steps to.
func stringEndBytes(b []byte, i int) (end int, escaped, ascii bool) {
	ascii = true
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, ascii
		case c < 0x20:
			return -1, escaped, false
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return -1, escaped, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1, escaped, false
				}
				i += 5
			default:
				return -1, escaped, false
			}
		case c >= 0x80:
			ascii = false
		}
	}
	return -1, escaped, false
}

// FuzzStringEnd holds stringEnd to stringEndBytes at every quote of the input: the same end,
// escape and ASCII answers (ASCII only of a string that ends), and String to encoding/json.
func FuzzStringEnd(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`"0123456789abcdef\"0123456789\u00e9abc" "é" "ab\u0000" "\\"`))
	f.Add([]byte("\"01234567\x80\"\"0123456\x1f\"\"01234567890\xff\""))
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range b {
			if b[i] != '"' {
				continue
			}
			end, escaped, ascii := stringEnd(b, i)
			wantEnd, wantEscaped, wantASCII := stringEndBytes(b, i)
			if end != wantEnd || escaped != wantEscaped || end >= 0 && ascii != wantASCII {
				t.Fatalf("stringEnd(%q, %d) = %d, %v, %v; byte by byte %d, %v, %v", b, i, end, escaped, ascii, wantEnd, wantEscaped, wantASCII)
			}
			var s Scanner
			s.Reset(b[i:])
			got, ok := s.String()
			var want string
			err := errors.New("not a string")
			if end >= 0 {
				err = json.Unmarshal(b[i:end], &want)
			}
			if ok != (err == nil) || ok && got != want {
				t.Fatalf("String of %q = %q, %v; encoding/json %q, %v", b[i:], got, ok, want, err)
			}
			// StringOr reads as String, expecting the string or another.
			at, escaped := s.Pos(), s.Escaped()
			for _, or := range []string{got, got + "x", "", string(b[i+1 : max(i+1, end-1)])} {
				var o Scanner
				o.Reset(b[i:])
				v, ok := o.StringOr(or)
				if v != got || ok != (err == nil) || o.Pos() != at || o.Escaped() != escaped {
					t.Fatalf("StringOr(%q) of %q = %q, %v at %d, escaped %v; String %q, %v at %d, escaped %v",
						or, b[i:], v, ok, o.Pos(), o.Escaped(), got, err == nil, at, escaped)
				}
			}
		}
	})
}

// FuzzObjectStrings holds the reading of an object through Object, Unquote of each key and String
// of each string value to encoding/json's tokens: the same keys and strings, in order.
func FuzzObjectStrings(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":"b","c\u0064":"\u00e9","é":"ü","k":1,"x":{"y":"z"},"0123456789":"0123456789"}`))
	f.Add([]byte("{\"\xff\":\"\xfe\",\"a\xc3\xa9\":\"\xc3\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var s Scanner
		s.Reset(b)
		if c, _ := s.Peek(); c != '{' {
			return
		}
		var got []string
		member := func(lit []byte) bool {
			k, ok := s.Unquote(lit)
			got = append(got, k)
			if c, _ := s.Peek(); c == '"' {
				v, ok2 := s.String()
				got = append(got, v)
				return ok && ok2
			}
			_, ok2 := s.Value()
			return ok && ok2
		}
		ok := s.Object(true, member)
		if !ok || !s.End() {
			t.Fatalf("%q: not read", b)
		}
		// The same through FirstKey and NextKey.
		s.Reset(b)
		object := got
		got = nil
		key, ok := s.FirstKey()
		for ; ok && key != nil; key, ok = s.NextKey() {
			ok = member(key)
			if !ok {
				break
			}
		}
		if !ok || !s.End() {
			t.Fatalf("%q: not read by FirstKey and NextKey", b)
		}
		if !slices.Equal(got, object) {
			t.Fatalf("%q: FirstKey and NextKey read %q, Object %q", b, got, object)
		}
		// The keys and string values of the object's own members, from encoding/json's tokens.
		var want []string
		d := json.NewDecoder(bytes.NewReader(b))
		depth := 0
		for {
			tok, err := d.Token()
			if err != nil {
				break
			}
			switch tok := tok.(type) {
			case json.Delim:
				if tok == '{' || tok == '[' {
					depth++
				} else {
					depth--
				}
			case string:
				if depth == 1 {
					want = append(want, tok)
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q: read %q, encoding/json %q", b, got, want)
		}
	})
}
