#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check.sh — the tiers of `make check`, in order, each timed; stops at the first tier that fails.
#
#   scripts/check.sh BUILD_DIR [TIER ...]      TIER: unit integration root fuzz sanitize
#                                               (default: all five, in that order)
#
#   unit         cmocka unit tests and the lint self-test (ctest -L unit): seconds, no root,
#                no cluster, nothing installed
#   integration  real processes against the real OpenSearch dev cluster (started once by the
#                devcluster fixture and kept up for the next tier) and the fault server:
#                every ctest label except unit, netns, deploy and fuzz; two lanes (ctest -j 2):
#                the OpenSearch dev cluster tests one at a time, the engine tests (Elasticsearch,
#                OpenSearch 1.x/3.x) one at a time beside them, the no-cluster ones anywhere
#   root         multi-host fleet tests in network namespaces and the Ansible deploy test
#                (labels netns, deploy; they skip, exit 77, without root); two lanes: the
#                netns tests one at a time, deploy_ansible beside netns_chaos and netns_failures
#                (the resource locks in tests/CMakeLists.txt); stops the cluster
#   fuzz         tests/fuzz/run.sh FUZZ_SECONDS per target (libFuzzer, ASan+UBSan, fixed seed),
#                build folder BUILD_DIR/fuzz
#   sanitize     the unit tests again built with ASan+UBSan (BUILD_DIR/asan), and the
#                standalone agent built with TSan (BUILD_DIR/tsan) against the fault server
#                with 4 threads (tests/sanitize/tsan_agent.sh); any report fails the tier
#
# Environment: FUZZ_SECONDS (15), JOBS (nproc), CTEST_ARGS (extra ctest arguments),
# CMAKE_FLAGS (for the sanitizer and fuzz builds too). Everything is written under BUILD_DIR.
set -uo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:?usage: check.sh BUILD_DIR [TIER ...]}"
shift
mkdir -p "$BUILD"
BUILD="$(cd "$BUILD" && pwd)"
TIERS=("$@")
[ ${#TIERS[@]} = 0 ] && TIERS=(unit integration root fuzz sanitize)
JOBS=${JOBS:-$(nproc)}
FUZZ_SECONDS=${FUZZ_SECONDS:-15}
CTEST_ARGS=${CTEST_ARGS:-}
SUMMARY=""
CLUSTER_UP=0

stop_cluster() {
    if [ "$CLUSTER_UP" = 1 ]; then
        (cd "$BUILD" && ctest -R '^devcluster_stop$' >/dev/null 2>&1) || true
        CLUSTER_UP=0
    fi
}
trap stop_cluster EXIT

# ctest with the dev cluster fixture shared between the integration and root tiers: the first
# starts it and does not stop it (-FC), the second does not start it again (-FS).
# run_ctest PARALLEL ARGS... — unit tests run in parallel; integration ones in two lanes: the
# tests that use an OpenSearch dev cluster hold the ctest resource lock bf_cluster and run one at
# a time (they share the cluster and measure time), the engine tests hold bf_engine and run one at
# a time beside them, the few that need no cluster (BF_LANE2_TESTS) run anywhere (the locks and
# why: tests/CMakeLists.txt)
run_ctest() {
    local j=$1
    shift
    # shellcheck disable=SC2086
    (cd "${CT_DIR:-$BUILD}" && ctest --output-on-failure -j "$j" "$@" $CTEST_ARGS)
}

tier_unit() {
    run_ctest "$JOBS" -L '^unit$'
}

# the dev cluster launchers are built (Maven, deploy/devcluster*/target) before the tier's
# source-tree snapshot: it is a build product of its own
prep_integration() {
    "$SRC/scripts/devcluster.sh" build || return 1
    # the Elasticsearch 8 launcher (deploy/devcluster-es8/target, the elasticsearch_* tests)
    "$SRC/scripts/devcluster.sh" build --engine elasticsearch8 || return 1
    # and the Elasticsearch 9 one (Java 21+, elasticsearch_es9_quickstart says why when it is not)
    "$SRC/scripts/devcluster.sh" build --engine elasticsearch9 > /dev/null 2>&1 ||
        echo "check: the Elasticsearch 9 launcher did not build here; elasticsearch_es9_quickstart says why" >&2
    # and the OpenSearch 3.x launcher (deploy/devcluster-os3/target, integration_opensearch3),
    # which the test would otherwise build inside the tier; it needs a Java 21+
    BF_DEVCLUSTER_OPENSEARCH=3 "$SRC/scripts/devcluster.sh" build > /dev/null 2>&1 ||
        echo "check: the OpenSearch 3.x launcher did not build here; integration_opensearch3 says why" >&2
    # and the Elasticsearch 7.17 and OpenSearch 1.3 class-path launchers (deploy/devcluster-es7,
    # deploy/devcluster-os1: elasticsearch_es7_quickstart, integration_opensearch1)
    local e
    for e in elasticsearch7 opensearch1; do
        "$SRC/scripts/devcluster.sh" build --engine "$e" > /dev/null 2>&1 ||
            echo "check: the $e launcher did not build here; its tests say why" >&2
    done
}

# the root tier starts the same 2.19 dev cluster (netns and deploy tests): its launcher too is
# built before that tier's snapshot, when the integration tier did not run first
prep_root() {
    "$SRC/scripts/devcluster.sh" build
}

tier_integration() {
    CLUSTER_UP=1
    run_ctest 2 -LE '^(unit|netns|deploy|fuzz)$' -E '^devcluster_stop$' -FC devcluster
}

tier_root() {
    if [ "$CLUSTER_UP" = 1 ]; then
        run_ctest 2 -L '^(netns|deploy)$' -FS devcluster
    else
        run_ctest 2 -L '^(netns|deploy)$'
    fi
    # (the fixture's cleanup has stopped the cluster, unless no test was selected: stop_cluster
    # at the end stops it again, which is harmless)
}

tier_fuzz() {
    echo "fuzzing the scenario loader, the template compiler, the bulk response judge and" \
         "sample merging for $FUZZ_SECONDS s each"
    BF_FUZZ_BUILD="$BUILD/fuzz" "$SRC/tests/fuzz/run.sh" "$FUZZ_SECONDS"
}

# seconds since $1 (an $EPOCHREALTIME)
since() {
    awk "BEGIN{printf \"%.0f\", $EPOCHREALTIME - $1}"
}

tier_sanitize() {
    # -O1 -g: what the sanitizers' documentation recommends (readable stacks, fast enough);
    # unit tests run several times slower under ASan, hence the longer per-test timeout
    # shellcheck disable=SC2206
    local flags=(${CMAKE_FLAGS:-} -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-O1 -g")
    local s0=$EPOCHREALTIME
    # shellcheck disable=SC2086
    cmake -S "$SRC" -B "$BUILD/asan" "${flags[@]}" -DBF_ASAN=ON -DBF_UBSAN=ON -DBF_UNIT_TIMEOUT=900 \
        >/dev/null || return 1
    cmake --build "$BUILD/asan" -j "$JOBS" >"$BUILD/asan/build.log" 2>&1 ||
        { tail -30 "$BUILD/asan/build.log"; return 1; }
    echo "sanitize: ASan+UBSan build $(since "$s0") s"
    s0=$EPOCHREALTIME
    # any ASan/LSan/UBSan report aborts the test binary, so ctest fails it
    CT_DIR="$BUILD/asan" \
    ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1" \
    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    LSAN_OPTIONS="suppressions=$SRC/tests/sanitize/lsan.supp" \
        run_ctest "$JOBS" -L '^unit$' -E '^unit.lint_selftest$' || return 1
    echo "sanitize: unit tests under ASan+UBSan $(since "$s0") s"
    s0=$EPOCHREALTIME
    # shellcheck disable=SC2086
    cmake -S "$SRC" -B "$BUILD/tsan" "${flags[@]}" -DBF_TSAN=ON >/dev/null || return 1
    cmake --build "$BUILD/tsan" -j "$JOBS" --target bulkfleet-agent >"$BUILD/tsan/build.log" 2>&1 ||
        { tail -30 "$BUILD/tsan/build.log"; return 1; }
    echo "sanitize: TSan agent build $(since "$s0") s"
    s0=$EPOCHREALTIME
    BF_SAN_DIR="$BUILD/tsan/run" "$SRC/tests/sanitize/tsan_agent.sh" \
        "$BUILD/tsan/agent/bulkfleet-agent" || return 1
    echo "sanitize: TSan agent run $(since "$s0") s"
}

# Tests write only into the build folder: what `git status` shows of the source tree (ignored
# paths included, so results/ or a stray build-* folder count) must not change during a tier.
tree_state() {
    git -C "$SRC" status --porcelain --untracked-files=all --ignored=matching 2>/dev/null
}
HAVE_GIT=0
git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 && HAVE_GIT=1

status=0
for t in "${TIERS[@]}"; do
    if ! declare -F "tier_$t" >/dev/null; then
        echo "check: unknown tier '$t' (unit integration root fuzz sanitize)" >&2
        exit 2
    fi
    echo "==== tier $t ===="
    t0=$EPOCHREALTIME
    if declare -F "prep_$t" >/dev/null && ! "prep_$t"; then
        SUMMARY+=$(printf '  %-12s FAILED  (setup)' "$t")$'\n'
        status=1
        break
    fi
    [ $HAVE_GIT = 1 ] && before="$(tree_state)"
    "tier_$t"
    rc=$?
    if [ $HAVE_GIT = 1 ] && [ $rc = 0 ]; then
        changed="$(diff <(echo "$before") <(tree_state) | sed -n 's/^> //p')"
        if [ -n "$changed" ]; then
            echo "check: tier $t wrote into the source tree (tests must write under $BUILD):"
            echo "$changed" | sed 's/^/  /'
            rc=1
        fi
    fi
    secs=$(awk "BEGIN{printf \"%.0f\", $EPOCHREALTIME - $t0}")
    if [ $rc = 0 ]; then
        SUMMARY+=$(printf '  %-12s ok      %5s s' "$t" "$secs")$'\n'
    else
        SUMMARY+=$(printf '  %-12s FAILED  %5s s' "$t" "$secs")$'\n'
        status=1
    fi
    echo "==== tier $t: $([ $rc = 0 ] && echo ok || echo FAILED) in $secs s ===="
    [ $rc = 0 ] || break
done
stop_cluster
echo "check summary:"
printf '%s' "$SUMMARY"
exit $status
