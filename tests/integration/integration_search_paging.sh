#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_search_paging — examples/deep-paging.yaml scaled down (prefill 5,000, pages of 100
# down to 2,000, warmup 1 s, duration 3 s, 1 and 3 shards) against the real test cluster:
# from/size and search_after (inside a point in time) side by side. Checks that both queries
# were measured without errors, that every page held the page size, that search_after ran
# inside a point in time (its kept answer carries a pit_id; from/size's does not) and that no
# point in time is left open, and that profile: true kept a Profile API answer per query and
# cell, summarised per phase in matrix.json, matrix.md and report.html.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
export BF_TARGET="$ES"
sed -e 's/^  prefill: 50000$/  prefill: 5000/' -e 's/depth: 5000/depth: 2000/' \
    -e 's/^  name: bf-deep-paging$/  name: bf-deep-paging-'$$'/' "$SRC/examples/deep-paging.yaml" > s.yaml
grep -q "prefill: 5000$" s.yaml && grep -q "depth: 2000" s.yaml || fail "could not scale the example down"
trap 'curl -sf -X DELETE "$ES/bf-deep-paging-$$" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
P=$(free_port)
t0=$(date +%s)
timeout 180 "$COORD" run s.yaml --local-agents 1 --threads 1 --insecure --warmup 1s --duration 3s \
    --bind "tcp://127.0.0.1:$P" --results r -q > out 2> err || { tail -30 err >&2; fail "campaign exit $?"; }
echo "campaign took $(( $(date +%s) - t0 )) s"
python3 - r <<'PY' || fail "rows"
import glob, json, os, re, sys
d = glob.glob(sys.argv[1] + "/*/")[0]
m = json.load(open(d + "matrix.json"))
assert len(m["rows"]) == 2, len(m["rows"])
for r in m["rows"]:
    assert r["verified"] is True and not r["failed"], (r["cell"], r["reason"])
    qs = {q["query"]: q for q in r["queries"]}
    assert list(qs) == ["from_size", "search_after"], list(qs)
    for n, q in qs.items():
        assert q["ops_ok"] > 0 and q["ops_error"] == 0 and q["errors"] == "", (r["cell"], n, q)
        assert q["service_count"] == q["ops_ok"], (r["cell"], n, q)
        # pages of 100 hits (5,000 documents, depth 2,000: every page is full)
        assert q["mean_hits"] == 100, (r["cell"], n, q["mean_hits"])
        assert q["profile_service_ms"] is not None and q["profile_service_ms"] > 0, q
        assert q["profile_rest_ms"] is not None and q["profile_shards"] >= 1, q
        assert 0 <= q["profile_rest_pct"] <= 100, q
        p = json.load(open("%sprofiles/%s-%s.json" % (d, r["cell"], n)))
        assert "profile" in p and p["profile"]["shards"], p.keys()
        # search_after pages ran inside a point in time; from/size pages did not
        assert ("pit_id" in p) == (n == "search_after"), (n, list(p))
    # sorted, paged queries: the cluster may skip shards, so the check is not exact (said so)
    assert r["search_verified"] is None and "not verified exactly" in r["reason"], r["reason"]
    print(r["cell"], {n: (q["ops_per_s"], q["service_p50_ms"], q["profile_rest_pct"]) for n, q in qs.items()})
md = open(d + "matrix.md").read()
assert "### Profile of the slowest sampled request" in md and "| from_size |" in md, md
h = open(d + "report.html").read()
assert 'id="profile"' in h and "search_after" in h
PY
pits=$(curl -sf "$ES/_search/point_in_time/_all" || echo '{"pits":"?"}')
python3 -c 'import json,sys; p=json.loads(sys.argv[1])["pits"]; assert p == [], p' "$pits" ||
    fail "points in time left open: $pits"
pass "from/size and search_after with a point in time: both measured, full pages, profiles kept, no point in time left"
