#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lint_selftest.sh — the lint checks fail when they should: a copy of the key table and of
# docs/scenario.md with one undocumented key and one invented row, and C files with a banned
# call and a stray fprintf(stderr), in a scratch folder under the build directory.
set -euo pipefail
SRC=${BF_SOURCE_DIR:?}
T="${BF_BUILD_DIR:?}/lint-selftest"
rm -rf "$T"
mkdir -p "$T/common/scenario" "$T/docs" "$T/agent"
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. scenario keys, both ways
cp "$SRC/common/scenario/bf_scenario_int.h" "$T/common/scenario/"
grep -v '^| `run.seed`' "$SRC/docs/scenario.md" > "$T/docs/scenario.md"
echo '| key | type | default | allowed | notes | secret |' >> "$T/docs/scenario.md"
echo '| `run.no_such_key` | bool | `false` | | invented | no |' >> "$T/docs/scenario.md"
set +e
out=$(python3 "$SRC/scripts/check_scenario_keys.py" "$T" 2>&1); rc=$?
set -e
[ $rc = 1 ] || fail "check_scenario_keys exit $rc, expected 1: $out"
grep -q "scenario key 'run.seed' is not in docs/scenario.md" <<<"$out" || fail "missing key not named: $out"
grep -q "'run.no_such_key' is documented as a scenario key" <<<"$out" || fail "invented key not named: $out"
python3 "$SRC/scripts/check_scenario_keys.py" "$SRC" >/dev/null || fail "the real tree does not pass"

# 2. banned functions and the stderr channel, on a scratch tree with the lint script's rules
cp "$SRC/scripts/lint.sh" "$T/lint.sh"
mkdir -p "$T/scripts" && cp "$SRC/scripts/check_scenario_keys.py" "$T/scripts/"
mv "$T/lint.sh" "$T/scripts/lint.sh"
cat > "$T/agent/bad.c" <<'EOC'
/* SPDX-License-Identifier: MIT */
/* bad.c — lint self-test input. */
#include <stdio.h>
#include <stdlib.h>
int bad(const char *s, char *out);
int bad(const char *s, char *out)
{
    sprintf(out, "%s", s);
    fprintf(stderr, "oops\n");
    return atoi(s);
}
EOC
cp "$SRC/docs/scenario.md" "$T/docs/scenario.md"
set +e
out=$(cd "$T" && bash scripts/lint.sh 2>&1); rc=$?
set -e
[ $rc = 1 ] || fail "lint.sh exit $rc on a file with sprintf/atoi/fprintf(stderr): $out"
grep -q 'agent/bad.c:8: sprintf() is banned' <<<"$out" || fail "sprintf not reported: $out"
grep -q 'agent/bad.c:10: atoi() is banned' <<<"$out" || fail "atoi not reported: $out"
grep -q 'agent/bad.c:9: a message to stderr outside bf_log' <<<"$out" || fail "fprintf(stderr) not reported: $out"
echo "lint self-test: ok"
rm -rf "$T"
