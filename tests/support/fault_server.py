#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fault_server.py — a scripted OpenSearch-like _bulk server for bulkfleet's integration tests.

It answers every _bulk request the way --mode says (success, item errors, whole-request errors,
transport faults) and writes one JSON line per request to --log describing exactly what the
client sent: headers that matter to the bulk protocol (Content-Type, Content-Length,
Transfer-Encoding, Expect, Content-Encoding), whether the NDJSON body ends with a newline, how
many documents it held and every _id, so a test can check framing, compression and id
uniqueness after the fact. In the modes that produce a bulk response (ok, mixed) it also
enforces the rules a real cluster enforces (docs/internals/es-api.md §1.2, §1.3): trailing newline, one
Content-Type, action lines of one known key, known metadata keys, an index for every action;
breaking them gives the same 400/406 a cluster would.

Also served, so that a whole run can target it: GET / (version), HEAD/PUT/DELETE on index or
template paths ({"acknowledged":true}), _refresh, _count (documents acknowledged 2xx so far, per
index; DELETE of the index forgets them), _cluster/health (green).

Capacity mode (--mode capacity --capacity DOCS_PER_S [--queue-ms MS] [--base-ms MS]) is a
cluster with a known limit, for find-max: one virtual write pool shared by every connection
indexes --capacity documents a second, a request's documents wait behind the work queued
before them (service time grows with the queue), and the documents that would wait more than
--queue-ms of work are answered 429 item by item (a token bucket --capacity x --queue-ms deep,
refilled at --capacity/s). Every request also takes --base-ms on its own (parsing, the round
trip), so larger batches pay off up to a knee, as on a real cluster. --cold-s S
--cold-capacity N: a cold start (a fresh JVM): for S seconds from the first bulk request the
pool indexes N documents a second, then --capacity.
--slow-after-creates N=MS makes each request's own time MS from the N-th index creation (PUT of
an index) on: a cluster that answers each request later without indexing less (a far-away link,
a proxy), for find-max's open-loop steps, where the client's connections then limit the rate.

GET <index>/_stats/store answers a primary store size of --store-bytes-per-doc (default 200)
per acknowledged document; POST <index>/_flush is acknowledged.

Usage: fault_server.py --port P --mode MODE [--log FILE] [--host H] [--max-lifetime S]
                       [--capacity N --queue-ms MS --base-ms MS] [--store-bytes-per-doc N]
                       [--tls-cert PEM --tls-key PEM [--tls-client-ca PEM]]
                       [--basic-auth USER:PASSWORD]
--basic-auth answers every request without those credentials (HTTP basic) 401 with the security
plugin's security_exception, as a secured cluster does; each request's log line says
"auth": "ok" or "refused".
--sigv4 REGION/SERVICE checks every request's AWS Signature Version 4 with botocore
(sigv4_verify.py; key and secret from BF_FAULT_AWS_ACCESS_KEY_ID / _SECRET_ACCESS_KEY, more
keys as BF_FAULT_AWS_EXTRA_KEYS=KEY:SECRET,...): each
log line says "sigv4": "ok" or the refusal and "sigv4_key" the key id, answered 403 {"message": ...} as AWS does;
--clock-skew-s and --expired-token play a skewed clock and an expired session token.
--refuse-chunked answers 411 to every chunked body (a proxy that wants lengths).
--serverless plays OpenSearch Serverless (no GET /, cluster and node APIs, _refresh; no shard
settings; no _id in index/create items) and --count-lag-s N makes _count see a document N
seconds after its acknowledgement. --elastic-serverless plays an Elastic Serverless project
(build_flavor serverless; non-public APIs 410; only Serverless' index settings).
Prints "READY <port>" on stdout once listening (--port 0 picks a free port). Exits by itself
after --max-lifetime seconds (default 600), or on SIGTERM/SIGINT. Python 3 stdlib only.
"""

import argparse
import base64
import gzip
import io
import json
import random
import re
import signal
import socket
import ssl
import string
import struct
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

MODES = ("ok", "mixed", "reject429", "too_large", "reset", "stall", "notjson", "unauthorized",
         "bad_request", "unavailable", "bad_gateway", "not_found", "capacity", "close_reused",
         "stall_reused", "slow", "not_acceptable", "length_required", "json_parse",
         "routing_missing", "stall_once", "notjson_rare", "hangup")
# notjson_rare: every NOTJSON_EVERY-th bulk request (counted over the server's life) is answered
# 200 with an HTML page, every other one as in "ok": a rare bad answer among bulk responses,
# which a client counts unknown without failing. hangup: every bulk request is read whole and
# the connection closed without a reply (a FIN; "reset" sends a RST).
# PUT /_fault/mode/<MODE> switches the mode of a running server (bench/chaos.sh injects its
# faults so); the answer is {"mode": MODE}, and an unknown mode is a 400.
# stall_once: bulk request number STALL_ONCE_AT (counted over the server's life) is answered
# after STALL_ONCE_S, every other one at once as in "ok": one stall of the cluster.
# not_acceptable (406), length_required (411), json_parse (500 json_parse_exception): whole-
# request answers a cluster or a proxy gives to a request it cannot take; routing_missing:
# every item fails with routing_missing_exception (400), as a mapping with _routing required
# answers documents without routing. All are configuration errors a client should stop on.
# slow: every bulk request is answered as in "ok" after 1 to 2 s (SLOW_MIN_S..SLOW_MAX_S, the
# same sequence every run); with t_recv/t_reply (CLOCK_MONOTONIC, the agent's clock) a test
# knows how many documents the server had in hand in any window of time.
# close_reused, stall_reused: the first bulk request of each connection is answered as in "ok";
# every later one on the same (kept-alive, reused) connection is read whole and then the
# connection is closed without a reply (close_reused: a FIN, what a proxy or a dying node
# does) or left without a reply for STALL_S seconds (stall_reused). The documents of such a
# request reached the server: a client must count them unknown, never send them again.
BULK_ACTIONS = ("index", "create", "update", "delete")
# Metadata keys OpenSearch 2.x accepts in an action line; anything else fails the request.
META_KEYS = {"_index", "_id", "routing", "pipeline", "require_alias", "if_seq_no",
             "if_primary_term", "version", "version_type", "retry_on_conflict", "op_type",
             "_source"}
MAX_ID_BYTES = 512
STALL_S = 120
SLOW_MIN_S, SLOW_MAX_S = 1.0, 2.0
STALL_ONCE_AT, STALL_ONCE_S = 30, 2.0
NOTJSON_EVERY = 10
READ_CHUNK = 1 << 16
GZIP_LEVEL = 3  # the server default (http.compression_level)
# mapper_parsing: every item fails with mapper_parsing_exception (400), as a mapping whose
# field type the documents do not fit: a configuration error a client should stop on.
MODES += ("mapper_parsing",)
# late: every bulk request is read whole, held LATE_S seconds, then indexed and answered as in
# "ok" (to a client that has usually given up by then: request.timeout): a cluster that works
# off a backlog after its client went away (a stopped node going on, a long GC), so a _count
# taken soon after the load does not hold documents it will hold later (seed 8).
MODES += ("late",)
LATE_S = 5.0

# --root: what GET / answers when the server plays something that is not a cluster (the
# probe must name it and stop before any load): (status, content type, body)
ROOT_ANSWERS = {
    "html_proxy": (200, "text/html; charset=utf-8",
                   b"<!DOCTYPE html>\n<html><head><title>Corporate Proxy - Sign in</title></head>"
                   b"<body><form>Sign in to continue</form></body></html>\n"),
    "nginx": (200, "text/html",
              b"<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>\n</head>\n"
              b"<body><h1>Welcome to nginx!</h1></body>\n</html>\n"),
    "nginx_404": (404, "text/html",
                  b"<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n"
                  b"<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.22.1</center>"
                  b"\r\n</body>\r\n</html>\r\n"),
    "solr": (200, "application/json;charset=utf-8",
             b'{"responseHeader":{"status":0,"QTime":1},"mode":"std","solr_home":"/var/solr/data",'
             b'"lucene":{"solr-spec-version":"9.4.0","lucene-spec-version":"9.8.0"}}\n'),
}

VERSION_BODY = {
    "name": "fault-server",
    "cluster_name": "bulkfleet-fault",
    "cluster_uuid": "ZmF1bHQtc2VydmVyLXV1aWQ",
    "version": {
        "distribution": "opensearch",
        "number": "2.19.0",
        "build_type": "tar",
        "build_hash": "0000000000000000000000000000000000000000",
        "build_date": "2025-01-01T00:00:00.000000Z",
        "build_snapshot": False,
        "lucene_version": "9.12.1",
        "minimum_wire_compatibility_version": "7.10.0",
        "minimum_index_compatibility_version": "7.0.0",
    },
    "tagline": "The OpenSearch Project: https://opensearch.org/",
}


# --no-data-stream-api: GET / as Elasticsearch 8.17.0 answers it, for a server that plays an
# Elasticsearch without its data-streams module (the Maven Central dev cluster before
# bulkfleet's own module), whose /_data_stream paths answer 405 as its REST layer does.
ES8_VERSION_BODY = {
    "name": "fault-server",
    "cluster_name": "bulkfleet-fault",
    "cluster_uuid": "ZmF1bHQtc2VydmVyLXV1aWQ",
    "version": {
        "number": "8.17.0",
        "build_flavor": "default",
        "build_type": "tar",
        "build_hash": "0000000000000000000000000000000000000000",
        "build_date": "2025-01-01T00:00:00.000000Z",
        "build_snapshot": False,
        "lucene_version": "9.12.0",
        "minimum_wire_compatibility_version": "7.17.0",
        "minimum_index_compatibility_version": "7.0.0",
    },
    "tagline": "You Know, for Search",
}


# --elastic-serverless: GET / as an Elastic Serverless project answers it (build_flavor
# serverless), and the index settings a project accepts (Elasticsearch's "Index settings
# available in Serverless projects"; a name ending in '.' admits everything under it)
ES_SERVERLESS_VERSION_BODY = {
    "name": "serverless",
    "cluster_name": "abc123def456",
    "cluster_uuid": "c2VydmVybGVzcy1wcm9qZWN0",
    "version": {
        "number": "8.11.0",
        "build_flavor": "serverless",
        "build_type": "docker",
        "build_hash": "00000000",
        "build_date": "2023-10-31",
        "build_snapshot": False,
        "lucene_version": "9.7.0",
        "minimum_wire_compatibility_version": "8.11.0",
        "minimum_index_compatibility_version": "8.11.0",
    },
    "tagline": "You Know, for Search",
}
ES_SERVERLESS_SETTINGS = (
    "codec", "default_pipeline", "dense_vector.hnsw_filter_heuristic", "final_pipeline",
    "hidden", "mode", "query.default_field", "refresh_interval", "sort.", "blocks.read_only",
    "blocks.read", "blocks.write", "blocks.metadata", "mapping.coerce", "mapping.ignore_above",
    "mapping.ignore_malformed", "mapping.source.mode", "mapping.synthetic_source_keep",
    "mapping.total_fields.limit", "mapping.total_fields.ignore_dynamic_beyond_limit",
    "lifecycle.origination_date", "time_series.start_time", "time_series.end_time",
    "look_ahead_time", "look_back_time", "routing_path", "similarity.", "analysis.")


def es_serverless_refused(settings, prefix=""):
    """The index settings (dotted, without "index.") of a create-index body's settings that an
    Elastic Serverless project refuses."""
    out = []
    for key, val in (settings or {}).items():
        name = prefix + key
        if not prefix and name == "index" and isinstance(val, dict):
            out += es_serverless_refused(val, "")
            continue
        if name.startswith("index."):
            name = name[6:]
        ok = any(name.startswith(a) if a.endswith(".") else name == a
                 for a in ES_SERVERLESS_SETTINGS)
        if isinstance(val, dict) and not ok:
            out += es_serverless_refused(val, name + ".")
        elif not ok:
            out.append(name)
    return out


class BadRequest(Exception):
    """A request a real cluster refuses as a whole: (status, error type, reason)."""

    def __init__(self, status, etype, reason):
        super().__init__(reason)
        self.status = status
        self.etype = etype
        self.reason = reason


def error_body(status, etype, reason):
    err = {"type": etype, "reason": reason}
    return {"error": {"root_cause": [dict(err)], **err}, "status": status}


def new_id():
    return "".join(random.choices(string.ascii_letters + string.digits + "-_", k=20))


def parse_bulk(body, url_index):
    """Splits an NDJSON bulk body into actions.

    Returns (actions, info, problem). actions: list of dicts {op, index, id, source_ok,
    id_too_long}. info: facts for the log, gathered even from a body that is refused. problem:
    a BadRequest for what fails the whole request on a real cluster, or None."""
    info = {"docs": 0, "ids": [], "ids_missing": 0, "actions": {}, "source_invalid": 0}
    actions = []
    if not body:
        return actions, info, BadRequest(400, "action_request_validation_exception",
                                         "Validation Failed: 1: no requests added;")
    lines = body.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    i = 0
    problem = None
    while i < len(lines):
        line_no = i + 1
        raw = lines[i].rstrip(b"\r")
        i += 1
        try:
            action = json.loads(raw)
        except ValueError:
            action = None
        if not isinstance(action, dict) or len(action) != 1:
            problem = problem or BadRequest(
                400, "illegal_argument_exception",
                "Malformed action/metadata line [%d], expected a simple value for field "
                "[%s] but found [START_OBJECT]" % (line_no, raw[:40].decode("utf-8", "replace")))
            continue
        op, meta = next(iter(action.items()))
        if op not in BULK_ACTIONS or not isinstance(meta, dict):
            problem = problem or BadRequest(
                400, "illegal_argument_exception",
                "Malformed action/metadata line [%d], expected field [create], [delete], "
                "[index] or [update] but found [%s]" % (line_no, op))
            continue
        for key in meta:
            if key not in META_KEYS:
                problem = problem or BadRequest(
                    400, "illegal_argument_exception",
                    "Action/metadata line [%d] contains an unknown parameter [%s]"
                    % (line_no, key))
        info["actions"][op] = info["actions"].get(op, 0) + 1
        info["docs"] += 1
        doc_id = meta.get("_id")
        if doc_id is None:
            info["ids_missing"] += 1
        else:
            info["ids"].append(doc_id)
        index = meta.get("_index", url_index)
        if index is None:
            problem = problem or BadRequest(400, "action_request_validation_exception",
                                            "Validation Failed: 1: index is missing;")
        source_ok = True
        if op != "delete":
            if i >= len(lines):
                problem = problem or BadRequest(
                    400, "illegal_argument_exception",
                    "The bulk request must be terminated by a newline [\\n]")
                source_ok = False
            else:
                src = lines[i].rstrip(b"\r")
                i += 1
                try:
                    doc = json.loads(src, parse_constant=_reject_constant)
                    source_ok = isinstance(doc, dict)
                except ValueError:
                    source_ok = False
                if not source_ok:
                    info["source_invalid"] += 1
        actions.append({"op": op, "index": index, "id": doc_id, "source_ok": source_ok,
                        "id_too_long": isinstance(doc_id, str)
                        and len(doc_id.encode("utf-8")) > MAX_ID_BYTES})
    if not body.endswith(b"\n"):
        problem = BadRequest(400, "illegal_argument_exception",
                             "The bulk request must be terminated by a newline [\\n]")
    return actions, info, problem


def _reject_constant(name):
    raise ValueError("non-standard JSON constant " + name)


class State:
    """What the server remembers across requests."""

    def __init__(self, mode, log_path, max_content_length):
        self.mode = mode
        self.max_content_length = max_content_length
        self.lock = threading.Lock()
        self.seq = 0
        self.conn_seq = 0
        self.slow_rng = random.Random(7)
        self.seq_no = 0
        self.ok_docs = {}  # index -> documents acknowledged 2xx (index/create)
        self.index_delay_s = 0.0  # --index-delay-ms
        self.admin_delay = []  # --admin-delay: (compiled regex, seconds)
        self.count_failed_shards = 0  # --count-failed-shards
        self.search_ms = 0.0  # --search-ms
        self.admin_fault = None  # --admin-fault
        self.root = "cluster"  # --root
        self.no_ds_api = False  # --no-data-stream-api
        self.basic_auth = None  # --basic-auth: the expected Authorization header value
        self.verifier = None  # --sigv4: sigv4_verify.Verifier
        self.serverless = False  # --serverless: OpenSearch Serverless' differences
        self.es_serverless = False  # --elastic-serverless: Elastic Serverless' differences
        self.count_lag_s = 0.0  # --count-lag-s: documents counted this long after their ack
        self.lagging = []  # (monotonic time acknowledged, index, n) not yet counted
        self.refuse_chunked = False  # --refuse-chunked
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None
        self.stop = threading.Event()
        # capacity mode: the virtual write pool is busy until busy_until (monotonic seconds)
        self.capacity = 0.0
        self.queue_s = 0.5
        self.base_s = 0.005
        self.slow_after_creates = 0  # --slow-after-creates N=MS: from the N-th index creation
        self.slow_base_s = 0.0       # on, base_s is this
        self.creates = 0
        self.busy_until = 0.0
        self.cold_s = 0.0  # --cold-s / --cold-capacity: slower for cold_s from the first bulk
        self.cold_capacity = 0.0
        self.first_bulk = None
        self.store_bytes_per_doc = 200

    def admit(self, n):
        """Capacity mode: how many of n documents the write pool takes now, and when their work
        is done (monotonic seconds). The rest would wait more than queue_s: rejected."""
        with self.lock:
            now = time.monotonic()
            if self.first_bulk is None:
                self.first_bulk = now
            cap = self.capacity
            if self.cold_s > 0 and now < self.first_bulk + self.cold_s:
                cap = self.cold_capacity
            start = max(now, self.busy_until)
            room = (now + self.queue_s - start) * cap
            accepted = max(0, min(n, int(room)))
            self.busy_until = start + accepted / cap
            return accepted, self.busy_until

    def write_log(self, record):
        with self.lock:
            self.seq += 1
            record["seq"] = self.seq
            if self.log:
                self.log.write(json.dumps(record, separators=(",", ":")) + "\n")
                self.log.flush()

    def next_conn(self):
        with self.lock:
            self.conn_seq += 1
            return self.conn_seq

    def take_seq_nos(self, n):
        with self.lock:
            first = self.seq_no
            self.seq_no += n
            return first

    def add_ok(self, index, n):
        with self.lock:
            if self.count_lag_s > 0:
                self.lagging.append((time.monotonic(), index, n))
                return
            self.ok_docs[index] = self.ok_docs.get(index, 0) + n

    def settle(self):
        """--count-lag-s: the documents acknowledged long enough ago become countable."""
        with self.lock:
            now = time.monotonic()
            keep = []
            for t, index, n in self.lagging:
                if now - t >= self.count_lag_s:
                    self.ok_docs[index] = self.ok_docs.get(index, 0) + n
                else:
                    keep.append((t, index, n))
            self.lagging = keep

    def count(self, index):
        self.settle()
        with self.lock:
            if index is None:
                return sum(self.ok_docs.values())
            return sum(v for k, v in self.ok_docs.items() if k in index.split(","))

    def forget(self, index):
        with self.lock:
            for name in index.split(","):
                self.ok_docs.pop(name, None)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fault-server"

    def version_string(self):
        return self.server_version

    # --- connection-level -------------------------------------------------------------------

    def setup(self):
        super().setup()
        if self.server.state.mode == "capacity":
            # headers and body go out in separate writes: without this, Nagle + the client's
            # delayed ACK add ~40 ms to every reply and hide the service time being modelled
            try:
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        self.conn_id = self.server.state.next_conn()
        self.conn_requests = 0

    def log_message(self, format, *args):  # noqa: A002 — keep stderr quiet
        pass

    def handle_expect_100(self):
        # Like a cluster: a declared body over the limit (or any, in too_large mode) gets 417
        # instead of 100 Continue, and the body is never read.
        state = self.server.state
        length = self._content_length()
        if state.mode == "too_large" or (length or 0) > state.max_content_length:
            self.conn_requests += 1
            rec = self._base_record()
            rec.update(status=417, note="417 instead of 100 Continue")
            self.close_connection = True
            self._send(417, b"", content_type=None, close=True)
            state.write_log(rec)
            return False
        return super().handle_expect_100()

    # --- request entry points ---------------------------------------------------------------

    def do_GET(self):
        self._dispatch()

    def do_POST(self):
        self._dispatch()

    def do_PUT(self):
        self._dispatch()

    def do_DELETE(self):
        self._dispatch()

    def do_HEAD(self):
        self._dispatch()

    # --- helpers ----------------------------------------------------------------------------

    def _content_length(self):
        value = self.headers.get("Content-Length")
        if value is None:
            return None
        try:
            return int(value.strip())
        except ValueError:
            return -1

    def _base_record(self):
        h = self.headers
        split = urlsplit(self.path)
        ctypes = h.get_all("Content-Type") or []
        return {
            "t": round(time.time(), 6),
            "t_recv": time.monotonic(),  # headers read; the body follows
            "conn": self.conn_id,
            "conn_request": self.conn_requests,
            "client": "%s:%d" % self.client_address[:2],
            "http_version": self.request_version,
            "method": self.command,
            "path": split.path,
            "query": split.query,
            "mode": self.server.state.mode,
            "content_type_count": len(ctypes),
            "content_type": ctypes,
            "content_length_present": "Content-Length" in h,
            "content_length": self._content_length(),
            "transfer_encoding": h.get("Transfer-Encoding"),
            "expect_present": "Expect" in h,
            "expect": h.get("Expect"),
            "content_encoding": h.get("Content-Encoding"),
            "accept": h.get_all("Accept") or [],
            "accept_encoding": h.get("Accept-Encoding"),
            "connection": h.get("Connection"),
            "authorization_present": "Authorization" in h,
            "user_agent": h.get("User-Agent"),
        }

    def _read_body(self):
        """Reads the body as framed on the wire. Returns (bytes, error or None)."""
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        limit = self.server.state.max_content_length
        if "chunked" in te:
            return self._read_chunked(limit)
        length = self._content_length()
        if length is None:
            return b"", None
        if length < 0:
            return b"", "bad Content-Length"
        if length > limit:
            # Drain it so the answer is seen, then close the connection.
            left = length
            while left > 0:
                chunk = self.rfile.read(min(READ_CHUNK, left))
                if not chunk:
                    break
                left -= len(chunk)
            return None, "over max content length"
        body = self.rfile.read(length)
        if len(body) != length:
            return body, "body shorter than Content-Length"
        return body, None

    def _read_chunked(self, limit):
        parts, total = [], 0
        while True:
            line = self.rfile.readline(1024)
            if not line:
                return b"".join(parts), "connection closed inside chunked body"
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                return b"".join(parts), "bad chunk size line"
            if size == 0:
                while True:  # trailers up to the blank line
                    trailer = self.rfile.readline(8192)
                    if trailer in (b"\r\n", b"\n", b""):
                        break
                break
            total += size
            data = self.rfile.read(size)
            self.rfile.readline(8)  # CRLF after the chunk
            if total > limit:
                parts = []
                continue
            parts.append(data)
        if total > limit:
            return None, "over max content length"
        return b"".join(parts), None

    def _decode(self, body):
        enc = (self.headers.get("Content-Encoding") or "").strip().lower()
        if enc in ("", "identity"):
            return body
        if enc in ("gzip", "x-gzip"):
            return gzip.decompress(body)
        if enc == "deflate":
            try:
                return zlib.decompress(body)
            except zlib.error:
                return zlib.decompress(body, -zlib.MAX_WBITS)
        raise BadRequest(400, "illegal_argument_exception",
                         "unsupported Content-Encoding [%s]" % enc)

    def _send(self, status, body, content_type="application/json; charset=UTF-8", close=False,
              extra_headers=()):
        accept = (self.headers.get("Accept-Encoding") or "").lower()
        gzipped = False
        if body and "gzip" in accept and self.server.compress:
            body = gzip.compress(body, GZIP_LEVEL)
            gzipped = True
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        if gzipped:
            self.send_header("Content-Encoding", "gzip")
        opaque = self.headers.get("X-Opaque-Id")
        if opaque:
            self.send_header("X-Opaque-Id", opaque)
        for name, value in extra_headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        # headers and body in one write, as a cluster answers: two writes on a socket with
        # Nagle's algorithm wait for the client's delayed ACK (40 ms) under quick request/answer
        # traffic, which would be taken for the client's or the server's time
        self._headers_buffer.append(b"\r\n")
        if self.command != "HEAD" and body:
            self._headers_buffer.append(body)
        self.flush_headers()
        self.wfile.flush()
        return len(body)

    def _send_json(self, status, obj, **kw):
        return self._send(status, json.dumps(obj, separators=(",", ":")).encode(), **kw)

    def _reset(self):
        """Abort the connection with a RST: SO_LINGER 0, then close every reference."""
        sock = self.connection
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.close_connection = True
        # rfile holds a reference to the socket: the descriptor closes (and the RST goes out)
        # only when both are closed. wfile writes straight to the socket; a dummy replaces it
        # so the handler's final flush has somewhere to go.
        self.rfile.close()
        sock.close()
        self.wfile = io.BytesIO()

    # --- routing ----------------------------------------------------------------------------

    def _dispatch(self):
        self.conn_requests += 1
        self.logged = False
        state = self.server.state
        rec = self._base_record()
        try:
            self._route(rec)
        except (BrokenPipeError, ConnectionResetError) as exc:
            rec["error"] = "client went away: %s" % exc
            self.close_connection = True
        except Exception as exc:  # report, answer 500, keep serving
            rec["error"] = "%s: %s" % (type(exc).__name__, exc)
            rec["status"] = 500
            try:
                self._send_json(500, error_body(500, "exception", str(exc)), close=True)
            except OSError:
                pass
        if not self.logged:
            state.write_log(rec)

    def _route(self, rec):
        path = urlsplit(self.path).path
        segs = [unquote(s) for s in path.split("/") if s]
        method = self.command
        body, read_error = (b"", None)
        if method in ("POST", "PUT", "DELETE") or "Content-Length" in self.headers or \
                "Transfer-Encoding" in self.headers:
            body, read_error = self._read_body()
        rec["body_bytes_wire"] = None if body is None else len(body)
        if read_error:
            rec["read_error"] = read_error
        state = self.server.state
        if state.verifier is not None:
            refused = state.verifier.check(method, self.path, self.headers, body or b"")
            rec["sigv4"] = "ok" if refused is None else refused[1]
            rec["sigv4_key"] = state.verifier.key_of(self.headers)
            if state.verifier.token_expiry_file:  # test tokens, to see which one signed
                rec["sigv4_token"] = self.headers.get("X-Amz-Security-Token")
            if refused is not None:
                rec["status"] = refused[0]
                rec["response_bytes"] = self._send_json(refused[0], {"message": refused[1]})
                return
        if state.refuse_chunked and "chunked" in (self.headers.get("Transfer-Encoding") or ""):
            # a proxy or server that wants every body's length up front
            rec["status"] = 411
            rec["note"] = "411: chunked body refused (--refuse-chunked)"
            rec["response_bytes"] = self._send(411, b"<html><head><title>411 Length Required"
                                               b"</title></head></html>\n",
                                               content_type="text/html")
            return
        if state.basic_auth is not None:
            ok = self.headers.get("Authorization") == state.basic_auth
            rec["auth"] = "ok" if ok else "refused"
            if not ok:
                self._unauthorized(rec, "unable to authenticate user for REST request [%s]")
                return
        if body is None:  # over the limit
            rec["status"] = 413
            self._send(413, b"", content_type=None, close=True)
            return
        if read_error:
            rec["status"] = 400
            self._send_json(400, error_body(400, "parse_exception", read_error), close=True)
            return

        if len(segs) == 3 and segs[:2] == ["_fault", "mode"] and method == "PUT":
            if segs[2] not in MODES:
                rec["status"] = 400
                self._send_json(400, error_body(400, "illegal_argument_exception",
                                                "unknown mode [%s]" % segs[2]))
                return
            state.mode = segs[2]
            rec["status"] = 200
            rec["note"] = "mode set to %s" % segs[2]
            self._send_json(200, {"mode": segs[2]})
            return
        if segs and segs[-1] == "_bulk" and method in ("POST", "PUT"):
            url_index = segs[0] if len(segs) == 2 else None
            self._bulk(rec, body, url_index)
            return
        self._admin(rec, method, segs, body)

    def _unauthorized(self, rec, reason):
        # what the security plugin answers a request without (or with wrong) credentials
        rec["status"] = 401
        rec["response_bytes"] = self._send_json(401, error_body(
            401, "security_exception", reason % self.path),
            extra_headers=[("WWW-Authenticate", 'Basic realm="OpenSearch Security"')])

    def _admin(self, rec, method, segs, body=b""):
        state = self.server.state
        if state.admin_fault == "unauthorized":
            self._unauthorized(rec, "missing authentication credentials for REST request [%s]")
            return
        if state.admin_fault == "forbidden":
            rec["status"] = 403
            rec["response_bytes"] = self._send_json(403, error_body(
                403, "security_exception",
                "no permissions for [cluster:monitor/main] and User [name=bench, "
                "backend_roles=[], requestedTenant=null]"))
            return
        if state.admin_fault == "stall":
            # a cluster that accepts the connection and never answers (a hung node, a full
            # accept queue behind a proxy); logged now so a test can see it while it waits
            rec["status"] = None
            rec["note"] = "admin request stalled %d s, then closed without a reply" % STALL_S
            state.write_log(rec)
            self.logged = True
            state.stop.wait(STALL_S)
            self._reset()
            return
        for pattern, delay_s in state.admin_delay:
            if pattern.search("%s %s" % (method, self.path)):
                # one cluster call that takes long (a _refresh of many shards, a slow node)
                rec["delayed_ms"] = int(delay_s * 1000)
                state.stop.wait(delay_s)
                break
        if state.index_delay_s > 0 and method in ("PUT", "DELETE") and len(segs) == 1 \
                and not segs[0].startswith("_"):
            # a loaded cluster taking seconds to create or delete an index (--index-delay-ms)
            state.stop.wait(state.index_delay_s)
        if not segs and state.root != "cluster":
            status, ctype, raw = ROOT_ANSWERS[state.root]
            rec["status"] = status
            rec["response_bytes"] = self._send(status, raw, content_type=ctype)
            return
        if state.no_ds_api and segs and segs[0] == "_data_stream":
            rec["status"] = 405
            rec["response_bytes"] = self._send_json(405, {
                "error": "Incorrect HTTP method for uri [%s] and method [%s], allowed: [POST]"
                         % (self.path, method), "status": 405})
            return
        if state.no_ds_api and method == "HEAD" and len(segs) == 1 and \
                not segs[0].startswith("_") and segs[0] not in state.ok_docs:
            # no such index: the server holds an index only once documents went into it
            rec["status"] = 404
            self._send(404, b"", content_type=None)
            return
        if state.serverless and (not segs or segs[0] in ("_nodes", "_cluster", "_cat") or
                                 segs[-1] in ("_refresh", "_flush", "_stats", "_forcemerge")):
            # OpenSearch Serverless serves neither GET /, the cluster and node APIs, nor
            # _refresh: a collection makes documents searchable by itself, seconds later
            rec["status"] = 404
            rec["response_bytes"] = self._send_json(404, error_body(
                404, "illegal_argument_exception",
                "Operation [%s /%s] is not supported in OpenSearch Serverless"
                % (method, "/".join(segs))))
            return
        if state.es_serverless and (segs and segs[0] in ("_nodes", "_cluster") or
                                    segs and segs[0] == "_cat" and segs[1:2] not in (
                                        ["indices"], ["aliases"]) or
                                    segs and segs[-1] in ("_flush", "_stats", "_forcemerge",
                                                          "_close", "_open") or
                                    len(segs) >= 2 and segs[-2] == "_stats"):
            # Elastic Serverless: an API that is not public answers 410 Gone
            rec["status"] = 410
            rec["response_bytes"] = self._send_json(410, error_body(
                410, "api_not_available_exception",
                "Request for uri [%s] with method [%s] exists but is not available when "
                "running in serverless mode" % (self.path, method)))
            return
        if state.es_serverless and method == "PUT" and len(segs) == 1 and body and \
                not segs[0].startswith("_"):
            rec["index_settings"] = json.loads(body).get("settings")
            refused = es_serverless_refused(rec["index_settings"])
            if refused:
                rec["status"] = 400
                rec["refused_settings"] = refused
                rec["response_bytes"] = self._send_json(400, error_body(
                    400, "illegal_argument_exception",
                    "Settings [%s] are not available when running in serverless mode"
                    % ",".join("index." + r for r in refused)))
                return
        if state.serverless and method == "PUT" and len(segs) == 1 and body and \
                re.search(rb'"(index\.)?number_of_(shards|replicas)"', body):
            rec["status"] = 400
            rec["response_bytes"] = self._send_json(400, error_body(
                400, "illegal_argument_exception",
                "Setting [index.number_of_shards] is not supported in OpenSearch Serverless"))
            return
        status, obj = 200, {"acknowledged": True}
        if not segs and state.es_serverless:
            obj = ES_SERVERLESS_VERSION_BODY
        elif not segs:
            obj = ES8_VERSION_BODY if state.no_ds_api else VERSION_BODY
        elif segs[-1] == "_refresh":
            obj = {"_shards": {"total": 1, "successful": 1, "failed": 0}}
        elif segs[-1] == "_count" and state.count_failed_shards > 0:
            # a cluster with primaries unassigned: 200, the count of the shards that answered
            index = segs[0] if len(segs) == 2 else None
            total, failed = 5, min(state.count_failed_shards, 5)
            obj = {"count": state.count(index) * (total - failed) // total,
                   "_shards": {"total": total, "successful": total - failed, "skipped": 0,
                               "failed": failed,
                               "failures": [{"shard": k, "index": index, "reason": {
                                   "type": "no_shard_available_action_exception",
                                   "reason": "No shard available for [count]"}}
                                   for k in range(failed)]}}
            rec["count"] = obj["count"]
        elif segs[-1] == "_count":
            index = segs[0] if len(segs) == 2 else None
            obj = {"count": state.count(index),
                   "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0}}
            rec["count"] = obj["count"]
        elif segs[-1] == "_search" and method in ("GET", "POST"):
            # a search that takes --search-ms on the server: no hits (bench/search-client.sh)
            if state.search_ms > 0:
                state.stop.wait(state.search_ms / 1000.0)
            obj = {"took": int(state.search_ms), "timed_out": False,
                   "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
                   "hits": {"total": {"value": 0, "relation": "eq"}, "max_score": None,
                            "hits": []}}
        elif segs[-1] == "_flush":
            obj = {"_shards": {"total": 1, "successful": 1, "failed": 0}}
        elif len(segs) >= 2 and segs[-2] == "_stats" and segs[-1] == "store" or \
                len(segs) == 2 and segs[-1] == "_stats":
            index = segs[0] if not segs[0].startswith("_") else None
            size = state.count(index) * state.store_bytes_per_doc
            store = {"store": {"size_in_bytes": size, "reserved_in_bytes": 0}}
            obj = {"_shards": {"total": 1, "successful": 1, "failed": 0},
                   "_all": {"primaries": store, "total": store}}
        elif segs[0] == "_cluster" and len(segs) >= 2 and segs[1] == "health":
            obj = {"cluster_name": "bulkfleet-fault", "status": "green", "timed_out": False,
                   "number_of_nodes": 1, "number_of_data_nodes": 1,
                   "discovered_master": True, "discovered_cluster_manager": True,
                   "active_primary_shards": 1, "active_shards": 1, "relocating_shards": 0,
                   "initializing_shards": 0, "unassigned_shards": 0, "delayed_unassigned_shards": 0,
                   "number_of_pending_tasks": 0, "number_of_in_flight_fetch": 0,
                   "task_max_waiting_in_queue_millis": 0, "active_shards_percent_as_number": 100.0}
        elif method in ("HEAD", "PUT", "DELETE"):
            if method == "PUT" and len(segs) == 1 and not segs[0].startswith("_"):
                obj = {"acknowledged": True, "shards_acknowledged": True, "index": segs[0]}
                with state.lock:
                    state.creates += 1
                    if state.slow_after_creates and state.creates >= state.slow_after_creates:
                        state.base_s = state.slow_base_s
            if method == "DELETE" and len(segs) == 1 and not segs[0].startswith("_"):
                state.forget(segs[0])
        else:
            status = 404
            obj = error_body(404, "fault_server_unsupported",
                             "fault_server.py does not serve %s /%s" % (method, "/".join(segs)))
        rec["status"] = status
        rec["response_bytes"] = self._send_json(status, obj)

    # --- _bulk ------------------------------------------------------------------------------

    def _bulk(self, rec, wire_body, url_index):
        state = self.server.state
        mode = state.mode
        started = time.monotonic()
        rec["bulk"] = True
        body = None
        actions = None
        problem = None
        try:
            body = self._decode(wire_body)
        except (OSError, EOFError, zlib.error) as exc:
            problem = BadRequest(400, "parse_exception",
                                 "cannot decompress the request body: %s" % exc)
        except BadRequest as exc:
            problem = exc
        if body is not None:
            rec["body_bytes"] = len(body)
            rec["body_ends_with_newline"] = body.endswith(b"\n") if body else None
            actions, info, problem = parse_bulk(body, url_index)
            rec.update(info)

        if mode == "stall_once":
            with state.lock:
                state.bulk_seq = getattr(state, "bulk_seq", 0) + 1
                n = state.bulk_seq
            if n == STALL_ONCE_AT:
                rec["note"] = "stalled %.1f s" % STALL_ONCE_S
                state.stop.wait(STALL_ONCE_S)
            mode = "ok"
        if mode == "notjson_rare":
            with state.lock:
                state.bulk_seq = getattr(state, "bulk_seq", 0) + 1
                n = state.bulk_seq
            mode = "notjson" if n % NOTJSON_EVERY == 0 else "ok"
        if mode == "hangup":
            rec["status"] = None
            rec["unanswered"] = True
            rec["note"] = "read whole, closed without a reply"
            self.close_connection = True
            return
        if mode == "slow":
            state.stop.wait(state.slow_rng.uniform(SLOW_MIN_S, SLOW_MAX_S))
            mode = "ok"
        if mode == "late":
            rec["note"] = "held %.1f s, then indexed and answered" % LATE_S
            state.stop.wait(LATE_S)
            mode = "ok"
        if mode in ("close_reused", "stall_reused"):
            if self.conn_requests > 1 and mode == "close_reused":
                rec["status"] = None
                rec["unanswered"] = True
                rec["note"] = "request %d of this connection: read, closed without a reply" \
                    % self.conn_requests
                self.close_connection = True
                return
            if self.conn_requests > 1:
                rec["status"] = None
                rec["unanswered"] = True
                rec["note"] = "request %d of this connection: stalling %d s without a reply" \
                    % (self.conn_requests, STALL_S)
                state.write_log(rec)
                self.logged = True
                state.stop.wait(STALL_S)
                self._reset()
                return
            mode = "ok"
        if mode == "reject429":
            rec["status"] = 429
            self._send_json(429, error_body(
                429, "es_rejected_execution_exception",
                "rejected execution of coordinating operation [coordinating_and_primary_bytes=0, "
                "replica_bytes=0, all_bytes=0, coordinating_operation_bytes=%d, "
                "max_coordinating_and_primary_bytes=0]" % len(wire_body)))
            return
        if mode == "too_large":
            rec["status"] = 413
            self._send(413, b"", content_type=None, close=True)
            return
        if mode == "reset":
            rec["status"] = None
            rec["note"] = "connection reset (SO_LINGER 0) without a reply"
            self._reset()
            return
        if mode == "stall":
            # Logged now, not after the stall, so a test can read it while the client waits.
            rec["status"] = None
            rec["note"] = "stalling %d s, then closing without a reply" % STALL_S
            state.write_log(rec)
            self.logged = True
            state.stop.wait(STALL_S)
            self._reset()
            return
        if mode == "notjson":
            rec["status"] = 200
            self._send(200, b"<html><body>this is not JSON</body></html>\n",
                       content_type="text/html")
            return
        whole = {
            "not_acceptable": (406, None, "Content-Type header [application/x-ndjson] is not "
                               "supported"),
            "length_required": (411, None, "Length Required"),
            "json_parse": (500, "json_parse_exception", "Unexpected character ('<' (code 60)): "
                           "expected a valid value"),
        }
        if mode in whole:
            status, etype, reason = whole[mode]
            rec["status"] = status
            if etype is None:
                self._send_json(status, {"error": reason, "status": status})
            else:
                self._send_json(status, error_body(status, etype, reason))
            return
        if mode == "bad_request":
            # what a cluster answers to a body it cannot parse at all (docs/internals/es-api.md §1.6)
            rec["status"] = 400
            self._send_json(400, error_body(
                400, "illegal_argument_exception",
                "Malformed action/metadata line [1], expected START_OBJECT but found "
                "[VALUE_STRING]"))
            return
        if mode == "unavailable":
            # a coordinating node that lost its cluster manager: nothing was indexed
            rec["status"] = 503
            self._send_json(503, error_body(
                503, "cluster_manager_not_discovered_exception",
                "ClusterManagerNotDiscoveredException[null]"))
            return
        if mode == "bad_gateway":
            # a proxy in front of the cluster: its upstream may or may not have indexed them
            rec["status"] = 502
            self._send(502, b"<html><body><h1>502 Bad Gateway</h1></body></html>\n",
                       content_type="text/html")
            return
        if mode == "not_found":
            # the index is gone and action.auto_create_index is false
            index = url_index or "unknown"
            rec["status"] = 404
            self._send_json(404, error_body(
                404, "index_not_found_exception", "no such index [%s]" % index))
            return
        if mode == "unauthorized":
            rec["status"] = 401
            self._send_json(401, error_body(
                401, "security_exception",
                "missing authentication credentials for REST request [%s]" % self.path),
                extra_headers=[("WWW-Authenticate", 'Basic realm="OpenSearch Security"')])
            return

        # ok / mixed: behave like a cluster. The REST layer checks Content-Type first.
        if len(rec["content_type"]) > 1:
            problem = BadRequest(400, "illegal_argument_exception",
                                 "only one Content-Type header should be provided")
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if problem is None and ctype not in ("application/x-ndjson", "application/json",
                                             "application/vnd.opensearch+x-ndjson",
                                             "application/vnd.opensearch+json",
                                             # Elasticsearch 8's versioned media types
                                             "application/vnd.elasticsearch+x-ndjson",
                                             "application/vnd.elasticsearch+json"):
            rec["status"] = 406
            self._send_json(406, {"error": "Content-Type header [%s] is not supported"
                                  % (self.headers.get("Content-Type") or ""), "status": 406})
            return
        if problem is not None:
            rec["status"] = problem.status
            rec["error"] = problem.reason
            self._send_json(problem.status,
                            error_body(problem.status, problem.etype, problem.reason))
            return

        accepted, done_at = len(actions), None
        if mode == "capacity":
            accepted, done_at = state.admit(len(actions))
        first_seq = state.take_seq_nos(len(actions))
        items = []
        errors = False
        ok_by_index = {}
        statuses = {}
        for i, act in enumerate(actions):
            if i >= accepted:
                item = {"_index": act["index"], "_id": act["id"] or new_id(), "status": 429,
                        "error": {"type": "es_rejected_execution_exception",
                                  "reason": "rejected execution of primary operation: the "
                                            "write queue of fault_server.py --capacity is full"}}
            elif state.serverless and act["id"] is not None and act["op"] in ("index", "create"):
                item = {"_index": act["index"], "_id": act["id"], "status": 400,
                        "error": {"type": "illegal_argument_exception",
                                  "reason": "Document ID is not supported in create/index "
                                            "operation request"}}
            else:
                item = self._item(i, act, first_seq + i, mode)
            status = item["status"]
            statuses[status] = statuses.get(status, 0) + 1
            if "error" in item:
                errors = True
            elif act["op"] in ("index", "create"):
                ok_by_index[act["index"]] = ok_by_index.get(act["index"], 0) + 1
            items.append({act["op"]: item})
        for index, n in ok_by_index.items():
            state.add_ok(index, n)
        rec["item_status"] = {str(k): v for k, v in sorted(statuses.items())}
        if done_at is not None:  # the documents' work, then the request's own time
            wait = done_at - time.monotonic() + state.base_s
            if wait > 0:
                state.stop.wait(wait)
        took = int((time.monotonic() - started) * 1000)
        rec["status"] = 200
        rec["response_bytes"] = self._send_json(200, {"took": took, "errors": errors,
                                                      "items": items})
        rec["t_reply"] = time.monotonic()

    @staticmethod
    def _item(i, act, seq_no, mode):
        doc_id = act["id"] if act["id"] is not None else new_id()
        base = {"_index": act["index"], "_id": doc_id}
        if not act["source_ok"]:
            return dict(base, status=400, error={
                "type": "mapper_parsing_exception",
                "reason": "failed to parse: the source is not a JSON object"})
        if act["id_too_long"]:
            return dict(base, status=400, error={
                "type": "illegal_argument_exception",
                "reason": "id [%s...] is too long, must be no longer than 512 bytes"
                % str(doc_id)[:16]})
        if mode == "mapper_parsing":
            return dict(base, status=400, error={
                "type": "mapper_parsing_exception",
                "reason": "failed to parse field [n] of type [date] in document with id '%s'"
                % doc_id})
        if mode == "routing_missing":
            return dict(base, status=400, error={
                "type": "routing_missing_exception",
                "reason": "routing is required for [%s]/[%s]" % (act["index"], doc_id)})
        if mode == "mixed":
            r = i % 10
            if r == 3:
                return dict(base, status=429, error={
                    "type": "es_rejected_execution_exception",
                    "reason": "rejected execution of primary operation "
                              "[shard_detail=[%s][0], shard_coordinating_and_primary_bytes=0]"
                              % act["index"]})
            if r == 5:
                return dict(base, status=400, error={
                    "type": "mapper_parsing_exception",
                    "reason": "failed to parse field [value] of type [long] in document with "
                              "id '%s'" % doc_id})
            if r == 7:
                return dict(base, status=409, error={
                    "type": "version_conflict_engine_exception",
                    "reason": "[%s]: version conflict, document already exists (current version "
                              "[1])" % doc_id, "index": act["index"], "shard": "0"})
        result, status = {"index": ("created", 201), "create": ("created", 201),
                          "update": ("updated", 200), "delete": ("deleted", 200)}[act["op"]]
        if mode == "mixed":
            status = 201
        return dict(base, _version=1, result=result,
                    _shards={"total": 1, "successful": 1, "failed": 0},
                    _seq_no=seq_no, _primary_term=1, status=status)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, required=True, help="TCP port; 0 picks a free one")
    ap.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback)")
    ap.add_argument("--mode", required=True, choices=MODES)
    ap.add_argument("--log", help="append one JSON line per request to this file")
    ap.add_argument("--max-lifetime", type=float, default=600.0,
                    help="exit after this many seconds (default 600)")
    ap.add_argument("--max-content-length", type=int, default=100 * 1024 * 1024,
                    help="bodies larger than this get 413 (default 100 MiB, a cluster's default)")
    ap.add_argument("--no-compress", action="store_true",
                    help="never gzip responses (default: gzip when the client accepts it)")
    ap.add_argument("--capacity", type=float, default=0.0,
                    help="capacity mode: documents indexed per second across all connections")
    ap.add_argument("--queue-ms", type=float, default=500.0,
                    help="capacity mode: work (ms) queued before documents get 429 (500)")
    ap.add_argument("--base-ms", type=float, default=5.0,
                    help="capacity mode: time every request takes on its own (5 ms)")
    ap.add_argument("--cold-s", type=float, default=0.0,
                    help="capacity mode: a cold start this long from the first bulk request")
    ap.add_argument("--cold-capacity", type=float, default=0.0,
                    help="capacity mode: documents indexed per second during --cold-s")
    ap.add_argument("--slow-after-creates", metavar="N=MS",
                    help="capacity mode: --base-ms becomes MS from the N-th index creation on")
    ap.add_argument("--store-bytes-per-doc", type=int, default=200,
                    help="primary store bytes per acknowledged document in _stats/store (200)")
    ap.add_argument("--index-delay-ms", type=float, default=0.0,
                    help="answer PUT and DELETE of an index only after this long (a loaded "
                         "cluster creating or deleting an index)")
    ap.add_argument("--admin-delay", action="append", default=[], metavar="REGEX=MS",
                    help="answer a request but _bulk whose 'METHOD /path?query' matches REGEX "
                         "only after MS milliseconds (repeatable; the first match applies)")
    ap.add_argument("--search-ms", type=float, default=0.0,
                    help="answer GET/POST /<index>/_search (no hits) after this many ms")
    ap.add_argument("--count-failed-shards", type=int, default=0, metavar="N",
                    help="_count answers 200 with N of 5 shards failed and their share of the "
                         "documents missing (a cluster with unassigned primaries)")
    ap.add_argument("--admin-fault", choices=("unauthorized", "forbidden", "stall"),
                    help="every request but _bulk (GET /, health, index APIs) is answered 401 "
                         "or 403 with a security_exception reason, or never (stall); the "
                         "cluster probe's faults")
    ap.add_argument("--root", choices=("cluster",) + tuple(ROOT_ANSWERS), default="cluster",
                    help="what GET / answers: a cluster's JSON (default), or a proxy's sign-in "
                         "page, nginx's welcome page or its 404, a Solr's JSON")
    ap.add_argument("--no-data-stream-api", action="store_true",
                    help="play an Elasticsearch 8.17.0 without its data-streams module: GET / "
                         "says 8.17.0, every /_data_stream path answers 405, HEAD /<index> 404 "
                         "until documents went into it")
    ap.add_argument("--basic-auth", metavar="USER:PASSWORD",
                    help="answer 401 to every request without these basic credentials")
    ap.add_argument("--sigv4", metavar="REGION/SERVICE",
                    help="every request must be signed with AWS SigV4 for this region and "
                         "service (checked with botocore, tests/support/sigv4_verify.py) by the "
                         "key BF_FAULT_AWS_ACCESS_KEY_ID with secret "
                         "BF_FAULT_AWS_SECRET_ACCESS_KEY (environment); refused: 403 "
                         "{\"message\": ...} as Amazon OpenSearch Service answers")
    ap.add_argument("--clock-skew-s", type=float, default=0.0,
                    help="--sigv4: the server's clock is this far ahead of the host's")
    ap.add_argument("--expired-token", action="append", default=[],
                    help="--sigv4: a session token the server calls expired (repeatable)")
    ap.add_argument("--token-expiry-file", metavar="FILE",
                    help="--sigv4: a JSON object {session token: expiry in UTC seconds}, read "
                         "for every request (a fake credential source writes it): a token used "
                         "after its expiry is refused as expired")
    ap.add_argument("--serverless", action="store_true",
                    help="play OpenSearch Serverless: no GET /, _cluster, _nodes, _cat, "
                         "_refresh, _flush, _stats (404), no number_of_shards/replicas at index "
                         "creation (400), an index or create action with an _id refused item by "
                         "item (400 'Document ID is not supported in create/index operation "
                         "request')")
    ap.add_argument("--elastic-serverless", action="store_true",
                    help="play an Elastic Serverless project: GET / says build_flavor "
                         "serverless; _nodes, _cluster, _cat (but indices, aliases), _stats, "
                         "_flush, _forcemerge, _close, _open answer 410 "
                         "api_not_available_exception; an index created with a setting "
                         "outside Elastic's Serverless list (number_of_shards, "
                         "number_of_replicas...) is refused (400)")
    ap.add_argument("--count-lag-s", type=float, default=0.0,
                    help="_count sees a document only this long after it was acknowledged "
                         "(a collection's refresh, seconds later)")
    ap.add_argument("--refuse-chunked", action="store_true",
                    help="answer 411 Length Required to every request with a chunked body")
    ap.add_argument("--tls-cert", help="serve HTTPS with this PEM certificate (chain)")
    ap.add_argument("--tls-key", help="the certificate's PEM key (with --tls-cert)")
    ap.add_argument("--tls-client-ca", help="require a client certificate signed by this CA")
    args = ap.parse_args(argv)

    server = Server((args.host, args.port), Handler)
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        if args.tls_client_ca:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(args.tls_client_ca)
        # the handshake runs in accept(); one that fails is dropped (ssl.SSLError is an OSError)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    if args.mode == "capacity" and args.capacity <= 0:
        ap.error("--mode capacity needs --capacity DOCS_PER_S > 0")
    server.state = State(args.mode, args.log, args.max_content_length)
    server.state.capacity = args.capacity
    if args.cold_s > 0 and args.cold_capacity <= 0:
        ap.error("--cold-s needs --cold-capacity DOCS_PER_S > 0")
    server.state.cold_s = args.cold_s
    server.state.cold_capacity = args.cold_capacity
    server.state.queue_s = args.queue_ms / 1000.0
    server.state.base_s = args.base_ms / 1000.0
    if args.slow_after_creates:
        n, _, ms = args.slow_after_creates.partition("=")
        server.state.slow_after_creates = int(n)
        server.state.slow_base_s = float(ms) / 1000.0
    server.state.store_bytes_per_doc = args.store_bytes_per_doc
    server.state.index_delay_s = args.index_delay_ms / 1000.0
    server.state.admin_fault = args.admin_fault
    server.state.root = args.root
    server.state.no_ds_api = args.no_data_stream_api
    server.state.count_failed_shards = args.count_failed_shards
    server.state.search_ms = args.search_ms
    if args.basic_auth:
        server.state.basic_auth = "Basic " + base64.b64encode(args.basic_auth.encode()).decode()
    for spec in args.admin_delay:
        pattern, sep, ms = spec.rpartition("=")
        try:
            server.state.admin_delay.append((re.compile(pattern), float(ms) / 1000.0))
        except (re.error, ValueError) as exc:
            ap.error("--admin-delay %s: expected REGEX=MS (%s)" % (spec, exc))
        if not sep:
            ap.error("--admin-delay %s: expected REGEX=MS" % spec)
    server.compress = not args.no_compress
    server.state.refuse_chunked = args.refuse_chunked
    server.state.serverless = args.serverless
    server.state.es_serverless = args.elastic_serverless
    server.state.count_lag_s = args.count_lag_s
    if args.sigv4:
        import os
        import sigv4_verify  # botocore: only this option needs it
        region, _, service = args.sigv4.partition("/")
        kid = os.environ.get("BF_FAULT_AWS_ACCESS_KEY_ID")
        secret = os.environ.get("BF_FAULT_AWS_SECRET_ACCESS_KEY")
        if not (region and service and kid and secret):
            ap.error("--sigv4 REGION/SERVICE needs BF_FAULT_AWS_ACCESS_KEY_ID and "
                     "BF_FAULT_AWS_SECRET_ACCESS_KEY in the environment")
        keys = {kid: secret}
        for pair in filter(None, os.environ.get("BF_FAULT_AWS_EXTRA_KEYS", "").split(",")):
            k, _, v = pair.partition(":")
            keys[k] = v
        server.state.verifier = sigv4_verify.Verifier(region, service, keys,
                                                      args.clock_skew_s, args.expired_token,
                                                      args.token_expiry_file)

    def stop(reason):
        server.state.stop.set()
        print("fault_server: stopping (%s)" % reason, file=sys.stderr, flush=True)
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, lambda *_: stop("SIGTERM"))
    signal.signal(signal.SIGINT, lambda *_: stop("SIGINT"))
    timer = threading.Timer(args.max_lifetime, stop, args=("max lifetime reached",))
    timer.daemon = True
    timer.start()

    print("READY %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        timer.cancel()
        server.server_close()
        if server.state.log:
            server.state.log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
