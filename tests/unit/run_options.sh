#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_options — a bad value on `run`'s command line (a --bind port out of range, a --resume
# directory that is not there, ...) is refused with exit 2 and what to give, before the cluster
# is contacted: the scenario's cluster here is a closed port, so a run that probed it first
# would fail with exit 3 ("cannot use the target cluster") instead. The agent's --coordinator
# likewise. No cluster needed.
set -euo pipefail
BUILD=${BF_BUILD_DIR:?}
COORD="$BUILD/coordinator/bulkfleet-coordinator"
AGENT="$BUILD/agent/bulkfleet-agent"
T=$(mktemp -d "${TMPDIR:-/tmp}/bf-runopts.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$T"

# a port nobody listens on: bound by the kernel's choice, then closed
CLOSED=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > s.yaml <<Y
name: t
target: {hosts: [http://127.0.0.1:$CLOSED], connect_timeout: 1s}
document: {source: '{"a": 1}'}
request: {timeout: 2s}
run: {warmup: 0s, duration: 1s}
Y

# refused: exit 2, the message, and not a word about the cluster
refused() { # WANT ARGS...
    local want=$1
    shift
    local rc=0
    "$COORD" run s.yaml "$@" > out 2> err || rc=$?
    [ "$rc" = 2 ] || { cat err; fail "run $*: exit $rc, expected 2"; }
    grep -qF -- "$want" err || { cat err; fail "run $*: no '$want'"; }
    if grep -qi "cluster\|target:" err; then cat err; fail "run $*: the cluster was contacted"; fi
}
refused "--bind tcp://127.0.0.1:99999: port 99999 is out of range: give one from 1 to 65534" \
    --local-agents 1 --bind tcp://127.0.0.1:99999
refused "port 65535 is out of range: give one from 1 to 65534 (the data port is the next one)" \
    --local-agents 1 --bind tcp://127.0.0.1:65535
refused "--bind 127.0.0.1:7100: expected tcp://HOST:PORT" --local-agents 1 --bind 127.0.0.1:7100
refused "--bind tcp://127.0.0.1:71x0: the port '71x0' is not a number" \
    --local-agents 1 --bind tcp://127.0.0.1:71x0
refused "--data-bind tcp://127.0.0.1:0: port 0 is out of range" \
    --local-agents 1 --bind tcp://127.0.0.1:7100 --data-bind tcp://127.0.0.1:0
refused "--data-bind tcp://127.0.0.1:7100 is the --bind endpoint" \
    --local-agents 1 --bind tcp://127.0.0.1:7100 --data-bind tcp://127.0.0.1:7100
refused "--resume $T/nope: No such file or directory; give the results directory" \
    --local-agents 1 --resume "$T/nope"
refused "--resume s.yaml: not a directory" --local-agents 1 --resume s.yaml
refused "--metrics-store 127.0.0.1:9200: expected an http:// or https:// URL" \
    --local-agents 1 --metrics-store 127.0.0.1:9200
refused "--min-agents 3 is more than the 2 agents this campaign waits for" \
    --local-agents 2 --min-agents 3

# the premise: with good values the same run does contact the cluster (and fails on it, 3)
rc=0; "$COORD" run s.yaml --local-agents 1 --bind "tcp://127.0.0.1:$CLOSED" > out 2> err || rc=$?
[ "$rc" = 3 ] || { cat err; fail "good options: exit $rc, expected 3 (the closed cluster)"; }
grep -q "cannot use the target cluster" err || { cat err; fail "good options: the cluster was not probed"; }

# the agent: its --coordinator and --data, before it connects anywhere
rc=0; "$AGENT" --coordinator tcp://127.0.0.1:99999 --insecure > out 2> err || rc=$?
[ "$rc" = 2 ] || { cat err; fail "agent --coordinator :99999: exit $rc, expected 2"; }
grep -qF "port 99999 is out of range: give one from 1 to 65534" err || { cat err; fail "agent: no range"; }
rc=0; "$AGENT" --coordinator tcp://127.0.0.1:7100 --data tcp://127.0.0.1: --insecure > out 2> err || rc=$?
[ "$rc" = 2 ] || { cat err; fail "agent --data without a port: exit $rc, expected 2"; }
grep -qF -- "--data tcp://127.0.0.1:: the port '' is not a number" err || { cat err; fail "agent --data: no message"; }
echo "ok: bad run options refused before the cluster, agent endpoints checked"
