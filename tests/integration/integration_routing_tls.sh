#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_routing_tls — routing_mode node over HTTPS: the addresses the agent learns from
# _nodes/http take the target's scheme (https) and its TLS options (CA, client certificate,
# given in memory from the scenario's files). The 3 real nodes get TLS from nginx: one TLS
# server per node (a certificate for IP 127.0.0.1 signed by a test CA; a client certificate
# from that CA is required), each proxying to its node. The nodes themselves publish their
# plain ports, so nginx rewrites the publish addresses in the _nodes answers to the TLS ports
# (sub_filter), as nodes with TLS on their HTTP layer would publish them. Two runs:
#   ip:   certificate for IP 127.0.0.1, nodes published as 127.0.0.1:<port>;
#   name: certificate for DNS localhost only, nodes published as localhost/127.0.0.1:<port>
#         (a node with network.publish_host set to a name): the learned URL names the host,
#         so the certificate is checked against the name, and it is pinned to the address.
# Checks: every node's TLS server got sub-bulks (POST /_bulk) with a verified client
# certificate, no document went unrouted, the sub-bulks were split (mean below the batch
# size), and _count verifies the row.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
command -v nginx > /dev/null || { echo "SKIP: nginx is not installed (scripts/install-deps.sh)"; exit 77; }
warm_cluster "$ES"
IDX="bf-rtls-$$"
NG=""
trap '[ -n "$NG" ] && kill $NG 2> /dev/null; curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
chmod a+rx "$TMP" # nginx workers run as nobody when started by root
# ---- a CA, server certificates for IP 127.0.0.1 and for DNS localhost, a client certificate --
(
    set -e
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=bulkfleet test ca" \
        -keyout ca.key -out ca.pem 2> /dev/null
    for m in ip name; do
        openssl req -newkey rsa:2048 -nodes -subj "/CN=bulkfleet node" -keyout server-$m.key \
            -out server-$m.csr 2> /dev/null
        if [ $m = ip ]; then san=IP:127.0.0.1; else san=DNS:localhost; fi
        printf 'subjectAltName=%s\n' "$san" > san-$m.ext
        openssl x509 -req -in server-$m.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
            -extfile san-$m.ext -out server-$m.pem 2> /dev/null
    done
    openssl req -newkey rsa:2048 -nodes -subj "/CN=bulkfleet agent" -keyout client.key \
        -out client.csr 2> /dev/null
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
        -out client.pem 2> /dev/null
) || fail "openssl could not make the test certificates"
chmod a+r ./*.pem ./*.key
# ---- the nodes' HTTP ports (from _nodes/http) and a TLS port for each ------------------------
mapfile -t NODES < <(curl -sf "$ES/_nodes/http" | python3 -c '
import json, sys
for n in json.load(sys.stdin)["nodes"].values():
    print(n["http"]["publish_address"].split("/")[-1].rsplit(":", 1)[1])' | sort)
[ "${#NODES[@]}" = 3 ] || fail "want 3 nodes, _nodes/http lists ${#NODES[@]}"
# tls_run MODE — nginx for MODE (ip | name), then the cell through it
tls_run() {
    local mode=$1 host pub k a b subs servers up learned
    if [ "$mode" = ip ]; then host=127.0.0.1; pub=127.0.0.1:; else host=localhost; pub=localhost/127.0.0.1:; fi
    a=$(free_port)
    b=$(free_port)
    TLS=("$a" "$((a + 1))" "$b")
    subs=""
    for k in 0 1 2; do
        subs+="        sub_filter '\"publish_address\":\"127.0.0.1:${NODES[$k]}\"' '\"publish_address\":\"$pub${TLS[$k]}\"';"$'\n'
    done
    rm -rf ng
    mkdir -p ng/tmp
    servers=""
    for k in 0 1 2; do
        servers+="
        server {
            listen 127.0.0.1:${TLS[$k]} ssl;
            ssl_certificate $TMP/server-$mode.pem;
            ssl_certificate_key $TMP/server-$mode.key;
            ssl_client_certificate $TMP/ca.pem;
            ssl_verify_client on;
            access_log $TMP/ng/access.log tls;
            location / {
                proxy_pass http://127.0.0.1:${NODES[$k]};
                proxy_http_version 1.1;
                proxy_set_header Connection \"\";
            }
            location /_nodes {
                proxy_pass http://127.0.0.1:${NODES[$k]};
                proxy_set_header Accept-Encoding \"\";
                sub_filter_types application/json;
                sub_filter_once off;
    $subs        }
        }"
    done
    cat > ng/nginx.conf <<CONF
    daemon off;
    worker_processes 1;
    pid $TMP/ng/nginx.pid;
    error_log $TMP/ng/error.log warn;
    events { worker_connections 1024; }
    http {
        log_format tls '\$server_port \$request_method \$uri \$ssl_client_verify \$status';
        client_max_body_size 0;
        client_body_temp_path $TMP/ng/tmp;
        proxy_temp_path $TMP/ng/tmp;
        fastcgi_temp_path $TMP/ng/tmp;
        uwsgi_temp_path $TMP/ng/tmp;
        scgi_temp_path $TMP/ng/tmp;
        keepalive_requests 1000000;
    $servers
    }
CONF
    nginx -p "$TMP/ng" -c "$TMP/ng/nginx.conf" -e "$TMP/ng/error.log" &
    NG=$!
    up=""
    for _ in $(seq 1 50); do
        curl -sf --cacert ca.pem --cert client.pem --key client.key -o /dev/null "https://$host:${TLS[0]}/" && up=1 && break
        sleep 0.1
    done
    [ -n "$up" ] || { cat ng/error.log >&2; fail "nginx (TLS) did not start"; }
    learned=$(curl -sf --cacert ca.pem --cert client.pem --key client.key "https://$host:${TLS[0]}/_nodes/http")
    for k in 0 1 2; do
        grep -q "\"publish_address\":\"$pub${TLS[$k]}\"" <<< "$learned" || fail "the _nodes answer through nginx does not publish ${TLS[$k]}: $learned"
    done
    cat > s.yaml <<YAML
name: routing-tls-$mode
target:
  hosts: ["https://$host:${TLS[0]}"]
  tls: {ca_file: ca.pem, cert_file: client.pem, key_file: client.key}
index: {name: "$IDX", recreate: true}
document: {source: '{"n": 1}'}
request: {routing_mode: node}
run: {warmup: 1s, duration: 3s}
matrix: {shards: [3], replicas: [0], batch_size: [300], concurrency: [2]}
YAML
    local rc=0
    timeout 120 "$AGENT" run s.yaml --threads 1 --results r-$mode > o 2> e || rc=$?
    [ "$rc" = 0 ] || { cat e >&2; tail -5 ng/error.log >&2; fail "$mode: run exit $rc"; }
    python3 - r-$mode ng/access.log "$mode" "${TLS[@]}" <<'PY' || { cat e >&2; fail "row or TLS log"; }
import collections, glob, json, sys
r = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]
mode, ports = sys.argv[3], sys.argv[4:]
bulks = collections.Counter()
for line in open(sys.argv[2]):
    port, method, uri, verify, status = line.split()
    if method == "POST" and uri == "/_bulk":
        assert verify == "SUCCESS", line          # the client certificate went along
        assert status == "200", line
        bulks[port] += 1
print(mode + ": sub-bulks per node's TLS port:", dict(bulks), "; row:", r["docs_ok_all"], "acknowledged,",
      r["docs_counted"], "counted, mean sub-bulk", r["subbulk_docs_mean"], "unrouted", r["docs_unrouted"])
assert all(bulks[p] > 0 for p in ports), (ports, bulks)   # every learned https address was loaded
assert r["verified"] is True and r["docs_counted"] == r["docs_ok_all"] > 0, r
assert r["docs_unrouted"] == 0, r["docs_unrouted"]
assert 0 < r["subbulk_docs_mean"] < 300, r["subbulk_docs_mean"]
PY
    kill $NG 2> /dev/null || true
    wait $NG 2> /dev/null || true
    NG=""
    curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true
}
tls_run ip
tls_run name
pass "routing_mode node over TLS: learned node addresses used https with the scenario's CA and client certificate, checked against the address or the published name"
