# polo-lineup: set-up and checks. `make install` then `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check

.PHONY: install test bench sample clean

install:
	python3 -m venv $(VENV)
	# torch/torchvision pinned: these builds install from the machine's disk and import together.
	# constraints.txt: the exact versions the tests and README's figures were measured with.
	$(PIP) install --quiet -c constraints.txt torch==2.14.1 torchvision==0.29.1
	$(PIP) install --quiet -c constraints.txt -e '.[dev]'
	$(PY) -c "import rules, vision, synth, cli, ultralytics, cv2, shapely, matplotlib; print('polo-lineup installed')"
	# Debian's chromium renders the debrief page in a test (tests/test_debrief.py skips without it).
	# Needs root and apt-get; never fails the install.
	@if [ -x /usr/bin/chromium ]; then echo "chromium: present"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
	    && echo "chromium: installed" \
	    || echo "chromium: apt-get install failed; the browser test of the debrief page will be skipped"; \
	else echo "chromium: not installed (needs root and apt-get); the browser test of the debrief page will be skipped"; fi

test:
	$(PY) -m pytest -q

bench:
	bench/run

clean:
	rm -rf build *.egg-info .pytest_cache test-output
