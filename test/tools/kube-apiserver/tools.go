//go:build tools

// Package tools records the commands this helper module builds, so that `go mod tidy` keeps every
// module they need in go.mod and go.sum. hack/tools.sh builds them; nothing imports this package.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
