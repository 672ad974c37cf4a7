#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# size_cli — `bulkfleet-coordinator size` on a find-max results directory
# (tests/fixtures/results/findmax-450b: findmax.json and matrix.json as find-max writes them, one
# data node at replicas 0, 450-byte documents, a held step at 13200 docs/s whose row has the
# docs/s interval 12520-13840 around 13180): it says the bytes per document it measured, scales
# docs/s per node to --doc-bytes by bytes or refuses beyond 4x with both sizes and the bound,
# gives the node counts as a range from the intervals, and the shard plan. No cluster needed.
set -euo pipefail
BUILD=${BF_BUILD_DIR:?}
SRC=${BF_SOURCE_DIR:?}
COORD="$BUILD/coordinator/bulkfleet-coordinator"
FM="$SRC/tests/fixtures/results/findmax-450b"
T=$(mktemp -d "${TMPDIR:-/tmp}/bf-size.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 lacks: $2"; }; }

# 300000 docs/s of 1024-byte documents at replicas 1, from 450-byte ones at replicas 0 on one node:
# 300000 x 2 copies x 1024/450 / 13200 = 103.43 -> 104 nodes (45.45 -> 46 without the bytes)
rc=0
"$COORD" size --daily-gb 100 --days 30 --ram-gb 64 --peak-docs-s 300000 --find-max "$FM" \
    --results "$FM" --doc-bytes 1024 > "$T/out" 2> "$T/err" || rc=$?
[ "$rc" = 0 ] || { cat "$T/err"; fail "size: exit $rc"; }
has "$T/out" "measured documents: 450 bytes each (action + source line; median bytes_payload_ok_all / docs_ok_all of 3 rows)"
has "$T/out" "its interval 12539 to 13861 docs/s per data node: the docs/s interval of the held step's row fm-all-03"
has "$T/out" "bytes factor          = 1024 bytes per document sized / 450 bytes measured = 2.28"
has "$T/out" "ROUNDUP(300000 docs/s x 2.00 copies factor x 2.28 bytes factor / 13200 docs/s per data node) = 104 (103.43 before rounding)"
has "$T/out" "data nodes: 104 (ingest decides"
# ROUNDUP(300000 x 2 x 2.2756 / 13861) = 99, / 12539 = 109
has "$T/out" "data nodes range: 99 to 109 (ingest 99 to 109 at 13861 to 12539 docs/s per data node"
# raw-to-disk: median 1.12 of 1.10, 1.12, 1.15 (3 rows: the interval spans them)
has "$T/out" "raw-to-disk factor 1.120: median store_bytes_per_payload_byte of 3 rows"
has "$T/out" "(interval of the median 1.100 to 1.150)"
# shard plan: 112 GB of primaries a day -> 3 primaries, every 1.3 days, 300 GB with a replica
has "$T/out" "primaries per index   = MAX(1, ROUNDUP(112.0 GB / 50 GB)) = 3"
has "$T/out" "max_primary_shard_size 50gb: every 1.3 days, each index 3 x 50 GB = 150 GB of primaries, 300 GB with 1 replica"
has "$T/out" "daily volume on disk  = 112.0 GB x (1 + 1) = 224.0 GB with replicas"

# without --doc-bytes: the bytes are still said, and the rate taken for such documents
"$COORD" size --daily-gb 100 --days 30 --ram-gb 64 --peak-docs-s 300000 --find-max "$FM" \
    > "$T/out2"
has "$T/out2" "documents             = sized as measured, 450 bytes per document"
has "$T/out2" "= 46 (45.45 before rounding)"

# 2000-byte documents are 4.44x the measured 450: refused, exit 2, naming the bound
rc=0
"$COORD" size --daily-gb 100 --days 30 --ram-gb 64 --peak-docs-s 300000 --find-max "$FM" \
    --doc-bytes 2000 > "$T/out3" 2> "$T/err3" || rc=$?
[ "$rc" = 2 ] || fail "--doc-bytes 2000: exit $rc, expected 2"
has "$T/err3" "--doc-bytes 2000: documents 4.44x larger than the 450 bytes the rate was measured with"
has "$T/err3" "refused beyond 4x either way"
grep -q "data nodes" "$T/out3" && fail "--doc-bytes 2000: a node count was printed"

# --docs-per-node with --doc-bytes needs the measured bytes
rc=0
"$COORD" size --daily-gb 1 --days 1 --ram-gb 64 --peak-docs-s 1000 --docs-per-node 500 \
    --doc-bytes 800 > /dev/null 2> "$T/err4" || rc=$?
[ "$rc" = 2 ] || fail "--docs-per-node --doc-bytes: exit $rc, expected 2"
has "$T/err4" "give --measured-doc-bytes N"
"$COORD" size --daily-gb 1 --days 1 --ram-gb 64 --peak-docs-s 1000 --docs-per-node 500 \
    --doc-bytes 800 --measured-doc-bytes 400 > "$T/out5"
has "$T/out5" "ROUNDUP(1000 docs/s x 2.00 bytes factor / 500 docs/s per data node, taken as measured at replicas 1) = 4"

# --help names the new flags
"$COORD" size --help > "$T/help"
for w in --doc-bytes --measured-doc-bytes --shard-gb range; do has "$T/help" "$w"; done
echo "size_cli: ok"
