#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# demo.sh — what `make demo` runs: start a 1-node OpenSearch dev cluster on 127.0.0.1, run
# examples/demo.yaml across 2 local agents, print the results matrix, stop the cluster.
#
# Environment: BF_BUILD_DIR (build), BF_DEVCLUSTER_PORT (9200; its transport port is 100 above
# unless BF_DEVCLUSTER_TRANSPORT_PORT says otherwise), BF_DEMO_PORT (7100: the coordinator's
# control port on 127.0.0.1; the data port is the next one), BF_DEMO_SCENARIO
# (examples/demo.yaml: 2 cells x 6 repetitions in rounds), BF_DEMO_AGENTS (2). Two demos side by side:
#   BF_DEVCLUSTER_PORT=9201 BF_DEMO_PORT=7110 make demo
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BF_BUILD_DIR:-$REPO/build}
PORT=${BF_DEVCLUSTER_PORT:-9200}
SCENARIO=${BF_DEMO_SCENARIO:-$REPO/examples/demo.yaml}
AGENTS=${BF_DEMO_AGENTS:-2}
CPORT=${BF_DEMO_PORT:-7100}
case "$CPORT" in
    '' | *[!0-9]*) echo "demo: BF_DEMO_PORT=$CPORT: expected a port number such as 7110" >&2; exit 2 ;;
esac
if [ "$CPORT" -lt 1 ] || [ "$CPORT" -gt 65534 ]; then
    echo "demo: BF_DEMO_PORT=$CPORT: expected 1..65534 (the data port is the next one)" >&2; exit 2
fi
STATE="$REPO/.state/demo-cluster"

echo "demo: starting a 1-node OpenSearch 2.19 cluster on 127.0.0.1:$PORT ..." >&2
URL=$("$REPO/scripts/devcluster.sh" start --nodes 1 --http-port "$PORT" --state-dir "$STATE" | head -n1)
trap '"$REPO/scripts/devcluster.sh" stop --state-dir "$STATE" >/dev/null 2>&1 || true' EXIT
echo "demo: cluster ready at $URL" >&2
echo "demo: running $SCENARIO with $AGENTS local agents (about 5 minutes: 2 cells x 6 repetitions) ..." >&2
cd "$REPO"
set +e
BF_TARGET="$URL" "$BUILD/coordinator/bulkfleet-coordinator" run "$SCENARIO" \
    --local-agents "$AGENTS" --bind "tcp://127.0.0.1:$CPORT" --results "$REPO/results"
rc=$?
set -e
if [ $rc -ne 0 ]; then
    echo "demo: the campaign exited with $rc (see the messages above)" >&2
fi
# the hint keeps the ports this demo was given (a transport port given apart included), so
# followed as printed it binds what the user chose, not HTTP + 100
TPORT_ARG=""
if [ -n "${BF_DEVCLUSTER_TRANSPORT_PORT:-}" ]; then
    TPORT_ARG=" --transport-port $BF_DEVCLUSTER_TRANSPORT_PORT"
fi
echo "demo: stopping the cluster (its data goes with it). To keep one running for your own" \
     "runs: scripts/devcluster.sh start --nodes 1 --http-port $PORT$TPORT_ARG --state-dir" \
     ".state/mine (stop: scripts/devcluster.sh stop --state-dir .state/mine)" >&2
exit $rc
