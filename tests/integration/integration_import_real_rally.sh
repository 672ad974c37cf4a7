#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_import_real_rally — import-rally on a track written as the published rally-tracks
# are (tests/fixtures/rally-jinja: {% import "rally.helpers" %}, rally.collect(parts=...) of
# operations/ and challenges/, track parameters with defaults, {% if %}, | tojson in the track and
# in its index body), rendered with Jinja2 (coordinator/render_track.py): --track-params k:v and
# FILE.json reach every file, a parameter no template reads is refused as Rally does, a Jinja
# error names the part's file:line and the construct; the scenario validates and runs against
# the dev cluster with the rendered settings and mappings, every document counted.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
cp -r "$BF_SOURCE_DIR/tests/fixtures/rally-jinja" track
python3 - <<'PY'
import bz2, json
d = [json.dumps({"@timestamp": "2026-12-01T10:00:%02dZ" % (i % 60), "status": [200, 404, 500][i % 3],
                 "message": "GET /page/%d" % i, "host": "h%d" % (i % 4)}) for i in range(1200)]
open("track/documents.json.bz2", "wb").write(bz2.compress(("\n".join(d) + "\n").encode()))
PY
# the defaults: bulk-size 200 from {% set %}, 2 shards, no refresh_interval ({% if %} false)
"$COORD" import-rally track -o d.yaml 2> de || { cat de >&2; fail "import-rally (defaults) exit $?"; }
grep -qF "info: wrote d.yaml; check it with: bulkfleet-coordinator validate d.yaml" de || { cat de >&2; fail "no 'wrote d.yaml' line"; }
# --help explains each option (a new user read only the usage line before)
"$COORD" import-rally --help > help.out || fail "import-rally --help exit $?"
for o in --challenge --track-params --corpus-dir --allow-partial-corpus --build-flavor --name --output --list; do
    grep -q "^  $o\|, $o\|^  -o, $o" help.out || { cat help.out >&2; fail "import-rally --help does not explain $o"; }
done
grep -q "batch_size: \[200\]" d.yaml && grep -q "shards: \[2\]" d.yaml && grep -q "concurrency: \[2\]" d.yaml &&
    grep -q '"_source":{"enabled":true}' d.yaml && ! grep -q '"index.refresh_interval"' d.yaml ||
    { cat d.yaml >&2; fail "the defaults of the track's parameters are not what Jinja renders"; }
# parameters on the command line and from a file reach the track, its parts and index.json
"$COORD" import-rally track --track-params 'bulk_size:300,number_of_shards:3,refresh_interval:5s,source_enabled:false' \
    -o p.yaml 2> pe || { cat pe >&2; fail "import-rally --track-params exit $?"; }
grep -q "batch_size: \[300\]" p.yaml && grep -q "shards: \[3\]" p.yaml &&
    grep -q '"index.refresh_interval":"5s"' p.yaml && grep -q '"_source":{"enabled":false}' p.yaml ||
    { cat p.yaml >&2; fail "--track-params k:v not rendered into the track and its index body"; }
echo '{"bulk_indexing_clients": 3, "number_of_shards": 1}' > params.json
"$COORD" import-rally track --track-params params.json -o f.yaml 2> fe || { cat fe >&2; fail "--track-params FILE.json exit $?"; }
grep -q "concurrency: \[3\]" f.yaml && grep -q "shards: \[1\]" f.yaml || { cat f.yaml >&2; fail "--track-params FILE.json not rendered"; }
# a parameter no template reads: refused, naming it and the ones the track reads
"$COORD" import-rally track --track-params bulk_sise:300 > /dev/null 2> ue && fail "an unused track parameter was accepted"
grep -q "bulk_sise is not read by any template.*the track reads: .*bulk_size" ue || { cat ue >&2; fail "unused parameter message"; }
# a Jinja error in a part: its own file and line, and the construct
cp -r track bad
sed -i 's/"bulk-size": {{ p_bulk_size }}/"bulk-size": {{ p_bulk_size | nosuchfilter }}/' bad/operations/default.json
"$COORD" import-rally bad > /dev/null 2> be && fail "a track with a Jinja error was accepted"
grep -q "bad/operations/default.json:4: Jinja syntax error: No filter named 'nosuchfilter'.*(\"bulk-size\": {{ p_bulk_size | nosuchfilter }}" be ||
    { cat be >&2; fail "the Jinja error does not name the part's file:line and the construct"; }
# every task accounted for: in the notes and once on stderr with the counts
grep -q "10 tasks: 1 bulk, 4 searches imported, 4 mapped to what each cell does; 1 not imported: stats (node-stats)" pe ||
    { cat pe >&2; fail "no count of the challenge's tasks on stderr"; }
grep -q "^#  - not imported: task stats (node-stats)$" p.yaml && grep -q "task 'refresh-after-index' (refresh): " p.yaml &&
    grep -q "^    - name: scroll   # Rally scroll-search$" p.yaml && grep -q "paging: {by: search_after, size: 100, depth: 300, pit: true}" p.yaml &&
    grep -q '^      path: "/{index}/_search?request_cache=false"$' p.yaml ||
    { cat p.yaml >&2; fail "the searches and the other tasks are not in the scenario and its notes"; }
# --list: the challenges and their task counts
"$COORD" import-rally track --list > l.out 2> le || { cat le >&2; fail "--list exit $?"; }
printf 'append-no-conflicts\t10 tasks\tdefault\tindex, then search\nindex-only\t1 tasks\n' | diff - l.out ||
    fail "--list output"
"$COORD" import-rally track --challenge index-only > /dev/null 2> oe && grep -q "1 tasks: 1 bulk, 0 searches imported, 0 mapped to what each cell does; none left out" oe ||
    { cat oe >&2; fail "--challenge index-only"; }
# OpenSearch Benchmark's layout: workload.json, benchmark.helpers, test_procedures, --test-procedure
cp -r track osb && mv osb/track.json osb/workload.json
sed -i 's/rally\.helpers/benchmark.helpers/; s/as rally with/as benchmark with/; s/rally\.collect/benchmark.collect/g; s/"challenges"/"test_procedures"/' osb/workload.json
"$COORD" import-rally osb --test-procedure index-only > o.yaml 2> ooe || { cat ooe >&2; fail "an OpenSearch Benchmark workload exit $?"; }
grep -q "(challenge index-only)" o.yaml && grep -q "duration: 4s" o.yaml || { cat o.yaml >&2; fail "test procedure index-only not imported"; }
# a corpus not downloaded yet: a warning naming the path and the base-url, exit 0; validate refuses
mkdir nodl && cp -r track/* nodl/ && rm nodl/documents.json.bz2
HOME="$TMP" "$COORD" import-rally nodl -o n.yaml 2> nde || { cat nde >&2; fail "a corpus not downloaded stopped the import"; }
grep -qF "'documents.json.bz2' is not downloaded yet" nde &&
    grep -qF "download it there before validate / run: curl -fL -o '$TMP/nodl/documents.json.bz2' https://example.invalid/jt-logs/documents.json.bz2" nde &&
    grep -qF "#  - corpus file not downloaded yet: $TMP/nodl/documents.json.bz2 (validate and run need it): curl -fL -o '$TMP/nodl/documents.json.bz2' https://example.invalid/jt-logs/documents.json.bz2" n.yaml &&
    grep -qF "info: wrote n.yaml; download the corpus (above), then check it with: bulkfleet-coordinator validate n.yaml" nde ||
    { cat nde n.yaml >&2; fail "no warning for the missing corpus with the file's address and how to fetch it"; }
"$COORD" validate n.yaml > /dev/null 2> nve && fail "validate accepted a scenario whose corpus is missing"
# --corpus-dir and Rally's data directory find it
mkdir -p cd "$TMP/.rally/benchmarks/data/jt-logs" && cp track/documents.json.bz2 cd/
"$COORD" import-rally nodl --corpus-dir cd > c.yaml 2> ce && grep -q "path: \"$TMP/cd/documents.json.bz2\"" c.yaml ||
    { cat ce c.yaml >&2; fail "--corpus-dir"; }
cp track/documents.json.bz2 "$TMP/.rally/benchmarks/data/jt-logs/"
HOME="$TMP" "$COORD" import-rally nodl > h.yaml 2> he && grep -q "path: \"$TMP/.rally/benchmarks/data/jt-logs/documents.json.bz2\"" h.yaml ||
    { cat he h.yaml >&2; fail "Rally's data directory"; }
# as the published tracks are written (http_logs, neural_search, nyc_taxis): a collect() in an
# {% if %} branch not taken is never run, a documents entry without target-index goes to the
# track's only index, a second index no bulk task writes is named in the notes
mkdir pub && cp -r track/* pub/
python3 - pub/track.json <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
t = t.replace('"indices": [', '"indices": [\n    {%- if generated_corpus is defined %}\n    {{ rally.collect(parts="gen-idx-*.json") }},\n    {%- endif %}', 1)
t = t.replace('"body": "index.json"\n    }', '"body": "index.json"\n    },\n    {"name": "jt-lookup", "body": "index.json"}', 1)
t = t.replace(',\n          "target-index": "jt-logs"', '', 1)
open(p, "w").write(t)
PY
"$COORD" import-rally pub -o pub.yaml 2> pue || { cat pue >&2; cat pub/track.json >&2; fail "a track written as the published ones exit $?"; }
grep -q "^#  - not imported: the track's other 1 index (jt-lookup): the imported bulk task does not write it" pub.yaml &&
    grep -q "^  name: jt-logs$" pub.yaml || { cat pub.yaml >&2; fail "the other index is not named, or the corpus lost its index"; }
# a key repeated in the rendered track (elser-ingest-speedtest): Rally's JSON reader keeps the
# last value, so does the import, with a warning where; a bulk operation fed by a param-source
# of the track's Python (random_vector): refused, saying so
mkdir dup && cp -r track/* dup/ && sed -i 's/"description": "\(.*\)",$/"description": "first",\n  "description": "\1",/' dup/track.json
"$COORD" import-rally dup -o dup.yaml 2> due || { cat due dup/track.json >&2; fail "a track with a repeated key exit $?"; }
grep -q "dup/track.json (rendered):[0-9]*:[0-9]*: duplicate object key near '\"description\"'; Rally keeps the key's last value" due ||
    { cat due >&2; fail "no warning for the repeated key"; }
mkdir psrc && cp -r track/* psrc/
python3 - psrc <<'PY'
import sys
d = sys.argv[1]
t = open(d + "/track.json").read()
i = t.index('"corpora": ['); j = t.index('"operations": [')
open(d + "/track.json", "w").write(t[:i] + t[j:])
o = open(d + "/operations/default.json").read()
open(d + "/operations/default.json", "w").write(o.replace('"operation-type": "bulk",', '"operation-type": "bulk",\n      "param-source": "random-bulk-param-source",', 1))
PY
"$COORD" import-rally psrc > /dev/null 2> pse && fail "a bulk operation fed by a param-source was accepted"
grep -q "takes its documents from the param-source of the track's own Python (track.py)" pse || { cat pse >&2; fail "param-source refusal"; }
# a corpus shorter than its document-count: an error naming --allow-partial-corpus, a warning with it
mkdir part && cp -r track/* part/ && sed -i 's/"document-count": 1200/"document-count": 5000/' part/track.json
"$COORD" import-rally part > /dev/null 2> pae && fail "a corpus shorter than its document-count was accepted"
grep -q '"document-count" is 5000 but .* holds 1200 documents: .*(or, for a prefix you made on purpose, import with --allow-partial-corpus)' pae ||
    { cat pae >&2; fail "the short corpus error does not name --allow-partial-corpus"; }
"$COORD" import-rally part --allow-partial-corpus -o part.yaml 2> pwe || { cat pwe >&2; fail "--allow-partial-corpus exit $?"; }
grep -q "holds 1200 of the track's \"document-count\" 5000 documents (--allow-partial-corpus" pwe &&
    grep -q "holds 1200 of the track's document-count 5000 (--allow-partial-corpus)" part.yaml ||
    { cat pwe part.yaml >&2; fail "--allow-partial-corpus warning or note"; }
# a track whose own index name looks like a production one (http_logs' logs-181998
# item 9): marked as the track's (index.imported_name), said once in the notes, and neither
# validate nor plan warns about it
mkdir logs && cp -r track/* logs/ && sed -i 's/"jt-logs"/"logs-181998"/g' logs/track.json
"$COORD" import-rally logs -o logs.yaml 2> loe || { cat loe >&2; fail "import-rally logs exit $?"; }
grep -q "^  name: logs-181998$" logs.yaml && grep -q "^  imported_name: logs-181998$" logs.yaml &&
    [ "$(grep -c "^#  - index.name logs-181998 is the track's own and looks like a production index name: a run creates it, deletes only an index bulkfleet created and refuses (exit 3, nothing deleted)" logs.yaml)" = 1 ] ||
    { cat logs.yaml >&2; fail "the track's name is not marked, or its note is not there once"; }
"$COORD" validate logs.yaml > lvo 2> lve || { cat lve >&2; fail "validate logs.yaml exit $?"; }
"$COORD" plan logs.yaml --agent-docs-per-s 100000 > /dev/null 2>> lve || { cat lve >&2; fail "plan logs.yaml exit $?"; }
! grep -q "production ind" lve && grep -q " 0 warnings$" lvo || { cat lvo lve >&2; fail "validate/plan warned about the track's own name"; }
# index names that look like production ones, written by hand (index.name no longer the
# imported one): one warning for all of them, not one per name
sed 's/^  name: jt-logs$/  name: logs-181998-{i}\n  count: 7/' part.yaml > prod.yaml
grep -q "^  imported_name: jt-logs$" prod.yaml || { cat prod.yaml >&2; fail "the imported name is not marked"; }
"$COORD" validate prod.yaml > /dev/null 2> pve || { cat pve >&2; fail "validate prod.yaml exit $?"; }
[ "$(grep -c 'production ind' pve)" = 1 ] && grep -q "index.name: logs-181998-0 (and 6 more names of this scenario, up to logs-181998-6) look like production indices" pve ||
    { cat pve >&2; fail "the production-name warning is not said once for the 7 names"; }
# and a scenario written by hand, never imported: exactly one warning
printf '%s\n' 'name: hand' 'target: {hosts: ["http://127.0.0.1:9"]}' 'index: {name: logs-app}' \
    "document: {source: '{\"a\": 1}'}" 'matrix: {batch_size: [10]}' > hand.yaml
"$COORD" validate hand.yaml > hvo 2> hve || { cat hve hand.yaml >&2; fail "validate hand.yaml exit $?"; }
[ "$(grep -c 'production ind' hve)" = 1 ] && grep -q "hand.yaml: index.name: logs-app looks like a production index" hve &&
    grep -q " 1 warning$" hvo || { cat hvo hve >&2; fail "a hand-written production-looking name is not warned about exactly once"; }
# geonames as published (tests/fixtures/rally-geonames: an excerpt in the track's own format):
# its param-source searches (a ~640 KB terms query built by track.py) are named as not imported,
# never match_all under their names; its scroll ("search" with pages) is paged
cp -r "$BF_SOURCE_DIR/tests/fixtures/rally-geonames" geo
python3 - geo <<'PY2'
import json, sys
with open(sys.argv[1] + "/documents-2.json", "w") as f:
    for i in range(3000):
        f.write(json.dumps({"geonameid": i, "name": "Sankt Georgen %d" % i, "feature_class": "TA"[i % 2],
                            "country_code": ["AT", "DE"][i % 2], "population": i * 7,
                            "location": [9.0 + i / 1000.0, 47.0]}) + "\n")
PY2
"$COORD" import-rally geo --allow-partial-corpus -o geo.yaml 2> geoe || { cat geoe >&2; fail "import-rally geonames exit $?"; }
for t in large_terms large_filtered_terms large_prohibited_terms; do
    grep -q "^#  - not imported: task $t (search: its request comes from the param-source '.*-terms-query-source' of the track's track.py, which bulkfleet does not run (and track.py is not beside the track))$" geo.yaml &&
        ! grep -q "name: $t " geo.yaml || { cat geo.yaml >&2; fail "geonames' $t imported as another query, or not named"; }
done
grep -q "13 tasks: 1 bulk, 5 searches imported, 4 mapped to what each cell does; 3 not imported: large_terms" geoe ||
    { cat geoe >&2; fail "geonames' task counts"; }
grep -A4 "^    - name: scroll   # Rally search$" geo.yaml | grep -q "paging: {by: search_after, size: 1000, depth: 25000, pit: true}" &&
    grep -q "task 'scroll' (search): Rally scrolls 25 pages of 1000 hits, imported as a paged query" geo.yaml ||
    { cat geo.yaml >&2; fail "geonames' scroll is not paged as Rally's 25 pages of 1000"; }
"$COORD" validate geo.yaml > /dev/null 2> gve || { cat gve >&2; fail "validate geo.yaml exit $?"; }
# with the track's track.py beside it, its three param-sources are written as the queries their
# classes build: a terms query on name.raw over terms.txt's lines and Rally's random number
cp geo/track.py.txt geo/track.py
"$COORD" import-rally geo --allow-partial-corpus -o geop.yaml 2> geope || { cat geope >&2; fail "import-rally geonames with track.py exit $?"; }
grep -q "13 tasks: 1 bulk, 8 searches imported, 4 mapped to what each cell does; none left out" geope &&
    grep -q "^  - {name: rally_random_100, type: range, from: 1, to: 100}$" geop.yaml &&
    grep -A2 "^    - name: large_terms   # Rally search$" geop.yaml | grep -q '^      body: "{\\"query\\":{\\"terms\\":{\\"name.raw\\":\[\\"Nyberget\\",.*\\"\$\[\[rally_random_100\]\]\\"\]}}}"$' &&
    grep -A2 "^    - name: large_prohibited_terms   # Rally search$" geop.yaml | grep -q 'must_not.*rally_random_1000' ||
    { grep -v "^      body" geop.yaml >&2; cat geope >&2; fail "geonames' param-source searches not written as their classes build them"; }
"$COORD" validate geop.yaml > /dev/null 2> gpve || { cat gpve >&2; fail "validate geop.yaml exit $?"; }
# the same as an OpenSearch Benchmark workload (workload.json, workload.py laid out its way)
cp -r geo geo-osb && rm geo-osb/track.py && cp geo/workload.py.txt geo-osb/workload.py && mv geo-osb/track.json geo-osb/workload.json
sed -i 's/rally\.helpers/benchmark.helpers/; s/rally\.collect/benchmark.collect/g; s/"challenges"/"test_procedures"/' geo-osb/workload.json
"$COORD" import-rally geo-osb --allow-partial-corpus -o geoo.yaml 2> geooe || { cat geooe >&2; fail "import-rally geonames (OpenSearch Benchmark) exit $?"; }
grep -q "8 searches imported, 4 mapped to what each cell does; none left out" geooe &&
    grep -q "^#  - task 'large_filtered_terms' (search): its body comes from the param-source 'filtered-terms-query-source' of the track's workload.py; written here" geoo.yaml ||
    { grep -v "^      body" geoo.yaml >&2; cat geooe >&2; fail "the workload.py's param-sources not written as their classes build them"; }
# validate and run: the rendered mappings and settings on the cluster, every document counted
sed -i "s|^  hosts: .*|  hosts: [\"$ES\"]|" p.yaml
# the schedule's order (issue 41 3d, 3e): the bulk task reads its corpus once, whole (the
# searches' 3 s time-period cut it to 900 of 1200 before, silently), then the searches run in
# a search-only cell on the index it left
grep -q "^  duration: 86400s   # no time-period: the corpus is read once, whole" p.yaml &&
    grep -q "^  search_clients: \[0\]" p.yaml && grep -q "^    - {shards: 3, replicas: 0, concurrency: 0, search_clients: 4}$" p.yaml &&
    grep -q "^  duration: 3s   # the searches' longest time-period$" p.yaml ||
    { cat p.yaml >&2; fail "p.yaml: not the load, then the searches"; }
sed -i "s/^  warmup: 10s   # the search-only cell's/  warmup: 1s   # the search-only cell's/" p.yaml
"$COORD" validate p.yaml > /dev/null 2> ve || { cat ve p.yaml >&2; fail "validate exit $?"; }
P=$(free_port)
curl -sf -X DELETE "$ES/jt-logs" > /dev/null 2>&1 || true
trap 'curl -sf -X DELETE "$ES/jt-logs" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
timeout 300 "$COORD" run p.yaml --local-agents 1 --threads 2 --insecure --bind "tcp://127.0.0.1:$P" \
    --results r -q > ro 2> re || { rc=$?; cat re >&2; fail "run exit $rc"; }
python3 - "$(cat r/*/matrix.json)" "$(curl -sf "$ES/jt-logs/_settings")" <<'PY' || fail "rows or index"
import json, sys
rows = json.loads(sys.argv[1])["rows"]
assert len(rows) == 2, rows
row, srow = rows
# the load alone, the whole corpus read (the cell ended at its end, not at a duration)
assert row["verified"] is True and row["docs_counted"] == 1200, row
assert row["shards"] == 3 and row["batch_size"] == 300 and row["concurrency"] == 2, row
assert row["corpus_ended"] in (1, True) and row["search_clients"] == 0, row
assert not row.get("queries") or sum(x["ops_sent"] for x in row["queries"]) == 0, row["queries"]
s = json.loads(sys.argv[2])["jt-logs"]["settings"]["index"]
assert s["refresh_interval"] == "5s" and s["number_of_shards"] == "3", s
# then the searches, on the index the load left (1200 documents)
assert srow["concurrency"] == 0 and srow["search_clients"] == 4 and srow["shards"] == 3, srow
q = srow.get("queries")
names = sorted(x["query"] for x in q)
assert sum(x["ops_ok"] for x in q) > 0, q  # the searches were measured
assert names == ["default", "phrase", "scroll", "term"], (names, q)
assert all(x["mean_hits"] > 0 for x in q if x["ops_ok"]), q  # on the loaded index
print("queries", json.dumps(q)[:600])
print("counted", row["docs_counted"], "of 1200; settings from the rendered index.json")
PY
# a search in a parallel block with the bulk task runs beside it, and the cell ends when the
# corpus is read, searches or not (run.duration 86400 s is only a bound): the search clients
# start nothing after it (they ran until run.duration before)
mkdir par && cp -r track/* par/ && rm par/challenges/default.json
cat > par/challenges/default.json <<'JSON'
    {
      "name": "beside",
      "default": true,
      "schedule": [
        {"operation": "delete-index"},
        {"parallel": {"tasks": [
          {"operation": "index-append", "clients": 2},
          {"operation": "default", "clients": 1}
        ]}}
      ]
    }
JSON
"$COORD" import-rally par -o par.yaml 2> pre || { cat pre >&2; fail "import-rally par exit $?"; }
grep -q "^  duration: 86400s " par.yaml && ! grep -q "search_clients" par.yaml ||
    { cat par.yaml >&2; fail "par.yaml: the search is not beside the load"; }
sed -i "s|^  hosts: .*|  hosts: [\"$ES\"]|" par.yaml
timeout 300 "$COORD" run par.yaml --local-agents 1 --threads 2 --insecure --bind "tcp://127.0.0.1:$P" \
    --results rp -q > /dev/null 2> rpe || { rc=$?; cat rpe >&2; fail "run par.yaml exit $rc"; }
python3 - "$(cat rp/*/matrix.json)" <<'PY' || fail "the beside row"
import json, sys
rows = json.loads(sys.argv[1])["rows"]
assert len(rows) == 1, rows
r = rows[0]
assert r["verified"] is True and r["docs_counted"] == 1200 and r["corpus_ended"] in (1, True), r
assert r["duration_s"] < 600, r["duration_s"]  # ended at the corpus's end, not at 86400 s
q = r["queries"]
assert [x["query"] for x in q] == ["default"] and q[0]["ops_ok"] > 0, q
print("beside: %d documents, the cell ended at %.1f s with %d searches" % (r["docs_counted"], r["corpus_end_s"], q[0]["ops_ok"]))
PY
# http_logs as published (tests/fixtures/rally-http_logs: 3 of its days): each corpus file into
# its own index with the track's names, as Rally does (they were logs-181998-0..6 with every
# bulk spread over all of them), and the notes say what the scenario loads
cp -r "$BF_SOURCE_DIR/tests/fixtures/rally-http_logs" hl
python3 - hl <<'PY'
import bz2, json, sys
for day, n in (("181998", 700), ("191998", 500), ("201998", 300)):
    lines = [json.dumps({"@timestamp": 893980800 + i, "clientip": "10.0.%d.%d" % (i // 250, i % 250),
                         "request": "GET /english/%s/%d.htm HTTP/1.0" % (day, i), "status": 200, "size": 1000 + i})
             for i in range(n)]
    open("%s/documents-%s.json.bz2" % (sys.argv[1], day), "wb").write(bz2.compress(("\n".join(lines) + "\n").encode()))
PY
"$COORD" import-rally hl --allow-partial-corpus -o hl.yaml 2> hle || { cat hle >&2; fail "import-rally http_logs exit $?"; }
grep -q "^  names: \[logs-181998, logs-191998, logs-201998\]$" hl.yaml && grep -q "^    indices: by_file " hl.yaml &&
    ! grep -q "^  count: " hl.yaml && grep -q "the scenario creates and loads logs-181998, logs-191998, logs-201998 only" hl.yaml ||
    { cat hl.yaml >&2; fail "http_logs: not each file into its own index by the track's name"; }
sed -i -e "s|^  hosts: .*|  hosts: [\"$ES\"]|" -e "s/^  warmup: 240s$/  warmup: 0s/" -e "s/^  warmup: 10s   # the search-only/  warmup: 1s   # the search-only/" \
    -e "s/^  duration: 60s   # Rally/  duration: 2s   # Rally/" -e "s/^  concurrency: \[8\]/  concurrency: [2]/" hl.yaml
for ix in logs-181998 logs-191998 logs-201998; do curl -sf -X DELETE "$ES/$ix" > /dev/null 2>&1 || true; done
timeout 300 "$COORD" run hl.yaml --local-agents 1 --threads 2 --insecure --bind "tcp://127.0.0.1:$P" \
    --results rh -q > /dev/null 2> rhe || { rc=$?; cat rhe >&2; fail "run hl.yaml exit $rc"; }
counts=$(for ix in logs-181998 logs-191998 logs-201998; do curl -sf "$ES/$ix/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'; done | tr '\n' ' ')
[ "$counts" = "700 500 300 " ] || { cat rhe >&2; fail "http_logs' days are not each in its own index: counts $counts (want 700 500 300)"; }
python3 - "$(cat rh/*/matrix.json)" <<'PY' || fail "http_logs rows"
import json, sys
rows = json.loads(sys.argv[1])["rows"]
assert len(rows) == 2 and rows[0]["verified"] is True and rows[0]["docs_counted"] == 1500, rows[0]
assert rows[1]["concurrency"] == 0 and rows[1]["queries"][0]["ops_ok"] > 0, rows[1]
print("http_logs: 700 500 300 documents in logs-181998, logs-191998, logs-201998; the search after")
PY
for ix in logs-181998 logs-191998 logs-201998; do curl -sf -X DELETE "$ES/$ix" > /dev/null 2>&1 || true; done
pass "import-rally renders a Jinja track as Rally does (collect, parameters with defaults, if, tojson; k:v and FILE.json; unused parameter refused; Jinja error at the part's file:line), validates, runs, counts 1200 of 1200"
