package webhook

import (
	"io"
	"os"
	"testing"

	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// TestMain sets the logger once: by default the webhook's own (cmd/webhook: controller-runtime's
// production zap logger) writing nowhere, so that the benchmarks pay for logging what the webhook
// pays (docs/performance.md); controller-runtime's development logger on stderr with
// KRIGUARD_TEST_LOG=1 (what to turn on when a server test fails).
func TestMain(m *testing.M) {
	if os.Getenv("KRIGUARD_TEST_LOG") == "1" {
		logf.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr)))
	} else {
		logf.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	}
	os.Exit(m.Run())
}
