# The two commands of the setup contract: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

JOBS ?= 2

.PHONY: run test test-fast warm bench bench-long docs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/stickbreak fit topics ap --model hdp --heldout 0.1 --seed 0 --out runs/ap

# Lint (ruff: pyflakes rules and the line length) and type-check (mypy, the packages listed in
# pyproject.toml), then compile the numba kernels into
# their cache once, before the test workers start (they would each compile the same kernels on a
# cold cache); then run every test.
test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks docs
	$(BIN)/python -m mypy
	$(BIN)/python -m stickbreak.kernels.warm -j $(JOBS)
	$(BIN)/python -m pytest -q -n $(JOBS)

test-fast: $(STAMP)
	$(BIN)/ruff check src tests benchmarks docs
	$(BIN)/python -m stickbreak.kernels.warm -j $(JOBS)
	$(BIN)/python -m pytest -q -n $(JOBS) -m "not slow"

warm: $(STAMP)
	$(BIN)/python -m stickbreak.kernels.warm -j $(JOBS) --report 10

# The documentation: user guide, API reference and gallery (every example runs), offline, warnings as errors.
# (Sphinx and its extensions come with the test extra: the test suite builds the pages too.)
docs: $(STAMP)
	$(BIN)/python -m stickbreak.kernels.warm -j $(JOBS)
	@start=$$(date +%s); \
	$(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html || exit 1; \
	echo "docs built in $$(( $$(date +%s) - start )) s: $$(find docs/_build/html -name '*.html' | wc -l) pages, 0 warnings -> docs/_build/html/index.html"

# Regenerate the result files the README and the docs quote, each stamped with commit, date, load
# and seconds (benchmarks/bench.py; `--check` lists the stale ones): `bench` the tier meant to end
# within an hour on 2 cores, `bench-long` the multi-hour sweeps and scale-out runs.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[peers]"
	$(BIN)/python benchmarks/bench.py --tier hour

bench-long: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[peers]"
	$(BIN)/python benchmarks/bench.py --tier long

clean:
	rm -rf $(VENV) runs build src/*.egg-info docs/_build docs/auto_examples docs/api/generated docs/generated
