# polo-lineup: set-up and checks. `make install` then `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check

.PHONY: install test bench sample clean

install:
	python3 -m venv $(VENV)
	# torch/torchvision pinned: these builds install from the machine's disk and import together.
	$(PIP) install --quiet torch==2.14.1 torchvision==0.29.1
	$(PIP) install --quiet -e '.[dev]'
	$(PY) -c "import rules, vision, synth, cli, ultralytics, cv2, shapely; print('polo-lineup installed')"

test:
	$(PY) -m pytest -q

bench:
	bench/run

clean:
	rm -rf build *.egg-info .pytest_cache test-output
