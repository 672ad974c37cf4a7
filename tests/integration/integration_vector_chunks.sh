#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_vector_chunks — vector files read a block of rows at a time and shipped to the
# agents in chunks (docs/vectors.md), against the real test cluster: a .fvecs of 1003 rows and an
# HDF5 data set of 1001 rows (written here by numpy / h5py), rows read 64 at a time
# (BF_TEST_VECFILE_CHUNK_ROWS: neither row count is a multiple of it) and the files shipped in
# 4 KiB chunks (--file-chunk-size: the last chunk partial), sent by 2 local agents x 2 threads
# with passes: 1, _id a sequence from 0 and action create: the cell ends at the end of the pass
# (corpus-end) with every row in the index exactly once (_count = rows = documents sent =
# documents created, no 409) under its row number, and the vectors of the first, last and
# chunk-edge rows equal the file's float32 rows. A row of the .fvecs whose dimension count is
# wrong, found when its block is read, is refused by validate and run with the file and row;
# passes: without file: is refused. rows: 300 sends only the first 300 rows (ids 0..299).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-vchunks-$$"
trap 'curl -sf -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
[ -z "${BF_KEEP_TMP:-}" ] || trap - EXIT
H5PY=
for exe in python3 /usr/bin/python3; do
    "$exe" -c "import h5py, numpy" 2> /dev/null && { H5PY=$exe; break; }
done
[ -n "$H5PY" ] || fail "h5py/numpy missing: install python3-h5py (scripts/install-deps.sh)"
"$H5PY" - <<'PY' || fail "writing the files"
import h5py, numpy
rng = numpy.random.default_rng(39)
a = rng.standard_normal((1003, 16)).astype("<f4")
rows = numpy.hstack([numpy.full((1003, 1), 16, dtype="<i4").view("<f4"), a])
rows.tofile("base.fvecs")
b = rng.standard_normal((1001, 8)).astype("<f4")
with h5py.File("base.hdf5", "w") as f:
    f["train"] = b
    f["test"] = b[:5]
bad = rows.copy()
bad[700, 0] = numpy.array([15], dtype="<i4").view("<f4")[0]
bad.tofile("bad.fvecs")
PY
export BF_TEST_VECFILE_CHUNK_ROWS=64
scenario() { # scenario NAME FILE ROWS > NAME.yaml
    cat > "$1.yaml" <<YAML
name: $1
target: {hosts: ["$ES"]}
index: {name: $IDX-$1}
variables:
  - {name: row, type: sequence}
  - {name: v, type: vector, file: $2, passes: 1${4:-}}
document:
  action: create
  id: '\$[[row]]'
  source: '{"row":\$[[row]],"v":\$[[v]]}'
run: {warmup: 0s, duration: 60s}   # the pass ends the cell (seconds)
matrix: {batch_size: [50], concurrency: [4]}
YAML
}
campaign() { # campaign NAME -> results in r-NAME (2 local agents x 2 threads) and exit status
    local p
    p=$(free_port)
    timeout 120 "$COORD" run "$1.yaml" --local-agents 2 --threads 2 --insecure \
        --file-chunk-size 4KiB --bind "tcp://127.0.0.1:$p" --results "r-$1" > "o-$1" 2> "e-$1"
}
scenario fv base.fvecs 1003
scenario h5 'base.hdf5#train' 1001
for s in fv h5; do
    rc=0; campaign "$s" || rc=$?; [ $rc = 0 ] || { cat "e-$s" >&2; fail "campaign $s exit $rc"; }
    grep -q "goes to agents in .* chunks of 4.0 KiB" "e-$s" || { cat "e-$s" >&2; fail "$s: not shipped in chunks"; }
done
"$H5PY" - "$ES" "$IDX" <<'PY' || fail "rows"
import glob, h5py, json, numpy, sys, urllib.request
es, idx = sys.argv[1:3]
fv = numpy.fromfile("base.fvecs", dtype="<f4").reshape(1003, 17)[:, 1:]
with h5py.File("base.hdf5", "r") as f:
    h5 = f["train"][:]
def get(url):
    return json.load(urllib.request.urlopen(es + url))
for name, want in (("fv", fv), ("h5", h5)):
    n = len(want)
    r = json.load(open(glob.glob("r-%s/*/matrix.json" % name)[0]))["rows"][0]
    assert r["verified"] is True, (name, r)
    # one pass: every row sent and created exactly once (a row sent twice would be a 409)
    assert r["docs_counted"] == n and r["docs_ok_all"] == n == r["docs_sent_all"], (name, n, r)
    assert r["docs_failed"] == 0 and r["docs_conflict"] == 0, (name, r)
    assert r["corpus_ended"] == 1, (name, r)
    get("/%s-%s/_refresh" % (idx, name))
    assert get("/%s-%s/_count" % (idx, name))["count"] == n, name
    # the vectors of the first, last and chunk-edge rows are the file's, under the row number
    for k in (0, 1, 2, 3, 63, 64, 65, 255, 256, 512, n - 2, n - 1):
        d = get("/%s-%s/_doc/%d" % (idx, name, k))["_source"]
        assert d["row"] == k, (name, k, d["row"])
        got = numpy.array(d["v"], dtype="<f4")
        assert numpy.array_equal(got, want[k]), (name, k, got, want[k])
    print(name, n, "rows, each once in %.1f s;" % r["corpus_end_s"],
          "12 rows' vectors equal the file's")
PY
# rows: 300 of the 1003: only the first 300 rows, each once (ids 0..299), then the cell ends
scenario r3 base.fvecs 300 ', rows: 300'
rc=0; campaign r3 || rc=$?; [ $rc = 0 ] || { cat e-r3 >&2; fail "campaign r3 exit $rc"; }
"$H5PY" - "$ES" "$IDX" <<'PY' || fail "rows: 300"
import glob, json, numpy, sys, urllib.request
es, idx = sys.argv[1:3]
fv = numpy.fromfile("base.fvecs", dtype="<f4").reshape(1003, 17)[:, 1:]
def get(url, body=None):
    req = urllib.request.Request(es + url, data=body and json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req))
r = json.load(open(glob.glob("r-r3/*/matrix.json")[0]))["rows"][0]
assert r["verified"] is True and r["docs_ok_all"] == 300 == r["docs_sent_all"], r
assert r["docs_conflict"] == 0 and r["corpus_ended"] == 1, r
get("/%s-r3/_refresh" % idx)
assert get("/%s-r3/_count" % idx)["count"] == 300
a = get("/%s-r3/_search" % idx, {"size": 0, "aggs": {"lo": {"min": {"field": "row"}},
                                                     "hi": {"max": {"field": "row"}}}})["aggregations"]
assert (a["lo"]["value"], a["hi"]["value"]) == (0, 299), a
for k in (0, 299):
    d = get("/%s-r3/_doc/%d" % (idx, k))["_source"]
    assert d["row"] == k and numpy.array_equal(numpy.array(d["v"], dtype="<f4"), fv[k]), k
print("rows: 300: _count 300, ids 0..299, rows 0 and 299 equal the file's")
PY
# a wrong dimension count at row 701 (in the 11th block of 64 rows): refused with file and row
scenario bad bad.fvecs 1003
rc=0; "$COORD" validate bad.yaml > vo 2> ve || rc=$?
[ $rc = 2 ] || { cat ve >&2; fail "validate bad.yaml exit $rc, not 2"; }
grep -q "bad.fvecs: row 701 (byte 47600) has 15 dimensions, row 1 has 16" ve ||
    { cat ve >&2; fail "validate: no file and row"; }
rc=0; campaign bad || rc=$?
[ $rc = 2 ] || { cat e-bad >&2; fail "run bad.yaml exit $rc, not 2"; }
grep -q "row 701 (byte 47600) has 15 dimensions" e-bad || { cat e-bad >&2; fail "run: no file and row"; }
# passes: without file: is a mistake
sed -i 's/type: vector, file: bad.fvecs, passes: 1/type: vector, dims: 4, passes: 1/' bad.yaml
rc=0; "$COORD" validate bad.yaml > vo 2> ve || rc=$?
[ $rc = 2 ] && grep -q "only a vector file has passes" ve || { cat ve >&2; fail "passes without file: exit $rc"; }
pass "vector files in chunks, 2 agents x 2 threads: .fvecs 1003 rows and HDF5 1001 rows (blocks of 64, shipped in 4 KiB chunks) each row once under its row number, vectors equal to the file's; a bad row refused at its row"
