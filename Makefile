# Aletheia: `make run` starts the hub, `make test` runs every suite. `make help` lists the rest.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# pytest worker processes: many tests wait on real hub processes, so more than the cores pays.
TEST_WORKERS ?= 3
PACKAGES := shared/pyproject.toml services/hub/pyproject.toml services/stdio-proxy/pyproject.toml

.DEFAULT_GOAL := help
.PHONY: help install install-user wheels lock run test conformance lint format bench clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(STAMP): $(PACKAGES) pyproject.toml requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Aletheia needs Python 3.11 or newer (set PYTHON=...)")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r requirements.lock
	@# The distributions' former names (aletheia-mcp is another project's in the registry).
	$(BIN)/python -m pip uninstall --quiet --quiet --yes aletheia-hub aletheia-mcp aletheia-shared
	$(BIN)/python -m pip install --quiet --no-deps -e shared -e services/stdio-proxy -e 'services/hub[embed]'
	@touch $(STAMP)

install: $(STAMP) ## create .venv and install the three packages (editable) and the dev tools

install-user: ## put aletheia, aletheia-server, aletheia-sync and aletheia-mcp on your PATH (~/.local/bin)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Aletheia needs Python 3.11 or newer (set PYTHON=...)")'
	$(PYTHON) tools/install_user.py

wheels: ## build the three packages' wheels into dist/wheels (for uv tool install --find-links)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Aletheia needs Python 3.11 or newer (set PYTHON=...)")'
	$(PYTHON) tools/install_user.py --wheel-dir dist/wheels

lock: install ## re-resolve uv.lock after a pyproject.toml change and write requirements*.lock
	$(BIN)/python tools/lock.py

run: install ## start the hub on the local SQLite store and print how to connect a host
	$(BIN)/aletheia-server

# The judges mostly wait on Node and host processes: they run beside the suite, their report
# is printed when both are done, and either failing fails the target.
test: install ## run every test suite (PostgreSQL ones skip without a server unless CI=true) and make conformance
	@mkdir -p .cache
	@$(BIN)/python judges/run.py > .cache/judges.log 2>&1 & judges=$$!; \
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile; tests=$$?; \
	wait $$judges; judged=$$?; \
	echo "--- make conformance (run beside the suite) ---"; cat .cache/judges.log; \
	test $$tests -eq 0 && test $$judged -eq 0

conformance: install ## the judges alone: conformance suite, Inspector, both SDKs and four real hosts against real hubs
	$(BIN)/python judges/run.py

lint: install ## ruff (lint + format check) and mypy --strict
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: install ## apply ruff's formatting and safe fixes
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install ## run the benchmarks and print their figures
	$(BIN)/python bench/roundtrip.py

clean: ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .cache
