#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_routing_allow — the agent's --allow-target list applies to node addresses learned
# from the cluster: an agent allowed only "localhost" loads the cluster through
# target.hosts http://localhost:PORT, but with routing_mode node the nodes publish 127.0.0.1
# addresses, which the rule does not allow. Those nodes are not loaded directly: the agent
# says so, every document goes to target.hosts and counts as unrouted, and the row verifies.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
warm_cluster "$ES"
PORT=${ES##*:}
IDX="bf-rta-$$"
trap 'curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; kill $A 2> /dev/null || true; cleanup_tmp' EXIT
cat > s.yaml <<YAML
name: routing-allow
target: {hosts: ["http://localhost:$PORT"]}
index: {name: "$IDX", recreate: true}
document: {source: '{"n": 1}'}
request: {routing_mode: node}
run: {warmup: 1s, duration: 2s}
matrix: {shards: [3], replicas: [0], batch_size: [300], concurrency: [1]}
YAML
P=$(free_port)
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --insecure --allow-target localhost --threads 1 \
    --exit-after-cells 1 2> a.err & A=$!
timeout 120 "$COORD" run s.yaml --agents 1 --insecure --bind "tcp://127.0.0.1:$P" --results r -q \
    > c.out 2> c.err || { tail -20 c.err a.err >&2; fail "campaign exit $?"; }
wait $A || true
grep -q "not on this agent's --allow-target list: not loaded directly" a.err ||
    { cat a.err >&2; fail "the agent did not say it refused the learned node addresses"; }
python3 - r <<'PY' || fail "row"
import glob, json, sys
r = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]
assert r["verified"] is True and r["docs_ok_all"] > 0, r
# nothing was split: each bulk went whole to target.hosts (one sub-bulk of 300), and the
# unrouted count (taken when sent) matches the documents sent (taken when answered) up to the
# bulks in flight at the window's edges
assert r["subbulk_docs_mean"] == 300, r["subbulk_docs_mean"]
assert r["docs_sent"] > 0 and abs(r["docs_unrouted"] - r["docs_sent"]) <= 2 * 300, (r["docs_unrouted"], r["docs_sent"])
print(f"{r['docs_sent']} documents sent, all unrouted (to target.hosts), {r['docs_counted']} counted")
PY
pass "learned node addresses outside --allow-target are not loaded; their documents went to target.hosts"
