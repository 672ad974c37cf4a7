# bulkfleet — thin wrapper around CMake. The two commands a new user needs:
#   make demo    a real campaign against a real OpenSearch cluster it starts itself
#   make check   lint, then every test in tiers (unit, integration against a real cluster,
#                root-only fleet and deploy, fuzzing, sanitizers), each tier timed
# and for a quick loop without root or installs (packages already there):
#   make build       configure + compile (checks the build packages only, installs nothing
#                    unless root and one is missing)
#   make test-unit   the unit tier alone (seconds)
BUILD ?= build
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo
JOBS ?= $(shell nproc)

.PHONY: all deps deps-build build compile demo check test-unit unit lint format clean

all: build

deps:
	@scripts/install-deps.sh

# only the packages the build needs (compiler, cmake, libraries): no root when they are there
deps-build:
	@scripts/install-deps.sh --build

build: deps-build compile

# configure and compile, never installing anything
compile:
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) $(if $(CI),-DBF_WERROR=ON) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# every package the demo needs (Java and Maven for the dev cluster too), then the build
demo: deps
	@$(MAKE) --no-print-directory compile
	@scripts/demo.sh

FUZZ_SECONDS ?= 15

# clang-format on lines changed since .lint-base, banned functions, messages through bf_log,
# SPDX lines, scenario keys vs docs/scenario.md (scripts/lint.sh says what and why)
lint:
	@scripts/lint.sh

# rewrite the lines `make lint` would complain about
format:
	@scripts/lint.sh --fix-format

# tiers in order (scripts/check.sh): unit -> integration -> root (netns, deploy) -> fuzz ->
# sanitize; each prints its time, the first failing tier stops the check.
# `make check TIERS="unit sanitize"` runs only those.
check: deps lint compile
	@FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) CMAKE_FLAGS="$(CMAKE_FLAGS)" CTEST_ARGS="$(CTEST_ARGS)" \
		scripts/check.sh $(BUILD) $(TIERS)

test-unit: compile
	@scripts/check.sh $(BUILD) unit

unit: test-unit

clean:
	rm -rf $(BUILD)
