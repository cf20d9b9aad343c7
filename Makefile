# pcpkit: see README.md. Recipes are indented with tabs.
GO       ?= go
BIN      := bin
CMDS     := $(notdir $(patsubst %/,%,$(wildcard cmd/*/)))
FUZZTIME ?= 60s
# The small v3 archive `make run` dumps (recorded by the real pmlogger; see
# testdata/archives/README.md).
RUN_ARCHIVE ?= testdata/archives/pmcd-v3

.DEFAULT_GOAL := build
.PHONY: build completions install run test goldens fuzz bench clean

# The version and commit `make build` stamps into every binary
# (internal/version; --version prints them after the real tool's line).
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
VERSIONPKG := github.com/pcpkit/pcpkit/internal/version
LDFLAGS  := -X $(VERSIONPKG).version=$(VERSION) -X $(VERSIONPKG).commit=$(COMMIT)
# Static binaries: no cgo, so no glibc (its malloc arenas fail under a
# small `ulimit -v`) and no dependence on the build host's libraries.
BUILDFLAGS := -trimpath -ldflags '$(LDFLAGS)'
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin

# build: compile every package, and a static binary per cmd/<name> into
# bin/<name> (directories under cmd/ without Go files yet are skipped).
build:
	CGO_ENABLED=0 $(GO) build ./...
	@mkdir -p $(BIN)
	@set -e; for c in $(CMDS); do \
		if ls cmd/$$c/*.go >/dev/null 2>&1; then \
			echo "CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -o $(BIN)/$$c ./cmd/$$c"; \
			CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -o $(BIN)/$$c ./cmd/$$c; \
		else \
			echo "skipping cmd/$$c: no Go files yet"; \
		fi; \
	done

# completions: the bash, zsh and fish completion scripts of every tool,
# generated from the tools' option tables (internal/cli), into
# $(BIN)/completions.
completions:
	$(GO) run ./internal/cli/mkcompletions $(BIN)/completions

# install: the binaries `make build` made into $(DESTDIR)$(BINDIR), and
# the completion scripts where bash-completion and fish look for them
# (zsh: `source $(PREFIX)/share/pcpkit/pcpkit.zsh` in ~/.zshrc).
# PREFIX=/usr/local by default: `make install PREFIX=$$HOME/.local`.
SHAREDIR ?= $(PREFIX)/share
install: build completions
	@mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(SHAREDIR)/bash-completion/completions \
		$(DESTDIR)$(SHAREDIR)/fish/vendor_completions.d $(DESTDIR)$(SHAREDIR)/pcpkit
	@set -e; for c in $(CMDS); do \
		[ -x $(BIN)/$$c ] || continue; \
		echo "install -m 755 $(BIN)/$$c $(DESTDIR)$(BINDIR)/$$c"; \
		install -m 755 $(BIN)/$$c $(DESTDIR)$(BINDIR)/$$c; \
		install -m 644 $(BIN)/completions/pcpkit.bash $(DESTDIR)$(SHAREDIR)/bash-completion/completions/$$c; \
		install -m 644 $(BIN)/completions/pcpkit.fish $(DESTDIR)$(SHAREDIR)/fish/vendor_completions.d/$$c.fish; \
	done
	install -m 644 $(BIN)/completions/pcpkit.zsh $(DESTDIR)$(SHAREDIR)/pcpkit/pcpkit.zsh

run: build
	./$(BIN)/pmdumplog -a $(RUN_ARCHIVE)

# test: vet, staticcheck (where installed: $(STATICCHECK), else
# staticcheck on PATH), then every package's tests, reported as go test
# reports them (one "ok"/"FAIL" line per package, the output of failed
# tests) and with the tests each package skipped and why
# (internal/testreport). Set PCP_INTEROP=1 to make missing real PCP tools a
# failure. Each package has 30 minutes (go test's default 10 is too short
# for the interop packages on a loaded 2-CPU machine). Tests run even when
# vet or staticcheck complains, so that the
# log shows every package's result; the target fails if any does.
STATICCHECK ?= $(shell command -v staticcheck 2>/dev/null || ls $$($(GO) env GOPATH)/bin/staticcheck 2>/dev/null)
test:
	@status=0; \
	echo "$(GO) vet ./..."; $(GO) vet ./... || status=1; \
	if [ -n "$(STATICCHECK)" ]; then \
		echo "$(STATICCHECK) ./..."; $(STATICCHECK) ./... || status=1; \
	else \
		echo "staticcheck is not installed: skipped (go install honnef.co/go/tools/cmd/staticcheck@v0.8.2)"; \
	fi; \
	mkdir -p $(BIN); \
	$(GO) build -o $(BIN)/.testreport ./internal/testreport || exit 1; \
	echo "$(GO) test -count=1 -timeout 30m ./..."; \
	{ $(GO) test -count=1 -timeout 30m -json ./... 2>&1; echo $$? >$(BIN)/.test-status; } | $(BIN)/.testreport || status=1; \
	[ "$$(cat $(BIN)/.test-status)" = 0 ] || status=1; \
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
