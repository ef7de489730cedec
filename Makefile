# The two commands of the README: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint ruff types node bench fast fuzz mutate clean postgresql chromium random-play golden

# `make run` installs what running needs (about 35 s and 300 MB with a warm package cache);
# `make test` adds the dev extras (pytest, mypy, Playwright, Schemathesis...) on top.
$(BIN)/arbiter: pyproject.toml
	@echo "Installing Arbiter into $(VENV) (runtime only; 'make test' adds the dev tools)..."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar on -e .
	touch $@

$(VENV)/.dev: $(BIN)/arbiter
	@echo "Installing the dev tools into $(VENV)..."
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

# `make run PORT=8001` serves on another port.
PORT ?= 8000
run: $(BIN)/arbiter
	$(BIN)/arbiter serve --port $(PORT)

lint: ruff
	$(BIN)/mypy

ruff: $(VENV)/.dev
	$(BIN)/ruff check src tests bench tools

# The store tests start a throwaway PostgreSQL from Debian's package: install it when its
# binaries are missing (CI runs as root on a fresh machine); without root, those tests skip.
postgresql:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else \
		echo "PostgreSQL is not installed and this is not root: the PostgreSQL store tests will skip"; \
	fi

# The browser tests (tests/web) drive Debian's Chromium through Playwright: its headless
# shell (the same Blink, about 40% less CPU for the suite) and the full browser (bench/console.py,
# a GM's own checks); install them when missing (CI runs as root on a fresh machine); without
# root, they skip. Never `playwright install`: it downloads a browser build of its own.
chromium:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromium-headless-shell ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			chromium chromium-headless-shell >/dev/null; \
	else \
		echo "Chromium is not installed and this is not root: the browser tests will skip"; \
	fi

# The browser front end's types (docs/web.md, "Types and tests"): TypeScript, pinned in
# package.json and package-lock.json, installed from the npm registry by `npm ci`; tsc checks
# every module under src/arbiter/web/static from its JSDoc, under all of strict
# (jsconfig.json). The JavaScript unit tests (`node --test tests/js/`) run inside pytest:
# tests/web/test_js_units.py.
node:
	@if command -v node >/dev/null && command -v npm >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
	else \
		echo "Node.js and npm are missing and this is not root: install them to check the front end's types"; exit 1; \
	fi

node_modules/.package-lock.json: package.json package-lock.json | node
	npm ci --no-audit --no-fund
	touch $@

types: node_modules/.package-lock.json
	node_modules/.bin/tsc -p jsconfig.json

# The suite on every core (pytest-xdist; a file's tests stay on one worker, so a module's
# fixtures are made once), then the timed tests alone (`serial`: a server's latency and
# memory measured while nothing else runs; they live in tests/security, which
# tests/test_suite.py checks, so the second run collects only that folder).
# The compiled build that tests/sim/test_compiled.py checks is started first, in the
# background (its log: build/fast.log): on a fresh machine it compiles for about seven
# minutes on one core, and the checks and installs below overlap it. It runs at the lowest
# CPU priority (nice 19): the browser tests' timeouts must not compete with it. The test asks
# tools/fast.py again, which waits for this build (a lock) and finds it up to date.
# ruff and tsc (a few seconds) run first: their mistakes stop the run at once; mypy (15 s on
# one core) runs beside the parallel tests, which start on the core it leaves.
# One pytest worker more than cores: the browser tests wait on Chromium and the server part
# of the time, and a third worker fills that wait (2 cores: 279 -> 264 s, idle CPU 73 -> 19 s).
# The suite starts many Python processes (workers, servers, process pools): each reads
# Arbiter's bytecode once written instead of compiling its sources again (0.3 s each), even
# where the environment asks Python not to write bytecode.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
test: export PYTHONDONTWRITEBYTECODE =

test: $(VENV)/.dev
	@mkdir -p build
	@if $(BIN)/python -c 'import mypyc' 2>/dev/null; then \
		echo "Starting the compiled build in the background (build/fast.log)"; \
		nice -n 19 $(BIN)/python tools/fast.py --if-stale --out build/fast >build/fast.log 2>&1 & \
	fi
	$(MAKE) --no-print-directory ruff types postgresql chromium
	@echo "mypy runs beside the tests (build/mypy.log, shown after them; 'make lint' runs it alone)"
	@$(BIN)/mypy >build/mypy.log 2>&1 & mypy=$$!; \
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder -m "not serial"; \
	tests=$$?; wait $$mypy; typed=$$?; cat build/mypy.log; \
	if [ $$typed -ne 0 ]; then echo "mypy failed (above)"; exit 1; fi; exit $$tests
	$(BIN)/pytest -p no:xdist -m serial tests/security

bench: $(VENV)/.dev
	$(BIN)/python bench/dice.py
	$(BIN)/python bench/sim.py
	$(BIN)/python bench/server.py
	$(BIN)/python bench/console.py
	$(BIN)/python bench/scene.py
	$(BIN)/python bench/catalogue.py
	$(BIN)/python bench/options.py

# The compiled build (docs/performance.md): mypyc compiles the kernel, the rulesets and the
# simulator's hot path into build/fast (about four minutes on two cores; needs gcc and the
# Python headers). The pure package stays the default; use the build with
# PYTHONPATH=build/fast (bench/sim.py measures both).
fast: $(VENV)/.dev
	$(BIN)/python tools/fast.py --if-stale

# The long Schemathesis run against a live server (the short one is part of `make test`).
fuzz: $(VENV)/.dev
	$(BIN)/python bench/fuzz.py --examples 100

# Mutation testing of the rules (docs/mutation.md): not part of `make test`. An hour or
# more for the tenth sample on one core; SAMPLE=all|half|fifth|tenth, WORKERS=N.
SAMPLE ?= tenth
WORKERS ?= 1
mutate: $(VENV)/.dev
	$(BIN)/python bench/mutate.py --sample $(SAMPLE) --workers $(WORKERS)

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .mypy_cache .pytest_cache .ruff_cache node_modules

# The long random-play run (issue 32): 400 sequences of up to 120 steps per ruleset, with the
# invariants, replay and undo/redo checked after every step; prints what it played.
random-play: $(VENV)/.dev
	ARBITER_RANDOM_PLAY=long ARBITER_WATCHDOG=3600 $(BIN)/pytest -q -s -p no:cacheprovider tests/rulesets/test_random_play.py

# Regenerate tests/golden/logs.json (the seeded logs of every shipped encounter) and print
# what changed: after a change meant to change them; say why in the commit.
golden: $(VENV)/.dev
	$(BIN)/python -m tests.sim.golden
