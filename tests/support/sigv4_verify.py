# SPDX-License-Identifier: MIT
"""sigv4_verify.py — checks a request's AWS Signature Version 4 the way AWS does, with botocore.

Used by fault_server.py --sigv4 REGION/SERVICE: every request must carry Authorization
(AWS4-HMAC-SHA256), X-Amz-Date and X-Amz-Content-SHA256 (the SHA-256 of the body bytes as they
came, gzip or not); the signature is computed again by botocore's own SigV4Auth over the headers
the request says it signed, the path and query as they came, and the body, with the secret the
server knows for the key id. Refusals answer as Amazon OpenSearch Service does (403 with
{"message": ...}): an unknown key id, a scope of another region or service, a date more than
5 minutes from the server's clock ("Signature expired", skew with --clock-skew-s), an expired
session token (--expired-token, or one past its expiry in --token-expiry-file), a body hash
that does not match, a signature that does not.
Needs Debian's python3-botocore.
"""

import datetime
import hashlib
import re
import time

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

AUTH_RE = re.compile(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request,"
                     r"\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$")
SKEW_LIMIT_S = 300

MISMATCH = ("The request signature we calculated does not match the signature you provided. "
            "Check your AWS Secret Access Key and signing method. Consult the service "
            "documentation for details.")


class Verifier:
    def __init__(self, region, service, keys, clock_skew_s=0.0, expired_tokens=(),
                 token_expiry_file=None):
        self.region = region
        self.service = service
        self.keys = dict(keys)  # key id -> secret
        self.clock_skew_s = clock_skew_s
        self.expired_tokens = set(expired_tokens)
        # a JSON object {token: expiry (UTC seconds)}, read again for every request: a token
        # used after its expiry is refused as AWS refuses it (temporary credentials' lifetime)
        self.token_expiry_file = token_expiry_file

    def token_expired(self, token):
        if token in self.expired_tokens:
            return True
        if not self.token_expiry_file:
            return False
        import json
        try:
            with open(self.token_expiry_file) as f:
                expiry = json.load(f)
        except (OSError, ValueError):
            return False
        return token in expiry and self.now() >= float(expiry[token])

    @staticmethod
    def key_of(headers):
        """The access key id the request says it was signed with, or None."""
        m = AUTH_RE.match((headers.get("Authorization") or "").strip())
        return m.group(1) if m else None

    def now(self):
        return time.time() + self.clock_skew_s

    def check(self, method, raw_path, headers, body):
        """None when the signature holds, else (status, message)."""
        auth = headers.get("Authorization")
        if not auth:
            return 403, "Missing Authentication Token"
        m = AUTH_RE.match(auth.strip())
        if not m:
            return 403, "Authorization header requires 'Credential', 'Signature' and " \
                        "'SignedHeaders' parameters: " + auth[:60]
        key_id, day, region, service, signed, signature = m.groups()
        if key_id not in self.keys:
            return 403, "The security token included in the request is invalid."
        if region != self.region or service != self.service:
            return 403, "Credential should be scoped to a valid region and service: " \
                        "'%s/%s', not '%s/%s'." % (self.region, self.service, region, service)
        token = headers.get("X-Amz-Security-Token")
        if token and self.token_expired(token):
            return 403, "The security token included in the request is expired"
        amz_date = headers.get("X-Amz-Date", "")
        try:
            when = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(
                tzinfo=datetime.timezone.utc).timestamp()
        except ValueError:
            return 403, "X-Amz-Date is missing or malformed: '%s'" % amz_date[:40]
        now = self.now()
        fmt = lambda t: datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
            "%Y%m%dT%H%M%SZ")
        if when < now - SKEW_LIMIT_S:
            return 403, "Signature expired: %s is now earlier than %s (%s - 5 min.)" % (
                amz_date, fmt(now - SKEW_LIMIT_S), fmt(now))
        if when > now + SKEW_LIMIT_S:
            return 403, "Signature not yet current: %s is still later than %s (%s + 5 min.)" % (
                amz_date, fmt(now + SKEW_LIMIT_S), fmt(now))
        want_hash = hashlib.sha256(body or b"").hexdigest()
        if headers.get("X-Amz-Content-SHA256") != want_hash:
            return 403, "The provided 'x-amz-content-sha256' header does not match what was " \
                        "computed."
        names = signed.split(";")
        if "host" not in names or "x-amz-date" not in names:
            return 403, "Host and x-amz-date must be signed: SignedHeaders=" + signed
        if token and "x-amz-security-token" not in names:
            return 403, "X-Amz-Security-Token must be signed"
        sign_headers = {}
        for n in names:
            v = headers.get_all(n) if hasattr(headers, "get_all") else [headers.get(n)]
            if not v or v[0] is None:
                return 403, "Signed header %s is not in the request" % n
            sign_headers[n] = ",".join(v)
        url = "http://%s%s" % (sign_headers["host"], raw_path)
        req = AWSRequest(method=method, url=url, data=body, headers=sign_headers)
        creds = Credentials(key_id, self.keys[key_id], token)
        signer = SigV4Auth(creds, service, region)
        req.context["timestamp"] = amz_date
        signer._modify_request_before_signing(req)
        cr = signer.canonical_request(req)
        sts = signer.string_to_sign(req, cr)
        if signer.signature(sts, req) != signature:
            return 403, MISMATCH
        return None
