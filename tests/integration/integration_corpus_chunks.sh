#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_corpus_chunks — a corpus larger than one chunk goes to the agent in chunks
# (--file-chunk-size 64KiB: 11 chunks of a 700 KB file), each checked against its hash, and
# both cells' counts are verified against the real test cluster. A transfer cut off (the first
# coordinator serves 3 chunks, BF_TEST_CHUNKS_SERVED_MAX, and is killed) resumes on the same
# agent with the 8 missing chunks only; the second cell does not fetch the file again.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
python3 - <<'PY'
import json
docs = [json.dumps({"n": i, "msg": "GET /item/%d HTTP/1.1 " % i + "x" * (200 - len(str(i)))})
        for i in range(3000)]
text = "\n".join(docs) + "\n"
open("docs.json", "w").write(text)
open("nchunks", "w").write(str((len(text) + 65535) // 65536))
PY
N=$(cat nchunks)
[ "$N" -ge 10 ] || fail "the corpus is not larger than a few chunks ($N)"
IDX="bf-chunks-$$"
P=$(free_port)
APID=""
CPID=""
cleanup() {
    [ -n "$CPID" ] && kill -9 "$CPID" 2> /dev/null
    [ -n "$APID" ] && kill "$APID" 2> /dev/null && wait "$APID" 2> /dev/null
    curl -sf -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true
    [ -n "${KEEP:-}" ] || cleanup_tmp
}
trap cleanup EXIT
cat > s.yaml <<YAML
name: chunks
target: {hosts: ["$ES"]}
index: {name: "$IDX-{batch_size}", recreate: true}
document: {action: create, corpus: {path: docs.json, passes: 1}}
run: {warmup: 0s, duration: 30s}
matrix: {batch_size: [100, 150], concurrency: [2]}
YAML
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --insecure --id chunky --threads 2 2> agent.err &
APID=$!
# 1: this coordinator serves 3 chunks and is killed while the agent waits for the rest
BF_TEST_CHUNKS_SERVED_MAX=3 "$COORD" run s.yaml --agents 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --file-chunk-size 64KiB --results r1 -q > o1 2> e1 &
CPID=$!
for _ in $(seq 1 200); do grep -q "fetching" agent.err && break; sleep 0.05; done
sleep 1
kill -9 "$CPID"; wait "$CPID" 2> /dev/null || true; CPID=""
grep -q "docs.json (.*) goes to agents in $N chunks of 64.0 KiB" e1 || { cat e1 >&2; fail "coordinator 1 did not ship in chunks"; }
grep -q "file docs.json (.*): fetching $N of $N chunks of 64.0 KiB$" agent.err || { cat agent.err >&2; fail "the agent did not fetch $N chunks"; }
grep -q "chunks (.*) here in" agent.err && { cat agent.err >&2; fail "the file was whole although only 3 chunks were served"; }
# 2: the next coordinator; the agent asks only for the chunks it lacks
rc=0
timeout 120 "$COORD" run s.yaml --agents 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --file-chunk-size 64KiB --results r2 -q > o2 2> e2 || rc=$?
[ "$rc" = 0 ] || { cat e2 agent.err >&2; fail "campaign 2 exit $rc"; }
grep -q "fetching $((N - 3)) of $N chunks of 64.0 KiB (the others are kept from an earlier transfer)" agent.err ||
    { cat agent.err >&2; fail "the agent did not resume with the $((N - 3)) missing chunks"; }
grep -q "file docs.json: $N chunks (.*) here in .* s, checked" agent.err || { cat agent.err >&2; fail "no whole file"; }
[ "$(grep -c "fetching" agent.err)" = 2 ] || { cat agent.err >&2; fail "a later cell fetched the file again"; }
python3 - "$(ls r2/*/matrix.json)" <<'PY' || fail "rows"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert len(rows) == 2, rows
for r in rows:
    assert r["verified"] is True and r["docs_counted"] == 3000 == r["docs_ok_all"], r
print("both cells counted 3000 of 3000")
PY
pass "corpus in chunks: $N chunks of 64 KiB, cut off after 3 and resumed with $((N - 3)), checked by hash; 2 cells x 3000 documents counted; the second cell fetched nothing"
