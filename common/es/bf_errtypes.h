/* SPDX-License-Identifier: MIT */
/* bf_errtypes.h — documents the cluster failed, counted by error type, with the first reason
 * of each ("errors by type").
 *
 * A bounded table: the first BF_ERRTYPES_MAX - 1 distinct types get a slot each, later ones
 * share the slot "other" (so the table never grows with the input and a merge is cheap). Each
 * slot keeps the first non-empty reason it was given. The type is the item's (or the whole
 * request's) error.type as the cluster wrote it ("mapper_parsing_exception",
 * "version_conflict_engine_exception", "routing_missing_exception", ...; field names from the
 * _bulk response body, docs/internals/es-api.md §1.6), or "http_<status>" for an error without a
 * type and "failure_store" for an Elasticsearch document stored in the failure store.
 * What is counted (the agent's worker decides, agent/bf_worker.c): one per document per
 * error answer, every attempt, so a document rejected (429) and then accepted on a retry
 * counts once under its rejection type; outcomes that are unknown (timeouts, resets, bad
 * responses, 502/504) are not errors of a type and are not counted here.
 * Embedded struct, plain data (copyable; no cleanup). Not thread-safe: callers lock.
 */
#ifndef BF_ERRTYPES_H
#define BF_ERRTYPES_H

#include <stddef.h>
#include <stdint.h>

#define BF_ERRTYPES_MAX 8    /* slots; the last distinct types share "other" */
#define BF_ERRTYPE_LEN 64    /* bytes of a type, NUL included (longer ones are cut) */
#define BF_ERRREASON_LEN 200 /* bytes of a first reason, NUL included (cut to fit) */
#define BF_ERRTYPES_OTHER "other"

typedef struct bf_errtype {
    char type[BF_ERRTYPE_LEN];
    char reason[BF_ERRREASON_LEN]; /* the first non-empty reason given for the type */
    uint64_t docs;
} bf_errtype_t;

typedef struct bf_errtypes {
    uint32_t n; /* slots used */
    bf_errtype_t e[BF_ERRTYPES_MAX];
} bf_errtypes_t;

/* bf_errtypes_reset — empty the table. */
void bf_errtypes_reset(bf_errtypes_t *t);
/* bf_errtypes_add — count docs documents of error `type` (NULL or "" counts as "error") with
 * `reason` (may be NULL; kept only if the slot has none yet). docs 0 is a no-op. */
void bf_errtypes_add(bf_errtypes_t *t, const char *type, const char *reason, uint64_t docs);
/* bf_errtypes_merge — dst += src, type by type (src's reasons fill dst's empty ones). */
void bf_errtypes_merge(bf_errtypes_t *dst, const bf_errtypes_t *src);
/* bf_errtypes_total — Σ docs over the slots. */
uint64_t bf_errtypes_total(const bf_errtypes_t *t);
/* bf_errtypes_sorted — the slot indexes by docs, most first (ties: first counted first), into
 * order[BF_ERRTYPES_MAX]; returns t->n. */
uint32_t bf_errtypes_sorted(const bf_errtypes_t *t, uint32_t *order);
/* bf_errtypes_format — the compact form of matrix.csv and report.html:
 * "mapper_parsing_exception 120; version_conflict_engine_exception 3" (most first; "" when
 * empty), cut to fit size bytes. Returns buf. */
char *bf_errtypes_format(const bf_errtypes_t *t, char *buf, size_t size);

#endif
