/* SPDX-License-Identifier: MIT */
/* bf_sha256.c — SHA-256 hex digests through libcrypto's EVP interface. */
#include "bf_sha256.h"

#include "bf_error.h"
#include "bf_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void to_hex(const unsigned char *md, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    for (unsigned i = 0; i < 32; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = '\0';
}

int bf_sha256_file(const char *path, uint64_t *len, char out[65], int *err_no)
{
    *len = 0;
    *err_no = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *err_no = errno;
        return BF_E_IO;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        fprintf(stderr, "bulkfleet: sha256 failed (libcrypto)\n");
        abort();
    }
    size_t bs = 4u << 20;
    unsigned char *buf = bf_malloc(bs);
    int rc = BF_OK;
    for (;;) {
        ssize_t n = read(fd, buf, bs);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *err_no = errno;
            rc = BF_E_IO;
            break;
        }
        if (n == 0)
            break;
        EVP_DigestUpdate(ctx, buf, (size_t)n);
        *len += (uint64_t)n;
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    if (EVP_DigestFinal_ex(ctx, md, &md_len) != 1 || md_len != 32) {
        fprintf(stderr, "bulkfleet: sha256 failed (libcrypto)\n");
        abort();
    }
    EVP_MD_CTX_free(ctx);
    free(buf);
    close(fd);
    if (rc == BF_OK)
        to_hex(md, out);
    return rc;
}

void bf_sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    if (EVP_Digest(data, len, md, &md_len, EVP_sha256(), NULL) != 1 || md_len != 32) {
        /* Only fails on allocation failure inside OpenSSL; same policy as bf_malloc. */
        fprintf(stderr, "bulkfleet: sha256 failed (libcrypto)\n");
        abort();
    }
    to_hex(md, out);
}
