#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_metrics_store_auth — a metrics store behind TLS and basic auth, and the errors of
# one that refuses. The store is tests/support/fault_server.py (HTTPS with a test CA,
# --basic-auth: a secured cluster's 401 security_exception; the dev cluster runs without the
# security plugin, so it cannot check credentials); the target is the real dev cluster, where
# every row is verified by _count. It checks:
#   1. the right password (${VAR} from the environment) and metrics_store.tls.ca_file: every
#      document indexed, every request authenticated, the password in no results file;
#   2. a wrong password: the campaign is neither stopped nor slowed (exit 0, verified row, about
#      as long as run 1); the 401 is said at once, during the campaign, naming the store's URL
#      and metrics_store.auth, never target.*; matrix.json counts the refused documents;
#   3. no CA: the untrusted certificate names metrics_store.tls.ca_file; --metrics-store URL
#      with wrong user:password@ names the URL's credentials;
#   4. publish with https://user:password@ and --ca-file: everything stored; a wrong password
#      exits 3 naming user:password@ in the --metrics-store URL.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-msauth-$$"
FSP=
trap '[ -z "$FSP" ] || kill $FSP 2> /dev/null || true; curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
(
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=bulkfleet store CA" \
        -keyout ca.key -out ca.pem 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout server.key \
        -out server.csr 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\n' > san.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
        -extfile san.ext -out server.pem 2>/dev/null
) || fail "openssl could not make the test certificates"
python3 "$SRC/tests/support/fault_server.py" --port 0 --mode ok --log fs.log --max-lifetime 300 \
    --tls-cert server.pem --tls-key server.key --basic-auth bf:s3cret-pw > fs.out 2>&1 &
FSP=$!
for _ in $(seq 50); do grep -q READY fs.out && break; sleep 0.1; done
FS=$(awk '/READY/ {print $2}' fs.out)
[ -n "$FS" ] || fail "fault server did not start: $(cat fs.out)"
STORE="https://127.0.0.1:$FS"

# scenario NAME CA-LINE: one cell of 1 s + 2 s against the dev cluster
scenario() {
    cat > "$1.yaml" <<YAML
name: $1-$$
target: {hosts: ["$ES"]}
metrics_store:
  hosts: ["$STORE"]
  auth: {username: bf, password: "\${BF_STORE_PW}"}
  flush_wait: 3s
$2
index: {name: $IDX, recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 1s, duration: 2s}
matrix: {batch_size: [50], concurrency: [2]}
YAML
}
# run NAME [options]: the campaign, its seconds in NAME.secs, stderr in NAME.err
run() {
    local name=$1 t0 rc=0
    shift
    PORT=$(free_port)
    t0=$(date +%s.%N)
    timeout 120 "$COORD" run "$name.yaml" --local-agents 1 --threads 1 --insecure \
        --bind "tcp://127.0.0.1:$PORT" --results "r-$name" "$@" > "$name.out" 2> "$name.err" || rc=$?
    python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)" > "$name.secs"
    [ "$rc" = 0 ] || { cat "$name.err" >&2; fail "$name: campaign exit $rc (the store must never stop it)"; }
}
# check NAME: the row is verified; prints matrix.json's metrics_store
store_of() {
    python3 - "$(ls -d r-$1/*)" <<'PY'
import json, sys
m = json.load(open(sys.argv[1] + "/matrix.json"))
assert len(m["rows"]) == 1 and m["rows"][0]["verified"] and not m["rows"][0]["failed"], m["rows"]
print(json.dumps(m["metrics_store"]))
PY
}

# 1. right credentials over TLS
scenario good "  tls: {ca_file: ca.pem}"
BF_STORE_PW=s3cret-pw run good
GOOD=$(store_of good)
python3 - "$GOOD" fs.log <<'PY'
import json, sys
ms = json.loads(sys.argv[1])
assert ms["documents"] > 0 and ms["indexed"] == ms["documents"] and ms["dropped"] == 0, ms
recs = [json.loads(l) for l in open(sys.argv[2])]
assert recs and all(r.get("auth") == "ok" for r in recs), [r.get("auth") for r in recs]
print("run 1:", ms, len(recs), "requests, all authenticated")
PY
! grep -rq "s3cret-pw" r-good || fail "the store's password is in the results directory"
pass "TLS + basic auth: $(echo "$GOOD" | python3 -c 'import json,sys; m=json.load(sys.stdin); print(m["indexed"], "of", m["documents"], "indexed")') in $(cat good.secs) s"

# 2. a wrong password: said during the campaign, nothing stopped or slowed
: > fs.log
scenario badpw "  tls: {ca_file: ca.pem}"
BF_STORE_PW=wrong run badpw
BAD=$(store_of badpw)
W=$(grep -n "metrics store $STORE (metrics_store.hosts): .*HTTP 401.*the store refused the credentials: set metrics_store.auth" badpw.err | head -1) ||
    { cat badpw.err >&2; fail "no 401 warning naming the store and metrics_store.auth"; }
# said at once, not only in the end's summary
WL=${W%%:*}
E=$(grep -n "metrics store .* documents indexed, .* dropped" badpw.err | head -1 | cut -d: -f1) || { cat badpw.err >&2; fail "the end does not report the dropped documents"; }
[ "$WL" -lt "$E" ] || { cat badpw.err >&2; fail "the 401 was said only at the end"; }
grep "metrics store" badpw.err | grep -q "target\." && { cat badpw.err >&2; fail "a store error names target.*"; }
grep -q "waiting at most" badpw.err && { cat badpw.err >&2; fail "the end waited for refused documents"; }
python3 - "$BAD" "$(cat good.secs)" "$(cat badpw.secs)" fs.log <<'PY'
import json, sys
ms = json.loads(sys.argv[1])
good, bad = float(sys.argv[2]), float(sys.argv[3])
assert ms["indexed"] == 0 and ms["dropped_refused"] == ms["documents"] > 0, ms
assert ms["dropped_unsent"] == 0, ms  # refused at once, none left for the end to wait for
assert "401" in ms["last_error"] and "metrics_store.auth" in ms["last_error"], ms
# refused for good: no retries until flush_wait, so the run is about as long as with a store
# that works (slack for a loaded machine)
assert bad <= good + 5.0, (good, bad)
recs = [json.loads(l) for l in open(sys.argv[4])]
assert recs and all(r.get("auth") == "refused" for r in recs)
print(f"run 2: {ms['dropped_refused']} refused, {len(recs)} requests; {bad} s vs {good} s")
PY
pass "wrong password: campaign exit 0 and verified in $(cat badpw.secs) s (run 1: $(cat good.secs) s); 401 said at once naming metrics_store.auth"

# 3. no CA for the store's certificate; and credentials in --metrics-store URL
scenario noca ""
BF_STORE_PW=s3cret-pw run noca
grep -q "metrics store ($STORE\|metrics_store.hosts).*not trusted: set metrics_store.tls.ca_file" noca.err ||
    grep -q "metrics_store.tls.ca_file" noca.err || { cat noca.err >&2; fail "an untrusted store certificate does not name metrics_store.tls.ca_file"; }
grep "metrics store" noca.err | grep -q "target\." && { cat noca.err >&2; fail "a store TLS error names target.*"; }
scenario url "  tls: {ca_file: ca.pem}"
BF_STORE_PW=irrelevant run url --metrics-store "https://bf:wrong@127.0.0.1:$FS"
grep -q "(--metrics-store URL): .*HTTP 401.*user:password@ in the --metrics-store URL" url.err ||
    { cat url.err >&2; fail "--metrics-store URL with wrong credentials: not named"; }
grep -q "wrong" url.err && { cat url.err >&2; fail "the URL's password is in a message"; }
pass "no CA names metrics_store.tls.ca_file; --metrics-store URL's credentials named, redacted"

# 4. publish with credentials in the URL
D=$(ls -d r-badpw/*)
"$COORD" publish "$D" --metrics-store "https://bf:s3cret-pw@127.0.0.1:$FS" --ca-file ca.pem > pub.out 2> pub.err ||
    { cat pub.err >&2; fail "publish with the right credentials: exit $?"; }
grep -q " 0 dropped" pub.out || { cat pub.out pub.err >&2; fail "publish dropped documents"; }
rc=0; "$COORD" publish "$D" --metrics-store "https://bf:nope@127.0.0.1:$FS" --ca-file ca.pem --flush-wait 2s > pub2.out 2> pub2.err || rc=$?
[ "$rc" = 3 ] || { cat pub2.err >&2; fail "publish with a wrong password: exit $rc, expected 3"; }
grep -q "user:password@ in the --metrics-store URL" pub2.err || { cat pub2.err >&2; fail "publish: the 401 does not say how to give credentials"; }
pass "publish: $(cat pub.out | sed 's/.*: //'); a wrong password exits 3 naming user:password@"
