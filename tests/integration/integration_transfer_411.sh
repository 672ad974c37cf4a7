#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_transfer_411 — a server that refuses chunked bodies (fault_server.py
# --refuse-chunked: 411 Length Required) and request.transfer. auto (the default): the template
# bodies go chunked until the first 411, then every body goes whole with its Content-Length
# (said once per thread), the cell goes on and its row is verified; length: no chunked body at
# all, no 411; chunked: the cell stops and the 411 message says bulkfleet sent the body chunked
# because of request.transfer (not a proxy).
source "$(dirname "$0")/lib.sh"
trap 'stop_fs; cleanup_tmp' EXIT
cd "$TMP"
scenario() { # scenario FILE TRANSFER
    cat > "$1" <<YAML
name: t411-$2
target: {hosts: ["http://127.0.0.1:$FS_PORT"]}
index: {name: "t411-$2", recreate: true}
variables: [{name: n, type: range, from: 1, to: 1000}]
document: {source: '{"n": \$[[n]], "msg": "length please"}'}
request: {transfer: $2}
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [100], concurrency: [2]}
YAML
}
run_it() { # run_it NAME: sets RC
    set +e
    timeout 120 "$COORD" run "$1.yaml" --local-agents 1 --threads 1 --insecure \
        --bind "tcp://127.0.0.1:$(free_port)" --results "r-$1" -q > "$1.out" 2> "$1.err"
    RC=$?
    set -e
}

start_fs ok auto --refuse-chunked
scenario auto.yaml auto
run_it auto
[ "$RC" = 0 ] || { cat auto.err >&2; fail "auto: exit $RC"; }
grep -q "HTTP 411 Length Required to a chunked bulk body: this thread now sends every body with its Content-Length (request.transfer: auto)" auto.err ||
    { cat auto.err >&2; fail "auto: the switch is not said"; }
[ "$(grep -c "HTTP 411 Length Required to a chunked" auto.err)" = 1 ] || fail "auto: the switch said more than once"
python3 - "$FS_LOG" r-auto <<'PY'
import csv, glob, json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if '"bulk"' in l or '411' in l]
bulks = [r for r in recs if r.get("bulk")]
refused = [r for r in recs if r.get("status") == 411]
assert refused and len(refused) <= 2, "411s: %d (at most the requests in flight)" % len(refused)
assert len(bulks) > 5 and all(r["content_length_present"] and not r["transfer_encoding"] for r in bulks), \
    "a bulk body after the switch went without a length"
rows = list(csv.DictReader(open(glob.glob(sys.argv[2] + "/*/matrix.csv")[0])))
assert len(rows) == 1 and rows[0]["verified"] == "true", rows
assert int(rows[0]["docs_counted"]) == int(rows[0]["docs_ok_all"]) > 0, rows
print("%d refused chunked, then %d bulk bodies with a length; the row verified" % (len(refused), len(bulks)))
PY
pass "auto: 411 to a chunked body, then Content-Length bodies, the row verified"

start_fs ok length --refuse-chunked
scenario length.yaml length
run_it length
[ "$RC" = 0 ] || { cat length.err >&2; fail "length: exit $RC"; }
python3 - "$FS_LOG" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert not [r for r in recs if r.get("status") == 411], "a 411 with request.transfer: length"
assert all(r["content_length_present"] for r in recs if r.get("bulk"))
PY
pass "length: every body with its Content-Length, no 411"

start_fs ok chunked --refuse-chunked
scenario chunked.yaml chunked
run_it chunked
[ "$RC" != 0 ] || { cat chunked.err >&2; fail "chunked: the cell did not stop"; }
grep -q "HTTP 411 from _bulk (.*): the server or a proxy in front of it refuses chunked bodies, which bulkfleet sent because request.transfer is chunked" chunked.err ||
    { cat chunked.err >&2; fail "chunked: the 411 message"; }
pass "chunked: the cell stops, the message names request.transfer"
