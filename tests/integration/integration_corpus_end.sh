#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_corpus_end — the end-of-corpus rule against the real test cluster (docs/scenario.md,
# End of the corpus; notes3/nu3.md F2.1): a corpus of 3000 documents read once (passes: 1) with
# run.duration 3600s, as import-rally writes for a Rally track without time-period, by 2 agents
# x 2 threads. The cell ends when the corpus is read and its row is over the seconds it ran:
# docs/s = documents / (corpus_end_s - warmup), within a sane factor of documents / the run's
# wall time, not documents / 3600; no few-requests flag, no "agent-seconds missing", the row says
# where the corpus ended, and the counts are verified (3000 = docs_ok_all = _count). The
# standalone agent (bulkfleet-agent run) applies the same rule. plan on a corpus of three files
# names each with its codec and sizes and estimates the corpus's time, not run.duration's;
# validate and plan warn when the corpus would end within run.warmup.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
python3 - <<'PY'
import gzip, json
docs = [json.dumps({"@timestamp": "2026-12-01T10:%02d:%02dZ" % (i // 60 % 60, i % 60), "n": i,
                    "msg": "GET /item/%d \"quoted\"" % i}) for i in range(3000)]
open("docs.json.gz", "wb").write(gzip.compress(("\n".join(docs) + "\n").encode()))
PY
IDX="bf-corpusend-$$"
trap 'curl -sf -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
cat > end.yaml <<YAML
name: corpus-end
target: {hosts: ["$ES"]}
index: {name: $IDX-c}
document:
  action: create
  corpus: {path: docs.json.gz, passes: 1}
run: {warmup: 0s, duration: 3600s}
matrix: {batch_size: [100], concurrency: [4]}
YAML
p=$(free_port)
t0=$(date +%s.%N)
rc=0
timeout 120 "$COORD" run end.yaml --local-agents 2 --threads 2 --insecure \
    --bind "tcp://127.0.0.1:$p" --results r -q > o 2> e || rc=$?
t1=$(date +%s.%N)
[ $rc = 0 ] || { cat e >&2; fail "campaign exit $rc"; }
count=$(curl -sf "$ES/$IDX-c/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')
python3 - r "$t0" "$t1" "$count" <<'PY' || { cat e >&2; fail "the corpus-end row"; }
import glob, json, math, sys
d = glob.glob(sys.argv[1] + "/*/")[0]
m = json.load(open(d + "matrix.json"))
r = m["rows"][0]
wall = float(sys.argv[3]) - float(sys.argv[2])
docs = 3000
assert int(sys.argv[4]) == docs, ("_count", sys.argv[4])
assert r["verified"] is True and r["docs_counted"] == docs and r["docs_ok_all"] == docs, r
assert r["corpus_ended"] == 1, r
end = r["corpus_end_s"]
assert 0 < end < wall, (end, wall)
assert r["duration_s"] == math.ceil(end), (r["duration_s"], end)
# docs/s is the documents over the seconds the corpus took, not over run.duration's 3600 s
assert abs(r["docs_per_s"] * end - docs) <= docs * 0.001, (r["docs_per_s"], end)
assert docs / wall <= r["docs_per_s"] <= 50 * docs / wall, (r["docs_per_s"], wall)
assert r["few_requests"] == 0 and r["late_seconds"] == 0 and not r["degraded"], r
assert not r["stalled"], r
why = r["reason"]
assert "ended at the end of the corpus" in why and "before run.duration's 3600 s" in why, why
assert "missing" not in why and "lengthen" not in why, why
md = open(d + "matrix.md").read()
assert "corpus-end" in md and "few-requests" not in md, md
for f in m.get("findings", []):
    t = json.dumps(f)
    assert "few-requests" not in t and "lengthen" not in t, f
print("corpus ended at %.2f s of a %.1f s run: %.0f docs/s (%d documents), flags ok"
      % (end, wall, r["docs_per_s"], docs))
PY
# plan on a corpus of three files: every file with its codec, documents and sizes,
# and the time estimate is the corpus's (ends when read, at most run.warmup + run.duration),
# with a figure when a rate is known
python3 - <<'PY'
import bz2, gzip, json
docs = [json.dumps({"n": i}) for i in range(4000)]
open("pa.json", "w").write("\n".join(docs[:1500]) + "\n")
open("pb.json.gz", "wb").write(gzip.compress(("\n".join(docs[1500:2700]) + "\n").encode()))
open("pc.json.bz2", "wb").write(bz2.compress(("\n".join(docs[2700:]) + "\n").encode()))
PY
sed -e 's|path: docs.json.gz|path: [pa.json, pb.json.gz, pc.json.bz2]|' end.yaml > three.yaml
"$COORD" plan three.yaml > plan1 2>&1 || { cat plan1 >&2; fail "plan three.yaml"; }
"$COORD" plan three.yaml --agents 2 --agent-docs-per-s 1000 > plan2 2>&1 || { cat plan2 >&2; fail "plan --agent-docs-per-s"; }
python3 - plan1 plan2 <<'PY' || fail "plan on three files"
import re, sys
out, out2 = open(sys.argv[1]).read(), open(sys.argv[2]).read()
assert "corpus: 3 files: 4000 documents" in out, out
for n, f, codec, d in ((1, "pa.json", "plain", 1500), (2, "pb.json.gz", "gzip", 1200),
                       (3, "pc.json.bz2", "bzip2", 1300)):
    assert re.search(r"  %d\. %s \(%s\): %d documents, [0-9.]+ [KM]?i?B in the file, [0-9.]+ [KM]?i?B decompressed" % (n, re.escape(f), codec, d), out), (f, out)
assert "each ending when its corpus is read (4000 documents: 4000 x 1 pass)" in out, out
assert "as long as the cluster takes to index them (the corpus's time), at most 1h00m05s" in out, out
assert "= 1h00m05s" not in out, out
# 4000 documents at 2 x 1000 docs/s: 2 s + 5 s setup
assert re.search(r"= about 7\.0s at --agent-docs-per-s", out2), out2
print("plan names the 3 files and estimates the corpus's time")
PY
# an imported warmup (70-240 s) read a small corpus to its end before the
# window started; validate and plan say so beforehand (3000 documents at even one 100-document
# answer a second on 4 connections: 7.5 s, within a 240 s warmup), and not for warmup 0s
sed -e 's|run: {warmup: 0s, duration: 3600s}|run: {warmup: 240s, duration: 3600s}|' end.yaml > warm.yaml
grep -q 'warmup: 240s' warm.yaml || fail "warm.yaml: the warmup was not set"
"$COORD" validate warm.yaml > v1 2> v1e || { cat v1e >&2; fail "validate warm.yaml"; }
"$COORD" plan warm.yaml > /dev/null 2> p1e || { cat p1e >&2; fail "plan warm.yaml"; }
want="warm.yaml: document.corpus: 3000 documents x 1 pass end before the measurement window starts in 1 of 1 cells: cell i1-s1-r0-b100-c4 reads them in at most 7.5 s at even one bulk response a second on each of its 4 connections (batch_size 100), within run.warmup 4m00s"
grep -Fq "$want" v1e || { cat v1e >&2; fail "validate does not warn that the corpus ends within the warmup"; }
grep -q "1 warning" v1 || { cat v1 >&2; fail "validate does not count the warning"; }
grep -Fq "$want" p1e || { cat p1e >&2; fail "plan does not warn that the corpus ends within the warmup"; }
"$COORD" validate end.yaml > /dev/null 2> v0e || fail "validate end.yaml"
grep -q "end before the measurement window" v0e && fail "validate warns with warmup 0s"
# the standalone agent: the same rule
timeout 120 "$AGENT" run end.yaml --threads 2 --results rs > so 2> se || { cat se >&2; fail "standalone exit $?"; }
python3 - rs <<'PY' || { cat se >&2; fail "the standalone corpus-end row"; }
import glob, json, sys
r = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]
assert r["verified"] is True and r["docs_counted"] == 3000, r
assert r["corpus_ended"] == 1 and r["few_requests"] == 0 and r["late_seconds"] == 0, r
assert abs(r["docs_per_s"] * r["corpus_end_s"] - 3000) <= 3, r
assert r["docs_per_s"] > 100, r   # 3000 documents / 3600 s would be 0.8
print("standalone: %.2f s, %.0f docs/s" % (r["corpus_end_s"], r["docs_per_s"]))
PY
pass "integration_corpus_end: a passes-bounded corpus's row is over the seconds it ran"
