#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# budgets — DESIGN §8 / issue #17 budgets in docs per CPU-second of the load generator, all
# measured in one run against the same nginx null sink, rounds interleaved:
#   - template mode >= 0.25 x wrk replaying one prebuilt body of the same documents;
#   - corpus mode (documents copied from a file) >= 0.5 x wrk replaying a body of the corpus;
#   - with gzip (corpus mode), the agent's CPU per document <= 1.15 x libdeflate compressing the
#     same bodies alone (libdeflate.so.0 through ctypes, one call a body, same level).
#
#   bench/budgets.sh [ROUNDS]        (default 2)
#   env: BF_BATCH (5000), BF_CONC (8), SHORT (2) and LONG (8) seconds, THREADS (nproc),
#        BF_BUILD_DIR, SINK_CPUS / LOAD_CPUS (taskset lists, see lib.sh)
#
# CPU seconds are user + system of the whole process from start to exit (/usr/bin/time);
# docs are the documents it sent (agent: every second's docs_sent + docs_retried; wrk:
# requests/s x seconds x batch). Each tool runs twice, SHORT and LONG seconds (no warmup), and
# docs per CPU-second is (docs_LONG - docs_SHORT) / (cpu_LONG - cpu_SHORT): what loading and
# checking a scenario or a corpus costs at start cancels out. The corpus is the template's own
# documents (`bulkfleet-agent render`, 20000 of them) written one source a line.
source "$(dirname "$0")/lib.sh"
ROUNDS=${1:-2}
export BF_BATCH=${BF_BATCH:-5000} BF_CONC=${BF_CONC:-8} BF_GZIP_LEVEL=1
export BF_WARMUP=0s
SHORT=${SHORT:-2} LONG=${LONG:-8}
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
for r in $(seq 1 "$ROUNDS"); do
    for d in "$SHORT" "$LONG"; do
        export BF_DURATION=${d}s
        wrk_run "wrk-t-$d-$r" "$WORK/body-template.ndjson" "$THREADS" "$BF_CONC" "${d}s" "$BF_TARGET/_bulk"
        SCENARIO=$TEMPLATE BF_COMPRESSION=none agent_run "tmpl-$d-$r" --threads "$THREADS"
        wrk_run "wrk-c-$d-$r" "$WORK/body-corpus.ndjson" "$THREADS" "$BF_CONC" "${d}s" "$BF_TARGET/_bulk"
        SCENARIO=$CORPUS_SC BF_COMPRESSION=none agent_run "corpus-$d-$r" --threads "$THREADS"
        SCENARIO=$CORPUS_SC BF_COMPRESSION=gzip agent_run "gzip-$d-$r" --threads "$THREADS"
    done
done
python3 - "$WORK" "$ROUNDS" "$BF_BATCH" "$BF_CONC" "$THREADS" "$(machine)" "$SHORT" "$LONG" <<'PY'
import ctypes, json, statistics, sys, time
work, rounds, batch, conc, threads, machine, short, long_ = sys.argv[1:9]
rounds, batch = int(rounds), int(batch)
# libdeflate alone on the corpus bodies, the same level and framing as the agent
lines = open(f"{work}/bodies-corpus.ndjson", "rb").read().split(b"\n")[:-1]
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
def deflate_s_per_doc():
    t = time.process_time()
    for b in bodies * 3:
        n = ld.libdeflate_gzip_compress(comp, b, len(b), out, cap)
        assert n > 0
    return (time.process_time() - t) / (3 * len(bodies) * batch)
def agent_pc(n, r):
    a, b = (json.load(open(f"{work}/{n}-{d}-{r}.json")) for d in (short, long_))
    assert a["bad"] == 0 and b["bad"] == 0, (a, b)
    return (b["docs"] - a["docs"]) / (b["cpu_s"] - a["cpu_s"]), b
def wrk_pc(n, r):
    a, b = (json.load(open(f"{work}/{n}-{d}-{r}.json")) for d in (short, long_))
    assert a["non_2xx"] == 0 and b["non_2xx"] == 0, (a, b)
    docs = lambda w, d: w["requests_per_s"] * batch * float(d)
    return (docs(b, long_) - docs(a, short)) / (b["cpu_s"] - a["cpu_s"])
rows = []
for r in range(1, rounds + 1):
    wt_pc, wc_pc = wrk_pc("wrk-t", r), wrk_pc("wrk-c", r)
    (tp, t), (cp, c), (gp, g) = agent_pc("tmpl", r), agent_pc("corpus", r), agent_pc("gzip", r)
    ld_s = deflate_s_per_doc()
    row = dict(wrk_t=wt_pc, wrk_c=wc_pc, tmpl=tp, corpus=cp, gzip=gp, ld_s=ld_s)
    row["r_tmpl"] = tp / wt_pc
    row["r_corpus"] = cp / wc_pc
    row["r_gzip"] = (1 / gp) / ld_s
    rows.append(row)
    print(f"round {r}: docs per CPU-second ({long_} s minus {short} s runs): wrk {wt_pc:,.0f} "
          f"(template body), {wc_pc:,.0f} (corpus body); agent template {tp:,.0f} "
          f"({t['docs']:,} docs, {t['cpu_s']:.1f} s in the long run), corpus {cp:,.0f} "
          f"({c['docs']:,}, {c['cpu_s']:.1f} s), corpus+gzip {gp:,.0f} ({g['docs']:,}, "
          f"{g['cpu_s']:.1f} s); libdeflate alone {ld_s * 1e6:.2f} CPU s per million docs; "
          f"ratios {row['r_tmpl']:.2f}, {row['r_corpus']:.2f}, gzip {row['r_gzip']:.2f}")
med = lambda k: statistics.median(x[k] for x in rows)
print(f"machine: {machine}")
def verdict(ok):
    return "PASS" if ok else "FAIL"
print(f"budgets: batch {batch}, concurrency {conc}, {threads} threads, median of {rounds}: "
      f"template {med('tmpl'):,.0f} docs/CPU-s = {med('r_tmpl'):.2f} x wrk (>= 0.25: "
      f"{verdict(med('r_tmpl') >= 0.25)}); corpus {med('corpus'):,.0f} = {med('r_corpus'):.2f} x "
      f"wrk (>= 0.5: {verdict(med('r_corpus') >= 0.5)}); corpus+gzip {1e6 / med('gzip'):.2f} CPU "
      f"s per million docs = {med('r_gzip'):.2f} x libdeflate alone "
      f"({med('ld_s') * 1e6:.2f} s) (<= 1.15: {verdict(med('r_gzip') <= 1.15)})")
PY
