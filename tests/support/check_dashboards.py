#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_dashboards.py — validate deploy/dashboards/bulkfleet.ndjson (OpenSearch Dashboards saved
objects) against the metrics store's index templates, since Dashboards cannot run here.

  check_dashboards.py NDJSON TEMPLATES [--es URL --campaign ID]

TEMPLATES is the output of `bulkfleet-coordinator publish --print-templates` (the samples
template, then the results template, one JSON object per line). Checked: every line is a saved
object with a unique id and a known type; every reference resolves to an object of the file with
that type; index patterns name the templates' index patterns and a date time field; every
visualization's visState and searchSourceJSON parse, its indexRefName is one of its references,
every field of its aggregations and of its query exists in the mapping of its index pattern with
a type that aggregation accepts; the dashboard's panels each name a reference. With --es the
aggregations of every visualization are run for real against that cluster for one campaign, and
each must give at least one bucket with a value. Exit 0, or 1 with every problem listed.
Python 3 stdlib only.
"""
import json
import re
import sys
import urllib.request

NUMERIC = {"long", "integer", "double", "float", "scaled_float", "short"}
AGG_TYPES = {
    "avg": NUMERIC, "sum": NUMERIC, "max": NUMERIC, "min": NUMERIC,
    "date_histogram": {"date"}, "terms": {"keyword", "long", "integer", "boolean"},
}
problems = []


def problem(msg):
    problems.append(msg)


def field_type(mapping, path):
    """type of a dotted field in a template's mappings, or None"""
    props = mapping.get("properties", {})
    parts = path.split(".")
    for i, p in enumerate(parts):
        f = props.get(p)
        if f is None:
            # axes.<axis>: the dynamic template maps string leaves as keywords
            if parts[0] == "axes" and i >= 1:
                return "keyword"
            return None
        if i == len(parts) - 1:
            return f.get("type", "object")
        props = f.get("properties", {})
    return None


def query_fields(q):
    """field:value pairs of a simple KQL query ("a:b and c:d")"""
    out = []
    for term in re.split(r"\s+and\s+", q.strip()) if q.strip() else []:
        m = re.fullmatch(r"([\w.@]+):([\w.*-]+)", term.strip())
        if not m:
            problem("query %r: only field:value terms joined by 'and' are checked" % q)
            continue
        out.append((m.group(1), m.group(2)))
    return out


def es_search(url, index, body):
    r = urllib.request.Request(url + "/" + index + "/_search", data=json.dumps(body).encode(),
                               method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(r, timeout=10) as resp:
        return json.loads(resp.read())


def run_live(url, campaign, index, vis, query):
    """the visualization's aggregations as one search; 1 if some bucket has a value"""
    metrics = [a for a in vis["aggs"] if a["schema"] == "metric"]
    buckets = [a for a in vis["aggs"] if a["schema"] != "metric"]
    leaf = {"m" + a["id"]: {a["type"]: {"field": a["params"]["field"]}} for a in metrics}
    aggs = leaf
    for b in reversed(buckets):
        if b["type"] == "date_histogram":
            body = {"date_histogram": {"field": b["params"]["field"], "fixed_interval": "10s",
                                       "min_doc_count": 1}}
        else:
            body = {"terms": {"field": b["params"]["field"], "size": b["params"].get("size", 10)}}
        body["aggs"] = aggs
        aggs = {"b" + b["id"]: body}
    filters = [{"term": {"campaign": campaign}}] + [{"term": {f: v}} for f, v in query]
    res = es_search(url, index, {"size": 0, "query": {"bool": {"filter": filters}}, "aggs": aggs})

    def has_value(node):
        for k, v in node.items():
            if k.startswith("m") and isinstance(v, dict) and v.get("value") is not None:
                return True
            if k.startswith("b") and isinstance(v, dict):
                for bk in v.get("buckets", []):
                    if has_value(bk):
                        return True
        return False
    return has_value(res.get("aggregations", {}))


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    es = campaign = None
    if "--es" in argv:
        es = argv[argv.index("--es") + 1].rstrip("/")
        campaign = argv[argv.index("--campaign") + 1]
    tl = [json.loads(l) for l in open(argv[2]) if l.strip()]
    if len(tl) != 2:
        problem("%s: expected 2 templates (samples, results), got %d" % (argv[2], len(tl)))
        return 1
    templates = {}  # index pattern string -> mappings
    for t in tl:
        for p in t["index_patterns"]:
            templates[p] = t["template"]["mappings"]
    objs = {}
    lines = [l for l in open(argv[1]) if l.strip()]
    for n, line in enumerate(lines, 1):
        try:
            o = json.loads(line)
        except ValueError as e:
            problem("line %d: not JSON: %s" % (n, e))
            continue
        for k in ("id", "type", "attributes", "references"):
            if k not in o:
                problem("line %d: no %r" % (n, k))
        if o.get("type") not in ("index-pattern", "visualization", "dashboard"):
            problem("line %d: unknown type %r" % (n, o.get("type")))
        if o.get("id") in objs:
            problem("line %d: id %r twice" % (n, o.get("id")))
        objs[o.get("id")] = o
    for oid, o in objs.items():
        for r in o.get("references", []):
            t = objs.get(r.get("id"))
            if t is None or t["type"] != r.get("type"):
                problem("%s: reference %s (%s) does not resolve" % (oid, r.get("id"), r.get("type")))
    mapping_of = {}
    for oid, o in objs.items():
        if o["type"] != "index-pattern":
            continue
        title = o["attributes"].get("title")
        m = templates.get(title)
        if m is None:
            problem("%s: title %r is none of the templates' index patterns %s" % (oid, title, sorted(templates)))
            continue
        mapping_of[oid] = (title, m)
        tf = o["attributes"].get("timeFieldName")
        if field_type(m, tf) != "date":
            problem("%s: time field %r is not a date in the mapping" % (oid, tf))
    nvis = 0
    for oid, o in objs.items():
        a = o["attributes"]
        if o["type"] == "visualization":
            nvis += 1
            try:
                vis = json.loads(a["visState"])
                ss = json.loads(a["kibanaSavedObjectMeta"]["searchSourceJSON"])
            except (ValueError, KeyError) as e:
                problem("%s: visState/searchSourceJSON: %s" % (oid, e))
                continue
            refs = {r["name"]: r for r in o["references"]}
            ref = refs.get(ss.get("indexRefName"))
            if ref is None or ref["id"] not in mapping_of:
                problem("%s: indexRefName %r names no index-pattern reference" % (oid, ss.get("indexRefName")))
                continue
            title, m = mapping_of[ref["id"]]
            for agg in vis.get("aggs", []):
                f = agg.get("params", {}).get("field")
                ft = field_type(m, f) if f else None
                ok = AGG_TYPES.get(agg.get("type"))
                if ok is None:
                    problem("%s: aggregation type %r not checked" % (oid, agg.get("type")))
                elif ft not in ok:
                    problem("%s: %s on %r: the field is %s in %s, not one of %s" % (oid, agg["type"], f, ft, title, sorted(ok)))
            q = query_fields(ss.get("query", {}).get("query", ""))
            for f, v in q:
                if field_type(m, f) != "keyword":
                    problem("%s: query field %r is not a keyword of %s" % (oid, f, title))
            if es and not problems:
                if not run_live(es, campaign, title, vis, q):
                    problem("%s: its aggregations over campaign %s in %s gave no value" % (oid, campaign, title))
                else:
                    print("live: %s gives values" % oid)
        elif o["type"] == "dashboard":
            panels = json.loads(a["panelsJSON"])
            names = {r["name"] for r in o["references"]}
            for p in panels:
                if p.get("panelRefName") not in names:
                    problem("%s: panel %s names no reference" % (oid, p.get("panelIndex")))
            if len(panels) != len(o["references"]):
                problem("%s: %d panels, %d references" % (oid, len(panels), len(o["references"])))
    if nvis < 4:
        problem("only %d visualizations (docs/s, service time, rejections, write queue expected)" % nvis)
    for p in problems:
        print("check_dashboards: " + p, file=sys.stderr)
    if not problems:
        print("check_dashboards: %d objects, %d visualizations: ids, references, fields ok" % (len(objs), nvis))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
