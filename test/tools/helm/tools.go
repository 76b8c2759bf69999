//go:build tools

// Package tools records the command this helper module builds (helm.sh/helm/v4/cmd/helm), so that
// `go mod tidy` keeps its modules in go.mod and go.sum. hack/tools.sh builds it; nothing imports this
// package.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
