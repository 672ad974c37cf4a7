#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# deps_selftest.sh — scripts/deps.py fails when it should: on a scratch tree with a loop of
# calls between two files, a loop round three, an arrow from common/ up to resultlib/ and one
# between the two programs, each named; and the same tree without them passes.
set -euo pipefail
SRC=${BF_SOURCE_DIR:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/bf-deps.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$T/common" "$T/resultlib" "$T/agent" "$T/coordinator"
c() { printf '/* SPDX-License-Identifier: MIT */\n%s\n' "$2" > "$T/$1"; }
# a clean tree: common <- resultlib <- agent, coordinator
c common/bf_a.h 'int bf_a(void);'
c common/bf_a.c '#include "bf_a.h"
int bf_a(void) { return 1; }'
c resultlib/bf_r.c '#include "bf_a.h"
int bf_r(void) { return bf_a(); }'
c agent/bf_g.c 'int bf_g(void) { return bf_r(); }'
c coordinator/bf_k.c 'int bf_k(void) { return bf_r(); /* bf_g() in a comment is no call */ }'
out=$(python3 "$SRC/scripts/deps.py" --root "$T") || fail "the clean tree fails: $out"

# 1. two files calling each other; 2. three round a loop (one through an X-macro)
c common/bf_b.c 'int bf_b(void) { return bf_c(); }'
c common/bf_c.c 'int bf_c(void) { return bf_b(); }'
c common/bf_x.h '#define BF_TABLE(X) X(bf_x)'
c common/bf_x.c '#include "bf_x.h"
int bf_x(void) { return bf_y(); }'
c common/bf_y.c 'int bf_y(void) { return bf_z(); }'
c common/bf_z.c '#include "bf_x.h"
#define CALL(f) f();
int bf_z(void) { BF_TABLE(CALL) return 0; }'
# 3. common calling up into resultlib; 4. the coordinator calling the agent
c common/bf_up.c 'int bf_up(void) { return bf_r(); }'
c coordinator/bf_side.c 'int bf_side(void) { return bf_g(); }'
set +e
out=$(python3 "$SRC/scripts/deps.py" --root "$T" 2>&1); rc=$?
set -e
[ $rc = 1 ] || fail "deps.py exit $rc on the broken tree, expected 1: $out"
grep -q 'cycle between 2 files: common/bf_b.c <-> common/bf_c.c' <<<"$out" || fail "2-loop not named: $out"
grep -q 'cycle between 3 files: common/bf_x.c <-> common/bf_y.c <-> common/bf_z.c' <<<"$out" ||
    fail "3-loop (through the X-macro) not named: $out"
grep -q 'common/bf_up.c (common) -> resultlib/bf_r.c (resultlib) runs upward' <<<"$out" ||
    fail "upward arrow not named: $out"
grep -q 'coordinator/bf_side.c (coordinator) -> agent/bf_g.c (agent)' <<<"$out" ||
    fail "arrow between the programs not named: $out"
grep -q 'FAIL, 4 problem' <<<"$out" || fail "expected exactly 4 problems: $out"
echo "deps_selftest: ok"
