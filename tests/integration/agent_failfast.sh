#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# agent_failfast — a cell that fails at once against the scripted fault
# server: every item 400 mapper_parsing_exception, a whole-request 406, 413 and 401; each in
# warmup (warmup 2 s: the cell ends before its window begins) and in the window (warmup 0 s).
# The row reports its errors over what it sent (doc errors 100 %, the *_all outcome), is
# FAILED with the agent's reason, never "stalled", never "few-requests" nor "lengthen
# run.duration", and says why its rates are over the whole cell when the window was empty.
source "$(dirname "$0")/lib.sh"

trap 'stop_fs; cleanup_tmp' EXIT

for spec in "mapper_parsing:mapper_parsing_exception:0" "not_acceptable:HTTP 406:1" \
            "too_large:HTTP 413:1" "unauthorized:HTTP 401:1"; do
    IFS=: read -r mode what http <<< "$spec"
    for warmup in 2s 0s; do
        name="$mode-w$warmup"
        start_fs "$mode" "$name"
        cat > "$TMP/$name.yaml" <<YAML
name: $name
target: {hosts: ["http://127.0.0.1:$FS_PORT"]}
index: {name: failfast, recreate: true}
variables:
  - {name: n, type: range, from: 1, to: 1000}
document: {action: index, source: '{"n": \$[[n]]}'}
request: {timeout: 2s}
run: {warmup: $warmup, duration: 3s}
matrix: {batch_size: [100], concurrency: [2]}
YAML
        rm -rf "$TMP/res-$name"
        set +e
        timeout 60 "$AGENT" run "$TMP/$name.yaml" --threads 1 --results "$TMP/res-$name" \
            > "$TMP/$name.out" 2> "$TMP/$name.err"
        rc=$?
        set -e
        [ "$rc" -ne 124 ] || fail "$name: the agent hung"
        res=$(ls -d "$TMP/res-$name"/*/ | head -1)
        # the results directory is announced before the load, as the coordinator does
        grep -qF "results: ${res%/} (if this run is interrupted: the cells it finished stay there; run each one left with bulkfleet-agent run $TMP/$name.yaml --cell ID --results $TMP/res-$name)" "$TMP/$name.err" ||
            { cat "$TMP/$name.err" >&2; fail "$name: the results directory was not announced at the start"; }
        python3 - "$res" "$FS_LOG" "$warmup" "$what" "$http" "$rc" <<'PY' || { cat "$TMP/$name.err" >&2; fail "$name"; }
import glob, json, sys
res, log, warmup, what, http, rc = sys.argv[1:7]
rows = [json.loads(l) for f in glob.glob(res + "cells/*.ndjson") for l in open(f)]
row = [r for r in rows if r["type"] == "row"][0]
bulk = [json.loads(l) for l in open(log) if l.strip()]
bulk = [r for r in bulk if r.get("bulk")]
reason = row["reason"]
print(f"  {len(bulk)} bulk requests at the server; row: doc_error_rate {row['doc_error_rate']}, "
      f"request_error_rate {row['request_error_rate']}; reason: {reason}")
assert int(rc) == 1, f"exit {rc}"
assert row["failed"], row
assert what in reason, reason
assert bulk, "the server saw no bulk request"
assert row["docs_sent_all"] >= 100 and row["docs_ok_all"] == 0, row
assert row["doc_error_rate"] == 1.0, f"doc errors over what it sent: {row['doc_error_rate']}"
assert row["request_error_rate"] == float(http), row["request_error_rate"]
assert not row["stalled"] and "stalled" not in reason, reason
assert not row["few_requests"] and "few-requests" not in reason, reason
assert "lengthen run.duration" not in reason, reason
assert "agent-seconds missing" not in reason, reason
if warmup != "0s":
    assert "failed before its measurement window" in reason, reason
    assert f"{row['docs_sent_all']} of {row['docs_sent_all']} documents failed" in reason, reason
md = open(res + "matrix.md").read()
assert "| 100.00 |" in md, md
PY
        pass "$name"
    done
done
