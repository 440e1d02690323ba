# torchport's two entry points for a fresh machine: `make demo` and `make test`.
# Both create .venv, install the CPU build of PyTorch and torchport, then do their job.
# Elsewhere than on a machine with a local torch wheel, pick PyTorch's CPU index:
#   make demo TORCH_INDEX=https://download.pytorch.org/whl/cpu

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH_VERSION ?= 2.13.0
TORCH_INDEX ?=
DEMO_CASE ?= evals/suite/amp_classifier

.PHONY: install demo test lint typecheck unit clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "torchport needs Python >= 3.11"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX)) torch==$(TORCH_VERSION)
	$(BIN)/pip install --quiet -e '.[dev]'
	@touch $@

demo: install
	$(BIN)/agent scan $(DEMO_CASE)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

unit: install
	$(BIN)/pytest

test: lint typecheck unit

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
