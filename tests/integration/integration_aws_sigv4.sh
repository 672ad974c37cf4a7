#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_aws_sigv4 — target.auth.aws against a server that checks every request's AWS
# Signature Version 4 with botocore's own signer (fault_server.py --sigv4, sigv4_verify.py):
# a campaign for service es with and without gzip whose every request (probe, index setup,
# bulk, _refresh, _count) is accepted and whose rows are verified; a wrong secret, a skewed
# clock and an expired session token each stop the run before any bulk (exit 3) with a message
# naming the signature, the clock or the token; the credentials found in a shared credentials
# file (AWS_PROFILE), through web identity (a fake STS, AWS_ENDPOINT_URL_STS) and through IMDSv2
# (a fake metadata service, AWS_EC2_METADATA_SERVICE_ENDPOINT), all on 127.0.0.1; temporary
# credentials that expire within 5 minutes are fetched again and the new key signs the later
# requests; a metrics store with metrics_store.auth.aws signed the same way. The secret never
# appears in the output or the results.
source "$(dirname "$0")/lib.sh"
trap 'stop_fs; for p in ${FAKES:-} ${PLAIN_PID:-}; do kill "$p" 2> /dev/null || true; done; cleanup_tmp' EXIT
python3 -c "import botocore" 2> /dev/null || { echo "SKIP: python3-botocore missing (scripts/install-deps.sh)"; exit 77; }
cd "$TMP"
KID=AKIDBULKFLEETTEST1
SECRET='wJalrXUtnFEMI/K7MDENG+bPxRfiCYBULKFLEET'
KID2=AKIDBULKFLEETTEST2
SECRET2='secondSecretOfTheRefreshedCredentials'
export BF_FAULT_AWS_ACCESS_KEY_ID=$KID BF_FAULT_AWS_SECRET_ACCESS_KEY=$SECRET
export BF_FAULT_AWS_EXTRA_KEYS="$KID2:$SECRET2"
# nothing of this host's own AWS setup, and never the real metadata address
clean_env() {
    env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_PROFILE \
        -u AWS_WEB_IDENTITY_TOKEN_FILE -u AWS_ROLE_ARN -u AWS_ENDPOINT_URL_STS \
        -u AWS_ENDPOINT_URL -u AWS_EC2_METADATA_SERVICE_ENDPOINT \
        HOME="$TMP/home" AWS_SHARED_CREDENTIALS_FILE="$TMP/none" AWS_CONFIG_FILE="$TMP/none" \
        AWS_EC2_METADATA_DISABLED=true "$@"
}
mkdir -p home
scenario() { # scenario FILE SERVICE MATRIX [DURATION]
    cat > "$1" <<YAML
name: aws-$2
target:
  hosts: ["http://127.0.0.1:$FS_PORT"]
  auth: {aws: {region: eu-west-1, service: $2}}
index: {name: "aws-$2-{compression}", recreate: true}
document: {source: '{"n": 1, "msg": "signed"}'}
run: {warmup: 0s, duration: ${4:-2s}}
matrix: {batch_size: [50], concurrency: [2]$3}
YAML
}
run_campaign() { # run_campaign NAME ENV...: sets RC
    local name=$1
    shift
    set +e
    clean_env "$@" timeout 120 "$COORD" run "$name.yaml" --local-agents 1 --threads 1 --insecure \
        --bind "tcp://127.0.0.1:$(free_port)" --results "r-$name" -q > "$name.out" 2> "$name.err"
    RC=$?
    set -e
}
check_log() { # check_log: every request accepted, bulk requests among them
    python3 - "$FS_LOG" "$@" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bad = [r for r in recs if r.get("sigv4") != "ok"]
assert not bad, "refused: %s" % bad[:3]
bulks = [r for r in recs if r.get("bulk")]
assert bulks, "no bulk request"
gz = sum(1 for r in bulks if r.get("content_encoding") == "gzip" or r.get("body_bytes", 0) != r.get("body_bytes_wire"))
print("%d requests, %d bulk (%d gzip), every signature accepted by botocore" % (len(recs), len(bulks), gz))
if len(sys.argv) > 2 and sys.argv[2] == "gzip":
    assert gz > 0, "no gzip body was checked"
PY
}
rows_verified() { # rows_verified DIR N
    python3 - "$1" "$2" <<'PY'
import csv, glob, sys
d = glob.glob(sys.argv[1] + "/*/matrix.csv")[0]
rows = list(csv.DictReader(open(d)))
assert len(rows) == int(sys.argv[2]), len(rows)
for r in rows:
    assert r["verified"] == "true", r
    assert int(r["docs_counted"]) == int(r["docs_ok_all"]) > 0, r
print("%d rows verified" % len(rows))
PY
}

# es, without and with gzip: every request signed and accepted, the rows verified
start_fs ok es --sigv4 eu-west-1/es
scenario es.yaml es ", compression: [none, gzip]"
run_campaign es AWS_ACCESS_KEY_ID=$KID AWS_SECRET_ACCESS_KEY=$SECRET
[ "$RC" = 0 ] || { cat es.err >&2; fail "es campaign: exit $RC"; }
check_log gzip
rows_verified r-es 2
grep -q "AWS credentials from environment" es.err || { cat es.err >&2; fail "the credentials' source is not said"; }
grep -rq "$SECRET" es.out es.err r-es && fail "the secret appears in the output or the results"
pass "es: every request accepted by botocore's signer, gzip and not, rows verified"

# a wrong secret: exit 3 at the probe, naming the signature; no bulk request
start_fs ok wrong --sigv4 eu-west-1/es
scenario wrong.yaml es ""
run_campaign wrong AWS_ACCESS_KEY_ID=$KID AWS_SECRET_ACCESS_KEY=not-the-secret
[ "$RC" = 3 ] || { cat wrong.err >&2; fail "wrong secret: exit $RC, want 3"; }
grep -q "HTTP 403: authentication failed: The request signature we calculated does not match.*the request's SigV4 signature does not match (key AKIDBULK... from environment" wrong.err ||
    { cat wrong.err >&2; fail "wrong secret: the message does not name the signature"; }
grep -q '"bulk": *true' "$FS_LOG" && fail "wrong secret: a bulk request was sent"
pass "a wrong secret stops the run before any bulk, naming the signature"

# the server's clock 15 minutes ahead: exit 3, naming the clock
start_fs ok skew --sigv4 eu-west-1/es --clock-skew-s 900
scenario skew.yaml es ""
run_campaign skew AWS_ACCESS_KEY_ID=$KID AWS_SECRET_ACCESS_KEY=$SECRET
[ "$RC" = 3 ] || { cat skew.err >&2; fail "skew: exit $RC, want 3"; }
grep -q "Signature expired: .*this host's clock is off from AWS's" skew.err ||
    { cat skew.err >&2; fail "skew: the message does not name the clock"; }
grep -q '"bulk": *true' "$FS_LOG" && fail "skew: a bulk request was sent"
pass "a skewed clock stops the run before any bulk, naming the clock"

# an expired session token: exit 3, naming the token
start_fs ok expired --sigv4 eu-west-1/es --expired-token OLDTOKEN
scenario expired.yaml es ""
run_campaign expired AWS_ACCESS_KEY_ID=$KID AWS_SECRET_ACCESS_KEY=$SECRET AWS_SESSION_TOKEN=OLDTOKEN
[ "$RC" = 3 ] || { cat expired.err >&2; fail "expired: exit $RC, want 3"; }
grep -q "security token included in the request is expired.*the session token was refused" expired.err ||
    { cat expired.err >&2; fail "expired: the message does not name the token"; }
grep -q "OLDTOKEN" expired.err && fail "the session token appears in the message"
pass "an expired session token stops the run before any bulk, naming the token"

# no credentials anywhere: exit 3 naming every place looked at
start_fs ok none --sigv4 eu-west-1/es
scenario none.yaml es ""
run_campaign none
[ "$RC" = 3 ] || { cat none.err >&2; fail "no credentials: exit $RC, want 3"; }
grep -q "target.auth.aws: no AWS credentials on this host: tried the environment" none.err ||
    { cat none.err >&2; fail "no credentials: message"; }
pass "no credentials: named, with every provider tried"

# a shared credentials file and AWS_PROFILE
printf '[default]\naws_access_key_id = AKIDWRONG\naws_secret_access_key = wrong\n\n[bench]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$KID" "$SECRET" > creds.ini
start_fs ok files --sigv4 eu-west-1/es
scenario files.yaml es ""
run_campaign files AWS_SHARED_CREDENTIALS_FILE="$TMP/creds.ini" AWS_PROFILE=bench
[ "$RC" = 0 ] || { cat files.err >&2; fail "profile: exit $RC"; }
grep -q "AWS credentials from shared credentials (profile bench" files.err || { cat files.err >&2; fail "profile: source"; }
check_log
pass "shared credentials file, profile bench"

# credentials the scenario gives (from the coordinator's environment), shipped to the agent:
# no AWS setting on any host, every request signed, the secret not in the results
start_fs ok ship --sigv4 eu-west-1/es
cat > ship.yaml <<YAML
name: aws-ship
target:
  hosts: ["http://127.0.0.1:$FS_PORT"]
  auth:
    aws: {region: eu-west-1, service: es, access_key_id: "\${SHIP_KID}", secret_access_key: "\${SHIP_SECRET}"}
index: {name: aws-ship, recreate: true}
document: {source: '{"n": 1}'}
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [50], concurrency: [2]}
YAML
run_campaign ship SHIP_KID=$KID SHIP_SECRET=$SECRET
[ "$RC" = 0 ] || { cat ship.err >&2; fail "shipped credentials: exit $RC"; }
check_log
grep -rq "$SECRET" ship.out ship.err r-ship && fail "the shipped secret appears in the output or the results"
pass "credentials given by the scenario, shipped to the agent, never written"

# metrics_store.auth.aws: the store signed as the target is (the target here a plain server)
start_fs ok store --sigv4 eu-west-1/es
STORE_PORT=$FS_PORT
STORE_LOG=$FS_LOG
PLAIN_PORT=$(free_port)
timeout 120 python3 "$FS" --port "$PLAIN_PORT" --mode ok --max-lifetime 120 > plain.out 2>&1 &
PLAIN_PID=$!
for _ in $(seq 1 100); do grep -q READY plain.out 2> /dev/null && break; sleep 0.05; done
cat > store.yaml <<YAML
name: aws-store
target: {hosts: ["http://127.0.0.1:$PLAIN_PORT"]}
metrics_store:
  hosts: ["http://127.0.0.1:$STORE_PORT"]
  auth: {aws: {region: eu-west-1, service: es}}
  allow_target: true
index: {name: aws-store, recreate: true}
document: {source: '{"n": 1}'}
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [50], concurrency: [1]}
YAML
run_campaign store AWS_ACCESS_KEY_ID=$KID AWS_SECRET_ACCESS_KEY=$SECRET
kill "$PLAIN_PID" 2> /dev/null || true
[ "$RC" = 0 ] || { cat store.err >&2; fail "metrics store: exit $RC"; }
python3 - "$STORE_LOG" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs and all(r.get("sigv4") == "ok" for r in recs), [r.get("sigv4") for r in recs]
assert any(r["path"] == "/_bulk" for r in recs), "no document went to the store"
print("metrics store: %d requests, every signature accepted" % len(recs))
PY
pass "metrics_store.auth.aws: the store's requests signed and accepted"

# fake STS (web identity) and fake IMDSv2 on loopback: temporary credentials with a token
FAKE_PORT=$(free_port)
timeout 180 python3 - "$FAKE_PORT" "$KID" "$SECRET" "$KID2" "$SECRET2" <<'PY' > fake.out 2>&1 &
import json, sys, time, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
port, kid, secret, kid2, secret2 = int(sys.argv[1]), *sys.argv[2:6]
TOKEN = "IQoJb3JpZ2luX2VjEFAKESESSIONTOKEN"
served = [0]  # instance role credentials handed out: the first two (coordinator, agent) are
# kid's, every later one kid2's, and all expire in 200 s, inside the 5 minutes in which
# bulkfleet fetches them again
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def reply(self, status, body, ctype="text/plain"):
        b = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def do_PUT(self):
        ok = self.path == "/latest/api/token" and self.headers.get("X-aws-ec2-metadata-token-ttl-seconds")
        self.reply(200 if ok else 400, "IMDSTOKEN" if ok else "bad")
    def do_GET(self):
        if self.headers.get("X-aws-ec2-metadata-token") != "IMDSTOKEN":
            return self.reply(401, "")
        if self.path == "/latest/meta-data/iam/security-credentials/":
            return self.reply(200, "bench-role")
        if self.path == "/latest/meta-data/iam/security-credentials/bench-role":
            served[0] += 1
            k, sec = (kid, secret) if served[0] <= 2 else (kid2, secret2)
            exp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 200))
            return self.reply(200, json.dumps({"Code": "Success", "AccessKeyId": k,
                "SecretAccessKey": sec, "Token": TOKEN, "Expiration": exp}))
        self.reply(404, "")
    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        f = urllib.parse.parse_qs(self.rfile.read(n).decode())
        if f.get("Action") != ["AssumeRoleWithWebIdentity"] or f.get("WebIdentityToken") != ["eyJ-web-identity"]:
            return self.reply(400, "<ErrorResponse><Error><Code>InvalidIdentityToken</Code><Message>bad token</Message></Error></ErrorResponse>")
        self.reply(200, "<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>"
                   "<AccessKeyId>%s</AccessKeyId><SecretAccessKey>%s</SecretAccessKey><SessionToken>%s</SessionToken>"
                   "<Expiration>2099-01-01T00:00:00Z</Expiration></Credentials></AssumeRoleWithWebIdentityResult>"
                   "</AssumeRoleWithWebIdentityResponse>" % (kid, secret, TOKEN), "text/xml")
ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PY
FAKES=$!
for _ in $(seq 1 100); do (exec 3<> "/dev/tcp/127.0.0.1/$FAKE_PORT") 2> /dev/null && break; sleep 0.05; done
echo -n "eyJ-web-identity" > webid.token
start_fs ok webid --sigv4 eu-west-1/es
scenario webid.yaml es ""
run_campaign webid AWS_WEB_IDENTITY_TOKEN_FILE="$TMP/webid.token" AWS_ROLE_ARN=arn:aws:iam::123456789012:role/bench \
    AWS_ENDPOINT_URL_STS="http://127.0.0.1:$FAKE_PORT"
[ "$RC" = 0 ] || { cat webid.err >&2; fail "web identity: exit $RC"; }
grep -q "AWS credentials from web identity (arn:aws:iam::123456789012:role/bench)" webid.err || { cat webid.err >&2; fail "web identity: source"; }
check_log
python3 -c "
import json, sys
assert all(json.loads(l).get('sigv4') == 'ok' for l in open('$FS_LOG'))" || fail "web identity"
pass "web identity through STS AssumeRoleWithWebIdentity (session token signed)"

start_fs ok imds --sigv4 eu-west-1/es
scenario imds.yaml es "" 13s
run_campaign imds AWS_EC2_METADATA_DISABLED=false AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$FAKE_PORT"
[ "$RC" = 0 ] || { cat imds.err >&2; fail "imds: exit $RC"; }
grep -q "AWS credentials from instance metadata (role bench-role)" imds.err || { cat imds.err >&2; fail "imds: source"; }
check_log
# credentials that expire within 5 minutes are fetched again (at most every 10 s): the second
# key signs the later requests, of the agent's bulk and the coordinator's alike
grep -q "AWS credentials from instance metadata (role bench-role) fetched again (key AKIDBULK...)" imds.err ||
    { cat imds.err >&2; fail "imds: the credentials were not fetched again before they expire"; }
python3 - "$FS_LOG" "$KID" "$KID2" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
by = {}
for r in recs:
    by.setdefault(r.get("sigv4_key"), []).append(r)
assert set(by) == {sys.argv[2], sys.argv[3]}, sorted(by)
assert any(r.get("bulk") for r in by[sys.argv[3]]), "no bulk request signed with the new key"
assert max(r["t"] for r in by[sys.argv[2]]) <= min(r["t"] for r in by[sys.argv[3]] if r.get("bulk")) + 1
print("signed by the first key: %d requests, then by the refreshed one: %d" % (len(by[sys.argv[2]]), len(by[sys.argv[3]])))
PY
grep -rq "FAKESESSIONTOKEN\|$SECRET\|$SECRET2" imds.out imds.err r-imds && fail "a secret appears in the output or the results"
pass "IMDSv2: session token, role, temporary credentials fetched again before they expire"
