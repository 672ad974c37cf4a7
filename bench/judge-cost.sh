#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# judge-cost — CPU time of the bulk response judge (common/es/bf_bulkresp.c) over a 5000-item
# errors:false response, this tree against BASE (default HEAD~1), interleaved ROUNDS times
# (default 5); prints each round and the median ratio this/BASE.
#
#   bench/judge-cost.sh [BASE] [ROUNDS]
#   env: BF_BUILD_DIR (default build/): a configured build whose proto/ holds the generated
#        bulkfleet.pb-c.[ch] (bf_errtypes, which the judge counts into, packs them)
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$BENCH_DIR/.." && pwd)
BASE=${1:-HEAD~1}
ROUNDS=${2:-5}
BUILD=${BF_BUILD_DIR:-$SRC/build}
[ -f "$BUILD/proto/bulkfleet.pb-c.c" ] ||
    { echo "judge-cost: $BUILD/proto/bulkfleet.pb-c.c missing: build the tree first (BF_BUILD_DIR)" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-judge.XXXXXX")
trap 'rm -rf "$W"' EXIT
# the judge lived in common/ and before that in agent/: BASE may be either
git -C "$SRC" show "$BASE:common/es/bf_bulkresp.c" > "$W/base.c" 2>/dev/null ||
    git -C "$SRC" show "$BASE:common/bf_bulkresp.c" > "$W/base.c" 2>/dev/null ||
    git -C "$SRC" show "$BASE:agent/bf_bulkresp.c" > "$W/base.c"
for v in base this; do
    f="$W/base.c"
    [ $v = this ] && f="$SRC/common/es/bf_bulkresp.c"
    gcc -O2 -D_GNU_SOURCE -I"$SRC/common/base" -I"$SRC/common/es" -I"$SRC/common/scenario" -I"$BUILD/proto" "$BENCH_DIR/bf_judgebench.c" "$f" \
        "$SRC/common/es/bf_errtypes.c" "$SRC/common/base/bf_mem.c" "$SRC/common/base/bf_error.c" \
        "$BUILD/proto/bulkfleet.pb-c.c" $(pkg-config --cflags --libs libprotobuf-c) \
        -o "$W/$v"
done
python3 - "$W" "$ROUNDS" "$BASE" <<'PY'
import re, statistics, subprocess, sys
w, rounds, base = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ratios = []
for r in range(rounds):
    t = {}
    for v in ("base", "this"):
        out = subprocess.run([f"{w}/{v}"], capture_output=True, text=True, check=True).stdout
        t[v] = float(re.search(r"best ([0-9.]+) ms", out).group(1))
    ratios.append(t["this"] / t["base"])
    print(f"round {r + 1}: {base} {t['base']:.3f} ms, this tree {t['this']:.3f} ms, ratio {ratios[-1]:.3f}")
print(f"judge-cost: this tree / {base} = {statistics.median(ratios):.3f} (median of {rounds})")
PY
