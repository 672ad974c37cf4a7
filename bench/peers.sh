#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# peers — bulkfleet's agent beside esrally and opensearch-benchmark, the tools users would
# otherwise pick, in one run: the same nginx access-log documents (20000, one source a line),
# the same nginx null sink, the same batch size and bulk requests in flight, no compression.
# Each peer gets a small offline track in Rally's format (track.json / workload.json: one
# bulk task, looped corpus, time-period); the agent reads the same file as document.corpus.
#
#   bench/peers.sh                (batch 1000 and 5000; BATCHES="5000" for one)
#   env: BF_CONC (8), SHORT (10) and LONG (30) seconds, TOOLS ("agent esrally osb"),
#        BF_BUILD_DIR
#
# Installs esrally and opensearch-benchmark from PyPI into two virtual environments under the
# build folder ($BUILD/venv-esrally, $BUILD/venv-osb; they cannot share one) when missing.
# Documents are counted at the sink: nginx logs every POST /_bulk it answers, and a tool's
# documents = those requests x the batch size (the body lengths are checked to agree).
# CPU seconds are those of the tool's whole process tree: every process of its session
# (started with setsid) sampled from /proc every 50 ms, its last reading kept, and never less
# than /usr/bin/time's figure for the waited-for tree. Startup (Python imports, track loading,
# the agent's corpus check) is excluded by running each tool for SHORT and LONG seconds:
# docs per CPU-second = (docs_LONG - docs_SHORT) / (cpu_LONG - cpu_SHORT).
# Traffic goes to 127.0.0.1 only; every run is bounded by the tool's time-period and a timeout.
source "$(dirname "$0")/lib.sh"
BATCHES=${BATCHES:-"1000 5000"}
export BF_CONC=${BF_CONC:-8} BF_COMPRESSION=none BF_WARMUP=0s
SHORT=${SHORT:-10} LONG=${LONG:-30}
TOOLS=${TOOLS:-"agent esrally osb"}
bench_build
for tool in esrally osb; do
    case " $TOOLS " in *" $tool "*) ;; *) continue ;; esac
    pkg=esrally
    [ "$tool" = osb ] && pkg=opensearch-benchmark
    if [ ! -x "$BUILD/venv-$tool/bin/${pkg/opensearch-benchmark/opensearch-benchmark}" ]; then
        echo "peers: installing $pkg into $BUILD/venv-$tool (PyPI)" >&2
        python3 -m venv "$BUILD/venv-$tool"
        "$BUILD/venv-$tool/bin/pip" install -q "$pkg" >&2
    fi
done
ESRALLY="$BUILD/venv-esrally/bin/esrally"
OSB="$BUILD/venv-osb/bin/opensearch-benchmark"
export HOME="$WORK/home"   # the tools' config and logs (~/.rally, ~/.benchmark) stay in $WORK
mkdir -p "$HOME"
TEMPLATE="$BENCH_DIR/scenarios/sink-nginx.yaml"
CORPUS_SC="$BENCH_DIR/scenarios/sink-corpus.yaml"
mkdir -p "$WORK/track"
BF_BATCH=20000 "$AGENT" render "$TEMPLATE" --requests 1 | awk 'NR % 2 == 0' > "$WORK/track/documents.json"
export BF_CORPUS="$WORK/track/documents.json"

# track BATCH SECONDS — the peers' track: one looped bulk task
track() {
    python3 - "$WORK/track" "$1" "$2" "$BF_CONC" <<'PY'
import json, os, sys
d, batch, secs, clients = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
docs = os.path.join(d, "documents.json")
n = sum(1 for _ in open(docs, "rb"))
t = {"version": 2, "description": "nginx access-log documents for bench/peers.sh",
     "indices": [{"name": "bench-sink"}],
     "corpora": [{"name": "nginx", "documents": [
         {"source-file": "documents.json", "document-count": n,
          "uncompressed-bytes": os.path.getsize(docs), "target-index": "bench-sink"}]}],
     "schedule": [{"operation": {"name": "bulk", "operation-type": "bulk", "bulk-size": batch,
                                 "corpora": "nginx", "looped": True},
                   "warmup-time-period": 0, "time-period": secs, "clients": clients}]}
for f in ("track.json", "workload.json"):
    json.dump(t, open(os.path.join(d, f), "w"), indent=1)
PY
}

# measure NAME -- COMMAND... — runs COMMAND in its own session; writes $WORK/NAME.json with
# the CPU seconds of its process tree and the documents the sink answered meanwhile
measure() {
    local name=$1 batch=$2
    shift 3
    : > "$WORK/bulk.log"
    # the command goes through a file: esrally refuses to start while a Python process with
    # "esrally" in its command line runs (it takes it for another race)
    printf '%s\0' "$@" > "$WORK/$name.cmd"
    PEER_MARK=${MARK:-} python3 - "$WORK/$name.cpu" "$WORK/$name.cmd" > "$WORK/$name.out" 2> "$WORK/$name.err" <<'PY'
import os, subprocess, sys, time
out, mark = sys.argv[1], os.environ.get("PEER_MARK", "")  # not in argv (see above)
cmd = open(sys.argv[2], "rb").read().decode().split("\0")[:-1]
hz = os.sysconf("SC_CLK_TCK")
def cpu_of(pid):
    try:
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return int(f[3]), (int(f[11]) + int(f[12])) / hz
    except (OSError, IndexError, ValueError):
        return None, None
def marked(pid):
    # a peer's daemons (esrally's actor system) leave the session: they are known by the
    # virtual environment in their command line
    if not mark:
        return False
    try:
        return mark.encode() in open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        return False
base = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    if marked(pid):
        base[pid] = cpu_of(pid)[1] or 0.0
p = subprocess.Popen(["/usr/bin/time", "-f", "%U %S", "-o", out + ".time"] + cmd,
                     start_new_session=True)
sid = os.getsid(p.pid)
seen = {}
def sample():
    for pid in filter(str.isdigit, os.listdir("/proc")):
        s, c = cpu_of(pid)
        if c is not None and (s == sid or pid in seen or marked(pid)):
            seen[pid] = c - base.get(pid, 0.0)
deadline = time.time() + 900
while p.poll() is None and time.time() < deadline:
    sample()
    time.sleep(0.05)
if p.poll() is None:
    os.killpg(sid, 9)
    sys.exit("peers: timed out")
time.sleep(0.5)   # daemons finish their share
sample()
u, s_ = open(out + ".time").read().split()[-2:]
print(max(sum(seen.values()), float(u) + float(s_)), p.returncode, file=open(out, "w"))
PY
    python3 - "$WORK" "$name" "$batch" <<'PY'
import json, sys
work, name, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
cpu, rc = open(f"{work}/{name}.cpu").read().split()
lines = [l.split() for l in open(f"{work}/bulk.log")]
ok = [int(b) for s, b in lines if s == "200"]
json.dump({"cpu_s": float(cpu), "rc": int(rc), "requests": len(ok), "docs": len(ok) * batch,
           "bytes": sum(ok), "bad": len(lines) - len(ok)}, open(f"{work}/{name}.json", "w"))
PY
}

PORT=$(free_port)
for batch in $BATCHES; do
    for secs in "$SHORT" "$LONG"; do
        track "$batch" "$secs"
        for tool in $TOOLS; do
            # file names without "esrally" in them (see measure)
            n="${tool/esrally/rly}-$batch-$secs"
            if [ -n "$SINK_PID" ]; then kill "$SINK_PID"; wait "$SINK_PID" 2>/dev/null || true; SINK_PID=""; fi
            # GET / as each tool checks it (OpenSearch for the agent and opensearch-benchmark)
            SINK_ROOT_BODY='{"name":"null-sink","cluster_name":"null-sink","cluster_uuid":"null-sink","version":{"distribution":"opensearch","number":"2.19.0","build_type":"tar","build_hash":"null-sink","build_date":"2025-01-01T00:00:00Z","build_snapshot":false,"lucene_version":"9.12.1","minimum_wire_compatibility_version":"7.10.0","minimum_index_compatibility_version":"7.0.0"},"tagline":"The OpenSearch Project: https://opensearch.org/"}'
            [ "$tool" = esrally ] && SINK_ROOT_BODY='{"name":"null-sink","cluster_name":"null-sink","cluster_uuid":"null-sink","version":{"number":"8.11.0","build_flavor":"default","build_type":"tar","build_hash":"null-sink","build_date":"2025-01-01T00:00:00Z","build_snapshot":false,"lucene_version":"9.8.0","minimum_wire_compatibility_version":"7.17.0","minimum_index_compatibility_version":"7.0.0"},"tagline":"You Know, for Search"}'
            SINK_BULK_LOG="$WORK/bulk.log" sink_start "$PORT" "$batch"
            case $tool in
            agent)
                BF_BATCH=$batch BF_DURATION=${secs}s BF_TARGET="http://127.0.0.1:$PORT" \
                    measure "$n" "$batch" -- "$AGENT" run "$CORPUS_SC" --threads "$(nproc)" --results "$WORK/res-$n" ;;
            esrally)
                MARK="$BUILD/venv-esrally" measure "$n" "$batch" -- "$ESRALLY" race --track-path="$WORK/track" --pipeline=benchmark-only \
                    --target-hosts="127.0.0.1:$PORT" --offline --on-error=abort \
                    --report-file="$WORK/$n.md" ;;
            osb)
                MARK="$BUILD/venv-osb" measure "$n" "$batch" -- "$OSB" run --workload-path="$WORK/track" --pipeline=benchmark-only \
                    --target-hosts="127.0.0.1:$PORT" --offline --on-error=abort ;;
            esac
            python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], j)' "$WORK/$n.json" "$n" >&2
            if [ "$tool" != agent ] && ! grep -q '"rc": 0' "$WORK/$n.json"; then
                tail -n 20 "$WORK/$n.out" "$WORK/$n.err" >&2
            fi
        done
    done
done
# the peers' daemons (esrally's actor system outlives a race): ended by pid
for pid in $(ls /proc | grep -E '^[0-9]+$'); do
    if { tr '\0' ' ' < "/proc/$pid/cmdline"; } 2>/dev/null | grep -qE "$BUILD/venv-(esrally|osb)/"; then
        kill "$pid" 2>/dev/null || true
    fi
done
python3 - "$WORK" "$SHORT" "$LONG" "$BF_CONC" "$(machine)" "$BATCHES" "$TOOLS" <<'PY'
import json, sys
work, short, long_, conc, machine, batches, tools = sys.argv[1:8]
names = {"agent": "bulkfleet-agent", "esrally": "esrally", "osb": "opensearch-benchmark"}
print(f"machine: {machine}")
for batch in batches.split():
    per = {}
    for t in tools.split():
        f = t.replace("esrally", "rly")
        a, b = (json.load(open(f"{work}/{f}-{batch}-{s}.json")) for s in (short, long_))
        assert a["bad"] == 0 and b["bad"] == 0, (t, a, b)
        if b["docs"] == 0 or b["cpu_s"] <= a["cpu_s"]:
            print(f"peers: batch {batch}: {names[t]} sent nothing measurable: {a} {b}; see "
                  f"{work}/{f}-{batch}-{long_}.err")
            continue
        per[t] = (b["docs"] - a["docs"]) / (b["cpu_s"] - a["cpu_s"])
        print(f"batch {batch}: {names[t]}: {b['docs']:,} docs at the sink in {long_} s "
              f"({b['cpu_s']:.1f} CPU s), {a['docs']:,} in {short} s ({a['cpu_s']:.1f} CPU s): "
              f"{per[t]:,.0f} docs per CPU-second")
    if "agent" in per:
        for t, need in (("osb", 3), ("esrally", 5)):
            if t in per:
                r = per["agent"] / per[t]
                print(f"peers: batch {batch}, concurrency {conc}: bulkfleet-agent / {names[t]} = "
                      f"{r:.1f}x docs per CPU-second (budget at batch 5000: >= {need}: "
                      f"{'PASS' if r >= need else 'FAIL'})")
PY
