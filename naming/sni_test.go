package naming_test

import (
	"testing"

	"github.com/kriguard/kriguard/naming"
)

// The SNI shape of Kuma v2.14's pkg/core/resources/sni: the namespace only with a zone.
func TestSNI(t *testing.T) {
	tests := []struct {
		kri, section, want string
	}{
		{"kri_msvc_default___backend_", "http", "sni.msvc.default.backend.http"},
		{"kri_msvc_default__kuma-demo_backend_", "http", "sni.msvc.default.backend.http"},
		{"kri_msvc_default_east__backend_", "8080", "sni.msvc.default.east.backend.8080"},
		{"kri_mzsvc_mesh-1_east_kuma-demo_backend_", "grpc", "sni.mzsvc.mesh-1.east.kuma-demo.backend.grpc"},
	}
	for _, tt := range tests {
		k, err := naming.Parse(tt.kri)
		if err != nil {
			t.Fatalf("%s: %v", tt.kri, err)
		}
		if got := naming.SNI(k, tt.section); got != tt.want {
			t.Errorf("SNI(%s, %q) = %q, want %q", tt.kri, tt.section, got, tt.want)
		}
	}
	for kind, want := range map[string]bool{"MeshService": true, "MeshMultiZoneService": true, "MeshExternalService": true, "MeshTimeout": false} {
		if _, ok := naming.SNIPortsOf(kind); ok != want {
			t.Errorf("SNIPortsOf(%s) = %v, want %v", kind, ok, want)
		}
	}
}
