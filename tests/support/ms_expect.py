#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ms_expect.py — the metrics store documents a results directory must give, and a check of a
store against them (the integration_metrics_* tests).

  ms_expect.py expect DIR            prints {"row": n, "second": n, "agent_second": n, "node": n,
                                     "matrix_row": n}
                                     counted from the results files themselves
  ms_expect.py check DIR URL [CAMPAIGN]
                                     _refresh, then _count per kind of that campaign in
                                     bulkfleet-samples-* and bulkfleet-results; exit 1 (with
                                     both sides printed) unless every count equals expect's
Python 3 stdlib only; every request has a 10 s timeout.
"""
import glob
import json
import os
import sys
import urllib.request


def expect(d):
    n = {"row": 0, "second": 0, "agent_second": 0, "node": 0, "matrix_row": 0}
    mp = os.path.join(d, "matrix.json")
    if os.path.exists(mp):
        n["matrix_row"] = len(json.load(open(mp))["rows"])
    for f in glob.glob(os.path.join(d, "cells", "*.ndjson")):
        name = os.path.basename(f)[:-len(".ndjson")]
        with open(f) as fh:
            for i, line in enumerate(fh):
                o = json.loads(line)
                t = o.get("type")
                if i == 0:
                    assert t == "row", (f, t)
                    n["row"] += 1
                elif t in ("second", "agent_second"):
                    n[t] += 1
        tf = os.path.join(d, "telemetry", name + ".ndjson")
        if os.path.exists(tf):
            with open(tf) as fh:
                for line in fh:
                    o = json.loads(line)
                    if o.get("type") == "tick":
                        n["node"] += len(o.get("nodes") or [])
    return n


def req(method, url, body=None):
    data = json.dumps(body).encode() if body is not None else None
    r = urllib.request.Request(url, data=data, method=method,
                               headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(r, timeout=10) as resp:
        return json.loads(resp.read() or b"{}")


def counts(url, campaign):
    req("POST", url + "/bulkfleet-samples-*,bulkfleet-results/_refresh?allow_no_indices=true")
    got = {}
    for kind in ("row", "second", "agent_second", "node", "matrix_row"):
        index = "bulkfleet-results" if kind in ("row", "matrix_row") else "bulkfleet-samples-*"
        q = {"query": {"bool": {"filter": [{"term": {"campaign": campaign}},
                                           {"term": {"kind": kind}}]}}}
        got[kind] = req("POST", url + "/" + index + "/_count?allow_no_indices=true", q)["count"]
    return got


def main(argv):
    if len(argv) >= 3 and argv[1] == "expect":
        print(json.dumps(expect(argv[2]), sort_keys=True))
        return 0
    if len(argv) >= 4 and argv[1] == "check":
        d, url = argv[2], argv[3].rstrip("/")
        campaign = argv[4] if len(argv) > 4 else os.path.basename(os.path.normpath(d))
        want, got = expect(d), counts(url, campaign)
        print(json.dumps({"campaign": campaign, "expect": want, "store": got}, sort_keys=True))
        return 0 if want == got else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
