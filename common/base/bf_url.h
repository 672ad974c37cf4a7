/* SPDX-License-Identifier: MIT */
/* bf_url.h — strings of URLs: what a message may show of one. */
#ifndef BF_URL_H
#define BF_URL_H

/* bf_url_redact_userinfo — "scheme://user:password@host..." -> "scheme://user:<redacted>@host...".
 * Returns a new string (caller frees), or NULL when url holds no password. Thread-safe. */
char *bf_url_redact_userinfo(const char *url);

#endif
