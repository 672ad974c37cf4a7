#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_es9_quickstart — examples/quickstart.yaml against a real Elasticsearch 9.5.3:
# the launcher for 9.x (deploy/devcluster-es9, server and netty4 module from Maven Central,
# Java 21+) is built and started with 1 node on free ports, warmed with a standalone run of the
# first cell (a cold node's first bulk requests take seconds), and two cells of the quickstart
# run from the coordinator with two local agents: the probe names Elasticsearch 9.5.3, every
# row has docs/s > 0 and is verified by _count. Then routing on the same node (routing_check in
# lib.sh): `shard-of` agrees with Elasticsearch 9's placement of 900 ids, and routing_mode none /
# node / shard cells verify with per-node write-pool telemetry. Then data streams on it:
# integration_data_stream's script through the launcher's bulkfleet-data-streams module (9.x
# form: Elasticsearch's data-streams module is not on Maven Central). Then
# examples/seed000-shards.yaml's 1- and 6-shard cells with the index's own analyzers
# (seed000_check in lib.sh: the launcher's bulkfleet-analysis-common module, 9.x build).
# Then vectors: elasticsearch_vectors' script, JSON, base64 (Elasticsearch 9.3+) and .fvecs.
# Then elasticsearch_modules' script: validate and plan name what the elasticsearch9 dev cluster
# lacks, with the way out from deploy/devcluster-modules.tsv.
# Skipped (77) when no Java 21+ is on the machine.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
export BF_DEVCLUSTER_HEAP=1g
STATE="$TMP/es9"
if ! "$SRC/scripts/devcluster.sh" build --engine elasticsearch9 2> build.err; then
    if grep -q "needs Java 21" build.err; then cat build.err >&2; exit 77; fi
    cat build.err >&2
    fail "could not build the Elasticsearch 9 launcher"
fi
HP=$(free_port)
TP=$(free_port)
trap '"$SRC/scripts/devcluster.sh" stop --engine elasticsearch9 --state-dir "$STATE" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
URL=$("$SRC/scripts/devcluster.sh" start --engine elasticsearch9 --nodes 1 --http-port "$HP" \
      --transport-port "$TP" --state-dir "$STATE" | head -n1) || fail "the Elasticsearch 9 dev cluster did not start"
version=$(curl -sf "$URL" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"]["number"])')
[ "$version" = 9.5.3 ] || fail "expected Elasticsearch 9.5.3 at $URL, got '$version'"
BF_TARGET="$URL" timeout 120 "$AGENT" run "$SRC/examples/quickstart.yaml" --cell 1 --threads 1 \
    --warmup 1s --first-warmup 0s --duration 3s > warm.out 2> warm.err || rc=$?
# exit 1 is a row that is not clean, which a cold node's first seconds often are
[ "${rc:-0}" -le 1 ] || { tail -5 warm.err >&2; fail "warm-up run (exit $rc)"; }
P=$(free_port)
BF_TARGET="$URL" timeout 300 "$COORD" run "$SRC/examples/quickstart.yaml" --local-agents 2 --threads 1 \
    --insecure --bind "tcp://127.0.0.1:$P" --warmup 2s --first-warmup 0s --duration 3s --cells 1,8 --results r \
    > out 2> err || rc=$?
[ "${rc:-0}" -le 1 ] || { tail -20 err >&2; fail "quickstart against Elasticsearch 9.5.3: exit $rc"; }
grep -q "target: elasticsearch 9.5.3, 1 node" err || { grep target: err >&2; fail "the probe did not name Elasticsearch 9.5.3"; }
python3 - r <<'PY' || fail "rows"
import glob, json, sys
rows = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"]
assert len(rows) == 2, len(rows)
for r in rows:
    assert r["verified"] is True and r["docs_counted"] == r["docs_ok_all"] > 0, r["cell"]
    assert r["docs_per_s"] > 0, (r["cell"], r["docs_per_s"])
    print(f"Elasticsearch 9.5.3: {r['cell']}: {r['docs_per_s']:.0f} docs/s, {r['docs_counted']} counted")
PY
routing_check "$URL" "bf-es9rt-$$" 300
BF_TEST_ES="$URL" bash "$SRC/tests/integration/integration_data_stream.sh" > ds.out 2>&1 ||
    { cat ds.out >&2; fail "integration_data_stream on Elasticsearch 9.5.3"; }
grep '^cell' ds.out
seed000_check "$URL"
BF_TEST_ES="$URL" bash "$SRC/tests/integration/elasticsearch_vectors.sh" > vec.out 2>&1 ||
    { cat vec.out >&2; fail "elasticsearch_vectors on Elasticsearch 9.5.3"; }
grep -E '^(hnsw|int8_hnsw|bbq_hnsw)/' vec.out
BF_TEST_ES="$URL" bash "$SRC/tests/integration/elasticsearch_modules.sh" > mods.out 2>&1 ||
    { cat mods.out >&2; fail "elasticsearch_modules on Elasticsearch 9.5.3"; }
grep '^PASS' mods.out
pass "quickstart (2 cells) against Elasticsearch 9.5.3: verified; shard-of agrees with the node, routing_mode cells verified; data streams as on OpenSearch; seed000-shards with its own analyzers verified; dense vectors in JSON and base64 their own nearest neighbours; lacking modules named"
