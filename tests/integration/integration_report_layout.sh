#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_report_layout — the report's pictures as a reader sees them at 1400 px: Debian's
# chromium (headless) lays out report.html in a 1400 px window and a measuring script (added
# to a copy of the page by this test; the report itself has no JavaScript) writes what it
# measured into the DOM, read back with --dump-dom:
#   - the page is no wider than the window (documentElement.scrollWidth <= 1400); the matrix
#     table, wider than that, scrolls inside its own box;
#   - every label (<text>) of every chart lies inside its chart's box (find-max's "left out" at
#     the last x was cut to "le" by the panel's edge);
#   - a line with too few requests for its percentile says so in the legend.
# Three results directories: the shard-study fixture (12 cells, 850 shards batch 5000 under 100
# responses per cell: no p99), a find-max-like matrix whose last step is degraded (left out),
# and a text axis drawn as bars (long values, the last bar left out).
# Also a screenshot of each at 1400 px. Needs no cluster and no network: the page loads nothing.
source "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null || fail "chromium not installed (scripts/install-deps.sh installs the Debian package chromium)"

cp -r "$SRC/tests/fixtures/results/shard-study-base" "$TMP/base"
mkdir -p "$TMP/fm"
# a find-max search: concurrency doubling at batch 200, the last step degraded (an agent lost),
# so the findings leave it out and the chart labels it "left out" at the panel's right edge;
# the first step had 40 responses: a p50, no p99 (its legends say so)
cat > "$TMP/fm/matrix.json" <<'EOF'
{"scenario":"fm","rows":[
{"cell":"fm1-01-concurrency-b200-c1","indices":1,"shards":1,"replicas":0,"batch_size":200,"concurrency":1,"docs_per_s":1600,"service_count":40,"service_p50_ms":90.5,"verified":true},
{"cell":"fm1-02-concurrency-b200-c2","indices":1,"shards":1,"replicas":0,"batch_size":200,"concurrency":2,"docs_per_s":2900,"service_count":400,"service_p50_ms":110.0,"service_p99_ms":240.0,"verified":true},
{"cell":"fm1-03-concurrency-b200-c4","indices":1,"shards":1,"replicas":0,"batch_size":200,"concurrency":4,"docs_per_s":3100,"service_count":420,"service_p50_ms":180.0,"service_p99_ms":401.9,"verified":true},
{"cell":"fm1-04-concurrency-b200-c8","indices":1,"shards":1,"replicas":0,"batch_size":200,"concurrency":8,"docs_per_s":5200,"service_count":300,"service_p50_ms":200.0,"service_p99_ms":700.0,"verified":true,"degraded":true}]}
EOF
cat > "$TMP/fm/findmax.json" <<'EOF'
{"scenario":"fm","data_nodes":1,"combinations":[{"combination":"shards=1","found":false,
"end_reason":"the last step was degraded",
"knee":{"batch_size":200,"concurrency":4,"docs_per_s":3100.0,"latency_p99_ms":401.9},"steps":[
{"step":1,"phase":"concurrency","cell":"fm1-01-concurrency-b200-c1","batch_size":200,"concurrency":1,"target_rate":0.0,"docs_per_s":1600.0,"latency_p99_ms":null,"docs_rejected":0,"write_rejected":null,"verdict":"gain"},
{"step":2,"phase":"concurrency","cell":"fm1-02-concurrency-b200-c2","batch_size":200,"concurrency":2,"target_rate":0.0,"docs_per_s":2900.0,"latency_p99_ms":240.0,"docs_rejected":0,"write_rejected":null,"verdict":"gain"},
{"step":3,"phase":"concurrency","cell":"fm1-03-concurrency-b200-c4","batch_size":200,"concurrency":4,"target_rate":0.0,"docs_per_s":3100.0,"latency_p99_ms":401.9,"docs_rejected":0,"write_rejected":null,"verdict":"gain"},
{"step":4,"phase":"concurrency","cell":"fm1-04-concurrency-b200-c8","batch_size":200,"concurrency":8,"target_rate":0.0,"docs_per_s":5200.0,"latency_p99_ms":700.0,"docs_rejected":0,"write_rejected":null,"verdict":"degraded"}]}]}
EOF

# a text axis (target): one bar per value, long values, the last bar degraded ("left out: 14k"
# above the last, narrow slot)
mkdir -p "$TMP/bars"
python3 - "$TMP/bars/matrix.json" <<'PY'
import json, sys
names = ["direct", "gateway-with-a-rather-long-name-for-its-proxy", "coordinating-only-nodes",
         "ingest-pipeline-heavy", "direct-tls", "gateway-tls-degraded"]
rows = []
for i, n in enumerate(names):
    rows.append({"cell": f"i1-s1-r0-b500-c4-{n}", "indices": 1, "shards": 1, "replicas": 0,
                 "batch_size": 500, "concurrency": 4, "axes": {"target": n}, "target": n,
                 "docs_per_s": 9000 + 1000 * i, "service_count": 400,
                 "service_p50_ms": 20.0 + i, "service_p99_ms": 80.0 + i, "verified": True,
                 "degraded": i == len(names) - 1})
json.dump({"scenario": "bars", "rows": rows}, open(sys.argv[1], "w"))
PY

# the measuring script: what it finds goes into <pre id="bf-layout"> as JSON (hidden, and
# measured before it is added, so it changes no width)
cat > "$TMP/measure.js" <<'EOF'
(function () {
  var out = {vw: window.innerWidth, sw: document.documentElement.scrollWidth, charts: 0,
             texts: 0, outside: [], charts_out: [], legend: [], tables: [], left_out: []};
  document.querySelectorAll('svg.chart').forEach(function (svg) {
    out.charts++;
    var r = svg.getBoundingClientRect();
    var title = svg.querySelector('title') ? svg.querySelector('title').textContent : '';
    if (r.right > out.vw + 0.5 || r.left < -0.5) out.charts_out.push(title);
    svg.querySelectorAll('text').forEach(function (t) {
      var b = t.getBoundingClientRect();
      if (b.width === 0 && b.height === 0) return;
      out.texts++;
      if (t.classList.contains('lo')) out.left_out.push(t.textContent);
      if (b.left < r.left - 0.5 || b.right > r.right + 0.5 || b.top < r.top - 0.5 ||
          b.bottom > r.bottom + 0.5)
        out.outside.push({chart: svg.getAttribute('data-chart'), title: title,
                          text: t.textContent,
                          box: [b.left - r.left, b.top - r.top, b.right - r.left, b.bottom - r.top]
                                 .map(function (v) { return Math.round(v); }),
                          panel: [Math.round(r.width), Math.round(r.height)]});
    });
  });
  document.querySelectorAll('ul.legend').forEach(function (u) {
    if (u.textContent.indexOf('too few requests') >= 0) out.legend.push(u.textContent);
  });
  document.querySelectorAll('div.tscroll').forEach(function (d) {
    var r = d.getBoundingClientRect();
    out.tables.push({right: r.right, scroll_w: d.scrollWidth, client_w: d.clientWidth,
                     head: d.querySelector('th') ? d.querySelector('th').textContent : ''});
  });
  var pre = document.createElement('pre');
  pre.id = 'bf-layout';
  pre.hidden = true;
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
EOF

chrome() {
    # a profile of its own per call: parallel test runs never share a lock; no network needed
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --hide-scrollbars --user-data-dir="$TMP/chrome-$1" "${@:2}" \
        2> "$TMP/chrome-$1.log"
}

for d in base fm bars; do
    "$COORD" report "$TMP/$d" > /dev/null || fail "report $d exited with $?"
    python3 - "$TMP/$d/report.html" "$TMP/measure.js" "$TMP/$d/measured.html" <<'PY'
import sys
page, js, out = sys.argv[1:4]
html = open(page, encoding="utf-8").read()
assert html.count("</body>") == 1, "report.html has no single </body>"
open(out, "w", encoding="utf-8").write(
    html.replace("</body>", "<script>" + open(js).read() + "</script></body>"))
PY
    chrome "dom-$d" --window-size=1400,1000 --dump-dom "file://$TMP/$d/measured.html" \
        > "$TMP/$d/dom.html" || { cat "$TMP/chrome-dom-$d.log" >&2; fail "chromium --dump-dom ($d) failed"; }
    chrome "shot-$d" --window-size=1400,2000 --screenshot="$TMP/$d/shot.png" \
        "file://$TMP/$d/report.html" > /dev/null || { cat "$TMP/chrome-shot-$d.log" >&2; fail "chromium --screenshot ($d) failed"; }
done

python3 - "$TMP" <<'PY'
import html, json, re, struct, sys
tmp = sys.argv[1]
errors = []

def measured(d):
    dom = open(f"{tmp}/{d}/dom.html", encoding="utf-8").read()
    m = re.search(r'<pre id="bf-layout" hidden="">(.*?)</pre>', dom, re.S)
    if not m:
        sys.exit(f"FAIL: {d}: the measuring script wrote nothing (chromium ran no script?)")
    return json.loads(html.unescape(m.group(1)))

for d in ("base", "fm", "bars"):
    m = measured(d)
    print(f"{d}: window {m['vw']} px, page {m['sw']} px, {m['charts']} charts, "
          f"{m['texts']} labels, {len(m['outside'])} outside their chart, "
          f"tables {[(t['head'], t['scroll_w'], t['client_w']) for t in m['tables']]}")
    if m["vw"] != 1400:
        errors.append(f"{d}: window is {m['vw']} px, not 1400")
    if m["sw"] > m["vw"]:
        errors.append(f"{d}: the page is {m['sw']} px wide in a {m['vw']} px window")
    for o in m["outside"]:
        errors.append(f"{d}: label {o['text']!r} of chart {o['chart']} ({o['title']}) at "
                      f"{o['box']} is outside its {o['panel']} panel")
    for t in m["charts_out"]:
        errors.append(f"{d}: chart {t!r} reaches outside the window")
    for t in m["tables"]:
        if t["right"] > m["vw"] + 0.5:
            errors.append(f"{d}: table box ({t['head']}...) ends at {t['right']} px")
    if d == "base":
        # the matrix (24+ columns) is wider than the page: it scrolls in its own box
        mt = [t for t in m["tables"] if t["head"] == "indices"]
        if len(mt) != 1:
            errors.append(f"base: {len(mt)} matrix tables in a scrolling box, expected 1")
        elif not mt[0]["scroll_w"] > mt[0]["client_w"]:
            errors.append(f"base: the matrix table ({mt[0]['scroll_w']} px) does not scroll in "
                          f"its {mt[0]['client_w']} px box")
        want = "batch 5000: too few requests for p99 (it needs 100 in the window)"
        if not any(want in l for l in m["legend"]):
            errors.append(f"base: no legend says {want!r}; legends with 'too few': {m['legend']}")
        if m["charts"] < 40 or m["texts"] < 500:
            errors.append(f"base: only {m['charts']} charts and {m['texts']} labels measured")
    elif d == "bars":
        if not any(t.startswith("left out: ") for t in m["left_out"]):
            errors.append(f"bars: no 'left out: ...' bar label measured (found {m['left_out']})")
    else:
        if "left out" not in m["left_out"]:
            errors.append(f"fm: no 'left out' label measured (found {m['left_out']})")
        for want in ("too few requests for p99 in 1 of 4 cells (it needs 100 in the window)",
                     "closed loop (batch, concurrency): 1 step not drawn: too few requests for "
                     "p99 (it needs 100)"):
            if not any(want in l for l in m["legend"]):
                errors.append(f"fm: no legend says {want!r}; legends with 'too few': {m['legend']}")
    # the screenshot: a PNG 1400 px wide
    png = open(f"{tmp}/{d}/shot.png", "rb").read(24)
    if png[:8] != b"\x89PNG\r\n\x1a\n" or struct.unpack(">II", png[16:24]) != (1400, 2000):
        errors.append(f"{d}: the screenshot is not a 1400x2000 PNG")
if errors:
    sys.exit("FAIL: " + "\n      ".join(errors))
PY
pass "report at 1400 px: page within the window, tables scroll in their boxes, every label inside its chart, too-few-requests in the legend"
