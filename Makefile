# Two commands for a fresh machine: `make serve` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CACHE := .cache
HOST ?= 127.0.0.1
PORT ?= 8000
# More `ladder serve` options, e.g. SERVE_ARGS="--engines 2 --api-keys keys.txt".
SERVE_ARGS ?=

.PHONY: setup bytecode engine reference-engines browser balancers bench-tools serve test test-slow lint calibrate clean

# `make serve` and `make test` run the engine `make engine` builds, unless the environment
# names one (LADDER_ENGINE, or its deprecated name MISTBOARD_ENGINE): the engine lookup
# would otherwise put a `ladder engine build` in the per-user cache first.
ifeq ($(LADDER_ENGINE)$(MISTBOARD_ENGINE),)
export LADDER_ENGINE := $(CURDIR)/$(CACHE)/fairy-stockfish
endif

# The virtualenv: every dependency, transitive ones too, at the lock's version and
# hash (requirements/test.lock; scripts/lock_dependencies.sh makes it from
# pyproject.toml), then the project itself, editable, without resolving anything again.
$(VENV)/.installed: pyproject.toml requirements/test.lock
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip==25.3
	$(PY) -m pip install --quiet --require-hashes -r requirements/test.lock
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

# The patched engine (fast build), the unpatched reference build used by the tests,
# and pyffish from the same patched tree. Cached: a second run rebuilds nothing.
engine: $(VENV)/.installed
	mkdir -p $(CACHE)
	ln -sfn "$$($(PY) scripts/build_engine.py | tail -n 1)" $(CACHE)/fairy-stockfish
	ln -sfn "$$($(PY) scripts/build_engine.py --unpatched --profile plain | tail -n 1)" $(CACHE)/fairy-stockfish-unpatched
	wheel="$$($(PY) scripts/build_engine.py --pyffish-wheel | tail -n 1)"; \
	if [ "$$(cat $(VENV)/.pyffish-installed 2>/dev/null)" != "$$wheel" ]; then \
		$(PY) -m pip install --quiet --force-reinstall --no-deps "$$wheel" && echo "$$wheel" > $(VENV)/.pyffish-installed; \
	fi

# Engines and a GUI we did not build (Debian's stockfish, fairy-stockfish, sjaakii, fairymax's
# maxqi; xboard under xvfb), for the protocol, match and ladder-as-an-engine tests.
reference-engines:
	bash scripts/install_reference_engines.sh

# Debian's chromium, for the /play page's browser tests (Playwright drives it).
browser:
	bash scripts/install_browser.sh

# Debian's nginx and haproxy, for the tests of deploy/'s balancer setups (started
# unprivileged by the tests, never as system services).
balancers:
	bash scripts/install_balancers.sh

# Debian's wrk and valgrind, for the service's benches (scripts/bench_service.py part 8,
# scripts/bench_service_instructions.py); no test needs them.
bench-tools:
	bash scripts/install_bench_tools.sh

# The package's bytecode, compiled once here: an environment that writes none
# (PYTHONDONTWRITEBYTECODE, as on the CI machines) would otherwise compile every module
# from source in every process it starts (0.05 s a match worker or command here).
# compileall writes only what is older than its source.
bytecode: $(VENV)/.installed
	$(PY) -m compileall -q ladder protocol

setup: $(VENV)/.installed engine bytecode

serve: setup
	$(VENV)/bin/ladder serve --host $(HOST) --port $(PORT) $(SERVE_ARGS)

# The suite runs on every core (pytest-xdist), a test file to a worker (tests/conftest.py
# says how: a file's tests share its module fixtures).
test: setup reference-engines browser balancers lint
	$(VENV)/bin/pytest -n auto

test-slow: setup reference-engines browser balancers
	$(VENV)/bin/pytest -m slow

# Static checks (also the first step of `make test`): lint, format, types. ladder/ and
# protocol/ are checked with --strict; tests/ and scripts/ in mypy's default mode.
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy --strict ladder protocol
	$(VENV)/bin/mypy tests scripts

# The ladder's calibration (docs/tuning.md): resumes from the committed record in
# calibration/ and writes calibration/levels-calibrated.toml (never the shipped file).
calibrate: setup
	$(VENV)/bin/ladder calibrate --plan calibration/plan.toml --record calibration \
		--db calibration/ladder.sqlite --out calibration/levels-calibrated.toml

clean:
	rm -rf $(VENV) $(CACHE)
