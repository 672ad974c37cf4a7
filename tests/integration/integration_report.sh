#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_report — `report DIR` on the shard-study fixture, looked at by a real browser:
# Debian's chromium (headless) renders report.html to a PNG that must exist and not be blank,
# and its DOM (--dump-dom, i.e. after parsing) must hold every chart as SVG and a bf-data
# block whose numbers equal matrix.json. Then `compare` on the two fixture directories.
# Needs no cluster and no network: the page loads nothing.
source "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null || fail "chromium not installed (scripts/install-deps.sh installs it)"
FIX="$SRC/tests/fixtures/results"
cp -r "$FIX/shard-study-base" "$TMP/base"
"$COORD" report "$TMP/base" > "$TMP/report.out" || fail "report exited with $?"
[ -s "$TMP/base/report.html" ] || fail "report.html missing"
grep -q "$TMP/base/report.html" "$TMP/report.out" || fail "report did not print the path"

# a results directory that is not one: exit 2 and a message naming matrix.json
set +e
"$COORD" report "$TMP/nowhere" 2> "$TMP/report.err"; rc=$?
set -e
[ "$rc" = 2 ] || fail "report on a missing directory exited $rc, expected 2"
grep -q "matrix.json" "$TMP/report.err" || fail "no useful message: $(cat "$TMP/report.err")"

chrome() {
    # a profile of its own per call: parallel test runs never share a lock; no network needed
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --user-data-dir="$TMP/chrome-$1" "${@:2}" 2> "$TMP/chrome-$1.log"
}
chrome shot --hide-scrollbars --screenshot="$TMP/report.png" --window-size=1400,3000 \
    "file://$TMP/base/report.html" > /dev/null || { cat "$TMP/chrome-shot.log" >&2; fail "chromium screenshot failed"; }
chrome dom --dump-dom "file://$TMP/base/report.html" > "$TMP/dom.html" \
    || { cat "$TMP/chrome-dom.log" >&2; fail "chromium --dump-dom failed"; }

python3 - "$TMP/report.png" "$TMP/dom.html" "$TMP/base/matrix.json" <<'PY'
import json, struct, sys, zlib
from html.parser import HTMLParser

png_path, dom_path, matrix_path = sys.argv[1:4]

# --- the screenshot: a PNG of the window size, not blank (stdlib only: decode it) ---
data = open(png_path, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, typ = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if typ == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif typ == b"IDAT":
        idat += body
    pos += 12 + n
assert (w, h) == (1400, 3000), f"screenshot is {w}x{h}"
assert depth == 8 and ctype in (2, 6), f"unexpected PNG format depth={depth} type={ctype}"
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
nonwhite = 0
colors = set()
blue = 0  # the first series colour, #4e79a7
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 2 == 0:  # every other row is plenty
        for x in range(0, stride, bpp * 2):
            px = (line[x], line[x + 1], line[x + 2])
            if px != (255, 255, 255):
                nonwhite += 1
            colors.add(px)
            if abs(px[0] - 0x4e) < 12 and abs(px[1] - 0x79) < 12 and abs(px[2] - 0xa7) < 12:
                blue += 1
    prev = line
sampled = (h // 2) * (w // 2)
print(f"screenshot {w}x{h}: {100.0 * nonwhite / sampled:.1f}% non-white, {len(colors)} colours, "
      f"{blue} series-blue pixels")
assert nonwhite > sampled * 0.02, "the page is (nearly) blank"
assert len(colors) > 50, "too few colours for charts"
assert blue > 200, "no chart lines drawn in the series colour"

# --- the DOM chromium built: charts as SVG, and the embedded data equals matrix.json ---
class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.charts, self.circles, self.data, self.in_data, self.chart = [], [], "", False, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "chart" in (a.get("class") or ""):
            self.chart = a.get("data-chart")
            self.charts.append(self.chart)
        if tag == "circle" and "data-cell" in a:
            self.circles.append((self.chart, a))
        if tag == "script":
            assert a.get("type") == "application/json", f"a script that is not data: {a}"
            self.in_data = a.get("id") == "bf-data"
    def handle_endtag(self, tag):
        if tag == "script":
            self.in_data = False
    def handle_data(self, d):
        if self.in_data:
            self.data += d

dom = Dom()
dom.feed(open(dom_path, encoding="utf-8").read())
matrix = json.load(open(matrix_path))
rows = {r["cell"]: r for r in matrix["rows"]}
n = len(rows)
count = {k: dom.charts.count(k) for k in set(dom.charts)}
print("charts in the DOM:", count)
assert count.get("throughput") == 2, count          # 50 and 850 shards
assert count.get("per_second") == n, count
assert count.get("latency") == 1, count
assert count.get("write_queue") == n and count.get("write_rejected") == n, count
data = json.loads(dom.data)
assert data["matrix"] == matrix, "embedded matrix differs from matrix.json"
charts = data["charts"]
pts = [p for panel in charts["throughput"] for line in panel["lines"] for p in line["points"]]
assert len(pts) == n
for panel in charts["throughput"]:
    for line in panel["lines"]:
        for p in line["points"]:
            r = rows[p["cell"]]
            assert p["docs_per_s"] == r["docs_per_s"] and p["concurrency"] == r["concurrency"]
            assert panel["shards"] == r["shards"]
            assert line["label"] == f"batch {r['batch_size']}", line["label"]
for s in charts["per_second"]:
    r = rows[s["cell"]]
    W, D = s["warmup_s"], s["duration_s"]
    assert (W, D) == (r["warmup_s"], r["duration_s"])
    assert sum(s["docs_ok"][W:W + D]) / D == r["docs_per_s"], s["cell"]
for l in charts["latency"]:
    r = rows[l["cell"]]
    for k in ("service_p50_ms", "service_p90_ms", "service_p99_ms", "service_p99_9_ms", "service_max_ms"):
        assert l[k] == r[k], (l["cell"], k)
for t in charts["telemetry"]:
    r = rows[t["cell"]]
    for k in ("write_queue_max", "write_rejected", "hot_spot_ratio", "cluster_docs_per_s"):
        assert t["summary"][k] == r[k], (t["cell"], k)
# and what the SVG itself draws: every throughput marker is its row's docs/s, exactly
marks = [a for chart, a in dom.circles if chart == "throughput"]
assert len(marks) == n
for a in marks:
    assert float(a["data-y"]) == rows[a["data-cell"]]["docs_per_s"], a
    assert int(a["data-x"]) == rows[a["data-cell"]]["concurrency"], a
lat = [a for chart, a in dom.circles if chart == "latency"]
for a in lat:
    assert float(a["data-y"]) == rows[a["data-cell"]][a["data-pct"]], a
assert data["findings"]["lines"], "no findings"
print(f"DOM ok: {len(dom.charts)} charts, {len(marks)} throughput markers and {len(lat)} "
      f"percentile markers equal matrix.json")
PY

# compare: Markdown by default, CSV with --csv
"$COORD" compare "$FIX/shard-study-base" "$FIX/shard-study-contender" > "$TMP/cmp.md" || fail "compare exited $?"
grep -q "4 cells matched: 2 faster, 0 slower, 2 within noise" "$TMP/cmp.md" || { cat "$TMP/cmp.md"; fail "compare summary"; }
"$COORD" compare "$FIX/shard-study-base" "$FIX/shard-study-contender" --csv > "$TMP/cmp.csv" || fail "compare --csv exited $?"
[ "$(wc -l < "$TMP/cmp.csv")" = 5 ] || { cat "$TMP/cmp.csv"; fail "compare --csv: expected a header and 4 rows"; }
pass "report.html rendered by chromium: not blank, every chart present, data equals matrix.json; compare ok"
