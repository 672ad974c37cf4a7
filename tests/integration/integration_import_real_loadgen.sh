#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_import_real_loadgen — import-loadgen on configs written as loadgen ships its own
# (tests/fixtures/loadgen-shipped: loadgen.yml with an env: section, $[[env.X]] in
# runner.default_endpoint and default_basic_auth, runner keys, a two-index body and a search;
# bulk.dsl in loadgen's DSL): the import exits 0 with the environment unset (an unset variable is
# a warning, as in validate; a secret's value is never copied), validate accepts it, and with the
# environment set it runs against the dev cluster: every document counted, the search measured.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
cp "$BF_SOURCE_DIR/tests/fixtures/loadgen-shipped/loadgen.yml" "$BF_SOURCE_DIR/tests/fixtures/loadgen-shipped/bulk.dsl" .
unset ES_ENDPOINT ES_USERNAME ES_PASSWORD INDEX_NAME
"$COORD" import-loadgen loadgen.yml -c 2 -d 3 -o lg.yaml 2> ie || { cat ie >&2; fail "import-loadgen of the shipped config exit $?"; }
grep -q "environment variable ES_PASSWORD is not set (checked with \"unset-es_password\"" ie ||
    { cat ie >&2; fail "no warning for the unset ES_PASSWORD at import"; }
! grep -q "bulkfleet-import-check\|not a URL" ie || { cat ie >&2; fail "the import's check failed on its own stand-in"; }
grep -q "hosts: \['\${ES_ENDPOINT:-http://localhost:9200}'\]" lg.yaml &&
    grep -q "password: '\${ES_PASSWORD}'" lg.yaml && ! grep -q "not-a-real-password" lg.yaml &&
    grep -q "^#  - ES_PASSWORD looks like a secret" lg.yaml && grep -q "^#  - runner.no_warm: not imported" lg.yaml &&
    grep -q "document 2 of the body goes to index 'lg-shipped-other'" lg.yaml ||
    { cat lg.yaml >&2; fail "env defaults, the secret, runner keys or the second index not as expected"; }
"$COORD" validate lg.yaml > /dev/null 2> ve || { cat ve >&2; fail "validate of the imported config exit $?"; }
grep -q "ES_PASSWORD is not set" ve || { cat ve >&2; fail "validate did not warn for ES_PASSWORD"; }
# the DSL: loadgen.yml beside it gives its env:, variables: and runner: (loadgen -config)
"$COORD" import-loadgen bulk.dsl -d 3 -o dsl.yaml 2> de || { cat de >&2; fail "import-loadgen bulk.dsl exit $?"; }
grep -q "using the env:, variables: and runner: of loadgen.yml beside it" de &&
    grep -q "^# Imported from bulk.dsl (in its YAML form)" dsl.yaml && grep -q "batch_size: \[100\]" dsl.yaml &&
    grep -q "request 1 (PUT /\$\[\[env.INDEX_NAME\]\]) not imported" dsl.yaml &&
    grep -q "name: '\${INDEX_NAME}'" dsl.yaml ||
    { cat de dsl.yaml >&2; fail "the DSL's requests, body_repeat_times or index"; }
INDEX_NAME=lg-dsl "$COORD" validate dsl.yaml > /dev/null 2> dve || { cat dve >&2; fail "validate dsl.yaml exit $?"; }
# loadgen's own loadgen.dsl is an API test without a bulk request: exit 2, each request named
printf 'DELETE /medcl\n\nPUT /medcl\n\nPOST /medcl/_search\n{"size": 0}\n' > api.dsl
"$COORD" import-loadgen api.dsl > /dev/null 2> ae && fail "a DSL without a bulk request was accepted"
grep -q "no bulk request .* among the 3 requests (DELETE /medcl, PUT /medcl, POST /medcl/_search)" ae ||
    { cat ae >&2; fail "the refusal of a DSL without bulk does not name its requests"; }
# a production-looking index name: the config's own name is marked
# (index.imported_name) and said once in the import's notes, not by validate or plan; a name
# edited by hand, or one from ${VAR}, is the user's: exactly one warning
sed 's/"lg-shipped"/"logs-shipped"/; s|/lg-shipped/_search|/logs-shipped/_search|' loadgen.yml > prod.yml
"$COORD" import-loadgen prod.yml -d 3 -o prod.yaml 2> pie || { cat pie >&2; fail "import-loadgen prod.yml exit $?"; }
grep -q "^  name: logs-shipped$" prod.yaml && grep -q "^  imported_name: logs-shipped$" prod.yaml &&
    [ "$(grep -c "^#  - index.name logs-shipped is the loadgen config's and looks like a production index name: bulkfleet writes into an existing logs-shipped" prod.yaml)" = 1 ] ||
    { cat prod.yaml >&2; fail "the imported name is not marked, or its note is not there once"; }
ES_PASSWORD=x "$COORD" validate prod.yaml > pvo 2> pve || { cat pve >&2; fail "validate prod.yaml exit $?"; }
ES_PASSWORD=x "$COORD" plan prod.yaml --agent-docs-per-s 100000 > /dev/null 2>> pve || { cat pve >&2; fail "plan prod.yaml exit $?"; }
! grep -q "production ind" pve && grep -q " 0 warnings$" pvo || { cat pvo pve >&2; fail "validate/plan warned about the name the import chose"; }
sed 's/^  name: logs-shipped$/  name: logs-by-hand/' prod.yaml > hand.yaml
ES_PASSWORD=x "$COORD" validate hand.yaml > hvo 2> hve || { cat hve >&2; fail "validate hand.yaml exit $?"; }
[ "$(grep -c "production ind" hve)" = 1 ] && grep -q "index.name: logs-by-hand looks like a production index; bulkfleet writes into it (index.recreate: false)" hve &&
    grep -q " 1 warning$" hvo || { cat hvo hve >&2; fail "a name edited by hand is not warned about exactly once"; }
INDEX_NAME=logs-from-env "$COORD" validate dsl.yaml > /dev/null 2> eve || { cat eve >&2; fail "validate dsl.yaml exit $?"; }
[ "$(grep -c "production ind" eve)" = 1 ] && grep -q "index.name: logs-from-env looks like a production index" eve &&
    ! grep -q "imported_name" dsl.yaml || { cat eve dsl.yaml >&2; fail "a name from \${INDEX_NAME} is not the user's to be warned about"; }
# run with the environment set, as loadgen is run: ES_ENDPOINT -> the dev cluster
curl -sf -X DELETE "$ES/lg-shipped" > /dev/null 2>&1 || true
trap 'curl -sf -X DELETE "$ES/lg-shipped" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
P=$(free_port)
sed -i "s/^  warmup: 10s/  warmup: 1s/" lg.yaml   # a short test; the import adds 10 s
ES_ENDPOINT="$ES" ES_PASSWORD=x timeout 120 "$COORD" run lg.yaml --local-agents 1 --threads 2 --insecure \
    --bind "tcp://127.0.0.1:$P" --results r -q > ro 2> re || { rc=$?; cat re >&2; fail "run exit $rc"; }
python3 - "$(cat r/*/matrix.json)" <<'PY' || fail "row"
import json, sys
row = json.loads(sys.argv[1])["rows"][0]
assert row["verified"] is True and row["docs_counted"] > 0, row
q = row.get("queries")
assert q and q[0]["query"] == "search_1" and q[0]["ops_ok"] > 0, q
print("counted", row["docs_counted"], "documents; search_1", q[0]["ops_ok"], "answers")
PY
pass "import-loadgen reads loadgen's shipped constructs (env: defaults, a secret not copied, runner keys, the DSL), its check warns for an unset variable instead of failing, and the scenario runs with its search measured"
