# drift-audit: `make help` lists the targets. Everything runs in ./.venv, made on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
DEMO_ARGS ?= speculators==0.3.0 --against vllm==0.17.0
REPORTS_ARGS ?= speculators==0.3.0 --against vllm==0.16.0 --against vllm==0.17.0
REPORTS := reports/speculators-0.3.0-vs-vllm
CHROMIUM_FLAGS := --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync --hide-scrollbars

.DEFAULT_GOAL := help
.PHONY: help setup demo test test-fast lint types contracts check golden clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

# What an audit needs (make demo), then the test and dev tools on top (everything else).
$(RUN_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	@# bytecode now, as pip compiles an installed wheel: with PYTHONDONTWRITEBYTECODE=1 set
	@# (some CI runners), an editable install would compile every module on every run
	$(PY) -m compileall -q auditor
	@touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP)
	$(BIN)/pip install --quiet -e '.[test,dev]'
	@touch $(STAMP)

setup: $(STAMP) ## create .venv and install drift-audit with its test and dev tools

demo: $(RUN_STAMP) ## run the headline audit: speculators 0.3.0 against vLLM 0.17.0 (installs only what it needs)
	$(BIN)/drift-audit $(DEMO_ARGS) || test $$? -eq 1
	@echo "drift-audit is installed in $(VENV): run $(BIN)/drift-audit (or activate $(VENV)/bin/activate)"

.PHONY: reports
reports: $(STAMP) ## rewrite reports/: the headline audit (vLLM 0.16.0, 0.17.0) as html, json, sarif, md
	$(BIN)/drift-audit $(REPORTS_ARGS) --format html -o $(REPORTS).html || test $$? -eq 1
	$(BIN)/drift-audit $(REPORTS_ARGS) --offline --format json -o $(REPORTS).json || test $$? -eq 1
	$(BIN)/drift-audit $(REPORTS_ARGS) --offline --format sarif -o $(REPORTS).sarif || test $$? -eq 1
	$(BIN)/drift-audit $(REPORTS_ARGS) --offline --format markdown -o $(REPORTS).md || test $$? -eq 1
	@if command -v chromium >/dev/null 2>&1; then \
		profile=$$(mktemp -d) && \
		chromium $(CHROMIUM_FLAGS) --user-data-dir=$$profile --window-size=1280,1600 \
			--screenshot=$(CURDIR)/$(REPORTS).png file://$(CURDIR)/$(REPORTS).html 2>/dev/null; \
		status=$$?; rm -rf $$profile; exit $$status; \
	else echo "reports: no chromium on PATH; $(REPORTS).png left as it was"; fi

test: $(STAMP) ## run the whole test suite (network tests included)
	$(PY) -m pytest -q

test-fast: $(STAMP) ## run the suite without the tests that need the package index
	$(PY) -m pytest -q -m 'not network'

lint: $(STAMP) ## ruff check and format check
	$(BIN)/ruff check auditor tests
	$(BIN)/ruff format --check auditor tests

types: $(STAMP) ## mypy --strict on the package
	$(BIN)/mypy

contracts: $(STAMP) ## the layers contract in .importlinter
	$(BIN)/lint-imports

check: lint types contracts ## lint, types and contracts

golden: $(STAMP) ## rewrite the golden reports after a reviewed change
	$(PY) -m pytest -q tests/functional/test_golden.py --update-golden

.PHONY: figures
figures: $(STAMP) ## recompute the figures the docs quote (docs/figures.json and each <!-- fig:... --> marker)
	$(PY) -m tests.docfigures --write

WORLD_ARGS ?=
WORLD_MANIFEST := $(firstword $(wildcard tests/world/manifest.toml) tests/world/manifest-dev.toml)
WORLD_FLAGS := --manifest $(WORLD_MANIFEST) $(WORLD_ARGS)

.PHONY: world
world: $(STAMP) ## real upgrades x dependents judged by the interpreter -> docs/world.md (WORLD_ARGS='--only ID --limit N')
	@test -f tests/world/manifest.toml || \
		echo "world: tests/world/manifest.toml is absent; using tests/world/manifest-dev.toml"
	@$(PY) -m tests.world.run $(WORLD_FLAGS); run=$$?; \
	$(PY) -m tests.world.judge $(WORLD_FLAGS); judge=$$?; \
	$(PY) -m tests.world.score $(WORLD_FLAGS) || exit 1; \
	test $$run -eq 0 -a $$judge -eq 0 || { echo "world: some upgrades could not run or be judged (see above)"; exit 1; }

SUITES_ARGS ?=

.PHONY: world-suites
world-suites: $(STAMP) ## the test-suite judge: each dependent's own tests at both releases, then score (slow, resumable; SUITES_ARGS='--budget 3600')
	@$(PY) -m tests.world.suites $(WORLD_FLAGS) $(SUITES_ARGS); suites=$$?; \
	$(PY) -m tests.world.score $(WORLD_FLAGS) || exit 1; \
	test $$suites -eq 0 || { echo "world-suites: some suites could not run (see above); rerun to resume"; exit 1; }

.PHONY: bench
bench: $(STAMP) ## time the headline audit cold and warm vs the whole-wheel path (needs the network)
	@# bytecode for every module edited since setup: with PYTHONDONTWRITEBYTECODE=1 each run
	@# would compile those again (a module as big as model.py: ~10 ms a run)
	$(PY) -m compileall -q auditor
	$(PY) benchmarks/bench.py
	$(PY) benchmarks/bench_ecosystem.py

.PHONY: bench-ecosystem
bench-ecosystem: $(STAMP) ## ecosystem runs on 200 synthetic consumers: per core, 1 vs 2 workers, sharing, the store
	$(PY) -m compileall -q auditor
	$(PY) benchmarks/bench_ecosystem.py
	$(PY) benchmarks/bench_ecosystem.py --store

clean: ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
