#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_update_delete — document.action update (doc and upsert) and delete against the
# real test cluster, into an index a first cell filled: updates change documents without adding
# any, upserts of new ids add some, deletes remove some and a delete of a missing id (404
# without error) is not a failure; each row is verified against those bounds. An update of ids
# that do not exist fails the cell at once, saying to use upsert.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-upd-$$"
trap 'curl -s -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
scenario() { # scenario FILE RECREATE DOCUMENT-FLOW-MAPPING VARIABLES
    cat > "$1" <<YAML
name: upd
target: {hosts: ["$ES"]}
index: {name: $IDX, recreate: $2, settings: {number_of_replicas: 0}}
variables: $4
document: $3
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [100], concurrency: [2]}
YAML
}
row() { python3 -c 'import glob, json, sys; print(json.dumps(json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]))' "$1"; }
count() { curl -sf -X POST "$ES/$IDX/_refresh" > /dev/null; curl -sf "$ES/$IDX/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'; }
run() { # run NAME: the standalone agent on NAME.yaml into results NAME
    timeout 120 "$AGENT" run "$1.yaml" --cell 1 --threads 1 --results "$1" > "$1.out" 2> "$1.err"
}

# 0. fill: ids 1.. from one sequence (one thread: contiguous)
scenario fill.yaml true '{action: index, id: "$[[id]]", source: '"'"'{"v": 0}'"'"'}' \
    '[{name: id, type: sequence, from: 1, to: 100000000}]'
run fill || { cat fill.err >&2; fail "fill exit $?"; }
N0=$(count)
[ "$N0" -ge 1000 ] || fail "the fill indexed only $N0 documents (need 1000)"

# 1. update (doc) of ids 1..1000: nothing added, verified, documents changed
scenario upd.yaml false '{action: update, id: "$[[id]]", retry_on_conflict: 3, source: '"'"'{"v": 1}'"'"'}' \
    '[{name: id, type: range, from: 1, to: 1000}]'
"$AGENT" render upd.yaml --cell 1 --requests 1 > upd.all && sed -n 1,2p upd.all > upd.body
grep -q '^{"update":{"_index":"'"$IDX"'","_id":"[0-9]*","retry_on_conflict":3}}$' upd.body || { cat upd.body >&2; fail "update action line"; }
grep -q '^{"doc":{"v": 1}}$' upd.body || { cat upd.body >&2; fail "update source line"; }
run upd || { cat upd.err >&2; fail "update exit $?"; }
[ "$(count)" = "$N0" ] || fail "an update cell changed the count ($N0 -> $(count))"
curl -sf "$ES/$IDX/_count?q=v:1" | grep -q '"count":[1-9]' || fail "no document was updated"

# 2. update (upsert) of ids up to 10x the filled ones: some added, at most one per upsert
scenario ups.yaml false '{action: update, update: upsert, id: "$[[id]]", source: '"'"'{"v": 2}'"'"'}' \
    "[{name: id, type: range, from: 1, to: $((N0 * 10))}]"
run ups || { cat ups.err >&2; fail "upsert exit $?"; }
N2=$(count)
[ "$N2" -gt "$N0" ] || fail "upserts of new ids added nothing ($N0 -> $N2)"

# 3. delete ids 1..2xN0: half of them do not exist (404 without error): not failures
scenario del.yaml false '{action: delete, id: "$[[id]]"}' "[{name: id, type: range, from: 1, to: $((N2 * 2))}]"
run del || { cat del.err >&2; fail "delete exit $?"; }
N3=$(count)
[ "$N3" -lt "$N2" ] || fail "deletes removed nothing ($N2 -> $N3)"
python3 - "$(row upd)" "$(row ups)" "$(row del)" "$N0" "$N2" "$N3" <<'PY' || fail "rows"
import json, sys
upd, ups, dele = (json.loads(a) for a in sys.argv[1:4])
n0, n2, n3 = (int(a) for a in sys.argv[4:7])
for r in (upd, ups, dele):
    assert r["verified"] is True and r["docs_ok_all"] > 0 and r["docs_failed"] == 0, r
assert upd["docs_counted"] == 0, upd
assert ups["docs_counted"] == n2 - n0 <= ups["docs_ok_all"], (ups, n0, n2)
assert dele["docs_counted"] == n2 - n3 < dele["docs_ok_all"], (dele, n2, n3)  # some were 404
print("update: %d acknowledged, 0 added; upsert: %d acknowledged, %d added; delete: %d acknowledged, %d removed"
      % (upd["docs_ok_all"], ups["docs_ok_all"], n2 - n0, dele["docs_ok_all"], n2 - n3))
PY

# 3b. delete with delete_missing: fail over ids half of which no longer exist: each 404 is a
# failure (not_found), so what was acknowledged is exactly what was removed
scenario delf.yaml false '{action: delete, delete_missing: fail, id: "$[[id]]"}' "[{name: id, type: range, from: 1, to: $((N2 * 2))}]"
set +e
run delf
rc=$?
set -e
[ "$rc" = 1 ] || { cat delf.err >&2; fail "delete_missing: fail: exit $rc, want 1 (documents failed)"; }
N4=$(count)
python3 - "$(row delf)" "$N3" "$N4" <<'PY' || fail "delete_missing: fail row"
import json, sys
r = json.loads(sys.argv[1])
n3, n4 = int(sys.argv[2]), int(sys.argv[3])
assert r["docs_failed"] > 0 and r["docs_counted"] == n3 - n4 == r["docs_ok_all"], (r, n3, n4)
types = {e["type"]: e["docs"] for e in r["doc_errors"]}
# doc_errors counts the whole cell, docs_failed its measured window
assert list(types) == ["not_found"] and types["not_found"] >= r["docs_failed"], r["doc_errors"]
print("delete_missing fail: %d acknowledged = %d removed, %d not_found failures"
      % (r["docs_ok_all"], n3 - n4, r["docs_failed"]))
PY

# 4. update (doc) of ids that do not exist: the cell fails at once, naming upsert
scenario miss.yaml false '{action: update, id: "$[[id]]", source: '"'"'{"v": 3}'"'"'}' \
    '[{name: id, type: range, from: 500000000, to: 600000000}]'
sed -i 's/duration: 2s/duration: 20s/' miss.yaml
t0=$(date +%s)
set +e
run miss
rc=$?
set -e
t1=$(date +%s)
[ "$rc" != 0 ] || fail "updates of missing ids did not fail the cell"
[ $((t1 - t0)) -lt 15 ] || fail "the cell took $((t1 - t0)) s of its 20 to fail"
grep -q "document_missing_exception.*set document.update: upsert" miss.err || { cat miss.err >&2; fail "no hint to use upsert"; }

# 5. validate: update / delete without id, delete with a source
for bad in '{action: delete}|document.action: delete needs document.id' \
           '{action: update, source: '"'"'{"a": 1}'"'"'}|document.action: update needs document.id' \
           '{action: delete, id: x, source: '"'"'{"a": 1}'"'"'}|action delete sends no source' \
           '{action: index, update: upsert, source: '"'"'{"a": 1}'"'"'}|document.update: only with action: update' \
           '{action: index, delete_missing: fail, source: '"'"'{"a": 1}'"'"'}|document.delete_missing: only with action: delete'; do
    scenario bad.yaml true "${bad%%|*}" '[]'
    set +e
    "$COORD" validate bad.yaml > bad.out 2>&1
    rc=$?
    set -e
    [ "$rc" = 2 ] && grep -qF "${bad#*|}" bad.out || { cat bad.yaml bad.out >&2; fail "validate: ${bad#*|} (exit $rc)"; }
done
pass "update (doc, upsert) and delete: counted within their bounds and verified; 404 on delete is not a failure unless delete_missing: fail"
