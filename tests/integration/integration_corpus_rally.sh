#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_corpus_rally — import-rally on a small track written in Rally's documented format
# (track.json: indices with a body file, corpora with bzip2 and gzip documents files (and one for
# another index, which the bulk task's "indices" filters out), operations and
# challenges with a bulk task), corpus made here: the scenario it prints validates, runs against
# the real test cluster with the track's mappings and settings, and every document of the
# corpus is counted once (the bulk task has no time-period: Rally reads the corpus once, so
# does the scenario). A track using Jinja is rendered (its default). Also: plan's memory
# projection counts the decompressed corpus (shipped, and read from local_path).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
mkdir -p track
python3 - <<'PY'
import bz2, gzip, json
docs = [json.dumps({"@timestamp": "2026-12-01T10:00:%02dZ" % (i % 60), "status": 200 + i % 5,
                    "request": "GET /page/%d HTTP/1.1" % i, "size": i * 7}) for i in range(1500)]
# the corpus in two documents files (bzip2 and gzip), both for the bulk task's index
open("track/documents-1.json.bz2", "wb").write(bz2.compress(("\n".join(docs[:1000]) + "\n").encode()))
open("track/documents-2.json.gz", "wb").write(gzip.compress(("\n".join(docs[1000:]) + "\n").encode()))
open("track/other.json", "w").write(docs[0] + "\n")
json.dump({"settings": {"index.number_of_shards": 2, "index.number_of_replicas": 0,
                        "index.refresh_interval": "5s"},
           "mappings": {"dynamic": "strict", "properties": {
               "@timestamp": {"type": "date"}, "status": {"type": "integer"},
               "request": {"type": "keyword"}, "size": {"type": "long"}}}},
          open("track/index.json", "w"), indent=2)
track = {
    "version": 2,
    "description": "a small http_logs-like track for bulkfleet's import test",
    "indices": [{"name": "rally-logs", "body": "index.json"}],
    "corpora": [{"name": "logs", "documents": [
        {"source-file": "documents-1.json.bz2", "document-count": 1000,
         "uncompressed-bytes": 100000, "target-index": "rally-logs"},
        {"source-file": "documents-2.json.gz", "document-count": 500,
         "uncompressed-bytes": 50000, "target-index": "rally-logs"},
        {"source-file": "other.json", "document-count": 1, "target-index": "other-logs"}]},
        {"name": "unused", "documents": [{"source-file": "not-downloaded.json.bz2"}]}],
    "operations": [
        {"name": "index-append", "operation-type": "bulk", "bulk-size": 250, "corpora": "logs",
         "indices": ["rally-logs"]},
        {"name": "refresh", "operation-type": "refresh"}],
    "challenges": [
        {"name": "append-no-conflicts", "default": True, "schedule": [
            {"operation": "delete-index"},
            {"operation": {"operation-type": "create-index"}},
            {"operation": "index-append", "warmup-time-period": 0, "clients": 3},
            {"operation": "refresh"}]},
        {"name": "timed", "schedule": [
            {"operation": "index-append", "warmup-time-period": 5, "time-period": 20,
             "clients": 4, "target-throughput": 10}]}]}
json.dump(track, open("track/track.json", "w"), indent=2)
# the same without the bulk task's index filter: two target indices
del track["operations"][0]["indices"]
json.dump(track, open("track2.json", "w"), indent=2)
PY
# plan's memory projection holds the decompressed corpus: 40,000 lines of 600 bytes (24 MB of
# text in a small gzip file), shipped (path) and read on the agent host (local_path)
python3 - <<'PY'
import gzip
line = '{"msg":"' + "x" * 590 + '"}\n'
open("big.json.gz", "wb").write(gzip.compress((line * 40000).encode(), 1))
PY
for key in path local_path; do
    printf 'name: p\ntarget: {hosts: ["http://127.0.0.1:9"]}\ndocument: {action: create, corpus: {%s: %s}}\nmatrix: {batch_size: [1000], concurrency: [2]}\n' \
        "$key" "$TMP/big.json.gz" > plan-$key.yaml
    "$COORD" plan plan-$key.yaml > plan-$key.out 2> plan-$key.err || { cat plan-$key.err >&2; fail "plan ($key) exit $?"; }
    python3 - plan-$key.out "$key" <<'PY' || { cat plan-$key.out >&2; fail "plan ($key) leaves the corpus out"; }
import re, sys
out, key = open(sys.argv[1]).read(), sys.argv[2]
assert re.search(r"corpus: .*big.json.gz \(gzip\): 40000 documents, 22.9 MiB decompressed", out), out
units = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
row = re.search(r"\n +1 +\S+ .* ([0-9.]+) (KiB|MiB) +([0-9.]+) (MiB|GiB)\n", out)
body, mem = float(row[1]) * units[row[2]], float(row[3]) * units[row[4]]
# a body is 1000 corpus lines (601 bytes) plus their action lines; 2 of them in flight, the
# 24 MB of text and its index, 64 MiB base; and, one index with nothing overlaid, the text laid
# out again as action + source lines for contiguous bodies (beside the text at Prepare): the
# action line {"create":{"_index":"p"}} adds 25 bytes a document
assert 1000 * 601 < body < 1000 * 700, body
il = re.search(r"; ([0-9.]+) (KiB|MiB) more while it lays out contiguous bodies at Prepare", out)
assert il and float(il[1]) * units[il[2]] >= 40000 * (601 + 25), out
assert mem >= 2 * body + 40000 * 601 + 40000 * (601 + 25) + 64 * 2**20, (mem, body)
print(key, "plan: body", body, "mem/agent", mem)
PY
done
"$COORD" import-rally track -o s.yaml 2> ie || { cat ie >&2; fail "import-rally exit $?"; }
grep -q "^      - \"$TMP/track/documents-1.json.bz2\"$" s.yaml && grep -q "^      - \"$TMP/track/documents-2.json.gz\"$" s.yaml &&
    ! grep -q "other.json\|not-downloaded" s.yaml ||
    { cat s.yaml >&2; fail "the scenario does not list the bulk task's documents files (and only those)"; }
grep -q "format: source" s.yaml && grep -q "passes: 1" s.yaml && grep -q "batch_size: \[250\]" s.yaml &&
    grep -q "concurrency: \[3\]" s.yaml && grep -q "shards: \[2\]" s.yaml ||
    { cat s.yaml >&2; fail "the scenario does not carry the track's bulk task"; }
# the other challenge: timed, 4 clients, 10 bulk requests/s = 2500 docs/s
"$COORD" import-rally track/track.json --challenge timed > t.yaml 2> te || { cat te >&2; fail "import-rally --challenge timed"; }
grep -q "passes: loop" t.yaml && grep -q "target_rate: \[2500\]" t.yaml && grep -q "duration: 20s" t.yaml &&
    grep -q "warmup: 5s" t.yaml || { cat t.yaml >&2; fail "challenge timed not imported as written"; }
"$COORD" import-rally track --challenge nope > /dev/null 2> ne && fail "an unknown challenge was accepted"
# no index filter: both targets, as index.count 2, said in the notes; the third file comes too
cp track2.json track/track2.json
"$COORD" import-rally track/track2.json > t2.yaml 2> t2e || { cat t2e >&2; fail "import-rally track2"; }
grep -q "^  count: 2$" t2.yaml && grep -q "the bulk task writes 2 indices (rally-logs, other-logs)" t2.yaml &&
    grep -q "^      - \"$TMP/track/other.json\"$" t2.yaml || { cat t2.yaml >&2; fail "two target indices not imported"; }
"$COORD" validate t2.yaml > /dev/null 2> t2v || { cat t2v t2.yaml >&2; fail "validate t2.yaml"; }
rm track/track2.json
grep -q "no challenge named 'nope'" ne || { cat ne >&2; fail "unknown challenge message"; }
sed -i "s|^  hosts: .*|  hosts: [\"$ES\"]|" s.yaml
"$COORD" validate s.yaml > /dev/null 2> ve || { cat ve s.yaml >&2; fail "validate exit $?"; }
P=$(free_port)
curl -sf -X DELETE "$ES/rally-logs" > /dev/null 2>&1 || true
trap 'curl -sf -X DELETE "$ES/rally-logs" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
timeout 300 "$COORD" run s.yaml --local-agents 1 --threads 2 --insecure --bind "tcp://127.0.0.1:$P" \
    --results r -q > ro 2> re || { cat re >&2; fail "run exit $?"; }
python3 - "$(cat r/*/matrix.json)" "$(curl -sf "$ES/rally-logs/_mapping")" "$(curl -sf "$ES/rally-logs/_settings")" <<'PY' || fail "row or index"
import json, sys
row = json.loads(sys.argv[1])["rows"][0]
assert row["verified"] is True and row["docs_counted"] == 1500 == row["docs_ok_all"], row
assert row["shards"] == 2 and row["batch_size"] == 250 and row["concurrency"] == 3, row
m = json.loads(sys.argv[2])["rally-logs"]["mappings"]
assert m["dynamic"] == "strict" and m["properties"]["request"]["type"] == "keyword", m
s = json.loads(sys.argv[3])["rally-logs"]["settings"]["index"]
assert s["refresh_interval"] == "5s" and s["number_of_shards"] == "2", s
print("counted", row["docs_counted"], "of 1500; mapping and settings from index.json")
PY
# Jinja: rendered as Rally does (the parameter's default), not refused
sed -i 's|"bulk-size": 250|"bulk-size": {{bulk_size \| default(400)}}|' track/track.json
"$COORD" import-rally track > j.yaml 2> je || { cat je >&2; fail "a Jinja track was refused"; }
grep -q "batch_size: \[400\]" j.yaml || { cat j.yaml >&2; fail "the Jinja default was not rendered"; }
pass "import-rally: a Rally-format track imported (two documents files of the bulk task's corpus and index filter, bulk-size, clients, target-throughput, shards, mappings, settings), ran and counted 1500 of 1500; two target indices as index.count 2; Jinja rendered; plan counts the decompressed corpus"
