/* SPDX-License-Identifier: MIT */
/* bf_rowcodec_int.h — the row codec's tables, for the results directory's writers
 * (bf_results.c: matrix.csv columns, queries.csv, resume); resultlib-internal (bf__ names).
 * The tables are constant: reading them is thread-safe. */
#ifndef BF_ROWCODEC_INT_H
#define BF_ROWCODEC_INT_H

#include "bf_rowcodec.h"

#include <jansson.h>
#include <stddef.h>

/* One table of row fields: the JSON names, CSV columns and resume loading all come from it. */
enum bf__ftype { BF__F_DBL, BF__F_U64, BF__F_I64, BF__F_INT, BF__F_U32 };
typedef struct bf__field {
    const char *name;
    size_t off;
    enum bf__ftype type;
    int csv;      /* also a CSV column */
    int decimals; /* shown with this many decimals in matrix.md and report.html; -1 = as each
                     table says (bf_row_field_decimals) */
} bf__field_t;

/* The row fields in matrix.json / matrix.csv order, and the named query's fields
 * (bf_qrow_t: matrix.json "queries", queries.csv). */
extern const bf__field_t *const bf__row_fields;
extern const size_t bf__row_nfields;
extern const bf__field_t *const bf__qrow_fields;
extern const size_t bf__qrow_nfields;

/* bf__row_field_json — field f of row (a bf_qrow_t cast, for the query table) as matrix.json
 * has it: a new reference (json_decref), null for an unknown value (NAN, negative count). */
json_t *bf__row_field_json(const bf_row_t *row, const bf__field_t *f);

/* bf__row_load — a row object (matrix.json rows[], a cell file's first line) into *row through
 * the field tables; the cell is the caller's. Query names are borrowed from ss when it names
 * them (a fresh row's are), else left NULL. missing(ctx, name) is called for each table field
 * the object lacks (may be NULL). o is borrowed. */
typedef void (*bf__row_missing_fn)(void *ctx, const char *name);
void bf__row_load(json_t *o, const bf_search_spec_t *ss, bf_row_t *row, bf__row_missing_fn missing,
                  void *ctx);

#endif
