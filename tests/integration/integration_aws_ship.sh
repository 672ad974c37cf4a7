#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_aws_ship — target.auth.aws.ship: an agent on a host without AWS credentials of
# its own (clean environment, metadata service disabled) signs with the coordinator's, which
# come from a fake IMDSv2 handing out a new session token at every fetch, each valid 14 s; the
# server (fault_server.py --sigv4 --token-expiry-file, every signature checked by botocore)
# refuses a token past its expiry. A 20 s cell outlives the first token: the coordinator fetches
# fresh ones before they expire and ships them (Prepare, then Pings), so every request is
# accepted, the agent's bulk requests carry several tokens, the row is verified, and no secret
# reaches the output or the results. ship with access_key_id is refused by validate (exit 2).
source "$(dirname "$0")/lib.sh"
trap 'stop_fs; for p in ${FAKE:-} ${AG:-}; do kill "$p" 2> /dev/null || true; done; cleanup_tmp' EXIT
python3 -c "import botocore" 2> /dev/null || { echo "SKIP: python3-botocore missing (scripts/install-deps.sh)"; exit 77; }
cd "$TMP"
KID=AKIDBULKFLEETSHIP1
SECRET='shippedSecretOfTheCoordinatorsRole0001'
export BF_FAULT_AWS_ACCESS_KEY_ID=$KID BF_FAULT_AWS_SECRET_ACCESS_KEY=$SECRET
echo '{}' > expiry.json
FAKE_PORT=$(free_port)
# fake IMDSv2: every credentials fetch gets a new token valid LIFE s, written to expiry.json
timeout 120 python3 - "$FAKE_PORT" "$KID" "$SECRET" "$TMP/expiry.json" <<'PY' > fake.out 2>&1 &
import json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
port, kid, secret, path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
LIFE = 14
lock, issued = threading.Lock(), {}
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def reply(self, status, body):
        b = body.encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def do_PUT(self):
        self.reply(200 if self.path == "/latest/api/token" else 400, "IMDSTOKEN")
    def do_GET(self):
        if self.headers.get("X-aws-ec2-metadata-token") != "IMDSTOKEN":
            return self.reply(401, "")
        if self.path == "/latest/meta-data/iam/security-credentials/":
            return self.reply(200, "ship-role")
        if self.path != "/latest/meta-data/iam/security-credentials/ship-role":
            return self.reply(404, "")
        with lock:
            token = "SHIPTOKEN%03d" % (len(issued) + 1)
            exp = int(time.time()) + LIFE
            issued[token] = exp
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                json.dump(issued, f)
            os.replace(tmp, path)
        self.reply(200, json.dumps({"Code": "Success", "AccessKeyId": kid, "SecretAccessKey": secret,
            "Token": token, "Expiration": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(exp))}))
ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PY
FAKE=$!
for _ in $(seq 1 100); do (exec 3<> "/dev/tcp/127.0.0.1/$FAKE_PORT") 2> /dev/null && break; sleep 0.05; done
start_fs ok ship --sigv4 eu-west-1/es --token-expiry-file "$TMP/expiry.json"
cat > ship.yaml <<YAML
name: aws-ship
target:
  hosts: ["http://127.0.0.1:$FS_PORT"]
  auth: {aws: {region: eu-west-1, service: es, ship: true}}
index: {name: aws-ship, recreate: true}
document: {source: '{"n": 1, "msg": "shipped"}'}
run: {warmup: 0s, duration: 20s, target_rate: 200}
matrix: {batch_size: [50], concurrency: [1]}
YAML
P=$(free_port)
set +e
env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_PROFILE \
    -u AWS_WEB_IDENTITY_TOKEN_FILE -u AWS_ROLE_ARN HOME="$TMP" AWS_SHARED_CREDENTIALS_FILE="$TMP/none" \
    AWS_CONFIG_FILE="$TMP/none" AWS_EC2_METADATA_DISABLED=false \
    AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$FAKE_PORT" \
    timeout 120 "$COORD" run ship.yaml --agents 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --results r > c.out 2> c.err &
CP=$!
# the agent's host has no AWS credentials at all: it can only sign with what is shipped
env -i PATH="$PATH" HOME="$TMP" AWS_SHARED_CREDENTIALS_FILE="$TMP/none" AWS_CONFIG_FILE="$TMP/none" \
    AWS_EC2_METADATA_DISABLED=true timeout 110 "$AGENT" --coordinator "tcp://127.0.0.1:$P" \
    --insecure --id shipped --threads 1 --exit-after-cells 1 2> a.err &
AG=$!
wait "$CP"
RC=$?
wait "$AG" 2> /dev/null
set -e
[ "$RC" = 0 ] || { cat c.err a.err >&2; fail "shipped credentials campaign: exit $RC"; }
grep -q "AWS credentials shipped by the coordinator (its instance metadata (role ship-role)) (key AKIDBULK...), temporary" a.err ||
    { cat a.err >&2; fail "the agent does not say it signs with shipped credentials"; }
grep -q "AWS credentials shipped again by the coordinator" a.err ||
    { cat a.err >&2; fail "fresh credentials were not shipped again"; }
python3 - "$FS_LOG" "$TMP/expiry.json" r "$SRC/tests/support" <<'PY'
import csv, glob, json, sys
sys.path.insert(0, sys.argv[4])
recs = [json.loads(l) for l in open(sys.argv[1])]
expiry = json.load(open(sys.argv[2]))
bad = [r for r in recs if r.get("sigv4") != "ok"]
assert not bad, "refused: %s" % [(r["path"], r.get("sigv4")) for r in bad[:3]]
bulks = [r for r in recs if r.get("bulk")]
assert bulks, "no bulk request"
rows = list(csv.DictReader(open(glob.glob(sys.argv[3] + "/*/matrix.csv")[0])))
assert len(rows) == 1 and rows[0]["verified"] == "true", rows
assert int(rows[0]["docs_ok_all"]) > 0 and int(rows[0]["docs_counted"]) == int(rows[0]["docs_ok_all"]), rows
tokens = sorted({r.get("sigv4_token") for r in bulks})
assert len(tokens) >= 2 and None not in tokens, tokens
# the load outlived the first token: without fresh ones the later bulks would be refused
first = min(expiry.values())
assert max(r["t"] for r in bulks) > first + 2, (max(r["t"] for r in bulks), first)
# and the server does refuse a token past its expiry (checked by the same verifier)
import sigv4_verify
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
old = min(expiry, key=expiry.get)
req = AWSRequest(method="GET", url="http://127.0.0.1:9/_count", data=b"")
req.headers["X-Amz-Content-SHA256"] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
SigV4Auth(Credentials("K", "S", old), "es", "eu-west-1").add_auth(req)
v = sigv4_verify.Verifier("eu-west-1", "es", {"K": "S"}, token_expiry_file=sys.argv[2])
got = v.check("GET", "/_count", req.headers, b"")
assert got and "expired" in got[1], got
print("%d requests accepted, %d bulk over %.0f s signed with %d tokens of %d issued; the first, expired at +%.0f s, "
      "is refused; row verified (%s documents)" % (len(recs), len(bulks),
      max(r["t"] for r in bulks) - min(r["t"] for r in bulks), len(tokens), len(expiry),
      first - min(r["t"] for r in recs), rows[0]["docs_counted"]))
PY
grep -rq "SHIPTOKEN\|$SECRET" c.out c.err a.err r && fail "a shipped secret appears in the output or the results"
pass "shipped temporary credentials refreshed and shipped again: every request of a 20 s cell accepted"

sed 's/ship: true}/ship: true, access_key_id: AKIDX, secret_access_key: sec}/' ship.yaml > both.yaml
set +e
"$COORD" validate both.yaml > both.out 2>&1
RC=$?
set -e
[ "$RC" = 2 ] || { cat both.out >&2; fail "ship with access_key_id: exit $RC, want 2"; }
grep -q "target.auth.aws.ship: true ships the coordinator's own credentials" both.out ||
    { cat both.out >&2; fail "ship with access_key_id: message"; }
pass "validate refuses ship with access_key_id"
