#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_count_partial — a _count answered 200 with failed shards (primaries unassigned)
# is a partial count: the row is not verified and says so, naming the shards, instead of being
# compared with it (which blamed ids sent twice or deleted documents for the missing share).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
FS=$(free_port)
python3 "$SRC/tests/support/fault_server.py" --port "$FS" --mode ok --count-failed-shards 2 \
    --max-lifetime 60 > fs.out 2>&1 &
FSP=$!
trap 'kill $FSP 2>/dev/null || true; cleanup_tmp' EXIT
for _ in $(seq 50); do grep -q READY fs.out && break; sleep 0.1; done
cat > s.yaml <<YAML
name: partial
target: {hosts: [http://127.0.0.1:$FS]}
index: {name: 'partial-{batch_size}', recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 1s}
matrix: {batch_size: [10], concurrency: [1]}
YAML
P=$(free_port)
rc=0
"$COORD" run s.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --results res > c.out 2> c.err || rc=$?
[ $rc -eq 1 ] || { cat c.err >&2; fail "campaign exit $rc, not 1 (a row not verified)"; }
grep -q "answered for 3 of 5 shards (2 failed: No shard available for \[count\]): a partial count" c.err ||
    { cat c.err >&2; fail "the partial count was not named"; }
python3 - res/*/matrix.json << 'PY' || fail "row"
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
assert row["verified"] is False, row
assert row["docs_counted"] is None or row["docs_counted"] < 0, row
assert "a partial count" in row["reason"] and "sent twice" not in row["reason"], row["reason"]
PY
pass "a _count with 2 of 5 shards failed leaves the row not verified, saying why"
