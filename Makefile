# pcpkit: see README.md. Recipes are indented with tabs.
GO       ?= go
BIN      := bin
CMDS     := $(notdir $(patsubst %/,%,$(wildcard cmd/*/)))
FUZZTIME ?= 60s
# The small v3 archive `make run` dumps (recorded by the real pmlogger; see
# testdata/archives/README.md).
RUN_ARCHIVE ?= testdata/archives/pmcd-v3

.DEFAULT_GOAL := build
.PHONY: build run test goldens fuzz bench clean

# build: compile every package, and a binary per cmd/<name> into bin/<name>
# (directories under cmd/ without Go files yet are skipped).
build:
	$(GO) build ./...
	@mkdir -p $(BIN)
	@set -e; for c in $(CMDS); do \
		if ls cmd/$$c/*.go >/dev/null 2>&1; then \
			echo "$(GO) build -o $(BIN)/$$c ./cmd/$$c"; \
			$(GO) build -o $(BIN)/$$c ./cmd/$$c; \
		else \
			echo "skipping cmd/$$c: no Go files yet"; \
		fi; \
	done

run: build
	./$(BIN)/pmdumplog -a $(RUN_ARCHIVE)

# test: vet, then every package's tests; go test prints one "ok"/"FAIL" line
# per package. Set PCP_INTEROP=1 to make missing real PCP tools a failure.
# Tests run even when vet complains, so that the log shows every package's
# result; the target fails if either does.
test:
	@status=0; \
	echo "$(GO) vet ./..."; $(GO) vet ./... || status=1; \
	echo "$(GO) test -count=1 ./..."; $(GO) test -count=1 ./... || status=1; \
	exit $$status

# goldens: regenerate testdata/golden/{pmdumplog,pmlogsummary,pminfo,pmprobe,pmlogcheck} from the real PCP 6.0.3.
goldens:
	bash scripts/make-goldens.sh pmdumplog
	bash scripts/make-goldens.sh pmlogsummary
	bash scripts/make-goldens.sh pminfo
	bash scripts/make-goldens.sh pmprobe
	bash scripts/make-goldens.sh pmlogcheck

# fuzz: run each Fuzz target for FUZZTIME (default 60s), one at a time.
fuzz:
	@set -e; list=$$($(GO) test -list '^Fuzz' ./...); \
	targets=$$(printf '%s\n' "$$list" | awk '/^Fuzz/ { f[n++] = $$1; next } \
		/^ok/ { for (i = 0; i < n; i++) print $$2, f[i]; n = 0 }'); \
	[ -n "$$targets" ] || { echo "no Fuzz targets found"; exit 0; }; \
	printf '%s\n' "$$targets" | while read -r pkg f; do \
		echo "$(GO) test -run '^$$' -fuzz '^$$f$$' -fuzztime $(FUZZTIME) $$pkg"; \
		$(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

# bench: the Go micro-benchmarks, then pcpkit vs the real tools on the
# large generated archives: pmdumplog and pmlogsummary (scripts/bench.sh),
# pmval and pmrep (scripts/bench-replay.sh), pmlogger against the local
# pmcd (scripts/bench-pmlogger.sh). Results in docs/benchmarks.md.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	GO=$(GO) bash scripts/bench.sh
	GO=$(GO) bash scripts/bench-replay.sh
	GO=$(GO) bash scripts/bench-pmlogger.sh

clean:
	rm -rf $(BIN)
	$(GO) clean -testcache
