#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_agent_quiet — an agent is quiet in a normal campaign and between campaigns (issue
# #12 item 11): while the coordinator takes 4 s to create the cell's index (the
# fault server's --index-delay-ms: a loaded cluster), it keeps answering its fleet, so the agent
# never says Hello again; after the campaign, the idle agent waits for the next one without a
# warning; an agent started before the coordinator joins with one line, not a "said hello
# again" per Hello ZeroMQ queued meanwhile. The agent runs with -q (warnings and
# errors only): its stderr must stay empty.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
FS=$(free_port)
python3 "$SRC/tests/support/fault_server.py" --port "$FS" --mode ok --index-delay-ms 4000 \
    --max-lifetime 120 > fs.out 2>&1 &
FSP=$!
trap 'kill $FSP ${A:-} 2>/dev/null || true; cleanup_tmp' EXIT
for _ in $(seq 50); do grep -q READY fs.out && break; sleep 0.1; done
cat > s.yaml <<YAML
name: quiet
target: {hosts: [http://127.0.0.1:$FS]}
index: {name: 'quiet-{batch_size}', recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [10], concurrency: [1]}
YAML
P=$(free_port)
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --insecure --id quiet-1 -q 2> a.err & A=$!
# the agent starts first and repeats its Hello after 1 s: ZeroMQ queues both until the
# coordinator binds, and they arrive together ("said hello again" at every join)
sleep 1.5
rc=0
t0=$(date +%s.%N)
"$COORD" run s.yaml --agents 1 --insecure --bind "tcp://127.0.0.1:$P" --results res > c.out 2> c.err || rc=$?
[ $rc -eq 0 ] || { cat c.err >&2; fail "campaign exit $rc"; }
grep -q "cell 1/1" c.err || fail "no cell ran"
# the delay did happen: the campaign (one index created, 2 s of load) took 4 s more than that
python3 -c "import sys; sys.exit(0 if float(sys.argv[2]) - float(sys.argv[1]) >= 6 else 1)" \
    "$t0" "$(date +%s.%N)" || fail "the index call was not slow: the test proves nothing"
if grep -q "said hello again" c.err; then
    cat c.err >&2; fail "the agent said Hello again during the campaign (the coordinator went silent), or its Hellos queued before the coordinator bound were logged as such at join"
fi
[ "$(grep -c "agent quiet-1 .* joined" c.err)" = 1 ] || { cat c.err >&2; fail "the agent did not join exactly once"; }
# idle after the campaign: past the 3 s suspicion, the 10 s loss and the first reconnect
sleep 13
kill -0 $A 2> /dev/null || fail "the agent exited"
grep -v -- "--insecure: plain TCP" a.err > a.warn || true
if [ -s a.warn ]; then cat a.warn >&2; fail "the agent warned during or after a normal campaign"; fi
pass "no Hello again while each index took 4 s; the idle agent stayed quiet for 13 s after the campaign"
