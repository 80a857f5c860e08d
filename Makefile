# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench fuzz clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first, pinned: a CPU wheel of exactly this version is on disk; an unpinned torch pulls a CUDA build.
	$(PY) -m pip install --quiet "torch==2.13.0"
	$(PY) -m pip install --quiet -e ".[test,ray]"
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m pipeline run input/ -o output/

# MDX 3 + React, to check the Markdown in the tool Docusaurus/Astro users feed it to.
NODE_TOOLS := tests/doc_tools/node_modules/.installed
$(NODE_TOOLS): tests/doc_tools/package.json tests/doc_tools/package-lock.json
	cd tests/doc_tools && npm ci --silent --no-audit --no-fund
	touch $(NODE_TOOLS)

test: $(STAMP) $(NODE_TOOLS)
	$(PY) -m ruff check pipeline tests bench
	$(PY) -m pytest -q

# The by-hand baseline's OpenCC port installs a package named `opencc`, like the official
# OpenCC the pipeline uses: it goes to a folder of its own (bench/by_hand.py puts it on its path).
BYHAND := $(VENV)/byhand/.installed
$(BYHAND): $(STAMP)
	$(PY) -m pip install --quiet --upgrade --target $(VENV)/byhand "opencc-python-reimplemented==0.1.7"
	touch $(BYHAND)

bench: $(STAMP) $(BYHAND)
	$(PY) -m bench

# The long fuzz run: 10,000+ examples per property (make test runs a few hundred).
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q tests/test_fuzz.py tests/test_cleaning_properties.py

clean:
	rm -rf $(VENV) output
