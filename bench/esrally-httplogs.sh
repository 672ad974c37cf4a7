#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# esrally-httplogs — bulkfleet beside esrally on one Elasticsearch cluster, the same workload:
# an http_logs-like Rally track written here (two days of web server logs, one index a day,
# logs-181998 and logs-191998, one file of N documents each; http_logs' mapping without
# match_only_text, which the Elasticsearch dev clusters lack; 1 shard, 0 replicas), its
# append task as published (bulk-size 5000, 8 clients, the corpus read once). esrally runs
# the track (--offline, --pipeline=benchmark-only); bulkfleet runs what `import-rally`
# makes of the same track folder (each file into its own index, as Rally sends it). The two
# alternate, PAIRS times, each first in every other pair; each run starts from deleted indices.
#
#   BF_ES=http://127.0.0.1:PORT bench/esrally-httplogs.sh     (an Elasticsearch 8 dev cluster:
#       scripts/devcluster.sh start --engine elasticsearch8 --nodes 1 ...)
#   env: PAIRS (3), DOCS per file (100000), BF_BUILD_DIR (build), ESRALLY (the esrally to use;
#        default $BF_BUILD_DIR/venv-esrally/bin/esrally, installed there from PyPI if missing)
#
# Figures: esrally's index-append "Median Throughput" (docs/s; the median of its per-second
# throughput samples) and "Mean Throughput"; bulkfleet's row docs/s (documents acknowledged in
# the measurement window over its seconds: docs/import.md says how the two are defined) and
# docs_per_s_median (the median of the row's per-second docs/s, the figure closest to Rally's
# median). bulkfleet's rows must be verified (every document counted by _count), Rally's
# document count is checked with _count after each race. The summary is the median of each
# tool's runs and the ratio bulkfleet / esrally of the medians. Traffic goes to BF_ES only
# (127.0.0.1); every run is bounded by a timeout.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BF_BUILD_DIR:-$SRC/build}
COORD="$BUILD/coordinator/bulkfleet-coordinator"
ES=${BF_ES:?set BF_ES to the Elasticsearch cluster, e.g. http://127.0.0.1:9200}
case $ES in http://127.*) ;; *) echo "esrally-httplogs: BF_ES must be on 127.0.0.0/8" >&2; exit 2 ;; esac
PAIRS=${PAIRS:-3}
DOCS=${DOCS:-100000}
ESRALLY=${ESRALLY:-$BUILD/venv-esrally/bin/esrally}
if [ ! -x "$ESRALLY" ]; then
    echo "esrally-httplogs: installing esrally into $BUILD/venv-esrally (PyPI)" >&2
    python3 -m venv "$BUILD/venv-esrally"
    "$BUILD/venv-esrally/bin/pip" install -q esrally >&2
    ESRALLY="$BUILD/venv-esrally/bin/esrally"
fi
VENV=$(cd "$(dirname "$ESRALLY")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bf-sxs.XXXXXX")
export HOME="$WORK/home" # esrally's ~/.rally (config, logs, races) stays in WORK
mkdir -p "$HOME"
# esrally's actor system outlives a race: its processes (under VENV) are ended by pid
stop_rally() {
    for pid in $(ls /proc | grep -E '^[0-9]+$'); do
        if { tr '\0' ' ' < "/proc/$pid/cmdline"; } 2> /dev/null | grep -qF "$VENV/"; then
            kill "$pid" 2> /dev/null || true
        fi
    done
}
trap 'stop_rally; [ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT

python3 - "$WORK/track" "$DOCS" <<'PY'
import json, os, random, sys
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d)
rng = random.Random(1998)
paths = ["/images/hm_bg.jpg", "/english/index.html", "/french/splash_inet.html",
         "/images/logo_cup.gif", "/english/images/nav_field_off.gif",
         "/english/history/history_of/images/cup/cup.gif"]
files = []
for day, t0 in (("181998", 893964617), ("191998", 894051017)):
    fn = "documents-%s.json" % day
    with open(os.path.join(d, fn), "w") as f:
        for i in range(n):
            ip = "%d.%d.%d.%d" % (rng.randrange(1, 224), rng.randrange(256), rng.randrange(256),
                                  rng.randrange(256))
            f.write(json.dumps({"@timestamp": t0 + i // 3, "clientip": ip,
                                "request": "GET %s HTTP/1.0" % rng.choice(paths),
                                "status": rng.choice([200, 200, 200, 304, 404]),
                                "size": rng.randrange(0, 50000)}, separators=(",", ":")) + "\n")
    files.append({"source-file": fn, "document-count": n,
                  "uncompressed-bytes": os.path.getsize(os.path.join(d, fn)),
                  "target-index": "logs-" + day})
index = {"settings": {"index.number_of_shards": 1, "index.number_of_replicas": 0,
                      "index.requests.cache.enable": False},
         "mappings": {"dynamic": "strict", "_source": {"enabled": True}, "properties": {
             "@timestamp": {"type": "date", "format": "epoch_second"},
             "clientip": {"type": "ip"},
             "request": {"type": "text", "fields": {"raw": {"type": "keyword",
                                                            "ignore_above": 256}}},
             "status": {"type": "integer"}, "size": {"type": "integer"}}}}
json.dump(index, open(os.path.join(d, "index.json"), "w"), indent=1)
track = {"version": 2, "description": "http_logs-like: web server logs, one index a day",
         "indices": [{"name": "logs-181998", "body": "index.json"},
                     {"name": "logs-191998", "body": "index.json"}],
         "corpora": [{"name": "http_logs_small", "documents": files}],
         "schedule": [
             {"operation": {"operation-type": "delete-index"}},
             {"operation": {"operation-type": "create-index"}},
             {"operation": {"name": "check-cluster-health", "operation-type": "cluster-health",
                            "request-params": {"wait_for_status": "green"},
                            "retry-until-success": True}},
             {"operation": {"name": "index-append", "operation-type": "bulk",
                            "bulk-size": 5000}, "warmup-time-period": 0, "clients": 8},
             {"operation": {"name": "refresh-after-index", "operation-type": "refresh"}}]}
json.dump(track, open(os.path.join(d, "track.json"), "w"), indent=1)
PY
"$COORD" import-rally "$WORK/track" -o "$WORK/sc.yaml" 2> "$WORK/import.err" ||
    { cat "$WORK/import.err" >&2; exit 1; }
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
count() { # total documents in both indices after a refresh
    curl -sf -XPOST "$ES/logs-181998,logs-191998/_refresh" > /dev/null
    curl -sf "$ES/logs-181998,logs-191998/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'
}
run_rally() { # run_rally I: one race; appends "rally I median mean count" to results
    local i=$1
    # the command goes through a file: esrally refuses to start while a Python process with
    # "esrally" in its command line runs (it takes it for another race)
    printf '%s\0' "$ESRALLY" race --track-path="$WORK/track" --pipeline=benchmark-only \
        --target-hosts="${ES#http://}" --offline --on-error=abort --report-format=csv \
        --report-file="$WORK/rally-$i.csv" > "$WORK/rally-$i.cmd"
    timeout 900 python3 -c 'import subprocess,sys; sys.exit(subprocess.call(open(sys.argv[1],"rb").read().decode().split("\0")[:-1]))' \
        "$WORK/rally-$i.cmd" > "$WORK/rally-$i.out" 2>&1 || { tail -30 "$WORK/rally-$i.out" >&2; exit 1; }
    stop_rally
    python3 - "$WORK/rally-$i.csv" "$i" "$(count)" >> "$WORK/results" <<'PY'
import csv, sys
got = {}
for row in csv.reader(open(sys.argv[1])):
    # Metric,Task,Value,Unit
    if len(row) >= 3 and row[1] == "index-append" and row[0] in ("Median Throughput", "Mean Throughput"):
        got[row[0]] = float(row[2])
print("rally", sys.argv[2], got["Median Throughput"], got["Mean Throughput"], sys.argv[3])
PY
}
run_bf() { # run_bf I: one campaign; appends "bulkfleet I median docs/s count" to results
    local i=$1 rc=0
    # the indices esrally made are not bulkfleet's to replace: deleted here, as Rally's own
    # schedule deletes them
    curl -sf -XDELETE "$ES/logs-181998,logs-191998?ignore_unavailable=true" > /dev/null
    BF_TARGET=$ES timeout 900 "$COORD" run "$WORK/sc.yaml" --local-agents 1 --threads 2 --insecure \
        --bind "tcp://127.0.0.1:$(free_port)" --results "$WORK/bf-$i" -q > "$WORK/bf-$i.out" 2> "$WORK/bf-$i.err" || rc=$?
    [ "$rc" -le 1 ] || { tail -30 "$WORK/bf-$i.err" >&2; exit 1; }
    python3 - "$WORK/bf-$i" "$i" "$(count)" >> "$WORK/results" <<'PY'
import csv, glob, sys
row = list(csv.DictReader(open(glob.glob(sys.argv[1] + "/*/matrix.csv")[0])))[0]
assert row["verified"] == "true", "bulkfleet row not verified: %s" % row.get("reason", "")
print("bulkfleet", sys.argv[2], row["docs_per_s_median"], row["docs_per_s"], sys.argv[3])
PY
}
: > "$WORK/results"
for i in $(seq 1 "$PAIRS"); do
    if [ $((i % 2)) = 1 ]; then run_rally "$i"; run_bf "$i"; else run_bf "$i"; run_rally "$i"; fi
    tail -2 "$WORK/results" >&2
done
python3 - "$WORK/results" "$DOCS" "$PAIRS" "$ES" "$(nproc)" "$("$ESRALLY" --version 2> /dev/null | tail -1)" "$(curl -sf "$ES" | python3 -c 'import json,sys; v=json.load(sys.stdin)["version"]; print(v["number"])')" <<'PY'
import statistics, sys
path, docs, pairs, es, cpus, rally_v, es_v = sys.argv[1:8]
rows = [l.split() for l in open(path)]
rl = [r for r in rows if r[0] == "rally"]
bf = [r for r in rows if r[0] == "bulkfleet"]
want = 2 * int(docs)
for r in rows:
    assert int(r[4]) == want, "%s run %s: _count %s, want %d" % (r[0], r[1], r[4], want)
rmed = statistics.median(float(r[2]) for r in rl)
rmean = statistics.median(float(r[3]) for r in rl)
bmed = statistics.median(float(r[2]) for r in bf)
bavg = statistics.median(float(r[3]) for r in bf)
print("esrally-httplogs: %s pairs, %d documents (2 indices x %s), Elasticsearch %s at %s, %s CPUs, %s"
      % (pairs, want, docs, es_v, es, cpus, rally_v))
for a, b in zip(rl, bf):
    print("  pair %s: esrally median %.0f docs/s (mean %.0f), bulkfleet median %.0f docs/s (row %.0f)"
          % (a[1], float(a[2]), float(a[3]), float(b[2]), float(b[3])))
pair = [float(b[2]) / float(a[2]) for a, b in zip(rl, bf)]
print("esrally-httplogs: median of runs: esrally %.0f docs/s (its mean %.0f), bulkfleet %.0f docs/s "
      "(row %.0f); ratio bulkfleet/esrally %.2f (medians), %.2f (bulkfleet row / esrally mean); "
      "per pair (medians) %s, their median %.2f; every run counted %d documents"
      % (rmed, rmean, bmed, bavg, bmed / rmed, bavg / rmean,
         " ".join("%.2f" % r for r in pair), statistics.median(pair), want))
PY
