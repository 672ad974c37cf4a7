/* SPDX-License-Identifier: MIT */
/* bf_body.h — where a bulk request's body comes from: one source per connection, of a kind
 * chosen once per worker thread, that builds a body, hands its wire bytes to a reader in
 * pieces, rewinds and says its length.
 *
 * The kinds (bf_body_kind_for picks one from the cell; a worker never switches):
 *   rendered  template or corpus documents rendered (copied) into a buffer, a slice of
 *             documents at a time with a turn of the other transfers in between;
 *   gathered  corpus documents kept as pieces of the corpus's text, not copied (a corpus
 *             interleaved for the cell: one range of it, two at a wrap);
 *   streamed  template documents rendered straight into the reader's buffer as it asks for
 *             them (no copy of the body at all; its length is known once the last document is
 *             rendered, so it goes with chunked transfer encoding);
 *   routed    a sub-bulk of a routed split (bf_reshuffle): the bulk is rendered into the
 *             thread's scratch buffer, and each part is handed to a connection's body.
 * gzip wraps a kind (rendered, gathered, routed): the body is built by the kind, then
 * compressed in one call (libdeflate, one gzip member, RFC 1952), and the reader gets the
 * compressed bytes. Streamed bodies are never compressed.
 * A variant needing the length before the first byte (Content-Length where chunked transfer is
 * refused, or a signature over the payload) is a new kind beside these: its ops fill `total`.
 *
 * The documents are bulk NDJSON as bf_template renders them (bf_template.h): for the same
 * generator state every kind yields the same bytes (tests/unit/test_body.c checks it).
 * Ownership: a bf_body_t is an embedded struct (bf_body_init / bf_body_cleanup); the env is the
 * worker thread's, borrowed. Not thread-safe: one worker thread owns its bodies and env.
 */
#ifndef BF_BODY_H
#define BF_BODY_H

#include "bf_buf.h"
#include "bf_scenario.h"
#include "bf_template.h"

#include <stddef.h>
#include <stdint.h>

struct libdeflate_compressor;

enum bf_body_kind { BF_BODY_RENDERED = 0, BF_BODY_GATHERED, BF_BODY_STREAMED, BF_BODY_ROUTED };

/* bf_body_read's answer when the body cannot be produced (bf_body_t.err says why). */
#define BF_BODY_ABORT ((size_t)-1)

/* What the bodies of one worker thread share. Filled by the worker; every pointer borrowed. */
typedef struct bf_body_env {
    const bf_cell_t *cell;
    const bf_tmpl_t *tmpl;
    bf_gen_t *gen;              /* the thread's document sequence */
    const bf_corpus_t *corpus;  /* document.corpus, or NULL: the template's documents */
    bf_corpus_cursor_t *cursor; /* the thread's place in its corpus slice */
    int contig; /* gathered: the corpus is interleaved for the cell, a body is one range of it
                   (bf_tmpl_take_corpus) */
    int shared_render;   /* rendered + gzip, no retries: the NDJSON goes to `scratch`, a body
                            keeps only its compressed form */
    uint32_t slice_docs; /* documents built between two calls of `turn` */
    bf_buf_t *scratch;   /* the thread's render target (routed, shared_render) and retry
                            builder, capped at BF_MAX_BODY_BYTES */
    struct libdeflate_compressor *gzc; /* gzip: the thread's compressor, else NULL */
    /* lets the other transfers move on while a body is built; returns the µs it took (not
     * the builder's time). NULL: none. */
    uint64_t (*turn)(void *ctx);
    void *turn_ctx;
    int corpus_end; /* set by a build that found the corpus slice read `passes` times */
} bf_body_env_t;

typedef struct bf_body bf_body_t;

/* One kind's functions. build: the next body of up to `batch` documents (*ndocs: how many it
 * took, fewer at the corpus's end); read: up to cap wire bytes into buf (0 at the end,
 * BF_BODY_ABORT on failure); rewind: back to the first byte; total: wire bytes, 0 while unknown
 * (streamed: until its last document is rendered). */
typedef struct bf_body_ops {
    const char *name;
    int (*build)(bf_body_t *b, uint32_t batch, uint32_t *ndocs);
    size_t (*read)(bf_body_t *b, char *buf, size_t cap);
    void (*rewind)(bf_body_t *b);
    size_t (*total)(const bf_body_t *b);
} bf_body_ops_t;

struct bf_body {
    enum bf_body_kind kind;
    const bf_body_ops_t *ops;   /* what the reader calls: the kind's, or gzip's around it */
    const bf_body_ops_t *inner; /* the kind's own (== ops without gzip) */
    bf_body_env_t *env;
    bf_buf_t plain;          /* the NDJSON (rendered without shared_render, routed, a retry) */
    int in_scratch;          /* the NDJSON of the last build is env->scratch, not plain */
    bf_gather_t gat;         /* gathered: the body as pieces of the corpus */
    int gathered;            /* the NDJSON is gat (a retry makes it plain) */
    bf_gather_pos_t gat_pos; /* the reader's position in gat */
    bf_buf_t gz;             /* gzip: the compressed body */
    int gz_valid;            /* gz is the gzip of the NDJSON as it is now */
    size_t off;              /* the reader's position in plain or gz */
    bf_tmpl_stream_t stream; /* streamed */
    uint64_t frame_bytes;    /* streamed: chunked framing the transfer adds around the bytes
                                read (hex size + CRLF + CRLF a chunk, "0\r\n\r\n" at the end) */
    int eof_framed;          /* streamed: the last chunk's framing is counted */
    uint64_t read_us;        /* streamed: when the last read started (bf_clock_mono_us) */
    size_t payload_len;      /* uncompressed bytes of the body */
    uint64_t render_us;      /* wall µs building (rendering) this body, since the owner cleared
                                it; a streamed body adds each read's */
    uint64_t compress_us;    /* wall µs compressing it */
    uint64_t io_us;          /* of the build's time, µs spent in env->turn */
    int err;                 /* the failed read's code (BF_E_RANGE, BF_E_TOOBIG) */
};

/* bf_body_kind_for — the kind a worker's bodies are: routed when `routed`; else rendered when
 * `one_buffer` (the body must be one buffer in memory before it is sent: a signature covers
 * it); else gathered for a corpus sent uncompressed or interleaved for the cell (`contiguous`),
 * streamed for template documents sent uncompressed without retries when `stream_room`
 * (bf_tmpl_stream_room, bytes; 0 = no streaming) is > 0 and a batch of documents that size fits
 * BF_MAX_BODY_BYTES, else rendered. Pure. */
enum bf_body_kind bf_body_kind_for(int routed, int one_buffer, int has_corpus, int contiguous,
                                   int gzip, uint32_t retry_max, size_t stream_room,
                                   uint32_t batch_size);
/* bf_body_kind_name — "rendered", "gathered", "streamed", "routed". Static string. */
const char *bf_body_kind_name(enum bf_body_kind kind);

/* bf_body_init — an empty body of `kind` (gzip: compressed on the wire; ignored for streamed)
 * drawing on env (borrowed, outlives the body). Cleanup with bf_body_cleanup. */
void bf_body_init(bf_body_t *b, enum bf_body_kind kind, int gzip, bf_body_env_t *env);
void bf_body_cleanup(bf_body_t *b);
/* bf_body_set_kind — the next builds are of `kind` (gzip as for bf_body_init): a worker whose
 * server refused chunked bodies (HTTP 411) goes on with rendered ones. The body built last is
 * read as it was until the next build. */
void bf_body_set_kind(bf_body_t *b, enum bf_body_kind kind, int gzip);

/* bf_body_build — the next body of up to `batch` documents from env's generator or corpus
 * (routed: into env->scratch, for bf_reshuffle_split and bf_body_take_part). *ndocs gets the
 * documents taken: fewer than batch (0 included) when the corpus slice ended, and then
 * env->corpus_end is 1; on an error, the documents the body was to have. Sets payload_len,
 * render_us, compress_us and io_us (replacing them). Returns 0; BF_E_RANGE (a sequence variable
 * with wrap: false has no values left); BF_E_TOOBIG (the body would exceed BF_MAX_BODY_BYTES, or a
 * document could not be rendered); BF_E_IO (gzip failed). */
int bf_body_build(bf_body_t *b, uint32_t batch, uint32_t *ndocs);

/* bf_body_take_part — routed: the body becomes `part` (swapped, no copy: part gets the body's
 * old buffer, emptied), compressed when gzip (not timed: the caller times the whole split).
 * 0 or BF_E_IO (gzip failed). */
int bf_body_take_part(bf_body_t *b, bf_buf_t *part);

/* bf_body_start — the reader starts at the first byte (before a send). */
void bf_body_start(bf_body_t *b);
/* bf_body_read — up to cap (>= 1) wire bytes into buf; 0 at the end; BF_BODY_ABORT when a
 * streamed document cannot be rendered (b->err: BF_E_RANGE or BF_E_TOOBIG). */
size_t bf_body_read(bf_body_t *b, char *buf, size_t cap);
/* bf_body_rewind — back to the first byte; only meaningful before a byte was read. */
void bf_body_rewind(bf_body_t *b);
/* bf_body_wire_len — the wire bytes of the body (compressed with gzip); 0 while unknown (a
 * streamed body not rendered whole). */
size_t bf_body_wire_len(const bf_body_t *b);
/* bf_body_chunked — 1 when the length is not known before sending (streamed). */
int bf_body_chunked(const bf_body_t *b);
/* bf_body_whole — the wire bytes as one buffer in memory (the compressed body with gzip, else
 * the NDJSON), *len its bytes; NULL when the body is pieces of a corpus or streamed. Borrowed:
 * valid until the next build. */
const char *bf_body_whole(const bf_body_t *b, size_t *len);

/* bf_body_ready — the wire form matches the NDJSON: a retry's body is compressed again with
 * gzip, and compress_us is set to that time (left as it is when nothing was compressed).
 * 0 or BF_E_IO. */
int bf_body_ready(bf_body_t *b);

/* bf_body_keep_rejected — keeps the documents whose item_class[i] is BF_ITEM_REJECTED (of the
 * body's ndocs), for a retry: the body becomes plain NDJSON (a gathered one is flattened first),
 * two lines a document; gshard (may be NULL) is compacted alike. Returns the documents kept, 0
 * when none or the body cannot be flattened. Not for streamed bodies (they have no retries). */
uint32_t bf_body_keep_rejected(bf_body_t *b, const uint8_t *item_class, uint32_t ndocs,
                               uint32_t *gshard);

/* bf_body_stream_ended — streamed: 1 once the last document is rendered. */
int bf_body_stream_ended(const bf_body_t *b);
/* bf_body_spill — streamed: renders the documents not read yet into the body's own carry
 * buffer, so the generator is free for the next body (render_us added). 0, or as bf_body_read's
 * b->err. */
int bf_body_spill(bf_body_t *b);

#endif
