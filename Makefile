# `make demo` and `make test` each create/refresh .venv and install navcore into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-all test-nojit bench venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The default scene, played headless; its last frame drawn to out/dungeon.png
# (README shows a copy, docs/dungeon.png) and the run animated to out/dungeon.gif.
demo: $(STAMP)
	$(BIN)/navcore run scenes/dungeon.yaml --render out/dungeon.png --gif out/dungeon.gif --borders

test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"
	NUMBA_DISABLE_JIT=1 $(BIN)/python -m pytest -q -m nojit -o addopts="-p no:cacheprovider" tests

test-all: $(STAMP)
	$(BIN)/python -m pytest -q

test-nojit: $(STAMP)
	NUMBA_DISABLE_JIT=1 $(BIN)/python -m pytest -q -m nojit -o addopts="-p no:cacheprovider" tests

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
# extremitypathfinder pins numpy<2 in its metadata but runs on numpy 2 (bench/navmesh.py
# checks its answers); --no-deps keeps numpy 2 for every benchmark
	$(BIN)/python -m pip install --quiet --no-deps 'extremitypathfinder==2.7.2'
	$(BIN)/python bench/csr.py
	$(BIN)/python bench/grid.py
	$(BIN)/python bench/navmesh.py
	$(BIN)/python bench/roads.py

clean:
	rm -rf $(VENV) build *.egg-info
