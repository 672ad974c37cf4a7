#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_routing_hosts — a fleet spreads its bulk connections over target.hosts:
# 1, 2 and 3 local agents against 2 and 3 hosts (the nodes of the real 3-node cluster), each
# host's bulk requests counted at the server (_nodes/usage rest_actions, read around each run).
# Before the fix every agent started at hosts[0] (at its first thread's number, even with 2
# threads an agent): 2 agents with one connection each left host B without a request. Fleet
# connection j goes to hosts[j mod hosts], so every host gets floor or ceil of concurrency /
# hosts connections, and its share of the requests follows (at least half its fair share here).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
warm_cluster "$ES"
nodes=$(curl -sf "$ES/_cat/nodes?h=name" | wc -l)
[ "$nodes" -ge 3 ] || fail "the test cluster has $nodes nodes; integration_routing_* need 3"
BASE_PORT=${ES##*:}
H0="http://127.0.0.1:$BASE_PORT" H1="http://127.0.0.1:$((BASE_PORT + 1))" H2="http://127.0.0.1:$((BASE_PORT + 2))"
P="bf-rth-$$"
trap 'curl -sf -X DELETE "$ES/$P-*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
# bulk requests each node received over HTTP, by its HTTP port (node i listens on BASE_PORT + i)
usage() {
    curl -sf "$ES/_nodes/usage" > u.json
    curl -sf "$ES/_nodes/http" > h.json
    python3 - <<'PY'
import json
u = json.load(open("u.json"))["nodes"]
h = json.load(open("h.json"))["nodes"]
out = {}
for nid, n in h.items():
    port = n["http"]["publish_address"].rsplit(":", 1)[1]
    out[port] = u[nid].get("rest_actions", {}).get("bulk_action", 0)
print(json.dumps(out))
PY
}
# concurrency per (agents, hosts): the issue's case (one connection per agent) where it can
# load every host, else the fewest that can
for agents in 1 2 3; do
    for nh in 2 3; do
        conc=$(( agents > nh ? agents : nh ))
        hosts="\"$H0\", \"$H1\""
        [ "$nh" = 3 ] && hosts="$hosts, \"$H2\""
        cat > s$agents$nh.yaml <<YAML
name: routing-hosts
target: {hosts: [$hosts]}
index: {name: "$P-$agents-$nh", recreate: true}
variables: [{name: n, type: range, from: 1, to: 1000}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 2s, seed: 30}
matrix: {shards: [1], replicas: [0], batch_size: [20], concurrency: [$conc]}
YAML
        usage > before.json
        PORT=$(free_port)
        timeout 120 "$COORD" run s$agents$nh.yaml --local-agents "$agents" --threads 2 --insecure \
            --bind "tcp://127.0.0.1:$PORT" --results r$agents$nh -q > o 2> e ||
            { tail -20 e >&2; fail "$agents agents, $nh hosts: coordinator exit $?"; }
        usage > after.json
        python3 - "$agents" "$nh" "$conc" "$BASE_PORT" <<'PY' || fail "$agents agents against $nh hosts: see above"
import json, sys
agents, nh, conc, base = (int(a) for a in sys.argv[1:5])
b, a = json.load(open("before.json")), json.load(open("after.json"))
got = [a[str(base + i)] - b[str(base + i)] for i in range(nh)]
total = sum(got)
print(f"{agents} agent(s), concurrency {conc}, {nh} hosts: bulk requests per host {got}")
assert total > 0, got
for i, g in enumerate(got):
    conns = conc // nh + (1 if i < conc % nh else 0)  # fleet connection j -> hosts[j mod nh]
    fair = total * conns / conc
    assert g >= 0.5 * fair, f"host {i} got {g} of {total} bulk requests (its {conns} of {conc} connections: ~{fair:.0f})"
PY
    done
done
pass "1, 2 and 3 agents spread their connections over 2 and 3 hosts"
