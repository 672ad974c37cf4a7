#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# budgets — the budgets of docs/internals/budgets.md in docs per CPU-second of the load generator, all
# measured in one run against the same nginx null sink, rounds interleaved:
#   - template mode >= 0.5 x wrk replaying one prebuilt body of the same documents;
#     and the same with request.transfer: length (every body built whole and sent with its
#     Content-Length, as signed bodies and servers that refuse chunked ones need), no budget:
#     its cost beside the streamed path;
#   - corpus mode (documents copied from a file) >= 0.5 x wrk replaying the same documents: the
#     corpus's 4 bulk bodies in turn (20000 documents, 11 MB; wrk_run_bodies). wrk replaying only
#     the first body (2.7 MB, which stays in the CPU's cache) is printed beside it;
#   - with gzip (corpus mode), the agent's CPU per document <= 1.15 x libdeflate compressing the
#     same bodies alone (libdeflate.so.0 through ctypes, one call a body, same level).
#
#   bench/budgets.sh [ROUNDS]        (default 2)
#   bench/budgets.sh vectors [ROUNDS]  vector mode: bench/scenarios/sink-vector.yaml (768-dimension
#                                    unit vectors, JSON and base64) >= 0.5 x wrk replaying a body
#                                    of the same documents, per encoding (BF_BATCH default 500)
#   env: BF_BATCH (5000), BF_CONC (8), LONG (8) seconds a run, THREADS (nproc),
#        BF_BUILD_DIR, SINK_CPUS / LOAD_CPUS (taskset lists, see lib.sh),
#        BASELINE_AGENT (another bulkfleet-agent binary, e.g. main's before a change: its
#        template, corpus and gzip runs are interleaved with this build's in every round and
#        its ratios printed beside, so a before/after comes from one run)
#
# Docs per CPU-second. wrk: requests/s x seconds x batch over its whole process's CPU (user +
# system, /usr/bin/time; it starts in milliseconds). Agent: the steady state of its run, the
# documents it sent (docs_sent + docs_retried) over the process's CPU in the same seconds, both
# from its per-second samples, the first and last second left out (loading the scenario and
# the corpus, and the end). Until 2026-12-01 21:20 UTC this was the difference of a SHORT and a
# LONG run of each tool, which cancels start-up too but swung past zero on this shared host
# (one round gave wrk -17.9 M: bench/RESULTS.md). The corpus is the template's own documents
# (`bulkfleet-agent render`, 20000 of them) written one source a line. The libdeflate reference
# is measured in every round right after that round's agent runs.
source "$(dirname "$0")/lib.sh"
if [ "${1:-}" = vectors ]; then
    ROUNDS=${2:-2}
    LONG=${LONG:-8}
    THREADS=${THREADS:-$(nproc)}
    export BF_BATCH=${BF_BATCH:-500} BF_CONC=${BF_CONC:-8} BF_WARMUP=0s BF_DURATION=${LONG}s
    VEC_SC="$BENCH_DIR/scenarios/sink-vector.yaml"
    VEC_POOL=${VEC_POOL:-1024} # the second agent run of each encoding: pool: 1024 (drawn once)
    bench_build
    PORT=$(free_port)
    # base64 vectors are refused at the probe below Elasticsearch 9.3: the sink says 9.5.3
    SINK_ROOT_BODY='{"name":"null-sink","cluster_name":"null-sink","version":{"number":"9.5.3"},"tagline":"nginx null sink"}' \
        sink_start "$PORT" "$BF_BATCH"
    export BF_TARGET="http://127.0.0.1:$PORT"
    for e in json base64; do
        BF_VEC_ENC=$e "$AGENT" render "$VEC_SC" > "$WORK/body-vec-$e.ndjson"
    done
    for r in $(seq 1 "$ROUNDS"); do
        for e in json base64; do
            wrk_run "wrk-$e-$r" "$WORK/body-vec-$e.ndjson" "$THREADS" "$BF_CONC" "${LONG}s" "$BF_TARGET/_bulk"
            for pl in 0 "$VEC_POOL"; do
                SCENARIO=$VEC_SC BF_VEC_ENC=$e BF_VEC_POOL=$pl agent_run "vec-$e-p$pl-$r" --threads "$THREADS"
            done
        done
    done
    python3 - "$WORK" "$ROUNDS" "$BF_BATCH" "$BF_CONC" "$THREADS" "$(machine)" "$LONG" "$VEC_POOL" <<'PY'
import json, os, statistics, sys
work, rounds, batch, conc, threads, machine, long_, pool = sys.argv[1:9]
rounds, batch = int(rounds), int(batch)
med = {}
for e in ("json", "base64"):
    size = os.path.getsize(f"{work}/body-vec-{e}.ndjson") / batch
    for pl in ("0", pool):
        ratios, agents, wrks = [], [], []
        for r in range(1, rounds + 1):
            w = json.load(open(f"{work}/wrk-{e}-{r}.json"))
            a = json.load(open(f"{work}/vec-{e}-p{pl}-{r}.json"))
            assert w["non_2xx"] == 0 and a["bad"] == 0, (w, a)
            wpc = w["requests_per_s"] * batch * float(long_) / w["cpu_s"]
            apc = a["steady_docs"] / a["steady_cpu_s"]
            ratios.append(apc / wpc)
            agents.append(apc)
            wrks.append(wpc)
            print(f"round {r}: {e}, pool {pl}: wrk {wpc:,.0f} docs per CPU-second, agent "
                  f"{apc:,.0f} ({a['steady_docs']:,} docs, {a['steady_cpu_s']:.1f} CPU s in "
                  f"{a['steady_seconds']} s): {apc / wpc:.2f} x wrk")
        med[(e, pl)] = (statistics.median(agents), statistics.median(wrks),
                        statistics.median(ratios), size)
print(f"machine: {machine}")
for (e, pl), (a, w, r, size) in med.items():
    how = "every vector drawn anew" if pl == "0" else f"pool: {pl}"
    print(f"vector budget ({e}, {how}, 768 dims, {size:,.0f} bytes a document, batch {batch}, "
          f"concurrency {conc}, {threads} threads, median of {rounds}): agent {a:,.0f} "
          f"docs/CPU-s, wrk {w:,.0f}: {r:.2f} x wrk (>= 0.5: {'PASS' if r >= 0.5 else 'FAIL'})")
PY
    exit 0
fi
ROUNDS=${1:-2}
export BF_BATCH=${BF_BATCH:-5000} BF_CONC=${BF_CONC:-8} BF_GZIP_LEVEL=1
export BF_WARMUP=0s
LONG=${LONG:-8}
THREADS=${THREADS:-$(nproc)}
TEMPLATE="$BENCH_DIR/scenarios/sink-nginx.yaml"
CORPUS_SC="$BENCH_DIR/scenarios/sink-corpus.yaml"
bench_build
PORT=$(free_port)
sink_start "$PORT" "$BF_BATCH"
export BF_TARGET="http://127.0.0.1:$PORT"
BF_BATCH=20000 BF_COMPRESSION=none "$AGENT" render "$TEMPLATE" --requests 1 | awk 'NR % 2 == 0' > "$WORK/corpus.json"
export BF_CORPUS="$WORK/corpus.json"
BF_COMPRESSION=none "$AGENT" render "$TEMPLATE" > "$WORK/body-template.ndjson"
BF_COMPRESSION=none "$AGENT" render "$CORPUS_SC" > "$WORK/body-corpus.ndjson"
BF_COMPRESSION=none "$AGENT" render "$CORPUS_SC" --requests 4 > "$WORK/bodies-corpus.ndjson"
# the same 4 requests one body a file: wrk's replay of the whole corpus
awk -v dir="$WORK" -v per=$((2 * BF_BATCH)) '{ print > (dir "/body-corpus-" int((NR - 1) / per) ".ndjson") }' \
    "$WORK/bodies-corpus.ndjson"
CORPUS_BODIES=("$WORK"/body-corpus-[0-3].ndjson)
[ ${#CORPUS_BODIES[@]} -eq 4 ] || { echo "budgets: expected 4 corpus bodies" >&2; exit 1; }
deflate_ref() { # deflate_ref NAME: libdeflate alone on the corpus bodies -> $WORK/NAME.json
    python3 - "$WORK/bodies-corpus.ndjson" "$BF_BATCH" > "$WORK/$1.json" <<'PY'
import ctypes, json, sys, time
path, batch = sys.argv[1], int(sys.argv[2])
# libdeflate alone on the corpus bodies, the same level and framing as the agent
lines = open(path, "rb").read().split(b"\n")[:-1]
per = 2 * batch
bodies = [b"\n".join(lines[i:i + per]) + b"\n" for i in range(0, len(lines), per)]
ld = ctypes.CDLL("libdeflate.so.0")
ld.libdeflate_alloc_compressor.restype = ctypes.c_void_p
ld.libdeflate_alloc_compressor.argtypes = [ctypes.c_int]
ld.libdeflate_gzip_compress.restype = ctypes.c_size_t
ld.libdeflate_gzip_compress.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                        ctypes.c_void_p, ctypes.c_size_t]
comp = ld.libdeflate_alloc_compressor(1)
cap = 2 * max(map(len, bodies)) + 65536
out = ctypes.create_string_buffer(cap)
# at least 3 CPU seconds, so the figure is not one time slice's luck (at 0.1 s it swung from 1.33
# to 2.01 s per million documents between rounds on this shared host)
t, n = time.process_time(), 0
while n < 3 * len(bodies) or time.process_time() - t < 3.0:
    for b in bodies:
        assert ld.libdeflate_gzip_compress(comp, b, len(b), out, cap) > 0
    n += len(bodies)
json.dump({"s_per_doc": (time.process_time() - t) / (n * batch)}, sys.stdout)
PY
}
export BF_DURATION=${LONG}s
for r in $(seq 1 "$ROUNDS"); do
    wrk_run "wrk-t-$r" "$WORK/body-template.ndjson" "$THREADS" "$BF_CONC" "${LONG}s" "$BF_TARGET/_bulk"
    SCENARIO=$TEMPLATE BF_COMPRESSION=none agent_run "tmpl-$r" --threads "$THREADS"
    SCENARIO=$TEMPLATE BF_COMPRESSION=none BF_TRANSFER=length agent_run "tmpl-len-$r" --threads "$THREADS"
    wrk_run "wrk-c-$r" "$WORK/body-corpus.ndjson" "$THREADS" "$BF_CONC" "${LONG}s" "$BF_TARGET/_bulk"
    wrk_run_bodies "wrk-a-$r" "$THREADS" "$BF_CONC" "${LONG}s" "$BF_TARGET/_bulk" "${CORPUS_BODIES[@]}"
    SCENARIO=$CORPUS_SC BF_COMPRESSION=none agent_run "corpus-$r" --threads "$THREADS"
    SCENARIO=$CORPUS_SC BF_COMPRESSION=gzip agent_run "gzip-$r" --threads "$THREADS"
    deflate_ref "ld-$r"
    if [ -n "${BASELINE_AGENT:-}" ]; then
        SCENARIO=$TEMPLATE BF_COMPRESSION=none AGENT=$BASELINE_AGENT agent_run "b-tmpl-$r" --threads "$THREADS"
        SCENARIO=$CORPUS_SC BF_COMPRESSION=none AGENT=$BASELINE_AGENT agent_run "b-corpus-$r" --threads "$THREADS"
        SCENARIO=$CORPUS_SC BF_COMPRESSION=gzip AGENT=$BASELINE_AGENT agent_run "b-gzip-$r" --threads "$THREADS"
    fi
done
python3 - "$WORK" "$ROUNDS" "$BF_BATCH" "$BF_CONC" "$THREADS" "$(machine)" "$LONG" "${BASELINE_AGENT:-}" <<'PY'
import json, statistics, sys
work, rounds, batch, conc, threads, machine, long_, baseline = sys.argv[1:9]
rounds, batch = int(rounds), int(batch)
def agent_pc(n, r):
    a = json.load(open(f"{work}/{n}-{r}.json"))
    assert a["bad"] == 0, a
    return a["steady_docs"] / a["steady_cpu_s"], a
def wrk_pc(n, r):
    w = json.load(open(f"{work}/{n}-{r}.json"))
    assert w["non_2xx"] == 0, w
    return w["requests_per_s"] * batch * float(long_) / w["cpu_s"]
rows = []
for r in range(1, rounds + 1):
    wt_pc, wc_pc, wa_pc = wrk_pc("wrk-t", r), wrk_pc("wrk-c", r), wrk_pc("wrk-a", r)
    (tp, t), (cp, c), (gp, g) = agent_pc("tmpl", r), agent_pc("corpus", r), agent_pc("gzip", r)
    lp, l = agent_pc("tmpl-len", r)
    ld_s = json.load(open(f"{work}/ld-{r}.json"))["s_per_doc"]
    row = dict(wrk_t=wt_pc, wrk_c=wc_pc, wrk_a=wa_pc, tmpl=tp, corpus=cp, gzip=gp, ld_s=ld_s,
               tmpl_len=lp)
    row["r_tmpl"] = tp / wt_pc
    row["r_tmpl_len"] = lp / wt_pc
    row["r_corpus"] = cp / wa_pc      # wrk replaying the same 20000 documents
    row["r_corpus_one"] = cp / wc_pc  # wrk replaying one body of them
    row["r_gzip"] = (1 / gp) / ld_s
    if baseline:
        (btp, _), (bcp, _), (bgp, _) = (agent_pc(f"b-{n}", r) for n in ("tmpl", "corpus", "gzip"))
        row.update(b_r_tmpl=btp / wt_pc, b_r_corpus=bcp / wa_pc, b_r_corpus_one=bcp / wc_pc,
                   b_r_gzip=(1 / bgp) / ld_s,
                   b_tmpl=btp, b_corpus=bcp, b_gzip=bgp)
        print(f"round {r}: baseline agent ({baseline}): template {btp:,.0f}, corpus {bcp:,.0f}, "
              f"corpus+gzip {bgp:,.0f} docs per CPU-second; ratios {row['b_r_tmpl']:.2f}, "
              f"{row['b_r_corpus']:.2f} ({row['b_r_corpus_one']:.2f} to one body), gzip "
              f"{row['b_r_gzip']:.2f}")
    rows.append(row)
    print(f"round {r}: docs per CPU-second ({long_} s runs; agent: its steady seconds): wrk "
          f"{wt_pc:,.0f} (template body), {wc_pc:,.0f} (one corpus body), {wa_pc:,.0f} (the "
          f"corpus's 4 bodies in turn); agent template {tp:,.0f} "
          f"({t['steady_docs']:,} docs, {t['steady_cpu_s']:.1f} CPU s in {t['steady_seconds']} s), "
          f"template with Content-Length bodies {lp:,.0f} ({l['steady_docs']:,}, "
          f"{l['steady_cpu_s']:.1f} s; {lp / tp:.2f} x streamed), "
          f"corpus {cp:,.0f} ({c['steady_docs']:,}, {c['steady_cpu_s']:.1f} s), corpus+gzip "
          f"{gp:,.0f} ({g['steady_docs']:,}, {g['steady_cpu_s']:.1f} s); libdeflate alone "
          f"{ld_s * 1e6:.2f} CPU s per million docs; ratios {row['r_tmpl']:.2f}, "
          f"{row['r_corpus']:.2f} ({row['r_corpus_one']:.2f} to one body), gzip "
          f"{row['r_gzip']:.2f}")
med = lambda k: statistics.median(x[k] for x in rows)
print(f"machine: {machine}")
def verdict(ok):
    return "PASS" if ok else "FAIL"
print(f"budgets: batch {batch}, concurrency {conc}, {threads} threads, median of {rounds}: "
      f"template {med('tmpl'):,.0f} docs/CPU-s = {med('r_tmpl'):.2f} x wrk (>= 0.5: "
      f"{verdict(med('r_tmpl') >= 0.5)}); template with request.transfer: length "
      f"{med('tmpl_len'):,.0f} = {med('r_tmpl_len'):.2f} x wrk ({med('tmpl_len') / med('tmpl'):.2f} "
      f"x streamed); corpus {med('corpus'):,.0f} = {med('r_corpus'):.2f} x "
      f"wrk replaying the same documents (>= 0.5: {verdict(med('r_corpus') >= 0.5)}; "
      f"{med('r_corpus_one'):.2f} x wrk replaying one body of them); corpus+gzip {1e6 / med('gzip'):.2f} CPU "
      f"s per million docs = {med('r_gzip'):.2f} x libdeflate alone "
      f"({med('ld_s') * 1e6:.2f} s) (<= 1.15: {verdict(med('r_gzip') <= 1.15)})")
if baseline:
    print(f"baseline ({baseline}), same run, median of {rounds}: template {med('b_tmpl'):,.0f} "
          f"docs/CPU-s = {med('b_r_tmpl'):.2f} x wrk; corpus {med('b_corpus'):,.0f} = "
          f"{med('b_r_corpus'):.2f} x wrk ({med('b_r_corpus_one'):.2f} to one body); corpus+gzip {1e6 / med('b_gzip'):.2f} CPU s per "
          f"million docs = {med('b_r_gzip'):.2f} x libdeflate alone")
PY
