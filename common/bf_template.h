/* bf_template.h — document templates, variable generators and bulk body rendering.
 *
 * A scenario's `document` (action, id, routing, pipeline, source with $[[name]] placeholders)
 * is compiled once into a bf_tmpl_t (immutable, shared by all worker threads). Each worker
 * thread owns a bf_gen_t with its own RNG and sequence state, so rendering takes no lock.
 * Variable types follow INFINI loadgen (reference/loadgen-compat.md §1.4); values from
 * dictionaries are JSON-escaped once at load, so every rendered source line is valid JSON.
 */
#ifndef BF_TEMPLATE_H
#define BF_TEMPLATE_H

#include "bf_buf.h"
#include "bf_error.h"
#include "bf_scenario.h"

#include <stdint.h>

typedef struct bf_tmpl bf_tmpl_t;
typedef struct bf_gen bf_gen_t;

/* Where one generator stands in the fleet, so ids and sequences are disjoint and seeds differ.
 * The coordinator numbers every worker thread of every agent: streams [stream_base,
 * stream_base + threads) belong to one agent; stream_count is the fleet's total. */
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
void bf_gen_destroy(bf_gen_t **g_p);

/* bf_tmpl_render_bulk — append `ndocs` documents of cell `cell` to `out` as bulk NDJSON
 * (action-and-metadata line + source line per document, each ending in '\n'). Documents are
 * spread round-robin over the cell's indices. Returns 0, or BF_E_TOOBIG when out's cap is hit
 * (out is then left with a partial body the caller discards). */
int bf_tmpl_render_bulk(const bf_tmpl_t *t, bf_gen_t *g, const bf_cell_t *cell, uint32_t ndocs,
                        bf_buf_t *out);

/* bf_tmpl_estimate_doc_bytes — mean bytes of one rendered document (both lines), from
 * rendering a few samples with a throw-away generator. For plan and body-size checks. */
size_t bf_tmpl_estimate_doc_bytes(const bf_tmpl_t *t, const bf_cell_t *cell);

#endif
