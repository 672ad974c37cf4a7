#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_import_rally — geonames as published (tests/fixtures/rally-geonames) imported and
# run on the Elasticsearch 8 dev cluster as Rally runs it: the load alone reads the whole corpus,
# then the searches on the index it left, the scroll as search_after pages in a point in time
# (Elasticsearch's POST /<index>/_pit: OpenSearch's /_search/point_in_time is a 400 there, and
# without a point in time _doc-sorted pages over 5 shards skip and repeat hits).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
cp -r "$BF_SOURCE_DIR/tests/fixtures/rally-geonames" geo
python3 - geo <<'PY'
import json, re, sys
d = sys.argv[1]
with open(d + "/documents-2.json", "w") as f:
    for i in range(3000):
        f.write(json.dumps({"geonameid": i, "name": "Sankt Georgen %d" % i, "feature_class": "TA"[i % 2],
                            "country_code": ["AT", "DE"][i % 2], "population": i * 7,
                            "location": [9.0 + i / 1000.0, 47.0]}) + "\n")
# the dev cluster has no lang-painless: the track's painless search is left out of the challenge
c = open(d + "/challenges/default.json").read()
c, n = re.subn(r'\s*\{\s*"operation": "painless_static".*?endif %\}\s*\},', "", c, flags=re.S)
assert n == 1, c
open(d + "/challenges/default.json", "w").write(c)
PY
"$COORD" import-rally geo --allow-partial-corpus -o geo.yaml 2> ie || { cat ie >&2; fail "import-rally exit $?"; }
grep -q "12 tasks: 1 bulk, 4 searches imported" ie || { cat ie >&2; fail "the task counts"; }
sed -i -e "s|^  hosts: .*|  hosts: [\"$ES\"]|" -e "s/^  warmup: 70s$/  warmup: 0s/" -e "s/^  concurrency: \[8\]/  concurrency: [2]/" \
    -e "s/^  warmup: 10s   # the search-only/  warmup: 1s   # the search-only/" -e "s/^  duration: 60s   # Rally/  duration: 8s   # Rally/" \
    -e "s/^  target_rate: .*$/  target_rate: 0/" geo.yaml
curl -sf -X DELETE "$ES/geonames" > /dev/null 2>&1 || true
trap '[ -n "${BF_KEEP:-}" ] || curl -sf -X DELETE "$ES/geonames" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
# the requests go through a logging HTTP proxy: which point-in-time API was asked, and answered
PX=$(free_port)
python3 - "$PX" "$ES" > proxy.out 2>&1 <<'PY' &
import http.client, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
up = urllib.parse.urlparse(sys.argv[2])
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def fwd(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        c = http.client.HTTPConnection(up.hostname, up.port, timeout=60)
        hdr = {k: v for k, v in self.headers.items() if k.lower() not in ("transfer-encoding", "content-length", "connection")}
        c.request(self.command, self.path, body=body, headers=hdr)
        r = c.getresponse()
        data = r.read()
        print(self.command, self.path.split("?")[0], r.status, flush=True)
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("transfer-encoding", "content-length", "connection"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = fwd
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
PXPID=$!
trap 'kill $PXPID 2>/dev/null; [ -n "${BF_KEEP:-}" ] || curl -sf -X DELETE "$ES/geonames" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
for i in $(seq 50); do curl -sf "http://127.0.0.1:$PX/" > /dev/null 2>&1 && break; sleep 0.1; done
sed -i "s|^  hosts: .*|  hosts: [\"http://127.0.0.1:$PX\"]|" geo.yaml
P=$(free_port)
timeout 300 "$COORD" run geo.yaml --local-agents 1 --threads 2 --insecure --bind "tcp://127.0.0.1:$P" \
    --results r -q > /dev/null 2> re || { rc=$?; cat re >&2; fail "run exit $rc"; }
python3 - "$(cat r/*/matrix.json)" "$(cat proxy.out)" <<'PY' || fail "rows or the point in time"
import json, sys
rows = json.loads(sys.argv[1])["rows"]
assert len(rows) == 2, rows
load, srch = rows
assert load["verified"] is True and load["docs_counted"] == 3000 and load["corpus_ended"] in (1, True), load
q = {x["query"]: x for x in srch["queries"]}
assert sorted(q) == ["default", "desc_sort_population", "scroll", "term"], sorted(q)
assert q["scroll"]["ops_ok"] > 0 and q["scroll"]["errors"] == "", q["scroll"]
log = sys.argv[2].splitlines()
opened = [l for l in log if l.startswith("POST /geonames/_pit ") and l.endswith(" 200")]
closed = [l for l in log if l.startswith("DELETE /_pit ") and l.endswith(" 200")]
assert opened and len(closed) >= len(opened) - 1, "Elasticsearch's point in time not used: %r" % [l for l in log if "pit" in l or "point_in_time" in l][:10]
assert any(l.startswith("POST /geonames/_search/point_in_time ") for l in log), log[:20]  # OpenSearch's first
print("geonames on Elasticsearch 8: 3000 of 3000 documents, then %d scroll pages in %d points in time" % (q["scroll"]["ops_ok"], len(opened)))
PY
pass "geonames imported runs on Elasticsearch 8 as Rally runs it: the load, then the searches, the scroll paged in a point in time"
