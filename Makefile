# The two commands a newcomer needs: `make demo` and `make test`. Both create .venv if missing.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
OUT    ?= out

.PHONY: demo test test-min lint gpu-check bench clean

# A .venv whose Python is older than 3.10 (made before a newer one was installed, or with
# PYTHON=) is made again from $(PYTHON), which is checked first.
NEW_ENOUGH := -c 'import sys; sys.exit(sys.version_info < (3, 10))'
$(STAMP): pyproject.toml
	@$(PY) $(NEW_ENOUGH) 2>/dev/null || { \
	  $(PYTHON) $(NEW_ENOUGH) 2>/dev/null || { \
	    echo "yeefdtd needs Python 3.10 or newer, and '$(PYTHON)' is not: give one, make ... PYTHON=python3.X" >&2; \
	    exit 1; }; \
	  $(PYTHON) -m venv --clear $(VENV); }
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	@touch $(STAMP)

## Run the main example on the default backend (CUDA where usable, NumPy otherwise).
demo: $(STAMP)
	$(VENV)/bin/yeefdtd info
	$(VENV)/bin/yeefdtd run examples/dipole_cpml.toml -o "$(OUT)/dipole_cpml.h5" --plot
	@echo "wrote $(OUT)/dipole_cpml.h5 and PNG plots beside it"

## Lint, then the whole test suite (GPU tests skip themselves without a GPU).
test: $(STAMP)
	$(VENV)/bin/ruff check src tests $(wildcard benchmarks)
	$(PY) -m pytest -q

## The test suite at the oldest versions pyproject allows (tests/minimum-versions.txt), in
## a venv of its own, .venv-min; those versions have wheels up to Python 3.11.
test-min:
	$(PYTHON) -m venv --clear .venv-min
	.venv-min/bin/python -m pip install -q --upgrade pip
	.venv-min/bin/python -m pip install -q -c tests/minimum-versions.txt -e '.[test]'
	.venv-min/bin/python -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests $(wildcard benchmarks)

## On a GPU machine, without network or venv: GPU tests, parity and the benchmark table.
## Needs pydantic importable (see README, "Development"); logs go to $$OUT (default ./out).
gpu-check:
	PYTHONPATH="$${PYTHONPATH:+$$PYTHONPATH:}$(CURDIR)/src" ./benchmarks/gpu_check.sh "$(OUT)"

clean:
	rm -rf $(VENV) .venv-min "$(OUT)" .pytest_cache .ruff_cache
