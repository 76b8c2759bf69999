//go:build tools

// Package tools pins staticcheck, the linter `make lint` and `make test` run on kriguard itself.
package tools

import _ "honnef.co/go/tools/cmd/staticcheck"
