#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_metrics_prometheus — live metrics during a real campaign:
# `run --metrics-listen` is scraped every 0.3 s while one cell (1 s warmup + 3 s) loads the dev
# cluster; every scrape passes `promtool check metrics` (Debian's prometheus package), one
# taken in the measure phase carries the cell's axes as labels, docs/s > 0 and latency
# quantiles, and counters never go down. `--statsd` goes to a UDP listener here: the docs_ok
# increments it received add up to the row's acknowledged documents, which _count verified.
# Bad addresses exit 2, a port in use exits 3, both with a message naming the flag.
source "$(dirname "$0")/lib.sh"
command -v promtool > /dev/null || fail "promtool not found: scripts/install-deps.sh installs the Debian package prometheus"
cd "$TMP"
IDX="bf-metrics-$$"
LPID=
trap '[ -z "$LPID" ] || kill $LPID 2> /dev/null || true; curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
PORT=$(free_port)
MPORT=$(free_port)
SPORT=$(free_port)
cat > s.yaml <<YAML
name: metrics
target: {hosts: ["$ES"]}
index: {name: $IDX, recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 1s, duration: 3s}
matrix: {batch_size: [100], concurrency: [2], shards: [1]}
YAML

# bad input first (no load): a malformed address is exit 2, a port in use exit 3
set +e
"$COORD" run s.yaml --local-agents 1 --insecure --metrics-listen 127.0.0.1 > /dev/null 2> bad1
rc1=$?
# SO_REUSEADDR as libmicrohttpd sets it: a TIME_WAIT left on the port must not stop the bind
python3 -c 'import socket,sys,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(30)' "$MPORT" &
BPID=$!
sleep 0.5
timeout 60 "$COORD" run s.yaml --local-agents 1 --insecure --metrics-listen "127.0.0.1:$MPORT" > /dev/null 2> bad2
rc2=$?
kill $BPID 2> /dev/null; wait $BPID 2> /dev/null
set -e
[ $rc1 = 2 ] && grep -q -- "--metrics-listen 127.0.0.1: expected an IPv4 address and a port" bad1 ||
    { cat bad1 >&2; fail "malformed --metrics-listen: exit $rc1"; }
[ $rc2 = 3 ] && grep -q "cannot listen there" bad2 || { cat bad2 >&2; fail "port in use: exit $rc2"; }

# a UDP listener for statsd, bounded in time
python3 - "$SPORT" > statsd.txt <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.settimeout(0.5)
end = time.time() + 120
while time.time() < end:
    try:
        d = s.recv(65535)
    except socket.timeout:
        continue
    sys.stdout.write(d.decode() + "\n")
    sys.stdout.flush()
PY
LPID=$!
sleep 0.3

timeout 120 "$COORD" run s.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$PORT" \
    --metrics-listen "127.0.0.1:$MPORT" --statsd "127.0.0.1:$SPORT" --results r -q > out 2> err &
CPID=$!
i=0
while kill -0 $CPID 2> /dev/null && [ $i -lt 300 ]; do
    curl -sf -m 2 "http://127.0.0.1:$MPORT/metrics" > "scrape.$i" 2> /dev/null || rm -f "scrape.$i"
    i=$((i + 1))
    sleep 0.3
done
wait $CPID || { cat err >&2; fail "coordinator exit $?"; }
sleep 0.7 # the listener writes the last datagram
kill $LPID 2> /dev/null || true
grep -q "live metrics: http://127.0.0.1:$MPORT/metrics" err || { cat err >&2; fail "no live-metrics line"; }

n=0
for f in $(ls scrape.* | sort -t. -k2 -n); do
    [ -s "$f" ] || continue
    promtool check metrics < "$f" > "$f.promtool" 2>&1 || { cat "$f" "$f.promtool" >&2; fail "promtool check metrics: $f"; }
    n=$((n + 1))
done
[ $n -ge 5 ] || fail "only $n scrapes answered"
D=$(ls -d r/metrics-*)
python3 - "$D" statsd.txt scrape.* <<'PY' || fail "live metrics"
import json, math, re, sys
d, statsd, files = sys.argv[1], sys.argv[2], sys.argv[3:]
files.sort(key=lambda f: int(f.split(".")[1]))
line = re.compile(r'^([a-z_]+)\{([^}]*)\} (\S+)$')
scrapes = []
for f in files:
    m = {}
    for l in open(f):
        g = line.match(l.strip())
        if g:
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', g.group(2)))
            m.setdefault(g.group(1), []).append((labels, float(g.group(3))))
    if m:
        scrapes.append(m)
row = json.loads(open(d + "/cells/" + json.load(open(d + "/matrix.json"))["rows"][0]["cell"] + ".ndjson").readline())
assert row["verified"] is True, row
ok_all = row["docs_ok_all"]
measure = [s for s in scrapes if any(l.get("phase") == "measure" for l, _ in s.get("bulkfleet_cell_info", []))]
assert measure, "no scrape in the measure phase"
s = measure[-1]
info = s["bulkfleet_cell_info"][0][0]
assert info["axis_batch_size"] == "100" and info["axis_concurrency"] == "2" and info["axis_shards"] == "1", info
assert info["campaign"] == d.split("/")[-1], info
assert s["bulkfleet_docs_per_second"][0][1] > 0, s["bulkfleet_docs_per_second"]
q = {l["quantile"]: v for l, v in s["bulkfleet_latency_seconds"]}
assert set(q) == {"0.5", "0.9", "0.99", "1"} and all(not math.isnan(v) and v > 0 for v in q.values()), q
assert q["0.5"] <= q["0.9"] <= q["0.99"] <= q["1"], q
assert s["bulkfleet_agents_connected"][0][1] == 1
assert s["bulkfleet_campaign_cells"][0][1] == 1
assert 0 < s["bulkfleet_campaign_progress_ratio"][0][1] <= 1
rej = {l["class"]: v for l, v in s["bulkfleet_doc_errors_total"]}
assert set(rej) == {"rejected", "conflict", "mapping", "client", "server", "unknown"}, rej
prev = 0
for x in scrapes:
    v = x["bulkfleet_docs_ok_total"][0][1]
    assert v >= prev, ("counter went down", prev, v)
    prev = v
assert 0 < prev <= ok_all, (prev, ok_all)
ok_statsd = sum(int(m.group(1)) for m in re.finditer(r'^bulkfleet\.docs_ok:(\d+)\|c$', open(statsd).read(), re.M))
assert ok_statsd == ok_all, ("statsd docs_ok increments", ok_statsd, "row docs_ok_all", ok_all)
gauges = re.findall(r'^bulkfleet\.docs_per_second:(\d+)\|g$', open(statsd).read(), re.M)
assert gauges and max(int(g) for g in gauges) > 0, gauges
print(f"{len(scrapes)} scrapes, {len(measure)} in measure; last measure: docs/s {s['bulkfleet_docs_per_second'][0][1]:.0f}, "
      f"latency p99 {q['0.99']*1000:.1f} ms; docs_ok_total {prev:.0f} of {ok_all}; statsd docs_ok {ok_statsd}")
PY
pass "live metrics: promtool accepts $n scrapes of a real run; statsd counters add up to the verified row"
