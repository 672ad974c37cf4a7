/* SPDX-License-Identifier: MIT */
/* bf_import_rally_int.h — what the Rally importer's files share: the axis values, the JSON
 * position map, one track's checks and the schedule's accounting. Internal to
 * coordinator/import/ (bf_import_rally*.c, bf_import_jpos.c); every function runs on the
 * importing thread only and returns BF_OK or a BF_E_* code with diag set where it takes one.
 */
#ifndef BF_IMPORT_RALLY_INT_H
#define BF_IMPORT_RALLY_INT_H

#include "bf_buf.h"
#include "bf_error.h"
#include "bf_import_vector.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_VALUES 32 /* distinct values of one matrix axis */
typedef struct values {
    double v[MAX_VALUES];
    size_t n;
} values;

/* ---- where a member is: file:line:column of every object key and array element ---------
 * jansson keeps no positions, so the track's text is walked once more (it already parsed, so
 * it is valid JSON) and each member is recorded under its JSON pointer ("/challenges/0/
 * schedule/2/clients", RFC 6901 without escapes), at its key (object) or its first byte
 * (array element). */
#define MAX_POS_DEPTH 64
typedef struct jpos {
    char *path;
    unsigned line, col;
} jpos;
typedef struct jposmap {
    jpos *v;
    size_t n, cap;
    const char *text;
    size_t len, i; /* the walk */
    size_t at;     /* line/col are of text[at] */
    unsigned line, col;
} jposmap;

/* The checks of one track (bf_import_rally): positions, the file's name, warnings said as
 * header notes and on stderr. */
typedef struct track_ck {
    const char *file;
    const jposmap *pos;
    bf_buf_t *notes;
} track_ck;

#define MAX_CACHES 6
typedef struct task_acc {
    size_t bulk, searches, mapped, total;
    json_t *queries;              /* [{name, path, body, clients, rate, paging...}] */
    json_t *skipped;              /* ["name (type): why"] */
    bf_buf_t notes;               /* the mapped ones, one note each */
    int all_rated;                /* every search has a target-throughput */
    double rate_sum, sum_clients; /* of the search tasks: each runs its own clients */
    size_t beside, after; /* searches Rally runs beside the load (in its parallel block), after */
    double search_period; /* the longest time-period of a search task (s), 0 when none */
    double search_warmup; /* the longest warmup-time-period of a search task (s), 0 when none */
    const char *dir;      /* the track's folder: its track.py and the files that reads */
    const char *pyname;   /* "track.py", or OpenSearch Benchmark's "workload.py" */
    bf_buf_t vars;        /* variables: entries the derived queries need (YAML lines) */
    const bf_vimport_ctx_t *vctx; /* the track, for vector searches (bf_import_vector.h) */
    uint32_t force_merge;         /* a force-merge task's max-num-segments (the after-load
                                     step index.force_merge); 0 = none */
} task_acc;

/* bf_import_rally_track.c: a whole file of at most 16 MiB (bf_file_read) into *out (malloc'd,
 * NUL-terminated, caller frees). */
int bf__rally_read_file(const char *path, char **out, size_t *len, bf_diag_t *diag);

/* bf_import_jpos.c: the position map of a JSON text (text borrowed for the map's life);
 * bf__jp_where writes "file:line:column" of the member at a JSON pointer into buf. */
void bf__jp_build(jposmap *m, const char *text, size_t len);
void bf__jp_cleanup(jposmap *m);
const char *bf__jp_where(const jposmap *m, const char *file, const char *path, char *buf,
                         size_t size);

/* bf_import_rally_track.c: Rally's task and bulk operation keys (NULL-terminated), the checks
 * of one track and the helpers the steps share. */
extern const char *const BF__TASK_KEYS[];
extern const char *const BF__BULK_KEYS[];
int bf__check_keys(const track_ck *ck, json_t *obj, const char *path, const char *const *known,
                   const char *what, bf_diag_t *diag);
int bf__check_num(const track_ck *ck, json_t *obj, const char *path, const char *key, double min,
                  int whole, const char *unit, const char *what, double *v, bf_diag_t *diag);
const char *bf__str_of(json_t *o, const char *key);
int bf__name_listed(json_t *list, const char *name);
int bf__file_exists(const char *p);
void bf__collect_tasks(json_t *schedule, json_t *tasks, const char *at, json_t *paths);
double bf__count_of(json_t *v, double keep);
json_t *bf__split_settings(json_t *settings, double *shards, double *replicas);
void bf__emit_axis(bf_buf_t *y, const char *name, const values *vs, double mult);
void bf__emit_json(bf_buf_t *y, json_t *j);
size_t bf__corpus_caches(char **out);
char *bf__find_corpus(const char *dir, const char *cn, const char *src, const char *corpus_dir);

/* bf_import_rally_tasks.c: one schedule task into the accounting. */
void bf__account_task(task_acc *acc, json_t *t, json_t *op, const char *type, const char *tpath);

#endif
