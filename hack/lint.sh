#!/usr/bin/env bash
# make lint: gofmt, go vet, staticcheck and kriguard's own linter on kriguard itself.
set -euo pipefail
cd "$(dirname "$0")/.."

eval "$(./hack/tools.sh env staticcheck)"

echo "==> gofmt"
unformatted=$(git ls-files -co --exclude-standard '*.go' | grep -v '/testdata/' | xargs gofmt -l)
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting:"; echo "$unformatted"; exit 1
fi

echo "==> go vet"
go vet ./...

echo "==> staticcheck ($(staticcheck -version))"
staticcheck -checks inherit ./...

echo "==> krilint on kriguard itself"
mkdir -p bin
go build -o bin/krilint ./cmd/krilint
go vet -vettool="$PWD/bin/krilint" ./...
