#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_keyid — an agent id belongs to the CURVE key that first brought it in: a second
# allow-listed key claiming the same id is ignored (ROUTER_HANDOVER would otherwise give it the
# route), and the campaign completes with the first agent. Loopback only; the cluster is the
# fault server in `ok` mode.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
"$COORD" keygen keys > /dev/null
"$AGENT" keygen ka > /dev/null
"$AGENT" keygen kb > /dev/null
cp keys/coordinator.pub ka/ && cp keys/coordinator.pub kb/
cp ka/agent.pub keys/agents/alpha.pub && cp kb/agent.pub keys/agents/beta.pub
FS=$(free_port)
python3 "$SRC/tests/support/fault_server.py" --port "$FS" --mode ok --max-lifetime 120 > fs.out 2>&1 &
FSP=$!
trap 'kill $FSP ${A:-} ${B:-} ${NK:-} 2>/dev/null; cleanup_tmp' EXIT
for _ in $(seq 50); do grep -q READY fs.out && break; sleep 0.1; done
cat > s.yaml <<YAML
name: keyid
target: {hosts: [http://127.0.0.1:$FS]}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 1s, duration: 3s}
matrix: {batch_size: [10], concurrency: [1]}
YAML
P=$(free_port)
"$COORD" run s.yaml --agents 1 --keys keys --bind "tcp://127.0.0.1:$P" --results res -q > c.out 2> c.err &
CP=$!
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --keys ka --id x -q 2> a.err & A=$!
sleep 2
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --keys kb --id x -q 2> b.err & B=$!
# and one without keys: its handshake fails before ZAP; the coordinator says so
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --insecure --id nokeys -q 2> n.err & NK=$!
timeout 60 tail --pid=$CP -f /dev/null || fail "the coordinator did not finish in 60 s"
wait $CP || { cat c.err >&2; fail "campaign exit $?"; }
grep -q "ignored a Hello for agent x from key 'beta': that agent id belongs to key 'alpha'" c.err ||
    { cat c.err >&2; fail "the second key's Hello for id x was not refused"; }
kill "$NK" 2> /dev/null || true
grep -q "refused a connection to the control socket .*CURVE handshake failed" c.err ||
    { cat c.err >&2; fail "the keyless agent was not logged"; }
grep -q "verified" res/keyid-*/matrix.md || fail "no matrix"
python3 - res <<'PY'
import csv, glob, sys
r = list(csv.DictReader(open(glob.glob(sys.argv[1] + "/*/matrix.csv")[0])))[0]
assert r["verified"] == "true" and float(r["docs_per_s"]) > 0, r
PY
pass "agent id x stayed with key alpha; key beta was ignored; the cell completed and verified"
