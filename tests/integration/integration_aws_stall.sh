#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_aws_stall — a credential fetch that hangs never stalls the fleet: the coordinator
# ships its own credentials (target.auth.aws.ship) from a fake IMDSv2 that answers the first
# fetch (a token valid 60 s, so fetched again every 10 s) and then accepts every connection and
# never answers. Throughout a 16 s cell the fetches again hang for their whole HTTP bound while
# the coordinator keeps pinging and hearing its agent: no "suspect" or "lost" line, the row is
# verified with the first credentials, and the warning names the source (the metadata
# service's address, that it did not answer) and what to do.
source "$(dirname "$0")/lib.sh"
trap 'stop_fs; for p in ${FAKE:-} ${AG:-}; do kill "$p" 2> /dev/null || true; done; cleanup_tmp' EXIT
python3 -c "import botocore" 2> /dev/null || { echo "SKIP: python3-botocore missing (scripts/install-deps.sh)"; exit 77; }
cd "$TMP"
KID=AKIDBULKFLEETSTALL1
SECRET='stalledSecretOfTheCoordinatorsRole0001'
export BF_FAULT_AWS_ACCESS_KEY_ID=$KID BF_FAULT_AWS_SECRET_ACCESS_KEY=$SECRET
echo '{}' > expiry.json
FAKE_PORT=$(free_port)
# fake IMDSv2: the first credentials fetch is answered; after it every request hangs 30 s
timeout 120 python3 - "$FAKE_PORT" "$KID" "$SECRET" "$TMP/expiry.json" "$TMP/stalls" <<'PY' > fake.out 2>&1 &
import json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
port, kid, secret, path, stalls = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
lock, state = threading.Lock(), {"served": False}
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def stall(self):
        with lock:
            if not state["served"]:
                return False
            with open(stalls, "a") as f:
                f.write("%.3f %s %s\n" % (time.time(), self.command, self.path))
        time.sleep(30)
        return True
    def reply(self, status, body):
        b = body.encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def do_PUT(self):
        if not self.stall():
            self.reply(200 if self.path == "/latest/api/token" else 400, "IMDSTOKEN")
    def do_GET(self):
        if self.stall():
            return
        if self.headers.get("X-aws-ec2-metadata-token") != "IMDSTOKEN":
            return self.reply(401, "")
        if self.path == "/latest/meta-data/iam/security-credentials/":
            return self.reply(200, "stall-role")
        if self.path != "/latest/meta-data/iam/security-credentials/stall-role":
            return self.reply(404, "")
        exp = int(time.time()) + 60
        with open(path, "w") as f:
            json.dump({"STALLTOKEN001": exp}, f)
        with lock:
            state["served"] = True
        self.reply(200, json.dumps({"Code": "Success", "AccessKeyId": kid, "SecretAccessKey": secret,
            "Token": "STALLTOKEN001", "Expiration": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(exp))}))
ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PY
FAKE=$!
for _ in $(seq 1 100); do (exec 3<> "/dev/tcp/127.0.0.1/$FAKE_PORT") 2> /dev/null && break; sleep 0.05; done
# an OpenSearch Serverless collection: no telemetry thread signs requests of its own, so the
# fetches again are the fleet's (Pings carry the shipped credentials)
start_fs ok stall --sigv4 eu-west-1/aoss --serverless --token-expiry-file "$TMP/expiry.json"
cat > stall.yaml <<YAML
name: aws-stall
target:
  hosts: ["http://127.0.0.1:$FS_PORT"]
  auth: {aws: {region: eu-west-1, service: aoss, ship: true}}
index: {name: aws-stall, recreate: true}
document: {action: create, source: '{"n": 1, "msg": "stalled"}'}
run: {warmup: 0s, duration: 16s, target_rate: 100}
matrix: {batch_size: [50], concurrency: [1]}
YAML
P=$(free_port)
set +e
env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_PROFILE \
    -u AWS_WEB_IDENTITY_TOKEN_FILE -u AWS_ROLE_ARN HOME="$TMP" AWS_SHARED_CREDENTIALS_FILE="$TMP/none" \
    AWS_CONFIG_FILE="$TMP/none" AWS_EC2_METADATA_DISABLED=false \
    AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$FAKE_PORT" \
    timeout 120 "$COORD" run stall.yaml --agents 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --results r > c.out 2> c.err &
CP=$!
env -i PATH="$PATH" HOME="$TMP" AWS_SHARED_CREDENTIALS_FILE="$TMP/none" AWS_CONFIG_FILE="$TMP/none" \
    AWS_EC2_METADATA_DISABLED=true timeout 110 "$AGENT" --coordinator "tcp://127.0.0.1:$P" \
    --insecure --id stalled --threads 1 --exit-after-cells 1 2> a.err &
AG=$!
wait "$CP"
RC=$?
wait "$AG" 2> /dev/null
set -e
[ "$RC" = 0 ] || { cat c.err a.err >&2; fail "campaign while the metadata service hangs: exit $RC"; }
[ -s stalls ] || { cat c.err >&2; fail "no credentials fetch reached the hanging metadata service"; }
echo "fetches that hung: $(wc -l < stalls)"
if grep -E "suspect|lost:" c.err || grep "nothing heard from the coordinator" a.err; then
    cat c.err a.err >&2
    fail "the coordinator and its agent lost sight of each other while a credentials fetch hung"
fi
grep -q "instance metadata http://127.0.0.1:$FAKE_PORT.*did not answer within 5 s" c.err ||
    { cat c.err >&2; fail "the warning does not name the metadata service that hung"; }
grep -q "signing with the ones from instance metadata (role stall-role) until they expire" c.err ||
    { cat c.err >&2; fail "the warning does not say what is signed with meanwhile"; }
python3 - "$FS_LOG" r <<'PY'
import csv, glob, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bad = [r for r in recs if r.get("sigv4") != "ok"]
assert not bad, "refused: %s" % [(r["path"], r.get("sigv4")) for r in bad[:3]]
rows = list(csv.DictReader(open(glob.glob(sys.argv[2] + "/*/matrix.csv")[0])))
assert len(rows) == 1 and rows[0]["verified"] == "true", rows
print("%d requests accepted; row verified (%s documents)" % (len(recs), rows[0]["docs_counted"]))
PY
grep -rq "STALLTOKEN\|$SECRET" c.out c.err a.err r && fail "a secret appears in the output or the results"
pass "a hanging metadata service: no agent suspect, the row verified, the warning names it"
