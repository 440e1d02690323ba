# torchport's two entry points for a fresh machine: `make demo` and `make test`.
# Both create .venv, install the CPU build of PyTorch and torchport, then do their job.
# Elsewhere than on a machine with a local torch wheel, pick PyTorch's CPU index:
#   make demo TORCH_INDEX=https://download.pytorch.org/whl/cpu
#
# `make test` also gives the Docker tests an engine and the sandbox image: as root it installs
# docker.io when missing and starts dockerd when it is not running, then builds the image (once;
# later runs find it current and skip). Without TORCH_INDEX (no registry assumed) the image is
# built offline on a Debian base made here with debootstrap; with TORCH_INDEX it is built online
# on python:3.11-slim.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH_VERSION ?= 2.13.0
TORCH_INDEX ?=
DEMO_CASE ?= evals/suite/amp_classifier
DEMO_DIR ?= .cache/demo
SANDBOX_BASE ?= $(if $(TORCH_INDEX),python:3.11-slim,torchport-base:bookworm)
SANDBOX_BUILD_FLAGS ?= --with-triton $(if $(TORCH_INDEX),--torch-index $(TORCH_INDEX),--offline)

.PHONY: install demo test lint typecheck unit eval-ci docker-engine sandbox-image clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "torchport needs Python >= 3.11"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX)) torch==$(TORCH_VERSION)
	$(BIN)/pip install --quiet -e '.[dev,ray]'
	@touch $@

# The main job on a bundled example: scan it, then migrate a fresh git copy of it to the
# emulated TPU with rules only, run the original and the migration in the sandbox, and compare.
demo: install
	$(BIN)/agent scan $(DEMO_CASE)
	rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	cp -r $(DEMO_CASE) $(DEMO_DIR)/repo && rm -f $(DEMO_DIR)/repo/task.toml
	cd $(DEMO_DIR)/repo && git init -q -b main && git add -A && \
		git -c user.name=demo -c user.email=demo@example.com commit -qm "CUDA version"
	$(BIN)/agent fix $(DEMO_DIR)/repo --target tpu --no-llm --run "python train.py --steps 20"
	@echo "migrated code: git -C $(DEMO_DIR)/repo diff main torchport/tpu"

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

docker-engine:
	@sandbox/image/docker-engine.sh

sandbox-image: install docker-engine
	@if docker info >/dev/null 2>&1; then \
		$(if $(TORCH_INDEX),,sandbox/image/make-base-image.sh $(SANDBOX_BASE) &&) \
		$(BIN)/agent sandbox build --base $(SANDBOX_BASE) $(SANDBOX_BUILD_FLAGS); \
	else \
		echo "sandbox image: no Docker engine, not built (the Docker tests skip)"; \
	fi

unit: install
	$(BIN)/pytest

# The benchmark suite, rules only, on the emulated TPU: fails when a case misses the verdict its
# task.toml expects (a regression). Report: .torchport/evals/ci/EVAL_REPORT.md
eval-ci: install
	rm -rf .torchport/evals/ci
	$(BIN)/agent eval --no-llm --targets tpu --jobs 2 --run-dir .torchport/evals/ci

test: lint typecheck sandbox-image unit eval-ci

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
