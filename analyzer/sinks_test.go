package analyzer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kriguard/kriguard/naming"
)

func TestParseSink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    SinkSpec
		wantErr string
	}{
		{in: "github.com/x/y.F:1", want: SinkSpec{Func: "github.com/x/y.F", Arg: 1}},
		{in: "github.com/x/y.T.M:0", want: SinkSpec{Func: "github.com/x/y.T.M", Arg: 0}},
		{in: "gopkg.in/a.v1.F:0", want: SinkSpec{Func: "gopkg.in/a.v1.F", Arg: 0}},
		{in: "github.com/x/y.F", wantErr: "want pkgpath.Func:argIndex"},
		{in: "github.com/x/y.F:x", wantErr: "must be a non-negative integer"},
		{in: "github.com/x/y.F:-1", wantErr: "must be a non-negative integer"},
		{in: "github.com/x/y:1", wantErr: "want pkgpath.Func:argIndex"},
		{in: "github.com/x/y.:1", wantErr: "want pkgpath.Func:argIndex"},
		{in: "a.F:1,b.G:2", wantErr: "must not contain ','"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSink(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseSink(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseSink(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestParseTypes(t *testing.T) {
	t.Parallel()
	rts, err := ParseTypes("MeshWidget:mw:Mesh, GlobalThing:gt:Global")
	if err != nil {
		t.Fatal(err)
	}
	want := []naming.ResourceType{{Kind: "MeshWidget", ShortName: "mw", Scope: naming.ScopeMesh}, {Kind: "GlobalThing", ShortName: "gt", Scope: naming.ScopeGlobal}}
	if !reflect.DeepEqual(rts, want) {
		t.Fatalf("ParseTypes = %v, want %v", rts, want)
	}
	cfg, err := Options{Types: rts}.parse()
	if err != nil {
		t.Fatal(err)
	}
	if rt, ok := cfg.opts.Registry.ByShortName("mw"); !ok || rt.Scope != naming.ScopeMesh {
		t.Errorf("mw: %v %v", rt, ok)
	}
	if _, ok := cfg.opts.Registry.ByShortName("msvc"); !ok {
		t.Error("the default types are gone")
	}
	if _, ok := naming.DefaultRegistry().ByShortName("mw"); ok {
		t.Error("the default registry was changed")
	}
	for _, bad := range []string{"mw:Mesh", "MeshWidget:mw:Sometimes"} {
		if _, err := ParseTypes(bad); err == nil {
			t.Errorf("ParseTypes(%q): no error", bad)
		}
	}
	for _, bad := range []string{"MeshService:mw:Mesh", "Mesh Widget:mw:Mesh"} {
		rts, err := ParseTypes(bad)
		if err != nil {
			t.Fatalf("ParseTypes(%q): %v", bad, err)
		}
		if err := (Options{Types: rts}).Validate(); err == nil {
			t.Errorf("Options{Types: %q}.Validate(): no error", bad)
		}
	}
}

func TestConfiguredSinksInPackage(t *testing.T) {
	t.Parallel()
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

func FuzzParseSink(f *testing.F) {
	for _, s := range []string{"", "github.com/x/y.F:1", "a.b:0", "c/d.T.M:2", ":", "x.:", "/.:9", "a/b.c:99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sk, err := ParseSink(s)
		if err != nil {
			return
		}
		if sk.Func == "" || sk.Arg < 0 || strings.ContainsAny(sk.Func, ", \t") {
			t.Fatalf("ParseSink(%q) accepted %+v", s, sk)
		}
		c := configuredSinks{sk.Func: {sk.Arg}}
		c.inPackage(sk.Func)
	})
}

// TestBadFlagsStopTheRun: a malformed flag value makes the run fail, for each analyzer on its own.
func TestBadFlagsStopTheRun(t *testing.T) {
	t.Parallel()
	for name, value := range map[string]string{
		"sinks":    "github.com/x/y.F",
		"types":    "MeshWidget:mw",
		"prefixes": "in:",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := newFlagAnalyzer()
			if err := a.Flags.Set(name, value); err != nil {
				t.Fatal(err)
			}
			f := a.Flags.Lookup(name)
			if f == nil {
				t.Fatal("no flag")
			}
			_, err := a.Run(nil)
			if err == nil || !strings.HasPrefix(err.Error(), "parsing -"+name+": ") {
				t.Fatalf("error = %v, want one starting with %q", err, "parsing -"+name+": ")
			}
			if got := Analyzer.Flags.Lookup(name).Value.String(); got == value {
				t.Fatalf("the shared analyzer took another analyzer's flag: -%s=%s", name, got)
			}
		})
	}
}
