/* SPDX-License-Identifier: MIT */
/* bf_import_vector.h — the vector tasks of a Rally track or an OpenSearch Benchmark workload, as
 * scenario parts, for import-rally (docs/import.md "Vector tracks", docs/vectors.md).
 *
 * Recognised indexing (each becomes a document template with `vector` variables):
 *   - OpenSearch Benchmark's operation-type "bulk-vector-data-set" (vectorsearch): the rows of
 *     its data set (data_set_format hdf5: PATH#train, bigann: .fbin/.u8bin/.i8bin) as a
 *     `vector` variable with `file:`, `{FIELD: vector}` documents whose _id (or id-field-name)
 *     is the row number, as OpenSearch Benchmark's BulkVectorsFromDataSetParamSource sends;
 *   - Rally's random_vector track: operation-type "bulk" with param-source
 *     "random-bulk-param-source" (its track.py's RandomBulkParamSource): `create` into the
 *     track's data stream of {"@timestamp", "partition_id" (the track's weighted tiers),
 *     "emb": `dims` random floats} documents (nested paragraphs with paragraph-size > 1);
 *   - OpenSearch Benchmark's param-source "random-vector-bulk-param-source" (workload.py's
 *     RandomBulkParamSource): `create` of {"partition_id", FIELD: `dims` floats}.
 * Recognised searches (a search.queries body with a `vector` variable):
 *   - operation-type "vector-search" (OpenSearch k-NN `knn` query over the query data set,
 *     PATH#test for hdf5);
 *   - Rally's "knn-param-source" (random_vector: `knn` with a partition filter) and OpenSearch
 *     Benchmark's "random-vector-search-param-source".
 * A param-source is recognised only when the track's Python registers it under the published
 * class and that class builds what is written here (the same check as for geonames' queries).
 */
#ifndef BF_IMPORT_VECTOR_H
#define BF_IMPORT_VECTOR_H

#include "bf_buf.h"
#include "bf_error.h"

#include <jansson.h>
#include <stddef.h>

/* What the import knows of the track (borrowed; the caller keeps it alive). */
typedef struct bf_vimport_ctx {
    const char *dir;    /* the track's folder, absolute */
    const char *pyname; /* "track.py" or OpenSearch Benchmark's "workload.py" */
    json_t *track;      /* the rendered track (its corpora and data-streams are read) */
    bf_buf_t *vars;     /* the scenario's variables: YAML list lines ("  - {...}\n"), appended */
    /* a corpus file as import-rally looks for it (beside the track, the tools' caches,
     * corpus_dir), or NULL; caller frees */
    char *(*find_corpus)(const char *dir, const char *cn, const char *src, const char *corpus_dir);
    const char *corpus_dir;
    /* the index the imported vector bulk task writes, once it is imported (the import sets it
     * after bf_vimport_bulk), else NULL: a vector search of another index is not imported */
    const char *loaded_index;
} bf_vimport_ctx_t;

/* The documents of a vector bulk task. */
typedef struct bf_vimport {
    int active;         /* 1: a vector bulk task was imported (the corpora are not read) */
    char *index;        /* the index (or data stream) the task writes; NULL: the track's */
    int data_stream;    /* 1: index is the track's data stream (its composable template) */
    const char *action; /* "index" or "create" (static) */
    char *id;           /* document.id template, or NULL */
    char *routing;      /* document.routing template, or NULL */
    char *source;       /* document.source template */
    double bulk_size;   /* documents per bulk request ("bulk_size" of bulk-vector-data-set) */
    int once;           /* 1: the documents are a data set's rows sent once (vec's passes: 1) */
    size_t missing;     /* data set files not found (warned and noted) */
    bf_buf_t notes;     /* header notes, "#  - ...\n" lines */
} bf_vimport_t;

/* bf_vimport_bulk_kind — 1 when op (a resolved operation of operation-type `type`) is a
 * vector bulk task of the list above (its param-source checked against the track's Python),
 * else 0. keys (may be NULL) receives the operation's own parameter names that the
 * param-source reads (static storage, NULL-terminated), which are not Rally keys. Thread-safe. */
int bf_vimport_bulk_kind(const bf_vimport_ctx_t *ctx, json_t *op, const char *type,
                         const char *const **keys);

/* bf_vimport_bulk — fill out (zeroed by the caller, bf_vimport_cleanup frees it) from the vector
 * bulk operation op; what names the task in messages. Adds its variables to ctx->vars.
 * Returns 0, or BF_E_INVAL with diag (a "dims" that is not 1..16384, no data set named,
 * a data set format other than hdf5 / bigann, paragraph-size above 64). Thread-safe. */
int bf_vimport_bulk(const bf_vimport_ctx_t *ctx, json_t *op, const char *type, const char *what,
                    bf_vimport_t *out, bf_diag_t *diag);

/* bf_vimport_query — the search body (a scenario template; caller frees) of the vector search
 * op of operation-type `type`, adding the variables it draws to ctx->vars and a note to notes;
 * NULL when it is not one of the list above, or searches another index than ctx->loaded_index,
 * or cannot be written as OpenSearch Benchmark sends it (why says what differs, for the notes).
 * Thread-safe. */
char *bf_vimport_query(const bf_vimport_ctx_t *ctx, json_t *op, const char *type, bf_buf_t *notes,
                       char *why, size_t why_size);

/* bf_vimport_cleanup — free what bf_vimport_bulk filled; out is zeroed. NULL-safe. */
void bf_vimport_cleanup(bf_vimport_t *out);

#endif
