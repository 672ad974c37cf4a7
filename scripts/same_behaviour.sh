#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# same_behaviour.sh — two builds of bulkfleet answer alike: the same stdout, stderr and exit code
# for every example scenario and every scenario fixture (validate, plan), every loadgen and Rally
# import fixture (import-loadgen, import-rally), and compare on the two fixture campaigns.
#
#   scripts/same_behaviour.sh OLD_BUILD NEW_BUILD
#
# OLD_BUILD and NEW_BUILD are build trees (each with coordinator/bulkfleet-coordinator); build
# the old one from a revision with, for example:
#   git worktree add /tmp/bf-old REV && cmake -S /tmp/bf-old -B /tmp/bf-old/build && \
#       cmake --build /tmp/bf-old/build -j2 --target bulkfleet-coordinator
# Both run in this source tree's folder with the same inputs; nothing touches a cluster (validate,
# plan and the importers read files only). Prints one line per case that differs, with the
# commands and a diff, then "same: N of N"; exit 0 when every case is the same, 1 when one is
# not, 2 on a usage error.
set -uo pipefail
[ $# = 2 ] || { echo "usage: $0 OLD_BUILD NEW_BUILD" >&2; exit 2; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
OLD=$1/coordinator/bulkfleet-coordinator
NEW=$2/coordinator/bulkfleet-coordinator
for b in "$OLD" "$NEW"; do
    [ -x "$b" ] || { echo "same_behaviour: $b missing: build it first" >&2; exit 2; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-same.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$SRC" || exit 2
n=0
differ=0
# run_case ARGS...: the command under both builds; outputs compared byte for byte
run_case() {
    n=$((n + 1))
    for v in old new; do
        bin=$OLD
        [ $v = new ] && bin=$NEW
        # the binary's own path appears in usage texts: name it the same for both
        (cd "$SRC" && env BF_SAME_BEHAVIOUR=1 "$bin" "$@" >"$W/$v.out" 2>"$W/$v.err"
         echo $? >"$W/$v.rc")
        # and libcurl's connect time to a port nobody listens on varies from run to run
        sed -i -e "s#$bin#bulkfleet-coordinator#g" -e 's/ after [0-9]* ms: / after N ms: /g' \
            "$W/$v.out" "$W/$v.err"
    done
    if ! cmp -s "$W/old.out" "$W/new.out" || ! cmp -s "$W/old.err" "$W/new.err" ||
        ! cmp -s "$W/old.rc" "$W/new.rc"; then
        differ=$((differ + 1))
        echo "DIFFERS: bulkfleet-coordinator $*"
        echo "  exit $(cat "$W/old.rc") -> $(cat "$W/new.rc")"
        diff "$W/old.out" "$W/new.out" | head -20 | sed 's/^/  stdout /'
        diff "$W/old.err" "$W/new.err" | head -20 | sed 's/^/  stderr /'
    fi
}
for f in examples/*.yaml tests/fixtures/scenarios/*.yaml; do
    run_case validate "$f"
    run_case plan "$f"
done
for f in tests/fixtures/loadgen/*.yml tests/fixtures/loadgen-shipped/loadgen.yml \
    tests/fixtures/loadgen-shipped/bulk.dsl; do
    run_case import-loadgen "$f"
done
for d in tests/fixtures/rally-*/; do
    run_case import-rally "${d%/}"
done
# the importers' options that change what they write
for f in tests/fixtures/loadgen/*.yml tests/fixtures/loadgen-shipped/loadgen.yml; do
    run_case import-loadgen "$f" -c 2 -d 3
done
# what no fixture has: headers, a pipeline, now_with_format, random_array, list data, -r, --compress
cat >"$W/extra.yml" <<'LG'
variables:
  - {name: id, type: sequence, from: 5, to: 100}
  - {name: ts, type: now_with_format, format: "2006-01-02T15:04:05"}
  - {name: n, type: range, from: 1, to: 9}
  - {name: arr, type: random_array, variable_key: n, size: 3, variable_type: number, square_bracket: true, string_bracket: "'"}
  - {name: word, type: list, data: ["yes", "a b", "it's", plain]}
requests:
  - request:
      method: POST
      url: https://127.0.0.1:9200/_bulk
      headers:
        - X-Test: "a: b"
        - on: "x"
      body: "{\"index\": {\"_index\": \"t1\", \"pipeline\": \"p1\", \"routing\": \"$[[n]]\"}}\n{\"id\": $[[id]], \"ts\": \"$[[ts]]\", \"a\": $[[arr]], \"w\": \"$[[word]]\"}\n"
  - request:
      method: GET
      url: https://127.0.0.1:9200/t1/_search?size=1
      body: "{\"query\": {\"match_all\": {}}}"
LG
run_case import-loadgen "$W/extra.yml" -r 50 --compress --name "it's mine"
run_case import-rally tests/fixtures/rally-jinja --list
run_case import-rally tests/fixtures/rally-jinja --challenge index-only
run_case import-rally tests/fixtures/rally-jinja \
    --track-params 'bulk_size:300,number_of_shards:3,refresh_interval:5s,source_enabled:false'
run_case import-rally tests/fixtures/rally-random-vector \
    --track-params 'paragraph_size:3,custom_routing:true,dims:16'
run_case import-rally tests/fixtures/rally-random-vector --track-params dims:0
run_case import-rally tests/fixtures/osb-vectorsearch
run_case import-rally tests/fixtures/osb-vectorsearch \
    --workload-params tests/fixtures/osb-vectorsearch/params/bigann.json
run_case import-rally tests/fixtures/osb-vectorsearch \
    --workload-params tests/fixtures/osb-vectorsearch/params/random.json \
    --test-procedure random-vector-index-merge-search
run_case compare tests/fixtures/results/shard-study-base tests/fixtures/results/shard-study-contender
run_case compare --csv tests/fixtures/results/shard-study-base \
    tests/fixtures/results/shard-study-contender
echo "same: $((n - differ)) of $n cases (stdout, stderr and exit code)"
[ $differ = 0 ]
