#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# search-client — one search client's queries/s against the query's service time: a closed-loop
# client sends its next query as soon as the last is answered, so it should make about
# 1000 / service_ms queries a second (the reference, from the same row's own mean service time).
# Before a client's next query went at once it made ~18/s whatever the service time (a 50 ms idle poll
# after every answer).
#
#   bench/search-client.sh [SERVICE_MS ...]     (default: 2 5 10 20)
#   env: BF_DURATION (5s), BF_CLIENTS (1), BF_RATE (0 = closed loop; else queries/s, open loop),
#        BF_BUILD_DIR (an existing build instead of build-bench/)
#
# The server is tests/support/fault_server.py answering every _search after --search-ms (no
# hits); the agent runs standalone (`bulkfleet-agent run`) one search-only cell. Prints per
# service time: queries/s, the row's service mean, the reference 1000 x clients / service mean
# (closed loop) or the rate (open loop), and their ratio; then the machine.
source "$(dirname "$0")/lib.sh"
[ "$#" -gt 0 ] || set -- 2 5 10 20
DURATION=${BF_DURATION:-5s}
CLIENTS=${BF_CLIENTS:-1}
RATE=${BF_RATE:-0}
bench_build
FS_PID=""
stop_server() { [ -n "$FS_PID" ] && kill "$FS_PID" 2> /dev/null; wait "$FS_PID" 2> /dev/null || true; FS_PID=""; }
trap 'stop_server; bench_cleanup' EXIT
for ms in "$@"; do
    python3 "$SRC/tests/support/fault_server.py" --port 0 --mode ok --search-ms "$ms" \
        --max-lifetime 120 > "$WORK/fs-$ms.out" 2>&1 &
    FS_PID=$!
    port=""
    for _ in $(seq 1 100); do
        port=$(awk '/^READY/{print $2}' "$WORK/fs-$ms.out" 2> /dev/null || true)
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { cat "$WORK/fs-$ms.out" >&2; exit 1; }
    cat > "$WORK/s-$ms.yaml" <<YAML
name: search-client-$ms
target: {hosts: ["http://127.0.0.1:$port"]}
index: {name: bench-search, recreate: true}
variables: [{name: n, type: range, from: 1, to: 1000}]
document: {source: '{"n": \$[[n]]}'}
search:
  clients: $CLIENTS
  target_rate: $RATE
  prefill: 0
  queries: [{name: term, body: '{"query": {"term": {"n": \$[[n]]}}}'}]
run: {warmup: 1s, duration: $DURATION}
matrix: {concurrency: [0], batch_size: 10}
YAML
    timeout 120 "$AGENT" run "$WORK/s-$ms.yaml" --threads 1 --results "$WORK/r-$ms" \
        > "$WORK/agent-$ms.out" 2> "$WORK/agent-$ms.err" || true
    stop_server
done
python3 - "$WORK" "$CLIENTS" "$RATE" "$(machine)" "$@" <<'PY'
import glob, json, sys
work, clients, rate, machine, services = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5:]
mode = "closed loop" if rate == 0 else f"open loop at {rate:g}/s"
print(f"search-client: {clients} client(s), {mode}")
for ms in services:
    m = glob.glob(f"{work}/r-{ms}/*/matrix.json")
    if not m:
        print(f"  --search-ms {ms}: no results ({work}/agent-{ms}.err)")
        continue
    row = json.load(open(m[0]))["rows"][0]
    q = row["queries"][0]
    qps, svc = q["ops_per_s"], q.get("service_mean_ms") or q.get("service_p50_ms")
    ref = rate if rate > 0 else (1000.0 * clients / svc if svc else float("nan"))
    print(f"  server {ms:>4} ms: {qps:8.1f} queries/s, service mean {svc:6.2f} ms, "
          f"reference {ref:8.1f}/s, ratio {qps / ref:5.2f}")
print(machine)
PY
