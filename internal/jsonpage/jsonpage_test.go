package jsonpage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// reference decodes page as audit's listings did before Split: encoding/json into a struct with
// the items left raw.
func reference(page []byte) (items []json.RawMessage, cont string, err error) {
	var l struct {
		Metadata struct {
			Continue string `json:"continue"`
		} `json:"metadata"`
		Items []json.RawMessage `json:"items"`
	}
	err = json.Unmarshal(page, &l)
	return l.Items, l.Metadata.Continue, err
}

// splitKube reads page as audit's listing of the Kubernetes API does with Split.
func splitKube(page []byte) (items [][]byte, cont string, err error) {
	var meta struct {
		Continue string `json:"continue"`
	}
	items, err = Split(nil, page, "items", func(key string, value []byte) error {
		if Is(key, "metadata") {
			return Member(key, value, &meta)
		}
		return nil
	})
	return items, meta.Continue, err
}

func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		name, page string
		items      []string
		cont       string
		err        string
	}{
		{"a page", `{"apiVersion":"v1","items":[{"a":1},{"b":"]}"}],"kind":"List","metadata":{"continue":"tok"}}`, []string{`{"a":1}`, `{"b":"]}"}`}, "tok", ""},
		{"space everywhere", " \n{ \"items\" : [ {\"a\" : [1, 2]} ,\t\"x\\\"]\" , 3.5e2 , null , true ] } \r\n", []string{`{"a" : [1, 2]}`, `"x\"]"`, `3.5e2`, `null`, `true`}, "", ""},
		{"items first, metadata last", `{"items":[{}],"metadata":{"continue":""}}`, []string{`{}`}, "", ""},
		{"no items", `{"metadata":{"continue":"x"}}`, nil, "x", ""},
		{"empty items", `{"items":[]}`, nil, "", ""},
		{"null items", `{"items":null}`, nil, "", ""},
		{"null page", `null`, nil, "", ""},
		{"a key in another case", `{"ITEMS":[1],"Metadata":{"Continue":"c"}}`, []string{`1`}, "c", ""},
		{"an escaped key", `{"\u0069tems":[2]}`, []string{`2`}, "", ""},
		{"the last items win", `{"items":[1,2],"items":[3]}`, []string{`3`}, "", ""},
		{"escaped quotes and backslashes", `{"items":["\\",{"k\\\"":"\\\""}]}`, []string{`"\\"`, `{"k\\\"":"\\\""}`}, "", ""},
		{"invalid JSON", `{"items":[{"a":1}{"b":2}]}`, nil, "", "invalid character '{' after array element"},
		{"truncated", `{"items":[{"a":1}`, nil, "", "unexpected end of JSON input"},
		{"trailing data", `{"items":[]} x`, nil, "", "invalid character 'x' after top-level value"},
		{"not an object", `[1]`, nil, "", "not an object"},
		{"items not an array", `{"items":{"a":1}}`, nil, "", "not an array"},
		{"a continue not a string", `{"metadata":{"continue":1}}`, nil, "", "cannot unmarshal number"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			items, cont, err := splitKube([]byte(tt.page))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range items {
				got = append(got, string(it))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.items) || len(got) != len(tt.items) || cont != tt.cont {
				t.Errorf("items %q, continue %q; want %q, %q", got, cont, tt.items, tt.cont)
			}
		})
	}
}

// TestSplitItemsAliasPage: items are the page's bytes, not copies.
func TestSplitItemsAliasPage(t *testing.T) {
	page := []byte(`{"items":[{"a":1}]}`)
	items, err := Split(nil, page, "items", nil)
	if err != nil || len(items) != 1 {
		t.Fatalf("%q, %v", items, err)
	}
	page[12] = 'b'
	if string(items[0]) != `{"b":1}` {
		t.Errorf("item %s does not share the page's bytes", items[0])
	}
}

func TestSplitMemberError(t *testing.T) {
	stop := errors.New("stop")
	_, err := Split(nil, []byte(`{"total":1,"items":[]}`), "items", func(string, []byte) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("error %v, want the member's", err)
	}
}

// FuzzSplit holds Split to encoding/json's decoding of the same page into raw items: the same
// items, byte for byte, the same continue token, an error for the same pages.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		`{"items":[{"a":1},"s",2,null],"metadata":{"continue":"t"}}`, `null`, `{"Items":[]}`, `{"items":{}}`,
		`{"items":[1] , "items" : null}`, `{"\u0049tems":["\u005d"]}`, `[{"items":[]}]`, `{"metadata":null}`,
		"{\"items\":[\"\\\\\"]}", `{"ıtems":[1],"ſ":2,"K":3}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, page []byte) {
		want, wantCont, wantErr := reference(page)
		got, gotCont, err := splitKube(page)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, encoding/json's %v", err, wantErr)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) || gotCont != wantCont {
			t.Fatalf("%d items, continue %q; encoding/json: %d, %q", len(got), gotCont, len(want), wantCont)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("item %d: %s, encoding/json's %s", i, got[i], want[i])
			}
		}
	})
}

func BenchmarkSplit(b *testing.B) {
	var page bytes.Buffer
	page.WriteString(`{"apiVersion":"kuma.io/v1alpha1","items":[`)
	for i := range 500 {
		if i > 0 {
			page.WriteByte(',')
		}
		fmt.Fprintf(&page, `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"creationTimestamp":"2026-11-25T23:21:57Z","generation":1,"labels":{"kuma.io/mesh":"default"},"name":"obj-%d","namespace":"bench-0","resourceVersion":"417","uid":"46ab4601-ee29-4734-9d62-3c4d25433dc3"},"spec":{"targetRef":{"kind":"Mesh"},"to":[{"targetRef":{"kind":"MeshService","name":"backend"},"default":{"idleTimeout":"20s"}}]}}`, i)
	}
	page.WriteString(`],"kind":"MeshTimeoutList","metadata":{"continue":"abc","resourceVersion":"9"}}`)
	b.SetBytes(int64(page.Len()))
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := reference(page.Bytes()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("split", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := splitKube(page.Bytes()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
