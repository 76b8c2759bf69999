package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseExample(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       example
		wantErr    bool
	}{
		{
			name: "created",
			data: "# expect: created\napiVersion: kuma.io/v1alpha1\nkind: Mesh\nmetadata:\n  name: demo\n",
			want: example{name: "demo", expect: expectation{created: true}},
		},
		{
			name: "created as, generateName",
			data: "#expect:   created as t-abc\nkind: MeshTimeout\nmetadata:\n  generateName: t-\n  namespace: ns\n",
			want: example{generateName: "t-", namespace: "ns", expect: expectation{created: true, as: "t-abc"}},
		},
		{
			name: "rejected",
			data: "# A comment first.\n# expect: rejected\nkind: Mesh\nmetadata:\n  name: bad\n",
			want: example{name: "bad", expect: expectation{}},
		},
		{name: "no expectation", data: "kind: Mesh\nmetadata:\n  name: demo\n", wantErr: true},
		{name: "unknown outcome", data: "# expect: ignored\nkind: Mesh\nmetadata:\n  name: demo\n", wantErr: true},
		{name: "two expectations", data: "# expect: created\n# expect: rejected\nkind: Mesh\nmetadata:\n  name: demo\n", wantErr: true},
		{name: "two objects", data: "# expect: created\nkind: Mesh\nmetadata:\n  name: a\n---\nkind: Mesh\nmetadata:\n  name: b\n", wantErr: true},
		{name: "no name", data: "# expect: created\nkind: Mesh\nmetadata: {}\n", wantErr: true},
		{name: "not YAML", data: "# expect: created\n\tkind: [\n", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseExample([]byte(tc.data))
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestExamples checks that every file of examples/ states its expectation and holds one object.
func TestExamples(t *testing.T) {
	exs, err := readExamples(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) < 8 {
		t.Errorf("%d examples, want at least 8", len(exs))
	}
}

func FuzzParseExample(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("# expect: created as\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ex, err := parseExample(data)
		if err == nil && ex.name == "" && ex.generateName == "" {
			t.Errorf("accepted an example without a name: %q", data)
		}
	})
}
