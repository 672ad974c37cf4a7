/* SPDX-License-Identifier: MIT */
/* bf_rowcodec.h — the row codec: a row (bf_row_t) to its matrix.json object and back through
 * one table of fields. Pure functions of their arguments; thread-safe. bf_results.h includes
 * this header, so the results directory's users see it as before. */
#ifndef BF_ROWCODEC_H
#define BF_ROWCODEC_H

#include "bf_aggregate.h"
#include "bf_error.h"
#include "bf_scenario.h"

#include <jansson.h>
#include <stddef.h>

/* ---- the row codec (docs/internals/style.md rule 17): one field table for the writers and every
 * reader ----------
 *
 * matrix.json rows[] and each cell file's first line are written from the table of row
 * fields in bf_rowcodec.c (bf_row_encode); compare, report and findings read them back through the
 * same table instead of looking keys up themselves, so a field renamed or added in the table
 * is renamed or added for them too, and one missing from a file (written by an older
 * bulkfleet) is reported, not silently read as 0. */

/* A row decoded from its JSON object, with the cell fields the object carries. */
typedef struct bf_row_rec {
    bf_row_t row;      /* row.cell == &cell; queries[].name owned by the record */
    bf_cell_t cell;    /* id, index, indices, shards, replicas, batch_size, concurrency,
                          search_clients, search_rate, axes (owned by the record); the rest 0 */
    int searches;      /* the object has a "queries" array (its scenario searches), even an
                          empty one (a cell without search clients) */
    size_t nmissing;   /* table fields the object lacked: shown as unknown (NAN, -1, 0) */
    char missing[256]; /* their names, ", "-separated (truncated at the size) */
    char **strs;       /* owned strings (internal) */
    size_t nstrs;
    bf_axis_value_t *axes; /* owned (internal) */
} bf_row_rec_t;

/* bf_row_encode — a row as the writers write it into matrix.json rows[] (caller owns the
 * object: json_decref). */
json_t *bf_row_encode(const bf_row_t *row);

/* bf_row_rec_decode — o (a row object) into *rec through the row table. Returns 0;
 * BF_E_PARSE with diag when o is not an object, when shards, batch_size or concurrency is not
 * an integer, or when a table field has the wrong JSON type (the message names the cell and
 * the field). Fields absent from o are counted in rec->nmissing. rec is always initialised:
 * free with bf_row_rec_cleanup (also after an error). o is borrowed. Thread-safe. */
int bf_row_rec_decode(json_t *o, bf_row_rec_t *rec, bf_diag_t *diag);
/* bf_row_rec_cleanup — free what the record owns. NULL-safe. */
void bf_row_rec_cleanup(bf_row_rec_t *rec);

/* bf_row_field_decimals — how many decimals matrix.md and report.html show field `name` with
 * (the row table's one rounding of it), or -1 for a field without one (or no such field). */
int bf_row_field_decimals(const char *name);

/* bf_row_field_number — the value of the table field `name` of a typed row as a number
 * (booleans 1/0; NAN for unknown), for tables of columns (report). Returns 0, or
 * BF_E_NOTFOUND (and NAN) when the table has no such field: a caller's key that drifted from
 * the table is an error, not a 0. */
int bf_row_field_number(const bf_row_t *row, const char *name, double *out);

/* bf_row_field_value — the table field `name` of a typed row as the writers put it in
 * matrix.json (a new reference: json_decref it; null for unknown values), or NULL when the table
 * has no such field. */
json_t *bf_row_field_value(const bf_row_t *row, const char *name);

/* bf_qrow_field_value — the same for a named query's fields (matrix.json rows[].queries[],
 * the query table). */
json_t *bf_qrow_field_value(const bf_qrow_t *q, const char *name);

/* bf_row_field_count / bf_row_field_name — the table's fields in matrix.json order (NULL past
 * the end): for tests and for readers that show every field. */
size_t bf_row_field_count(void);
const char *bf_row_field_name(size_t i);

#endif
