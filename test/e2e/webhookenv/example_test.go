package webhookenv_test

import (
	"fmt"
	"time"

	"github.com/kriguard/kriguard/rules"
	"github.com/kriguard/kriguard/test/e2e/webhookenv"
)

// The flags a Setup hands to cmd/webhook (or to webhook.Options.BindFlags): TLS on a loopback port,
// cert-controller issuing a certificate for localhost, and the names of the webhook configurations
// Register creates.
func ExampleSetup_Args() {
	s := &webhookenv.Setup{
		Namespace:      "kriguard-system",
		SecretName:     "kriguard-webhook-tls",
		ValidatingName: "kriguard-validating",
		MutatingName:   "kriguard-mutating",
		Host:           "127.0.0.1",
		DNSName:        "localhost",
		Port:           9443,
		HealthPort:     8081,
		MetricsPort:    8080,
		CertDir:        "/tmp/certs",
		ShutdownDelay:  time.Second,
		RecordKRI:      rules.RecordKRIAdmission,
	}
	for _, arg := range s.Args() {
		fmt.Println(arg)
	}
	fmt.Println(s.URL("/validate"))
	// Output:
	// --webhook-host=127.0.0.1
	// --webhook-port=9443
	// --cert-dir=/tmp/certs
	// --cert-management=cert-controller
	// --cert-secret-name=kriguard-webhook-tls
	// --cert-secret-namespace=kriguard-system
	// --cert-dns-name=localhost
	// --validating-webhook-configuration=kriguard-validating
	// --mutating-webhook-configuration=kriguard-mutating
	// --metrics-bind-address=127.0.0.1:8080
	// --health-probe-bind-address=127.0.0.1:8081
	// --shutdown-delay=1s
	// --record-kri=admission
	// https://localhost:9443/validate
}
