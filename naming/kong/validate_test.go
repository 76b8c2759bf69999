package kong

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkErrs checks that errs is empty when want is, or else one Invalid
// error at metadata.name whose text contains want.
func checkErrs(t *testing.T, errs field.ErrorList, want string) {
	t.Helper()
	if want == "" {
		if len(errs) != 0 {
			t.Errorf("got errors %v, want none", errs)
		}
		return
	}
	if len(errs) != 1 {
		t.Fatalf("got %d errors %v, want one containing %q", len(errs), errs, want)
	}
	e := errs[0]
	if e.Type != field.ErrorTypeInvalid || e.Field != "metadata.name" || !strings.Contains(e.Error(), want) {
		t.Errorf("got %v, want an invalid metadata.name containing %q", e, want)
	}
}

var namePath = field.NewPath("metadata", "name")

func TestValidateRouteName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"default-httproute-echo.cp431ef96.1b69eced", ""},
		{"ns-r.cp1.2", ""},
		{"echo-route", ""},
		{"api.cpanel.example", ""},
		{"ns-r.cp431ef96.1b69eced9", "not of the shape <namespace>-<name>.cp<hash>.<hash>"},
		{"ns-r.cp431ef96", "KongRoute"},
		{"cp431ef96.5a7cc34c", "KongRoute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkErrs(t, ValidateRouteName(tt.name, namePath), tt.want) })
	}
}

func TestValidateServiceName(t *testing.T) {
	tests := []struct{ desc, name, host, want string }{
		{"generated, named after its host", "cp431ef96.5a7cc34c", "cp431ef96.5a7cc34c", ""},
		{"unpadded", "cp1.2", "cp1.2", ""},
		{"user's service", "echo", "echo.default.svc", ""},
		{"generated name, other host", "cp431ef96.5a7cc34c", "example.com", ""},
		{"bad shape", "cp431ef96.5a7cc34c.1", "example.com", "not of the shape cp<hash>.<hash>"},
		{"not named after its generated host", "echo", "cp431ef96.5a7cc34c", `must equal the service's host "cp431ef96.5a7cc34c"`},
		{"other generated name", "cp431ef96.00000000", "cp431ef96.5a7cc34c", `must equal the service's host`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) { checkErrs(t, ValidateServiceName(tt.name, tt.host, namePath), tt.want) })
	}
	if errs := ValidateServiceName("cp1.2.3", "cp1.2", namePath); len(errs) != 2 {
		t.Errorf("bad shape and wrong host: got %v, want both errors", errs)
	}
}

func TestValidateUpstreamAndPluginName(t *testing.T) {
	tests := []struct {
		desc     string
		validate func(string, *field.Path) field.ErrorList
		name     string
		want     string
	}{
		{"upstream generated", ValidateUpstreamName, "cp431ef96.5a7cc34c", ""},
		{"upstream user", ValidateUpstreamName, "echo", ""},
		{"upstream bad", ValidateUpstreamName, "cp431ef96", "KongUpstream"},
		{"plugin generated", ValidatePluginName, "pl72ae1b9a", ""},
		{"plugin user", ValidatePluginName, "rate-limit", ""},
		{"plugin nine digits", ValidatePluginName, "pl72ae1b9a0", "not of the shape pl<hash>"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) { checkErrs(t, tt.validate(tt.name, namePath), tt.want) })
	}
}

func TestValidateTargetName(t *testing.T) {
	tests := []struct{ desc, name, upstream, want string }{
		{"generated", "cp431ef96.5a7cc34c.46cb9d28", "cp431ef96.5a7cc34c", ""},
		{"user's target", "echo-1", "cp431ef96.5a7cc34c", ""},
		{"other upstream", "cp431ef96.5a7cc34c.46cb9d28", "cp431ef96.00000000", `must start with the name of its upstream "cp431ef96.00000000"`},
		{"bad shape", "cp431ef96.5a7cc34c", "cp431ef96.5a7cc34c", "not of the shape cp<hash>.<hash>.<hash>"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) { checkErrs(t, ValidateTargetName(tt.name, tt.upstream, namePath), tt.want) })
	}
}

func TestValidatePluginBindingName(t *testing.T) {
	const route, plugin = "default-httproute-echo.cp431ef96.1b69eced", "pl72ae1b9a"
	tests := []struct{ desc, name, route, plugin, want string }{
		{"generated", route + "." + plugin, route, plugin, ""},
		{"user's binding", "echo-cors", route, plugin, ""},
		{"other plugin", route + ".pl00000000", route, plugin, `must be the name of its route, a dot and the name of its plugin: "` + route + "." + plugin + `"`},
		{"other route", "ns-r.cp431ef96.00000000." + plugin, route, plugin, "must be the name of its route"},
		{"no route", route + "." + plugin, "", plugin, "must be the name of its route"},
		{"bad shape", "echo.pl72ae1b9a", route, plugin, "not of the shape"},
		{"route claim without plugin", route, route, plugin, "KongPluginBinding"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			checkErrs(t, ValidatePluginBindingName(tt.name, tt.route, tt.plugin, namePath), tt.want)
		})
	}
}
