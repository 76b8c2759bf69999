package webhook

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// TestMain sets the logger once: quiet by default, controller-runtime's development logger on
// stderr with KRIGUARD_TEST_LOG=1 (what to turn on when a server test fails).
func TestMain(m *testing.M) {
	if os.Getenv("KRIGUARD_TEST_LOG") == "1" {
		logf.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr)))
	} else {
		logf.SetLogger(logr.Discard())
	}
	os.Exit(m.Run())
}
