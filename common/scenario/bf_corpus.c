/* SPDX-License-Identifier: MIT */
/* bf_corpus.c — corpus files: decompression (zlib, libbz2, libzstd), line index, slices.
 *
 * Streaming decompression is the one place zlib stays (bodies are gzipped by libdeflate in the
 * agent): a corpus is inflated into one growing buffer, capped at BF_MAX_CORPUS_BYTES. Indexing
 * is one memchr pass; bulk-format action lines are small and parsed with jansson for _id and
 * routing, which are kept already JSON-escaped as action-line pieces so the agent only copies.
 */
#include "bf_corpus.h"

#include "bf_jsonesc.h"
#include "bf_mem.h"

#include <bzlib.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define CHUNK (1u << 20)

struct bf_corpus {
    char *name;
    enum bf_corpus_codec codec;
    char *text; /* decompressed (or copied) text, NUL-terminated */
    size_t text_len;
    bf_corpus_doc_t *docs;
    size_t ndocs, cap_docs;
    bf_buf_t meta;
    int has_ids;
    uint64_t src_bytes; /* sum of src_len */
    size_t no_nl;       /* documents whose source is not followed by '\n' in the text */
    size_t nparts;      /* files the text was made of (document.corpus.path as a list) */
    char **part_name;
    uint32_t *part_line0; /* lines of the text before each file's first line */
    enum bf_corpus_codec *part_codec;
    uint64_t *part_file_bytes, *part_text_bytes; /* each file as read, and decompressed */
    uint64_t meta_bytes;                         /* sum of id_len + routing_len */
    /* bf_corpus_interleave: the text holds "action\nsource\n" for documents [live_from,
     * live_to) only; il_head is each action line's start */
    int interleaved;
    size_t live_from, live_to;
    char *il_head;
    size_t il_head_len;
    size_t nbad;
    uint32_t bad_line[BF_CORPUS_BAD_KEEP];
    const char *bad_why[BF_CORPUS_BAD_KEEP];
};

/* ---- decompression ------------------------------------------------------------------------- */

static enum bf_corpus_codec sniff(const unsigned char *p, size_t n)
{
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        return BF_CORPUS_GZIP;
    if (n >= 3 && p[0] == 'B' && p[1] == 'Z' && p[2] == 'h')
        return BF_CORPUS_BZIP2;
    if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
        return BF_CORPUS_ZSTD;
    return BF_CORPUS_PLAIN;
}

const char *bf_corpus_codec_name(enum bf_corpus_codec k)
{
    switch (k) {
    case BF_CORPUS_PLAIN: return "plain";
    case BF_CORPUS_GZIP: return "gzip";
    case BF_CORPUS_BZIP2: return "bzip2";
    case BF_CORPUS_ZSTD: return "zstd";
    }
    return "?";
}

/* Grows out so that at least CHUNK bytes are free; BF_E_TOOBIG past the cap. */
static int room(char **out, size_t *cap, size_t len)
{
    if (*cap - len >= CHUNK)
        return BF_OK;
    if (len >= BF_MAX_CORPUS_BYTES)
        return BF_E_TOOBIG;
    size_t want = *cap ? *cap * 2 : 4 * CHUNK;
    if (want > BF_MAX_CORPUS_BYTES + CHUNK)
        want = BF_MAX_CORPUS_BYTES + CHUNK;
    *out = bf_realloc(*out, want + 1);
    *cap = want;
    return BF_OK;
}

static int gunzip(const char *name, const unsigned char *in, size_t n, char **out, size_t *olen,
                  bf_diag_t *diag)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK)
        return bf_diag_set(diag, BF_E_NOMEM, "corpus %s: zlib inflateInit2 failed", name);
    char *buf = NULL;
    size_t cap = 0, len = 0;
    int rc = BF_OK;
    z.next_in = (Bytef *)in;
    for (;;) {
        /* avail_in is 32 bits: feed the input in pieces */
        if (z.avail_in == 0) {
            size_t left = n - (size_t)((const unsigned char *)z.next_in - in);
            z.avail_in = (uInt)(left > (1u << 30) ? (1u << 30) : left);
        }
        if (room(&buf, &cap, len) != BF_OK) {
            rc = bf_diag_set(diag, BF_E_TOOBIG,
                             "corpus %s: decompresses to more than %zu MiB; "
                             "split it into several files",
                             name, BF_MAX_CORPUS_BYTES >> 20);
            break;
        }
        z.next_out = (Bytef *)buf + len;
        z.avail_out = (uInt)(cap - len);
        int zr = inflate(&z, Z_NO_FLUSH);
        len = cap - z.avail_out;
        size_t used = (size_t)((const unsigned char *)z.next_in - in);
        if (zr == Z_STREAM_END) {
            if (used >= n)
                break;
            inflateReset(&z); /* another gzip member follows */
            continue;
        }
        if (zr != Z_OK && !(zr == Z_BUF_ERROR && used < n)) {
            rc = bf_diag_set(diag, BF_E_PARSE,
                             "corpus %s: gzip data is %s at byte %zu of %zu "
                             "(%s); fetch the file again",
                             name, zr == Z_BUF_ERROR ? "truncated" : "corrupt", used, n,
                             z.msg ? z.msg : "no message");
            break;
        }
    }
    inflateEnd(&z);
    if (rc != BF_OK) {
        free(buf);
        return rc;
    }
    *out = buf;
    *olen = len;
    return BF_OK;
}

static int bunzip(const char *name, const unsigned char *in, size_t n, char **out, size_t *olen,
                  bf_diag_t *diag)
{
    bz_stream b;
    memset(&b, 0, sizeof b);
    if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK)
        return bf_diag_set(diag, BF_E_NOMEM, "corpus %s: BZ2_bzDecompressInit failed", name);
    char *buf = NULL;
    size_t cap = 0, len = 0, used = 0;
    int rc = BF_OK;
    for (;;) {
        if (b.avail_in == 0) {
            size_t left = n - used;
            b.next_in = (char *)in + used;
            b.avail_in = (unsigned)(left > (1u << 30) ? (1u << 30) : left);
        }
        if (room(&buf, &cap, len) != BF_OK) {
            rc = bf_diag_set(diag, BF_E_TOOBIG,
                             "corpus %s: decompresses to more than %zu MiB; "
                             "split it into several files",
                             name, BF_MAX_CORPUS_BYTES >> 20);
            break;
        }
        b.next_out = buf + len;
        b.avail_out = (unsigned)(cap - len > (1u << 30) ? (1u << 30) : cap - len);
        unsigned before_in = b.avail_in, before_out = b.avail_out;
        int br = BZ2_bzDecompress(&b);
        len += before_out - b.avail_out;
        used += before_in - b.avail_in;
        if (br == BZ_STREAM_END) {
            if (used >= n)
                break;
            BZ2_bzDecompressEnd(&b); /* another stream follows (pbzip2 writes several) */
            memset(&b, 0, sizeof b);
            if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK) {
                rc = bf_diag_set(diag, BF_E_NOMEM, "corpus %s: BZ2_bzDecompressInit failed", name);
                break;
            }
            continue;
        }
        if (br != BZ_OK || (used >= n && b.avail_out != 0 && before_out == b.avail_out)) {
            rc = bf_diag_set(diag, BF_E_PARSE,
                             "corpus %s: bzip2 data is %s at byte %zu of %zu "
                             "(libbz2 code %d); fetch the file again",
                             name, br == BZ_OK ? "truncated" : "corrupt", used, n, br);
            break;
        }
    }
    BZ2_bzDecompressEnd(&b);
    if (rc != BF_OK) {
        free(buf);
        return rc;
    }
    *out = buf;
    *olen = len;
    return BF_OK;
}

static int unzstd(const char *name, const unsigned char *in, size_t n, char **out, size_t *olen,
                  bf_diag_t *diag)
{
    ZSTD_DStream *d = ZSTD_createDStream();
    if (d == NULL)
        return bf_diag_set(diag, BF_E_NOMEM, "corpus %s: ZSTD_createDStream failed", name);
    ZSTD_initDStream(d);
    char *buf = NULL;
    size_t cap = 0, len = 0;
    int rc = BF_OK;
    ZSTD_inBuffer ib = {in, n, 0};
    size_t last = 1;
    while (ib.pos < ib.size || last != 0) {
        if (room(&buf, &cap, len) != BF_OK) {
            rc = bf_diag_set(diag, BF_E_TOOBIG,
                             "corpus %s: decompresses to more than %zu MiB; "
                             "split it into several files",
                             name, BF_MAX_CORPUS_BYTES >> 20);
            break;
        }
        ZSTD_outBuffer ob = {buf + len, cap - len, 0};
        size_t in_before = ib.pos;
        last = ZSTD_decompressStream(d, &ob, &ib);
        len += ob.pos;
        if (ZSTD_isError(last)) {
            rc = bf_diag_set(diag, BF_E_PARSE,
                             "corpus %s: zstd data is corrupt at byte %zu of "
                             "%zu (%s); fetch the file again",
                             name, ib.pos, n, ZSTD_getErrorName(last));
            break;
        }
        if (ib.pos >= ib.size && last != 0 && ob.pos == 0 && ib.pos == in_before) {
            rc = bf_diag_set(diag, BF_E_PARSE,
                             "corpus %s: zstd data is truncated (%zu bytes); "
                             "fetch the file again",
                             name, n);
            break;
        }
    }
    ZSTD_freeDStream(d);
    if (rc != BF_OK) {
        free(buf);
        return rc;
    }
    *out = buf;
    *olen = len;
    return BF_OK;
}

/* ---- indexing ------------------------------------------------------------------------------ */

static void bad(bf_corpus_t *c, uint32_t line, const char *why)
{
    if (c->nbad < BF_CORPUS_BAD_KEEP) {
        c->bad_line[c->nbad] = line;
        c->bad_why[c->nbad] = why;
    }
    c->nbad++;
}

static int blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return 0;
    return 1;
}

/* Trims white space (and a '\r' of CRLF files) around a line. */
static void trim(const char **p, size_t *n)
{
    while (*n && (**p == ' ' || **p == '\t'))
        (*p)++, (*n)--;
    while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t' || (*p)[*n - 1] == '\r'))
        (*n)--;
}

static int looks_object(const char *p, size_t n)
{
    return n >= 2 && p[0] == '{' && p[n - 1] == '}';
}

/* Appends ,"key":"<escaped value>" to the meta pool for a string or number value. */
static size_t meta_piece(bf_corpus_t *c, const char *key, json_t *v)
{
    size_t before = c->meta.len;
    char num[64];
    const char *s = NULL;
    size_t n = 0;
    if (json_is_string(v)) {
        s = json_string_value(v);
        n = json_string_length(v);
    } else if (json_is_integer(v)) {
        n = (size_t)snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        s = num;
    } else {
        return 0;
    }
    bf_buf_appendf(&c->meta, ",\"%s\":\"", key);
    bf_jsonesc_append(&c->meta, s, n);
    bf_buf_append(&c->meta, "\"", 1);
    size_t got = c->meta.len - before;
    if (got > UINT16_MAX) {
        c->meta.len = before;
        return 0;
    }
    return got;
}

/* Parses a bulk action line; 0 and the pieces, or a reason it is unfit. */
static const char *action_meta(bf_corpus_t *c, const char *p, size_t n, bf_corpus_doc_t *d)
{
    json_t *j = json_loadb(p, n, 0, NULL);
    const char *why = NULL;
    if (!json_is_object(j) || json_object_size(j) != 1) {
        why = "not a bulk action line ({\"index\":{...}} or {\"create\":{...}})";
        goto out;
    }
    const char *op = json_object_iter_key(json_object_iter(j));
    json_t *m = json_object_iter_value(json_object_iter(j));
    if (strcmp(op, "index") != 0 && strcmp(op, "create") != 0) {
        why = "a bulk action other than index or create (update and delete are not loads)";
        goto out;
    }
    if (!json_is_object(m)) {
        why = "the bulk action's metadata is not an object";
        goto out;
    }
    d->meta_off = (uint32_t)c->meta.len;
    json_t *id = json_object_get(m, "_id");
    json_t *rt = json_object_get(m, "routing");
    if (rt == NULL)
        rt = json_object_get(m, "_routing");
    d->id_len = id ? (uint16_t)meta_piece(c, "_id", id) : 0;
    d->routing_len = rt ? (uint16_t)meta_piece(c, "routing", rt) : 0;
    if (d->id_len)
        c->has_ids = 1;
out:
    json_decref(j);
    return why;
}

static void push_doc(bf_corpus_t *c, const bf_corpus_doc_t *d)
{
    if (c->ndocs == c->cap_docs) {
        c->cap_docs = c->cap_docs ? c->cap_docs * 2 : 1024;
        c->docs = bf_realloc(c->docs, c->cap_docs * sizeof *c->docs);
    }
    c->docs[c->ndocs++] = *d;
    c->src_bytes += d->src_len;
    c->meta_bytes += (uint64_t)d->id_len + d->routing_len;
}

static int index_text(bf_corpus_t *c, enum bf_corpus_format format, bf_diag_t *diag)
{
    const char *t = c->text, *end = c->text + c->text_len;
    uint32_t line = 0;
    int want_source = 0; /* bulk: the previous line was an action */
    bf_corpus_doc_t pending;
    memset(&pending, 0, sizeof pending);
    uint32_t action_line = 0;
    while (t < end) {
        const char *nl = memchr(t, '\n', (size_t)(end - t));
        const char *le = nl ? nl : end;
        const char *p = t;
        size_t n = (size_t)(le - t);
        line++;
        t = nl ? nl + 1 : end;
        if (blank(p, n))
            continue;
        trim(&p, &n);
        if (n > BF_MAX_CORPUS_DOC_BYTES) {
            uint32_t fl;
            const char *fname = bf_corpus_where(c, line, &fl);
            return bf_diag_set(diag, BF_E_TOOBIG,
                               "corpus %s:%u: a line of %zu bytes, over the "
                               "%u MiB a document may have",
                               fname, fl, n, BF_MAX_CORPUS_DOC_BYTES >> 20);
        }
        if (format == BF_CORPUS_BULK && !want_source) {
            memset(&pending, 0, sizeof pending);
            const char *why = action_meta(c, p, n, &pending);
            if (why) {
                bad(c, line, why);
                /* resynchronise: a source line would start with '{' too, so skip the next
                 * line only when this one was an action of another kind */
                continue;
            }
            action_line = line;
            want_source = 1;
            continue;
        }
        want_source = 0;
        if (!looks_object(p, n)) {
            bad(c, line, "not a JSON object");
            continue;
        }
        pending.src_off = (uint64_t)(p - c->text);
        pending.src_len = (uint32_t)n;
        pending.line = line;
        if (p + n >= end || p[n] != '\n')
            c->no_nl++;
        push_doc(c, &pending);
        memset(&pending, 0, sizeof pending);
    }
    if (want_source)
        bad(c, action_line, "a bulk action line without a source line after it");
    c->live_to = c->ndocs;
    if (c->ndocs == 0)
        return bf_diag_set(diag, BF_E_INVAL, "corpus %s: no document in %zu bytes (%s)%s%s",
                           c->name, c->text_len, bf_corpus_codec_name(c->codec),
                           c->nbad ? "; first bad line: " : "", c->nbad ? c->bad_why[0] : "");
    return BF_OK;
}

/* Decompresses (or copies) one file into *text (NUL-terminated, caller frees). */
static int decode(const char *name, const unsigned char *in, size_t len,
                  enum bf_corpus_codec *codec, char **text, size_t *text_len, bf_diag_t *diag)
{
    *codec = sniff(in, len);
    *text = NULL;
    *text_len = 0;
    int rc = BF_OK;
    switch (*codec) {
    case BF_CORPUS_PLAIN:
        if (len > BF_MAX_CORPUS_BYTES)
            return bf_diag_set(diag, BF_E_TOOBIG, "corpus %s: %zu MiB, over %zu MiB; split it",
                               name, len >> 20, BF_MAX_CORPUS_BYTES >> 20);
        *text = bf_malloc(len + 1);
        memcpy(*text, in, len);
        *text_len = len;
        break;
    case BF_CORPUS_GZIP: rc = gunzip(name, in, len, text, text_len, diag); break;
    case BF_CORPUS_BZIP2: rc = bunzip(name, in, len, text, text_len, diag); break;
    case BF_CORPUS_ZSTD: rc = unzstd(name, in, len, text, text_len, diag); break;
    }
    if (rc == BF_OK && *text == NULL)
        *text = bf_calloc(1, 1);
    if (rc == BF_OK) {
        (*text)[*text_len] = '\0';
        if (memchr(*text, '\0', *text_len))
            rc = bf_diag_set(diag, BF_E_INVAL,
                             "corpus %s: holds NUL bytes (%s after "
                             "decompression); a corpus is text, one JSON document a line",
                             name, bf_corpus_codec_name(*codec));
    }
    if (rc != BF_OK) {
        free(*text);
        *text = NULL;
    }
    return rc;
}

int bf_corpus_open_parts(const char *const *names, const void *const *datas, const size_t *lens,
                         size_t n, enum bf_corpus_format format, bf_corpus_t **out, bf_diag_t *diag)
{
    *out = NULL;
    if (n == 0)
        return bf_diag_set(diag, BF_E_INVAL, "corpus: no file");
    bf_corpus_t *c = bf_calloc(1, sizeof *c);
    c->name = bf_strdup(names[0]);
    bf_buf_init(&c->meta, 0);
    c->nparts = n;
    c->part_name = bf_calloc(n, sizeof *c->part_name);
    c->part_line0 = bf_calloc(n, sizeof *c->part_line0);
    c->part_codec = bf_calloc(n, sizeof *c->part_codec);
    c->part_file_bytes = bf_calloc(n, sizeof *c->part_file_bytes);
    c->part_text_bytes = bf_calloc(n, sizeof *c->part_text_bytes);
    int rc = BF_OK;
    uint64_t lines = 0;
    for (size_t i = 0; i < n && rc == BF_OK; i++) {
        c->part_name[i] = bf_strdup(names[i]);
        c->part_line0[i] = (uint32_t)lines;
        enum bf_corpus_codec k;
        char *t = NULL;
        size_t tl = 0;
        rc = decode(names[i], datas[i], lens[i], &k, &t, &tl, diag);
        if (rc != BF_OK)
            break;
        if (i == 0)
            c->codec = k;
        c->part_codec[i] = k;
        c->part_file_bytes[i] = lens[i];
        c->part_text_bytes[i] = tl;
        int nl = tl > 0 && t[tl - 1] != '\n' && i + 1 < n; /* files join on a line break */
        if (c->text_len + tl + (size_t)nl > BF_MAX_CORPUS_BYTES) {
            free(t);
            rc = bf_diag_set(diag, BF_E_TOOBIG,
                             "corpus %s: over %zu MiB decompressed with the "
                             "files before it; split the corpus",
                             names[i], BF_MAX_CORPUS_BYTES >> 20);
            break;
        }
        if (n == 1) {
            c->text = t;
            c->text_len = tl;
        } else {
            c->text = bf_realloc(c->text, c->text_len + tl + 2);
            memcpy(c->text + c->text_len, t, tl);
            c->text_len += tl;
            if (nl)
                c->text[c->text_len++] = '\n';
            c->text[c->text_len] = '\0';
            free(t);
        }
        for (const char *p = c->text + c->text_len - tl - (size_t)nl;
             (p = memchr(p, '\n', (size_t)(c->text + c->text_len - p))) != NULL; p++)
            lines++;
        if (tl > 0 && c->text[c->text_len - 1] != '\n')
            lines++; /* the last file's unterminated last line */
        if (lines > UINT32_MAX) {
            rc = bf_diag_set(diag, BF_E_TOOBIG, "corpus %s: more than 2^32 lines", names[i]);
            break;
        }
    }
    if (rc == BF_OK && c->text == NULL)
        c->text = bf_calloc(1, 1);
    if (rc == BF_OK)
        rc = index_text(c, format, diag);
    if (rc != BF_OK) {
        bf_corpus_destroy(&c);
        return rc;
    }
    *out = c;
    return BF_OK;
}

int bf_corpus_open(const char *name, const void *data, size_t len, enum bf_corpus_format format,
                   bf_corpus_t **out, bf_diag_t *diag)
{
    return bf_corpus_open_parts(&name, &data, &len, 1, format, out, diag);
}

size_t bf_corpus_parts(const bf_corpus_t *c)
{
    return c->nparts;
}

int bf_corpus_part(const bf_corpus_t *c, size_t i, bf_corpus_part_t *out)
{
    memset(out, 0, sizeof *out);
    if (i >= c->nparts)
        return BF_E_RANGE;
    out->name = c->part_name[i];
    out->codec = c->part_codec[i];
    out->file_bytes = c->part_file_bytes[i];
    out->text_bytes = c->part_text_bytes[i];
    uint32_t from = c->part_line0[i], to = i + 1 < c->nparts ? c->part_line0[i + 1] : UINT32_MAX;
    for (size_t d = 0; d < c->ndocs; d++)
        out->docs += c->docs[d].line > from && c->docs[d].line <= to;
    return BF_OK;
}

size_t bf_corpus_doc_part(const bf_corpus_t *c, size_t i)
{
    uint32_t line = c->docs[i].line;
    size_t p = c->nparts ? c->nparts - 1 : 0;
    while (p > 0 && c->part_line0[p] >= line)
        p--;
    return p;
}

const char *bf_corpus_where(const bf_corpus_t *c, uint32_t line, uint32_t *line_in_file)
{
    size_t i = c->nparts ? c->nparts - 1 : 0;
    while (i > 0 && c->part_line0[i] >= line)
        i--;
    *line_in_file = line - (c->nparts ? c->part_line0[i] : 0);
    return c->nparts ? c->part_name[i] : c->name;
}

static int read_file(const char *path, char **out_buf, size_t *out_len, bf_diag_t *diag)
{
    *out_buf = NULL;
    *out_len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return bf_diag_set(diag, errno == ENOENT ? BF_E_NOTFOUND : BF_E_IO, "corpus '%s': %s", path,
                           strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = BF_OK;
    for (;;) {
        if (cap - len < CHUNK) {
            if (len > BF_MAX_CORPUS_BYTES) {
                rc = bf_diag_set(diag, BF_E_TOOBIG, "corpus '%s': larger than %zu MiB; split it",
                                 path, BF_MAX_CORPUS_BYTES >> 20);
                break;
            }
            cap = cap ? cap * 2 : 4 * CHUNK;
            buf = bf_realloc(buf, cap);
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0) {
            if (ferror(f))
                rc = bf_diag_set(diag, BF_E_IO, "corpus '%s': read failed: %s", path,
                                 strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc != BF_OK) {
        free(buf);
        return rc;
    }
    *out_buf = buf;
    *out_len = len;
    return BF_OK;
}

int bf_corpus_open_files(const char *const *paths, size_t n, enum bf_corpus_format format,
                         bf_corpus_t **out, bf_diag_t *diag)
{
    *out = NULL;
    char **bufs = bf_calloc(n + 1, sizeof *bufs);
    size_t *lens = bf_calloc(n + 1, sizeof *lens);
    int rc = BF_OK;
    for (size_t i = 0; i < n && rc == BF_OK; i++)
        rc = read_file(paths[i], &bufs[i], &lens[i], diag);
    if (rc == BF_OK)
        rc = bf_corpus_open_parts(paths, (const void *const *)bufs, lens, n, format, out, diag);
    for (size_t i = 0; i < n; i++)
        free(bufs[i]);
    free(bufs);
    free(lens);
    return rc;
}

int bf_corpus_open_file(const char *path, enum bf_corpus_format format, bf_corpus_t **out,
                        bf_diag_t *diag)
{
    return bf_corpus_open_files(&path, 1, format, out, diag);
}

void bf_corpus_destroy(bf_corpus_t **c_p)
{
    if (c_p == NULL || *c_p == NULL)
        return;
    bf_corpus_t *c = *c_p;
    for (size_t i = 0; i < c->nparts; i++)
        free(c->part_name[i]);
    free(c->part_name);
    free(c->part_line0);
    free(c->part_codec);
    free(c->part_file_bytes);
    free(c->part_text_bytes);
    free(c->name);
    free(c->text);
    free(c->il_head);
    free(c->docs);
    bf_buf_cleanup(&c->meta);
    free(c);
    *c_p = NULL;
}

size_t bf_corpus_docs(const bf_corpus_t *c)
{
    return c->ndocs;
}
const bf_corpus_doc_t *bf_corpus_doc(const bf_corpus_t *c, size_t i)
{
    return &c->docs[i];
}
const bf_corpus_doc_t *bf_corpus_doc_array(const bf_corpus_t *c)
{
    return c->docs;
}
int bf_corpus_lines_end_nl(const bf_corpus_t *c)
{
    return c->no_nl == 0;
}
const char *bf_corpus_text(const bf_corpus_t *c)
{
    return c->text;
}
const char *bf_corpus_meta(const bf_corpus_t *c)
{
    return c->meta.data ? c->meta.data : "";
}
const char *bf_corpus_name(const bf_corpus_t *c)
{
    return c->name;
}
enum bf_corpus_codec bf_corpus_codec(const bf_corpus_t *c)
{
    return c->codec;
}
size_t bf_corpus_text_bytes(const bf_corpus_t *c)
{
    return c->text_len;
}
int bf_corpus_has_ids(const bf_corpus_t *c)
{
    return c->has_ids;
}
size_t bf_corpus_bad_count(const bf_corpus_t *c)
{
    return c->nbad;
}
uint32_t bf_corpus_bad_line(const bf_corpus_t *c, size_t i)
{
    return c->bad_line[i];
}
const char *bf_corpus_bad_why(const bf_corpus_t *c, size_t i)
{
    return c->bad_why[i];
}

size_t bf_corpus_memory_bytes(const bf_corpus_t *c)
{
    return c->text_len + 1 + c->cap_docs * sizeof *c->docs + c->meta.cap + c->ndocs;
}

size_t bf_corpus_interleave_bytes(const bf_corpus_t *c, size_t from, size_t to, size_t head_len)
{
    uint64_t n = 0;
    if (from == 0 && to == c->ndocs) {
        n = c->src_bytes + c->meta_bytes + (uint64_t)c->ndocs * (head_len + 4);
    } else {
        for (size_t i = from; i < to && i < c->ndocs; i++)
            n += (uint64_t)c->docs[i].src_len + c->docs[i].id_len + c->docs[i].routing_len +
                 head_len + 4;
    }
    return (size_t)n + 1;
}

int bf_corpus_interleave(bf_corpus_t *c, size_t from, size_t to, const char *head, size_t head_len)
{
    if (from > to || from < c->live_from || to > c->live_to)
        return BF_E_INVAL;
    if (c->interleaved && c->live_from == from && c->live_to == to && c->il_head_len == head_len &&
        memcmp(c->il_head, head, head_len) == 0)
        return BF_OK; /* already so (standalone: the next cell of the same index) */
    size_t len = bf_corpus_interleave_bytes(c, from, to, head_len) - 1;
    char *text = bf_malloc(len + 1), *p = text;
    const char *meta = bf_corpus_meta(c);
    for (size_t i = from; i < to; i++) {
        bf_corpus_doc_t *d = &c->docs[i];
        memcpy(p, head, head_len);
        p += head_len;
        memcpy(p, meta + d->meta_off, (size_t)d->id_len + d->routing_len);
        p += d->id_len + d->routing_len;
        memcpy(p, "}}\n", 3);
        p += 3;
        memcpy(p, c->text + d->src_off, d->src_len);
        d->src_off = (uint64_t)(p - text);
        p += d->src_len;
        *p++ = '\n';
    }
    *p = '\0';
    /* documents outside [from, to) are no longer in the text: empty, at its end */
    for (size_t i = c->live_from; i < c->live_to; i++)
        if (i < from || i >= to) {
            c->docs[i].src_off = (uint64_t)len;
            c->docs[i].src_len = 0;
        }
    free(c->text);
    c->text = text;
    c->text_len = len;
    c->no_nl = 0;
    free(c->il_head);
    c->il_head = bf_malloc(head_len + 1);
    memcpy(c->il_head, head, head_len);
    c->il_head[head_len] = '\0';
    c->il_head_len = head_len;
    c->live_from = from;
    c->live_to = to;
    c->interleaved = 1;
    return BF_OK;
}

int bf_corpus_interleaved(const bf_corpus_t *c)
{
    return c->interleaved;
}

void bf_corpus_bulk_range(const bf_corpus_t *c, size_t a, size_t b, size_t *off, size_t *len)
{
    const bf_corpus_doc_t *da = &c->docs[a], *db = &c->docs[b - 1];
    size_t start = (size_t)da->src_off - c->il_head_len - da->id_len - da->routing_len - 3;
    *off = start;
    *len = (size_t)db->src_off + db->src_len + 1 - start;
}

size_t bf_corpus_mean_doc_bytes(const bf_corpus_t *c)
{
    return c->ndocs ? (size_t)(c->src_bytes / c->ndocs) + 1 : 0;
}

void bf_corpus_slice(const bf_corpus_t *c, uint32_t stream, uint32_t streams, size_t *from,
                     size_t *to)
{
    if (streams == 0)
        streams = 1;
    unsigned __int128 n = c->ndocs;
    *from = (size_t)(n * stream / streams);
    *to = (size_t)(n * (stream + 1u) / streams);
}

size_t bf_corpus_check(const bf_corpus_t *c, size_t from, size_t to, size_t step,
                       bf_corpus_bad_fn badfn, void *ctx, uint8_t *keep)
{
    size_t nbad = 0;
    if (step == 0)
        step = 1;
    if (keep)
        memset(keep, 1, to > from ? to - from : 0);
    for (size_t i = from; i < to; i += step) {
        const bf_corpus_doc_t *d = &c->docs[i];
        json_error_t je;
        json_t *j = json_loadb(c->text + d->src_off, d->src_len, JSON_REJECT_DUPLICATES, &je);
        int parsed = j != NULL, object = json_is_object(j);
        json_decref(j);
        if (object)
            continue;
        nbad++;
        if (keep)
            keep[i - from] = 0;
        if (badfn)
            badfn(ctx, i, d->line, parsed ? "not a JSON object" : je.text);
    }
    return nbad;
}
