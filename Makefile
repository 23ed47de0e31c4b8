# Thin wrapper: the real build is CMake. `make test` is what CI runs.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: deps configure build test demo bench format format-check include-check clean

deps:
	@bash scripts/install-deps

configure: deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build format-check include-check
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The demo builds only the binary it runs, quietly: the build's output goes to a log,
# shown only when the build fails.
DEMO_LOG = $(BUILD_DIR)/demo-build.log
demo: deps
	@mkdir -p $(BUILD_DIR)
	@echo "Building $(BUILD_DIR)/gpupool (log: $(DEMO_LOG))"
	@{ cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS) && \
	   cmake --build $(BUILD_DIR) -j $(JOBS) --target gpupool; } \
	   >$(DEMO_LOG) 2>&1 || { tail -n 60 $(DEMO_LOG); exit 1; }
	@GPUPOOL=$(abspath $(BUILD_DIR))/gpupool bash scripts/demo

bench: build
	bash scripts/bench

format:
	bash scripts/format

format-check:
	bash scripts/format --check

include-check:
	python3 scripts/check-includes
