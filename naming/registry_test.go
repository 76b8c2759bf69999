package naming

import (
	"strings"
	"sync"
	"testing"
)

func TestKumaTypes(t *testing.T) {
	// Kuma's resource types (docs/kri.md), spelled out independently of KumaTypes.
	want := "dp:M m:G z:G hg:G extsvc:M mid:M mzsvc:M motb:M msvc:M mtrust:M mza:M wl:M mal:M mcb:M mfi:M " +
		"mhttpr:M mhc:M mlbs:M mm:M mp:M mpp:M mrl:M mr:M mtcpr:M mtls:M mt:M mtr:M mtp:M mgw:M zi:G ze:G"
	for _, pair := range strings.Fields(want) {
		short, scope, _ := strings.Cut(pair, ":")
		typ, ok := defaultRegistry().ByShortName(short)
		if !ok {
			t.Errorf("short name %q missing", short)
			continue
		}
		if typ.Scope.String()[:1] != scope {
			t.Errorf("%s: scope %s, want %s", short, typ.Scope, scope)
		}
		if byKind, ok := defaultRegistry().ByKind(typ.Kind); !ok || byKind != typ {
			t.Errorf("ByKind(%q) = %v, %v", typ.Kind, byKind, ok)
		}
	}
	if n := len(defaultRegistry().Types()); n != len(strings.Fields(want)) {
		t.Errorf("the default registry has %d types, the table lists %d", n, len(strings.Fields(want)))
	}
}

func TestRegister(t *testing.T) {
	tests := []struct {
		name    string
		typ     ResourceType
		wantErr string
	}{
		{"new type", ResourceType{"MeshWidget", "mw", ScopeMesh, false, false}, ""},
		{"identical again", ResourceType{"MeshTimeout", "mt", ScopeMesh, false, true}, ""},
		{"short name taken", ResourceType{"MeshTable", "mt", ScopeMesh, false, false}, `short name "mt" is already registered for kind "MeshTimeout"`},
		{"kind taken", ResourceType{"MeshTimeout", "mto", ScopeMesh, false, false}, `kind "MeshTimeout" is already registered as "mt"`},
		{"scope changed", ResourceType{"MeshTimeout", "mt", ScopeGlobal, false, false}, `already registered`},
		{"bad short name", ResourceType{"MeshX", "m-x", ScopeMesh, false, false}, `short name "m-x" must be 1-63 lowercase letters`},
		{"empty kind", ResourceType{"", "x", ScopeMesh, false, false}, "kind must not be empty"},
		{"odd kind", ResourceType{"Mesh.X", "x", ScopeMesh, false, false}, "must contain only letters and digits"},
		{"no scope", ResourceType{"MeshX", "x", 0, false, false}, "scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := defaultRegistry().Clone()
			before := len(r.Types())
			err := r.Register(tt.typ)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got, ok := r.ByShortName(tt.typ.ShortName); !ok || got != tt.typ {
					t.Fatalf("ByShortName = %v, %v", got, ok)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Register = %v, want %q", err, tt.wantErr)
			}
			if len(r.Types()) != before {
				t.Fatal("a failed Register changed the registry")
			}
		})
	}
}

func TestRegistryAtomicBatch(t *testing.T) {
	r, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	err = r.Register(ResourceType{"A", "a", ScopeMesh, false, false}, ResourceType{"B", "a", ScopeMesh, false, false})
	if err == nil {
		t.Fatal("conflicting batch accepted")
	}
	if _, ok := r.ByKind("A"); ok {
		t.Fatal("half of a failed batch was registered")
	}
	var zero Registry
	if _, ok := zero.ByKind("Mesh"); ok || zero.Types() != nil {
		t.Fatal("zero registry not empty")
	}
	if _, err := NewRegistry(ResourceType{}); err == nil {
		t.Fatal("NewRegistry accepted an invalid type")
	}
}

func TestRegistryConcurrentUse(t *testing.T) {
	r := defaultRegistry().Clone()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				if _, err := r.Parse("kri_msvc_m___n_"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		go func(i int) {
			defer wg.Done()
			short := strings.Repeat(string(rune('a'+i)), 5)
			if err := r.Register(ResourceType{Kind: "Kind" + short, ShortName: short, Scope: ScopeGlobal}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if len(r.Types()) != len(KumaTypes())+4 {
		t.Fatalf("got %d types", len(r.Types()))
	}
}

func TestParseScope(t *testing.T) {
	for _, s := range []Scope{ScopeMesh, ScopeGlobal} {
		got, err := ParseScope(s.String())
		if err != nil || got != s {
			t.Errorf("ParseScope(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseScope("mesh"); err == nil {
		t.Error("ParseScope accepted lower case")
	}
	if Scope(7).String() != "Scope(7)" {
		t.Error("String of unknown scope")
	}
}

func TestLegacyKinds(t *testing.T) {
	// The kinds whose mesh Kuma reads from the top-level mesh field; every other kind reads the label.
	legacy := map[string]bool{"Dataplane": true, "Mesh": true, "MeshGateway": true, "ZoneIngress": true, "ZoneEgress": true, "Zone": true}
	for _, typ := range defaultRegistry().Types() {
		if typ.Legacy != legacy[typ.Kind] {
			t.Errorf("%s: Legacy = %v, want %v", typ.Kind, typ.Legacy, legacy[typ.Kind])
		}
	}
}

func TestDefaultIsReadOnly(t *testing.T) {
	if err := DefaultRegistry().Register(ResourceType{Kind: "MeshWidget", ShortName: "mw", Scope: ScopeMesh}); err == nil {
		t.Fatal("the default registry accepted a new type")
	}
	if _, ok := defaultRegistry().ByKind("MeshWidget"); ok {
		t.Error("MeshWidget leaked into the default registry")
	}
	c := defaultRegistry().Clone()
	if err := c.Register(ResourceType{Kind: "MeshWidget", ShortName: "mw", Scope: ScopeMesh}); err != nil {
		t.Errorf("a clone of the default registry refused a new type: %v", err)
	}
}
