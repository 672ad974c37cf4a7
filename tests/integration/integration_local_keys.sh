#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_local_keys — the ephemeral CURVE keys of --local-agents do not outlive a kill -9.
# The coordinator makes a private key directory under $TMPDIR for its local agents; it used to
# remove it only at the campaign's end, so a kill -9 left both private keys (agent.key,
# coordinator.key) in /tmp. Now the secrets are removed once every local agent has joined (each
# read its key at start): mid-cell only the public keys remain, and a kill -9 leaves no secret.
source "$(dirname "$0")/lib.sh"
trap 'stop_fs; kill -9 ${CPID:-} 2> /dev/null || true; pkill -f "bulkfleet-agent.*:${P:-none}" 2> /dev/null || true; cleanup_tmp' EXIT
cd "$TMP"
start_fs ok fs
mkdir keys-tmp
cat > s.yaml <<YAML
name: localkeys
target: {hosts: [http://127.0.0.1:$FS_PORT]}
index: {name: 'localkeys-{batch_size}', recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 20s}
matrix: {batch_size: [10], concurrency: [1]}
YAML
P=$(free_port)
TMPDIR="$TMP/keys-tmp" "$COORD" run s.yaml --local-agents 1 --bind "tcp://127.0.0.1:$P" \
    --results res > c.out 2> c.err & CPID=$!
for _ in $(seq 300); do
    ls res/*/cells/*.samples.partial > /dev/null 2>&1 && break
    sleep 0.1
done
ls res/*/cells/*.samples.partial > /dev/null 2>&1 || { cat c.err >&2; fail "the cell never started"; }
kd=$(ls -d keys-tmp/bulkfleet-keys.* 2> /dev/null | head -1)
[ -n "$kd" ] || { cat c.err >&2; fail "no key directory under TMPDIR (the local agents' keys went elsewhere)"; }
[ -f "$kd/agent.pub" ] || fail "the key directory holds no agent.pub: the test proves nothing"
secrets=$(ls "$kd"/*.key 2> /dev/null || true)
[ -z "$secrets" ] || fail "mid-cell, with every local agent joined, private keys remain: $secrets"
kill -9 "$CPID"; wait "$CPID" 2> /dev/null || true; CPID=
left=$(find keys-tmp -name '*.key')
[ -z "$left" ] || fail "a kill -9 left private keys behind: $left"
pass "the local agents' private keys are gone once they joined; a kill -9 leaves only $(ls "$kd" | tr '\n' ' ')"
