#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# agent_search_rate — one search client keeps an open-loop rate it has the time for: the fault server answers every _search after 2 ms; one client asked for 60 queries/s
# (12 % of its time busy) must start them when due, so the row is not search-rate-missed and
# started at least 98 % of the rate. Before, the client polled 50 ms on an idle descriptor after
# every answer and made about 18 queries/s whatever the rate. The queries/s one client makes
# against the service time is measured by bench/search-client.sh (bench/RESULTS.md).
source "$(dirname "$0")/lib.sh"
trap 'stop_fs; cleanup_tmp' EXIT
start_fs ok search --search-ms 2
cat > "$TMP/s.yaml" <<YAML
name: search-rate
target: {hosts: ["http://127.0.0.1:$FS_PORT"]}
index: {name: bf-search-rate, recreate: true}
variables: [{name: n, type: range, from: 1, to: 1000}]
document: {source: '{"n": \$[[n]]}'}
search:
  clients: 1
  target_rate: 60
  prefill: 0
  queries: [{name: term, body: '{"query": {"term": {"n": \$[[n]]}}}'}]
run: {warmup: 1s, duration: 3s}
matrix: {concurrency: [0], batch_size: 10}
YAML
set +e
timeout 60 "$AGENT" run "$TMP/s.yaml" --threads 1 --results "$TMP/r" > "$TMP/out" 2> "$TMP/err"
rc=$?
set -e
[ "$rc" -ne 124 ] || fail "the agent hung"
python3 - "$(ls "$TMP"/r/*/matrix.json)" <<'PY' || { cat "$TMP/err" >&2; fail "one client missed its rate"; }
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
q = row["queries"][0]
print(f"  1 client at 60/s: started {row['search_started_per_s']:.1f}/s, answered "
      f"{q['ops_per_s']:.1f}/s, service p50 {q['service_p50_ms']} ms, "
      f"search_rate_missed {row['search_rate_missed']}")
assert not row["search_rate_missed"], row["reason"]
assert row["search_started_per_s"] >= 0.98 * 60, row["search_started_per_s"]
assert q["ops_error"] == 0, q
PY
pass "one search client kept 60 queries/s against a 2 ms server"
