#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_repeat — run.repeat in standalone mode (`bulkfleet-agent run`) goes through the
# coordinator's end of a cell (resultlib bf_finish): each repetition is a verified file of its
# own (cells/<cell>-r1.ndjson, -r2) and the matrix row is their median with repeat 2. The
# standalone copy of that code took one repetition whatever run.repeat said.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-repeat-$$"
trap 'curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
cat > s.yaml <<YAML
name: repeat
target: {hosts: ["$ES"]}
index: {name: $IDX, recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 1s, repeat: 2}
matrix: {batch_size: [50], concurrency: [1]}
YAML
timeout 120 "$AGENT" run s.yaml --threads 1 --results r > o 2> e || { cat e >&2; fail "standalone run exit $?"; }
D=$(ls -d r/repeat-*)
python3 - "$D" <<'PY' || fail "repetitions"
import glob, json, os, sys
d = sys.argv[1]
cells = sorted(os.path.basename(p) for p in glob.glob(d + "/cells/*.ndjson"))
assert len(cells) == 2 and cells[0].endswith("-r1.ndjson") and cells[1].endswith("-r2.ndjson"), cells
for c in cells:
    row = json.loads(open(os.path.join(d, "cells", c)).readline())
    assert row["type"] == "row" and row["verified"] is True, (c, row)
rows = json.load(open(d + "/matrix.json"))["rows"]
assert len(rows) == 1 and rows[0]["repeat"] == 2, rows
print("repetitions:", cells, "matrix repeat", rows[0]["repeat"])
PY
pass "standalone run.repeat 2: two verified repetitions, one median row"
