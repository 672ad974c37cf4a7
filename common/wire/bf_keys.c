/* SPDX-License-Identifier: MIT */
/* bf_keys.c — CURVE key files. */
#include "bf_keys.h"

#include "bf_mem.h"
#include "bf_sha256.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

static int read_line(const char *path, char *out, size_t out_size)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return errno == ENOENT ? BF_E_NOTFOUND : BF_E_IO;
    char buf[128];
    char *got = fgets(buf, sizeof buf, f);
    fclose(f);
    if (got == NULL)
        return BF_E_PARSE;
    buf[strcspn(buf, "\r\n")] = '\0';
    if (strlen(buf) != BF_Z85_KEY_LEN)
        return BF_E_PARSE;
    bf_strlcpy(out, buf, out_size);
    return BF_OK;
}

static int write_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode);
    if (fd < 0)
        return BF_E_IO;
    size_t n = strlen(text);
    int ok = write(fd, text, n) == (ssize_t)n;
    ok &= fsync(fd) == 0;
    ok &= close(fd) == 0;
    return ok ? BF_OK : BF_E_IO;
}

int bf_keys_generate(const char *dir, const char *name, bf_diag_t *diag)
{
    if (!zmq_has("curve"))
        return bf_diag_set(diag, BF_E_INVAL, "this libzmq has no CURVE support");
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return bf_diag_set(diag, BF_E_IO, "cannot create %s: %s", dir, strerror(errno));
    char pub[41], sec[41];
    if (zmq_curve_keypair(pub, sec) != 0)
        return bf_diag_set(diag, BF_E_IO, "zmq_curve_keypair failed: %s", zmq_strerror(errno));
    char *kpath = bf_asprintf("%s/%s.key", dir, name);
    char *ppath = bf_asprintf("%s/%s.pub", dir, name);
    int rc = BF_OK;
    if (access(kpath, F_OK) == 0) {
        rc = bf_diag_set(diag, BF_E_INVAL,
                         "%s exists; not overwriting a key (remove it first to "
                         "replace it)",
                         kpath);
        goto out;
    }
    char *line = bf_asprintf("%s\n", sec);
    rc = write_file(kpath, line, 0600);
    free(line);
    if (rc != BF_OK) {
        bf_diag_set(diag, rc, "cannot write %s: %s", kpath, strerror(errno));
        goto out;
    }
    unlink(ppath);
    line = bf_asprintf("%s\n", pub);
    rc = write_file(ppath, line, 0644);
    free(line);
    if (rc != BF_OK)
        bf_diag_set(diag, rc, "cannot write %s: %s", ppath, strerror(errno));
out:
    explicit_bzero(sec, sizeof sec);
    free(kpath);
    free(ppath);
    return rc;
}

int bf_keys_load_secret(const char *dir, const char *name, char *secret_z85, char *public_z85,
                        bf_diag_t *diag)
{
    char *path = bf_asprintf("%s/%s.key", dir, name);
    struct stat st;
    int rc = BF_OK;
    if (stat(path, &st) != 0) {
        rc = bf_diag_set(diag, BF_E_NOTFOUND, "%s: %s; create keys with `keygen %s`", path,
                         strerror(errno), dir);
        goto out;
    }
    if (st.st_mode & 077) {
        rc = bf_diag_set(diag, BF_E_INVAL,
                         "%s is readable by group or others (mode %03o); "
                         "run: chmod 600 %s",
                         path, (unsigned)(st.st_mode & 0777), path);
        goto out;
    }
    rc = read_line(path, secret_z85, 41);
    if (rc != BF_OK) {
        bf_diag_set(diag, rc, "%s: expected one 40-character Z85 secret key line", path);
        goto out;
    }
    if (zmq_curve_public(public_z85, secret_z85) != 0)
        rc = bf_diag_set(diag, BF_E_PARSE, "%s: not a valid Z85 CURVE secret key", path);
out:
    free(path);
    return rc;
}

int bf_keys_load_public(const char *dir, const char *name, char *public_z85, bf_diag_t *diag)
{
    char *path = bf_asprintf("%s/%s.pub", dir, name);
    int rc = read_line(path, public_z85, 41);
    if (rc != BF_OK)
        bf_diag_set(diag, rc,
                    "%s: %s; expected one 40-character Z85 public key line (copy "
                    "it from the other side's keygen)",
                    path, rc == BF_E_NOTFOUND ? "missing" : "unreadable");
    free(path);
    return rc;
}

/* bf_keys_allowed through bf_keys_each_allowed: one reader of the allow-list directory */
typedef struct allowed_ctx {
    const uint8_t *key;
    char *name;
    size_t name_size;
    int found;
} allowed_ctx;

static void allowed_one(void *ctx, const uint8_t *key, const char *name)
{
    allowed_ctx *a = ctx;
    if (a->found || memcmp(key, a->key, 32) != 0)
        return;
    a->found = 1;
    if (a->name)
        snprintf(a->name, a->name_size, "%s", name);
}

int bf_keys_allowed(const char *allow_dir, const uint8_t *key, char *name, size_t name_size)
{
    allowed_ctx a = {key, name, name_size, 0};
    bf_keys_each_allowed(allow_dir, allowed_one, &a);
    return a.found;
}

int bf_keys_each_allowed(const char *allow_dir, bf_keys_each_fn fn, void *ctx)
{
    return bf_keys_scan_allowed(allow_dir, fn, NULL, ctx);
}

/* 1 when dir holds the .pub beside the secret key file `file` (len bytes, ending ".key") */
static int pair_pub(const char *dir, const char *file, size_t len)
{
    char *pub = bf_asprintf("%s/%.*s.pub", dir, (int)(len - 4), file);
    struct stat st;
    int ok = stat(pub, &st) == 0;
    free(pub);
    return ok;
}

/* 1 when names[0..n) holds name */
static int name_taken(char **names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

int bf_keys_scan_allowed(const char *allow_dir, bf_keys_each_fn fn, bf_keys_skip_fn skip, void *ctx)
{
    struct dirent **ents = NULL;
    int n = scandir(allow_dir, &ents, NULL, alphasort); /* sorted: the same winner each time */
    if (n < 0)
        return BF_E_NOTFOUND;
    int count = 0;
    char **names = bf_calloc((size_t)n + 1, sizeof *names);
    for (int i = 0; i < n; i++) {
        const char *file = ents[i]->d_name;
        size_t len = strlen(file);
        char *path = bf_asprintf("%s/%s", allow_dir, file);
        char z85[41], why[300];
        uint8_t bin[32];
        struct stat st;
        why[0] = '\0';
        if (strcmp(file, ".") == 0 || strcmp(file, "..") == 0) {
            free(path);
            continue;
        }
        /* the key's name: the file name, without a .pub ending */
        char *name = bf_asprintf(
            "%.*s", (int)(len > 4 && strcmp(file + len - 4, ".pub") == 0 ? len - 4 : len), file);
        int rc = BF_OK;
        if (len > 4 && strcmp(file + len - 4, ".key") == 0 && pair_pub(allow_dir, file, len)) {
            /* the secret half of a key pair generated here (keygen, --local-agents): its
             * .pub is the entry */
            free(name);
            free(path);
            continue;
        }
        if (stat(path, &st) != 0)
            snprintf(why, sizeof why, "cannot stat it: %s", strerror(errno));
        else if (!S_ISREG(st.st_mode))
            snprintf(why, sizeof why, "not a regular file");
        else if (len > 4 && strcmp(file + len - 4, ".key") == 0)
            snprintf(why, sizeof why,
                     "a secret key file (.key) is never an allow-list entry; "
                     "move it out of this directory");
        else if ((rc = read_line(path, z85, sizeof z85)) != BF_OK ||
                 zmq_z85_decode(bin, z85) == NULL)
            snprintf(why, sizeof why, "%s",
                     rc == BF_E_IO ? "cannot be read"
                                   : "not one 40-character Z85 public key line (copy "
                                     "the agent's agent.pub)");
        else if (name_taken(names, (size_t)count, name))
            snprintf(why, sizeof why, "another file already names key '%s'", name);
        if (why[0]) {
            if (skip)
                skip(ctx, file, why);
            free(name);
        } else {
            fn(ctx, bin, name);
            names[count++] = name;
        }
        free(path);
    }
    for (int i = 0; i < count; i++)
        free(names[i]);
    free(names);
    for (int i = 0; i < n; i++)
        free(ents[i]);
    free(ents);
    return count;
}

void bf_keys_fingerprint(const uint8_t key[32], char out[BF_KEY_FP_LEN + 1])
{
    char hex[65];
    bf_sha256_hex(key, 32, hex);
    snprintf(out, BF_KEY_FP_LEN + 1, "sha256:%.16s", hex);
}

void bf_keys_fingerprint_z85(const char *public_z85, char out[BF_KEY_FP_LEN + 1])
{
    uint8_t key[32];
    out[0] = '\0';
    if (public_z85 == NULL || strlen(public_z85) != BF_Z85_KEY_LEN ||
        zmq_z85_decode(key, public_z85) == NULL)
        return;
    bf_keys_fingerprint(key, out);
}
