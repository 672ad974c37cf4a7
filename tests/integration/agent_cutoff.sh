#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# agent_cutoff — counts at the stop (notes2/fa.md: 140000 documents unknown over a cell whose row
# showed no abandoned request and no transport error). Against tests/support/fault_server.py,
# whose log has every bulk request the server read: every document sent ends in exactly one of
# ok / failed / rejected / unknown and every request in one outcome, in the row and in
# matrix.json, and the row says where the unknown ones came from:
#   tail     (coordinator) a server that never answers, request.timeout 2 s: every request
#            times out, the last ones after the window
#   cutoff   (coordinator) the same server, request.timeout 30 s, Ctrl-C 2 s into the load: the
#            requests in flight are abandoned by the Stop, booked, and the row says so
#   hangup   (standalone agent) a server that reads the request and hangs up on a reused
#            connection (close_reused): those documents are unknown (reset), never resent
#   goaway   (standalone agent) 429s under request.retry, then the server goes away: the
#            documents whose resend found no server end rejected, not without an outcome
#   kill9    (coordinator, 2 agents) kill -9 of one agent mid-cell: the server's count is
#            above the row's acknowledged documents, and the reason blames the lost agent
source "$(dirname "$0")/lib.sh"

trap 'stop_fs; cleanup_tmp' EXIT

# scenario NAME TIMEOUT WARMUP DURATION — 100 documents per request, 4 in flight
scenario() {
    cat > "$TMP/$1.yaml" <<YAML
name: $1
target: {hosts: ["http://127.0.0.1:$FS_PORT"]}
index: {name: cutoff-$1, recreate: true}
variables: [{name: id, type: sortable_id}]
document: {action: create, id: '\$[[id]]', source: '{"n": 1}'}
request: {timeout: $2}
run: {warmup: $3, duration: $4}
matrix: {batch_size: [100], concurrency: [4]}
YAML
}

# check NAME PYTHON — PYTHON runs with ROW (matrix.json's row), L (the server's bulk requests)
# and the identities asserted for every row
check() {
    python3 - "$RES" "$FS_LOG" "$2" <<'PY' || { cat "$TMP/$1.err" >&2; fail "$1"; }
import glob, json, sys
res, log, code = sys.argv[1:4]
ROW = json.load(open(glob.glob(res + "/matrix.json")[0]))["rows"][0]
L = [json.loads(l) for l in open(log) if l.strip()]
L = [r for r in L if r.get("bulk")]
def eq(what, got, want):
    assert got == want, f"{what}: {got}, want {want}; row {ROW}"
# every document sent in one outcome, every request in one, over the whole cell
eq("docs_sent_all (the server read)", ROW["docs_sent_all"], sum(r["docs"] for r in L))
eq("ok + failed + rejected + unknown", ROW["docs_ok_all"] + ROW["docs_failed_all"]
   + ROW["docs_rejected_all"] + ROW["docs_unknown_all"], ROW["docs_sent_all"])
eq("unknown by cause", ROW["docs_unknown_abandoned"] + ROW["docs_unknown_timeout"]
   + ROW["docs_unknown_reset"] + ROW["docs_unknown_bad_response"] + ROW["docs_unknown_http"],
   ROW["docs_unknown_all"])
eq("req_sent_all (the server read)", ROW["req_sent_all"], len(L))
eq("req_total_all", ROW["req_total_all"], ROW["req_sent_all"])
assert ROW["counts_ok"], ROW
# the window: no retries, so each second's documents are in one outcome too
eq("window docs", ROW["docs_ok"] + ROW["docs_failed"] + ROW["docs_rejected"]
   + ROW["docs_unknown"], ROW["docs_sent"])
eq("req_total", ROW["req_total"], ROW["req_ok"] + ROW["req_partial"] + ROW["req_http_error"]
   + ROW["req_transport_error"] + ROW["req_bad_response"])
assert "counts do not add up" not in ROW["reason"], ROW["reason"]
exec(code)
print(f"  {len(L)} requests, {ROW['docs_sent_all']} documents at the server; row: ok "
      f"{ROW['docs_ok_all']}, unknown {ROW['docs_unknown_all']} (abandoned "
      f"{ROW['docs_unknown_abandoned']}, timeout {ROW['docs_unknown_timeout']}, reset "
      f"{ROW['docs_unknown_reset']}), requests abandoned {ROW['req_abandoned']}")
PY
    pass "$1"
}

# wait_coord NAME — waits (at most 60 s, then kills it) for the coordinator; sets RC
wait_coord() {
    for _ in $(seq 1 600); do kill -0 "$CPID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$CPID" 2>/dev/null; then
        kill -9 -- "-$CPID" 2>/dev/null || true
        cat "$TMP/$1.err" >&2
        fail "$1: the coordinator hung (killed after 60 s)"
    fi
    RC=0; wait "$CPID" || RC=$?
}

coord() { # coord NAME — the coordinator with one local agent; sets CPID
    local p
    p=$(free_port)
    setsid "$COORD" run "$TMP/$1.yaml" --local-agents 1 --threads 2 --insecure \
        --bind "tcp://127.0.0.1:$p" --results "$TMP/res-$1" -q > "$TMP/$1.out" 2> "$TMP/$1.err" &
    CPID=$!
}

# ---- tail: every request times out, the last ones after the window -------------------------
start_fs stall tail
scenario tail 2s 1s 1s
coord tail
wait_coord tail
[ "$RC" = 1 ] || { cat "$TMP/tail.err" >&2; fail "tail: exit $RC, expected 1"; }
RES=$(ls -d "$TMP"/res-tail/*/ | head -1)
check tail '
eq("docs_ok_all", ROW["docs_ok_all"], 0)
eq("docs_unknown_timeout", ROW["docs_unknown_timeout"], ROW["docs_sent_all"])
eq("req_timeout_all", ROW["req_timeout_all"], len(L))
eq("req_abandoned", ROW["req_abandoned"], 0)
assert len(L) >= 4, len(L)
assert ROW["stalled"], ROW
assert "timed out (request.timeout; %d requests, " % len(L) in ROW["reason"], ROW["reason"]
assert "of them after the window)" in ROW["reason"], ROW["reason"]
'

# ---- cutoff: Ctrl-C with every request in flight --------------------------------------------
start_fs stall cutoff
scenario cutoff 30s 0s 20s
coord cutoff
for _ in $(seq 1 200); do [ "$(grep -c '"bulk": *true' "$FS_LOG")" -ge 4 ] && break; sleep 0.05; done
[ "$(grep -c '"bulk": *true' "$FS_LOG")" -ge 4 ] || { cat "$TMP/cutoff.err" >&2; fail "cutoff: no load"; }
sleep 1.5
kill -INT -- "-$(ps -o pgid= -p "$CPID" | tr -d ' ')"
wait_coord cutoff
[ "$RC" = 130 ] || { cat "$TMP/cutoff.err" >&2; fail "cutoff: exit $RC, expected 130"; }
RES=$(ls -d "$TMP"/res-cutoff/*/ | head -1)
check cutoff '
eq("requests at the server", len(L), 4)
eq("req_abandoned", ROW["req_abandoned"], 4)
eq("docs_unknown_abandoned", ROW["docs_unknown_abandoned"], 400)
eq("docs_unknown_all", ROW["docs_unknown_all"], 400)
# nothing was answered (stalled), but not "pending within request.timeout": interrupted
assert ROW["aborted"] and ROW["stalled"], ROW
assert "still pending when the load ended" not in ROW["reason"], ROW["reason"]
assert "4 were still in flight when the load was interrupted" in ROW["reason"], ROW["reason"]
assert "400 abandoned in flight when the load stopped (4 requests, cut off by the interruption)" \
    in ROW["reason"], ROW["reason"]
assert "keeps indexing a bulk request whose client went away" in ROW["reason"], ROW["reason"]
'

# ---- hangup: read, then hang up on a reused connection --------------------------------------
start_fs close_reused hangup
scenario hangup 5s 0s 2s
rc=0
timeout 60 "$AGENT" run "$TMP/hangup.yaml" --threads 2 --results "$TMP/res-hangup" \
    > "$TMP/hangup.out" 2> "$TMP/hangup.err" || rc=$?
[ "$rc" = 1 ] || { cat "$TMP/hangup.err" >&2; fail "hangup: exit $rc, expected 1"; }
RES=$(ls -d "$TMP"/res-hangup/*/ | head -1)
check hangup '
first = [r for r in L if r["conn_request"] == 1]
eq("docs_ok_all (answered first requests)", ROW["docs_ok_all"], sum(r["docs"] for r in first))
eq("docs_unknown_reset (hung up on)", ROW["docs_unknown_reset"],
   sum(r["docs"] for r in L if r["conn_request"] > 1))
assert ROW["docs_unknown_reset"] > 0, ROW
assert "in requests whose connection died after the body was written (reset)" in ROW["reason"]
'
# ---- goaway: 429s under request.retry, then the server goes away ------------------------------
# the retries of rejected documents find the port closed (connect refused: their resend waits
# for a connection) until the load ends: those documents end rejected, not sent without an
# outcome (they had none before the fix in give_up_retry)
start_fs reject429 goaway
scenario goaway 5s 0s 3s
sed -i 's/^request: {timeout: 5s}/request: {timeout: 5s, retry: {max: 20, backoff: 100ms}}/' "$TMP/goaway.yaml"
"$AGENT" run "$TMP/goaway.yaml" --threads 2 --results "$TMP/res-goaway" \
    > "$TMP/goaway.out" 2> "$TMP/goaway.err" &
APID=$!
for _ in $(seq 1 200); do [ "$(grep -c '"bulk": *true' "$FS_LOG")" -ge 8 ] && break; sleep 0.05; done
sleep 0.5
stop_fs
for _ in $(seq 1 300); do kill -0 "$APID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$APID" 2>/dev/null && { kill -9 "$APID"; fail "goaway: the agent hung"; }
rc=0; wait "$APID" || rc=$?
[ "$rc" = 1 ] || { cat "$TMP/goaway.err" >&2; fail "goaway: exit $rc, expected 1"; }
RES=$(ls -d "$TMP"/res-goaway/*/ | head -1)
python3 - "$RES" "$FS_LOG" <<'PY' || { cat "$TMP/goaway.err" >&2; fail "goaway"; }
import glob, json, sys
ROW = json.load(open(glob.glob(sys.argv[1] + "/matrix.json")[0]))["rows"][0]
L = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
L = [r for r in L if r.get("bulk")]
assert ROW["docs_ok_all"] == 0 and ROW["docs_unknown_all"] == 0, ROW
assert ROW["docs_rejected_all"] == ROW["docs_sent_all"] > 0, ROW
assert ROW["req_sent_all"] == ROW["req_total_all"] > len(L), (ROW, len(L))  # connect errors too
assert ROW["counts_ok"] and "counts do not add up" not in ROW["reason"], ROW["reason"]
print(f"  {len(L)} requests answered 429, {ROW['req_sent_all'] - len(L)} sends found the "
      f"port closed; {ROW['docs_rejected_all']} of {ROW['docs_sent_all']} documents rejected")
PY
pass "goaway"

# ---- kill9: an agent killed mid-cell ---------------------------------------------------------
# the server counts what it acknowledged (_count): the samples of the killed agent stop at its
# last second, so the count is above what the row reports, and the reason blames the lost
# agent, never "another writer"
start_fs ok kill9
scenario kill9 5s 0s 6s
P=$(free_port)
setsid "$COORD" run "$TMP/kill9.yaml" --local-agents 2 --threads 1 --insecure --lost 2s \
    --bind "tcp://127.0.0.1:$P" --results "$TMP/res-kill9" -q > "$TMP/kill9.out" 2> "$TMP/kill9.err" &
CPID=$!
for _ in $(seq 1 200); do [ "$(grep -c '"bulk": *true' "$FS_LOG")" -ge 50 ] && break; sleep 0.05; done
sleep 1
VICTIM=$(pgrep -P "$CPID" | tail -1)
[ -n "$VICTIM" ] || fail "kill9: no local agent"
kill -9 "$VICTIM"
wait_coord kill9
[ "$RC" = 1 ] || { cat "$TMP/kill9.err" >&2; fail "kill9: exit $RC, expected 1"; }
RES=$(ls -d "$TMP"/res-kill9/*/ | head -1)
python3 - "$RES" "$FS_LOG" <<'PY' || { cat "$TMP/kill9.err" >&2; fail "kill9"; }
import glob, json, sys
ROW = json.load(open(glob.glob(sys.argv[1] + "/matrix.json")[0]))["rows"][0]
L = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
L = [r for r in L if r.get("bulk")]
acked = sum(r["docs"] for r in L)  # mode ok: every document the server read is acknowledged
assert ROW["degraded"], ROW
assert ROW["docs_counted"] == acked, (ROW["docs_counted"], acked)
assert ROW["docs_ok_all"] == ROW["docs_sent_all"] <= acked, ROW
assert ROW["docs_counted"] > ROW["docs_ok_all"], ROW  # the killed agent's last seconds
assert "an agent was lost (degraded), and what it sent after its last sample is in no sample" \
    in ROW["reason"], ROW["reason"]
assert "another writer" not in ROW["reason"], ROW["reason"]
print(f"  server acknowledged {acked}, the samples report {ROW['docs_ok_all']}: "
      f"{acked - ROW['docs_ok_all']} from the killed agent's unreported seconds")
PY
pass "kill9"

# ---- kill9next: the next cell after a --local-agents agent died --------------------------------
# the coordinator does not restart it: the next cell waits (--wait), then the campaign stops
# with exit 3, and the message says why and what to do (the resume), as a Ctrl-C's does
start_fs ok kill9next
cat > "$TMP/kill9next.yaml" <<YAML
name: kill9next
target: {hosts: ["http://127.0.0.1:$FS_PORT"]}
index: {name: cutoff-kill9next, recreate: true}
variables: [{name: id, type: sortable_id}]
document: {action: create, id: '\$[[id]]', source: '{"n": 1}'}
request: {timeout: 5s}
run: {warmup: 0s, duration: 4s}
matrix: {batch_size: [100, 200], concurrency: [4]}
YAML
P=$(free_port)
setsid "$COORD" run "$TMP/kill9next.yaml" --local-agents 2 --threads 1 --insecure --lost 2s \
    --wait 1s --bind "tcp://127.0.0.1:$P" --results "$TMP/res-kill9next" -q \
    > "$TMP/kill9next.out" 2> "$TMP/kill9next.err" &
CPID=$!
for _ in $(seq 1 200); do [ "$(grep -c '"bulk": *true' "$FS_LOG")" -ge 50 ] && break; sleep 0.05; done
VICTIM=$(pgrep -P "$CPID" | tail -1)
[ -n "$VICTIM" ] || fail "kill9next: no local agent"
kill -9 "$VICTIM"
wait_coord kill9next
[ "$RC" = 3 ] || { cat "$TMP/kill9next.err" >&2; fail "kill9next: exit $RC, expected 3"; }
RES=$(ls -d "$TMP"/res-kill9next/*/ | head -1)
RES=${RES%/}
grep -q "fewer than 2 agents .* after waiting 1 s; .*an agent --local-agents started has exited and is not restarted, then continue with: bulkfleet-coordinator run --resume $RES\$" \
    "$TMP/kill9next.err" || { cat "$TMP/kill9next.err" >&2; fail "kill9next: the stop does not say what to do"; }
pass "kill9next"

pass "counts at the stop: every document and request in one outcome, the unknown ones by cause"
