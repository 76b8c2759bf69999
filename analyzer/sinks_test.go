package analyzer

import (
	"reflect"
	"testing"

	"github.com/kriguard/kriguard/naming"
)

func TestParseSinks(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    configuredSinks
		wantErr bool
	}{
		{name: "empty", in: "", want: configuredSinks{}},
		{name: "function", in: "github.com/x/y.F:1", want: configuredSinks{"github.com/x/y.F": {1}}},
		{name: "method and spaces", in: " github.com/x/y.T.M:0 , github.com/x/y.T.M:2", want: configuredSinks{"github.com/x/y.T.M": {0, 2}}},
		{name: "dotted path", in: "gopkg.in/a.v1.F:0", want: configuredSinks{"gopkg.in/a.v1.F": {0}}},
		{name: "no index", in: "github.com/x/y.F", wantErr: true},
		{name: "bad index", in: "github.com/x/y.F:x", wantErr: true},
		{name: "negative index", in: "github.com/x/y.F:-1", wantErr: true},
		{name: "no function", in: "github.com/x/y:1", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSinks(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("parseSinks(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("parseSinks(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseTypes(t *testing.T) {
	r, err := parseTypes("MeshWidget:mw:Mesh, GlobalThing:gt:Global")
	if err != nil {
		t.Fatal(err)
	}
	if rt, ok := r.ByShortName("mw"); !ok || rt.Scope != naming.ScopeMesh {
		t.Errorf("mw: %v %v", rt, ok)
	}
	if _, ok := r.ByShortName("msvc"); !ok {
		t.Error("the default types are gone")
	}
	if _, ok := naming.Default.ByShortName("mw"); ok {
		t.Error("the default registry was changed")
	}
	for _, bad := range []string{"mw:Mesh", "MeshWidget:mw:Sometimes", "MeshService:mw:Mesh", "Mesh Widget:mw:Mesh"} {
		if _, err := parseTypes(bad); err == nil {
			t.Errorf("parseTypes(%q): no error", bad)
		}
	}
}

func TestConfiguredSinksInPackage(t *testing.T) {
	c := configuredSinks{"github.com/x/y.T.M": {0}, "gopkg.in/a.v1.F": {0}}
	for path, want := range map[string]bool{
		"github.com/x/y":  true,
		"github.com/x":    false,
		"github.com/x/yy": false,
		"gopkg.in/a.v1":   true,
	} {
		if got := c.inPackage(path); got != want {
			t.Errorf("inPackage(%q) = %v, want %v", path, got, want)
		}
	}
}

func FuzzParseSinks(f *testing.F) {
	for _, s := range []string{"", "github.com/x/y.F:1", "a.b:0,c/d.T.M:2", ":", "x.:", "/.:9", "a/b.c:99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseSinks(s)
		if err != nil {
			return
		}
		for key, idx := range c {
			if key == "" || len(idx) == 0 {
				t.Fatalf("parseSinks(%q) accepted an empty entry %q: %v", s, key, idx)
			}
			for _, i := range idx {
				if i < 0 {
					t.Fatalf("parseSinks(%q) accepted negative index %d", s, i)
				}
			}
			c.inPackage(key)
		}
	})
}

func TestBadFlagsStopTheRun(t *testing.T) {
	for name, set := range map[string]func(){
		"sinks": func() { flagSinks = "github.com/x/y.F" },
		"types": func() { flagTypes = "MeshWidget:mw" },
	} {
		t.Run(name, func(t *testing.T) {
			oldSinks, oldTypes := flagSinks, flagTypes
			defer func() { flagSinks, flagTypes = oldSinks, oldTypes }()
			set()
			if err := currentConfig().err; err == nil {
				t.Fatal("no error")
			}
		})
	}
}
