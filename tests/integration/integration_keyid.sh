#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_keyid — an agent id belongs to the agent that first brought it in, with real agents and a coordinator on 127.0.0.1: while agent x (key alpha) runs a
# cell, (1) an agent with another allow-listed key (beta) claiming id x and (2) a second agent
# with the same key and id are refused: each gets a Reject saying why and exits, the coordinator
# log names the id, both key fingerprints and the claimant's address, and agent x keeps its
# route (never says hello again) and its cell, which completes verified. (3) An agent without
# CURVE keys is logged with its peer address. The allow-list takes a key file of any name and
# says at start which files it skipped and why. Before, ROUTER_HANDOVER gave the route to
# whichever connection presented the id last. The cluster is the fault server in `ok` mode.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
"$COORD" keygen keys > /dev/null
"$AGENT" keygen ka > /dev/null
"$AGENT" keygen kb > /dev/null
cp keys/coordinator.pub ka/ && cp keys/coordinator.pub kb/
# alpha saved without .pub (keygen --help: any file name is the key's name; only *.pub files
# were read, and the agent was refused without a word), and a file that is no key
cp ka/agent.pub keys/agents/alpha && cp kb/agent.pub keys/agents/beta.pub
echo "alpha runs on host 3" > keys/agents/NOTES.txt
FS=$(free_port)
python3 "$SRC/tests/support/fault_server.py" --port "$FS" --mode ok --max-lifetime 120 > fs.out 2>&1 &
FSP=$!
trap 'kill $FSP ${A:-} ${B:-} ${D:-} ${NK:-} 2>/dev/null; cleanup_tmp' EXIT
for _ in $(seq 50); do grep -q READY fs.out && break; sleep 0.1; done
cat > s.yaml <<YAML
name: keyid
target: {hosts: [http://127.0.0.1:$FS]}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 1s, duration: 5s}
matrix: {batch_size: [10], concurrency: [1]}
YAML
P=$(free_port)
"$COORD" run s.yaml --agents 1 --keys keys --bind "tcp://127.0.0.1:$P" --results res > c.out 2> c.err &
CP=$!
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --keys ka --id x 2> a.err & A=$!
# wait until agent x runs the cell (its Start came), then claim its id
for _ in $(seq 200); do grep -q "cell .* starts in" a.err && break; sleep 0.1; done
grep -q "cell .* starts in" a.err || { cat a.err c.err >&2; fail "agent x did not start the cell"; }
# (1) another key, same id
timeout 20 "$AGENT" --coordinator "tcp://127.0.0.1:$P" --keys kb --id x 2> b.err & B=$!
# (2) the same key, same id: a second agent configured like the first
timeout 20 "$AGENT" --coordinator "tcp://127.0.0.1:$P" --keys ka --id x 2> d.err & D=$!
# (3) one without keys: its handshake fails before ZAP; the coordinator says so, with its address
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --insecure --id nokeys -q 2> n.err & NK=$!
rcb=0; wait "$B" || rcb=$?
rcd=0; wait "$D" || rcd=$?
B= D=
[ "$rcb" = 3 ] || { cat b.err >&2; fail "the agent with key beta and id x exited $rcb, not 3 (refused)"; }
[ "$rcd" = 3 ] || { cat d.err >&2; fail "the second agent with key alpha and id x exited $rcd, not 3"; }
grep -q "the coordinator refused this agent: agent id 'x' belongs to another key" b.err ||
    { cat b.err >&2; fail "the beta agent was not told why"; }
grep -q "the coordinator refused this agent: agent id 'x' is already connected (from 127.0.0.1" d.err ||
    { cat d.err >&2; fail "the duplicate agent was not told why"; }
timeout 60 tail --pid=$CP -f /dev/null || fail "the coordinator did not finish in 60 s"
rc=0; wait $CP || rc=$?
[ "$rc" = 0 ] || { cat c.err >&2; fail "campaign exit $rc"; }
grep -q "allow-list keys/agents: 2 agent keys" c.err &&
    grep -q "allow-list keys/agents: skipped NOTES.txt: not one 40-character Z85 public key line" c.err ||
    { cat c.err >&2; fail "the coordinator did not say at start what the allow-list holds and skipped"; }
fpa=$(grep -o "sha256:[0-9a-f]\{16\}" a.err | head -1)
fpb=$(grep -o "sha256:[0-9a-f]\{16\}" b.err | head -1)
[ -n "$fpa" ] && [ -n "$fpb" ] && [ "$fpa" != "$fpb" ] || fail "agents did not print their key fingerprints ($fpa, $fpb)"
grep -q "refused agent id x from 127.0.0.1 (key 'beta' $fpb, host .*): that id belongs to the agent connected from 127.0.0.1 (key 'alpha' $fpa" c.err ||
    { cat c.err >&2; fail "the claim of key beta on id x was not logged with both fingerprints and the address"; }
grep -q "refused agent id x from 127.0.0.1 (key 'alpha' $fpa, .*which is still there: two agents with one id" c.err ||
    { cat c.err >&2; fail "the duplicate agent id was not logged"; }
# agent x kept its route: the coordinator never heard it say hello again, nor lost it
if grep -E "agent x .*(said hello again|is back|comes back|lost|suspect)" c.err; then
    fail "agent x lost its route while its id was claimed"
fi
[ "$(grep -c "welcomed by the coordinator" a.err)" = 1 ] && ! grep -q "reconnecting" a.err ||
    { cat a.err >&2; fail "agent x was cut off and had to reconnect"; }
kill "$NK" 2> /dev/null || true
# the keyless agent opens two sockets; a connection that closes before the monitor reads its
# peer is logged without an address, so one of the two lines names it
grep -Eq "refused a connection to the (control|data) socket from 127\.0\.0\.1:[0-9]+.*CURVE handshake failed" c.err ||
    { cat c.err >&2; fail "the keyless agent was not logged with its address"; }
grep -q "verified" res/keyid-*/matrix.md || fail "no matrix"
python3 - res <<'PY'
import csv, glob, sys
r = list(csv.DictReader(open(glob.glob(sys.argv[1] + "/*/matrix.csv")[0])))[0]
assert r["verified"] == "true" and float(r["docs_per_s"]) > 0, r
PY
grep "refused a connection" c.err >&2 || true
pass "agent id x stayed with the first agent (key alpha); key beta and a duplicate were refused with reasons; the keyless agent was logged with its address; the cell verified"
