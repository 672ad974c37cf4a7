#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_search_mixed — examples/search-mixed.yaml scaled down (warmup 1 s, duration 3 s,
# prefill 2,000) against the real test cluster with 2 agents: search alone, both, indexing
# alone. Checks that every row is verified; that each query's histogram counts equal the
# answers counted in the window and its per-second series adds up to what the agents counted;
# that the open-loop rate is near its target; that the mixed cell shows indexing and search side
# by side with the mutual-cost findings; and that a bad query (syntax error, missing index)
# fails its cell fast with the query's name and the cluster's reason.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
export BF_TARGET="$ES"
sed -e 's/^  prefill: 20000 /  prefill: 2000 /' -e 's/^  name: bf-search-mixed$/  name: bf-search-mixed-'$$'/' \
    "$SRC/examples/search-mixed.yaml" > s.yaml
grep -q "prefill: 2000 " s.yaml || fail "could not scale the prefill down"
trap 'curl -sf -X DELETE "$ES/bf-search-mixed-$$*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
P=$(free_port)
t0=$(date +%s)
timeout 180 "$COORD" run s.yaml --local-agents 2 --threads 1 --insecure --warmup 1s --duration 3s \
    --bind "tcp://127.0.0.1:$P" --results r -q > out 2> err || { tail -30 err >&2; fail "campaign exit $?"; }
echo "campaign took $(( $(date +%s) - t0 )) s"
grep -q "prefilled 2000 documents" err || { cat err >&2; fail "no prefill logged"; }
python3 - r <<'PY' || fail "rows"
import csv, glob, json, sys
d = glob.glob(sys.argv[1] + "/*/")[0]
m = json.load(open(d + "matrix.json"))
rows = {(r["concurrency"], r["search_clients"]): r for r in m["rows"]}
assert set(rows) == {(0, 2), (4, 2), (4, 0)}, rows.keys()
for k, r in rows.items():
    assert r["verified"] is True, (k, r["docs_counted"], r["docs_ok_all"], r["reason"])
    assert not r["failed"], (k, r["reason"])
alone, both, index_only = rows[(0, 2)], rows[(4, 2)], rows[(4, 0)]
assert alone["docs_per_s"] == 0 and alone["docs_ok_all"] == 0, alone
assert both["docs_per_s"] > 0 and index_only["docs_per_s"] > 0
assert index_only["queries"] == [], index_only["queries"]
names = ["term_status", "match_message", "agg_methods", "count_errors"]
for k in ((0, 2), (4, 2)):
    r = rows[k]
    qs = {q["query"]: q for q in r["queries"]}
    assert list(qs) == names, list(qs)
    total = 0.0
    # the per-second series of each query, from the cell's ndjson
    series = {n: 0 for n in names}
    for line in open(d + "cells/" + r["cell"] + ".ndjson"):
        o = json.loads(line)
        if o.get("type") == "second":
            for n, v in o.get("query_ops", {}).items():
                series[n] += v
    for n, q in qs.items():
        assert q["ops_ok"] > 0, (k, n, q)
        assert q["ops_error"] == 0 and q["errors"] == "", (k, n, q)
        # every answer in the window is in the service-time histogram, none twice
        assert q["service_count"] == q["ops_ok"] + q["ops_error"], (k, n, q)
        assert q["latency_count"] == q["service_count"], (k, n, q)
        # the per-second series adds up to every answer the agents counted
        assert series[n] == q["ops_ok_all"] >= q["ops_ok"], (k, n, series[n], q)
        assert q["mean_hits"] > 0, (k, n, q)
        assert q["service_p50_ms"] is not None and q["took_mean_ms"] is not None or n == "count_errors", q
        total += q["ops_per_s"]
    # open loop at 20 queries/s across both agents: never above it; alone (an idle cluster)
    # near it, beside indexing it may fall behind (latency then counts the wait)
    assert total <= 24 and (k != (0, 2) or total >= 10), (k, total)
    # the cluster's query phases on the index during the load = the clients' answered searches
    # x 1 shard (no sorted or paged query here: the check is exact)
    assert r["search_verified"] is True, (k, r["search_shard_queries"], r["search_shard_queries_expected"], r["reason"])
    assert r["search_shard_queries"] == sum(q["ops_ok_all"] for q in qs.values()), r
    print(k, "queries/s", round(total, 1), {n: qs[n]["ops_ok"] for n in names},
          "cluster query phases", r["search_shard_queries"])
qrows = list(csv.DictReader(open(d + "queries.csv")))
assert len(qrows) == 8, len(qrows)
md = open(d + "matrix.md").read()
assert "## Search" in md and "| term_status |" in md, md
assert "indexing under search (2 search clients" in md, md
assert "query term_status under indexing (concurrency 4" in md, md
assert any("indexing under search" in l for l in m["search_findings"]), m.get("search_findings")
print("findings:", m["search_findings"][0])
# report.html: the query ladder, queries per second and the mixed-workload charts, with data
import re
h = open(d + "report.html").read()
for chart in ("query_latency", "query_per_second", "mixed_docs", "mixed_p90"):
    assert 'data-chart="%s"' % chart in h, chart
data = json.loads(re.search(r'<script type="application/json" id="bf-data">(.*?)</script>', h, re.S).group(1))
ql = data["charts"]["query_latency"]
assert len(ql) == 8 and {q["query"] for q in ql} == set(names), ql
mix = {(x["concurrency"], round(x["queries_per_s"], 3)) for x in data["charts"]["mixed"]}
assert len(data["charts"]["mixed"]) == 3, data["charts"]["mixed"]
assert "indexing under search" in h
PY
# a bad query fails its cell fast, naming the query and the cluster's reason
for bad in 'syntax|{"query": {"no_such_query": {}}}|/{index}/_search|parsing_exception' \
           'missing|{"query": {"match_all": {}}}|/bf-no-such-index-'$$'/_search|index_not_found_exception'; do
    IFS='|' read -r qname body path want <<< "$bad"
    python3 - s.yaml "$qname" "$body" "$path" > b.yaml <<'PY'
import re, sys
t = open(sys.argv[1]).read()
i = t.index("  queries:\n")
j = t.index("request:")
q = "  queries:\n    - {name: %s, path: \"%s\", body: '%s'}\n" % (sys.argv[2], sys.argv[4], sys.argv[3])
t = t[:i] + q + t[j:]
t = re.sub(r"(?ms)^matrix:.*", "matrix:\n  concurrency: [0]\n  search_clients: [1]\n", t)
print(t, end="")
PY
    P=$(free_port)
    s0=$(date +%s)
    rc=0
    timeout 120 "$COORD" run b.yaml --local-agents 1 --threads 1 --insecure --warmup 1s --duration 10s \
        --bind "tcp://127.0.0.1:$P" --results rb-$qname -q > bo 2> be || rc=$?
    el=$(( $(date +%s) - s0 ))
    [ "$rc" = 1 ] || { tail -20 be >&2; fail "$qname: exit $rc, want 1 (cell failed)"; }
    python3 - rb-$qname "$qname" "$want" <<'PY' || fail "$qname: the failed row"
import glob, json, sys
r = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]
assert r["failed"] is True, r
assert "search query '%s'" % sys.argv[2] in r["reason"] and sys.argv[3] in r["reason"], r["reason"]
print(sys.argv[2], "->", r["reason"][:160])
PY
    # fast: the load was 11 s; the cell must stop at the first answer (prefill and setup aside)
    [ "$el" -lt 11 ] || fail "$qname: the cell took $el s, not stopped at the first bad answer"
done
pass "search alone, both and indexing alone: verified rows, per-query counts add up, findings; bad queries fail fast"
