#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""soak_judge.py — the verdict of bench/soak.sh, on its output directory.

    soak_judge.py OUT RESULTS_DIR COORD_EXIT WALL_S ROW_BYTES T0_EPOCH_S
    soak_judge.py --row-bytes PLAN_OUTPUT    (prints ROW_BYTES from `plan`'s output)

OUT/soak.tsv: one probe a line (t_s, proc, pid, rss_kb, fds, threads; t_s from T0). RESULTS_DIR:
the campaign's results directory (cells/*.ndjson, one a finished cell; a file's mtime is when the
cell finished: it is renamed into place whole). ROW_BYTES: the size of the results row the
coordinator keeps per finished cell by design (`bulkfleet-coordinator plan` states it: one row a
cell for matrix.json, one a repetition for the median); the coordinator's RSS less ROW_BYTES x
cells finished by the probe is what is judged (rss_kb), the raw RSS is shown (rss_raw).

Per process and figure (after the first 10 % of the run): the least-squares slope, the noise
(standard deviation of the residuals); FLAT when slope x span <= max(3 x noise, 2 % of the mean
for memory, 1 for descriptors and threads). A figure over that bound is a PLATEAU (passes) when
its last half alone is flat within max(3 x its noise, 0.5 % of the mean, 1): a rise that stopped
(a heap's high-water mark, pipes' buffers that filled once), not a leak, which goes on. Else
GROWS (fails). Then per cell: every agent of the row wrote one sample for each second of warmup +
load, none twice, its seconds one unbroken run (a second -1 before the start and tail seconds
after the window, while requests are still in flight, are allowed); the row verified;
and the results' bytes per cell-hour. Last line "soak: PASS" or "soak: FAIL (<what>)"; exit 0/1.
"""
import collections, json, os, re, statistics, sys


def row_bytes(plan_text):
    """the row size `plan` states ("coordinator memory for rows: ... (one N-byte row per
    cell ..."), or None"""
    m = re.search(r"^coordinator memory for rows: .*\(one (\d+)-byte row ", plan_text, re.M)
    return int(m.group(1)) if m else None


if len(sys.argv) == 3 and sys.argv[1] == "--row-bytes":
    # soak_judge.py --row-bytes PLAN_OUTPUT: print N (exit 0) or say what is missing (exit 2)
    with open(sys.argv[2]) as fh:
        n = row_bytes(fh.read())
    if n is None:
        print(f"soak: {sys.argv[2]}: no 'coordinator memory for rows: ... (one N-byte row' "
              "line (a coordinator older than this soak.sh?)", file=sys.stderr)
        sys.exit(2)
    print(n)
    sys.exit(0)
out, res, rc, wall = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
row_kb = int(sys.argv[5]) / 1024.0
t0 = int(sys.argv[6])
# when each cell finished (its file is renamed into place whole): the coordinator keeps its row
done_at = []
if res:
    cd = os.path.join(res, "cells")
    done_at = sorted(os.path.getmtime(os.path.join(cd, f)) - t0 for f in os.listdir(cd)
                     if f.endswith(".ndjson"))
def cells_by(t):
    return sum(1 for d in done_at if d <= t)
fails = []
rows = collections.defaultdict(list)
with open(os.path.join(out, "soak.tsv")) as f:
    next(f)
    for line in f:
        t, name, pid, rss, fds, th = line.rstrip("\n").split("\t")
        cells = cells_by(int(t))
        if not rss:
            continue
        # the coordinator's RSS less the rows it keeps by design (one per finished cell)
        kept = int(round(int(rss) - cells * row_kb)) if name == "coordinator" else int(rss)
        rows[(name, pid)].append((int(t), int(rss), int(fds), int(th), kept))
print(f"soak: wall {wall} s, coordinator exit {rc}, {sum(len(v) for v in rows.values())} probes")
if rc != 0:
    fails.append(f"coordinator exit {rc}")
def cells_at(p):
    """cells finished at a coordinator probe: (raw - kept) / row_kb"""
    return int(round((p[1] - p[4]) / row_kb)) if row_kb else 0
def fit(ts, ys):
    n = len(ts)
    mt, my = sum(ts) / n, sum(ys) / n
    sxx = sum((t - mt) ** 2 for t in ts)
    b = sum((t - mt) * (y - my) for t, y in zip(ts, ys)) / sxx if sxx else 0.0
    res = [y - (my + b * (t - mt)) for t, y in zip(ts, ys)]
    return b, (statistics.pstdev(res) if n > 1 else 0.0), my
print(f"{'process':<12} {'figure':<8} {'first':>9} {'last':>9} {'mean':>10} {'slope/h':>10} {'noise':>8}  verdict")
for (name, pid), pts in sorted(rows.items()):
    if len(pts) < 5:
        print(f"{name:<12} pid {pid}: {len(pts)} probes, too few to judge")
        if name == "coordinator":
            fails.append("too few probes")
        continue
    t_end = pts[-1][0]
    keep = [p for p in pts if p[0] >= pts[0][0] + 0.1 * (t_end - pts[0][0])]
    ts = [p[0] for p in keep]
    span = ts[-1] - ts[0]
    figs = ((1, "rss_kb"), (2, "fds"), (3, "threads"))
    if name == "coordinator":
        # judged: RSS less the rows; the raw RSS is shown, not judged (it grows by a row a cell)
        figs = ((1, "rss_raw"), (4, "rss_kb"), (2, "fds"), (3, "threads"))
    for k, label in figs:
        ys = [p[k] for p in keep]
        b, noise, mean = fit(ts, ys)
        allow = max(3 * noise, 0.02 * mean if k in (1, 4) else 1.0)
        grow = b * span
        ok = grow <= allow
        if label == "rss_raw":
            print(f"{name:<12} {label:<8} {pts[0][k]:>9} {pts[-1][k]:>9} {mean:>10.1f} "
                  f"{b * 3600:>10.1f} {noise:>8.1f}  not judged ({grow:+.1f} over {span} s, "
                  f"of which {row_kb * (cells_at(keep[-1]) - cells_at(keep[0])):.1f} the rows "
                  f"of {cells_at(keep[-1]) - cells_at(keep[0])} cells at {row_kb:.2f} kB)")
            continue
        verdict = "FLAT" if ok else "GROWS"
        if not ok and len(keep) >= 10:
            # a rise that stopped (a heap's high-water mark: memory freed and kept by malloc for
            # reuse) against one that goes on (a leak): the last half alone, held to a tighter
            # bound (half the span, 0.5 % of the mean for memory)
            half = keep[len(keep) // 2:]
            hts = [p[0] for p in half]
            hb, hnoise, _ = fit(hts, [p[k] for p in half])
            hgrow = hb * (hts[-1] - hts[0])
            hallow = max(3 * hnoise, 0.005 * mean if k in (1, 4) else 1.0)
            if hgrow <= hallow:
                ok = True
                verdict = (f"PLATEAU (rose early, then flat: {hgrow:+.1f} over the last "
                           f"{hts[-1] - hts[0]} s, allowed {hallow:.1f})")
        print(f"{name:<12} {label:<8} {pts[0][k]:>9} {pts[-1][k]:>9} {mean:>10.1f} "
              f"{b * 3600:>10.1f} {noise:>8.1f}  {verdict} "
              f"({grow:+.1f} over {span} s, allowed {allow:.1f})")
        if not ok:
            fails.append(f"{name} {label} grows {grow:+.1f} over {span} s")
if not res:
    fails.append("no results directory")
else:
    load_s = 0.0
    nrows = 0
    bad = 0
    cdir = os.path.join(res, "cells")
    for fn in sorted(os.listdir(cdir)):
        if not fn.endswith(".ndjson"):
            continue
        cid = fn[:-len(".ndjson")]
        with open(os.path.join(cdir, fn)) as f:
            r = json.loads(f.readline())
        path = os.path.join(cdir, fn)
        nrows += 1
        seen = set()
        dup = 0
        per = collections.defaultdict(set)
        for line in open(path):
            d = json.loads(line)
            if d.get("type") != "sample":
                continue
            key = (d.get("agent"), d.get("seq"), d.get("second"))
            if key in seen:
                dup += 1
            seen.add(key)
            per[d.get("agent")].add(d.get("second"))
        secs = float(r.get("warmup_s", 0)) + float(r.get("duration_s", 0))
        load_s += float(r.get("duration_s", 0) or 0)
        nag = int(r.get("agents", 0))
        end = int(round(secs))
        want = nag * end
        got = sum(len(v) for v in per.values())
        # each agent sends one sample per second of warmup + load, every second present once;
        # before t = 0 (a second -1) and after the window (the tail: requests still in flight
        # complete up to request.timeout later, longer on a loaded host) it may send more, but
        # its seconds stay one unbroken run: a gap is a lost sample, a repeat one written twice
        problems = []
        if len(per) != nag:
            problems.append(f"{len(per)} agents sent samples, the row says {nag}")
        for ag in sorted(per, key=str):
            ss = sorted(x for x in per[ag] if isinstance(x, int))
            lost = [x for x in range(0, end) if x not in per[ag]]
            gaps = [x for x in range(ss[0], ss[-1] + 1) if x not in per[ag]] if ss else []
            if lost:
                problems.append(f"agent {ag} has no sample for second(s) {lost[:5]}")
            elif gaps:
                problems.append(f"agent {ag} skips second(s) {gaps[:5]}")
            if ss and ss[0] < -1:
                problems.append(f"agent {ag} has a sample for second {ss[0]} (before -1)")
        if dup or problems:
            bad += 1
            print(f"  cell {cid}: {got} samples written for {nag} agents x "
                  f"{secs:.0f} s ({want}), {dup} written twice"
                  + ("; " + "; ".join(problems) if problems else ""))
        if not r.get("verified", False):
            bad += 1
            print(f"  cell {cid}: not verified (docs_counted {r.get('docs_counted')}, "
                  f"ok {r.get('docs_ok_all', r.get('docs_ok'))})")
    print(f"soak: {nrows} cells, {load_s:.0f} s of load; cells with a sample or count problem: {bad}")
    if bad:
        fails.append(f"{bad} cells with a sample or count problem")
    def size(p):
        tot = 0
        for dp, _, fs in os.walk(p):
            tot += sum(os.path.getsize(os.path.join(dp, f)) for f in fs)
        return tot
    ch = max(load_s, 1.0) / 3600.0
    for part in ("cells", "telemetry", "."):
        b = size(os.path.join(res, part))
        print(f"results {part if part != '.' else 'all':<10} {b:>12} bytes, {b / ch / 1e6:8.2f} MB per cell-hour")
print("soak: PASS" if not fails else "soak: FAIL (" + "; ".join(fails) + ")")
sys.exit(0 if not fails else 1)
