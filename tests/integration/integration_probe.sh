#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_probe — the coordinator's first contact with the cluster, against faults a real
# cluster cannot be made to give on demand (the scripted fault server, and a listener whose
# accept queue is full): a 401 and a 403 say "authentication failed" with the server's own
# reason and what target.auth sent; a server that accepts and never answers is given up after
# request.timeout (4s here, not a fixed 130 s), with a line every few seconds saying what it
# still waits for; a host that never completes the connection is given up after
# target.connect_timeout; a server that is neither Elasticsearch nor OpenSearch (a proxy's HTML
# page, nginx, a Solr) is named with what it answered. Every case exits 3 before any
# agent or index is involved.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done; cleanup_tmp' EXIT
fault() { # fault PORT ARGS...: the fault server, bounded in time
    local port=$1
    shift
    timeout 120 python3 "$SRC/tests/support/fault_server.py" --port "$port" --mode ok "$@" > /dev/null &
    PIDS+=($!)
    for _ in $(seq 1 100); do
        (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null && return 0
        sleep 0.05
    done
    fail "fault server on $port did not start"
}
scenario() { # scenario FILE URL TARGET-EXTRA REQUEST
    cat > "$1" <<YAML
name: probe
target: {hosts: ["$2"]$3}
document: {source: '{"a": 1}'}
request: $4
run: {warmup: 0s, duration: 1s}
YAML
}
probe() { # probe NAME: run the scenario NAME.yaml; sets RC and SECS
    local t0 t1
    t0=$(date +%s.%N)
    set +e
    timeout 60 "$COORD" run "$1.yaml" --local-agents 1 --insecure \
        --bind "tcp://127.0.0.1:$(free_port)" --results r -q > "$1.out" 2> "$1.err"
    RC=$?
    set -e
    t1=$(date +%s.%N)
    SECS=$(python3 -c "print(round($t1 - $t0, 1))")
}

# 401 without credentials: the server's reason, and that no target.auth is set
P1=$(free_port)
fault "$P1" --admin-fault unauthorized
scenario u.yaml "http://127.0.0.1:$P1" "" "{timeout: 10s}"
probe u
[ "$RC" = 3 ] || { cat u.err >&2; fail "401: exit $RC, want 3"; }
grep -q "GET / on http://127.0.0.1:$P1: HTTP 401: authentication failed: missing authentication credentials for REST request \[/\] (no target.auth is set); check target.auth" u.err ||
    { cat u.err >&2; fail "401 message"; }

# 403 with basic auth: the server's reason and the user that was refused
P2=$(free_port)
fault "$P2" --admin-fault forbidden
scenario f.yaml "http://127.0.0.1:$P2" ", auth: {username: bench, password: pw}" "{timeout: 10s}"
probe f
[ "$RC" = 3 ] || { cat f.err >&2; fail "403: exit $RC, want 3"; }
grep -q "HTTP 403: authentication failed: no permissions for \[cluster:monitor/main\] and User \[name=bench.*(target.auth sent user 'bench' (basic)); the credentials were refused" f.err ||
    { cat f.err >&2; fail "403 message"; }
grep -q "pw" f.err && fail "the password appears in the message"

# a server that never answers: request.timeout 4s bounds the probe, with a note every 3 s
P3=$(free_port)
fault "$P3" --admin-fault stall
scenario s.yaml "http://127.0.0.1:$P3" "" "{timeout: 4s}"
probe s
[ "$RC" = 3 ] || { cat s.err >&2; fail "stall: exit $RC, want 3"; }
python3 -c "import sys; s = float(sys.argv[1]); assert 3.9 <= s <= 12, s" "$SECS" || { cat s.err >&2; fail "stall: gave up after $SECS s, want about 4 s"; }
grep -q "still waiting for the cluster: GET / on http://127.0.0.1:$P3 has no answer after 3 s; giving up after request.timeout 4.0s" s.err ||
    { cat s.err >&2; fail "stall: no line saying what it waits for"; }
grep -q "no answer within request.timeout 4.0s" s.err || { cat s.err >&2; fail "stall: the message does not name request.timeout"; }

# a host whose accept queue is full (SYNs dropped): target.connect_timeout 1s bounds it
P4=$(free_port)
timeout 60 python3 - "$P4" <<'PY' > full.out &
import socket, sys, time
port = int(sys.argv[1])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(0)  # never accepted: a few connections fill the queue, later SYNs are dropped
held = []
for _ in range(4):
    c = socket.socket()
    c.setblocking(False)
    try:
        c.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    held.append(c)
print("READY", flush=True)
time.sleep(50)
PY
PIDS+=($!)
for _ in $(seq 1 100); do grep -q READY full.out 2> /dev/null && break; sleep 0.05; done
scenario c.yaml "http://127.0.0.1:$P4" ", connect_timeout: 1s" "{timeout: 30s}"
probe c
[ "$RC" = 3 ] || { cat c.err >&2; fail "connect: exit $RC, want 3"; }
python3 -c "import sys; s = float(sys.argv[1]); assert s <= 8, s" "$SECS" || { cat c.err >&2; fail "connect: gave up after $SECS s, want about 1 s"; }
grep -q "no connection within target.connect_timeout 1.0s" c.err || { cat c.err >&2; fail "connect: the message does not name target.connect_timeout"; }

# a target that is neither Elasticsearch nor OpenSearch (a proxy's sign-in page,
# nginx's welcome page or its 404, a Solr's JSON) is named at the first probe with what it
# answered, and the campaign stops (exit 3) with GET / the only request it got: no index, no load
for root in html_proxy nginx nginx_404 solr; do
    PR=$(free_port)
    fault "$PR" --root "$root" --log "$root.log"
    scenario "$root.yaml" "http://127.0.0.1:$PR" "" "{timeout: 10s}"
    probe "$root"
    [ "$RC" = 3 ] || { cat "$root.err" >&2; fail "$root: exit $RC, want 3"; }
    case $root in
        html_proxy) want='answered HTTP 200 with an HTML page titled "Corporate Proxy - Sign in"' ;;
        nginx) want='answered HTTP 200 with an HTML page titled "Welcome to nginx!"' ;;
        nginx_404) want='answered HTTP 404 with an HTML page titled "404 Not Found"' ;;
        solr) want='answered HTTP 200 with JSON without version.number (its keys: responseHeader, mode, solr_home, lucene)' ;;
    esac
    grep -qF "GET / on http://127.0.0.1:$PR $want: this is neither Elasticsearch nor OpenSearch" "$root.err" ||
        { cat "$root.err" >&2; fail "$root: the message does not name what GET / answered"; }
    grep -q "check target.hosts" "$root.err" || { cat "$root.err" >&2; fail "$root: no hint"; }
    python3 - "$root.log" <<'PY' || fail "$root: requests after the probe"
import json, sys
reqs = [(r["method"], r["path"]) for r in map(json.loads, open(sys.argv[1]))]
assert reqs == [("GET", "/")], reqs
PY
done
# the standalone agent stops the same way (exit 3, the same message)
set +e
timeout 60 "$AGENT" run html_proxy.yaml --threads 1 > ag.out 2> ag.err
RC=$?
set -e
[ "$RC" = 3 ] || { cat ag.err >&2; fail "agent against a proxy page: exit $RC, want 3"; }
grep -qF 'with an HTML page titled "Corporate Proxy - Sign in": this is neither Elasticsearch nor OpenSearch' ag.err ||
    { cat ag.err >&2; fail "agent: the message does not name the proxy page"; }
pass "probe: a proxy page, nginx (200 and 404) and a Solr are named at GET / and nothing else is sent"
pass "probe: 401 and 403 with the server's reason, stall given up after request.timeout 4s ($SECS s for connect_timeout 1s)"
