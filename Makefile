# `make demo` and `make test` each create/refresh .venv and install navcore into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-all test-nojit fuzz fuzz-ci fuzz-atheris bench venv clean

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

# Test processes (pytest-xdist): on a cold numba cache most of the suite's
# time is compiling kernels, one core at a time; two processes use both of
# a 2-core machine. Each takes whole test folders in the order of
# tests/conftest.py's FOLDER_ORDER (--dist loadgroup --no-loadscope-reorder),
# so a plugin's kernels compile in one process and the other loads them
# from the shared on-disk cache. TEST_JOBS=0 runs in one process.
TEST_JOBS ?= 2

test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow" -n $(TEST_JOBS) --dist loadgroup --no-loadscope-reorder --durations=30
	NUMBA_DISABLE_JIT=1 $(BIN)/python -m pytest -q -m nojit -n $(TEST_JOBS) -o addopts="-p no:cacheprovider" tests

test-all: $(STAMP)
	$(BIN)/python -m pytest -q

test-nojit: $(STAMP)
	NUMBA_DISABLE_JIT=1 $(BIN)/python -m pytest -q -m nojit -o addopts="-p no:cacheprovider" tests

# The fuzzing harness (tests/fuzz: the public API, file loaders, damaged
# saved .npz files, update sequences against a reference, a world's
# lifecycle across threads), long: many examples per test with fresh seeds;
# raw exceptions, hangs and wrong answers (disagreements) are written to
# out/fuzz.jsonl and tallied at the end instead of stopping the run, and
# the tally fails the target if there is any. FUZZ_EXAMPLES=N changes the
# length; FUZZ_SEED=N fixes the seed (hypothesis's --hypothesis-seed, no
# example database) so a run can be repeated. On a shared machine:
# flock /tmp/navcore-cpu.lock make fuzz
# Each call has its own hang guard (tests/fuzz/fuzzkit.py); pytest's
# faulthandler_timeout, the last resort for a kernel that never returns,
# grows with the examples a test runs (a quarter second each on top of two
# minutes): a fixed two minutes fired on long runs on a busy machine.
FUZZ_EXAMPLES ?= 1500
FUZZ_SEED ?=
FUZZ_TEST_SECONDS = $(shell echo $$((120 + $(FUZZ_EXAMPLES) / 4)))
fuzz: $(STAMP)
	mkdir -p out && rm -f out/fuzz.jsonl
	NAVCORE_FUZZ=1 NAVCORE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) NAVCORE_FUZZ_SEED=$(FUZZ_SEED) \
		NAVCORE_FUZZ_SURVEY=out/fuzz.jsonl $(BIN)/python -m pytest -q -m fuzz \
		-o faulthandler_timeout=$(FUZZ_TEST_SECONDS) $(if $(FUZZ_SEED),--hypothesis-seed=$(FUZZ_SEED)) tests/fuzz
	$(BIN)/python tests/fuzz/tally.py out/fuzz.jsonl

# CI's brief fuzz run (.ci/run, after make test): every fuzz test with
# FUZZ_CI_EXAMPLES examples and seed 0, about two minutes on two cores
FUZZ_CI_EXAMPLES ?= 150
fuzz-ci: $(STAMP)
	$(MAKE) fuzz FUZZ_EXAMPLES=$(FUZZ_CI_EXAMPLES) FUZZ_SEED=0

# Coverage-guided fuzzing of the file loaders (atheris, libFuzzer), SECONDS
# per loader; a raw exception stops it with the input in out/atheris/crash-*
LOADERS ?= map scen mesh dimacs-gr dimacs-co geojson osm
SECONDS ?= 60
fuzz-atheris: $(STAMP)
	$(BIN)/python -m pip install --quiet atheris
	mkdir -p out/atheris
	for l in $(LOADERS); do \
		(cd out/atheris && ../../$(BIN)/python ../../tests/fuzz/atheris_loaders.py $$l \
			-max_total_time=$(SECONDS) > $$l.log 2>&1) || { tail -30 out/atheris/$$l.log; exit 1; }; \
		echo "$$l: $$(grep -c . out/atheris/$$l.log) log lines, $$(tail -1 out/atheris/$$l.log)"; \
	done

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
# extremitypathfinder pins numpy<2 in its metadata but runs on numpy 2 (bench/navmesh.py
# checks its answers); --no-deps keeps numpy 2 for every benchmark
	$(BIN)/python -m pip install --quiet --no-deps 'extremitypathfinder==2.7.2'
# its wheel also installs a top-level package named tests, which would shadow
# this repository's tests/ (tests import tests.reference)
	$(BIN)/python -c "import shutil, sysconfig; shutil.rmtree(sysconfig.get_paths()['purelib'] + '/tests', ignore_errors=True)"
	$(BIN)/python bench/csr.py
	$(BIN)/python bench/grid.py
	$(BIN)/python bench/navmesh.py
	$(BIN)/python bench/roads.py
	$(BIN)/python bench/levels.py

clean:
	rm -rf $(VENV) build *.egg-info
