# bulkfleet — thin wrapper around CMake. The two commands a new user needs:
#   make demo    a real campaign against a real OpenSearch cluster it starts itself
#   make check   every test (unit, integration against a real cluster, fleet, deploy)
BUILD ?= build
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo
JOBS ?= $(shell nproc)

.PHONY: all deps build demo check unit lint format clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) $(if $(CI),-DBF_WERROR=ON) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh

FUZZ_SECONDS ?= 30

# clang-format on lines changed since .lint-base, banned functions, messages through bf_log,
# SPDX lines, scenario keys vs docs/scenario.md (scripts/lint.sh says what and why)
lint:
	@scripts/lint.sh

# rewrite the lines `make lint` would complain about
format:
	@scripts/lint.sh --fix-format

check: lint build
	@scripts/devcluster.sh build
	@echo "fuzzing the scenario loader, the template compiler, the bulk response judge and sample merging for $(FUZZ_SECONDS) s each"
	@tests/fuzz/run.sh $(FUZZ_SECONDS)
	@cd $(BUILD) && ctest --output-on-failure -j 1 $(CTEST_ARGS)

unit: build
	@cd $(BUILD) && ctest --output-on-failure -L unit

clean:
	rm -rf $(BUILD)
