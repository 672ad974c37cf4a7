# SPDX-License-Identifier: MIT
# lib.sh — helpers shared by the integration tests (sourced, not run).
set -euo pipefail
BUILD=${BF_BUILD_DIR:?run through ctest (BF_BUILD_DIR)}
SRC=${BF_SOURCE_DIR:?run through ctest (BF_SOURCE_DIR)}
ES=${BF_TEST_ES:-http://127.0.0.1:19200}
COORD="$BUILD/coordinator/bulkfleet-coordinator"
AGENT="$BUILD/agent/bulkfleet-agent"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bf-test.XXXXXX")
cleanup_tmp() { rm -rf "$TMP"; }
trap cleanup_tmp EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "PASS: $*"; }

# The scripted fault server (tests/support/fault_server.py), for the faults a cluster cannot
# produce on demand. A test that starts one sets: trap 'stop_fs; cleanup_tmp' EXIT
FS="$SRC/tests/support/fault_server.py"
FS_PID=""
# stop_fs — stop the fault server start_fs started (if any)
stop_fs() {
    if [ -n "$FS_PID" ]; then
        kill "$FS_PID" 2>/dev/null || true
        wait "$FS_PID" 2>/dev/null || true
        FS_PID=""
    fi
}
# start_fs MODE NAME [ARGS...] — fault server on a free port (its own pick, --port 0), its
# request log in $TMP/NAME.log, ARGS passed on; sets FS_PORT, FS_LOG, FS_PID
start_fs() {
    stop_fs
    FS_LOG="$TMP/$2.log"
    : > "$FS_LOG"
    python3 "$FS" --port 0 --mode "$1" --log "$FS_LOG" --max-lifetime 120 "${@:3}" > "$TMP/$2.fs.out" 2>&1 &
    FS_PID=$!
    for _ in $(seq 1 100); do
        FS_PORT=$(awk '/^READY/{print $2}' "$TMP/$2.fs.out" 2>/dev/null || true)
        [ -n "$FS_PORT" ] && return 0
        sleep 0.1
    done
    fail "fault server ($1) did not start"
}
# a free TCP port pair (p, p+1) on 127.0.0.1, below the kernel's ephemeral range: a port inside
# it was free when picked and then taken by an outgoing connection (curl, agents) before the
# coordinator bound it ("Address already in use" in a fresh-clone make check)
free_port() {
    python3 - <<'PY'
import socket, random
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    low = 32768
hi = max(low - 2, 22000)
for _ in range(200):
    p = random.randint(22000, hi)
    ok = True
    for q in (p, p + 1):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", q))
        except OSError:
            ok = False
        finally:
            s.close()
    if ok:
        print(p)
        break
PY
}
# warm_cluster URL — a few bulk requests into a scratch index spread over every node, so a
# freshly started (cold JIT) cluster answers in milliseconds rather than seconds before a test
# measures anything; the index is deleted afterwards.
warm_cluster() {
    local url=$1 idx="bf-warm-$$" i body=""
    curl -sf -X PUT "$url/$idx" -H 'Content-Type: application/json' \
        -d '{"settings": {"number_of_shards": 6, "number_of_replicas": 0}}' > /dev/null || return 0
    for i in $(seq 1 200); do body+=$'{"index":{}}\n{"w":'$i$'}\n'; done
    for i in 1 2 3 4 5 6; do
        curl -sf -X POST "$url/$idx/_bulk" -H 'Content-Type: application/x-ndjson' --data-binary "$body" > /dev/null || true
    done
    curl -sf -X DELETE "$url/$idx" > /dev/null || true
}
# routing_check URL PREFIX DOCS — shard-aware bulk against an engine other than the default
# OpenSearch (the elasticsearch_* tests): `shard-of` against the node's own placement
# (tests/support/shardof_check.py: 7 shards; 3 with number_of_routing_shards 30; 6 partitioned,
# DOCS documents each), then routing_mode none, node and shard cells (3 shards, replicas 0) from
# the coordinator with one local agent: every row verified by _count, nothing unrouted or
# misrouted, sub-bulks of batch_size / nodes (node) and about batch_size / 3 (shard), and the
# telemetry's per-node write-pool samples (queue, active, rejected) for every node of the cluster.
# Indices PREFIX-*, deleted by name at the end (Elasticsearch 8+ refuses wildcard deletes:
# action.destructive_requires_name defaults to true).
routing_check() {
    local url=$1 pre=$2 docs=$3 port rc=0
    local names="$pre-s7,$pre-s3r30,$pre-p6,$pre-none,$pre-node,$pre-shard"
    python3 "$SRC/tests/support/shardof_check.py" "$url" "$pre" "$AGENT" --indices s7,s3r30,p6 \
        --docs "$docs" || { curl -s -X DELETE "$url/$names?ignore_unavailable=true" > /dev/null; fail "shard-of disagrees with $url"; }
    cat > routing.yaml <<YAML
name: routing-check
target: {hosts: ["$url"]}
index: {name: "$pre-{routing_mode}", recreate: true}
variables: [{name: n, type: range, from: 1, to: 1000}]
document: {source: '{"n": \$[[n]], "msg": "some text to make the document a little bigger"}'}
run: {warmup: 1s, duration: 2s, seed: 16}
matrix: {shards: [3], replicas: [0], batch_size: [300], concurrency: [2], routing_mode: [none, node, shard]}
YAML
    port=$(free_port)
    timeout 300 "$COORD" run routing.yaml --local-agents 1 --threads 1 --insecure \
        --bind "tcp://127.0.0.1:$port" --results routing-r -q > routing.out 2> routing.err || rc=$?
    curl -s -X DELETE "$url/$names?ignore_unavailable=true" > /dev/null || true
    # exit 1: a row that is not clean (few requests, client-bound on a loaded machine); the rows
    # are checked below
    [ "$rc" -le 1 ] || { tail -20 routing.err >&2; fail "routing_mode cells against $url: exit $rc"; }
    python3 - routing-r "$url" <<'PY' || fail "routing_mode rows or telemetry"
import glob, json, sys, urllib.request
d = glob.glob(sys.argv[1] + "/*/")[0]
nodes = json.load(urllib.request.urlopen(sys.argv[2] + "/_nodes/http", timeout=10))["nodes"]
names = sorted(n["name"] for n in nodes.values())
for r in json.load(open(d + "matrix.json"))["rows"]:
    mode = r["cell"].rsplit("route_", 1)[1]
    assert r["verified"] is True and r["docs_counted"] == r["docs_ok_all"] > 0, r["cell"]
    if mode != "none":
        assert r["docs_unrouted"] == 0 and r["docs_misrouted"] == 0, r
        want = 300 / len(names) if mode == "node" else 100
        assert 0.7 * want <= r["subbulk_docs_mean"] <= 1.3 * want, (mode, r["subbulk_docs_mean"], want)
    ticks = [json.loads(l) for l in open(f"{d}telemetry/{r['cell']}.ndjson")]
    ticks = [t for t in ticks if t["type"] == "tick"]
    assert len(ticks) >= 3, (r["cell"], len(ticks))
    for t in ticks:
        assert sorted(n["name"] for n in t["nodes"]) == names, (t, names)
        for n in t["nodes"]:
            assert all(isinstance(n[k], int) and n[k] >= 0 for k in ("queue", "active", "rejected")), n
    # the cell's primaries' index_total (None in a tick whose _stats was not answered in time)
    pit = [t["primaries_index_total"] for t in ticks if t.get("primaries_index_total") is not None]
    assert len(pit) >= 2 and pit[-1] > pit[0], (r["cell"], pit)
    print(f"{r['cell']}: {r['docs_per_s']:.0f} docs/s, {r['docs_counted']} counted, sub-bulks "
          f"{r.get('subbulk_docs_mean')}, write queue max {max(n['queue'] for t in ticks for n in t['nodes'])}, "
          f"rejected {ticks[-1]['nodes'][0]['rejected']}, {len(ticks)} telemetry ticks over {len(names)} node(s)")
PY
}
# seed000_check URL — examples/seed000-shards.yaml (seed 000's strict mapping with its own
# analysis: a pattern tokenizer, an ngram tokenizer, the keyword tokenizer and a lowercase filter
# and normalizer) on an engine whose dev cluster gets them from a module of ours (Elasticsearch:
# bulkfleet-analysis-common): its 1-shard and 6-shard cells at concurrency 4 from the coordinator
# with two local agents, both rows verified by _count; the index's own analyzers give what
# Elasticsearch's analysis-common gives (path_analyzer "AB/Cd" -> ab, cd; name_analyzer "Ab" ->
# a, ab, b; keyword_normalizer "AbC" -> abc), and every document is found by a lower-cased path
# token. The indices are deleted by name afterwards.
seed000_check() {
    local url=$1 port rc=0
    port=$(free_port)
    BF_TARGET="$url" timeout 180 "$COORD" run "$SRC/examples/seed000-shards.yaml" --local-agents 2 --threads 1 \
        --insecure --bind "tcp://127.0.0.1:$port" --warmup 1s --duration 2s --cells 1,3 --results seed-r \
        > seed.out 2> seed.err || rc=$?
    [ "$rc" -le 1 ] || { tail -20 seed.err >&2; fail "examples/seed000-shards.yaml against $url: exit $rc"; }
    python3 - seed-r "$url" <<'PY' || { curl -s -X DELETE "$url/seed000-1s,seed000-6s?ignore_unavailable=true" > /dev/null; fail "seed000-shards rows or analyzers"; }
import glob, json, sys, urllib.request
url = sys.argv[2]
def call(path, body=None):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"}, method="POST" if body is not None else "GET")
    return json.load(urllib.request.urlopen(req, timeout=30))
rows = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"]
assert [r["shards"] for r in rows] == [1, 6], [r["cell"] for r in rows]
for r in rows:
    assert r["verified"] is True and r["docs_counted"] == r["docs_ok_all"] > 0, r["cell"]
    idx = f"seed000-{r['shards']}s"
    toks = lambda body: [t["token"] for t in call(f"/{idx}/_analyze", body)["tokens"]]
    assert toks({"analyzer": "path_analyzer", "text": "AB/Cd"}) == ["ab", "cd"], idx
    assert toks({"analyzer": "name_analyzer", "text": "Ab"}) == ["a", "ab", "b"], idx
    assert toks({"normalizer": "keyword_normalizer", "text": "AbC"}) == ["abc"], idx
    call(f"/{idx}/_refresh")
    found = call(f"/{idx}/_count?q=path:0011wsjck0ov00019700101000000043")["count"]
    assert found == r["docs_counted"], (idx, found, r["docs_counted"])
    print(f"seed000-shards {r['cell']}: {r['docs_per_s']:.0f} docs/s, {r['docs_counted']} counted, "
          f"{found} found by a path token of the index's own pattern tokenizer")
PY
    curl -s -X DELETE "$url/seed000-1s,seed000-6s" > /dev/null
}
# engine_quickstart ENGINE VERSION WORD — the quickstart's first cell on a 1-node dev cluster of
# ENGINE (scripts/devcluster.sh --engine, e.g. elasticsearch7) started on free ports: GET /
# answers VERSION, the coordinator's probe names "WORD VERSION, 1 node", and the row (two local
# agents) has docs/s > 0 and is verified by _count; the dev cluster is stopped on exit.
# ENGINE_URL is its URL afterwards.
engine_quickstart() {
    local engine=$1 want=$2 word=$3 hp tp url version port rc=0
    export BF_DEVCLUSTER_HEAP=1g
    "$SRC/scripts/devcluster.sh" build --engine "$engine" 2> build.err ||
        { cat build.err >&2; fail "could not build the $engine launcher"; }
    hp=$(free_port)
    tp=$(free_port)
    ENGINE_STATE="$TMP/$engine"
    trap '"$SRC/scripts/devcluster.sh" stop --state-dir "$ENGINE_STATE" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
    url=$("$SRC/scripts/devcluster.sh" start --engine "$engine" --nodes 1 --http-port "$hp" \
          --transport-port "$tp" --state-dir "$ENGINE_STATE" | head -n1) || fail "the $engine dev cluster did not start"
    version=$(curl -sf "$url" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"]["number"])')
    [ "$version" = "$want" ] || fail "expected $want at $url, got '$version'"
    port=$(free_port)
    BF_TARGET="$url" timeout 180 "$COORD" run "$SRC/examples/quickstart.yaml" --local-agents 2 --threads 1 \
        --insecure --bind "tcp://127.0.0.1:$port" --warmup 1s --duration 3s --cells 1 --results r \
        > out 2> err || rc=$?
    # exit 1 is a row that is not clean (a cold node's first seconds); the row is checked below
    [ "$rc" -le 1 ] || { tail -20 err >&2; fail "quickstart against $engine $want: exit $rc"; }
    grep -q "target: $word $want, 1 node" err || { grep target: err >&2; fail "the probe did not name $word $want"; }
    python3 - r "$word $want" <<'PY' || fail "the row"
import glob, json, sys
rows = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"]
assert len(rows) == 1, len(rows)
r = rows[0]
assert r["verified"] is True and r["docs_counted"] == r["docs_ok_all"] > 0, r
assert r["docs_per_s"] > 0, r
print(f"{sys.argv[2]}: {r['cell']}: {r['docs_per_s']:.0f} docs/s, {r['docs_counted']} counted, verified")
PY
    ENGINE_URL=$url
}
