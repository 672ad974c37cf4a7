/* SPDX-License-Identifier: MIT */
/* bf_template.h — document templates, variable generators and bulk body rendering.
 *
 * A scenario's `document` (action, id, routing, pipeline, source with $[[name]] placeholders)
 * is compiled once into a bf_tmpl_t (immutable, shared by all worker threads). Each worker
 * thread owns a bf_gen_t with its own RNG and sequence state, so rendering takes no lock.
 * Variable types follow INFINI loadgen (docs/internals/loadgen-compat.md §1.4); values from
 * dictionaries are JSON-escaped once at load, so every rendered source line is valid JSON.
 *
 * Rendering rules (also in bf_template.c):
 *   - a document-scope variable is drawn once per document and shared by every placeholder of
 *     that document, action line included (loadgen's runtime_body_line_variables); a
 *     request-scope one once per bf_tmpl_render_bulk call (loadgen's runtime_variables);
 *   - inside a JSON string a placeholder renders the value's escaped text; outside strings
 *     numbers render bare, list/file values bare when all of them are JSON literals, other
 *     strings quoted; random_array renders its own brackets and quotes (escaped once more
 *     inside a string);
 *   - line breaks outside JSON strings (and the indentation after them) are removed, so each
 *     document is exactly two lines: {"index"|"create":{"_index":..,"_id":..,"routing":..,
 *     "pipeline":..}} (fields only when set) and the source.
 * The loader renders a few documents and parses them with jansson (duplicate keys rejected,
 * as OpenSearch does), so a template that loaded renders valid JSON for any seed.
 */
#ifndef BF_TEMPLATE_H
#define BF_TEMPLATE_H

#include "bf_buf.h"
#include "bf_corpus.h"
#include "bf_error.h"
#include "bf_scenario.h"

#include <stdint.h>

typedef struct bf_tmpl bf_tmpl_t;
typedef struct bf_gen bf_gen_t;

/* Where one generator stands in the fleet, so ids and sequences are disjoint and seeds differ.
 * The coordinator numbers every worker thread of every agent: streams [stream_base,
 * stream_base + threads) belong to one agent; stream_count is the fleet's total.
 * Sequences: stream s of S draws from + n*S + s for its n-th value (n = 0, 1, ...), so values
 * are unique across the fleet until `to`; then wrap: true restarts at `from` (values repeat)
 * and wrap: false makes rendering fail with BF_E_RANGE. uuid and random values come from a
 * xoshiro256** generator seeded from (seed, stream_index); sortable_id embeds stream_index,
 * so it is unique across the fleet by construction. */
typedef struct bf_partition {
    uint32_t stream_index; /* this thread's global stream number, < stream_count */
    uint32_t stream_count; /* total worker threads across all agents of the cell */
    uint64_t seed;         /* the run seed; the generator mixes in stream_index */
} bf_partition_t;

/* bf_tmpl_compile — compile the scenario's document template and variables.
 * Returns 0 and *out (caller owns, bf_tmpl_destroy), or BF_E_INVAL with diag ("unknown
 * variable $[[x]] in document.source", ...). The scenario must outlive the template. */
int bf_tmpl_compile(const bf_scenario_t *sc, bf_tmpl_t **out, bf_diag_t *diag);
void bf_tmpl_destroy(bf_tmpl_t **t_p);

/* bf_gen_new — per-thread generator state; caller owns (bf_gen_destroy). Not thread-safe:
 * one thread at a time. */
bf_gen_t *bf_gen_new(const bf_tmpl_t *t, const bf_partition_t *part);
/* bf_gen_skip_sequences — the load's generators leave the first n values of every sequence
 * variable to search.prefill (whose one stream draws them: see bf_vars_skip_sequences), so a
 * `sequence` _id of the load never repeats a prefilled document's. Call before the first
 * render. */
void bf_gen_skip_sequences(bf_gen_t *g, uint64_t n);
/* bf_gen_prefill_skip — the n for bf_gen_skip_sequences: search.prefill when the scenario has
 * a search section, else 0. */
uint64_t bf_gen_prefill_skip(const bf_scenario_t *sc);
void bf_gen_destroy(bf_gen_t **g_p);
/* bf_gen_docs_left — documents g may still render (UINT64_MAX: no end): a vector file with
 * passes: N ends a thread's documents after its share of N passes (bf_vars_docs_left). */
uint64_t bf_gen_docs_left(const bf_gen_t *g);

/* bf_tmpl_render_bulk — append `ndocs` documents of cell `cell` to `out` as bulk NDJSON
 * (action-and-metadata line + source line per document, each ending in '\n'). Documents are
 * spread round-robin over the cell's indices. Returns 0, or BF_E_TOOBIG when out's cap is hit
 * (out is then left with a partial body the caller discards), or BF_E_RANGE when a sequence
 * with wrap: false has no values left for this stream. No allocation once `out` and the
 * generator have grown to size (the first call for a new cell builds the _index prefixes). */
int bf_tmpl_render_bulk(const bf_tmpl_t *t, bf_gen_t *g, const bf_cell_t *cell, uint32_t ndocs,
                        bf_buf_t *out);

/* bf_tmpl_render_bulk_more — append `ndocs` more documents to the same bulk request as the
 * last bf_tmpl_render_bulk call (request-scope variables keep their values), so a caller can
 * build one body in pieces and do other work in between (the agent's I/O loop). Same return
 * codes. */
int bf_tmpl_render_bulk_more(const bf_tmpl_t *t, bf_gen_t *g, const bf_cell_t *cell, uint32_t ndocs,
                             bf_buf_t *out);

/* A bulk body rendered while it is sent: libcurl's read callback asks for up to
 * `cap` bytes at a time and the documents are rendered straight into its buffer, so the body
 * is never built whole and never copied into the upload buffer. The bytes are exactly those of
 * bf_tmpl_render_bulk (the first slice) and bf_tmpl_render_bulk_more (the others) over the same
 * documents: each call of bf_tmpl_stream_read is one render call (one clock hold), and a
 * document that does not fit whole is rendered into the stream's carry buffer and handed out
 * in pieces (test_render_golden drives reads of 1, 7, 4096, 65536 and 262144 bytes). Embedded
 * struct: bf_tmpl_stream_init / bf_tmpl_stream_cleanup; not thread-safe (one worker thread,
 * like its generator). */
typedef struct bf_tmpl_stream {
    const bf_tmpl_t *t; /* borrowed, as g and cell: valid until the body ends */
    bf_gen_t *g;
    const bf_cell_t *cell;
    uint32_t ndocs;   /* documents of the body */
    uint32_t done;    /* documents rendered so far */
    size_t room;      /* bytes a document surely fits in, renderer slack included */
    size_t bytes;     /* body bytes handed out so far */
    bf_buf_t carry;   /* a document rendered whole that did not fit the caller's buffer */
    size_t carry_off; /* its bytes handed out so far */
} bf_tmpl_stream_t;

/* bf_tmpl_stream_room — the most bytes one document of `cell` can take plus the renderer's
 * slack (LIT_PAD), i.e. the free space bf_tmpl_stream_read needs to render a document straight
 * into the caller's buffer; 0 when this template is not streamed: a document template with a
 * sequence of wrap: false or a vector file (its end or an unreadable row would stop a body
 * already on the wire; the agent builds such bodies whole) or a query body. g must come from
 * bf_gen_new(t, ...). */
size_t bf_tmpl_stream_room(const bf_tmpl_t *t, bf_gen_t *g, const bf_cell_t *cell);
void bf_tmpl_stream_init(bf_tmpl_stream_t *st);
void bf_tmpl_stream_cleanup(bf_tmpl_stream_t *st);
/* bf_tmpl_stream_begin — the next body: `ndocs` documents from generator g (a new bulk request
 * for request-scope variables). t, g and cell are borrowed until the body ends. */
void bf_tmpl_stream_begin(bf_tmpl_stream_t *st, const bf_tmpl_t *t, bf_gen_t *g,
                          const bf_cell_t *cell, uint32_t ndocs);
/* bf_tmpl_stream_read — the next up to `cap` bytes of the body into buf (cap >= 1). *got = 0
 * only at the end of the body. Returns 0, or BF_E_RANGE (a sequence ran out: not for a
 * template bf_tmpl_stream_room accepts) or BF_E_TOOBIG (one document over BF_MAX_BODY_BYTES). */
int bf_tmpl_stream_read(bf_tmpl_stream_t *st, char *buf, size_t cap, size_t *got);
/* bf_tmpl_stream_spill — renders the documents of the body not rendered yet into the carry
 * buffer, after what it still holds, in one render call: the rest of the body is then read
 * from there (the old build-then-copy way), and the generator is free for the next body, which
 * starts with the same document as if this one had been built whole. For a body that must
 * make way (the agent starts another one, or the transfer ended before reading it all). Same
 * return codes as bf_tmpl_stream_read. */
int bf_tmpl_stream_spill(bf_tmpl_stream_t *st);
/* bf_tmpl_stream_total — once every document is rendered (done == ndocs): the body's length in
 * bytes (handed out plus still in the carry buffer). */
size_t bf_tmpl_stream_total(const bf_tmpl_stream_t *st);

/* bf_tmpl_compile_body — compile a query body (search.queries[].body): JSON text with
 * $[[name]] placeholders over the scenario's variables, rendered by the same rules as
 * document.source (inside a string the value's escaped text, outside numbers bare and strings
 * quoted; line breaks outside strings dropped). `what` names it in messages
 * ("search.queries[0].body"). Returns 0 and *out (caller owns, bf_tmpl_destroy; the scenario
 * must outlive it) or BF_E_INVAL with diag (unknown variable, unclosed placeholder). */
int bf_tmpl_compile_body(const bf_scenario_t *sc, const char *text, const char *what,
                         bf_tmpl_t **out, bf_diag_t *diag);
/* bf_tmpl_compile_ndjson_body — as bf_tmpl_compile_body, for a body of JSON lines (an
 * _msearch query: header line, search body line, ...): a line break outside a JSON string ends
 * the line and is kept as one '\n', blank lines are dropped, and the last line ends with '\n'
 * too (the _msearch API needs the final newline). Format: OpenSearch / Elasticsearch multi
 * search API (NDJSON). Same returns and ownership. */
int bf_tmpl_compile_ndjson_body(const bf_scenario_t *sc, const char *text, const char *what,
                                bf_tmpl_t **out, bf_diag_t *diag);
/* bf_tmpl_render_body — append one rendered body to out; every variable is drawn anew (a body
 * is one document and one request for scopes). g must come from bf_gen_new(t, ...). Returns 0,
 * BF_E_TOOBIG (out's cap) or BF_E_RANGE (a sequence without wrap ran out). */
int bf_tmpl_render_body(const bf_tmpl_t *t, bf_gen_t *g, bf_buf_t *out);

/* Where one stream stands in its slice of a corpus (document.corpus). */
typedef struct bf_corpus_cursor {
    size_t from, to;      /* the slice: documents [from, to) of the corpus */
    size_t pos;           /* next document to send, from <= pos <= to */
    uint32_t passes;      /* times to read the slice; 0 = loop until the cell ends */
    uint32_t passes_done; /* complete reads of the slice so far */
    const uint8_t *keep;  /* keep[i - from] == 0: document i is not a JSON object, skipped;
                             NULL = send all. Borrowed. */
} bf_corpus_cursor_t;

/* bf_tmpl_render_corpus — append up to `ndocs` documents of the corpus to `out` as bulk
 * NDJSON, copying each source line as it is in the file (the corpus fast path: no rendering
 * but the action line). The action line is {"<action>":{"_index":"<index>"}} with the
 * template's id / routing / pipeline when the scenario sets them, else the file's _id and
 * routing (bulk format), else none. new_request = 1 starts a bulk request (request-scope
 * variables are drawn anew), 0 continues the last one (as bf_tmpl_render_bulk_more).
 * *rendered gets the documents appended: fewer than ndocs only when the cursor has read its
 * slice `passes` times (the end of this stream's corpus: 0 means nothing is left).
 * Returns 0, BF_E_TOOBIG (out's cap), or BF_E_RANGE (a sequence with wrap: false ran out).
 * The template must be compiled from a scenario with document.corpus. Not thread-safe per
 * generator and cursor; the corpus is shared read-only. */
int bf_tmpl_render_corpus(const bf_tmpl_t *t, bf_gen_t *g, const bf_cell_t *cell,
                          const bf_corpus_t *c, bf_corpus_cursor_t *cur, uint32_t ndocs,
                          int new_request, bf_buf_t *out, uint32_t *rendered);
/* bf_tmpl_gather_corpus — the same documents as bf_tmpl_render_corpus, appended to `out` as
 * pieces instead of copied: each source line (with the file's '\n') is a piece borrowed from
 * the corpus's text, each action line either the generator's constant one for its index
 * (borrowed from g: no overlay, no _id / routing in the file) or written into out->own.
 * The same bytes in the same order as bf_tmpl_render_corpus (test_corpus checks it); the
 * corpus and g must outlive out's use. Same *rendered and return codes (BF_E_TOOBIG: past
 * out's max_bytes). Not thread-safe per generator, cursor and gather. */
int bf_tmpl_gather_corpus(const bf_tmpl_t *t, bf_gen_t *g, const bf_cell_t *cell,
                          const bf_corpus_t *c, bf_corpus_cursor_t *cur, uint32_t ndocs,
                          int new_request, bf_gather_t *out, uint32_t *rendered);

/* bf_tmpl_corpus_bulk_head — contiguous corpus bodies: when every document of cell `cell`
 * gets an action line that depends on the document alone (a corpus template with nothing
 * overlaid: no _id, routing, pipeline or retry_on_conflict of its own; one index; action index
 * or create), writes into out (replacing its contents) the start of that line,
 * {"<action>":{"_index":"<name>" — the file's _id / routing pieces and "}}\n" follow it, as in
 * bf_tmpl_render_corpus — and returns 1; else 0 (out untouched). For bf_corpus_interleave. */
int bf_tmpl_corpus_bulk_head(const bf_tmpl_t *t, const bf_cell_t *cell, bf_buf_t *out);
/* bf_tmpl_take_corpus — the same documents as bf_tmpl_render_corpus, in the same order and
 * with the same *taken and end-of-corpus rule, from a corpus interleaved with the cell's head
 * (bf_corpus_interleave over a range holding the cursor's slice): each run of consecutive
 * documents — until the slice wraps, a document refused at load (cur->keep) or ndocs — is one
 * piece of out borrowed from the corpus's text, so a request is one piece (two at a wrap).
 * Returns 0 or BF_E_TOOBIG (past out's max_bytes). Not thread-safe per cursor and gather; the
 * corpus is shared read-only and must outlive out's use. */
int bf_tmpl_take_corpus(const bf_corpus_t *c, bf_corpus_cursor_t *cur, uint32_t ndocs,
                        bf_gather_t *out, uint32_t *taken);

/* bf_tmpl_estimate_doc_bytes — mean bytes of one rendered document (both lines), from
 * rendering a few samples with a throw-away generator. For plan and body-size checks. With a
 * corpus: the action line without its closing "}}\n" (add 3 and the corpus's mean line). */
size_t bf_tmpl_estimate_doc_bytes(const bf_tmpl_t *t, const bf_cell_t *cell);

#endif
