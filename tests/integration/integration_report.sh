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
# 1 baseline run against 3 contender runs: no U test can reach p < 0.05 (its smallest two-sided
# p is 0.5), so even the +44 % cell is "~", not "faster": a difference the runs cannot show
grep -q "4 cells matched: 0 faster, 0 slower, 0 within noise, 0 same, 4 ~" "$TMP/cmp.md" ||
    { cat "$TMP/cmp.md"; fail "compare summary"; }
grep -q "| 1.438x (1.418-1.457) | 1 | 1+3 |" "$TMP/cmp.md" || { cat "$TMP/cmp.md"; fail "compare: ratio, interval, p, runs"; }
"$COORD" compare "$FIX/shard-study-base" "$FIX/shard-study-contender" --csv > "$TMP/cmp.csv" || fail "compare --csv exited $?"
[ "$(wc -l < "$TMP/cmp.csv")" = 5 ] || { cat "$TMP/cmp.csv"; fail "compare --csv: expected a header and 4 rows"; }
# a matrix whose axis with the most values is batch size, with long axis values
# (index settings): the main chart puts batch size on x, service-time charts follow it, and
# in chromium's layout no legend entry or chart text overlaps another or leaves its chart
mkdir -p "$TMP/long"
python3 - "$TMP/long/matrix.json" <<'PY'
import json, sys
dur = ["request-with-a-deliberately-long-value-to-stress-the-legend",
       "async-and-another-deliberately-long-value-for-the-legend-too"]
rows = []
for s in (1, 3):
    for b in (100, 500, 1000, 2000, 5000):
        for d in dur:
            for ri in ("1s", "30s", "-1"):
                dps = 1000.0 * s * (b ** 0.5) / (1.3 if d.startswith("req") else 1.0) * (1.2 if ri == "-1" else 1.0)
                cell = f"i1-s{s}-r0-b{b}-c2-settings_index_translog_durability_{d}-settings_index_refresh_interval_{ri}"
                rows.append({"cell": cell, "indices": 1, "shards": s, "replicas": 0, "batch_size": b,
                             "concurrency": 2, "axes": {"shards": str(s), "batch_size": str(b),
                             "settings.index.translog.durability": d,
                             "settings.index.refresh_interval": ri},
                             "docs_per_s": dps, "service_count": 400, "service_p50_ms": b / 50.0,
                             "service_p90_ms": b / 40.0, "service_p99_ms": b / 30.0,
                             "service_p99_9_ms": None, "service_max_ms": b / 20.0,
                             "docs_rejected": 0, "http_429": 0, "write_rejected": 0,
                             "warmup_s": 1, "duration_s": 10, "verified": True, "failed": False,
                             "aborted": False, "few_requests": b == 100 and ri == "1s",
                             "repeat": 1, "cv": None})
json.dump({"scenario": "long-labels", "rows": rows}, open(sys.argv[1], "w"), indent=1)
PY
"$COORD" report "$TMP/long" > /dev/null || fail "report of the long-label matrix exited $?"
# a layout probe run by chromium on a copy (the report itself has no script): every figure's
# legend entries and SVG texts, their boxes compared pairwise and against the figure
probe() { # probe REPORT_HTML OUT_HTML: the report with the layout probe appended
python3 - "$1" "$2" <<'PY'
import sys
html = open(sys.argv[1], encoding="utf-8").read()
probe = """<script>(function(){
var out={figs:0,items:0,texts:0,overlaps:[],outside:[]};
function hit(a,b){return a.left<b.right-0.5&&b.left<a.right-0.5&&a.top<b.bottom-0.5&&b.top<a.bottom-0.5;}
document.querySelectorAll('figure.cf').forEach(function(f,fi){
 out.figs++;var fr=f.getBoundingClientRect(),sv=f.querySelector('svg').getBoundingClientRect();
 var li=[].slice.call(f.querySelectorAll('ul.legend li'));
 var tx=[].slice.call(f.querySelectorAll('svg text'));
 out.items+=li.length;out.texts+=tx.length;
 li.forEach(function(a,i){var r=a.getBoundingClientRect();
  if(hit(r,sv))out.overlaps.push([fi,'legend over chart',a.textContent]);
  if(r.right>fr.right+0.5||r.left<fr.left-0.5)out.outside.push([fi,a.textContent]);
  li.slice(i+1).forEach(function(b){if(hit(r,b.getBoundingClientRect()))out.overlaps.push([fi,a.textContent,b.textContent]);});});
 tx.forEach(function(a,i){var r=a.getBoundingClientRect();
  if(r.right>sv.right+0.5||r.left<sv.left-0.5)out.outside.push([fi,a.textContent]);
  tx.slice(i+1).forEach(function(b){if(hit(r,b.getBoundingClientRect()))out.overlaps.push([fi,a.textContent,b.textContent]);});});
});
var lad=[].slice.call(document.querySelectorAll('svg[data-chart=latency] text'));
lad.forEach(function(a){var r=a.getBoundingClientRect(),sv=a.ownerSVGElement.getBoundingClientRect();
 out.texts++;if(r.left<sv.left-0.5||r.right>sv.right+0.5)out.outside.push(['ladder',a.textContent]);});
var p=document.createElement('pre');p.id='bf-layout';p.textContent=JSON.stringify(out);document.body.appendChild(p);
})();</script>"""
open(sys.argv[2], "w", encoding="utf-8").write(html.replace("</body>", probe + "</body>"))
PY
}
probe "$TMP/long/report.html" "$TMP/long/probe.html"
chrome long --window-size=1400,3000 --dump-dom "file://$TMP/long/probe.html" > "$TMP/long-dom.html" \
    || { cat "$TMP/chrome-long.log" >&2; fail "chromium --dump-dom of the long-label report failed"; }
probe "$TMP/base/report.html" "$TMP/base/probe.html"
chrome baseprobe --window-size=1400,3000 --dump-dom "file://$TMP/base/probe.html" > "$TMP/base-dom.html" \
    || { cat "$TMP/chrome-baseprobe.log" >&2; fail "chromium --dump-dom of the fixture's probe failed"; }
# a matrix whose only varying axis is text (6 targets with long names): bars side by side,
# their labels shortened to fit, no text overlapping another
mkdir -p "$TMP/bars"
python3 - "$TMP/base/matrix.json" "$TMP/bars/matrix.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
r0 = m["rows"][0]
names = ["direct", "gateway", "nginx-proxy-in-front-of-the-cluster", "haproxy", "envoy-sidecar",
         "a-very-long-load-balancer-name-that-does-not-fit-under-one-bar"]
rows = []
for i, t in enumerate(names):
    r = dict(r0, cell=f"{r0['cell']}-{t}", axes={"target": t}, docs_per_s=1000.0 * (i + 1))
    rows.append(r)
m["rows"] = rows
m.pop("findings", None)
json.dump(m, open(sys.argv[2], "w"))
PY
"$COORD" report "$TMP/bars" > /dev/null || fail "report of the text-axis matrix exited with $?"
python3 - "$TMP/bars/report.html" <<'PY'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
assert '<h2 id="throughput">docs/s by target' in page, "text-axis matrix: no bars"
chart = page[page.index('data-chart="throughput"'):]
chart = chart[:chart.index("</svg>")]
order = re.findall(r'<g class="series bar" data-label="target=([^"]+)"', chart)
assert order == ["direct", "gateway", "nginx-proxy-in-front-of-the-cluster", "haproxy",
                 "envoy-sidecar", "a-very-long-load-balancer-name-that-does-not-fit-under-one-bar"], order
PY
probe "$TMP/bars/report.html" "$TMP/bars/probe.html"
chrome barsprobe --window-size=1400,3000 --dump-dom "file://$TMP/bars/probe.html" > "$TMP/bars-dom.html" \
    || { cat "$TMP/chrome-barsprobe.log" >&2; fail "chromium --dump-dom of the bars probe failed"; }
python3 - "$TMP/bars-dom.html" <<'PY'
import html as H, json, re, sys
m = re.search(r'<pre id="bf-layout">(.*?)</pre>', open(sys.argv[1], encoding="utf-8").read(), re.S)
assert m, "the layout probe did not run"
out = json.loads(H.unescape(m.group(1)))
print(f"layout of the text-axis report: {out['figs']} figures, {out['texts']} chart texts; "
      f"overlaps {len(out['overlaps'])}, outside {len(out['outside'])}")
assert out["figs"] >= 3 and not out["overlaps"] and not out["outside"], out
PY
python3 - "$TMP/long-dom.html" "$TMP/long/report.html" "$TMP/base-dom.html" <<'PY'
import html as H, json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<pre id="bf-layout">(.*?)</pre>', dom, re.S)
assert m, "the layout probe did not run"
out = json.loads(H.unescape(m.group(1)))
print(f"layout: {out['figs']} figures, {out['items']} legend entries, {out['texts']} chart texts; "
      f"overlaps {len(out['overlaps'])}, outside {len(out['outside'])}")
assert out["figs"] >= 6 and out["items"] >= 24, out
assert not out["overlaps"], out["overlaps"][:5]
assert not out["outside"], out["outside"][:5]
base = re.search(r'<pre id="bf-layout">(.*?)</pre>', open(sys.argv[3], encoding="utf-8").read(), re.S)
base = json.loads(H.unescape(base.group(1)))
print(f"layout of the fixture's report: {base['figs']} figures, {base['items']} legend entries, "
      f"{base['texts']} chart texts; overlaps {len(base['overlaps'])}, outside {len(base['outside'])}")
assert base["figs"] >= 40 and not base["overlaps"] and not base["outside"], base
page = open(sys.argv[2], encoding="utf-8").read()
data = json.loads(re.search(r'<script type="application/json" id="bf-data">(.*?)</script>', page, re.S).group(1))
assert data["findings"]["main_axis"] == "batch_size", data["findings"]["main_axis"]
tp = data["charts"]["throughput"]
assert len(tp) == 2 and all(p["x_axis"] == "batch_size" for p in tp), [p["x_axis"] for p in tp]
assert all(len(p["lines"]) == 6 for p in tp), [len(p["lines"]) for p in tp]
assert all(len(l["points"]) == 5 and [q["x"] for q in l["points"]] == [100, 500, 1000, 2000, 5000]
           for p in tp for l in p["lines"])
assert page.count('data-chart="service_p50"') == 2 and page.count('data-chart="service_p99"') == 2
assert "docs/s against batch size" in page and "What the columns mean" in page
# few-requests cells are drawn hollow in every chart that plots them, and not ranked
assert page.count('class="pt few"') == 4 * 3, page.count('class="pt few"')  # 4 cells x 3 charts
assert data["findings"]["lines"][0].startswith("4 cells measured on fewer than 20 bulk responses"), data["findings"]["lines"][0]
print("main axis batch_size, 2 panels x 6 lines, service-time charts, columns explained")
PY
pass "report.html rendered by chromium: not blank, every chart present, data equals matrix.json; compare ok; long labels and a text-only axis (bars): no legend or chart text overlaps"
