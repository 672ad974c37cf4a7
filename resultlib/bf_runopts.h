/* SPDX-License-Identifier: MIT */
/* bf_runopts.h — the command-line overrides a campaign ran with (--cells, --warmup,
 * --duration), recorded in its results directory so `run --resume` continues it the same way.
 *
 * A new campaign writes them to <results>/run-options.json (bf_runopts_json); `--resume DIR`
 * reads them back (bf_runopts_parse) and reconciles them with the options given now
 * (bf_runopts_resume): an option left out is taken from the record, one given with the same
 * value is fine, one given with another value is refused, since the finished rows were measured
 * with the recorded one and a matrix mixing both could not be compared. Pure functions over
 * plain values (docs/internals/style.md rule 16), tested by test_runopts. Thread-safe (no shared
 * state).
 */
#ifndef BF_RUNOPTS_H
#define BF_RUNOPTS_H

#include "bf_error.h"

#include <stdint.h>

#define BF_RUNOPTS_FILE "run-options.json"
#define BF_MAX_RUNOPTS_BYTES (1u << 20) /* run-options.json (a --cells list is at most this) */

typedef struct bf_runopts {
    const char *cells; /* --cells as written, NULL = every cell; borrowed (or owned by
                          bf_runopts_parse's caller through bf_runopts_cleanup) */
    int has_warmup;    /* 1: --warmup was given */
    uint64_t warmup_ms;
    int has_first_warmup; /* 1: --first-warmup was given */
    uint64_t first_warmup_ms;
    int has_duration; /* 1: --duration was given */
    uint64_t duration_ms;
} bf_runopts_t;

/* bf_runopts_json — the record as a JSON object text:
 * {"cells": "1,3" | null, "warmup_ms": 1000 | null, "first_warmup_ms": 30000 | null,
 * "duration_ms": 3000 | null} (a record without first_warmup_ms, from before the option, reads
 * as null).
 * Caller frees. */
char *bf_runopts_json(const bf_runopts_t *o);

/* bf_runopts_parse — read a record written by bf_runopts_json (text of `len` bytes, from
 * `origin` for messages). On 0, out->cells is a malloc'd copy (free with bf_runopts_cleanup).
 * Returns 0, or BF_E_PARSE with diag naming origin and the bad member. */
int bf_runopts_parse(const char *text, size_t len, const char *origin, bf_runopts_t *out,
                     bf_diag_t *diag);
/* bf_runopts_cleanup — free what bf_runopts_parse allocated; NULL-safe. */
void bf_runopts_cleanup(bf_runopts_t *o);

/* bf_runopts_resume — the options a resumed campaign uses: *use = recorded, except that an
 * option given now must equal the recorded one. use->cells borrows from recorded. Returns 0,
 * or BF_E_INVAL with diag saying which option differs, both values, and what to do
 * ("resume without --duration to use the campaign's 3s, or start a new campaign"). --cells
 * lists are compared as written after dropping spaces. */
int bf_runopts_resume(const bf_runopts_t *recorded, const bf_runopts_t *given, bf_runopts_t *use,
                      bf_diag_t *diag);

/* bf_runopts_describe — "--cells 1,3 --warmup 1s --first-warmup 30s --duration 3s" (only the
 * options set), or "no --cells, --warmup, --first-warmup or --duration" when none is, into buf.
 * Returns buf. */
char *bf_runopts_describe(const bf_runopts_t *o, char *buf, size_t buf_size);

#endif
