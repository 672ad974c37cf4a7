/* SPDX-License-Identifier: MIT */
/* bf_sha256.h — SHA-256 of a buffer as lowercase hex (content addresses of shipped files).
 *
 * docs/internals/fleet-protocol.md: dictionary files are shipped to agents content-addressed by
 * sha256. Uses OpenSSL's libcrypto (EVP interface). Thread-safe.
 */
#ifndef BF_SHA256_H
#define BF_SHA256_H

#include <stddef.h>

/* bf_sha256_hex — hex digest of data[0..len) into out (64 characters + NUL). */
void bf_sha256_hex(const void *data, size_t len, char out[65]);

#endif
