/* SPDX-License-Identifier: MIT */
/* bf_sha256.h — SHA-256 of a buffer as lowercase hex (content addresses of shipped files).
 *
 * docs/internals/fleet-protocol.md: dictionary files are shipped to agents content-addressed by
 * sha256. Uses OpenSSL's libcrypto (EVP interface). Thread-safe.
 */
#ifndef BF_SHA256_H
#define BF_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* bf_sha256_hex — hex digest of data[0..len) into out (64 characters + NUL). */
void bf_sha256_hex(const void *data, size_t len, char out[65]);
/* bf_sha256_file — hex digest of the regular file at `path` into out, read 4 MiB at a time (never
 * whole); its size in bytes into *len. Returns 0, or BF_E_IO with errno's value in *err_no when
 * it cannot be opened or read. Thread-safe. */
int bf_sha256_file(const char *path, uint64_t *len, char out[65], int *err_no);

#endif
