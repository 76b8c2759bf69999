package main

import (
	"os/exec"
	"strings"
	"testing"
)

// heavy are packages kriguard must not link: their package initialisation runs in every kriguard
// process, and an audit of a whole cluster was mostly that start over a bare paginated LIST. client-go's
// kubernetes scheme registers every built-in type by reflection, its discovery package brings it
// and the OpenAPI and structured-merge-diff types, controller-runtime's client brings Prometheus and
// client-go's typed clients and informers, OpenReports' generated clientset brings its scheme and
// client-go's apply configurations (docs/performance.md, "Change 15"). The webhook links them;
// kriguard reads the cluster over client-go's REST client.
var heavy = []string{
	"k8s.io/client-go/kubernetes",
	"k8s.io/client-go/kubernetes/scheme",
	"k8s.io/client-go/discovery",
	"k8s.io/client-go/openapi",
	"k8s.io/client-go/informers",
	"k8s.io/client-go/applyconfigurations/meta/v1",
	"sigs.k8s.io/structured-merge-diff/v6/typed",
	"sigs.k8s.io/controller-runtime/pkg/client",
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil",
	"github.com/prometheus/client_golang/prometheus",
	"github.com/openreports/reports-api/pkg/client/clientset/versioned",
	"github.com/openreports/reports-api/pkg/client/clientset/versioned/scheme",
}

func TestStartupDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), deps)
	}
	linked := map[string]bool{}
	for _, dep := range deps {
		linked[dep] = true
	}
	for _, h := range heavy {
		if linked[h] {
			t.Errorf("kriguard depends on %s (go list -deps ./cmd/kriguard): it costs every kriguard process's start", h)
		}
	}
}
