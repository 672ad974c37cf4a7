#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tour_selftest.sh — scripts/check_tour.py fails when it should: on a scratch tree whose tour
# names bf_a but not bf_ab.c (a longer name holding the named one) nor a shared header without
# its .c, each named; and passes once the tour names them.
set -euo pipefail
SRC=${BF_SOURCE_DIR:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/bf-tour.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$T/docs" "$T/agent" "$T/common/base"
touch "$T/agent/bf_a.c" "$T/agent/bf_a.h" "$T/agent/bf_ab.c" "$T/common/base/bf_x_int.h"
echo '`bf_a` does a.' > "$T/docs/architecture.md"
set +e
out=$(python3 "$SRC/scripts/check_tour.py" --root "$T" 2>&1); rc=$?
set -e
[ $rc = 1 ] || fail "check_tour.py exit $rc on a tour missing two files, expected 1: $out"
grep -q 'agent/bf_ab.c is not named' <<<"$out" || fail "bf_ab.c not named: $out"
grep -q 'common/base/bf_x_int.h is not named' <<<"$out" || fail "bf_x_int.h not named: $out"
grep -q 'FAIL, 2 of 3' <<<"$out" || fail "expected 2 of 3 missing: $out"
echo '`bf_a`, `bf_ab.c` and `bf_x_int.h`.' > "$T/docs/architecture.md"
out=$(python3 "$SRC/scripts/check_tour.py" --root "$T") || fail "the complete tour fails: $out"
echo "tour_selftest: ok"
