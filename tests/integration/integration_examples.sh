#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_examples — every scenario in examples/ runs for real, scaled down for one machine:
# the same file with a one-cell matrix (fewest shards, smallest batch, concurrency 4 at most;
# a target axis is kept: one cell per named host set),
# warmup 1 s and duration 3 s, against the test OpenSearch. Each row must be verified.
source "$(dirname "$0")/lib.sh"
# a scenario's second host set (targets: gateway, seed003-gateway.yaml) is the same cluster
export ES_PASSWORD=unused-by-the-dev-cluster BF_TARGET="$ES" BF_GATEWAY="$ES"
cp -r "$SRC/examples/." "$TMP/ex/" 2>/dev/null || { mkdir -p "$TMP/ex"; cp -r "$SRC/examples/." "$TMP/ex/"; }
for f in "$TMP"/ex/*.yaml; do
    name=$(basename "$f" .yaml)
    # scenarios with a search section have their own tests (integration_search_*): a one-cell
    # bulk matrix would not say what they are for
    if grep -q '^search:' "$f"; then echo "$name: run by integration_search_*"; continue; fi
    # scale the matrix down: keep the file, replace only the matrix block
    python3 - "$f" <<'PY'
import re, sys
p = sys.argv[1]
text = open(p).read()
i = text.index("\nmatrix:")
head, matrix = text[:i + 1], text[i + 1:]
def first_list(key, default):
    m = re.search(r"^\s+" + key + r":\s*\[([^\]]*)\]", matrix, re.M)
    if not m:
        m2 = re.search(r"^\s+" + key + r":\s*([0-9]+)\s*$", matrix, re.M)
        return int(m2.group(1)) if m2 else default
    return min(int(v) for v in m.group(1).split(","))
shards = min(first_list("shards", 1), 5)
batch = min(first_list("batch_size", 100), 500)
conc = min(first_list("concurrency", 2), 4)
# a target axis (named host sets) stays: each of its cells must verify through its own hosts
m = re.search(r"^\s+target:\s*(\[[^\]]*\])", matrix, re.M)
target = "  target: %s\n" % m.group(1) if m else ""
open(p, "w").write(head + "matrix:\n" + target + "  shards: [%d]\n  replicas: [0]\n"
                   "  batch_size: [%d]\n  concurrency: [%d]\n" % (shards, batch, conc))
PY
    "$COORD" validate "$f" > /dev/null || fail "$name: scaled-down copy does not validate"
    port=$(free_port)
    if ! "$COORD" run "$f" --local-agents 2 --threads 1 --bind "tcp://127.0.0.1:$port" \
        --warmup 1s --first-warmup 0s --duration 3s --results "$TMP/results-$name" -q > "$TMP/$name.out" 2> "$TMP/$name.err"; then
        tail -20 "$TMP/$name.err" >&2
        fail "$name: the campaign failed"
    fi
    python3 - "$TMP/results-$name" "$name" <<'PY'
import csv, glob, sys
d = glob.glob(sys.argv[1] + "/*/matrix.csv")[0]
rows = list(csv.DictReader(open(d)))
# one row, or one per named target (each with its target column)
assert len(rows) >= 1 and (len(rows) == 1 or all(r.get("target") for r in rows)), rows
for r in rows:
    assert float(r["docs_per_s"]) > 0, r
    assert r["verified"] == "true", (sys.argv[2], r["docs_counted"], r["docs_ok_all"])
    print(sys.argv[2], "ok:", r.get("target") or "", r["docs_per_s"], "docs/s,",
          r["docs_counted"], "counted")
PY
done
# the seed studies' loadgen configs, imported, run too (aimed at the test cluster, index
# recreated per cell since the test owns it; scaled down like the examples)
cp -r "$SRC/tests/fixtures/loadgen" "$TMP/lg"
for cfg in 000-loadgen-dedup 003-loadgen2; do
    "$COORD" import-loadgen "$TMP/lg/$cfg.yml" -c 2 -d 3 > "$TMP/lg/$cfg.yaml" ||
        fail "$cfg: import-loadgen failed"
    python3 - "$TMP/lg/$cfg.yaml" "$ES" <<'PY'
import re, sys
p, es = sys.argv[1], sys.argv[2]
t = open(p).read()
t = re.sub(r"(?m)^  hosts: .*$", '  hosts: ["%s"]' % es, t)
t = re.sub(r"(?m)^  tls: .*\n", "", t)
t = t.replace("recreate: false", "recreate: true")
t = re.sub(r"(?m)^  batch_size: .*$", "  batch_size: [100]", t)
open(p, "w").write(t)
PY
    "$COORD" validate "$TMP/lg/$cfg.yaml" > /dev/null || fail "$cfg: the imported scenario does not validate"
    port=$(free_port)
    if ! "$COORD" run "$TMP/lg/$cfg.yaml" --local-agents 1 --threads 1 --bind "tcp://127.0.0.1:$port" \
        --warmup 1s --duration 3s --results "$TMP/results-$cfg" -q > "$TMP/$cfg.out" 2> "$TMP/$cfg.err"; then
        tail -20 "$TMP/$cfg.err" >&2
        fail "$cfg: the imported campaign failed"
    fi
    python3 - "$TMP/results-$cfg" "$cfg" <<'PY'
import csv, glob, sys
r = list(csv.DictReader(open(glob.glob(sys.argv[1] + "/*/matrix.csv")[0])))[0]
assert float(r["docs_per_s"]) > 0 and r["verified"] == "true", r
print(sys.argv[2], "imported and ran:", r["docs_per_s"], "docs/s,", r["docs_counted"], "counted")
PY
done
pass "every example and both seed loadgen imports ran scaled down and verified"
