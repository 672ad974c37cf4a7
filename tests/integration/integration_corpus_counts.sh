#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_corpus_counts — document.corpus against the real test cluster, counts verified:
# a gzip corpus of source lines read once (passes: 1) by 2 agents x 2 threads lands exactly
# once in the index (slices disjoint and covering); a bzip2 bulk-format corpus with the file's
# own _id and action create lands once with no 409, under the file's ids; a zstd
# corpus read twice (passes: 2) with $[[uuid]] ids lands twice; bad lines are reported with
# file:line by validate and never sent; a local_path list of two files is one corpus (2000
# counted) and a bad line of its second file is named at that file's line; a corpus.local_path
# missing on the agent host fails the cell at Prepare with what to do.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
python3 - <<'PY'
import bz2, gzip, json, subprocess
docs = [json.dumps({"@timestamp": "2026-12-01T10:%02d:%02dZ" % (i // 60 % 60, i % 60), "n": i,
                    "msg": "GET /item/%d \"quoted\" é" % i}) for i in range(1000)]
text = "\n".join(docs) + "\n"
open("docs.json.gz", "wb").write(gzip.compress(text.encode()))
bulk = "".join(json.dumps({"index": {"_index": "ignored", "_id": "doc-%d" % i}}) + "\n" + d + "\n"
               for i, d in enumerate(docs))
open("bulk.json.bz2", "wb").write(bz2.compress(bulk.encode()))
bad = docs[:]
bad[6] = '{"broken": }'
bad[11] = "not json at all"
open("docs-bad.json", "w").write("\n".join(bad) + "\n")
open("docs.json", "w").write(text)
subprocess.run(["zstd", "-q", "-f", "docs.json", "-o", "docs.json.zst"], check=True)
PY
IDX="bf-corpus-$$"
trap 'curl -sf -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
scenario() { # scenario NAME CORPUS_YAML [DOC_EXTRA] > NAME.yaml
    cat > "$1.yaml" <<YAML
name: $1
target: {hosts: ["$ES"]}
index: {name: $IDX-$1}
variables: [{name: u, type: uuid}]
document:
  action: create
  corpus: $2
  ${3:-}
run: {warmup: 0s, duration: 30s}   # a finite corpus ends the cell when it is read (no warmup: a
                                   # corpus read within the warmup leaves an empty window, stalled)
matrix: {batch_size: [70], concurrency: [4]}
YAML
}
row() { # row RESULTS_DIR -> the matrix.json row as JSON on stdout
    python3 -c 'import glob, json, sys; print(json.dumps(json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]))' "$1"
}
campaign() { # campaign NAME -> results in r-NAME (2 local agents x 2 threads)
    local p
    p=$(free_port)
    timeout 120 "$COORD" run "$1.yaml" --local-agents 2 --threads 2 --insecure \
        --bind "tcp://127.0.0.1:$p" --results "r-$1" -q > "o-$1" 2> "e-$1"
}
scenario once "{path: docs.json.gz, passes: 1}"
scenario bulk "{path: bulk.json.bz2, format: bulk, passes: 1}"
scenario twice "{path: docs.json.zst, passes: 2}" 'id: $[[u]]'
scenario gz "{path: docs.json.gz, passes: 1}"
echo "request: {compression: gzip}" >> gz.yaml
for s in once bulk twice gz; do
    rc=0; campaign "$s" || rc=$?; [ $rc = 0 ] || { cat "e-$s" >&2; fail "campaign $s exit $rc"; }
done
python3 - "$(row r-once)" "$(row r-bulk)" "$(row r-twice)" "$(row r-gz)" <<'PY' || fail "rows"
import json, sys
once, bulk, twice, gz = (json.loads(a) for a in sys.argv[1:5])
for name, r, want in (("once", once, 1000), ("bulk", bulk, 1000), ("twice", twice, 2000),
                      ("gz", gz, 1000)):
    assert r["verified"] is True, (name, r)
    assert r["docs_counted"] == want and r["docs_ok_all"] == want, (name, want, r)
    assert r["docs_conflict"] == 0 and r["docs_failed"] == 0, (name, r)
print("counted", once["docs_counted"], bulk["docs_counted"], twice["docs_counted"])
# where the agents' time went, through the fleet's samples: four shares
# that add up to 100 %; the gzip campaign compresses, the others do not
for name, r in (("once", once), ("gz", gz)):
    st = [r["stage_render_pct"], r["stage_compress_pct"], r["stage_judge_pct"], r["stage_send_wait_pct"]]
    print(name, "stages render/compress/judge/send-wait %:", st)
    assert all(v is not None and 0 <= v <= 100 for v in st), (name, st)
    assert abs(sum(st) - 100) < 1e-6, (name, st)
assert gz["stage_compress_pct"] > 0, gz
assert once["stage_compress_pct"] == 0, once
PY
# one index, nothing overlaid: the agent sends ranges of the corpus laid out once at Prepare
# (contiguous bodies; the campaigns' agents run --quiet, so it is seen here, standalone, with
# gzip: each body compressed from the corpus's range); an overlaid id gathers them one by one
scenario gzs "{path: docs.json.gz, passes: 1}"
echo "request: {compression: gzip}" >> gzs.yaml
timeout 60 "$AGENT" run gzs.yaml --threads 2 > so-gzs 2> se-gzs || { cat se-gzs >&2; fail "standalone gzs exit $?"; }
grep -q "contiguous corpus bodies: documents \[0, 1000)" se-gzs || { cat se-gzs >&2; fail "gzs: no contiguous bodies"; }
[ "$(curl -sf "$ES/$IDX-gzs/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')" = 1000 ] ||
    fail "gzs: not 1000 documents in the index"
sed -i 's/^  corpus: .*/&\n  id: $[[u]]/' gzs.yaml
timeout 60 "$AGENT" run gzs.yaml --threads 2 > so-gzs2 2> se-gzs2 || { cat se-gzs2 >&2; fail "standalone gzs (id) exit $?"; }
grep -q "contiguous corpus bodies" se-gzs2 && fail "gzs: contiguous bodies under an overlaid id"
# the file's own ids were sent (bulk format): doc-999 is document 999
curl -sf "$ES/$IDX-bulk/_doc/doc-999" | grep -q '"n": 999,' || fail "bulk corpus: _id doc-999 is not document 999"
# bad lines: validate names them with file:line; a run sends the 998 good ones
scenario bad "{path: docs-bad.json, passes: 1}"
"$COORD" validate bad.yaml > vo 2> ve || { cat ve >&2; fail "validate bad.yaml exit $?"; }
grep -q "docs-bad.json:7: not a JSON object" ve || { cat ve >&2; fail "validate did not report line 7"; }
grep -q "docs-bad.json:12: not a JSON object" ve || { cat ve >&2; fail "validate did not report line 12"; }
campaign bad || { cat e-bad >&2; fail "campaign bad exit $?"; }
python3 - "$(row r-bad)" <<'PY' || fail "bad row"
import json, sys
r = json.loads(sys.argv[1])
assert r["verified"] is True and r["docs_counted"] == 998 == r["docs_ok_all"], r
assert r["docs_failed"] == 0 and r["docs_mapping"] == 0, r
PY
# local_path as a list: one corpus of both files (1000 + 1000 documents), read by the agents;
# validate names a bad line at its own file and line
scenario two "{local_path: [$TMP/docs.json.gz, $TMP/docs.json.zst], passes: 1}"
campaign two || { cat e-two >&2; fail "campaign two exit $?"; }
python3 - "$(row r-two)" <<'PY' || fail "two-file row"
import json, sys
r = json.loads(sys.argv[1])
assert r["verified"] is True and r["docs_counted"] == 2000 == r["docs_ok_all"], r
PY
scenario twobad "{local_path: [$TMP/docs.json.gz, $TMP/docs-bad.json]}"
"$COORD" validate twobad.yaml > /dev/null 2> tbe || { cat tbe >&2; fail "validate twobad.yaml exit $?"; }
grep -q "$TMP/docs-bad.json:12: not a JSON object" tbe || { cat tbe >&2; fail "bad line of the second file not at its file:line"; }
# local_path that the agent host lacks: the cell fails at Prepare, saying what to do
scenario missing "{local_path: $TMP/nowhere/docs.json.gz}"
campaign missing && fail "a missing corpus.local_path did not fail"
grep -rq "copy the corpus to the same path on every agent host" "e-missing" r-missing 2>/dev/null ||
    { cat e-missing >&2; fail "no message saying where the corpus must be"; }
pass "corpus: gzip/bzip2/zstd, source and bulk format, 2 agents x 2 threads: 1000, 1000 (under the file's ids), 2000, 1000 gzip documents counted; contiguous bodies standalone with gzip (1000 counted), not under an overlaid id; a local_path list of 2 files: 2000; bad lines at file:line (also in a list's second file) and never sent; missing local_path explained"
