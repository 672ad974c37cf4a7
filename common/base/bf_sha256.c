/* SPDX-License-Identifier: MIT */
/* bf_sha256.c — SHA-256 hex digests through libcrypto's EVP interface. */
#include "bf_sha256.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

void bf_sha256_hex(const void *data, size_t len, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    if (EVP_Digest(data, len, md, &md_len, EVP_sha256(), NULL) != 1 || md_len != 32) {
        /* Only fails on allocation failure inside OpenSSL; same policy as bf_malloc. */
        fprintf(stderr, "bulkfleet: sha256 failed (libcrypto)\n");
        abort();
    }
    for (unsigned i = 0; i < 32; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = '\0';
}
