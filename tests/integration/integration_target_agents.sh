#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_target_agents — named host sets (targets:) and agents as matrix axes, against the
# real test cluster through two TCP forwarders (the "direct" and the "gateway" host set, each
# counting the bytes it carries): one campaign with 2 local agents runs target [direct,
# gateway] x agents [1, 2], plus a cell whose concurrency (1) is below its agents (2). Every
# row is verified and carries its axis values; each forwarder carried its own cells' bulk
# bytes and not the other's; the low-concurrency cell ran on 1 agent instead of failing. A
# named target that reaches another cluster (the fault server) and an agents value above the
# campaign's agents are refused before any load, with exit 2.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-tga-$$"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done; curl -s -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
ES_HOSTPORT=${ES#http://}
forward() { # forward PORT LOG: a forwarder 127.0.0.1:PORT -> the cluster, bounded in time
    timeout 300 python3 "$SRC/tests/support/netns_forward.py" --listen "127.0.0.1:$1" \
        --to "$ES_HOSTPORT" --log "$2" &
    PIDS+=($!)
    for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$1/" > /dev/null && return 0; sleep 0.1; done
    fail "forwarder on $1 did not start"
}
PD=$(free_port)
PG=$(free_port)
forward "$PD" direct.log
forward "$PG" gateway.log

cat > tga.yaml <<YAML
name: tga
target: {hosts: ["$ES"]}
targets:
  direct: {hosts: ["http://127.0.0.1:$PD"]}
  gateway: {hosts: ["http://127.0.0.1:$PG"]}
index: {name: "$IDX-{target}-{agents}", settings: {number_of_replicas: 0}}
document: {source: '{"a": 1}'}
run: {warmup: 1s, duration: 2s}
matrix:
  target: [direct, gateway]
  agents: [1, 2]
  batch_size: [500]
  concurrency: [2]
  include:
    - {target: direct, agents: 2, concurrency: 1}
YAML
"$COORD" validate tga.yaml > /dev/null || fail "validate"
BYTES_PER_DOC=$(( $("$AGENT" render tga.yaml --cell 1 --requests 1 | wc -c) / 500 ))
# the startup checks' GET / through the forwarders are a few hundred bytes: count from here
sleep 0.5
: > direct.log
: > gateway.log

PORT=$(free_port)
timeout 150 "$COORD" run tga.yaml --local-agents 2 --threads 1 --insecure \
    --bind "tcp://127.0.0.1:$PORT" --results r -q > out 2> err || { cat err >&2; fail "campaign exit $?"; }
sleep 0.6 # the forwarders' last 250 ms line
python3 - r direct.log gateway.log "$BYTES_PER_DOC" <<'PY' || { cat err >&2; fail "rows"; }
import glob, json, sys
rows = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"]
def carried(path):
    return sum(json.loads(l)["bytes"] for l in open(path) if l.strip())
moved = {"direct": carried(sys.argv[2]), "gateway": carried(sys.argv[3])}
bpd = int(sys.argv[4])
assert len(rows) == 5, [r["cell"] for r in rows]
want = {}
for r in rows:
    ax = r["axes"]
    assert r["verified"] is True and r["docs_failed"] == 0 and r["docs_ok_all"] > 0, r
    assert ax["target"] in ("direct", "gateway") and ax["agents"] in ("1", "2"), ax
    assert ax["target"] in r["cell"] and ("-a" + ax["agents"]) in r["cell"], (r["cell"], ax)
    # concurrency below the agents value: as many agents as requests in flight
    assert r["agents"] == min(int(ax["agents"]), r["concurrency"]), (r["cell"], r["agents"])
    want[ax["target"]] = want.get(ax["target"], 0) + r["docs_ok_all"] * bpd
low = [r for r in rows if r["concurrency"] == 1]
assert len(low) == 1 and low[0]["axes"]["agents"] == "2" and low[0]["agents"] == 1, low
for t in ("direct", "gateway"):
    # each forwarder carried its own cells' documents (plus HTTP headers and the requests
    # still in flight at a cell's end), not the other's as well
    ratio = moved[t] / want[t]
    assert 0.9 <= ratio <= 1.5, (t, moved, want)
print("direct: %d bytes for %d expected; gateway: %d for %d; agents per cell: %s"
      % (moved["direct"], want["direct"], moved["gateway"], want["gateway"],
         ", ".join("%s=%d" % (r["cell"], r["agents"]) for r in rows)))
PY

# a named target that reaches another cluster: refused before any load
FS=$(free_port)
timeout 60 python3 "$SRC/tests/support/fault_server.py" --port "$FS" --mode ok &
PIDS+=($!)
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$FS/" > /dev/null && break; sleep 0.1; done
sed -e "s#gateway: {hosts: \[\"http://127.0.0.1:$PG\"\]}#gateway: {hosts: [\"http://127.0.0.1:$FS\"]}#" tga.yaml > other.yaml
grep -q ":$FS" other.yaml || fail "other.yaml"
set +e
timeout 60 "$COORD" run other.yaml --local-agents 2 --threads 1 --insecure \
    --bind "tcp://127.0.0.1:$(free_port)" --results r2 -q > o2 2> e2
rc=$?
sed -e 's/agents: \[1, 2\]/agents: [1, 3]/' tga.yaml > three.yaml
timeout 60 "$COORD" run three.yaml --local-agents 2 --threads 1 --insecure \
    --bind "tcp://127.0.0.1:$(free_port)" --results r3 -q > o3 2> e3
rc3=$?
set -e
[ "$rc" = 2 ] || { cat e2 >&2; fail "another cluster behind a named target: exit $rc, want 2"; }
grep -q "targets.gateway.hosts\[0\].*reaches cluster 'bulkfleet-fault'" e2 || { cat e2 >&2; fail "message for another cluster"; }
[ "$rc3" = 2 ] || { cat e3 >&2; fail "agents 3 of 2: exit $rc3, want 2"; }
grep -q "matrix.agents 3, but this campaign has 2 agents" e3 || { cat e3 >&2; fail "message for agents 3 of 2"; }
[ ! -d r3 ] || [ -z "$(ls r3/*/cells 2> /dev/null)" ] || fail "agents 3 of 2 ran cells"
pass "target and agents axes: rows verified, each host set carried its own cells, concurrency 1 ran on 1 agent"
