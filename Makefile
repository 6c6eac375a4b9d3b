# drift-audit: `make help` lists the targets. Everything runs in ./.venv, made on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
DEMO_ARGS ?= speculators==0.3.0 --against vllm==0.17.0

.DEFAULT_GOAL := help
.PHONY: help setup demo test test-fast lint types contracts check golden clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,dev]'
	@touch $(STAMP)

setup: $(STAMP) ## create .venv and install drift-audit with its test and dev tools

demo: $(STAMP) ## run the headline audit: speculators 0.3.0 against vLLM 0.17.0
	$(BIN)/drift-audit $(DEMO_ARGS) || test $$? -eq 1

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

clean: ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
