#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_failfast_config — the cluster refuses the scenario's own index configuration
#, against the real dev cluster:
#  A. an invalid mapping (a field type no cluster has) over a 3-cell shards axis, 2 repetitions
#     in matrix order (run.order: sequential):
#     the campaign stops after the first repetition of the first cell (exit 2), says the
#     cluster's reason and index.mappings, and names the work not run; one row, failed;
#  B. the same with --keep-going: every cell is tried (today's behaviour), 3 rows failed, exit 1;
#  C. a refused setting that only one value of an axis has (refresh_interval: [bogus, 1s]): the
#     other cell still runs and is verified (exit 1: one failed row).
source "$(dirname "$0")/lib.sh"
IDX="bf-cfgerr-$$"
cleanup() { curl -sf -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true; cleanup_tmp; }
trap cleanup EXIT
scenario() { # scenario NAME MAPPING_TYPE MATRIX
    cat > "$TMP/$1.yaml" <<YAML
name: $1
target: {hosts: ["$ES"]}
index:
  name: "$IDX-$1-{shards}"
  recreate: true
  mappings: {properties: {n: {type: $2}}}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 1s, repeat: 2, order: sequential}
matrix: $3
YAML
}
run_c() { # run_c NAME [OPTIONS...]: exit code in $rc
    set +e
    timeout 300 "$COORD" run "$TMP/$1.yaml" --local-agents 1 --insecure --bind "tcp://127.0.0.1:$(free_port)" \
        --results "$TMP/res-$1" -q "${@:2}" > "$TMP/$1.out" 2> "$TMP/$1.err"
    rc=$?
    set -e
    [ "$rc" -ne 124 ] || { cat "$TMP/$1.err" >&2; fail "$1: the campaign hung"; }
}
rows() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rows"]))' "$(ls -d "$TMP/res-$1"/*/)matrix.json"; }

# A: stops at the first refusal
scenario a nosuchtype "{shards: [1, 2, 3], concurrency: [1], batch_size: [10]}"
run_c a
[ "$rc" = 2 ] || { cat "$TMP/a.err" >&2; fail "A: exit $rc, expected 2"; }
n=$(grep -c "creating index" "$TMP/a.err" || true)
stop=$(grep "stopping the campaign" "$TMP/a.err" || true)
echo "A: $stop"
[ -n "$stop" ] || { cat "$TMP/a.err" >&2; fail "A: no stop line"; }
grep -q "nosuchtype" <<< "$stop" || fail "A: the cluster's reason is not said"
grep -q "index.mappings" <<< "$stop" || fail "A: the key is not named"
grep -qF "Not run: i1-s1-r0-b10-c1 repetition 2, i1-s2-r0-b10-c1, i1-s3-r0-b10-c1." <<< "$stop" || fail "A: the work not run is not listed"
[ "$(rows a)" = 1 ] || fail "A: $(rows a) rows, expected the one cell tried"
# B: --keep-going tries every cell
scenario b nosuchtype "{shards: [1, 2, 3], concurrency: [1], batch_size: [10]}"
run_c b --keep-going
[ "$rc" = 1 ] || { cat "$TMP/b.err" >&2; fail "B: exit $rc, expected 1"; }
if grep -q "stopping the campaign" "$TMP/b.err"; then fail "B: stopped despite --keep-going"; fi
[ "$(rows b)" = 3 ] || fail "B: $(rows b) rows, expected 3"
# C: an axis over the refused setting: the other value runs
scenario c long "{settings: {refresh_interval: [bogus, 1s]}, concurrency: [1], batch_size: [10]}"
sed -i 's/repeat: 2/repeat: 1/' "$TMP/c.yaml"
run_c c
[ "$rc" = 1 ] || { cat "$TMP/c.err" >&2; fail "C: exit $rc, expected 1"; }
if grep -q "stopping the campaign" "$TMP/c.err"; then cat "$TMP/c.err" >&2; fail "C: stopped although the other cell differs"; fi
python3 - "$(ls -d "$TMP/res-c"/*/)matrix.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert len(rows) == 2, rows
assert rows[0]["failed"] and "refresh_interval" in rows[0]["reason"], rows[0]
assert rows[1]["verified"] is True and not rows[1]["failed"], rows[1]
PY
pass "A: stopped after 1 of 6 repetitions (exit 2, index.mappings named); B: --keep-going tried 3 cells; C: the other refresh_interval ran, verified"
