#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# agent_faults — the agent engine against tests/support/fault_server.py, mostly through the
# standalone mode (`bulkfleet-agent run`, warmup 1 s + 3 s, request.timeout 2 s): every outcome
# is counted exactly as the server saw it (its log has one line per request with the item
# statuses, the headers and every _id), nothing hangs, the cells that must fail fail at once
# with a message that says what to do. Then the same scenario from the coordinator with two
# local agents: _ids unique across threads and agents, _count verified.
source "$(dirname "$0")/lib.sh"

trap 'pool_kill; stop_fs; cleanup_tmp' EXIT

# scenario NAME [extra YAML appended under request:] — a small scenario aimed at the fault
# server: 100 documents per request, 4 in flight, _id from sortable_id.
scenario() {
    local name=$1 request_extra=${2:-} hosts=${3:-"http://127.0.0.1:$FS_PORT"} run_extra=${4:-}
    cat > "$TMP/$name.yaml" <<YAML
name: $name
target:
  hosts: [$hosts]
index:
  name: faults-$name
  recreate: true
variables:
  - {name: id, type: sortable_id}
  - {name: n, type: range, from: 1, to: 1000}
  - {name: word, type: list, data: [alpha, "quote \" and \\\\ backslash", "{[brackets]}"]}
document:
  action: create
  id: \$[[id]]
  source: '{"n": \$[[n]], "word": "\$[[word]]"}'
request:
  timeout: 2s
$request_extra
run: {warmup: 1s, duration: 3s$run_extra}
matrix:
  batch_size: [100]
  concurrency: [4]
YAML
}

# run_agent NAME — standalone run with 2 threads; sets RC, ELAPSED (s), RES (results dir)
run_agent() {
    local name=$1 t0 t1
    rm -rf "$TMP/res-$name"
    t0=$(date +%s.%N)
    set +e
    timeout 60 "$AGENT" run "$TMP/$name.yaml" --threads 2 --results "$TMP/res-$name" \
        > "$TMP/$name.out" 2> "$TMP/$name.err"
    RC=$?
    set -e
    t1=$(date +%s.%N)
    ELAPSED=$(python3 -c "print(round($t1 - $t0, 1))")
    [ "$RC" -ne 124 ] || { cat "$TMP/$name.err" >&2; fail "$name: the agent hung (killed after 60 s)"; }
    RES=$(ls -d "$TMP/res-$name"/*/ 2>/dev/null | head -1)
}

# check NAME PYTHON — run PYTHON with A (the agent's totals over every sample), L (the server's
# bulk requests), ROW (the results row), ERR (the agent's stderr), RC, ELAPSED
check() {
    local name=$1
    python3 - "$RES" "$FS_LOG" "$TMP/$name.err" "$RC" "$ELAPSED" "$2" <<'PY' || { cat "$TMP/$name.err" >&2; fail "$name"; }
import glob, json, sys
res, log, errf, rc, elapsed, code = sys.argv[1:7]
rc, elapsed = int(rc), float(elapsed)
A, ROW = {}, {}
for f in glob.glob(res + "cells/*.ndjson"):
    for line in open(f):
        j = json.loads(line)
        if j["type"] == "row":
            ROW = j
        if j["type"] != "sample":
            continue
        for k, v in j.items():
            if isinstance(v, int) and not isinstance(v, bool) and k not in ("seq", "second"):
                A[k] = A.get(k, 0) + v
        for k, v in j.get("http_status", {}).items():
            A["http_" + k] = A.get("http_" + k, 0) + v
L = [json.loads(l) for l in open(log) if l.strip()]
L = [r for r in L if r.get("bulk")]
ERR = open(errf).read()
def items(status):
    return sum(r.get("item_status", {}).get(str(status), 0) for r in L)
def eq(what, got, want):
    assert got == want, f"{what}: agent {got}, want {want} (agent {A})"
exec(code)
keys = ("docs_sent", "docs_ok", "docs_rejected", "docs_mapping", "docs_conflict", "docs_unknown",
        "docs_retried", "req_timeout", "req_reset", "req_bad_response", "req_connect_error",
        "connections_opened", "rate_behind", "conn_wait")
print(f"  {len(L)} bulk requests at the server; exit {rc} after {elapsed} s; agent: "
      + ", ".join(f"{k} {A.get(k, 0)}" for k in keys if A.get(k, 0)))
PY
    pass "$name"
}
# The counting cases below compare the agent's counts with the server's log and nothing timed:
# they run three at a time (each with its own fault server, files and results under $TMP/NAME),
# so their fixed 4 s windows overlap. pooled NAME reads the case's code on stdin and runs it in
# a subshell in the background, at most POOL at once; pool_drain waits for every one, prints
# their output in the order they were started and fails with the first that failed. The cases
# with timed assertions (a cell that must end at once or on time, rates, latencies, the window
# split) run after it, one at a time, alone, as before.
POOL=3
POOL_NAMES=()
POOL_PIDS=()
pooled() {
    local name=$1 code
    code=$(cat)
    while [ "$(jobs -rp | wc -l)" -ge "$POOL" ]; do sleep 0.1; done
    (
        FS_PID=""
        trap 'stop_fs' EXIT
        eval "$code"
    ) > "$TMP/case-$name.txt" 2>&1 &
    POOL_PIDS+=($!)
    POOL_NAMES+=("$name")
}
pool_drain() {
    local i bad=""
    for i in "${!POOL_PIDS[@]}"; do
        if wait "${POOL_PIDS[$i]}"; then
            cat "$TMP/case-${POOL_NAMES[$i]}.txt"
        else
            cat "$TMP/case-${POOL_NAMES[$i]}.txt" >&2
            bad=${bad:-${POOL_NAMES[$i]}}
        fi
    done
    POOL_PIDS=()
    POOL_NAMES=()
    [ -z "$bad" ] || fail "$bad (see its output above)"
}
pool_kill() {
    local p
    for p in "${POOL_PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
}

# ---- item classes, exactly as the server answered -------------------------------------------
pooled mixed <<'CASE'
start_fs mixed mixed
scenario mixed
run_agent mixed
check mixed '
assert rc == 1, f"exit {rc}: failed documents make the row unclean, as in the coordinator"
assert len(L) > 10, "too few requests"
eq("docs_sent", A["docs_sent"], sum(r["docs"] for r in L))
eq("docs_ok", A["docs_ok"], items(201))
eq("docs_rejected (429 items)", A["docs_rejected"], items(429))
eq("docs_mapping (400 items)", A["docs_mapping"], items(400))
eq("docs_conflict (409 items)", A["docs_conflict"], items(409))
eq("docs_unknown", A["docs_unknown"], 0)
eq("req_partial", A["req_partial"], len(L))
eq("connections_opened", A["connections_opened"], len({r["conn"] for r in L}))
assert A["connections_opened"] == 4, A["connections_opened"]
assert ROW["verified"], "the server counts what the agent saw acknowledged"
assert "es_rejected_execution_exception" in ERR, "the first item error is logged"
T = {e["type"]: e for e in ROW["doc_errors"]}
eq("doc_errors types", sorted(T), ["es_rejected_execution_exception", "mapper_parsing_exception",
                                   "version_conflict_engine_exception"])
eq("doc_errors es_rejected_execution_exception", T["es_rejected_execution_exception"]["docs"], items(429))
eq("doc_errors mapper_parsing_exception", T["mapper_parsing_exception"]["docs"], items(400))
eq("doc_errors version_conflict_engine_exception", T["version_conflict_engine_exception"]["docs"], items(409))
assert T["mapper_parsing_exception"]["reason"].startswith("failed to parse field [value] of type [long]"), T
eq("docs_429 (every rejection)", A["docs_429"], items(429))
'
CASE

# ---- 429 items retried (max 2): every rejection is either retried or final ------------------
pooled retry <<'CASE'
start_fs mixed retry
scenario retry "  retry: {max: 2, backoff: 50ms}"
run_agent retry
check retry '
assert rc == 1, f"exit {rc}: failed documents make the row unclean, as in the coordinator"
eq("documents the server received", A["docs_sent"] + A["docs_retried"], sum(r["docs"] for r in L))
eq("429 items seen", A["docs_rejected"] + A["docs_retried"], items(429))
eq("docs_ok", A["docs_ok"], items(201))
eq("docs_mapping", A["docs_mapping"], items(400))
eq("docs_conflict", A["docs_conflict"], items(409))
assert A["docs_retried"] > 0
sizes = sorted({r["docs"] for r in L})
assert sizes[0] < 100 and 100 in sizes, f"retries carry only the rejected documents: {sizes}"
eq("every document has one verdict", A["docs_ok"] + A["docs_rejected"] + A["docs_mapping"]
   + A["docs_conflict"] + A["docs_unknown"], A["docs_sent"])
# the first rejections of documents accepted on a retry are counted too
eq("docs_429: every 429 item the server sent, retried or not", A["docs_429"], items(429))
assert A["docs_429"] > A["docs_rejected"], A
T = {e["type"]: e["docs"] for e in ROW["doc_errors"]}
eq("doc_errors es_rejected_execution_exception, every attempt", T["es_rejected_execution_exception"], items(429))
'
CASE

# ---- the same from a corpus, gzip: contiguous bodies, 429 items retried ---------------------
# (bulk format with the file's _ids: a body is a range of the corpus compressed in place; a
# retry carries only the rejected documents, so it is built from the range's bytes)
pooled retrycorpus <<'CASE'
python3 - "$TMP/retry-corpus.json" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(1000):
        f.write(json.dumps({"index": {"_id": "c-%d" % i}}) + "\n" + json.dumps({"n": i}) + "\n")
PY
start_fs mixed retrycorpus
cat > "$TMP/retrycorpus.yaml" <<YAML
name: retrycorpus
target: {hosts: ["http://127.0.0.1:$FS_PORT"]}
index: {name: faults-retrycorpus, recreate: true}
document: {action: create, corpus: {path: retry-corpus.json, format: bulk}}
request: {timeout: 2s, compression: gzip, retry: {max: 2, backoff: 50ms}}
run: {warmup: 1s, duration: 3s}
matrix: {batch_size: [100], concurrency: [4]}
YAML
run_agent retrycorpus
check retrycorpus '
assert "contiguous corpus bodies" in ERR, ERR
assert all(r["content_encoding"] == "gzip" for r in L), "every body gzip"
eq("documents the server received", A["docs_sent"] + A["docs_retried"], sum(r["docs"] for r in L))
eq("429 items seen", A["docs_rejected"] + A["docs_retried"], items(429))
eq("docs_ok", A["docs_ok"], items(201))
eq("docs_mapping", A["docs_mapping"], items(400))
eq("docs_conflict", A["docs_conflict"], items(409))
assert A["docs_retried"] > 0
sizes = sorted({r["docs"] for r in L})
assert sizes[0] < 100 and 100 in sizes, f"retries carry only the rejected documents: {sizes}"
# a full request is 100 consecutive documents of a thread slice (wrapping at its end); a
# retry holds the 4th, 14th, ... of the request before it (mixed: item i % 10 == 3 is a 429)
ids = [r["ids"] for r in L]
assert all(x.startswith("c-") and 0 <= int(x[2:]) < 1000 for l in ids for x in l), "the file ids"
full = [l for l in ids if len(l) == 100]
assert full and all(int(l[k + 1][2:]) == (int(l[k][2:]) + 1) or int(l[k + 1][2:]) in (0, 500)
                    for l in full for k in range(99)), "consecutive documents"
retried = [l for l in ids if len(l) < 100]
tens = {tuple(l[3::10]) for l in full}
assert any(tuple(l) in tens for l in retried), "a retry carries the rejected documents"
eq("every document has one verdict", A["docs_ok"] + A["docs_rejected"] + A["docs_mapping"]
   + A["docs_conflict"] + A["docs_unknown"], A["docs_sent"])
'
CASE

# ---- whole-request 429 ---------------------------------------------------------------------
pooled r429 <<'CASE'
start_fs reject429 r429
scenario r429
run_agent r429
check r429 '
# nothing acknowledged: the cell is not verified (0 counted = 0 acknowledged), so exit 1
assert rc == 1, f"exit {rc}"
eq("HTTP 429", A["http_429"], len(L))
eq("docs_rejected", A["docs_rejected"], sum(r["docs"] for r in L))
eq("docs_sent", A["docs_sent"], A["docs_rejected"])
eq("docs_ok", A["docs_ok"], 0)
assert ROW["http_429"] > 0 and ROW["docs_rejected"] > 0, ROW
assert "HTTP 429" in ERR and "rejected execution" in ERR, ERR
'
CASE

# ---- whole-request 503 from the cluster: failed (5xx); 502 from a proxy: unknown ------------
pooled r503 <<'CASE'
start_fs unavailable r503
scenario r503
run_agent r503
check r503 '
eq("HTTP 503", A["http_503"], len(L))
eq("docs_failed_5xx", A["docs_failed_5xx"], sum(r["docs"] for r in L))
eq("docs_ok", A["docs_ok"], 0)
eq("docs_unknown", A["docs_unknown"], 0)
assert "HTTP 503" in ERR and "cluster_manager_not_discovered_exception" in ERR, ERR
'
CASE
pooled r502 <<'CASE'
start_fs bad_gateway r502
scenario r502
run_agent r502
check r502 '
eq("HTTP 502", A["http_502"], len(L))
eq("docs_unknown (a proxy answered: the upstream may have indexed them)", A["docs_unknown"],
   sum(r["docs"] for r in L))
eq("docs_ok", A["docs_ok"], 0)
eq("docs_failed_5xx", A.get("docs_failed_5xx", 0), 0)
assert ROW["docs_unknown"] > 0 and ROW["doc_error_rate"] == 1.0, ROW
assert "HTTP 502" in ERR, ERR
'
CASE

# ---- reset mid-request: outcome unknown, a new connection each time --------------------------
pooled reset <<'CASE'
start_fs reset reset
scenario reset
run_agent reset
check reset '
assert rc == 1, f"exit {rc}: unknown documents, no answer: errors, stalled"
assert ROW["stalled"] and "stalled" in ROW["reason"], ROW
eq("req_reset", A["req_reset"], len(L))
eq("docs_unknown", A["docs_unknown"], A["docs_sent"])
eq("docs_sent", A["docs_sent"], sum(r["docs"] for r in L))
eq("docs_ok", A["docs_ok"], 0)
eq("connections_opened", A["connections_opened"], len({r["conn"] for r in L}))
assert A["connections_opened"] > 4, "a connection the server closed is opened again"
'
CASE

# ---- no silent resend: a reused connection that dies after the body, or stalls ---------------
# The first bulk request of each connection is answered; the next one on the same kept-alive
# connection is read whole and then the server closes (close_reused) or stalls past
# request.timeout (stall_reused). libcurl would resend such a body by itself on a fresh
# connection, and a timeout on a reused connection (connect time 0) looked like a connect
# failure and was resent: with action create and unique ids, no id may reach the server twice,
# and exactly the documents the server got but did not answer are unknown.
for mode in close_reused stall_reused; do
    pooled "$mode" <<'CASE'
    start_fs $mode $mode
    scenario $mode
    run_agent $mode
    check $mode '
assert rc == 1, f"exit {rc}: unknown documents make the row unclean"
ids = [i for r in L for i in r["ids"]]
assert len(ids) == len(set(ids)), f"{len(ids) - len(set(ids))} ids reached the server twice"
unanswered = [r for r in L if r.get("unanswered")]
assert len(unanswered) >= 4, f"only {len(unanswered)} unanswered requests"
eq("docs_unknown (read by the server, never answered)", A.get("docs_unknown", 0),
   sum(r["docs"] for r in unanswered))
eq("docs_ok", A["docs_ok"], sum(r["docs"] for r in L if r.get("status") == 200))
eq("docs_sent", A["docs_sent"], sum(r["docs"] for r in L))
eq("req_connect_error", A.get("req_connect_error", 0), 0)
eq("req_reset + req_timeout", A.get("req_reset", 0) + A.get("req_timeout", 0), len(unanswered))
eq("docs_retried", A.get("docs_retried", 0), 0)
'
CASE
done

# ---- a rare bad answer among bulk responses: counted unknown, the cell runs on -------------
pooled notjson-rare <<'CASE'
start_fs notjson_rare notjson-rare
scenario notjson-rare
run_agent notjson-rare
check notjson-rare '
assert not ROW["failed"], ROW
bad = sum(1 for r in L if r.get("status") == 200 and r.get("mode") == "notjson_rare" and
          "item_status" not in r)
assert bad >= 3, f"only {bad} bad answers: the test needs several"
eq("req_bad_response", A["req_bad_response"], bad)
eq("docs_unknown", A["docs_unknown"], 100 * bad)
eq("docs_ok", A["docs_ok"], items(201))
assert "not a bulk response" in ERR and "counted as unknown" in ERR, ERR
'
CASE

# ---- connect refused on one of two hosts: counted, nothing lost or counted twice ------------
pooled refused <<'CASE'
start_fs ok refused
DEAD=$(free_port)
scenario refused "" "http://127.0.0.1:$FS_PORT, http://127.0.0.1:$DEAD"
run_agent refused
check refused '
assert rc == 1, f"exit {rc}: connect errors are request errors, as in the coordinator"
assert A["req_connect_error"] > 0, A
eq("docs_sent", A["docs_sent"], sum(r["docs"] for r in L))
eq("docs_ok", A["docs_ok"], items(201) + items(200))
assert ROW["verified"], ROW
assert "cannot connect" in ERR, ERR
'
CASE

# ---- on the wire: framing and headers, uncompressed and gzip --------------------------------
# (gzip with filter_path: the query asks for small responses and keeps every item's status)
for comp in none gzip; do
    pooled "wire-$comp" <<'CASE'
    start_fs ok "wire-$comp"
    extra="  compression: $comp"
    [ "$comp" = gzip ] && extra="$extra
  filter_path: true"
    scenario "wire-$comp" "$extra"
    run_agent "wire-$comp"
    check "wire-$comp" '
comp = "'$comp'"
assert rc == 0, f"exit {rc}"
assert len(L) > 10
for r in L:
    assert r["method"] == "POST" and r["path"] == "/_bulk", r
    assert r["content_type_count"] == 1 and r["content_type"] == ["application/x-ndjson"], r
    # a template body without gzip is rendered as libcurl sends it: chunked
    if comp == "gzip":
        assert r["content_length_present"] and r["transfer_encoding"] is None, r
        assert r["content_length"] == r["body_bytes_wire"], r
    else:
        assert not r["content_length_present"] and r["transfer_encoding"] == "chunked", r
    assert not r["expect_present"], r
    assert r["body_ends_with_newline"] is True, r
    assert r["status"] == 200, r
    assert r["content_encoding"] == ("gzip" if comp == "gzip" else None), r
    assert r["user_agent"].startswith("bulkfleet-agent/"), r
    if comp == "gzip":
        assert "filter_path=" in r["query"] and "items.*.status" in r["query"], r["query"]
    else:
        assert r["query"] == "", r["query"]
ids = [i for r in L for i in r["ids"]]
assert len(ids) == len(set(ids)), "ids repeat across threads"
eq("docs_ok", A["docs_ok"], len(ids))
eq("bytes_payload", A["bytes_payload"], sum(r["body_bytes"] for r in L))
# wire = the bodies exactly as the server received them (compressed with gzip), no responses
eq("bytes_wire", A["bytes_wire"], sum(r["body_bytes_wire"] for r in L))
if comp == "gzip":
    assert A["bytes_payload"] > 2 * sum(r["body_bytes_wire"] for r in L), "gzip compresses"
assert ROW["verified"], ROW
'
CASE
done

# ---- headers: request.media_type elasticsearch8, one Content-Type and one Accept -------------
pooled es8 <<'CASE'
start_fs ok es8
scenario es8 "  media_type: elasticsearch8"
run_agent es8
check es8 '
assert rc == 0, f"exit {rc}"
assert len(L) > 10
for r in L:
    assert r["content_type"] == ["application/vnd.elasticsearch+x-ndjson; compatible-with=8"], r
    assert r["accept"] == ["application/vnd.elasticsearch+json; compatible-with=8"], r
    assert r["status"] == 200, r
assert ROW["verified"], ROW
'
CASE
pool_drain

# ---- 413: the cell fails at once and says why -----------------------------------------------
start_fs too_large large
scenario large
run_agent large
check large '
assert rc == 1, f"exit {rc}"
assert "HTTP 413" in ERR and "batch_size 100" in ERR and "bytes uncompressed" in ERR, ERR
assert ROW["failed"], ROW
assert elapsed < 4, f"a 413 must end the cell at once, took {elapsed} s"
assert A["http_413"] >= 1, A
'

# ---- 401: fails fast with the message ------------------------------------------------------
start_fs unauthorized auth
scenario auth
run_agent auth
check auth '
assert rc == 1, f"exit {rc}"
assert "HTTP 401" in ERR and "target.auth" in ERR and "missing authentication" in ERR, ERR
assert ROW["failed"] and "401" in ROW.get("reason", "401"), ROW
assert elapsed < 4, f"401 must end the cell at once, took {elapsed} s"
'

# ---- whole-request 400: every document failed (4xx), never ok, never unknown -------------
start_fs bad_request r400
scenario r400
run_agent r400
check r400 '
# a whole-request 400 is a configuration error: the cell ends at once, naming what to fix
assert rc == 1, f"exit {rc}"
assert ROW["failed"], ROW
assert elapsed < 4, f"a 400 must end the cell at once, took {elapsed} s"
assert A["http_400"] >= 1, A
# the requests in flight when the cell ended are abandoned: their documents are unknown
eq("docs failed or abandoned", A["docs_failed_4xx"] + A.get("docs_unknown", 0),
   sum(r["docs"] for r in L))
eq("docs_failed_4xx", A["docs_failed_4xx"], 100 * A["http_400"])
eq("docs_ok", A["docs_ok"], 0)
assert "HTTP 400" in ERR and "Malformed action/metadata line" in ERR, ERR
assert "document.source" in ERR, ERR
'

# ---- 404 (index gone, auto-create off): fails fast with what to do --------------------------
start_fs not_found r404
scenario r404
run_agent r404
check r404 '
assert rc == 1, f"exit {rc}"
assert "HTTP 404" in ERR and "index_not_found_exception" in ERR and "recreate" in ERR, ERR
assert ROW["failed"], ROW
assert elapsed < 4, f"404 must end the cell at once, took {elapsed} s"
'

# ---- configuration errors fail fast, naming the key to fix -----------------------------------
# (besides 401/403/404/413 above and the 400 of r400): 406, 411, a 500 json_parse_exception,
# and every item failing with one non-transient error end the cell within a second or two.
for spec in "not_acceptable:HTTP 406:request.media_type" "length_required:HTTP 411:proxy" \
            "json_parse:json_parse_exception:document.source" \
            "routing_missing:routing_missing_exception:document.routing"; do
    IFS=: read -r mode what key <<< "$spec"
    start_fs "$mode" "fast-$mode"
    scenario "fast-$mode"
    run_agent "fast-$mode"
    check "fast-$mode" "
assert rc == 1, f'exit {rc}'
assert ROW['failed'], ROW
assert elapsed < 4, f'the cell must end at once, took {elapsed} s'
assert '$what' in ERR and '$key' in ERR, ERR
assert A.get('docs_ok', 0) == 0, A
"
done

# ---- stall: timeouts counted, outcome unknown, the cell ends on time -----------------------
start_fs stall stall
scenario stall
run_agent stall
check stall '
assert rc == 1, f"exit {rc}: nothing answered in the window"
assert ROW["stalled"] and "no bulk request was answered" in ROW["reason"], ROW
eq("req_timeout", A["req_timeout"], len(L))
eq("docs_unknown", A["docs_unknown"], A["docs_sent"])
eq("docs_ok", A["docs_ok"], 0)
assert A["req_timeout"] >= 8, A
# warmup 1 s + duration 3 s + request.timeout 2 s, plus preparing and counting
assert elapsed < 9, f"the cell must end on time, took {elapsed} s"
'

# ---- the window holds what happened in it: slow requests straddle every boundary ------------
# 1-2 s per bulk request of 5000 documents on one connection, warmup 2 s + 6 s: the documents
# of a request are booked pro rata over its time in flight, so docs/s over the window is what
# the server had in hand in that window (its t_recv..t_reply, pro rata), within 2 %; booked
# whole at completion it was off by up to a request (5000 of ~20000). Every second's docs_ok is
# at most its docs_sent.
start_fs slow window
cat > "$TMP/window.yaml" <<YAML
name: window
target: {hosts: ["http://127.0.0.1:$FS_PORT"]}
index: {name: faults-window, recreate: true}
variables:
  - {name: id, type: sortable_id}
document:
  action: create
  id: \$[[id]]
  source: '{"n": 1}'
request: {timeout: 10s}
run: {warmup: 2s, duration: 6s}
matrix: {batch_size: [5000], concurrency: [1]}
YAML
rm -rf "$TMP/res-window"; set +e
timeout 60 "$AGENT" run "$TMP/window.yaml" --threads 1 --results "$TMP/res-window" \
    > "$TMP/window.out" 2> "$TMP/window.err"; rc=$?; set -e; [ $rc -le 1 ] || { cat "$TMP/window.err" >&2; fail "window: exit $rc"; }
python3 - "$TMP/res-window" "$FS_LOG" <<'PY' || { cat "$TMP/window.err" >&2; fail "window"; }
import glob, json, sys
res, log = sys.argv[1:3]
L = [json.loads(l) for l in open(log) if l.strip()]
L = [r for r in L if r.get("bulk") and r.get("t_reply")]
samples, row = [], None
for f in glob.glob(res + "/*/cells/*.ndjson"):
    for line in open(f):
        j = json.loads(line)
        if j["type"] == "row":
            row = j
        elif j["type"] == "sample":
            samples.append(j)
assert row and len(L) >= 5, (row, len(L))
W, D = 2.0, 6.0
t0 = min(r["t_recv"] for r in L)  # one connection, closed loop: the first request leaves at t=0
lo, hi = t0 + W, t0 + W + D
truth = 0.0
for r in L:
    a, b = r["t_recv"], r["t_reply"]
    truth += r["docs"] * max(0.0, min(b, hi) - max(a, lo)) / (b - a)
got = row["docs_per_s"] * D
print(f"  window: agent {got:.0f} docs, server {truth:.0f} docs in hand ({len(L)} requests)")
assert abs(got - truth) <= 0.02 * truth, f"window docs {got:.0f} vs server {truth:.0f}"
for s in samples:
    assert s.get("docs_ok", 0) <= s.get("docs_sent", 0) + s.get("docs_retried", 0), s
PY
pass "window: docs/s over the window within 2 % of the server's"

# ---- open loop: the schedule is kept after a stall; latency from the intended send time -----
# 10 requests/s (of 10 documents) on one connection, the 30th request stalls 2 s: the ~20 requests due meanwhile
# go out back to back as soon as the connection is free, so latency max is about the stall
# and latency p50 stays at service p50 (the schedule caught up); a target of 5000 docs/s on
# one connection against a fast server is met within 2 %.
openloop() {
    local name=$1 rate=$2 dur=$3 recreate=${4:-true} batch=${5:-100}
    cat > "$TMP/$name.yaml" <<YAML
name: $name
target: {hosts: ["http://127.0.0.1:$FS_PORT"]}
index: {name: faults-$name, recreate: $recreate}
variables:
  - {name: id, type: sortable_id}
document:
  action: create
  id: \$[[id]]
  source: '{"n": 1}'
request: {timeout: 5s}
run: {warmup: 1s, duration: $dur, target_rate: $rate}
matrix: {batch_size: [$batch], concurrency: [1]}
YAML
}

start_fs stall_once open-stall
openloop open-stall 100 8s true 10  # 10 documents a request: a fast answer on a busy host
run_agent open-stall
check open-stall '
assert rc == 0, f"exit {rc}"
lat, svc = ROW["latency_max_ms"], ROW["service_p50_ms"]
assert 1900 <= lat <= 2400, f"latency max {lat} ms, want about the 2 s stall"
# "about service p50": within 15 ms, what a busy 2-core test host may wake the loop late by
# (the agent that waited after a completion: latency p50 2023 ms, service p50 1.2 ms)
assert ROW["latency_p50_ms"] <= svc + 15, (ROW["latency_p50_ms"], svc)
assert abs(ROW["attempted_docs_per_s"] - 100) <= 2, ROW["attempted_docs_per_s"]
assert not ROW["target_missed"], ROW
'


# ---- not a bulk response: the cell fails at once, saying what came -------------
# A 200 that is an HTML page (a proxy's login page) is a configuration mistake: before, the
# agent kept sending (7649 requests of 10000 documents in a 4 s cell, all counted unknown).
start_fs notjson notjson
scenario notjson
run_agent notjson
check notjson '
assert rc == 1, f"exit {rc}"
assert ROW["failed"], ROW
# the warmup is 1 s and the load 3 s: a fail-fast cell ends within a second of its first answer
assert elapsed < 3, f"the cell must end at once, took {elapsed} s"
# at most the requests in flight when the first answer came: 2 threads x 2 slots, a few more
assert len(L) <= 8, f"{len(L)} requests sent after an answer that is no bulk response"
assert "not a bulk response" in ERR and "Content-Type text/html" in ERR, ERR
assert "first bytes \"<html><body>this is not JSON</body></html>\"" in ERR, ERR
assert "target.hosts" in ERR, ERR
# nothing is lost: every document sent is counted, unknown
eq("docs_unknown", A["docs_unknown"], A["docs_sent"])
eq("docs_sent", A["docs_sent"], sum(r["docs"] for r in L))
eq("docs_ok", A["docs_ok"], 0)
# the first answer came in the warmup: the row's window is empty, the whole cell's counts say it
assert ROW["docs_unknown_bad_response"] > 0 and ROW["req_transport_error"] == 0, ROW
'
pass "not a bulk response: the cell failed in ${ELAPSED} s with the Content-Type and first bytes"

# ---- open loop: the target is met, or the sample says it was not ---------------------------
start_fs ok rate-met
scenario rate-met "" "http://127.0.0.1:$FS_PORT" ", target_rate: 2000"
run_agent rate-met
check rate-met '
assert rc == 0, f"exit {rc}"
assert abs(ROW["docs_per_s"] - 2000) < 200, ROW["docs_per_s"]
requests = A["req_ok"] + A["req_partial"]
# a loaded test host may wake the loop late now and then; a met target is late rarely
# (at load average 18 on 2 cores, 3 to 10 of 80 requests left more than 10 ms late, with the
# agent too: an earlier bound was requests // 20 and flaked)
assert A["rate_behind"] <= requests // 4, (A["rate_behind"], requests)
eq("conn_wait", A["conn_wait"], 0)
'
start_fs ok rate-missed
scenario rate-missed "" "http://127.0.0.1:$FS_PORT" ", target_rate: 200k"
run_agent rate-missed
check rate-missed '
assert rc == 1, f"exit {rc}: target-missed"
assert ROW["docs_per_s"] < 100000, ROW["docs_per_s"]
assert A["rate_behind"] > 0 and A["conn_wait"] > 0, A
assert ROW["latency_p50_ms"] > 5 * ROW["service_p50_ms"], (ROW["latency_p50_ms"], ROW["service_p50_ms"])
# the row says the target was missed, with achieved vs target
assert ROW["target_missed"] and ROW["target_docs_per_s"] == 200000, ROW
assert "target-missed" in ROW["reason"] and "200000 docs/s target_rate" in ROW["reason"], ROW["reason"]
# regression: behind the target with every connection busy, the loop waits for a completion
# instead of spinning (it used a whole core)
assert ROW["agent_cpu_pct"] < 25, ROW["agent_cpu_pct"]
'

# the fast server is the benchmarks' nginx null sink (bench/lib.sh sink_start): it stores
# nothing (the row may be UNVERIFIED, exit 1) and says every index exists (recreate: false)
source "$SRC/bench/lib.sh"
trap 'pool_kill; stop_fs; bench_cleanup; cleanup_tmp' EXIT
FS_PORT=$(free_port)
sink_start "$FS_PORT" 100
FS_LOG="$TMP/open-fast.log"; : > "$FS_LOG"  # no server log: the row says it all
openloop open-fast 5000 3s false
run_agent open-fast
check open-fast '
assert rc in (0, 1), f"exit {rc}"
assert abs(ROW["docs_per_s"] - 5000) <= 100, (ROW["docs_per_s"], ROW["service_p50_ms"])
assert not ROW["target_missed"], ROW
'
bench_cleanup

# ---- two agents from the coordinator: ids unique across threads and agents -----------------
start_fs ok fleet
scenario fleet
PORT=$(free_port)
"$COORD" run "$TMP/fleet.yaml" --local-agents 2 --threads 2 --insecure \
    --bind "tcp://127.0.0.1:$PORT" --results "$TMP/res-fleet" -q > "$TMP/fleet.out" 2> "$TMP/fleet.err" || {
    cat "$TMP/fleet.err" >&2; fail "coordinator exited with $?"; }
python3 - "$FS_LOG" "$TMP/res-fleet" <<'PY' || fail "fleet ids"
import csv, glob, json, sys
L = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
L = [r for r in L if r.get("bulk")]
ids = [i for r in L for i in r["ids"]]
assert len(ids) > 1000 and len(ids) == len(set(ids)), f"{len(ids) - len(set(ids))} repeated ids"
clients = {r["client"].split(":")[0] for r in L}
conns = {r["conn"] for r in L}
assert len(conns) == 4, f"4 connections in all (2 agents x concurrency share), got {len(conns)}"
row = list(csv.DictReader(open(glob.glob(sys.argv[2] + "/*/matrix.csv")[0])))[0]
assert row["verified"] == "true" and int(row["docs_counted"]) == len(ids), row
assert row["agents"] == "2", row
print(f"{len(ids)} unique ids from 2 agents over {len(conns)} connections")
PY
pass "fleet: ids unique across threads and agents, _count verified"
