#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""shardof_check.py — `bulkfleet-agent shard-of` against a real cluster's own shard placement
(integration_routing_shardof on OpenSearch; elasticsearch_routing and
elasticsearch_es9_quickstart on Elasticsearch 8 and 9).

  shardof_check.py URL PREFIX AGENT [--indices s7,s3r30,s30,p6] [--docs N]

For each index (s7: 7 shards; s3r30: 3 shards, number_of_routing_shards 30; s30: 30 shards;
p6: 6 shards, routing_partition_size 3, _routing required) N documents (default 1000) with ids
and routing values ASCII (quotes, backslashes), Latin, CJK and emoji (surrogate pairs), a third
with custom routing (p6: all), are indexed; shard-of is told the index's routing_num_shards,
partition size and index.version.created (Elasticsearch 9.4+ indices route by the number of
shards alone); each shard is then searched alone
(preference=_shards:K) and the shard each id is on is compared with shard-of's answer. A few
ids are also checked with _search_shards?routing= (the documented oracle). Exit 0 when every
document agrees; an AssertionError names the first disagreements. Python 3 stdlib only.
"""
import argparse
import json
import random
import subprocess
import urllib.request

ap = argparse.ArgumentParser()
ap.add_argument("es")
ap.add_argument("prefix")
ap.add_argument("agent")
ap.add_argument("--indices", default="s7,s3r30,s30,p6")
ap.add_argument("--docs", type=int, default=1000)
opt = ap.parse_args()
es, prefix, agent = opt.es, opt.prefix, opt.agent

def call(method, path, body=None, ctype="application/json"):
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(es + path, data=data, method=method,
                                 headers={"Content-Type": ctype})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read())

rnd = random.Random(16)
pools = [
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/\"\\ ",
    "\u00e9\u00e8\u00fc\u00df\u00f1\u00e5\u00f8\u0153\u0107\u017e",   # Latin: 2-byte UTF-8
    "\u6bce\u6708\u65e5\u66dc\u9031\u5e74\u4eba\u5927\u0799\uffe5",   # CJK etc: 3-byte
    "\U0001f600\U0001f680\U0001f4a9\U00010348\U0001d11e\U00020000",   # 4-byte: surrogate pairs
]
def word(n):
    out = []
    ascii_only = rnd.random() < 0.4
    for _ in range(n):
        pool = pools[0 if ascii_only else rnd.choice((0, 0, 0, 1, 2, 3))]
        out.append(rnd.choice(pool))
    return "".join(out)

indices = [  # name suffix, settings, routing mode: None | "some" | "all"
    ("s7", {"number_of_shards": 7}, "some", None),
    ("s3r30", {"number_of_shards": 3, "number_of_routing_shards": 30}, "some", None),
    ("s30", {"number_of_shards": 30}, "some", None),
    ("p6", {"number_of_shards": 6, "routing_partition_size": 3}, "all",
     {"_routing": {"required": True}}),
]
wanted = opt.indices.split(",")
unknown = set(wanted) - {i[0] for i in indices}
assert not unknown, f"--indices: unknown {sorted(unknown)}"
indices = [i for i in indices if i[0] in wanted]
seen_ids = set()
total = 0
for suffix, settings, rmode, mappings in indices:
    name = f"{prefix}-{suffix}"
    body = {"settings": dict(settings, number_of_replicas=0)}
    if mappings:
        body["mappings"] = mappings
    call("PUT", f"/{name}", json.dumps(body))
    meta = call("GET", f"/_cluster/state/metadata/{name}")["metadata"]["indices"][name]
    rshards = meta["routing_num_shards"]
    # Elasticsearch 9.4+ indices route by number_of_shards alone: shard-of decides from this
    created = meta["settings"]["index"]["version"]["created"]
    docs = []
    while len(docs) < opt.docs:
        i = word(rnd.randint(1, 24))
        if i in seen_ids or i.strip() == "":
            continue
        seen_ids.add(i)
        r = None
        if rmode == "all" or (rmode == "some" and rnd.random() < 0.33):
            r = word(rnd.randint(1, 12))
        docs.append((i, r))
    lines = []
    for i, r in docs:
        meta_line = {"_id": i}
        if r is not None:
            meta_line["routing"] = r
        lines.append(json.dumps({"index": meta_line}))   # \u escapes: surrogates as a pair
        lines.append('{"f":1}')
    res = call("POST", f"/{name}/_bulk?refresh=true", "\n".join(lines) + "\n", "application/x-ndjson")
    assert not res["errors"], [it for it in res["items"] if "error" in it["index"]][:3]
    # where the cluster put each id
    nshards = settings["number_of_shards"]
    actual = {}
    for k in range(nshards):
        hits = call("POST", f"/{name}/_search?preference=_shards:{k}",
                    json.dumps({"size": 10000, "_source": False, "query": {"match_all": {}}}))
        for h in hits["hits"]["hits"]:
            actual[h["_id"]] = k
    assert len(actual) == len(docs), (len(actual), len(docs))
    # what shard-of says (stdin lines: ID or ID<TAB>ROUTING, UTF-8)
    args = [agent, "shard-of", "--shards", str(nshards), "--routing-shards", str(rshards),
            "--index-created", created]
    if "routing_partition_size" in settings:
        args += ["--partition-size", str(settings["routing_partition_size"])]
    stdin = "".join(i + ("\t" + r if r is not None else "") + "\n" for i, r in docs)
    out = subprocess.run(args, input=stdin.encode(), capture_output=True, check=True).stdout.split()
    assert len(out) == len(docs), (len(out), len(docs))
    bad = [(i, r, int(o), actual[i]) for (i, r), o in zip(docs, out) if int(o) != actual[i]]
    assert not bad, (name, len(bad), bad[:5])
    routed = sum(1 for _, r in docs if r is not None)
    nonascii = sum(1 for i, _ in docs if any(ord(c) > 127 for c in i))
    pairs = sum(1 for i, _ in docs if any(ord(c) > 0xffff for c in i))
    print(f"{name}: {len(docs)} ids agree ({nshards} shards, routing_num_shards {rshards}, "
          f"index.version.created {created}, "
          f"{routed} with routing, {nonascii} non-ASCII ids, {pairs} with surrogate pairs)")
    total += len(docs)
    # the documented oracle for a few routing values (not partitioned: one shard each)
    if "routing_partition_size" not in settings:
        for i, r in docs[:10]:
            val = r if r is not None else i
            q = urllib.request.quote(val, safe="")
            ss = call("GET", f"/{name}/_search_shards?routing={q}")
            got = {c["shard"] for grp in ss["shards"] for c in grp}
            assert got == {actual[i]}, (val, got, actual[i])
print(f"all {total} documents: shard-of == the cluster")