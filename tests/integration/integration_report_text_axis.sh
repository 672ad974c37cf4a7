#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_report_text_axis — the report of a campaign whose only varying axis is text (the
# gateway study's question: target direct vs gateway) draws the values side by side, not a line
# over the one concurrency there is. A real campaign against the test cluster through two host
# sets (the cluster's own URL, and a TCP forwarder in front of it) runs target [direct, gateway];
# report.html then has, in the docs/s chart, one bar per target in the matrix's order, labelled
# direct / gateway under an x axis named target, each carrying its row's exact docs/s and cell id from
# matrix.json, and no line; the service-time charts are bars too.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-rta-$$"
FWP=
trap '[ -z "$FWP" ] || kill "$FWP" 2> /dev/null || true; curl -s -X DELETE "$ES/$IDX-*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
PG=$(free_port)
timeout 120 python3 "$SRC/tests/support/netns_forward.py" --listen "127.0.0.1:$PG" \
    --to "${ES#http://}" --log fw.log &
FWP=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PG/" > /dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PG/" > /dev/null || fail "forwarder on $PG did not start"
cat > rta.yaml <<YAML
name: rta-$$
target: {hosts: ["$ES"]}
targets:
  direct: {hosts: ["$ES"]}
  gateway: {hosts: ["http://127.0.0.1:$PG"]}
index: {name: "$IDX-{target}", recreate: true, settings: {number_of_replicas: 0}}
document: {source: '{"a": 1}'}
run: {warmup: 1s, duration: 2s}
matrix:
  target: [direct, gateway]
  batch_size: [200]
  concurrency: [2]
YAML
PORT=$(free_port)
timeout 120 "$COORD" run rta.yaml --local-agents 1 --threads 1 --insecure \
    --bind "tcp://127.0.0.1:$PORT" --results r -q > out 2> err || { cat err >&2; fail "campaign exit $?"; }
D=$(ls -d r/rta-$$-*)
python3 - "$D" <<'PY'
import json, re, sys
d = sys.argv[1]
m = json.load(open(d + "/matrix.json"))
rows = m["rows"]
assert [r["axes"]["target"] for r in rows] == ["direct", "gateway"], [r.get("axes") for r in rows]
assert all(r["verified"] for r in rows), rows
html = open(d + "/report.html").read()
assert '<h2 id="throughput">docs/s by target' in html, re.findall(r'<h2 id="throughput">[^<]*', html)
chart = html[html.index('data-chart="throughput"'):]
chart = chart[:chart.index("</svg>")]
assert "<polyline" not in chart, "a line in the text-axis chart"
bars = re.findall(r'<rect class="bar[^"]*"[^>]*data-cell="([^"]+)" data-y="([^"]+)"', chart)
assert [c for c, _ in bars] == [r["cell"] for r in rows], (bars, [r["cell"] for r in rows])
for (c, y), r in zip(bars, rows):
    assert float(y) == r["docs_per_s"], (c, y, r["docs_per_s"])
labels = re.findall(r'<text class="xt"[^>]*>([a-z]+)</text>', chart)
assert labels == ["direct", "gateway"], labels
assert all(f'data-label="target={t}"' in chart for t in ("direct", "gateway")), "bar labels"
for kind in ("service_p50", "service_p99"):
    if f'data-chart="{kind}"' in html:
        c2 = html[html.index(f'data-chart="{kind}"'):]
        c2 = c2[:c2.index("</svg>")]
        assert c2.count('<rect class="bar') == 2 and "<polyline" not in c2, kind
print("bars:", ", ".join(f"{c} {float(y):.0f} docs/s" for c, y in bars))
PY
pass "report of a target-only matrix: one bar per target with its row's docs/s"
