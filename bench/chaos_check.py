#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""chaos_check.py — the invariants of a chaos campaign (bench/chaos.sh).

A campaign's *history* is a plain dict (JSON), gathered by history_from() after the campaign:

  cells:     [{"id", "index"}]            every cell of the plan, with the index it writes
  rows:      {cell id: row}               the last results row of each cell (matrix.json
                                          rows / cells/<id>.ndjson line 1): docs_ok_all,
                                          docs_unknown_all, docs_counted, verified, failed,
                                          aborted, degraded, reason
  truth:     {index: documents}           what the target acknowledged (the fault server's
                                          _count: 2xx items, per index, since its last DELETE)
  samples:   {cell id: [[agent, seq]]}    every sample line written for the cell
  files:     [{"path", "bytes", "lines", "now_bytes", "now_lines", "now_complete"}]
                                          results files seen complete during the campaign and
                                          the same files at the end (now_bytes None: gone)
  processes: [{"pid", "what", "alive"}]   every process the campaign started
  faults:    [{"t", "kind", ...}]         the schedule (for the report only)

check(history) returns the violations (a list of strings; empty = every invariant holds):

  I1 counted at most once: a row's acknowledged documents (docs_ok_all) are at most what the
     target acknowledged for its index (more = a document counted twice, or counted ok that
     was not);
  I2 no silent loss: what the target acknowledged is at most the row's acknowledged plus its
     unknown documents, unless the row names a lost agent (degraded: that agent's documents
     in flight are named as a lost agent's);
  I3 rows honest: a verified row's count equals the target's truth and its acknowledged
     documents;
  I4 no complete results file lost or truncated: a file seen complete is still there, at
     least as long, every line whole JSON;
  I5 every cell ends finished, failed with a reason, or run again by --resume (its last row is
     one of the first two): no cell without a row, no aborted row, no failed row without a
     reason;
  I6 no process left running;
  I7 no sample written twice: (agent, seq) once per cell.

Usage: chaos_check.py HISTORY.json   prints every invariant and the violations, last line
"faults N, invariant violations V"; exit 0 when V is 0, 1 otherwise, 2 on unreadable input.
Python 3 stdlib only; no I/O outside history_from() and main().
"""

import json
import os
import sys

INVARIANTS = (
    ("I1", "each acknowledged document counted at most once (row ok <= target's count)"),
    ("I2", "no silent loss (target's count <= row ok + unknown, or a lost agent is named)"),
    ("I3", "no row verified whose count differs from the truth"),
    ("I4", "no results file that was complete is lost or truncated"),
    ("I5", "every cell ends finished, or failed with a reason"),
    ("I6", "no process left running"),
    ("I7", "no sample written twice"),
)


def _num(v):
    """A row figure as an int (None, missing or not a number: None)."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return int(v)
    return None


def check(h):
    """The violations of history h, each "Ik: what, where" (see the module text). Pure."""
    out = []
    rows = h.get("rows", {})
    truth = h.get("truth", {})
    for cell in h.get("cells", []):
        cid, index = cell["id"], cell.get("index")
        row = rows.get(cid)
        if row is None:
            out.append(f"I5: cell {cid} has no row (it never ended, and --resume did not run it)")
            continue
        if row.get("aborted"):
            out.append(f"I5: cell {cid} ends aborted ({row.get('reason') or 'no reason'})")
        if row.get("failed") and not (row.get("reason") or "").strip():
            out.append(f"I5: cell {cid} failed without a reason")
        ok = _num(row.get("docs_ok_all"))
        unknown = _num(row.get("docs_unknown_all")) or 0
        t = _num(truth.get(index)) if index is not None else None
        if ok is None:
            out.append(f"I5: cell {cid}: the row has no docs_ok_all")
            continue
        if t is None:
            if row.get("verified"):
                out.append(f"I3: cell {cid} is verified but the target has no count for "
                           f"index {index}")
            continue
        if ok > t:
            out.append(f"I1: cell {cid}: the row counts {ok} documents acknowledged, the target "
                       f"acknowledged {t} in {index} ({ok - t} counted twice or not indexed)")
        if t > ok + unknown and not row.get("degraded"):
            out.append(f"I2: cell {cid}: the target acknowledged {t} documents in {index}, the "
                       f"row has {ok} acknowledged + {unknown} unknown: {t - ok - unknown} lost "
                       f"silently (no lost agent named)")
        if row.get("verified"):
            counted = _num(row.get("docs_counted"))
            if counted != t or counted != ok:
                out.append(f"I3: cell {cid} is verified with docs_counted {counted} and "
                           f"{ok} acknowledged, the target holds {t} in {index}")
    for f in h.get("files", []):
        p = f["path"]
        if f.get("now_bytes") is None:
            out.append(f"I4: {p} was complete ({f['bytes']} bytes) and is gone")
        elif f["now_bytes"] < f["bytes"] or (f.get("now_lines") or 0) < (f.get("lines") or 0):
            out.append(f"I4: {p} was complete with {f['bytes']} bytes, {f.get('lines')} lines; "
                       f"now {f['now_bytes']} bytes, {f.get('now_lines')} lines (truncated)")
        elif not f.get("now_complete", True):
            out.append(f"I4: {p} ends in a line that is not whole JSON (truncated)")
    for pr in h.get("processes", []):
        if pr.get("alive"):
            out.append(f"I6: {pr.get('what', 'process')} pid {pr['pid']} is still running")
    for cid, samples in sorted(h.get("samples", {}).items()):
        seen, twice = set(), 0
        for agent, seq in samples:
            if (agent, seq) in seen:
                twice += 1
            seen.add((agent, seq))
        if twice:
            out.append(f"I7: cell {cid}: {twice} samples written twice (same agent and seq)")
    return out


def report(h, violations):
    """The printed result: one line per invariant (ok / VIOLATED), each violation, the schedule
    when there is a violation, and the last line "faults N, invariant violations V"."""
    lines = []
    for code, text in INVARIANTS:
        bad = [v for v in violations if v.startswith(code + ":")]
        lines.append(f"{code} {text}: {'VIOLATED' if bad else 'ok'}")
        lines.extend("  " + v for v in bad)
    faults = h.get("faults", [])
    if violations:
        lines.append(f"reproduce: bench/chaos.sh --seed {h.get('seed')} --faults "
                     f"{h.get('nfaults', len(faults))} --duration {h.get('duration')}; schedule:")
        lines.extend("  " + json.dumps(f, sort_keys=True) for f in faults)
    lines.append(f"faults {h.get('nfaults', len(faults))}, invariant violations {len(violations)}")
    return "\n".join(lines)


def _file_state(path):
    """(bytes, lines, whole): a results file now; (None, None, False) when it is gone."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None, None, False
    whole = True
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        whole = False  # no newline at the end
    for ln in lines:
        try:
            json.loads(ln)
        except ValueError:
            whole = False
            break
    return len(data), len(lines), whole


def snapshot(res_dir):
    """The complete results files of res_dir now: cells/<id>.ndjson whose first line is a row
    (the cell has ended), as [{"path", "bytes", "lines"}]."""
    out = []
    cdir = os.path.join(res_dir, "cells")
    if not os.path.isdir(cdir):
        return out
    for fn in sorted(os.listdir(cdir)):
        if not fn.endswith(".ndjson"):
            continue
        p = os.path.join(cdir, fn)
        b, n, whole = _file_state(p)
        if b and whole:
            out.append({"path": p, "bytes": b, "lines": n})
    return out


def history_from(res_dir, cells, truth, snapshots, processes, faults, **extra):
    """A history from a campaign's results directory: the rows and samples of cells/*.ndjson,
    the snapshots' files as they are now. cells: [{"id", "index"}]; truth: {index: n};
    snapshots: files from snapshot(), earlier ones first (the last sighting of a path is kept);
    processes: [{"pid", "what"}] (alive is read from /proc now); faults: the schedule."""
    rows, samples = {}, {}
    cdir = os.path.join(res_dir, "cells")
    for fn in sorted(os.listdir(cdir)) if os.path.isdir(cdir) else []:
        if not fn.endswith(".ndjson"):
            continue
        cid = fn[:-len(".ndjson")]
        s = []
        with open(os.path.join(cdir, fn)) as fh:
            for i, ln in enumerate(fh):
                try:
                    d = json.loads(ln)
                except ValueError:
                    continue
                if i == 0 and d.get("type") == "row":
                    rows[cid] = d
                elif d.get("type") == "sample":
                    s.append([d.get("agent"), d.get("seq")])
        samples[cid] = s
    files = {}
    for f in snapshots:
        files[f["path"]] = dict(f)
    for f in files.values():
        b, n, whole = _file_state(f["path"])
        f.update(now_bytes=b, now_lines=n, now_complete=whole)
    procs = []
    for p in processes:
        alive = False
        try:
            with open(f"/proc/{int(p['pid'])}/stat") as fh:
                alive = fh.read().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError, ValueError):
            alive = False
        procs.append(dict(p, alive=alive))
    h = {"cells": cells, "rows": rows, "truth": truth, "samples": samples,
         "files": list(files.values()), "processes": procs, "faults": faults}
    h.update(extra)
    return h


def main(argv):
    if len(argv) != 2:
        print("usage: chaos_check.py HISTORY.json", file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as fh:
            h = json.load(fh)
    except (OSError, ValueError) as exc:
        print(f"chaos_check: {argv[1]}: {exc}", file=sys.stderr)
        return 2
    v = check(h)
    print(report(h, v))
    return 0 if not v else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
