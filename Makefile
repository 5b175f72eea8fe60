# guigym: two commands set everything up on a fresh machine (Python >= 3.10):
#   make demo   - oracle on GuiGym-Login-v0 (mock backend), success rate + GIF in out/
#   make test   - the whole test suite (installs a headless Chromium for the browser tests)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
BASE   := $(VENV)/.guigym-base
STAMP  := $(VENV)/.guigym-all

.PHONY: demo test bench chromium install clean

# the library alone (mock backend): enough for the demo
$(BASE): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e .
	@touch $(BASE)

# everything the tests touch: browser, RL (torch 2.13.0, SB3), VLM (transformers), datasets;
# pyproject.toml declares ranges, constraints.txt pins the exact versions CI tests.
# PyPI's Linux torch wheel is the CUDA build (GBs of nvidia-* packages); for the CPU wheel:
#   make install TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=
$(STAMP): $(BASE)
	$(BIN)/python -m pip install -q -c constraints.txt $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) -e ".[all]"
	@touch $(STAMP)

install: $(STAMP)

demo: $(BASE)
	SDL_AUDIODRIVER=dummy $(BIN)/python -m guigym.demo --env GuiGym-Login-v0 --episodes 200 --gif out/demo.gif

chromium: $(STAMP)
	sh scripts/ensure_chromium.sh $(BIN)/python

test: $(STAMP) chromium
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(BIN)/python -m pytest -q --durations=25  # the slowest tests, for whoever speeds the suite up

# chromium as a prerequisite, not a recursive $(MAKE) in the recipe: make -n ran that line for real
bench: $(STAMP) chromium
	SDL_AUDIODRIVER=dummy $(BIN)/python benchmarks/bench_env.py
	$(BIN)/python benchmarks/bench_browser.py

clean:
	rm -rf $(VENV) out build *.egg-info .pytest_cache .hypothesis
