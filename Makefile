# The two commands of the README: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench clean

$(BIN)/arbiter: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

run: $(BIN)/arbiter
	$(BIN)/arbiter demo

lint: $(BIN)/arbiter
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

test: lint
	$(BIN)/pytest

bench: $(BIN)/arbiter
	$(BIN)/python bench/dice.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .mypy_cache .pytest_cache .ruff_cache
