#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_resume_options — `run --resume DIR` continues a campaign with the --cells,
# --warmup and --duration it started with (recorded in DIR/run-options.json), against the real
# test cluster: a campaign of --cells 1,2 --warmup 0s --duration 1s loses cell 2's file (as if
# it was interrupted); --resume with another --duration or another --cells is refused (exit 2,
# both values named, nothing run); --resume alone runs cell 2 again with the campaign's 0s + 1s
# and leaves cell 3 alone.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-ropt-$$"
trap 'curl -s -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
cat > s.yaml <<YAML
name: ropt
target: {hosts: ["$ES"]}
index: {name: "$IDX-{batch_size}", settings: {number_of_replicas: 0}}
document: {source: '{"a": 1}'}
run: {warmup: 5s, duration: 20s}
matrix: {batch_size: [100, 200, 300], concurrency: [1]}
YAML
coord() { # coord OUT ARGS...: the coordinator with one local agent, bounded in time
    local out=$1
    shift
    timeout 90 "$COORD" run s.yaml --local-agents 1 --threads 1 --insecure \
        --bind "tcp://127.0.0.1:$(free_port)" --results r -q "$@" > "$out.out" 2> "$out.err"
}
coord first --cells 1,2 --warmup 0s --duration 1s || { cat first.err >&2; fail "first run exit $?"; }
DIR=$(ls -d r/ropt-*)
python3 - "$DIR/run-options.json" <<'PY' || fail "run-options.json"
import json, sys
o = json.load(open(sys.argv[1]))
assert o == {"cells": "1,2", "warmup_ms": 0, "first_warmup_ms": None, "duration_ms": 1000}, o
PY
C2=i1-s1-r0-b200-c1
[ -f "$DIR/cells/$C2.ndjson" ] || fail "cell 2 did not finish in the first run"
rm "$DIR/cells/$C2.ndjson" # as if the campaign was interrupted in cell 2

set +e
coord longer --resume "$DIR" --duration 2s
rc1=$?
coord other --resume "$DIR" --cells 1,3
rc2=$?
set -e
[ "$rc1" = 2 ] || { cat longer.err >&2; fail "--resume with another --duration: exit $rc1, want 2"; }
grep -q "this campaign ran --duration 1.0s, not --duration 2.0s" longer.err || { cat longer.err >&2; fail "--duration message"; }
[ "$rc2" = 2 ] || { cat other.err >&2; fail "--resume with other --cells: exit $rc2, want 2"; }
grep -q "this campaign ran --cells 1,2, not --cells 1,3" other.err || { cat other.err >&2; fail "--cells message"; }
[ ! -f "$DIR/cells/$C2.ndjson" ] || fail "a refused --resume ran cell 2"

coord again --resume "$DIR" || { cat again.err >&2; fail "--resume exit $?"; }
grep -q "continuing with the options the campaign started with: --cells 1,2 --warmup 0ms --duration 1.0s" again.err || { cat again.err >&2; fail "--resume did not say which options it reuses"; }
[ -f "$DIR/cells/$C2.ndjson" ] || fail "--resume did not run cell 2"
python3 - "$DIR/matrix.json" <<'PY' || fail "rows after --resume"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert [r["cell"] for r in rows] == ["i1-s1-r0-b100-c1", "i1-s1-r0-b200-c1"], [r["cell"] for r in rows]
for r in rows:
    assert r["verified"] is True and r["warmup_s"] == 0 and r["duration_s"] == 1, r
PY
pass "--resume reused --cells 1,2 --warmup 0s --duration 1s, refused a changed --duration and --cells"
