#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_sigv4_botocore.py — bulkfleet's SigV4 signer (bf_sigv4_sign) against botocore's own.

The requests bulkfleet sends to Amazon OpenSearch Service and Serverless: bulk bodies (NDJSON),
gzip bodies, query strings (filter_path, pipeline, several keys out of order), paths with an
index name, session tokens, services es and aoss, several regions and times. Each is signed by
both; the Authorization headers must be equal byte for byte. The query is given as bulkfleet
puts it on the wire (already encoded the SigV4 way), which botocore signs as it is.
Needs Debian's python3-botocore and the build's tests/bf_sigv4_sign (BF_BUILD_DIR).
"""
import datetime
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

SIGNER = os.path.join(os.environ["BF_BUILD_DIR"], "tests", "bf_sigv4_sign")


def bulk_body(rng, ndocs):
    lines = []
    for i in range(ndocs):
        lines.append(json.dumps({"index": {"_index": "bench-%d" % rng.randrange(3)}}))
        lines.append(json.dumps({"n": rng.randrange(10**9), "msg": "é ünïcode \"q\" %d" % i}))
    return ("\n".join(lines) + "\n").encode()


def botocore_auth(case, body):
    creds = Credentials(case["access_key"], case["secret_key"], case.get("token"))
    url = "%s://%s%s%s" % (case["scheme"], case["host"], case["path"],
                           "?" + case["query"] if case["query"] else "")
    req = AWSRequest(method=case["method"], url=url, data=body,
                     headers={"Content-Type": case["content_type"],
                              "X-Amz-Content-SHA256": case["payload"]})
    if case.get("gzip"):
        req.headers["Content-Encoding"] = "gzip"
    return sign_at(SigV4Auth(creds, case["service"], case["region"]), req, case["when"])


def sign_at(auth, req, when):
    """botocore's SigV4Auth.add_auth at a given time (add_auth reads the clock itself, by a
    name that changed between botocore versions; these steps are the same in 1.29 and 1.43)."""
    stamp = datetime.datetime.fromtimestamp(when, datetime.timezone.utc)
    req.context["timestamp"] = stamp.strftime("%Y%m%dT%H%M%SZ")
    auth._modify_request_before_signing(req)
    cr = auth.canonical_request(req)
    sts = auth.string_to_sign(req, cr)
    auth._inject_signature_to_request(req, auth.signature(sts, req))
    return req.headers["Authorization"]


def ours(case, body_path):
    hdrs = [["Host", case["host"]], ["Content-Type", case["content_type"]]]
    if case.get("gzip"):
        hdrs.append(["Content-Encoding", "gzip"])
    rq = dict(case, headers=hdrs, body_file=body_path)
    out = subprocess.run([SIGNER], input=json.dumps(rq).encode(), capture_output=True, check=True)
    return json.loads(out.stdout)


def main():
    import hashlib
    rng = random.Random(38)
    cases = []
    queries = ["", "filter_path=items.%2A.status%2Citems.%2A.error.type",
               "pipeline=bulkfleet-logs", "refresh=false&pipeline=p1&filter_path=took",
               "a=2&a=1&B=3", "q=%E1%88%B4"]
    paths = ["/_bulk", "/bench-1/_bulk", "/bench-0/_count", "/", "/_cluster/health/bench-%2A"]
    for i in range(60):
        service = ["es", "aoss"][i % 2]
        gz = i % 3 == 0
        raw = bulk_body(rng, rng.choice([1, 7, 100, 1000]))
        body = gzip.compress(raw, 1) if gz else raw
        case = {
            "method": "POST" if paths[i % len(paths)].endswith("_bulk") else rng.choice(["GET", "POST", "PUT"]),
            "scheme": "https",
            "host": rng.choice(["search-d1-abc.eu-west-1.es.amazonaws.com",
                                "x1y2.us-east-1.aoss.amazonaws.com", "127.0.0.1:25201"]),
            "path": paths[i % len(paths)],
            "query": queries[i % len(queries)],
            "content_type": "application/x-ndjson" if paths[i % len(paths)].endswith("_bulk")
            else "application/json",
            "gzip": gz,
            "access_key": "AKIDEXAMPLE%d" % i,
            "secret_key": "wJalrXUtnFEMI/K7MDENG+bPxRfiCY%dEXAMPLEKEY" % i,
            "region": rng.choice(["us-east-1", "eu-west-1", "ap-southeast-2"]),
            "service": service,
            "when": 1700000000 + rng.randrange(10**8),
        }
        if i % 4 == 1:
            case["token"] = "IQoJb3JpZ2luX2VjE//////////wEaCXVzLWVhc3QtMSJ%d+/=" % i
        case["payload"] = hashlib.sha256(body).hexdigest()
        cases.append((case, body))
    bad = 0
    with tempfile.TemporaryDirectory() as td:
        for n, (case, body) in enumerate(cases):
            path = os.path.join(td, "body")
            with open(path, "wb") as f:
                f.write(body)
            got = ours(case, path)
            want = botocore_auth(case, body)
            if got["authorization"] != want or got["content_sha256"] != case["payload"]:
                bad += 1
                print("case %d differs:\n ours     %s\n botocore %s\n canonical:\n%s" % (
                    n, got["authorization"], want, got["canonical_request"]))
    # the check can fail: a different secret must give a different signature
    case, body = cases[0]
    with tempfile.TemporaryDirectory() as td:
        path = os.path.join(td, "body")
        with open(path, "wb") as f:
            f.write(body)
        wrong = ours(dict(case, secret_key="not-the-secret"), path)["authorization"]
    if wrong == botocore_auth(case, body):
        print("a wrong secret signed like the right one")
        bad += 1
    print("%d requests signed by bf_sigv4 and botocore, %d differ" % (len(cases), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
