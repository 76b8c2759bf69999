package kong

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

const certPrefix = "cert"

// WildcardSNI is the KongSNI spec.name the operator gives a listener without a hostname.
const WildcardSNI = "*"

// CertificateName is the name of the KongCertificate, and of its KongSNI, that the operator
// generates for a certificateRef of a Gateway listener (controller/hybridgateway/converter/gateway.go,
// namegen.NewKongCertificateName): "cert.<gateway>.<port>.<listener>", joined by dots without
// escaping, or "ngn" and Hash64 of the four elements when that is longer than MaxNameLen. Every
// certificateRef of one listener gets the same name, and dotted gateway or listener names can give
// two listeners one name ("g.1", 2, "x" and "g", 1, "2.x"): docs/kong-names.md.
func CertificateName(gateway string, port int32, listener string) string {
	return joinedName(certPrefix, gateway, strconv.Itoa(int(port)), listener)
}

// SNIName is the spec.name of the KongSNI the operator generates for a listener of the given
// hostname: the hostname, or WildcardSNI when it has none.
func SNIName(hostname string) string {
	if hostname == "" {
		return WildcardSNI
	}
	return hostname
}

// IsCertificateName reports whether name has the shape of a generated KongCertificate name: "cert.",
// then a gateway name, a port and a listener name separated by dots, or the "ngn" fallback. A
// dotted gateway or listener name makes the split ambiguous, so only the shape is recognised.
func IsCertificateName(name string) bool {
	if isFallbackName(name) {
		return true
	}
	rest, ok := strings.CutPrefix(name, certPrefix+".")
	if !ok {
		return false
	}
	// Some label after the first and before the last must be a port.
	labels := strings.Split(rest, ".")
	for i := 1; i < len(labels)-1; i++ {
		if p, err := strconv.Atoi(labels[i]); err == nil && p > 0 && p <= 65535 && labels[i][0] != '0' {
			return true
		}
	}
	return false
}

// isFallbackName reports whether name is "ngn" and a Hash64 (1 to 16 lower-case hex digits).
func isFallbackName(name string) bool {
	h, ok := strings.CutPrefix(name, fallbackPrefix)
	if !ok || len(h) == 0 || len(h) > 16 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ValidateSNICertificate checks a KongSNI's certificate reference against its name: the operator
// names a KongSNI after its KongCertificate, so a KongSNI with a generated certificate name must
// reference the certificate of that name. Other names are the user's and may reference any
// certificate.
func ValidateSNICertificate(name, certificate string, p *field.Path) field.ErrorList {
	if certificate == name || !IsCertificateName(name) {
		return nil
	}
	if certificate == "" {
		return field.ErrorList{field.Required(p, fmt.Sprintf("a KongSNI with a generated name must reference its certificate %q", name))}
	}
	return field.ErrorList{field.Invalid(p, certificate, fmt.Sprintf("must be the KongSNI's own name %q: the KongSNI of a generated KongCertificate is named after it", name))}
}
