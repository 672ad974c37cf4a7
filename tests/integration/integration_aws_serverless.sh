#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_aws_serverless — target.auth.aws with service aoss against a server that checks
# every signature with botocore and plays OpenSearch Serverless (fault_server.py --sigv4
# eu-west-1/aoss --serverless --count-lag-s 3): no GET /, no _cluster or _nodes APIs, no
# _refresh, no shard settings, no _id in index/create items, documents counted 3 s after their
# acknowledgement. A campaign without and with gzip: every request accepted, no _refresh,
# _nodes or shard setting sent, every row verified by a _count that waited for the lag (the
# row says how long). validate refuses document.id, matrix.shards and routing_mode node (exit 2,
# naming the key).
source "$(dirname "$0")/lib.sh"
trap 'stop_fs; cleanup_tmp' EXIT
python3 -c "import botocore" 2> /dev/null || { echo "SKIP: python3-botocore missing (scripts/install-deps.sh)"; exit 77; }
cd "$TMP"
KID=AKIDBULKFLEETAOSS
SECRET='aossSecretKeyForTheFakeCollection0001'
export BF_FAULT_AWS_ACCESS_KEY_ID=$KID BF_FAULT_AWS_SECRET_ACCESS_KEY=$SECRET
export AWS_ACCESS_KEY_ID=$KID AWS_SECRET_ACCESS_KEY=$SECRET AWS_EC2_METADATA_DISABLED=true
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_WEB_IDENTITY_TOKEN_FILE AWS_ROLE_ARN
start_fs ok aoss --sigv4 eu-west-1/aoss --serverless --count-lag-s 3
cat > aoss.yaml <<YAML
name: aoss
target:
  hosts: ["http://127.0.0.1:$FS_PORT"]
  auth: {aws: {region: eu-west-1, service: aoss}}
index: {name: "bench-{compression}", recreate: true}
variables: [{name: uuid, type: uuid}]
document: {action: create, source: '{"doc_id": "\$[[uuid]]", "msg": "serverless"}'}
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [50], concurrency: [2], compression: [none, gzip]}
YAML
set +e
timeout 300 "$COORD" run aoss.yaml --local-agents 1 --threads 1 --insecure \
    --bind "tcp://127.0.0.1:$(free_port)" --results r -q > aoss.out 2> aoss.err
RC=$?
set -e
[ "$RC" = 0 ] || { cat aoss.err >&2; fail "aoss campaign: exit $RC"; }
grep -q "telemetry: not measured: OpenSearch Serverless has no _nodes/stats" aoss.err ||
    { cat aoss.err >&2; fail "telemetry not said to be unmeasured"; }
python3 - "$FS_LOG" r <<'PY'
import csv, glob, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bad = [r for r in recs if r.get("sigv4") != "ok"]
assert not bad, "refused: %s" % bad[:3]
for r in recs:
    p = r["path"]
    assert "_refresh" not in p and not p.startswith("/_nodes") and not p.startswith("/_cluster"), \
        "sent to Serverless: %s %s" % (r["method"], p)
    assert r.get("status") != 400 or r.get("bulk"), "refused: %s" % r
bulks = [r for r in recs if r.get("bulk")]
assert bulks and all(r.get("ids_missing", 0) == r.get("docs") for r in bulks), "an _id was sent"
rows = list(csv.DictReader(open(glob.glob(sys.argv[2] + "/*/matrix.csv")[0])))
assert len(rows) == 2, len(rows)
for r in rows:
    assert r["verified"] == "true", r
    assert int(r["docs_counted"]) == int(r["docs_ok_all"]) > 0, r
m = json.load(open(glob.glob(sys.argv[2] + "/*/matrix.json")[0]))
reasons = [json.dumps(row) for row in m["rows"]]
assert all("without _refresh (OpenSearch Serverless)" in t for t in reasons), reasons[0][:600]
print("%d requests accepted, %d bulk without _id, no _refresh/_nodes/_cluster, %d rows verified"
      % (len(recs), len(bulks), len(rows)))
PY
grep -q "cell .*: counted [0-9.]* s after the load without _refresh (OpenSearch Serverless)" aoss.err ||
    { cat aoss.err >&2; fail "the wait for the count is not said"; }
pass "aoss: every request accepted by botocore, no _id, no _refresh, rows verified after the lag"

# document.id and matrix.shards are refused before anything is sent (exit 2, naming the key)
sed 's/document: {action: create, /document: {action: create, id: "$[[uuid]]", /' aoss.yaml > withid.yaml
set +e
"$COORD" validate withid.yaml > withid.out 2>&1
RC=$?
set -e
[ "$RC" = 2 ] || { cat withid.out >&2; fail "document.id: exit $RC, want 2"; }
grep -q "document.id: OpenSearch Serverless (target.auth.aws.service: aoss) refuses an _id" withid.out ||
    { cat withid.out >&2; fail "document.id: message"; }
sed 's/matrix: {batch_size/matrix: {shards: [1, 2], batch_size/' aoss.yaml > shards.yaml
set +e
"$COORD" validate shards.yaml > shards.out 2>&1
RC=$?
set -e
[ "$RC" = 2 ] || { cat shards.out >&2; fail "matrix.shards: exit $RC, want 2"; }
grep -q "matrix.shards: OpenSearch Serverless .* places shards and replicas itself" shards.out ||
    { cat shards.out >&2; fail "matrix.shards: message"; }
sed 's/matrix: {batch_size/matrix: {routing_mode: [none, node], batch_size/' aoss.yaml > route.yaml
set +e
"$COORD" validate route.yaml > route.out 2>&1
RC=$?
set -e
[ "$RC" = 2 ] || { cat route.out >&2; fail "routing_mode: exit $RC, want 2"; }
grep -q "routing_mode node cannot be used with target.auth.aws" route.out ||
    { cat route.out >&2; fail "routing_mode: message"; }
pass "validate refuses document.id, matrix.shards and routing_mode node for a Serverless collection"
