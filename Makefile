# The two commands of the setup contract: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/stickbreak fit topics ap --model hdp --n-topics 50 --max-laps 20 --heldout 0.1 --seed 0 --quiet --out runs/ap

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

bench: $(STAMP)
	$(BIN)/python benchmarks/mixtures.py
	$(BIN)/python -m pip install --quiet -e ".[peers]"
	$(BIN)/python benchmarks/topics.py

clean:
	rm -rf $(VENV) runs build src/*.egg-info
