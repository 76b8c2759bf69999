# kriguard — see README.md.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

KEEP ?=
FUZZTIME ?= 30s
FUZZ ?=

.PHONY: help
help: ## list targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/'

.PHONY: tools
tools: ## build the pinned test tools once (kube-apiserver, etcd, kubectl, helm) into $$HOME/.cache/kriguard
	./hack/tools.sh install

.PHONY: test
test: ## run every test: unit, fuzz seeds, envtest end-to-end, chart, linter self-check
	./hack/test.sh

.PHONY: demo
demo: ## start a local control plane guarded by the webhook and apply examples/ (KEEP=1 leaves it running)
	KEEP=$(KEEP) ./hack/demo.sh

.PHONY: bench
bench: ## run the benchmarks
	./hack/bench.sh

.PHONY: bench-e2e
bench-e2e: ## CREATE through a real API server: kriguard's webhooks against a do-nothing pair, p50/p99 and the API server's time per webhook, medians of ROUNDS (default 5) rounds; BENCH=Create/goal runs the goal's own part alone (docs/performance.md)
	./hack/bench-e2e.sh

.PHONY: bench-audit
bench-audit: ## kriguard audit (and audit --kuma-api) as whole processes against a bare paginated listing of the same objects, interleaved rounds (docs/performance.md)
	./hack/bench-audit.sh

.PHONY: bench-throughput
bench-throughput: ## the webhook's throughput over TLS against an allow-all handler's, median ratio of 5 rounds (docs/performance.md)
	./hack/bench-throughput.sh

.PHONY: bench-stages
bench-stages: ## instructions of one admission review, stage by stage, with callgrind (docs/performance.md)
	./hack/bench-stages.sh

.PHONY: bench-process
bench-process: ## one review over TLS counted whole (client, TLS, HTTP, runtime), the webhook alone against the allow-all server alone: instructions, L1 data misses, mispredicted branches, with callgrind (docs/performance.md)
	./hack/bench-process.sh

.PHONY: fuzz
fuzz: ## run every fuzz target for FUZZTIME each (default 30s; FUZZ=name to pick); failures land in testdata/fuzz/
	FUZZTIME=$(FUZZTIME) FUZZ=$(FUZZ) ./hack/fuzz.sh

.PHONY: image
image: ## build the webhook image into dist/kriguard-webhook.oci.tar with buildah
	./hack/image.sh

.PHONY: chart-crds
chart-crds: ## write the OpenReports CRDs into the chart (openreports.installCRDs) from the reports-api Go module
	./hack/chart-crds.sh

.PHONY: lint
lint: ## gofmt, go vet, staticcheck and krilint on the project itself
	./hack/lint.sh
