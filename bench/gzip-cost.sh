#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gzip-cost — docs/internals/budgets.md: with gzip, the agent's CPU per document is <= 1.15x the cost of
# compressing the same bytes alone with libdeflate (the library the agent uses, same level,
# gzip framing); zlib alone is printed beside it for comparison.
#
#   bench/gzip-cost.sh [ROUNDS]        (default 3)
#   env: BF_BATCH (5000), BF_CONC (8), BF_GZIP_LEVEL (1), BF_DURATION (10s), BF_WARMUP (2s),
#        THREADS (nproc), BF_BUILD_DIR
#
# Agent: `bulkfleet-agent run` of bench/scenarios/sink-nginx.yaml with compression: gzip
# against the nginx null sink; its CPU (user + system, /usr/bin/time, the whole process from
# start to exit) divided by the documents it sent. Reference: the same renderer's bodies
# (`bulkfleet-agent render`, 40 bodies), each compressed alone with the system libdeflate
# (libdeflate.so.0 through ctypes: libdeflate_gzip_compress, one call a body, as the agent
# does) and with Python's zlib (the system libz, wbits 31) at the same level; CPU time of the
# compression calls only. One reference pass after every agent run; the ratio is per round,
# the median is reported. Prints one summary line (and the machine).
source "$(dirname "$0")/lib.sh"
ROUNDS=${1:-3}
export BF_BATCH=${BF_BATCH:-5000} BF_CONC=${BF_CONC:-8} BF_COMPRESSION=gzip
export BF_GZIP_LEVEL=${BF_GZIP_LEVEL:-1} BF_WARMUP=${BF_WARMUP:-2s} BF_DURATION=${BF_DURATION:-10s}
THREADS=${THREADS:-$(nproc)}
bench_build
PORT=$(free_port)
sink_start "$PORT" "$BF_BATCH"
export BF_TARGET="http://127.0.0.1:$PORT"
"$AGENT" render "$SCENARIO" --requests 40 > "$WORK/bodies.ndjson"
reference() {
    python3 - "$WORK/bodies.ndjson" "$BF_BATCH" "$BF_GZIP_LEVEL" > "$WORK/ref-$1.json" <<'PY'
import ctypes, json, sys, time, zlib
path, batch, level = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines = open(path, "rb").read().split(b"\n")[:-1]
per = 2 * batch  # action line + source line per document
bodies = [b"\n".join(lines[i:i + per]) + b"\n" for i in range(0, len(lines), per)]
ld = ctypes.CDLL("libdeflate.so.0")
ld.libdeflate_alloc_compressor.restype = ctypes.c_void_p
ld.libdeflate_alloc_compressor.argtypes = [ctypes.c_int]
ld.libdeflate_gzip_compress.restype = ctypes.c_size_t
ld.libdeflate_gzip_compress.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                        ctypes.c_void_p, ctypes.c_size_t]
ld.libdeflate_gzip_compress_bound.restype = ctypes.c_size_t
ld.libdeflate_gzip_compress_bound.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
comp = ld.libdeflate_alloc_compressor(level)
cap = ld.libdeflate_gzip_compress_bound(comp, max(map(len, bodies)))
out = ctypes.create_string_buffer(cap)
cpu_z, wire_z, cpu_d, wire_d = 0.0, 0, 0.0, 0
for b in bodies:
    t = time.process_time()
    z = zlib.compressobj(level, zlib.DEFLATED, 31)
    zo = z.compress(b) + z.flush()
    cpu_z += time.process_time() - t
    wire_z += len(zo)
    t = time.process_time()
    n = ld.libdeflate_gzip_compress(comp, b, len(b), out, cap)
    cpu_d += time.process_time() - t
    assert n > 0 and zlib.decompress(out.raw[:n], 31) == b
    wire_d += n
docs = len(bodies) * batch
payload = sum(map(len, bodies))
json.dump({"s_per_mdocs": cpu_d / docs * 1e6, "ratio": payload / wire_d,
           "zlib_s_per_mdocs": cpu_z / docs * 1e6, "zlib_ratio": payload / wire_z}, sys.stdout)
PY
}
for r in $(seq 1 "$ROUNDS"); do
    agent_run "agent-$r" --threads "$THREADS"
    reference "$r"
done
python3 - "$WORK" "$ROUNDS" "$BF_GZIP_LEVEL" "$BF_CONC" "$THREADS" "$(machine)" <<'PY'
import json, statistics, sys
work, rounds, level, conc, threads, machine = sys.argv[1:7]
ratios, agents, refs, zrefs = [], [], [], []
for r in range(1, int(rounds) + 1):
    a = json.load(open(f"{work}/agent-{r}.json"))
    ref = json.load(open(f"{work}/ref-{r}.json"))
    assert a["bad"] == 0, a
    s = a["cpu_s"] / a["docs"] * 1e6
    agents.append(s)
    refs.append(ref["s_per_mdocs"])
    ratios.append(s / ref["s_per_mdocs"])
    t = a["totals"]
    print(f"round {r}: agent {s:.2f} CPU s per million docs ({a['docs']:,} docs, {a['cpu_s']:.1f} s "
          f"CPU, {a['docs_per_s']:,.0f} docs/s, body {t['bytes_payload'] / t['req_ok'] / 2**20:.2f} "
          f"MiB -> libdeflate {ref['ratio']:.1f}x, zlib {ref['zlib_ratio']:.1f}x, peak RSS "
          f"{a['maxrss_kib'] / 1024:.0f} MiB); libdeflate alone {ref['s_per_mdocs']:.2f} s, zlib "
          f"alone {ref['zlib_s_per_mdocs']:.2f} s; ratio {s / ref['s_per_mdocs']:.2f}")
    zrefs.append(ref["zlib_s_per_mdocs"])
ratio = statistics.median(ratios)
print(f"machine: {machine}")
print(f"gzip-cost: level {level}, concurrency {conc}, {threads} threads: agent "
      f"{statistics.median(agents):.2f} CPU s per million docs, libdeflate alone "
      f"{statistics.median(refs):.2f} s (zlib alone {statistics.median(zrefs):.2f} s), ratio "
      f"{ratio:.2f} (median of {rounds}; min {min(ratios):.2f}, max {max(ratios):.2f}; "
      f"budget <= 1.15: {'PASS' if ratio <= 1.15 else 'FAIL'})")
PY
