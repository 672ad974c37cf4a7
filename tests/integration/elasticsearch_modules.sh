#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_modules — validate and plan against the Elasticsearch 8 dev cluster (the
# "devcluster_es8" fixture: no mapper-extras, no lang-painless, bulkfleet-analysis-common
# without synonym) with a scenario that needs them: scaled_float and match_only_text fields, a
# painless script in a search query, a synonym filter. Each says, before any run, the module the
# target lacks, that it is the elasticsearch8 dev cluster (GET /_nodes/plugins, cluster_name
# bulkfleet-dev) and the way out from deploy/devcluster-modules.tsv (the OpenSearch dev cluster,
# or a real cluster); a scenario whose analysis the stand-in has (whitespace, lowercase) and
# whose fields are core types gets no such warning. Nothing is created on the cluster.
# elasticsearch_es9_quickstart runs it on the Elasticsearch 9 dev cluster (the elasticsearch9
# rows of the table: the engine and version are read from GET /).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
URL=${BF_TEST_ES:?BF_TEST_ES is not set (run through ctest)}
version=$(curl -sf "$URL" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"]["number"])') ||
    fail "no cluster at $URL"
engine="elasticsearch${version%%.*}"
cat > mods.yaml <<YAML
name: mods
target: {hosts: ["$URL"]}
index:
  name: bf-mods-never-created
  settings:
    analysis:
      filter: {syn: {type: synonym, synonyms: ["a, b"]}}
      analyzer: {text_syn: {type: custom, tokenizer: whitespace, filter: [lowercase, syn]}}
  mappings:
    properties:
      price: {type: scaled_float, scaling_factor: 100}
      message: {type: match_only_text}
      n: {type: long}
document: {source: '{"price": 1.5, "message": "hi", "n": 1}'}
search:
  clients: 1
  queries:
    - name: by_script
      body: '{"query": {"script_score": {"query": {"match_all": {}}, "script": {"source": "doc[''n''].value * 2"}}}}'
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [10], concurrency: [1]}
YAML
for cmd in validate plan; do
    set +e
    timeout 60 "$COORD" $cmd mods.yaml > "$cmd.out" 2>&1
    rc=$?
    set -e
    [ "$rc" = 0 ] || { cat "$cmd.out" >&2; fail "$cmd: exit $rc"; }
    dev="the $engine dev cluster of scripts/devcluster.sh (Elasticsearch $version at $URL, cluster_name bulkfleet-dev"
    grep -F "field type scaled_float and match_only_text needs the module mapper-extras, which the target lacks: $dev" "$cmd.out" |
        grep -qF "Instead: --engine opensearch2 (or opensearch3), or a real cluster" ||
        { cat "$cmd.out" >&2; fail "$cmd: mapper-extras not named with the dev cluster and the way out"; }
    grep -F "the painless script of search query 'by_script' needs the module lang-painless, which the target lacks: $dev" "$cmd.out" |
        grep -qF "Instead: --engine opensearch2 with BF_DEVCLUSTER_SCRIPTING=1, or a real cluster" ||
        { cat "$cmd.out" >&2; fail "$cmd: lang-painless not named"; }
    grep -F "index.settings analysis (synonym) needs the module analysis-common itself (not a partial stand-in), which the target lacks: $dev" "$cmd.out" |
        grep -qF "for those --engine opensearch2 or a real cluster" ||
        { cat "$cmd.out" >&2; fail "$cmd: the synonym filter's module not named"; }
done
pass "validate and plan name mapper-extras, lang-painless and analysis-common (synonym) as lacking on the $engine dev cluster (Elasticsearch $version), with the way out"
# what the dev cluster has: no warning
sed -e 's/, syn\]/]/' -e '/filter: {syn:/d' -e 's/type: scaled_float, scaling_factor: 100/type: double/' \
    -e 's/type: match_only_text/type: text/' -e '/^search:/,/^run:/{/^run:/!d}' mods.yaml > core.yaml
timeout 60 "$COORD" validate core.yaml > core.out 2>&1 || { cat core.out >&2; fail "core: validate failed"; }
if grep -q "which the target lacks" core.out; then cat core.out >&2; fail "core: a module said to be lacking"; fi
curl -sf -o /dev/null "$URL/bf-mods-never-created" && fail "validate created the index"
pass "a scenario of core types and the stand-in's analysis: no module said to be lacking"
