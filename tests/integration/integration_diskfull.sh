#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_diskfull — the results directory fills up in the middle of a campaign (a 2 MiB
# tmpfs, filled once the first cell's file is there). The coordinator stops loading the cluster
# at once (well before the cell's 6 s are over), keeps every file that was complete before
# (cell 1's ndjson, matrix.json with one row, no temporary files left), does not run the next
# cell, says what failed, and exits 3; the cell whose file could not be written is not
# verified. Needs root for mount (skipped, exit 77, otherwise).
source "$(dirname "$0")/lib.sh"
SMALL="$TMP/small"
mkdir -p "$SMALL"
mount -t tmpfs -o size=2m tmpfs "$SMALL" 2> /dev/null || { echo "SKIP: cannot mount a tmpfs (not root?)"; exit 77; }
IDX="bf-diskfull-$$"
cleanup() {
    [ -n "${CPID:-}" ] && kill "$CPID" 2> /dev/null || true
    umount "$SMALL" 2> /dev/null || umount -l "$SMALL" 2> /dev/null || true
    curl -sf -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true
    cleanup_tmp
}
trap cleanup EXIT
cat > "$TMP/s.yaml" <<YAML
name: diskfull
target: {hosts: ["$ES"]}
index: {name: "$IDX-{batch_size}", recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 6s}
matrix: {batch_size: [50, 60, 70], concurrency: [1]}
YAML
P=$(free_port)
"$COORD" run "$TMP/s.yaml" --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --results "$SMALL/r" -q > "$TMP/out" 2> "$TMP/err" &
CPID=$!
for _ in $(seq 1 600); do
    ls "$SMALL"/r/*/cells/*.ndjson > /dev/null 2>&1 && break
    kill -0 "$CPID" 2> /dev/null || break
    sleep 0.1
done
ls "$SMALL"/r/*/cells/*.ndjson > /dev/null 2>&1 || { cat "$TMP/err" >&2; fail "the first cell never finished"; }
head -c 10M /dev/zero > "$SMALL/fill" 2> /dev/null || true   # the disk is full now
t_full=""
for _ in $(seq 1 300); do
    if [ -z "$t_full" ] && grep -q "cannot write samples" "$TMP/err"; then t_full=$(date +%s.%N); fi
    kill -0 "$CPID" 2> /dev/null || break
    sleep 0.1
done
rc=0; wait "$CPID" || rc=$?
CPID=
t_exit=$(date +%s.%N)
[ "$rc" = 3 ] || { cat "$TMP/err" >&2; fail "exit $rc, expected 3"; }
[ -n "$t_full" ] || { cat "$TMP/err" >&2; fail "no 'cannot write samples' message"; }
grep -q "stopping the campaign: the results directory .* cannot be written (the error above)" "$TMP/err" || { cat "$TMP/err" >&2; fail "the stop does not point at the failed write"; }
# each failed write is said once by the coordinator (the stop line said the samples' failure
# again, and matrix.csv, written after the cell and at the end, failed twice in the same words)
[ "$(grep -c "coordinator run: error: .*cannot write samples to .*No space left on device" "$TMP/err")" = 1 ] || { cat "$TMP/err" >&2; fail "the failed samples write is not said exactly once"; }
twice=$(grep "coordinator run: error:" "$TMP/err" | sed 's/^[0-9:.]* //' | sort | uniq -d)
[ -z "$twice" ] || { cat "$TMP/err" >&2; fail "said twice: $twice"; }
grep -q "cell 3/3" "$TMP/err" && fail "the campaign went on to cell 3"
python3 - "$t_full" "$t_exit" <<'PY' || fail "the load did not stop at once"
import sys
dt = float(sys.argv[2]) - float(sys.argv[1])
assert dt < 4.0, f"{dt:.1f} s from the failed write to the exit (the cell loads for 6 s)"
print(f"exit {dt:.1f} s after the failed write")
PY
D=$(ls -d "$SMALL"/r/diskfull-*)
find "$D" -name '*.tmp.*' | grep -q . && fail "temporary files left: $(find "$D" -name '*.tmp.*')"
python3 - "$D" "$TMP/out" <<'PY' || fail "what was complete before"
import glob, json, os, sys
d = sys.argv[1]
cells = sorted(glob.glob(d + "/cells/*.ndjson"))
assert len(cells) == 1 and "b50" in cells[0], cells
lines = [json.loads(l) for l in open(cells[0])]
assert lines[0]["type"] == "row" and lines[0]["verified"] is True, lines[0]
m = json.load(open(d + "/matrix.json"))
assert len(m["rows"]) == 1 and m["rows"][0]["verified"] is True, m["rows"]
csv = open(d + "/matrix.csv").read().splitlines()
assert len(csv) == 2, csv
# the table printed at the end has the second cell, not verified
md = [l for l in open(sys.argv[2]) if l.startswith("| 1 |")]
assert len(md) == 2, md
assert "| yes |" in md[0] and "| yes |" not in md[1], md
print("kept:", os.path.basename(cells[0]), "and a matrix of 1 row; cell 2 printed, not verified")
PY
pass "results directory full mid-campaign: load stopped, complete files kept, exit 3"
