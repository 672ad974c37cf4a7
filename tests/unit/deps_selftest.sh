#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# deps_selftest.sh — scripts/deps.py fails when it should: on a scratch tree with a loop of
# calls between two files, a loop round three, an arrow from common/ up to resultlib/, one
# between the two programs, one from common/scenario up to common/es, a file directly in
# common/ (in none of its four libraries) and a protobuf header included below common/wire,
# each named; and the same tree without them passes.
set -euo pipefail
SRC=${BF_SOURCE_DIR:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/bf-deps.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$T/common/base" "$T/common/scenario" "$T/common/es" "$T/common/wire" "$T/resultlib" \
    "$T/agent" "$T/coordinator/import"
c() { printf '/* SPDX-License-Identifier: MIT */\n%s\n' "$2" > "$T/$1"; }
# a clean tree: common/{base < scenario < es < wire} < resultlib < agent, coordinator
c common/base/bf_a.h 'int bf_a(void);'
c common/base/bf_a.c '#include "bf_a.h"
int bf_a(void) { return 1; }'
c common/scenario/bf_m.c 'int bf_m(void) { return bf_a(); }'
c common/es/bf_e.c 'int bf_e(void) { return bf_m(); }'
c common/wire/bf_w.c '#include "bulkfleet.pb-c.h"
int bf_w(void) { return bf_e(); }'
c resultlib/bf_r.c '#include "bf_a.h"
int bf_r(void) { return bf_w(); }'
c agent/bf_g.c 'int bf_g(void) { return bf_r(); }'
c coordinator/bf_k.c 'int bf_k(void) { return bf_r(); /* bf_g() in a comment is no call */ }'
c coordinator/import/bf_i.c 'int bf_i(void) { return bf_k(); }'
out=$(python3 "$SRC/scripts/deps.py" --root "$T") || fail "the clean tree fails: $out"

# 1. two files calling each other; 2. three round a loop (one through an X-macro)
c common/base/bf_b.c 'int bf_b(void) { return bf_c(); }'
c common/base/bf_c.c 'int bf_c(void) { return bf_b(); }'
c common/base/bf_x.h '#define BF_TABLE(X) X(bf_x)'
c common/base/bf_x.c '#include "bf_x.h"
int bf_x(void) { return bf_y(); }'
c common/base/bf_y.c 'int bf_y(void) { return bf_z(); }'
c common/base/bf_z.c '#include "bf_x.h"
#define CALL(f) f();
int bf_z(void) { BF_TABLE(CALL) return 0; }'
# 3. common calling up into resultlib; 4. the coordinator calling the agent; 5. the scenario
# library calling the ES side; 6. a file directly in common/; 7. the judge's table including
# the generated wire code
c common/base/bf_up.c 'int bf_up(void) { return bf_r(); }'
c coordinator/bf_side.c 'int bf_side(void) { return bf_g(); }'
c common/scenario/bf_slip.c 'int bf_slip(void) { return bf_e(); }'
c common/bf_stray.c 'int bf_stray(void) { return 0; }'
c common/es/bf_pb.h '#include "bulkfleet.pb-c.h"'
set +e
out=$(python3 "$SRC/scripts/deps.py" --root "$T" 2>&1); rc=$?
set -e
[ $rc = 1 ] || fail "deps.py exit $rc on the broken tree, expected 1: $out"
grep -q 'cycle between 2 files: common/base/bf_b.c <-> common/base/bf_c.c' <<<"$out" ||
    fail "2-loop not named: $out"
grep -q 'cycle between 3 files: common/base/bf_x.c <-> common/base/bf_y.c <-> common/base/bf_z.c' \
    <<<"$out" || fail "3-loop (through the X-macro) not named: $out"
grep -q 'common/base/bf_up.c (common/base) -> resultlib/bf_r.c (resultlib) runs upward' <<<"$out" ||
    fail "upward arrow not named: $out"
grep -q 'coordinator/bf_side.c (coordinator) -> agent/bf_g.c (agent)' <<<"$out" ||
    fail "arrow between the programs not named: $out"
grep -q 'common/scenario/bf_slip.c (common/scenario) -> common/es/bf_e.c (common/es) runs upward' \
    <<<"$out" || fail "upward arrow inside common/ not named: $out"
grep -q 'common/bf_stray.c is in no layer' <<<"$out" || fail "file outside the libraries not named: $out"
grep -q 'common/es/bf_pb.h includes bulkfleet.pb-c.h' <<<"$out" ||
    fail "protobuf header below common/wire not named: $out"
grep -q 'FAIL, 7 problem' <<<"$out" || fail "expected exactly 7 problems: $out"
echo "deps_selftest: ok"
