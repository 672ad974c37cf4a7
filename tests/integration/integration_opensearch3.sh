#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_opensearch3 — examples/quickstart.yaml against OpenSearch 3.x: the dev cluster
# launcher for 3.x (deploy/devcluster-os3, OpenSearch 3.8.0 from Maven Central, Java 21+) is
# built and started with 1 node on free ports, warmed with a standalone run of the first cell
# (the first bulk requests on a cold JVM take seconds), and two cells of the quickstart run from the coordinator with
# two local agents: every row has docs/s > 0 and is verified by _count. Skipped (77) when no
# Java 21+ is on the machine.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
export BF_DEVCLUSTER_OPENSEARCH=3 BF_DEVCLUSTER_HEAP=1g
STATE="$TMP/os3"
if ! "$SRC/scripts/devcluster.sh" build 2> build.err; then
    if grep -q "needs Java 21" build.err; then cat build.err >&2; exit 77; fi
    cat build.err >&2
    fail "could not build the OpenSearch 3 launcher"
fi
HP=$(free_port)
TP=$(free_port)
trap '"$SRC/scripts/devcluster.sh" stop --state-dir "$STATE" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
URL=$("$SRC/scripts/devcluster.sh" start --nodes 1 --http-port "$HP" --transport-port "$TP" \
      --state-dir "$STATE" | head -n1) || fail "the OpenSearch 3 dev cluster did not start"
version=$(curl -sf "$URL" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"]["number"])')
case "$version" in 3.*) ;; *) fail "expected OpenSearch 3.x at $URL, got '$version'" ;; esac
# warm the JIT with the same work (the first bulk requests on a cold node take seconds)
BF_TARGET="$URL" timeout 120 "$AGENT" run "$SRC/examples/quickstart.yaml" --cell 1 --threads 1 \
    --warmup 1s --first-warmup 0s --duration 2s > warm.out 2> warm.err || rc=$?
# exit 1 is a row that is not clean, which a cold node's first seconds often are (the warm-up
# window can be stalled); only a refused scenario (2) or a cluster that cannot be used (3+) fails
[ "${rc:-0}" -le 1 ] || { tail -5 warm.err >&2; fail "warm-up run (exit $rc)"; }
P=$(free_port)
BF_TARGET="$URL" timeout 300 "$COORD" run "$SRC/examples/quickstart.yaml" --local-agents 2 --threads 1 \
    --insecure --bind "tcp://127.0.0.1:$P" --warmup 3s --first-warmup 0s --duration 3s --cells 1,8 --results r \
    -q > out 2> err || { tail -20 err >&2; fail "quickstart against OpenSearch $version: exit $?"; }
python3 - r "$version" <<'PY' || fail "rows"
import glob, json, sys
rows = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"]
assert len(rows) == 2, len(rows)
for r in rows:
    assert r["verified"] is True and r["docs_counted"] == r["docs_ok_all"] > 0, r["cell"]
    assert r["docs_per_s"] > 0, (r["cell"], r["docs_per_s"])
    print(f"OpenSearch {sys.argv[2]}: {r['cell']}: {r['docs_per_s']:.0f} docs/s, {r['docs_counted']} counted")
PY
pass "quickstart (2 cells) against OpenSearch $version: verified"
