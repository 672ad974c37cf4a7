/* SPDX-License-Identifier: MIT */
/* bf_body.c — the body sources of bf_body.h: one table of functions a kind, gzip around them. */
#include "bf_body.h"

#include "bf_bulkresp.h"
#include "bf_clock.h"
#include "bf_error.h"

#include <libdeflate.h>
#include <string.h>

/* ---- building: slices of documents ---------------------------------------------------------- */

/* Where the NDJSON of a rendered or routed body is built. */
static bf_buf_t *render_target(bf_body_t *b)
{
    return b->in_scratch ? b->env->scratch : &b->plain;
}

/* Bytes of the NDJSON built so far. */
static size_t built_len(bf_body_t *b)
{
    return b->gathered ? b->gat.bytes : render_target(b)->len;
}

/* Up to n documents more (first: the body's first slice); *got gets how many (fewer only at
 * the corpus's end). */
static int produce(bf_body_t *b, uint32_t n, int first, uint32_t *got)
{
    bf_body_env_t *e = b->env;
    if (b->kind == BF_BODY_GATHERED) {
        if (e->contig)
            return bf_tmpl_take_corpus(e->corpus, e->cursor, n, &b->gat, got);
        return bf_tmpl_gather_corpus(e->tmpl, e->gen, e->cell, e->corpus, e->cursor, n, first,
                                     &b->gat, got);
    }
    if (e->corpus)
        return bf_tmpl_render_corpus(e->tmpl, e->gen, e->cell, e->corpus, e->cursor, n, first,
                                     render_target(b), got);
    /* a vector file read in passes: the end of this thread's rows is the end of its load, as
     * a corpus slice's */
    uint64_t left = bf_gen_docs_left(e->gen);
    if (left < n)
        n = (uint32_t)left;
    *got = n;
    if (n == 0)
        return BF_OK;
    return first ? bf_tmpl_render_bulk(e->tmpl, e->gen, e->cell, n, render_target(b))
                 : bf_tmpl_render_bulk_more(e->tmpl, e->gen, e->cell, n, render_target(b));
}

/* The build of rendered, gathered and routed bodies: slice_docs documents at a time (about
 * 128 KiB), with a turn of the other transfers in between; a contiguous corpus body is a few
 * ranges, taken at once. */
static int build_slices(bf_body_t *b, uint32_t batch, uint32_t *ndocs)
{
    bf_body_env_t *e = b->env;
    uint64_t t0 = bf_clock_mono_us();
    b->io_us = 0;
    b->gz_valid = 0;
    b->gathered = b->kind == BF_BODY_GATHERED;
    b->in_scratch = b->kind == BF_BODY_ROUTED || (b->kind == BF_BODY_RENDERED && e->shared_render);
    if (b->gathered)
        bf_gather_reset(&b->gat);
    else
        bf_buf_reset(render_target(b));
    uint32_t done = 0;
    size_t payload = 0;
    *ndocs = 0;
    while (done < batch) {
        int contig = b->gathered && e->contig;
        uint32_t n = contig || batch - done < e->slice_docs ? batch - done : e->slice_docs;
        size_t from = built_len(b);
        uint32_t got = 0;
        int rc = produce(b, n, done == 0, &got);
        if (rc == BF_OK && got < n) { /* the end of this thread's corpus slice */
            e->corpus_end = 1;
            batch = done + got;
            n = got;
        }
        *ndocs = batch; /* on an error: the documents the body was to have */
        if (rc == BF_E_RANGE || rc == BF_E_PARSE) /* a vector file's row unreadable: PARSE */
            return rc;
        size_t now = built_len(b);
        if (rc != BF_OK || payload + (now - from) > BF_MAX_BODY_BYTES)
            return BF_E_TOOBIG;
        done += n;
        payload += now - from;
        if (done < batch && e->turn)
            b->io_us += e->turn(e->turn_ctx);
    }
    *ndocs = done;
    b->payload_len = payload;
    b->render_us = bf_clock_mono_us() - t0 - b->io_us;
    b->compress_us = 0;
    return BF_OK;
}

/* ---- reading -------------------------------------------------------------------------------- */

static size_t read_from(bf_body_t *b, const bf_buf_t *src, char *buf, size_t cap)
{
    size_t left = src->len - b->off;
    size_t k = cap < left ? cap : left;
    memcpy(buf, src->data + b->off, k);
    b->off += k;
    return k;
}

static size_t read_plain(bf_body_t *b, char *buf, size_t cap)
{
    return read_from(b, &b->plain, buf, cap);
}

static void rewind_plain(bf_body_t *b)
{
    b->off = 0;
    b->gat_pos = (bf_gather_pos_t){0, 0};
}

static size_t total_plain(const bf_body_t *b)
{
    return b->plain.len;
}

/* ---- rendered and routed -------------------------------------------------------------------- */

static const bf_body_ops_t rendered_ops = {"rendered", build_slices, read_plain, rewind_plain,
                                           total_plain};
static const bf_body_ops_t routed_ops = {"routed", build_slices, read_plain, rewind_plain,
                                         total_plain};

/* ---- gathered ------------------------------------------------------------------------------- */

/* A retry's body is plain NDJSON (bf_body_keep_rejected), the first attempt's the pieces. */
static size_t read_gathered(bf_body_t *b, char *buf, size_t cap)
{
    if (!b->gathered)
        return read_plain(b, buf, cap);
    return bf_gather_read(&b->gat, &b->gat_pos, buf, cap);
}

static size_t total_gathered(const bf_body_t *b)
{
    return b->gathered ? b->gat.bytes : b->plain.len;
}

static const bf_body_ops_t gathered_ops = {"gathered", build_slices, read_gathered, rewind_plain,
                                           total_gathered};

/* ---- streamed ------------------------------------------------------------------------------- */

static int build_streamed(bf_body_t *b, uint32_t batch, uint32_t *ndocs)
{
    bf_body_env_t *e = b->env;
    bf_tmpl_stream_begin(&b->stream, e->tmpl, e->gen, e->cell, batch);
    *ndocs = batch;
    b->payload_len = 0; /* known once rendered */
    b->gz_valid = 0;
    b->render_us = b->compress_us = b->io_us = 0;
    return BF_OK;
}

/* The documents are rendered into the reader's buffer as it asks for them (one render call,
 * so one clock reading, per call). No copy of the body but a document that did not fit whole. */
static size_t read_streamed(bf_body_t *b, char *buf, size_t cap)
{
    uint64_t t0 = bf_clock_mono_us(); /* render stage: one reading per buffer, not per document */
    size_t got = 0;
    int rc = bf_tmpl_stream_read(&b->stream, buf, cap, &got);
    b->render_us += bf_clock_mono_us() - t0;
    if (rc != BF_OK) {
        b->err = rc;
        return BF_BODY_ABORT;
    }
    b->read_us = t0;
    size_t hex = 1;
    for (size_t k = got; k > 15; k >>= 4)
        hex++;
    if (got || !b->eof_framed)
        b->frame_bytes += got ? hex + 4 : 5;
    b->eof_framed |= got == 0;
    return got;
}

static void rewind_streamed(bf_body_t *b)
{
    (void)b; /* a rewind before the first byte: nothing was rendered into the reader */
}

static size_t total_streamed(const bf_body_t *b)
{
    return bf_tmpl_stream_total(&b->stream);
}

static const bf_body_ops_t streamed_ops = {"streamed", build_streamed, read_streamed,
                                           rewind_streamed, total_streamed};

/* ---- gzip around a kind --------------------------------------------------------------------- */

/* Compresses n bytes at p into out (replacing its contents) as one gzip member (RFC 1952) with
 * libdeflate's whole-buffer compressor: about twice zlib's speed at level 1 and a slightly
 * better ratio on bulk NDJSON (bench/gzip-cost.sh). A body is compressed in one call once it is
 * complete. Returns 0, BF_E_TOOBIG (over out's cap) or BF_E_IO. */
static int gzip_whole(struct libdeflate_compressor *gzc, bf_buf_t *out, const char *p, size_t n)
{
    bf_buf_reset(out);
    size_t bound = libdeflate_gzip_compress_bound(gzc, n);
    if (bf_buf_reserve(out, bound) != BF_OK)
        return BF_E_TOOBIG;
    size_t z = libdeflate_gzip_compress(gzc, p, n, out->data, out->cap - 1);
    if (z == 0)
        return BF_E_IO;
    out->len = z;
    return BF_OK;
}

/* The inner kind builds the NDJSON, then it is compressed in one call; a routed bulk is
 * compressed part by part (bf_body_take_part). A gathered body of one range is read by
 * libdeflate from the corpus itself; one of several ranges (the slice wrapped, or a refused
 * document) is copied into the scratch buffer first. */
static int build_gzip(bf_body_t *b, uint32_t batch, uint32_t *ndocs)
{
    uint64_t t0 = bf_clock_mono_us();
    int rc = b->inner->build(b, batch, ndocs);
    if (rc != BF_OK || *ndocs == 0 || b->kind == BF_BODY_ROUTED)
        return rc;
    const char *src = render_target(b)->data;
    size_t len = render_target(b)->len;
    if (b->gathered && b->gat.n == 1) {
        src = b->gat.v[0].base + b->gat.v[0].off;
        len = b->gat.v[0].len;
    } else if (b->gathered) {
        if (bf_gather_flatten(&b->gat, b->env->scratch) != BF_OK)
            return BF_E_TOOBIG;
        src = b->env->scratch->data;
        len = b->env->scratch->len;
    }
    uint64_t t_z = bf_clock_mono_us(); /* render ends, compress begins */
    if (gzip_whole(b->env->gzc, &b->gz, src, len) != BF_OK)
        return BF_E_IO;
    b->gz_valid = 1;
    uint64_t t_e = bf_clock_mono_us();
    b->render_us = t_z - t0 - b->io_us;
    b->compress_us = t_e - t_z;
    return BF_OK;
}

static size_t read_gzip(bf_body_t *b, char *buf, size_t cap)
{
    return read_from(b, &b->gz, buf, cap);
}

static size_t total_gzip(const bf_body_t *b)
{
    return b->gz.len;
}

static const bf_body_ops_t gzip_ops = {"gzip", build_gzip, read_gzip, rewind_plain, total_gzip};

/* ---- the kinds ------------------------------------------------------------------------------ */

enum bf_body_kind bf_body_kind_for(int routed, int one_buffer, int has_corpus, int contiguous,
                                   int gzip, uint32_t retry_max, size_t stream_room,
                                   uint32_t batch_size)
{
    if (routed)
        return BF_BODY_ROUTED;
    if (one_buffer)
        return BF_BODY_RENDERED;
    if (has_corpus)
        return !gzip || contiguous ? BF_BODY_GATHERED : BF_BODY_RENDERED;
    /* streamed: the worst case of every document must fit the body's cap */
    if (!gzip && retry_max == 0 && stream_room > 0 && batch_size > 0 &&
        stream_room <= BF_MAX_BODY_BYTES / batch_size)
        return BF_BODY_STREAMED;
    return BF_BODY_RENDERED;
}

static const bf_body_ops_t *ops_of(enum bf_body_kind kind)
{
    switch (kind) {
    case BF_BODY_RENDERED: return &rendered_ops;
    case BF_BODY_GATHERED: return &gathered_ops;
    case BF_BODY_STREAMED: return &streamed_ops;
    case BF_BODY_ROUTED: return &routed_ops;
    }
    return &rendered_ops;
}

const char *bf_body_kind_name(enum bf_body_kind kind)
{
    return ops_of(kind)->name;
}

void bf_body_init(bf_body_t *b, enum bf_body_kind kind, int gzip, bf_body_env_t *env)
{
    memset(b, 0, sizeof *b);
    bf_body_set_kind(b, kind, gzip);
    b->env = env;
    bf_buf_init(&b->plain, BF_MAX_BODY_BYTES);
    bf_gather_init(&b->gat, BF_MAX_BODY_BYTES);
    bf_buf_init(&b->gz, BF_MAX_BODY_BYTES + 65536);
    bf_tmpl_stream_init(&b->stream);
}

void bf_body_set_kind(bf_body_t *b, enum bf_body_kind kind, int gzip)
{
    b->kind = kind;
    b->inner = ops_of(kind);
    b->ops = gzip && kind != BF_BODY_STREAMED ? &gzip_ops : b->inner;
}

void bf_body_cleanup(bf_body_t *b)
{
    bf_buf_cleanup(&b->plain);
    bf_gather_cleanup(&b->gat);
    bf_buf_cleanup(&b->gz);
    bf_tmpl_stream_cleanup(&b->stream);
}

/* ---- what the worker calls ------------------------------------------------------------------ */

int bf_body_build(bf_body_t *b, uint32_t batch, uint32_t *ndocs)
{
    return b->ops->build(b, batch, ndocs);
}

int bf_body_take_part(bf_body_t *b, bf_buf_t *part)
{
    bf_buf_t tmp = b->plain; /* the part's buffer becomes the body, no copy */
    b->plain = *part;
    *part = tmp;
    bf_buf_reset(part);
    b->in_scratch = 0;
    b->gathered = 0;
    b->payload_len = b->plain.len;
    b->gz_valid = 0;
    if (b->ops != &gzip_ops)
        return BF_OK;
    if (gzip_whole(b->env->gzc, &b->gz, b->plain.data, b->plain.len) != BF_OK)
        return BF_E_IO;
    b->gz_valid = 1; /* timed by the caller, for the whole split */
    return BF_OK;
}

void bf_body_start(bf_body_t *b)
{
    b->off = 0;
    b->gat_pos = (bf_gather_pos_t){0, 0};
    b->frame_bytes = 0;
    b->eof_framed = 0;
}

size_t bf_body_read(bf_body_t *b, char *buf, size_t cap)
{
    return b->ops->read(b, buf, cap);
}

void bf_body_rewind(bf_body_t *b)
{
    b->ops->rewind(b);
}

size_t bf_body_wire_len(const bf_body_t *b)
{
    return b->ops->total(b);
}

int bf_body_chunked(const bf_body_t *b)
{
    return b->kind == BF_BODY_STREAMED;
}

const char *bf_body_whole(const bf_body_t *b, size_t *len)
{
    const bf_buf_t *src = b->ops == &gzip_ops ? &b->gz : &b->plain;
    if (b->kind == BF_BODY_STREAMED || (b->ops != &gzip_ops && (b->gathered || b->in_scratch)))
        return NULL;
    *len = src->len;
    return src->data;
}

int bf_body_ready(bf_body_t *b)
{
    if (b->ops != &gzip_ops || b->gz_valid)
        return BF_OK;
    uint64_t t0 = bf_clock_mono_us();
    if (gzip_whole(b->env->gzc, &b->gz, b->plain.data, b->plain.len) != BF_OK)
        return BF_E_IO;
    b->gz_valid = 1;
    b->compress_us = bf_clock_mono_us() - t0;
    return BF_OK;
}

uint32_t bf_body_keep_rejected(bf_body_t *b, const uint8_t *item_class, uint32_t ndocs,
                               uint32_t *gshard)
{
    if (b->gathered) { /* the retry is built from one buffer: rare, so the copy is fine */
        if (bf_gather_flatten(&b->gat, &b->plain) != BF_OK)
            return 0;
        b->gathered = 0;
    }
    b->in_scratch = 0;
    bf_buf_t *out = b->env->scratch;
    bf_buf_reset(out);
    const char *p = b->plain.data, *end = b->plain.data + b->plain.len;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < ndocs && p < end; i++) {
        const char *l1 = memchr(p, '\n', (size_t)(end - p));
        if (l1 == NULL)
            break;
        const char *l2 = memchr(l1 + 1, '\n', (size_t)(end - l1 - 1));
        if (l2 == NULL)
            break;
        if (item_class[i] == BF_ITEM_REJECTED) {
            bf_buf_append(out, p, (size_t)(l2 + 1 - p));
            if (gshard)
                gshard[kept] = gshard[i]; /* kept <= i: in place */
            kept++;
        }
        p = l2 + 1;
    }
    bf_buf_t tmp = b->plain;
    b->plain = *out;
    *out = tmp;
    b->payload_len = b->plain.len;
    b->gz_valid = 0;
    return kept;
}

int bf_body_stream_ended(const bf_body_t *b)
{
    return b->kind == BF_BODY_STREAMED && b->stream.done == b->stream.ndocs;
}

int bf_body_spill(bf_body_t *b)
{
    uint64_t t0 = bf_clock_mono_us();
    int rc = bf_tmpl_stream_spill(&b->stream);
    b->render_us += bf_clock_mono_us() - t0;
    b->err = rc;
    return rc;
}
