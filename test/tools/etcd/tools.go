//go:build tools

// Package tools records the command this helper module builds (the etcd server, whose main package is the
// root of go.etcd.io/etcd/server/v3), so that `go mod tidy` keeps its modules in go.mod and go.sum.
// hack/tools.sh builds it; nothing imports this package.
package tools

import _ "go.etcd.io/etcd/server/v3"
