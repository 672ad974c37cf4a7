#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# agent_tls — HTTPS targets: the scenario's TLS files (target.tls.ca_file, cert_file, key_file)
# are read like every other file it names — relative to the scenario's folder, checked by
# validate, shipped to the agents — and handed to libcurl in memory, so an agent whose working
# directory is elsewhere (another host, in real life) still verifies the cluster and presents
# its client certificate. The server is tests/support/fault_server.py with TLS on 127.0.0.1,
# requiring a client certificate; certificates are made here with openssl.
source "$(dirname "$0")/lib.sh"

trap 'stop_fs; cleanup_tmp' EXIT

# ---- a CA, a server certificate for 127.0.0.1, a client certificate; and a stranger CA ------
P="$TMP/pki"
mkdir -p "$P"
(
    cd "$P"
    for ca in ca other; do
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=bulkfleet test $ca" \
            -keyout $ca.key -out $ca.pem 2>/dev/null
    done
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout server.key \
        -out server.csr 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\n' > san.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
        -extfile san.ext -out server.pem 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=bulkfleet agent" -keyout client.key \
        -out client.csr 2>/dev/null
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
        -out client.pem 2>/dev/null
) || fail "openssl could not make the test certificates"

FS_LOG="$TMP/fs.log"
: > "$FS_LOG"
python3 "$FS" --port 0 --mode ok --log "$FS_LOG" --max-lifetime 180 --tls-cert "$P/server.pem" \
    --tls-key "$P/server.key" --tls-client-ca "$P/ca.pem" > "$TMP/fs.out" 2>&1 &
FS_PID=$!
FS_PORT=""
for _ in $(seq 1 100); do
    # the file may not exist yet (the shell opens it in the background job): no set -e exit
    FS_PORT=$(awk '/^READY/{print $2}' "$TMP/fs.out" 2>/dev/null || true)
    [ -n "$FS_PORT" ] && break
    sleep 0.1
done
[ -n "$FS_PORT" ] || fail "fault server (TLS) did not start"

# scenario DIR TLS-YAML — DIR/tls.yaml aimed at the server; the TLS files are copied into
# DIR/certs/ so the scenario names them relative to its own folder.
scenario() {
    local dir=$1 tls=$2 scheme=${3:-https}
    mkdir -p "$dir/certs"
    cp "$P"/ca.pem "$P"/other.pem "$P"/client.pem "$P"/client.key "$dir/certs/"
    echo "this is not a certificate" > "$dir/certs/garbage.pem"
    cat > "$dir/tls.yaml" <<YAML
name: tls
target:
  hosts: ["$scheme://127.0.0.1:$FS_PORT"]
  tls: $tls
index:
  name: tls-test
  recreate: true
variables:
  - {name: id, type: sortable_id}
  - {name: n, type: range, from: 1, to: 1000}
document:
  action: create
  id: \$[[id]]
  source: '{"n": \$[[n]]}'
request:
  timeout: 2s
run: {warmup: 1s, duration: 2s}
matrix:
  batch_size: [50]
  concurrency: [2]
YAML
}

# run_from CWD NAME SCENARIO — standalone agent run with CWD as its working directory
run_from() {
    local cwd=$1 name=$2 scn=$3
    set +e
    (cd "$cwd" && timeout 60 "$AGENT" run "$scn" --threads 2 --results "$TMP/res-$name" \
        > "$TMP/$name.out" 2> "$TMP/$name.err")
    RC=$?
    set -e
    [ "$RC" -ne 124 ] || { cat "$TMP/$name.err" >&2; fail "$name: the agent hung"; }
}

GOOD='{ca_file: certs/ca.pem, cert_file: certs/client.pem, key_file: certs/client.key}'

# ---- relative TLS paths, agent started in another folder: verified, client cert presented ----
scenario "$TMP/scn" "$GOOD"
run_from / good "$TMP/scn/tls.yaml"
[ "$RC" -eq 0 ] || { cat "$TMP/good.err" >&2; fail "good: exit $RC over HTTPS"; }
python3 - "$TMP/res-good" "$FS_LOG" <<'PY' || fail "good: counts"
import glob, json, sys
row = None
for f in glob.glob(sys.argv[1] + "/*/cells/*.ndjson"):
    for line in open(f):
        j = json.loads(line)
        if j["type"] == "row":
            row = j
L = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
bulk = [r for r in L if r.get("bulk")]
assert row and row["docs_ok"] > 0 and row["verified"], row
assert len(bulk) > 0 and sum(r["docs"] for r in bulk) >= row["docs_ok"], (len(bulk), row)
print(f"  {len(bulk)} bulk requests over HTTPS with a client certificate; row docs_ok "
      f"{row['docs_ok']}, verified")
PY
pass "relative TLS files, agent in another working directory"

# ---- the same through the coordinator: the files reach the agents with the scenario ---------
PORT=$(free_port)
set +e
(cd / && timeout 120 "$COORD" run "$TMP/scn/tls.yaml" --local-agents 2 --threads 1 --insecure \
    --bind "tcp://127.0.0.1:$PORT" --results "$TMP/res-fleet" -q > "$TMP/fleet.out" \
    2> "$TMP/fleet.err")
RC=$?
set -e
[ "$RC" -eq 0 ] || { cat "$TMP/fleet.err" >&2; fail "fleet: coordinator exited $RC over HTTPS"; }
python3 - "$TMP/res-fleet" <<'PY' || fail "fleet: row"
import csv, glob, sys
row = list(csv.DictReader(open(glob.glob(sys.argv[1] + "/*/matrix.csv")[0])))[0]
assert row["verified"] == "true" and int(row["docs_ok"]) > 0 and row["agents"] == "2", row
PY
if grep -rq "BEGIN PRIVATE KEY" "$TMP/res-fleet" "$TMP/res-good"; then
    fail "the client key was written into the results"
fi
pass "coordinator + 2 local agents over HTTPS; the client key is not in the results"

# ---- mistakes: each says what and where, nothing hangs ---------------------------------------
expect_invalid() {
    local name=$1 tls=$2 want=$3
    scenario "$TMP/$name" "$tls"
    set +e
    "$COORD" validate "$TMP/$name/tls.yaml" > "$TMP/$name.vout" 2>&1
    local rc=$?
    set -e
    [ "$rc" -ne 0 ] || fail "$name: validate accepted it"
    grep -q "tls.yaml:4:[0-9]*: .*$want" "$TMP/$name.vout" ||
        { cat "$TMP/$name.vout" >&2; fail "$name: no file:line:column error saying '$want'"; }
    pass "$name: $(head -1 "$TMP/$name.vout")"
}
expect_invalid missing '{ca_file: certs/nope.pem}' "cannot read CA bundle"
expect_invalid garbage '{ca_file: certs/garbage.pem}' "is not a PEM file"

# the wrong CA: the server is not trusted; the run fails at once and says so
scenario "$TMP/wrongca" '{ca_file: certs/other.pem, cert_file: certs/client.pem, key_file: certs/client.key}'
t0=$(date +%s)
run_from / wrongca "$TMP/wrongca/tls.yaml"
[ "$RC" -ne 0 ] || fail "wrongca: a server signed by another CA was accepted"
grep -q "certificate.*target.tls.ca_file" "$TMP/wrongca.err" ||
    { cat "$TMP/wrongca.err" >&2; fail "wrongca: the message does not point at target.tls.ca_file"; }
[ $(( $(date +%s) - t0 )) -lt 20 ] || fail "wrongca: took more than 20 s to fail"
pass "wrong CA: $(grep -m1 target.tls "$TMP/wrongca.err")"

# no client certificate: the server refuses the handshake
scenario "$TMP/nocert" '{ca_file: certs/ca.pem}'
run_from / nocert "$TMP/nocert/tls.yaml"
[ "$RC" -ne 0 ] || fail "nocert: the server requires a client certificate, yet the run passed"
grep -q "target.tls.cert_file" "$TMP/nocert.err" ||
    { cat "$TMP/nocert.err" >&2; fail "nocert: the message does not point at target.tls.cert_file"; }
pass "no client certificate: exit $RC: $(grep -m1 target.tls "$TMP/nocert.err")"

# ---- plain http to the TLS port: the cell fails at once and says "use https://" -------------
scenario "$TMP/plain" "$GOOD" http
t0=$(date +%s)
run_from / plain "$TMP/plain/tls.yaml"
[ "$RC" -ne 0 ] || fail "plain: http:// to a TLS port passed"
grep -q "use https://" "$TMP/plain.err" ||
    { cat "$TMP/plain.err" >&2; fail "plain: the message does not say use https://"; }
[ $(( $(date +%s) - t0 )) -lt 20 ] || fail "plain: took more than 20 s to fail"
pass "http:// to a TLS port: exit $RC: $(grep -m1 'use https' "$TMP/plain.err")"

# ---- tls.insecure: true: the run works without the CA, and it says so everywhere ------------
scenario "$TMP/insecure" '{insecure: true, cert_file: certs/client.pem, key_file: certs/client.key}'
run_from / insecure "$TMP/insecure/tls.yaml"
[ "$RC" -eq 0 ] || { cat "$TMP/insecure.err" >&2; fail "insecure: exit $RC"; }
grep -q "warning: [^ ]*tls.yaml:4:[0-9]*: target.tls.insecure: true: the cluster's certificate is not verified" \
    "$TMP/insecure.err" || { cat "$TMP/insecure.err" >&2; fail "insecure: not in the log"; }
python3 - "$TMP/res-insecure" "$TMP/res-good" <<'PY' || fail "insecure: the row does not carry it"
import csv, glob, json, sys
for d, want in ((sys.argv[1], True), (sys.argv[2], False)):
    row = json.load(open(glob.glob(d + "/*/matrix.json")[0]))["rows"][0]
    assert row["tls_insecure"] is want, (d, row["tls_insecure"])
    c = list(csv.DictReader(open(glob.glob(d + "/*/matrix.csv")[0])))[0]
    assert c["tls_insecure"] == ("true" if want else "false"), c
    md = open(glob.glob(d + "/*/matrix.md")[0]).read()
    assert ("tls-insecure" in md) is want, md
assert row["verified"] is True
PY
pass "tls.insecure: true: warned in the log, tls_insecure in matrix.json/csv, flag tls-insecure"
