package naming

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestFieldValid(t *testing.T) {
	tests := []struct {
		f     Field
		value string
		want  bool
	}{
		{FieldType, "msvc", true},
		{FieldType, strings.Repeat("a", 63), true},
		{FieldType, strings.Repeat("a", 64), false},
		{FieldType, "m1", false},
		{FieldType, "m-s", false},
		{FieldMesh, "a", true},
		{FieldMesh, "a-1", true},
		{FieldMesh, "1a", false},
		{FieldMesh, "-a", false},
		{FieldMesh, "a-", false},
		{FieldMesh, "a.b", false},
		{FieldZone, "us-east-2", true},
		{FieldZone, "2east", false},
		{FieldNamespace, "0ns", true},
		{FieldNamespace, "ns0", true},
		{FieldNamespace, strings.Repeat("n", 63), true},
		{FieldNamespace, strings.Repeat("n", 64), false},
		{FieldNamespace, "ns_1", false},
		{FieldName, "a.b-c", true},
		{FieldName, "a..b", true},
		{FieldName, ".a", false},
		{FieldName, strings.Repeat("n", 253), true},
		{FieldName, strings.Repeat("n", 254), false},
		{FieldSection, "8080", true},
		{FieldSection, "http-port", true},
		{FieldSection, "http.port", false},
		{FieldSection, "HTTP", false},
		{FieldSection, "", false},
		{Field(42), "a", false},
	}
	for _, tt := range tests {
		if got := tt.f.Valid(tt.value); got != tt.want {
			t.Errorf("%s.Valid(%q) = %v, want %v", tt.f, tt.value, got, tt.want)
		}
		if errs := tt.f.Validate(tt.value, field.NewPath("x")); tt.value != "" && (len(errs) == 0) != tt.want {
			t.Errorf("%s.Validate(%q) = %v, disagrees with Valid", tt.f, tt.value, errs)
		}
	}
}

// The namespace and section rules are those of a DNS-1123 label, and the mesh and zone rules those
// of a DNS-1035 label; check the byte tables against apimachinery's validators on every
// two-byte string and some longer ones.
func TestFieldRulesMatchKubernetes(t *testing.T) {
	var inputs []string
	for a := 0; a < 256; a++ {
		inputs = append(inputs, string([]byte{byte(a)}))
		for _, b := range []byte("a0-._Z") {
			inputs = append(inputs, string([]byte{byte(a), b}), string([]byte{b, byte(a)}), "x"+string([]byte{byte(a)})+"y")
		}
	}
	inputs = append(inputs, strings.Repeat("a", 63), strings.Repeat("a", 64))
	for _, in := range inputs {
		dns1123 := len(validation.IsDNS1123Label(in)) == 0
		dns1035 := len(validation.IsDNS1035Label(in)) == 0
		if got := FieldNamespace.Valid(in); got != dns1123 {
			t.Errorf("namespace %q: Valid = %v, IsDNS1123Label = %v", in, got, dns1123)
		}
		if got := FieldSection.Valid(in); got != dns1123 {
			t.Errorf("section %q: Valid = %v, IsDNS1123Label = %v", in, got, dns1123)
		}
		if got := FieldMesh.Valid(in); got != dns1035 {
			t.Errorf("mesh %q: Valid = %v, IsDNS1035Label = %v", in, got, dns1035)
		}
		// A KRI name is looser than a DNS subdomain ("a..b"), never stricter.
		if validation.IsDNS1123Subdomain(in) == nil && !FieldName.Valid(in) {
			t.Errorf("name %q is a DNS subdomain but not a valid KRI name", in)
		}
	}
}

func TestFieldPredicates(t *testing.T) {
	if !FieldMesh.IsFirst('a') || FieldMesh.IsFirst('1') || !FieldMesh.IsLast('1') || FieldMesh.IsLast('-') {
		t.Error("mesh first/last rules wrong")
	}
	if !FieldName.IsChar('.') || FieldNamespace.IsChar('.') || FieldType.IsChar('1') {
		t.Error("character rules wrong")
	}
	if FieldName.MaxLen() != 253 || FieldMesh.MaxLen() != 63 {
		t.Error("max lengths wrong")
	}
	for i, f := range Fields() {
		if int(f) != i {
			t.Errorf("Fields[%d] = %d", i, f)
		}
	}
	if Field(9).String() != "Field(9)" || FieldSection.String() != "section" {
		t.Error("String wrong")
	}
}

func TestFieldValidateBoundsHostileValues(t *testing.T) {
	hostile := strings.Repeat("\x00\x01\x02\x03\x04\x05\x06\x07\x08", 10000)
	errs := FieldName.Validate(hostile, field.NewPath("metadata", "name"))
	if len(errs) != 2 {
		t.Fatalf("got %v", errs)
	}
	if errs[0].Type != field.ErrorTypeTooLong {
		t.Errorf("first error %v, want TooLong", errs[0])
	}
	if d := errs[1].Detail; len(d) > 300 || !strings.Contains(d, "…") {
		t.Errorf("detail not bounded: %d bytes: %q", len(d), d)
	}
}
