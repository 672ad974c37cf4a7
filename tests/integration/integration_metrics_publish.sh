#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_metrics_publish — `publish RESULTS_DIR --metrics-store URL` of
# older results directories (the shard-study-base fixture: 12 cells with telemetry, copied under
# a campaign name of this run; and the golden fixture, whose axis settings.refresh_interval has a
# dot: the axes template first mapped "axes.settings" itself as a keyword and every document was
# refused) into the dev cluster: every document of the files once (each kind's _count equals
# what the files hold); publishing a second time leaves every count unchanged; bad input (no
# results directory, no URL, a store that does not answer) gets a clear message, exit 2 / 3.
# Every visualization of deploy/dashboards/bulkfleet.ndjson, run as an aggregation over the
# published campaign, gives values. `compare --metrics-store` of campaign ids gives the same
# trend as `compare` of their directories.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
D="study-pub-$$-20261201T000000Z"
cp -r "$SRC/tests/fixtures/results/shard-study-base" "$D"
G="golden-pub-$$"
cp -r "$SRC/tests/fixtures/results/golden" "$G"
"$COORD" publish "$G" --metrics-store "$ES" > g1 2> ge1 || { cat g1 ge1 >&2; fail "publish golden: exit 1"; }
python3 "$SRC/tests/support/ms_expect.py" check "$G" "$ES" > gc || { cat gc >&2; fail "publish golden: counts"; }
"$COORD" publish "$D" --metrics-store "$ES" > p1 2> e1 || { cat p1 e1 >&2; fail "publish 1: exit 1"; }
grep -q "0 dropped" p1 || { cat p1 e1 >&2; fail "publish 1 dropped documents"; }
python3 "$SRC/tests/support/ms_expect.py" check "$D" "$ES" > c1 || { cat c1 >&2; fail "publish 1: counts"; }
"$COORD" publish "$D" --metrics-store "$ES/" > p2 2> e2 || { cat p2 e2 >&2; fail "publish 2: exit 1"; }
python3 "$SRC/tests/support/ms_expect.py" check "$D" "$ES" > c2 || { cat c2 >&2; fail "publish 2: counts"; }
cmp -s c1 c2 || { cat c1 c2 >&2; fail "counts changed by publishing twice"; }
python3 - c2 <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
assert c["expect"]["row"] == 12 and c["expect"]["second"] > 0 and c["expect"]["node"] > 0, c
print("twice:", c["store"])
PY
# the dashboards' visualizations (deploy/dashboards) run as real aggregations over what was published
"$COORD" publish --print-templates > tpl
python3 "$SRC/tests/support/check_dashboards.py" "$SRC/deploy/dashboards/bulkfleet.ndjson" tpl --es "$ES" --campaign "$D" ||
    fail "a dashboard visualization gives no value over the published campaign"
# compare from the store (campaign ids in the metrics store): the trend of
# base, contender, base read from the store's matrix rows equals the one read from the
# directories, but for the labels
C="cont-pub-$$-20261201T000000Z"
cp -r "$SRC/tests/fixtures/results/shard-study-contender" "$C"
"$COORD" publish "$C" --metrics-store "$ES" > p3 2> e3 || { cat p3 e3 >&2; fail "publish contender: exit 1"; }
curl -sf -X POST "$ES/bulkfleet-results/_refresh" > /dev/null
"$COORD" compare "$D" "$C" "$D" > trend_dirs.md
mkdir elsewhere
(cd elsewhere && "$COORD" compare --metrics-store "$ES" "$D" "$C" "$D") > trend_store.md ||
    fail "compare --metrics-store exit 1"
grep -q "$D (metrics store)" trend_store.md || { cat trend_store.md >&2; fail "compare did not read the store"; }
diff <(sed 's/ (metrics store)//' trend_store.md) trend_dirs.md ||
    fail "the trend from the store differs from the trend from the directories"
grep -q "#2 1.146x (4 cells), #3 1.000x (12 cells)" trend_store.md || { cat trend_store.md >&2; fail "trend summary"; }
set +e
(cd elsewhere && "$COORD" compare --metrics-store "$ES" "$D" "no-such-campaign") > /dev/null 2> ce; rc=$?
set -e
[ $rc = 2 ] && grep -q "campaign 'no-such-campaign' is not in the metrics store" ce || { cat ce >&2; fail "unknown campaign: exit $rc"; }
# the month index comes from the campaign's stamp
curl -sf "$ES/bulkfleet-samples-2026.12/_count" | grep -q '"count":[1-9]' || fail "no bulkfleet-samples-2026.12"

set +e
"$COORD" publish . --metrics-store "$ES" > /dev/null 2> b1; r1=$?
"$COORD" publish "$D" > /dev/null 2> b2; r2=$?
P=$(free_port)
timeout 60 "$COORD" publish "$D" --metrics-store "http://127.0.0.1:$P" --flush-wait 1s > b3o 2> b3; r3=$?
set -e
[ $r1 = 2 ] && grep -q "not a bulkfleet results directory" b1 || { cat b1 >&2; fail "no results dir: exit $r1"; }
[ $r2 = 2 ] && grep -q -- "--metrics-store URL is required" b2 || { cat b2 >&2; fail "no URL: exit $r2"; }
[ $r3 = 3 ] && grep -q "documents not stored" b3 || { cat b3o b3 >&2; fail "store down: exit $r3"; }
pass "publish: every document once, twice changes nothing; bad input exits 2/3"
