/* SPDX-License-Identifier: MIT */
/* bf_scenario_files.c — the files a scenario names (dictionaries, mappings, templates):
 * read whole under a cap, with the key's position in every error.
 */
#include "bf_scenario_int.h"

#include "bf_corpus.h"
#include "bf_file.h"
#include "bf_jsonesc.h"
#include "bf_mem.h"
#include "bf_sha256.h"
#include "bf_template.h"
#include "bf_units.h"
#include "bf_vecfile.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

/* ---- files --------------------------------------------------------------------------------- */

/* Reads a file the scenario names (through the provider or from disk), registers it in the
 * scenario's file list (once per path) and returns its content (borrowed from the list). */
int bf__read_ref(bf__load_t *L, const bf_ynode_t *n, const char *key, const char *what,
                 const char *path, size_t cap, const char **data, size_t *len)
{
    bf_scenario_t *sc = L->sc;
    for (size_t i = 0; i < sc->nfiles; i++) {
        if (strcmp(sc->files[i].path, path) == 0) {
            if (sc->files[i].len > cap)
                return bf__err(L, n, BF_E_TOOBIG, "%s: %s '%s' is larger than %zu bytes", key, what,
                               path, cap);
            *data = sc->files[i].data;
            *len = sc->files[i].len;
            return BF_OK;
        }
    }
    char *buf = NULL;
    size_t blen = 0;
    int rc, err_no = 0;
    char *full = NULL;
    if (L->opts && L->opts->file_provider) {
        rc = L->opts->file_provider(L->opts->file_provider_ctx, path, &buf, &blen);
        if (rc != BF_OK) {
            free(buf);
            return bf__err(L, n, rc == BF_E_NOTFOUND ? BF_E_NOTFOUND : BF_E_IO,
                           "%s: %s '%s' was not provided (%s); ship it with the scenario", key,
                           what, path, bf_strerror(rc));
        }
        if (buf == NULL && blen != 0)
            return bf__err(L, n, BF_E_IO, "%s: %s '%s': the file provider returned no data", key,
                           what, path);
        if (blen > cap) {
            free(buf);
            return bf__err(L, n, BF_E_TOOBIG, "%s: %s '%s' is larger than %zu bytes", key, what,
                           path, cap);
        }
        buf = bf_realloc(buf, blen + 1);
        buf[blen] = '\0';
    } else {
        if (path[0] == '/' || L->base_dir == NULL)
            full = bf_strdup(path);
        else
            full = bf_asprintf("%s/%s", L->base_dir, path);
        rc = bf_file_read(full, cap, &buf, &blen, &err_no);
        if (rc == BF_E_TOOBIG) {
            rc = bf__err(L, n, BF_E_TOOBIG, "%s: %s '%s' is larger than %zu bytes", key, what, full,
                         cap);
            free(full);
            return rc;
        }
        if (rc != BF_OK) {
            rc = bf__err(L, n, rc, "%s: cannot read %s '%s': %s%s", key, what, full,
                         strerror(err_no),
                         path[0] == '/' ? "" : " (relative paths start at the scenario's folder)");
            free(full);
            return rc;
        }
        free(full);
    }
    sc->files = bf_realloc(sc->files, (sc->nfiles + 1) * sizeof *sc->files);
    bf_scenario_file_t *f = &sc->files[sc->nfiles++];
    memset(f, 0, sizeof *f);
    f->path = bf_strdup(path);
    f->data = buf;
    f->len = blen;
    bf_sha256_hex(buf, blen, f->sha256_hex);
    *data = buf;
    *len = blen;
    return BF_OK;
}

int bf__ref_local(bf__load_t *L, const bf_ynode_t *n, const char *key, const char *what,
                  const char *path, size_t cap, const char **data, size_t *len, const char **local)
{
    bf_scenario_t *sc = L->sc;
    *data = NULL;
    *local = NULL;
    if (L->opts && L->opts->file_provider && L->opts->file_view) {
        for (size_t i = 0; i < sc->nfiles; i++)
            if (strcmp(sc->files[i].path, path) == 0)
                return bf__read_ref(L, n, key, what, path, cap, data, len);
        const char *view = NULL;
        size_t vlen = 0;
        int rc = L->opts->file_view(L->opts->file_provider_ctx, path, &view, &vlen);
        if (rc != BF_OK || (view == NULL && vlen != 0))
            return bf__err(L, n, rc == BF_E_NOTFOUND ? BF_E_NOTFOUND : BF_E_IO,
                           "%s: %s '%s' was not provided (%s); ship it with the scenario", key,
                           what, path, bf_strerror(rc == BF_OK ? BF_E_IO : rc));
        if (vlen > cap)
            return bf__err(L, n, BF_E_TOOBIG, "%s: %s '%s' is larger than %zu bytes", key, what,
                           path, cap);
        sc->files = bf_realloc(sc->files, (sc->nfiles + 1) * sizeof *sc->files);
        bf_scenario_file_t *f = &sc->files[sc->nfiles++];
        memset(f, 0, sizeof *f);
        f->path = bf_strdup(path);
        f->data = view ? view : "";
        f->len = vlen;
        f->borrowed = 1; /* (no SHA-256: the provider checked the bytes it lends) */
        *data = f->data;
        *len = vlen;
        return BF_OK;
    }
    if (L->opts && L->opts->file_provider)
        return bf__read_ref(L, n, key, what, path, cap, data, len);
    for (size_t i = 0; i < sc->nfiles; i++) {
        if (strcmp(sc->files[i].path, path) == 0) {
            if (sc->files[i].data) /* read whole for another key: use those bytes */
                return bf__read_ref(L, n, key, what, path, cap, data, len);
            *len = sc->files[i].len;
            *local = sc->files[i].local;
            return BF_OK;
        }
    }
    char *full = path[0] == '/' || L->base_dir == NULL ? bf_strdup(path)
                                                       : bf_asprintf("%s/%s", L->base_dir, path);
    uint64_t size = 0;
    int err_no = 0;
    char hex[65];
    struct stat st;
    const char *why = NULL;
    if (stat(full, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (bf_sha256_file(full, &size, hex, &err_no) != BF_OK)
        why = strerror(err_no);
    if (why) {
        int rc = bf__err(L, n, BF_E_IO, "%s: cannot read %s '%s': %s%s", key, what, full, why,
                         path[0] == '/' ? "" : " (relative paths start at the scenario's folder)");
        free(full);
        return rc;
    }
    if (size > cap) {
        int rc = bf__err(L, n, BF_E_TOOBIG, "%s: %s '%s' is larger than %zu bytes", key, what, full,
                         cap);
        free(full);
        return rc;
    }
    sc->files = bf_realloc(sc->files, (sc->nfiles + 1) * sizeof *sc->files);
    bf_scenario_file_t *f = &sc->files[sc->nfiles++];
    memset(f, 0, sizeof *f);
    f->path = bf_strdup(path);
    f->local = full;
    f->len = (size_t)size;
    memcpy(f->sha256_hex, hex, sizeof hex);
    *len = f->len;
    *local = full;
    return BF_OK;
}

/* Parses a JSON object from a file; errors point into that file. */
int bf__read_json_file(bf__load_t *L, const bf_ynode_t *n, const char *key, const char *what,
                       const char *path, json_t **out)
{
    const char *data;
    size_t len;
    int rc = bf__read_ref(L, n, key, what, path, BF_MAX_SCENARIO_BYTES, &data, &len);
    if (rc != BF_OK)
        return rc;
    json_error_t je;
    size_t skip = (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) ? 3 : 0;
    json_t *j = json_loadb(data + skip, len - skip, JSON_REJECT_DUPLICATES, &je);
    if (j == NULL)
        return bf_diag_set(L->diag, BF_E_PARSE,
                           "%s:%d:%d: %s: invalid JSON: %s (referenced "
                           "from %s:%u:%u)",
                           path, je.line < 1 ? 1 : je.line, je.column < 1 ? 1 : je.column, what,
                           je.text, L->origin, n->line, n->col);
    if (!json_is_object(j)) {
        json_decref(j);
        return bf__err(L, n, BF_E_INVAL, "%s: %s '%s' must hold a JSON object", key, what, path);
    }
    *out = j;
    return BF_OK;
}
