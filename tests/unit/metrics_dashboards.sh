#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# metrics_dashboards — deploy/dashboards/bulkfleet.ndjson (OpenSearch Dashboards saved objects)
# against the metrics store's templates (`publish --print-templates`):
# tests/support/check_dashboards.py accepts the file, and refuses a copy whose visualization
# names a field the mapping lacks, one with a reference to a missing object, and one whose
# panel has no reference. (integration_metrics_publish also runs every visualization's
# aggregations against published data.) No cluster needed.
set -euo pipefail
SRC=${BF_SOURCE_DIR:?} BUILD=${BF_BUILD_DIR:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/bf-dash.XXXXXX")
trap 'rm -rf "$T"' EXIT
F="$SRC/deploy/dashboards/bulkfleet.ndjson"
CHK="$SRC/tests/support/check_dashboards.py"
"$BUILD/coordinator/bulkfleet-coordinator" publish --print-templates > "$T/tpl"
python3 "$CHK" "$F" "$T/tpl"
sed 's/service_p99_ms/service_p99x_ms/' "$F" > "$T/badfield"
sed 's/"id": "bulkfleet-rejections", "name": "panel_2"/"id": "bulkfleet-nothing", "name": "panel_2"/' "$F" > "$T/badref"
sed 's/\\"panelRefName\\": \\"panel_3\\"/\\"panelRefName\\": \\"panel_9\\"/' "$F" > "$T/badpanel"
for bad in badfield badref badpanel; do
    cmp -s "$F" "$T/$bad" && { echo "FAIL: the $bad copy did not change"; exit 1; }
    if python3 "$CHK" "$T/$bad" "$T/tpl" 2> "$T/$bad.err"; then
        echo "FAIL: check_dashboards accepted $bad"; exit 1
    fi
    head -2 "$T/$bad.err"
done
grep -q "service_p99x_ms" "$T/badfield.err" && grep -q "does not resolve" "$T/badref.err" &&
    grep -q "names no reference" "$T/badpanel.err" || { echo "FAIL: wrong reasons"; cat "$T"/*.err; exit 1; }
echo "PASS: dashboards file valid against the mapping; broken copies refused"
