package kong

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The names below were computed by running Kong/kong-operator @cefc384's
// namegen.NewKongCertificateName (controller/hybridgateway/namegen/name.go) on
// these inputs; the converter passes strconv.Itoa of the listener's port.
func TestCertificateName(t *testing.T) {
	tests := []struct {
		name     string
		gateway  string
		port     int32
		listener string
		want     string
	}{
		{"readable", "gw1", 443, "https", "cert.gw1.443.https"},
		{"other port", "gw1", 8443, "https-alt", "cert.gw1.8443.https-alt"},
		{"dotted gateway", "g.1", 2, "x", "cert.g.1.2.x"},
		{"dotted listener", "g", 1, "2.x", "cert.g.1.2.x"},
		{"252 characters", strings.Repeat("b", 237), 443, "https", "cert." + strings.Repeat("b", 237) + ".443.https"},
		{"253 characters", strings.Repeat("b", 238), 443, "https", "cert." + strings.Repeat("b", 238) + ".443.https"},
		{"254 characters", strings.Repeat("b", 239), 443, "https", "ngn785227e09a2aad9"},
		{"255 characters", strings.Repeat("b", 240), 443, "https", "ngn57f3b0e1be216c73"},
		{"253-character gateway", strings.Repeat("b", 253), 443, "https", "ngn8ad15d476f0b1f55"},
		{"long listener, 253", strings.Repeat("a", 121), 65535, strings.Repeat("l", 120), "cert." + strings.Repeat("a", 121) + ".65535." + strings.Repeat("l", 120)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CertificateName(tt.gateway, tt.port, tt.listener)
			if got != tt.want {
				t.Errorf("CertificateName(%q, %d, %q) = %q, want %q", tt.gateway, tt.port, tt.listener, got, tt.want)
			}
			if !IsCertificateName(got) {
				t.Errorf("IsCertificateName(%q) = false, want true", got)
			}
			if errs := ValidateName(got, namePath); errs != nil {
				t.Errorf("ValidateName(%q) = %v, want none: the operator generates it", got, errs)
			}
		})
	}
}

func TestIsCertificateName(t *testing.T) {
	for name, want := range map[string]bool{
		"cert.gw.443.https": true, "cert.g.1.2.x": true, "ngn0": true, "ngn8ad15d476f0b1f55": true,
		"cert.gw.https": false, "cert.gw.0443.https": false, "cert.gw.70000.l": false, "cert.443.https": false,
		"ngn": false, "ngnxyz": false, "ngn8ad15d476f0b1f55a": false, "http.gw.443.x": false,
	} {
		if got := IsCertificateName(name); got != want {
			t.Errorf("IsCertificateName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestValidateSNICertificate(t *testing.T) {
	p := field.NewPath("spec", "certificateRef", "name")
	for _, tt := range []struct {
		name, cert string
		wantErr    bool
	}{
		{"cert.gw1.443.https", "cert.gw1.443.https", false},
		{"ngnd885dd8f70a6a63e", "ngnd885dd8f70a6a63e", false},
		{"my-sni", "any-cert", false},
		{"cert.gw1.443.https", "cert.gw1.8443.https", true},
		{"cert.gw1.443.https", "", true},
	} {
		if errs := ValidateSNICertificate(tt.name, tt.cert, p); (errs != nil) != tt.wantErr {
			t.Errorf("ValidateSNICertificate(%q, %q) = %v, want error %v", tt.name, tt.cert, errs, tt.wantErr)
		}
	}
}

// TestCertificateNameSample checks the names against the objects the operator's own converter
// generated for the Gateways of ../shared/kong/kongsni.sample.jsonl (its README says how).
func TestCertificateNameSample(t *testing.T) {
	data, err := os.ReadFile("../../../shared/kong/kongsni.sample.jsonl")
	if err != nil {
		t.Fatalf("reading the sample beside the checkout (../shared/kong, as CI has it): %v", err)
	}
	n := 0
	for line := range strings.Lines(string(data)) {
		var c struct {
			Case    string       `json:"case"`
			Gateway gwv1.Gateway `json:"gateway"`
			Objects []struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
				Spec struct {
					Name           string `json:"name"`
					CertificateRef struct {
						Name string `json:"name"`
					} `json:"certificateRef"`
				} `json:"spec"`
			} `json:"objects"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("decoding a sample line: %v", err)
		}
		// The converter emits a KongCertificate and a KongSNI per certificateRef it can read;
		// match them to the listeners with a certificateRef, in order.
		var want []string
		for _, l := range c.Gateway.Spec.Listeners {
			if l.TLS == nil || len(l.TLS.CertificateRefs) == 0 {
				continue
			}
			name, sni := CertificateName(c.Gateway.Name, int32(l.Port), string(l.Name)), SNIName(hostname(l.Hostname))
			want = append(want, "KongCertificate "+name, "KongSNI "+name+" "+sni+" "+name)
		}
		var got []string
		for _, o := range c.Objects {
			s := o.Kind + " " + o.Metadata.Name
			if o.Kind == "KongSNI" {
				s += " " + o.Spec.Name + " " + o.Spec.CertificateRef.Name
			}
			got = append(got, s)
		}
		if len(got) < len(want) { // a certificateRef to a missing Secret is skipped
			want = want[:len(got)]
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: the operator generated\n%s\nwant\n%s", c.Case, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		n++
	}
	if n == 0 {
		t.Fatal("the sample holds no case")
	}
}

func hostname(h *gwv1.Hostname) string {
	if h == nil {
		return ""
	}
	return string(*h)
}
