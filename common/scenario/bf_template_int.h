/* SPDX-License-Identifier: MIT */
/* bf_template_int.h — the template engine's private form, shared by its files: the compiled
 * operations, the template, the compiler's state, a worker's generator and the helpers that
 * render one document (bf_template.c), used by the corpus bodies (bf_template_corpus.c) and
 * the load-time checks (bf_template_check.c). Not for other modules: bf_template.h is the
 * interface. A bf_gen_t is used by one thread.
 */
#ifndef BF_TEMPLATE_INT_H
#define BF_TEMPLATE_INT_H

#include "bf_buf.h"
#include "bf_corpus.h"
#include "bf_scenario_int.h"
#include "bf_template.h"
#include "bf_vars.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum op_kind { OP_LIT = 0, OP_VAL, OP_ESC };

typedef struct op {
    uint8_t kind;
    uint8_t field;    /* enum bf__tfield, for mapping errors back */
    uint8_t verbatim; /* OP_LIT copied unchanged from the template text */
    uint32_t var;     /* OP_VAL, OP_ESC */
    size_t off, len;  /* OP_LIT: bytes in t->lit */
    size_t src_off;   /* offset in the field's template text */
} op;

/* The rendering plan (render_doc_fast): one step per placeholder, each with the literal that
 * follows it, so a document is one pass over a short array. A document-scope value used once
 * is drawn straight into the output (no slot, no stamp); one used again is drawn into its slot
 * at its first placeholder and copied from there at the others, which is when and how often
 * value() draws it: the RNG sees the same draws in the same order, and the bytes are the same
 * (test_render_golden). */
enum fast_kind {
    F_NONE = 0, /* only the literal (the document's first piece) */
    F_DICT,     /* file / list used once: draw an item, copy it */
    F_POOL,     /* range used once, values formatted at compile time: draw, copy 8 bytes */
    F_RANGE,    /* range used once, not pooled: draw, format into the output */
    F_TIME,     /* time type used once: one value per clock reading (render call), copied */
    F_GEN,      /* other type used once: bf_vars_eval writes into the output */
    F_DRAW,     /* first of several uses, or escaped again: draw into the slot, then emit */
    F_REUSE,    /* a later use of a document-scope value: emit the slot's */
    F_VALUE,    /* request scope: value(), by its stamp */
};

#define POOL_MAX_VALUES 4096 /* a range of at most this many values (36 KiB) is pre-formatted */
#define LIT_PAD 32           /* literals are copied 32 bytes at a time: pool and output slack */

typedef struct fop {
    uint8_t kind; /* enum fast_kind */
    uint8_t esc;  /* OP_ESC: escaped again (random_array inside a string) */
    uint32_t var;
    uint32_t lit_len;    /* the literal after the value */
    const char *lit;     /* in t->plan_lit (padded) */
    uint64_t n;          /* F_DICT: items; F_POOL, F_RANGE: values (the range's span) */
    int64_t from;        /* F_RANGE */
    const char *values;  /* F_DICT: the spec's; F_POOL: 8 bytes a value */
    const size_t *off;   /* F_DICT */
    const uint8_t *plen; /* F_POOL: length of each value */
} fop;

typedef struct pool {
    char *text; /* 8 bytes a value, from + k at 8k */
    uint8_t *len;
} pool;

struct bf_tmpl {
    const bf_scenario_t *sc;
    const bf_var_spec_t *vars;
    size_t nvars;
    size_t *var_max; /* bf_var_max_len per variable */
    size_t scratch_total;
    bf_buf_t lit; /* literal pool, in op order */
    op *dops;     /* one op per piece, with positions (checks) */
    size_t ndops;
    op *ops; /* adjacent literals merged (rendering) */
    size_t nops;
    size_t max_bytes;        /* worst case of one document, without the _index prefix */
    const char *action;      /* "index" | "create" | "update" | "delete" */
    int no_source;           /* delete: the action line is the whole document */
    char *body_name;         /* a query body (bf_tmpl_compile_body): its key path for messages; NULL
                                for the document template */
    size_t esc_max;          /* largest OP_ESC value (slow-path scratch) */
    int corpus;              /* document.corpus: ops are the action line's fields only */
    int by_file;             /* document.corpus.indices: by_file: file k's documents, index k */
    int has_id, has_routing; /* the template sets _id / routing (else the corpus's) */
    int ndjson;              /* a query body of JSON lines (_msearch): each line break outside a
                                string ends a line, kept as one '\n'; blank lines dropped */
    fop *fops;               /* the rendering plan of ops (render_doc_fast) */
    size_t nfops;
    char *plan_lit; /* lit's bytes + LIT_PAD zeros */
    pool *pools;    /* per variable; text NULL when not pooled */
};

/* ---- compilation --------------------------------------------------------------------------- */

typedef struct compiler {
    bf_tmpl_t *t;
    size_t cap;
    bf__tmpl_locate_fn loc;
    void *loc_ctx;
    bf_diag_t *diag;
    bf__tmpl_collect_fn collect; /* validate: takes each placeholder mistake, compiling goes on */
    void *collect_ctx;
    size_t ncollected;
} compiler;
typedef struct slot {
    uint64_t stamp; /* doc or request stamp the value belongs to; 0 = none */
    const char *val;
    size_t len;
    char *scratch; /* bf_var_max_len bytes */
} slot;

struct bf_gen {
    const bf_tmpl_t *t;
    bf_vars_t *vars;
    bf_rng_t *rng; /* vars' RNG (bf_vars_rng) */
    slot *slots;
    char *scratch;
    char *esc_tmp; /* slow path of OP_ESC */
    uint64_t doc_stamp;
    uint64_t req_stamp;
    uint64_t clock_stamp; /* F_TIME: one per clock hold (render call), from 1 << 62 */
    uint64_t rr;          /* documents rendered: round-robin over the cell's indices */
    const bf_cell_t *cell;
    char *prefix_mem;   /* {"<action>":{"_index":"<name>" for each index of the cell */
    size_t *prefix_off; /* indices + 1 offsets */
    size_t prefix_max;
    char *act_mem;   /* prefix + "}}\n" for each index: the whole action line when the
                        template overlays nothing and the document has no _id / routing */
    size_t *act_off; /* indices + 1 offsets */
};
/* memcpy for the short pieces a document is made of (literals, values: mostly under 64
 * bytes): overlapping unaligned moves inline instead of a library call per piece, measured
 * at about a quarter of rendering time (bench/RESULTS.md). Reads and writes exactly n bytes. */
static inline void copy_piece(char *dst, const char *src, size_t n)
{
    uint64_t a, b;
    if (n >= 16) {
        if (n > 64) {
            memcpy(dst, src, n);
            return;
        }
        for (size_t i = 0; i + 16 < n; i += 16) {
            memcpy(&a, src + i, 8);
            memcpy(&b, src + i + 8, 8);
            memcpy(dst + i, &a, 8);
            memcpy(dst + i + 8, &b, 8);
        }
        memcpy(&a, src + n - 16, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst + n - 16, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else if (n >= 8) {
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, src, 4);
        memcpy(&y, src + n - 4, 4);
        memcpy(dst, &x, 4);
        memcpy(dst + n - 4, &y, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
    }
}

/* Output positions of each op, for bf__tmpl_check. */
typedef struct trace {
    size_t *start; /* per op, relative to the document's first byte */
} trace;

/* bf_template.c: a placeholder field's name; file:line:column of a template offset (buf,
 * caller's); a generator set to a cell; one document or a body's ops rendered into out (trace:
 * each op's output position, or NULL); a bulk action line's prefix. BF_OK or BF_E_TOOBIG. */
const char *bf__tmpl_field_name_of(const bf_tmpl_t *t, enum bf__tfield f);
void bf__tmpl_where(compiler *c, enum bf__tfield field, size_t offset, char *buf, size_t size);
void bf__tmpl_append_action_prefix(bf_buf_t *b, const char *action, const char *name);
void bf__tmpl_set_cell(bf_gen_t *g, const bf_cell_t *cell);
int bf__tmpl_render_doc(bf_gen_t *g, const op *ops, size_t nops, uint32_t k, bf_buf_t *out,
                        int slow, trace *tr);
int bf__tmpl_render_body_ops(bf_gen_t *g, const op *ops, size_t nops, bf_buf_t *out, trace *tr);

#endif
