# SPDX-License-Identifier: MIT
# bench/lib.sh — helpers for the benchmark scripts (sourced): the release build, an nginx null
# sink on 127.0.0.1, the agent in standalone mode with its CPU and memory measured, wrk, and the
# machine description.
#
# The null sink answers POST /_bulk with a prebuilt bulk response holding exactly one "created"
# item per document of the benchmark's batch (what OpenSearch answers, about 190 bytes an
# item), so the agent judges it like a real cluster's answer — item count checked, nothing
# trusted — and wrk receives the very same bytes. Like a cluster it answers only once the whole
# body is read. GET /, _cluster/health, index PUT/DELETE, _refresh and _count get the small
# answers `bulkfleet-agent run` needs to prepare a cell (_count says 0: a null sink stores
# nothing, so the standalone row says UNVERIFIED and the agent exits 1; expected here); any
# other GET / HEAD is a 404 (nothing exists there), any other write is acknowledged.
# Nothing here sends traffic anywhere but 127.0.0.1, and every load is bounded in time.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$BENCH_DIR/.." && pwd)
BUILD=${BF_BUILD_DIR:-$SRC/build-bench}
AGENT="$BUILD/agent/bulkfleet-agent"
SCENARIO="$BENCH_DIR/scenarios/sink-nginx.yaml"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bf-bench.XXXXXX")
SINK_PID=""
# Optional CPU pinning (taskset lists, e.g. SINK_CPUS=0 LOAD_CPUS=1-3): the sink on its own
# cores and the load generator (wrk or the agent) on others, so a host with enough cores
# measures the generator instead of the generator and the sink fighting for the same ones.
SINK_PIN=()
LOAD_PIN=()
[ -n "${SINK_CPUS:-}" ] && SINK_PIN=(taskset -c "$SINK_CPUS")
[ -n "${LOAD_CPUS:-}" ] && LOAD_PIN=(taskset -c "$LOAD_CPUS")

bench_cleanup() {
    if [ -n "$SINK_PID" ]; then
        kill "$SINK_PID" 2>/dev/null || true
        wait "$SINK_PID" 2>/dev/null || true
        SINK_PID=""
    fi
    rm -rf "$WORK"
}
trap bench_cleanup EXIT

# bench_build — the binaries the benchmarks measure: the project's default RelWithDebInfo
# (-O2 -g, so perf can name functions) in build-bench/ (BF_BUILD_DIR to use another build).
bench_build() {
    if [ -z "${BF_BUILD_DIR:-}" ]; then
        cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$WORK/cmake.log"
        cmake --build "$BUILD" -j"$(nproc)" --target bulkfleet-agent >> "$WORK/cmake.log" 2>&1 ||
            { cat "$WORK/cmake.log" >&2; return 1; }
    fi
    [ -x "$AGENT" ] || { echo "bench: $AGENT missing" >&2; return 1; }
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# machine — one line: nproc, CPU model, kernel, nginx, libcurl, zlib, load average now
machine() {
    local model
    model=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
    echo "nproc $(nproc), $model, kernel $(uname -r), $(nginx -v 2>&1 | sed 's|nginx version: ||'), libcurl $(curl-config --version 2>/dev/null | sed 's/libcurl //'), zlib $(python3 -c 'import zlib; print(zlib.ZLIB_RUNTIME_VERSION)'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

# sink_start PORT BATCH [WORKERS] — nginx in the foreground (own config, own temp dir; one
# worker process by default), bulk responses of BATCH created items. Waits until it answers.
# SINK_ROOT_BODY: the JSON answer to GET / (default: an OpenSearch 2.19 node); SINK_BULK_LOG:
# a file getting "status request_length" for every POST /_bulk (docs counted at the sink).
sink_start() {
    local port=$1 batch=$2 workers=${3:-1} d="$WORK/nginx"
    local root='{"name":"null-sink","cluster_name":"null-sink","version":{"distribution":"opensearch","number":"2.19.0"},"tagline":"nginx null sink"}'
    [ -n "${SINK_ROOT_BODY:-}" ] && root=$SINK_ROOT_BODY
    local bulk_log=off
    [ -n "${SINK_BULK_LOG:-}" ] && bulk_log="$SINK_BULK_LOG bulk"
    mkdir -p "$d/www" "$d/tmp"
    chmod a+rx "$WORK" "$d" "$d/www" # nginx workers run as nobody when started by root
    python3 - "$batch" > "$d/www/bulk-response.json" <<'PY'
import sys
n = int(sys.argv[1])
item = ('{"create":{"_index":"bench-sink","_id":"%020d","_version":1,"result":"created",'
        '"_shards":{"total":1,"successful":1,"failed":0},"_seq_no":%d,"_primary_term":1,'
        '"status":201}}')
sys.stdout.write('{"took":1,"errors":false,"items":[' +
                 ",".join(item % (i, i) for i in range(n)) + "]}")
PY
    cat > "$d/nginx.conf" <<CONF
daemon off;
worker_processes $workers;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    log_format bulk '\$status \$content_length';
    # the Elasticsearch client (esrally, bench/peers.sh) checks this header on every answer
    add_header X-Elastic-Product Elasticsearch always;
    client_max_body_size 0;
    client_body_temp_path $d/tmp;
    proxy_temp_path $d/tmp;
    fastcgi_temp_path $d/tmp;
    uwsgi_temp_path $d/tmp;
    scgi_temp_path $d/tmp;
    keepalive_requests 100000000;
    keepalive_timeout 300s;
    default_type application/json;
    server {
        listen 127.0.0.1:$port;
        root $d/www;
        location = /_bulk {
            access_log $bulk_log;
            # Like a cluster, answer only once the whole body is read: the mirror phase reads
            # it (into memory: the buffer holds the largest body) before the content phase,
            # where the static module refuses a POST on the file with 405, and the error page
            # turns that into a 200 carrying the prebuilt response.
            client_body_buffer_size 128m;
            mirror /_sink_mirror;
            alias $d/www/bulk-response.json;
            error_page 405 =200 /bulk-response.json;
        }
        location = /_sink_mirror { internal; return 204; }
        location = /bulk-response.json { internal; access_log $bulk_log; }
        location = / {
            return 200 '$root';
        }
        location /_nodes {
            return 200 '{"_nodes":{"total":1,"successful":1,"failed":0},"cluster_name":"null-sink","nodes":{}}';
        }
        location /_cluster/health {
            return 200 '{"status":"green","number_of_nodes":1,"number_of_data_nodes":1}';
        }
        location ~ /_count\$ { return 200 '{"count":0}'; }
        location / {
            # nothing exists on a null sink: a GET / HEAD of an index, alias, data stream or
            # template is a 404 (so the agent creates what it needs), every write is acknowledged
            if (\$request_method ~ ^(GET|HEAD)\$) {
                return 404 '{"error":{"type":"index_not_found_exception","reason":"null sink"},"status":404}';
            }
            return 200 '{"acknowledged":true,"_shards":{"total":1,"successful":1,"failed":0}}';
        }
    }
}
CONF
    "${SINK_PIN[@]}" nginx -p "$d" -c "$d/nginx.conf" -e "$d/error.log" &
    SINK_PID=$!
    for _ in $(seq 1 50); do
        if curl -sf -o /dev/null "http://127.0.0.1:$port/"; then
            return 0
        fi
        sleep 0.1
    done
    cat "$d/error.log" >&2
    echo "bench: nginx did not start on 127.0.0.1:$port" >&2
    return 1
}

# sink_cpu_s — CPU seconds (user + system) nginx has used so far, master and workers
sink_cpu_s() {
    local total=0 pid
    for pid in $SINK_PID $(pgrep -P "$SINK_PID" 2>/dev/null); do
        total=$(awk -v t="$total" -v hz="$(getconf CLK_TCK)" '{print t + ($14 + $15) / hz}' "/proc/$pid/stat")
    done
    echo "$total"
}

# agent_run NAME [agent options...] — `bulkfleet-agent run $SCENARIO` (BF_* variables from the
# environment fill it in) under /usr/bin/time. Writes $WORK/NAME.json: docs_per_s (the row's
# headline), docs (documents sent and resent, every second), cpu_s, maxrss_kib, the row's
# service p50 and agent CPU %, the counters summed over every sample, and the steady state:
# steady_docs / steady_cpu_s over the seconds between the first and the last (the process's
# CPU of each second as its samples give it: cpu_user_ms + cpu_sys_ms).
agent_run() {
    local name=$1
    shift
    rm -rf "$WORK/res-$name"
    /usr/bin/time -f "%U %S %M" -o "$WORK/$name.time" \
        "${LOAD_PIN[@]}" "$AGENT" run "$SCENARIO" --results "$WORK/res-$name" "$@" \
        > "$WORK/$name.out" 2> "$WORK/$name.err" || true
    python3 - "$WORK" "$name" <<'PY'
import glob, json, sys
work, name = sys.argv[1:3]
u, s, m = open(f"{work}/{name}.time").read().split()[-3:]
cells = glob.glob(f"{work}/res-{name}/*/cells/*.ndjson")
if not cells:
    sys.exit(f"bench: agent run {name} wrote no results:\n" + open(f"{work}/{name}.err").read())
tot, row, per = {}, {}, {}
for line in open(cells[0]):
    j = json.loads(line)
    if j["type"] == "row":
        row = j
    elif j["type"] == "sample":
        for k, v in j.items():
            if isinstance(v, int) and not isinstance(v, bool):
                tot[k] = tot.get(k, 0) + v
        p = per.setdefault(j["second"], [0, 0])
        p[0] += j["docs_sent"] + j["docs_retried"]
        p[1] += j["cpu_user_ms"] + j["cpu_sys_ms"]
# steady state: the seconds after the first and before the last (start-up, scenario and corpus
# loading, and the end are outside), the process's CPU of each second from its own samples
mid = sorted(per)[1:-1]
out = {"docs_per_s": row["docs_per_s"], "docs": tot["docs_sent"] + tot["docs_retried"],
       "cpu_s": float(u) + float(s), "cpu_user_s": float(u), "cpu_sys_s": float(s),
       "maxrss_kib": int(m), "service_p50_ms": row["service_p50_ms"],
       "agent_cpu_pct": row["agent_cpu_pct"], "client_bound": row["client_bound"],
       "bad": tot["req_bad_response"] + tot["docs_unknown"], "totals": tot,
       "steady_docs": sum(per[k][0] for k in mid),
       "steady_cpu_s": sum(per[k][1] for k in mid) / 1000.0, "steady_seconds": len(mid)}
json.dump(out, open(f"{work}/{name}.json", "w"))
PY
}

# wrk_run NAME BODYFILE THREADS CONNECTIONS DURATION URL — wrk replaying one prebuilt body (POST,
# Content-Type application/x-ndjson); writes $WORK/NAME.json: requests_per_s, non_2xx, cpu_s.
wrk_run() {
    local name=$1 body=$2 threads=$3 conns=$4 dur=$5 url=$6
    cat > "$WORK/$name.lua" <<LUA
local f = assert(io.open("$body", "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/x-ndjson"
LUA
    wrk_measure "$name" "$threads" "$conns" "$dur" "$url"
}

# wrk_run_bodies NAME THREADS CONNS DURATION URL BODY... — wrk replaying several prebuilt bulk
# bodies in turn (its Lua request() hands them out round-robin; wrk copies each request into
# the connection's buffer: script_request in wrk's src/script.c). The replay of a whole corpus,
# the same documents and memory footprint as the agent's corpus mode. Writes $WORK/NAME.json
# as wrk_run does.
wrk_run_bodies() {
    local name=$1 threads=$2 conns=$3 dur=$4 url=$5 path=${5#http://*/}
    shift 5
    {
        echo 'local reqs, i = {}, 0'
        echo 'init = function(args)'
        for b in "$@"; do
            echo "  local f = assert(io.open(\"$b\", \"rb\"))"
            echo "  reqs[#reqs + 1] = wrk.format(\"POST\", \"/$path\", {[\"Content-Type\"] = \"application/x-ndjson\"}, f:read(\"*a\"))"
            echo '  f:close()'
        done
        echo 'end'
        echo 'request = function() i = i % #reqs + 1; return reqs[i] end'
    } > "$WORK/$name.lua"
    wrk_measure "$name" "$threads" "$conns" "$dur" "$url"
}

# wrk_measure NAME THREADS CONNS DURATION URL — runs wrk with $WORK/NAME.lua under /usr/bin/time
# and writes $WORK/NAME.json: requests_per_s, non_2xx, cpu_s (user + system), maxrss_kib.
wrk_measure() {
    local name=$1 threads=$2 conns=$3 dur=$4 url=$5
    /usr/bin/time -f "%U %S %M" -o "$WORK/$name.time" \
        "${LOAD_PIN[@]}" wrk -t"$threads" -c"$conns" -d"$dur" -s "$WORK/$name.lua" "$url" > "$WORK/$name.out"
    python3 - "$WORK" "$name" <<'PY'
import json, re, sys
work, name = sys.argv[1:3]
out = open(f"{work}/{name}.out").read()
u, s, m = open(f"{work}/{name}.time").read().split()[-3:]
rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))
non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
json.dump({"requests_per_s": rps, "non_2xx": int(non2xx.group(1)) if non2xx else 0,
           "cpu_s": float(u) + float(s), "maxrss_kib": int(m)}, open(f"{work}/{name}.json", "w"))
PY
}
