# Thin wrapper: the real build is CMake. `make test` is what CI runs.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: deps configure build test demo bench format format-check clean

deps:
	bash scripts/install-deps

configure: deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build format-check
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target gpupool
	bash scripts/demo

bench: build
	bash scripts/bench

format:
	bash scripts/format

format-check:
	bash scripts/format --check
