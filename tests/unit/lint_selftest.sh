#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lint_selftest.sh — the lint checks fail when they should: a copy of the key table and of
# docs/scenario.md with one undocumented key and one invented row, C files with a banned call,
# a stray fprintf(stderr) and a comment citing an issue number, and comments citing each kind
# of outside document (scripts/check_comments.py: issue numbers, review codes, the design and
# style guides, reference notes; not string literals, not public upstream threads), in a
# scratch folder under the build directory.
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
mkdir -p "$T/scripts" && cp "$SRC/scripts/check_scenario_keys.py" "$SRC/scripts/check_comments.py" "$T/scripts/"
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
/* fixed in #37 */
EOC
cp "$SRC/docs/scenario.md" "$T/docs/scenario.md"
set +e
out=$(cd "$T" && bash scripts/lint.sh 2>&1); rc=$?
set -e
[ $rc = 1 ] || fail "lint.sh exit $rc on a file with sprintf/atoi/fprintf(stderr): $out"
grep -q 'agent/bad.c:8: sprintf() is banned' <<<"$out" || fail "sprintf not reported: $out"
grep -q 'agent/bad.c:10: atoi() is banned' <<<"$out" || fail "atoi not reported: $out"
grep -q 'agent/bad.c:9: a message to stderr outside bf_log' <<<"$out" || fail "fprintf(stderr) not reported: $out"
grep -q 'agent/bad.c:12: comment cites an issue or pull-request number' <<<"$out" ||
    fail "a comment's issue number not reported: $out"

# 3. comments that stand on their own (scripts/check_comments.py), kind by kind
C="$T/comments"
mkdir -p "$C/common/base" "$C/agent"
cat > "$C/common/base/bf_a.c" <<'C'
/* SPDX-License-Identifier: MIT */
/* bf_a.c — fixture. Fixed in #37. */
static const char *s = "issue 41, DESIGN § 3, STYLE 12, #37"; /* a string: not a comment */
// see issue 41 for why
/* nu3 F4.4: the review asked */
/* per DESIGN §5 */
/* STYLE 17 says so */
/* the numbers in reference/es-api.md */
/* upstream: elastic/elasticsearch PR #137072, opensearch-project/k-NN#3350 */
int a(void) { return s[0]; }
C
set +e
out=$(python3 "$SRC/scripts/check_comments.py" --root "$C" 2>&1); rc=$?
set -e
[ $rc = 1 ] || fail "check_comments.py exit $rc on six citing comments, expected 1: $out"
for want in 'bf_a.c:2: .*#37' 'bf_a.c:4: .*issue 41' 'bf_a.c:5: .*review code' \
            'bf_a.c:6: .*design guide' 'bf_a.c:7: .*style guide' 'bf_a.c:8: .*reference note'; do
    grep -q "$want" <<<"$out" || fail "not named: $want: $out"
done
grep -q 'bf_a.c:3:' <<<"$out" && fail "a string literal was taken for a comment: $out"
grep -q 'bf_a.c:9:' <<<"$out" && fail "an upstream thread was refused: $out"
grep -q '6 comment(s)' <<<"$out" || fail "expected 6 found: $out"
cat > "$C/common/base/bf_a.c" <<'C'
/* SPDX-License-Identifier: MIT */
/* bf_a.c — fixture: says what it relies on (docs/internals/style.md). */
static const char *s = "issue 41";
int a(void) { return s[0]; }
C
out=$(python3 "$SRC/scripts/check_comments.py" --root "$C") || fail "clean comments fail: $out"
echo "lint self-test: ok"
rm -rf "$T"
