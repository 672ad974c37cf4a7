#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# validate_mistakes — `bulkfleet-coordinator validate` lists every mistake of a scenario in one
# run: every key mistake, every matrix value, include/exclude entry, unknown axis and template
# placeholder (a section with a key mistake gets its other checks once it is fixed), each at
# file:line:column with what to do, in file order, exit 2; more than 100 are capped with how
# many more. `plan` and `run` give the same list (the key pass first, then the checks), exit 2,
# before anything else. A mapping field type outside the server
# core is named with its module (mapper-extras). No cluster needed.
set -euo pipefail
BUILD=${BF_BUILD_DIR:?}
COORD="$BUILD/coordinator/bulkfleet-coordinator"
T=$(mktemp -d "${TMPDIR:-/tmp}/bf-validate.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$T"

# several key mistakes, and the sections without one checked on in the same run: the matrix
# values and the templates (document and variables have no key mistake here)
cat > keys.yaml <<'Y'
name: t
target: {hosts: [http://127.0.0.1:9200]}
index: {setings: {refresh_interval: 1s}}
document: {source: '{"a": $[[nope]]}'}
run: {durration: 5s, repeat: two}
matrix:
  batch_size: [big]
  concurency: [2]
Y
rc=0; "$COORD" validate keys.yaml > out 2> err || rc=$?
[ "$rc" = 2 ] || { cat err; fail "keys.yaml: exit $rc, expected 2"; }
expected='keys.yaml:3:9: index.setings: unknown key; did you mean '"'"'settings'"'"'?
keys.yaml:4:27: document.source: $[[nope]] names no variable; declare it under variables:
keys.yaml:5:7: run.durration: unknown key; did you mean '"'"'duration'"'"'?
keys.yaml:5:30: run.repeat: expected a whole number from 1 to 1000 or auto, got '"'"'two'"'"'
keys.yaml:7:16: matrix.batch_size: expected a whole number from 1 to 10000000, got '"'"'big'"'"'
keys.yaml:8:3: matrix.concurency: unknown axis; did you mean '"'"'concurrency'"'"'?
keys.yaml is not a valid scenario (6 mistakes above; the sections with a mistake in their keys get their other checks once it is fixed)'
got=$(sed 's/^bulkfleet-coordinator validate: error: //' err)
[ "$got" = "$expected" ] || { diff <(echo "$expected") <(echo "$got") || true; fail "keys.yaml: not the 6 mistakes in file order"; }
# a key mistake in a section holds back that section's other checks only
sed -i 's/document: {source/document: {sourc: 1, source/' keys.yaml
rc=0; "$COORD" validate keys.yaml > out 2> err || rc=$?
grep -qF "document.sourc: unknown key" err || { cat err; fail "keys.yaml: document's key mistake"; }
grep -qF '$[[nope]]' err && { cat err; fail "keys.yaml: the template of a document with a key mistake was checked"; }
grep -qF "got 'big'" err || { cat err; fail "keys.yaml: the matrix was not checked"; }

# a target mistake (a header bulkfleet sets) beside a key mistake elsewhere is said once: the
# target was built a second time when its own mistake made it look unclean
cat > header.yaml <<'Y'
name: t
target:
  hosts: [http://127.0.0.1:9200]
  headers: {Content-Type: text/plain}
index: {name: t, setings: {}}
document: {source: '{"a": 1}'}
matrix: {batch_size: [10], concurrency: [1]}
Y
rc=0; "$COORD" validate header.yaml > out 2> err || rc=$?
[ "$rc" = 2 ] || { cat err; fail "header.yaml: exit $rc, expected 2"; }
[ "$(grep -c 'Content-Type is set by bulkfleet' err)" = 1 ] || { cat err; fail "header.yaml: the header mistake not said exactly once"; }
grep -qF "header.yaml is not a valid scenario (2 mistakes above" err || { cat err; fail "header.yaml: not 2 mistakes"; }

# a new user's file: a misspelled key, a wrong type, a batch size of 0 and the
# target missing: all four in one run (the matrix was checked only once the target was there)
cat > newuser.yaml <<'Y'
name: t
index: {name: t, recreate: yes please}
document: {source: '{"a": 1}'}
run: {duraton: 10s}
matrix: {batch_size: [0, 500]}
Y
rc=0; "$COORD" validate newuser.yaml > out 2> err || rc=$?
expected='newuser.yaml:1:1: missing required key '"'"'target'"'"'
newuser.yaml:2:28: index.recreate: expected true or false, got '"'"'yes please'"'"'
newuser.yaml:4:7: run.duraton: unknown key; did you mean '"'"'duration'"'"'?
newuser.yaml:5:23: matrix.batch_size: expected a whole number from 1 to 10000000, got '"'"'0'"'"'
newuser.yaml is not a valid scenario (4 mistakes above; the sections with a mistake in their keys get their other checks once it is fixed)'
got=$(sed 's/^bulkfleet-coordinator validate: error: //' err)
[ "$rc" = 2 ] && [ "$got" = "$expected" ] || { diff <(echo "$expected") <(echo "$got") || true; fail "newuser.yaml: exit $rc, not the 4 mistakes in one run"; }

# once the keys are right: several matrix-value and several template mistakes, in one run
cat > later.yaml <<'Y'
name: t
target: {hosts: [http://127.0.0.1:9200]}
variables:
  - {name: uuid, type: uuid}
  - {name: n, type: range, from: 1, to: 9}
document:
  id: $[[uid]]
  source: '{"a": $[[nope]], "b": "$[[n]]", "c": "$[[alsonot]]", "d": $[[n}'
matrix:
  shards: [1, 1]
  batch_size: [500, big, 0]
  compression: [gzip, zip]
  concurency: [2, 4]
  exclude:
    - {shards: 7}
Y
rc=0; "$COORD" validate later.yaml > out 2> err || rc=$?
[ "$rc" = 2 ] || { cat err; fail "later.yaml: exit $rc, expected 2"; }
expected='later.yaml:7:7: document.id: $[[uid]] names no variable; did you mean $[[uuid]]?
later.yaml:8:18: document.source: $[[nope]] names no variable; declare it under variables:
later.yaml:8:50: document.source: $[[alsonot]] names no variable; declare it under variables:
later.yaml:8:70: document.source: unclosed placeholder '"'"'$[[n'"'"': '"'"'}'"'"' follows where '"'"']]'"'"' should; placeholders look like $[[name]] (a name of letters, digits, '"'"'_'"'"', '"'"'-'"'"' and '"'"'.'"'"')
later.yaml:10:15: matrix.shards: value '"'"'1'"'"' is listed twice (first at 10:12); remove one
later.yaml:11:21: matrix.batch_size: expected a whole number from 1 to 10000000, got '"'"'big'"'"'
later.yaml:11:26: matrix.batch_size: expected a whole number from 1 to 10000000, got '"'"'0'"'"'
later.yaml:12:23: matrix.compression: '"'"'zip'"'"' is not one of none, gzip; did you mean '"'"'gzip'"'"'?
later.yaml:13:3: matrix.concurency: unknown axis; did you mean '"'"'concurrency'"'"'?
later.yaml:15:16: matrix.exclude[0]: shards '"'"'7'"'"' is not among the axis values; exclude one that matrix.shards lists
later.yaml is not a valid scenario (10 mistakes above)'
got=$(sed 's/^bulkfleet-coordinator validate: error: //' err)
[ "$got" = "$expected" ] || { diff <(echo "$expected") <(echo "$got") || true; fail "later.yaml: not the 10 mistakes in file order"; }
# plan and run list the same mistakes as validate, exit 2 (they stopped at the first before:
# the user fixed one and met the next). run fails before it looks for an agent.
for cmd in plan run; do
    rc=0; "$COORD" $cmd later.yaml --agents 1 > out 2> err || rc=$?
    got=$(sed -E 's/^([0-9:.]+ )?bulkfleet-coordinator [a-z]+: error: //' err)
    [ "$rc" = 2 ] && [ "$got" = "$expected" ] || { diff <(echo "$expected") <(echo "$got") || true; fail "$cmd later.yaml: exit $rc, not validate's 10 mistakes"; }
done
# and the agent's standalone run, render and selftest (no cluster asked: the file is refused first)
for cmd in run render selftest; do
    rc=0; "$BUILD/agent/bulkfleet-agent" $cmd later.yaml > out 2> err || rc=$?
    got=$(sed -E 's/^([0-9:.]+ )?bulkfleet-agent( [a-z]+)?: error: //' err)
    [ "$rc" = 2 ] && [ "$got" = "$expected" ] || { diff <(echo "$expected") <(echo "$got") || true; fail "agent $cmd later.yaml: exit $rc, not validate's 10 mistakes"; }
done

# more than the cap: 100 lines and how many more
{ printf 'name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: %s}\nmatrix:\n  batch_size: [' "'{\"a\": 1}'"
  for i in $(seq 0 129); do printf '%sx%d' "$([ "$i" = 0 ] || echo ', ')" "$i"; done; printf ']\n'; } > many.yaml
rc=0; "$COORD" validate many.yaml > out 2> err || rc=$?
[ "$rc" = 2 ] || fail "many.yaml: exit $rc, expected 2"
[ "$(grep -c "error: many.yaml:5:" err)" = 100 ] || { tail -3 err; fail "many.yaml: not 100 positioned lines"; }
grep -qF "many.yaml: ... and 30 more mistakes" err || { tail -3 err; fail "many.yaml: no '... and 30 more'"; }
grep -qF "many.yaml is not a valid scenario (130 mistakes above)" err || { tail -1 err; fail "many.yaml: count"; }
# a mapping type from a module outside the server core is named with its module
# (scaled_float of an imported track, on a dev cluster without mapper-extras), a core one not
cat > module.yaml <<'Y'
name: t
target: {hosts: [http://127.0.0.1:9200]}
index:
  name: bf-module
  mappings: {properties: {price: {type: scaled_float, scaling_factor: 100}, w: {type: keyword}, t: {type: text, fields: {n: {type: token_count, analyzer: standard}}}}}
document: {source: '{"price": 1}'}
matrix: {batch_size: [10]}
Y
"$COORD" validate module.yaml > out 2> err || { cat err; fail "module.yaml: validate exit $?"; }
grep -qF "module.yaml: the mappings use scaled_float and token_count, from the OpenSearch/Elasticsearch module mapper-extras: a cluster without it refuses the index" err ||
    { cat err; fail "module.yaml: mapper-extras is not named"; }
grep -q "keyword" err && { cat err; fail "module.yaml: a core type named"; }
# every header bulkfleet sets itself under target.headers is said, not only the first (issue
# #42: Accept, Content-Type and Transfer-Encoding gave one error)
cat > headers.yaml <<'Y'
name: t
target:
  hosts: [http://127.0.0.1:9200]
  headers: {Accept: application/json, X-Team: search, Content-Type: application/json, Transfer-Encoding: chunked}
document: {source: '{"a": 1}'}
matrix: {batch_size: [10]}
Y
rc=0; "$COORD" validate headers.yaml > out 2> err || rc=$?
[ "$rc" = 2 ] || { cat err; fail "headers.yaml: exit $rc, expected 2"; }
for h in "4:13: target.headers: Accept" "4:55: target.headers: Content-Type" "4:87: target.headers: Transfer-Encoding"; do
    grep -qF "headers.yaml:$h is set by bulkfleet" err || { cat err; fail "headers.yaml: '$h' not said"; }
done
grep -qF "headers.yaml is not a valid scenario (3 mistakes above" err || { cat err; fail "headers.yaml: not 3 mistakes"; }
# a wrong target value hides none of the target's other checks: every bad host, a bad
# duration, the auth, the TLS pair and files and each header, each at file:line:column in file
# order (the first alone stopped the list before: "add password" and nothing else)
echo "not a certificate" > ca.txt
cat > target.yaml <<'Y'
name: t
target:
  hosts: [htp://127.0.0.1:9200, "http://127.0.0.1:x"]
  connect_timeout: soon
  auth: {username: elastic}
  tls: {cert_file: c.pem, ca_file: ca.txt}
  headers: {"Bad Name": x, Expect: y}
document: {source: '{"a": 1}'}
matrix: {batch_size: [10]}
Y
rc=0; "$COORD" validate target.yaml > out 2> err || rc=$?
[ "$rc" = 2 ] || { cat err; fail "target.yaml: exit $rc, expected 2"; }
expected="target.yaml:3:11: target.hosts: 'htp://127.0.0.1:9200' is not a URL; write it like http://127.0.0.1:9200 or https://host:9200
target.yaml:3:33: target.hosts: 'http://127.0.0.1:x' is not a URL libcurl can use (Port number was not a decimal number between 0 and 65535); write it like http://127.0.0.1:9200, or http://[::1]:9200 for an IPv6 address
target.yaml:4:20: target.connect_timeout: expected a duration like 30s, 5m, 1h30m or 250ms, got 'soon'
target.yaml:5:9: target.auth: username and password go together; add password
target.yaml:6:8: target.tls: cert_file and key_file go together (client certificate and its key)
target.yaml:6:20: target.tls.cert_file: cannot read client certificate 'c.pem': No such file or directory (relative paths start at the scenario's folder)
target.yaml:6:36: target.tls.ca_file: 'ca.txt' is not a PEM file (no \"-----BEGIN\" line); give the CA bundle in PEM format
target.yaml:7:13: target.headers: 'Bad Name' is not a valid header name
target.yaml:7:28: target.headers: Expect is set by bulkfleet; remove it and use nothing: bulkfleet never waits for 100-continue
target.yaml is not a valid scenario (9 mistakes above; the sections with a mistake in their keys get their other checks once it is fixed)"
got=$(sed 's/^bulkfleet-coordinator validate: error: //' err)
[ "$got" = "$expected" ] || { diff <(echo "$expected") <(echo "$got") || true; fail "target.yaml: not the 9 target mistakes in file order"; }
# plan and run say all nine too, the key pass's first
for cmd in plan run; do
    rc=0; "$COORD" $cmd target.yaml --agents 1 > out 2> err || rc=$?
    got=$(sed -E 's/^([0-9:.]+ )?bulkfleet-coordinator [a-z]+: error: //' err)
    [ "$rc" = 2 ] && [ "$got" = "$expected" ] || { diff <(echo "$expected") <(echo "$got") || true; fail "$cmd target.yaml: exit $rc, not validate's 9 mistakes"; }
done
# every named target's mistakes, not the first target's: a bad name, a bad host and a key it
# may not have in one target, a misspelt key in another
cat > targets.yaml <<'Y'
name: t
target: {hosts: [http://127.0.0.1:9200]}
targets:
  a b: {hosts: [http://127.0.0.1:9200]}
  direct: {hosts: [htp://127.0.0.1:9200], auth: {username: u}}
  gw: {hosts: [http://127.0.0.1:8080], hots: 1}
document: {source: '{"a": 1}'}
matrix: {batch_size: [10]}
Y
rc=0; "$COORD" validate targets.yaml > out 2> err || rc=$?
[ "$rc" = 2 ] || { cat err; fail "targets.yaml: exit $rc, expected 2"; }
expected="targets.yaml:4:3: targets.a b: a target name has 1 to 64 letters, digits, '_', '-' or '.' (it names cells and may name indices)
targets.yaml:5:20: targets.direct.hosts: 'htp://127.0.0.1:9200' is not a URL; write it like http://127.0.0.1:9200 or https://host:9200
targets.yaml:5:43: targets.direct.auth: every named target uses target.auth (one cluster, one set of credentials); write it there
targets.yaml:6:40: targets.gw.hots: unknown key; did you mean 'hosts'?
targets.yaml is not a valid scenario (4 mistakes above; the sections with a mistake in their keys get their other checks once it is fixed)"
got=$(sed 's/^bulkfleet-coordinator validate: error: //' err)
[ "$got" = "$expected" ] || { diff <(echo "$expected") <(echo "$got") || true; fail "targets.yaml: not the 4 mistakes in file order"; }
# a script in a search query or a runtime field is named with its module (issue 41: geonames'
# painless and expression searches on a dev cluster without them), a query without one not
cat > scripts.yaml <<'Y'
name: t
target: {hosts: [http://127.0.0.1:9200]}
index:
  name: bf-scripts
  mappings: {runtime: {d: {type: long, script: {source: "emit(1)"}}}, properties: {n: {type: long}}}
document: {source: '{"n": 1}'}
search:
  queries:
    - {name: ps, body: '{"query": {"script_score": {"query": {"match_all": {}}, "script": {"source": "1"}}}}'}
    - {name: ps2, body: '{"query": {"match_all": {}}, "script_fields": {"x": {"script": "doc.n.value"}}}'}
    - {name: ex, body: '{"query": {"function_score": {"script_score": {"script": {"lang": "expression", "source": "1"}}}}}'}
    - {name: plain, body: '{"query": {"term": {"n": 1}}}'}
matrix: {batch_size: [10]}
Y
"$COORD" validate scripts.yaml > out 2> err || { cat err; fail "scripts.yaml: validate exit $?"; }
grep -qF "scripts.yaml: search queries 'ps', 'ps2' and the mappings (runtime fields) run painless scripts, from the OpenSearch/Elasticsearch module lang-painless: a cluster without it refuses them" err &&
    grep -qF "scripts.yaml: search query 'ex' runs expression scripts, from the OpenSearch/Elasticsearch module lang-expression: a cluster without it refuses them (HTTP 400, and a refused search query stops the cell); of the dev clusters of scripts/devcluster.sh only the OpenSearch 2 one started with BF_DEVCLUSTER_SCRIPTING=1 has it (docs/development.md)" err &&
    ! grep -q "'plain'" err || { cat err; fail "scripts.yaml: the script modules are not named"; }
echo "PASS: validate lists every key, matrix and template mistake in one run, capped at 100; every forbidden header; every target mistake; names a mapping type's module and a script's"
