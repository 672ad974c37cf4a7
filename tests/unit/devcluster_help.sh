#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# devcluster_help — scripts/devcluster.sh --help (and start --help) print the synopsis on stdout,
# exit 0, and begin with what the script does, not with its licence line (the
# help began "SPDX-License-Identifier: MIT"); the environment it reads is listed. A wrong
# command prints the same on stderr and exits 2. No cluster needed: nothing is started.
set -euo pipefail
SRC=${BF_SOURCE_DIR:?}
DC="$SRC/scripts/devcluster.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/bf-dchelp.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
fail() { echo "FAIL: $*"; exit 1; }
for args in "--help" "start --help"; do
    # shellcheck disable=SC2086
    out=$(bash "$DC" $args 2> /dev/null) || fail "devcluster.sh $args: exit $?"
    # not `printf | head -1`: under pipefail, printf's SIGPIPE when head exits first failed the
    # test now and then, with no message (seen in a landing's unit tier under load)
    first=${out%%$'\n'*}
    case "$first" in
        devcluster.sh\ -\ *) ;;
        *) fail "devcluster.sh $args begins with '$first', not with what the script does" ;;
    esac
    printf '%s\n' "$out" | grep -q SPDX && fail "devcluster.sh $args prints the SPDX line"
    printf '%s\n' "$out" | grep -q 'BF_DEVCLUSTER_MAX_LIFETIME' ||
        fail "devcluster.sh $args does not list the environment (BF_DEVCLUSTER_MAX_LIFETIME)"
done
rc=0
bash "$DC" frobnicate > out.txt 2> err.txt || rc=$?
[ "$rc" = 2 ] || fail "devcluster.sh frobnicate: exit $rc, expected 2"
grep -q '^devcluster.sh - ' err.txt || fail "devcluster.sh frobnicate: no synopsis on stderr"
echo "PASS: devcluster.sh --help begins with what it does and lists its environment"
