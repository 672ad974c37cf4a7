#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_progress_connect — the progress lines name the requests that could not connect.
# The fault server stops 1.5 s into a 10 s cell, so every bulk request after that fails to
# connect; the agent sends those documents again, so they are no document's error. Before, the
# coordinator's progress said "0 docs/s, errors 0, 429 0" for the rest of the cell, a fleet
# that reached nothing looking idle and healthy. Now the line says "connect failures N so far
# (requests not sent)", N the cell's failed connects as the agents counted them.
source "$(dirname "$0")/lib.sh"
trap 'stop_fs; kill ${A:-} ${KILLER:-} 2>/dev/null || true; cleanup_tmp' EXIT
cd "$TMP"
start_fs ok fs
cat > s.yaml <<YAML
name: connect
target: {hosts: [http://127.0.0.1:$FS_PORT]}
index: {name: 'connect-{batch_size}', recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 10s}
matrix: {batch_size: [10], concurrency: [2]}
YAML
P=$(free_port)
"$AGENT" --coordinator "tcp://127.0.0.1:$P" --insecure --id conn-1 --threads 2 2> a.err & A=$!
(
    for _ in $(seq 300); do
        ls res/*/cells/*.samples.partial > /dev/null 2>&1 && break
        sleep 0.1
    done
    sleep 1.5
    kill "$FS_PID"
) & KILLER=$!
rc=0
"$COORD" run s.yaml --agents 1 --insecure --bind "tcp://127.0.0.1:$P" --results res \
    --cluster-wait 2s > c.out 2> c.err || rc=$?
kill $A 2> /dev/null || true
wait $KILLER 2> /dev/null || true
FS_PID=""
grep -q "cannot connect" a.err || { cat a.err >&2; fail "the agent never failed to connect: the test proves nothing"; }
# the progress lines after the stop (every 5th second is logged when stderr is not a terminal)
lines=$(grep -E "measure ([5-9]|10)/10s" c.err || true)
[ -n "$lines" ] || { cat c.err >&2; fail "no progress line after the server stopped"; }
echo "$lines"
echo "$lines" | grep -Eq 'connect failures [1-9][0-9]* so far \(requests not sent\)' ||
    fail "no progress line names the failed connects"
pass "the progress line names the failed connects (campaign exit $rc)"
