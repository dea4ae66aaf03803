# lasagna for Go — developer targets. `make test` is the README's test
# command and what CI runs.
GO ?= go
FUZZTIME ?= 20s
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
# TAGS builds the optional parts the default lasagna leaves out (package
# internal/buildtag): the PostgreSQL registry and pgvector, Weaviate, the
# parquet reader. make test builds with them, so CI tests everything.
TAGS ?= postgres,weaviate,parquet
MODULE := github.com/lasagna-go/lasagna

.PHONY: check test lint bench fuzz cover build junit golden test-backends pglite

build:
	$(GO) build ./...
	$(GO) build -tags $(TAGS) ./...

# check is the fast contributor loop, in the default build: go vet's full set
# of checks (-vet=all: what go vet ./... runs, test files included) and the
# -short tests, in one go test, so packages are loaded and vetted once
# instead of by go vet ./... and then again by go test's own vet. Heavy
# helpers skip under -short, through internal/servertest. It leaves out
# CHECK_SKIP, the packages that exist to wrap an opt-in vector engine
# (retrieval/weaviate: the Weaviate client with gRPC and protobuf;
# retrieval/pgvector: pgx), whose clients a first make check would
# otherwise compile; tests that need pgx or parquet-go are in files built
# with the postgres or parquet tag. make test (every tag, what CI runs)
# builds, vets and tests them all; BENCHMARKS.md has the cold cost.
CHECK_SKIP ?= retrieval/weaviate retrieval/pgvector
check:
	pkgs=$$($(GO) list ./...) && \
	$(GO) test -short -vet=all $$(printf '%s\n' $$pkgs | grep -v -x $(foreach p,$(CHECK_SKIP),-e '$(MODULE)/$(p)'))

test:
	$(GO) test -race -tags $(TAGS) ./...
	$(GO) test -count=1 -run 'NotBuiltIn' ./cmd/lasagna ./internal/registry/...
	cd bench && $(GO) test ./...
	cd tools && $(GO) test ./...
	$(MAKE) junit

# pglite installs the npm packages (pinned in the lock file) that the
# pgvector tests serve PostgreSQL with; needs node and npm.
pglite:
	npm ci --prefix internal/pglitetest/testdata --no-audit --no-fund

# test-backends runs just the tests against real vector engines (PGlite
# with pgvector, Weaviate); they fail instead of skipping when a server
# cannot start.
test-backends: pglite weaviate-server
	LASAGNA_REQUIRE_BACKENDS=1 $(GO) test -race -count=1 -tags $(TAGS) ./internal/pglitetest/... ./retrieval/pgvector/... ./internal/weaviatetest/... ./retrieval/weaviate/...
	LASAGNA_REQUIRE_BACKENDS=1 $(GO) test -race -count=1 -tags $(TAGS) -run 'Pgvector|Weaviate|ThreeBackends' ./cmd/lasagna

# golden rewrites every golden file under testdata/ (internal/golden);
# review the diff before committing.
golden:
	LASAGNA_UPDATE_GOLDEN=1 $(GO) test -count=1 -tags $(TAGS) ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags $(TAGS) ./...
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) -tags $(TAGS) ./...

# bench runs every Go benchmark of the module once (-benchtime 1x is too
# noisy; 3 counts of the default time), then the separate comparison module,
# then the scripts that time commands against their peers.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 1 ./...
	cd bench && $(GO) test -run '^$$' -bench . -benchmem -count 1 ./...
	@if [ -x scripts/bench-trec.sh ]; then scripts/bench-trec.sh; TREC_BENCH_SHAPE=shuffled scripts/bench-trec.sh; TREC_BENCH_SHAPE=cacm TREC_BENCH_RUNS=10 scripts/bench-trec.sh; fi
	@if [ -x scripts/bench-create.sh ]; then scripts/bench-create.sh; fi
	@if command -v perf >/dev/null; then scripts/bench-startup.sh; else echo "bench: no perf, scripts/bench-startup.sh skipped"; fi

# fuzz runs each fuzz target of the module for FUZZTIME. A target fails
# when it writes a failing input under testdata/fuzz; Go 1.26's fuzzing
# coordinator can also end a duration-bounded run with a bare "context
# deadline exceeded" and no input (go.dev/issue/75804, fixed in Go 1.27),
# which is reported and not counted (a count such as FUZZTIME=200000x
# avoids it).
fuzz:
	@out=$$(mktemp); trap 'rm -f $$out' EXIT; \
	for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; \
	    before=$$(ls $$dir/testdata/fuzz/$$f 2>/dev/null | wc -l); \
	    if ! $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg >$$out 2>&1; then \
	      cat $$out; \
	      after=$$(ls $$dir/testdata/fuzz/$$f 2>/dev/null | wc -l); \
	      if [ "$$after" = "$$before" ] && grep -q '^    context deadline exceeded$$' $$out; then \
	        echo "== $$f: Go's fuzzing coordinator stopped with 'context deadline exceeded' and wrote no input (go.dev/issue/75804): not counted"; \
	      else exit 1; fi; \
	    else tail -n 2 $$out; fi; \
	  done; \
	done

cover:
	$(GO) test -tags $(TAGS) -coverprofile=coverage.out ./...
	$(GO) tool cover -func=coverage.out | tail -n 1

# junit runs the examples under gotestsum (pinned in tools/go.mod, so it never
# enters the module's dependency graph; go tool fetches it from the module
# proxy) and writes JUnit to JUNIT, where each query test case carries its
# lasagna.* attrs as <properties>. A Ginkgo suite is one Go test there, so
# the Ginkgo example also writes Ginkgo's own JUnit report to GINKGO_JUNIT
# (-ginkgo.junit-report), where each spec carries its report entries.
# checkjunit then checks both: every query test case of the plain go test,
# testify and Ginkgo examples has lasagna.query_id and its metrics. make test
# ends with it.
JUNIT ?= junit.xml
GINKGO_JUNIT ?= junit-ginkgo.xml
JUNIT_PACKAGES ?= examples/retrieval,examples/scorer,examples/judge,examples/testify,examples/ginkgo
junit:
	$(GO) tool -modfile=tools/go.mod gotestsum --junitfile $(JUNIT) --format pkgname -- -count=1 -short ./examples/...
	$(GO) test -count=1 -short ./examples/ginkgo -args -ginkgo.junit-report=$(abspath $(GINKGO_JUNIT))
	cd tools && $(GO) run ./checkjunit -min 100 -want $(JUNIT_PACKAGES) $(abspath $(JUNIT)) $(abspath $(GINKGO_JUNIT))

# weaviate-server builds the Weaviate server the Weaviate backend tests run
# (internal/weaviatetest looks in WEAVIATE_BIN): about 7 minutes cold on
# 2 cores, seconds with a warm build cache. Never committed.
WEAVIATE_VERSION ?= v1.35.2
WEAVIATE_BIN ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/lasagna/weaviate-$(WEAVIATE_VERSION)
.PHONY: weaviate-server
weaviate-server:
	GOBIN=$(WEAVIATE_BIN) $(GO) install github.com/weaviate/weaviate/cmd/weaviate-server@$(WEAVIATE_VERSION)
