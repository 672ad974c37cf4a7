/* SPDX-License-Identifier: MIT */
/* bf_aws.h — AWS credentials (the SDKs' provider chain) and SigV4-signed requests.
 *
 * For target.auth.aws / metrics_store.auth.aws (docs/cloud.md): Amazon OpenSearch Service
 * (service "es") and OpenSearch Serverless ("aoss") authenticate every request by its AWS
 * Signature Version 4 (bf_sigv4). The credentials are, in the order the AWS SDKs look for them:
 * the scenario's own (target.auth.aws.access_key_id, shipped to the agents like a password);
 * the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN); the shared
 * credentials and config files (AWS_SHARED_CREDENTIALS_FILE, default ~/.aws/credentials;
 * AWS_CONFIG_FILE, default ~/.aws/config; profile AWS_PROFILE, default "default"); web identity
 * (AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN, exchanged at STS by AssumeRoleWithWebIdentity:
 * EKS service accounts); the instance metadata service (IMDSv2: a session token, then the
 * instance role's credentials). Endpoints as the SDKs let them be moved: AWS_ENDPOINT_URL_STS
 * (or AWS_ENDPOINT_URL), AWS_EC2_METADATA_SERVICE_ENDPOINT; AWS_EC2_METADATA_DISABLED=true skips
 * the metadata service. Each process keeps the credentials it found and fetches them again 5
 * minutes before they expire, so a campaign of hours keeps signing. Secrets are never logged.
 */
#ifndef BF_AWS_H
#define BF_AWS_H

#include "bf_error.h"
#include "bf_scenario.h"

#include <curl/curl.h>
#include <stdint.h>
#include <time.h>

/* temporary credentials are fetched again this long (s) before they expire */
#define BF_AWS_REFRESH_BEFORE_S 300
/* near their expiry, at most one fetch this often (s), so a failing provider is not hammered */
#define BF_AWS_REFETCH_EVERY_S 10
/* one STS or metadata request (ms) */
#define BF_AWS_HTTP_TIMEOUT_MS 5000
/* an STS or metadata answer (bytes) */
#define BF_AWS_MAX_ANSWER_BYTES (64u << 10)

/* One set of credentials. key_id, secret, token are owned (token NULL for long-term keys).
 * Free with bf_aws_creds_cleanup. */
typedef struct bf_aws_creds {
    char *key_id;
    char *secret;     /* SECRET */
    char *token;      /* SECRET */
    time_t expires;   /* UTC seconds; 0 = does not expire */
    char source[160]; /* where they came from, for messages ("environment", "instance metadata
                         (role bench)"); never a secret */
} bf_aws_creds_t;

void bf_aws_creds_cleanup(bf_aws_creds_t *c);

/* bf_aws_creds_resolve — walk the provider chain once (no cache) for a client of region
 * (STS's regional endpoint). Fills *out (caller cleans up). Returns 0; BF_E_NOTFOUND when no
 * provider has credentials (diag lists what was tried and how to give them); BF_E_INVAL for a
 * named profile that does not exist or has no keys (role_arn, sso, credential_process profiles
 * are named as not supported), BF_E_TRANSPORT / BF_E_HTTP when STS or the metadata service
 * answered with an error (diag has its message), BF_E_TIMEOUT when the metadata service took the
 * connection and did not answer (diag names it and what to do). Blocking (HTTP calls of at most
 * BF_AWS_HTTP_TIMEOUT_MS each). Thread-safe (reads the environment). */
int bf_aws_creds_resolve(const char *region, bf_aws_creds_t *out, bf_diag_t *diag);

/* bf_aws_creds_current — the credentials to sign a request to target t with (t->auth ==
 * BF_AUTH_AWS): the scenario's own when it gives them, else with t->aws_ship those the
 * coordinator shipped last (bf_aws_ship_receive) if any, else this process's cached chain result,
 * fetched again when it expires within BF_AWS_REFRESH_BEFORE_S. That fetch again runs in a
 * background thread (at most one at a time, at most every BF_AWS_REFETCH_EVERY_S) while every
 * caller keeps signing with the still-valid ones: a caller waits for a fetch only when nothing
 * valid is cached (the first one, or after expiry). A copy into *out (caller cleans up).
 * Returns as bf_aws_creds_resolve. Thread-safe. */
int bf_aws_creds_current(const bf_target_t *t, bf_aws_creds_t *out, bf_diag_t *diag);

/* bf_aws_ship_current — the coordinator's own credentials to ship to the agents
 * (target.auth.aws.ship): its provider chain's, cached and fetched again as
 * bf_aws_creds_current does. Never waits for a fetch (it runs on the coordinator's fleet loop,
 * which pings the agents): a fetch, also the first, runs in a background thread, and until it
 * brings credentials BF_E_STATE is returned with diag naming the source that failed and what to
 * do (or that the fetch is under way). *gen: a number that changes whenever the cache holds
 * other credentials than before (1 after the first fetch), so a caller ships again only when it
 * differs from what it last shipped. A copy into *out (caller cleans up). Returns 0 or
 * BF_E_STATE. Thread-safe. */
int bf_aws_ship_current(const bf_target_t *t, bf_aws_creds_t *out, uint64_t *gen, bf_diag_t *diag);

/* bf_aws_ship_receive — an agent: the credentials the coordinator shipped (strings borrowed,
 * copied; token NULL or "" for long-term keys; expires UTC seconds, 0 = never; source where the
 * coordinator found them, for messages). From then on bf_aws_creds_current signs with them for
 * a target with aws_ship, until other ones are received (said once each, key's first 8
 * characters only). key_id NULL or "" is ignored. Thread-safe. */
void bf_aws_ship_receive(const char *key_id, const char *secret, const char *token, int64_t expires,
                         const char *source);

/* bf_aws_forget — drop this process's cached credentials (tests; a 403 for an expired token).
 * Thread-safe. */
void bf_aws_forget(void);

/* bf_aws_sign — sign METHOD url with body[0..len) (the bytes on the wire: the gzip bytes when
 * compressed; NULL/0 for none) for target t and append X-Amz-Date, X-Amz-Content-SHA256,
 * X-Amz-Security-Token (temporary credentials) and Authorization to *headers (caller frees the
 * list). The query is signed in SigV4's encoding; when the URL's query is written otherwise
 * (e.g. "items.*" where SigV4 encodes "items.%2A"), *url_out is set to the same URL with the
 * query as signed, which the caller must send instead (caller frees; NULL when url is fine).
 * The host signed is the one libcurl sends (the URL's host, ":port" unless the scheme's
 * default). Returns 0, or as bf_aws_creds_current, or BF_E_INVAL for a URL libcurl cannot
 * parse. Thread-safe. */
int bf_aws_sign(const bf_target_t *t, const char *method, const char *url, const void *body,
                size_t len, struct curl_slist **headers, char **url_out, bf_diag_t *diag);

/* bf_aws_auth_hint — what to check after the server refused a signed request with reason (its
 * message, may be NULL): the secret (signature mismatch), the clock (signature expired, not yet
 * current, RequestTimeTooSkewed), the session token (expired, invalid), the region and service
 * (credential scope), the IAM or data access policy (not authorized). Writes one sentence into
 * buf (size bytes) naming target.auth.aws and where the credentials came from; returns buf.
 * Thread-safe. */
const char *bf_aws_auth_hint(const bf_target_t *t, const char *reason, char *buf, size_t size);

#endif
