#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lint.sh — what `make lint` (and so `make check`) checks before any test runs.
#
#   scripts/lint.sh [--fix-format]
#
# 1. format: clang-format 14 (.clang-format) on the C lines changed since the commit named in
#    .lint-base (git clang-format --diff BASE), so the tree is not reformatted in one sweep and
#    every change from then on is. --fix-format rewrites those lines in place instead.
# 2. banned functions in C sources (table below, with the reason and what to use instead;
#    docs/internals/style.md rule 14; after curl's scripts/checksrc.pl banned-function list).
# 3. one channel for user messages: fprintf(stderr)/fputs(stderr)/perror only in
#    the files that cannot use bf_log, and for usage texts and the \r progress line.
# 4. an SPDX-License-Identifier line in the first two lines of every source file.
# 5. scenario keys: the loader's table and docs/scenario.md both ways
#    (scripts/check_scenario_keys.py).
# 6. dependencies: no loop of calls between files, no arrow from a lower folder to a higher one,
#    none between agent/ and coordinator/ (scripts/deps.py, from the sources; the unit test
#    unit.deps also reads the object files).
# 7. function length: no C function outside tests/ over 200 lines, no product C file over 1,500
#    (scripts/funclen.py; docs/internals/style.md rule 19).
# 8. comments that stand on their own: none in a product C file or header cites an issue number,
#    a review code, the design or style guide or a reference note a clone does not have
#    (scripts/check_comments.py; its self-test is tests/unit/lint_selftest.sh).
# Exit 0 when all pass, 1 when one fails (each problem printed as file:line: what, what to do).
set -uo pipefail

SRC="$(cd "$(dirname "$0")/.." && pwd)"
cd "$SRC" || exit 1
fix=0
[ "${1:-}" = --fix-format ] && fix=1
failed=0
C_DIRS="common agent coordinator resultlib tests bench"

# ---- 1. format -------------------------------------------------------------------------------
step_format() {
    if ! command -v git-clang-format >/dev/null || ! command -v clang-format >/dev/null; then
        echo "lint: format: clang-format is not installed (scripts/install-deps.sh installs the" \
             "Debian package clang-format)"
        return 1
    fi
    if ! git rev-parse --git-dir >/dev/null 2>&1; then
        echo "lint: format: skipped, not a git checkout (the check compares with .lint-base)"
        return 0
    fi
    local base
    base="$(sed -n 's/^\([0-9a-f]\{40\}\).*/\1/p' .lint-base 2>/dev/null | head -1)"
    if [ -z "$base" ] || ! git cat-file -e "$base^{commit}" 2>/dev/null; then
        echo "lint: format: .lint-base names no commit of this repository ('$base'); a shallow" \
             "clone? fetch the history (git fetch --unshallow) or run from a full clone"
        return 1
    fi
    if [ $fix = 1 ]; then
        git clang-format -q -f --extensions c,h "$base" -- $C_DIRS || true
        return 0
    fi
    local out
    out="$(git clang-format --diff --extensions c,h "$base" -- $C_DIRS 2>&1)"
    case "$out" in
    "" | *"no modified files to format"* | *"did not modify any files"*) return 0 ;;
    esac
    echo "$out" | head -200
    echo "lint: format: the lines above, changed since $(git log -1 --format=%h "$base"), are not" \
         "formatted as .clang-format says: run scripts/lint.sh --fix-format (or make format)"
    return 1
}

# ---- 2. banned functions ---------------------------------------------------------------------
# name|reason and what to use instead
BANNED='sprintf|no bound on the output: snprintf, or a bf_buf (bf_buf_printf)
vsprintf|no bound on the output: vsnprintf
strcpy|no bound: bf_strlcpy (truncates and always terminates) or bf_strdup
strcat|no bound: a bf_buf, or snprintf into a sized buffer
strncpy|does not terminate when the source is long, pads with zeros: bf_strlcpy
strncat|its bound is the room left, an easy off-by-one: a bf_buf
gets|cannot be bounded at all (removed in C11): getline or fgets
atoi|no error detection (garbage and overflow give 0 or UB): strtol with an end check, or bf_units_parse_u64
atol|as atoi: strtol with an end check
atoll|as atoi: strtoll with an end check
atof|no error detection: strtod with an end check
strtok|hidden static state, not thread-safe: strtok_r or bf_str_field
tmpnam|race between naming and creating: mkstemp / mkdtemp
mktemp|race between naming and creating: mkstemp / mkdtemp
asctime|static buffer, not thread-safe: strftime with gmtime_r
ctime|static buffer, not thread-safe: strftime with localtime_r
gmtime|static result, not thread-safe: gmtime_r
localtime|static result, not thread-safe: localtime_r
rand|one global, unseeded stream (not reproducible per thread): the seeded per-thread RNG of bf_vars
srand|see rand'

step_banned() {
    local bad=0 name reason hits
    while IFS='|' read -r name reason; do
        # a call: the name as a whole word followed by "(", outside // and /* */ comment lines
        hits="$(grep -rnE --include='*.c' --include='*.h' "(^|[^A-Za-z0-9_.>])$name[[:space:]]*\(" \
                $C_DIRS 2>/dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*([[:space:]]|/|$)|/\*|//)')"
        if [ -n "$hits" ]; then
            while IFS= read -r h; do
                echo "${h%%:*}:$(echo "$h" | cut -d: -f2): $name() is banned: $reason"
            done <<<"$hits"
            bad=1
        fi
    done <<<"$BANNED"
    return $bad
}

# ---- 3. user messages through bf_log ---------------------------------------------------------
# Files that write to stderr directly, and why (everything else uses bf_log: common/bf_log.h).
STDERR_OK='common/base/bf_log.c|the log itself
common/base/bf_mem.c|out-of-memory abort: must not allocate or take the log lock
common/base/bf_sha256.c|libcrypto failure abort, as bf_mem
resultlib/bf_aggregate.c|a compile-time table invariant broken: abort
coordinator/bf_local.c|a forked child before exec: only the raw stream is safe there'

step_stderr() {
    local bad=0 f line
    local ok_files
    ok_files="$(echo "$STDERR_OK" | cut -d'|' -f1)"
    while IFS= read -r hit; do
        [ -z "$hit" ] && continue
        f="${hit%%:*}"
        # a here-string, not `echo | grep -q`: under pipefail grep -q's early exit can kill echo
        # with SIGPIPE and fail the pipeline (seen once in a fresh-clone make check)
        grep -qx -- "$f" <<<"$ok_files" && continue
        line="${hit#*:*:}"
        # usage texts and the live progress line are output, not messages
        case "$line" in *usage* | *USAGE* | *'\r'*) continue ;; esac
        echo "${hit%%:*}:$(echo "$hit" | cut -d: -f2): a message to stderr outside bf_log: use" \
             "bf_error/bf_warn/bf_info (common/base/bf_log.h), or add the file with its reason to" \
             "STDERR_OK in scripts/lint.sh"
        bad=1
    done <<<"$(grep -rnE --include='*.c' 'fprintf\(stderr|fputs\([^;]*stderr\)|perror\(' \
                 common agent coordinator resultlib)"
    return $bad
}

# ---- 4. SPDX ---------------------------------------------------------------------------------
step_spdx() {
    local bad=0 f
    while IFS= read -r f; do
        [ -f "$f" ] || continue
        if ! head -2 "$f" | grep -q 'SPDX-License-Identifier: MIT'; then
            echo "$f:1: no SPDX line: start the file with the SPDX-License-Identifier: MIT line" \
                 "in its comment syntax (after #! if any), then its one-line description"
            bad=1
        fi
    done <<<"$(git ls-files 2>/dev/null | grep -E '\.(c|h|sh|py|cmake|proto|java)$|(^|/)CMakeLists\.txt$' ||
               find common agent coordinator resultlib tests scripts bench proto cmake \
                    -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name CMakeLists.txt)"
    return $bad
}

# ---- 5. scenario keys ------------------------------------------------------------------------
step_keys() {
    python3 "$SRC/scripts/check_scenario_keys.py" "$SRC"
}

# ---- 6. dependencies -------------------------------------------------------------------------
step_deps() {
    local out
    out="$(python3 "$SRC/scripts/deps.py")" && return 0
    echo "$out"
    return 1
}

# ---- 7. function length ---------------------------------------------------------------------
step_funclen() {
    python3 "$SRC/scripts/funclen.py" "$SRC"
}

# ---- 8. comments ----------------------------------------------------------------------------
step_comments() {
    local out
    out="$(python3 "$SRC/scripts/check_comments.py" --root "$SRC")" && return 0
    echo "$out"
    return 1
}

for step in format banned stderr spdx keys deps funclen comments; do
    t0=$EPOCHREALTIME
    if "step_$step"; then
        printf 'lint: %-7s ok (%s s)\n' "$step" "$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $t0}")"
    else
        printf 'lint: %-7s FAILED\n' "$step"
        failed=1
    fi
done
exit $failed
