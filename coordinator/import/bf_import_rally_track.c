/* SPDX-License-Identifier: MIT */
/* bf_import_rally_track.c — what Rally's track reference defines (docs/track.rst of
 * elastic/rally): the known keys, the checks of one track, the schedule's tasks, corpus caches,
 * and the scenario's axes and JSON values as YAML.
 */
#include "bf_import_rally_int.h"

#include "bf_import_rally.h"

#include "bf_buf.h"
#include "bf_cluster.h"
#include "bf_corpus.h"
#include "bf_file.h"
#include "bf_import_render.h"
#include "bf_import_yaml.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_scenario.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_TRACK_BYTES (16u << 20)

int bf__rally_read_file(const char *path, char **out, size_t *len, bf_diag_t *diag)
{
    int err_no = 0;
    int rc = bf_file_read(path, MAX_TRACK_BYTES, out, len, &err_no);
    if (rc == BF_E_TOOBIG)
        return bf_diag_set(diag, BF_E_TOOBIG, "%s: larger than %u MiB; a track file is small JSON",
                           path, MAX_TRACK_BYTES >> 20);
    if (rc != BF_OK)
        return bf_diag_set(diag, rc, "%s: %s", path, strerror(err_no));
    return BF_OK;
}

/* ---- what Rally's track reference defines (docs/track.rst of elastic/rally) ------------- */
const char *const BF__TASK_KEYS[] = {"operation",
                                     "name",
                                     "clients",
                                     "warmup-time-period",
                                     "time-period",
                                     "warmup-iterations",
                                     "iterations",
                                     "target-throughput",
                                     "target-interval",
                                     "schedule",
                                     "ramp-up-time-period",
                                     "tags",
                                     "meta",
                                     "completed-by",
                                     "ignore-response-error-level",
                                     "include-in-reporting",
                                     NULL};
const char *const BF__BULK_KEYS[] = {"name",
                                     "operation-type",
                                     "bulk-size",
                                     "batch-size",
                                     "ingest-percentage",
                                     "corpora",
                                     "indices",
                                     "data-streams",
                                     "pipeline",
                                     "conflicts",
                                     "conflict-probability",
                                     "on-conflict",
                                     "recency",
                                     "detailed-results",
                                     "timeout",
                                     "request-timeout",
                                     "looped",
                                     "include-in-reporting",
                                     "headers",
                                     "opaque-id",
                                     "request-params",
                                     "ignore-response-error-level",
                                     "param-source",
                                     "target-throughput",
                                     "meta",
                                     "tags",
                                     "id-conflicts",
                                     NULL};

/* Levenshtein distance of two short strings, capped */
static size_t edits(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
    return d[la][lb];
}

/* the known key that `key` misspells ('_' for '-', case, up to 2 edits), or NULL */
static const char *misspelt(const char *key, const char *const *known)
{
    char norm[128];
    size_t n = 0;
    for (; key[n] && n + 1 < sizeof norm; n++)
        norm[n] =
            key[n] == '_' ? '-' : (char)(key[n] >= 'A' && key[n] <= 'Z' ? key[n] + 32 : key[n]);
    norm[n] = '\0';
    const char *best = NULL;
    size_t bd = 3;
    for (size_t i = 0; known[i]; i++) {
        size_t e = strcmp(norm, known[i]) == 0 ? 0 : edits(norm, known[i]);
        if (e < bd && (e == 0 || strlen(known[i]) > 4)) {
            bd = e;
            best = known[i];
        }
    }
    return best;
}

static int key_known(const char *key, const char *const *known)
{
    for (size_t i = 0; known[i]; i++)
        if (strcmp(key, known[i]) == 0)
            return 1;
    return 0;
}

/* Every key of obj (at path) is one of known: a misspelling of a known one is an error (the
 * scenario would silently be another benchmark), another key a warning (Rally passes unknown
 * parameters to the operation, which ignores them). what: "task 'x'" for the messages. */
int bf__check_keys(const track_ck *ck, json_t *obj, const char *path, const char *const *known,
                   const char *what, bf_diag_t *diag)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        if (key_known(k, known))
            continue;
        char sub[1100], where[1200];
        snprintf(sub, sizeof sub, "%s/%s", path, k);
        bf__jp_where(ck->pos, ck->file, sub, where, sizeof where);
        const char *fix = misspelt(k, known);
        if (fix && !json_object_get(obj, fix))
            return bf_diag_set(diag, BF_E_INVAL,
                               "%s: %s: unknown key '%s'; did you mean '%s'? (Rally's keys are "
                               "written with '-'); fix it and run import-rally again",
                               where, what, k, fix);
        bf_warn("%s: %s: '%s' is not a key of Rally's track reference; it is not imported", where,
                what, k);
        bf_yaml_note(ck->notes, "%s: %s: '%s' is not a Rally key; not imported", where, what, k);
    }
    return BF_OK;
}

/* obj[key], when present, is a number >= min (whole when `whole`): else an error at its
 * position saying what to write; *v the value (untouched when absent). Returns 1 present,
 * 0 absent, a negative bf_err when wrong. */
int bf__check_num(const track_ck *ck, json_t *obj, const char *path, const char *key, double min,
                  int whole, const char *unit, const char *what, double *v, bf_diag_t *diag)
{
    json_t *j = json_object_get(obj, key);
    if (j == NULL)
        return 0;
    double d = json_is_number(j) ? json_number_value(j) : 0;
    if (json_is_number(j) && d >= min && (!whole || d == (double)(long long)d)) {
        *v = d;
        return 1;
    }
    char sub[1100], where[1200];
    snprintf(sub, sizeof sub, "%s/%s", path, key);
    bf__jp_where(ck->pos, ck->file, sub, where, sizeof where);
    char *txt = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
    int rc = bf_diag_set(diag, BF_E_INVAL,
                         "%s: %s: \"%s\" is %s, not %s%s%s; write a number, e.g. \"%s\": %s", where,
                         what, key, txt ? txt : "?", whole ? "a whole number" : "a number",
                         min >= 1 ? " of at least 1" : "", unit, key,
                         strcmp(key, "bulk-size") == 0 ? "1000"
                         : whole && min >= 1           ? "2"
                                                       : "10");
    free(txt);
    return rc;
}

const char *bf__str_of(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* 1 when name is `list` (a string) or one of its strings (a list). */
int bf__name_listed(json_t *list, const char *name)
{
    if (json_is_string(list))
        return strcmp(json_string_value(list), name) == 0;
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) if (json_is_string(v) &&
                                       strcmp(json_string_value(v), name) == 0) return 1;
    return 0;
}

int bf__file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Appends every task of a schedule, parallel blocks flattened, and each one's JSON pointer
 * (under `at`, the schedule's) to paths. */
void bf__collect_tasks(json_t *schedule, json_t *tasks, const char *at, json_t *paths)
{
    size_t i;
    json_t *t;
    json_array_foreach(schedule, i, t)
    {
        json_t *par = json_object_get(t, "parallel");
        if (json_is_object(par)) {
            json_t *sub = json_object_get(par, "tasks");
            size_t k;
            json_t *st;
            json_array_foreach(sub, k, st)
            {
                char *tp = bf_asprintf("%s/%zu/parallel/tasks/%zu", at, i, k);
                json_array_append_new(paths, json_string(tp));
                free(tp);
                /* a parallel block's clients / periods apply to tasks that do not say */
                json_t *c = json_deep_copy(st);
                const char *keys[] = {"clients", "warmup-time-period", "time-period",
                                      "target-throughput"};
                for (size_t q = 0; q < 4; q++)
                    if (!json_object_get(c, keys[q]) && json_object_get(par, keys[q]))
                        json_object_set(c, keys[q], json_object_get(par, keys[q]));
                json_array_append_new(tasks, c);
            }
        } else {
            json_array_append(tasks, t);
            char *tp = bf_asprintf("%s/%zu", at, i);
            json_array_append_new(paths, json_string(tp));
            free(tp);
        }
    }
}

/* A count written as a number or a string ("2"); `keep` when it is neither. */
double bf__count_of(json_t *v, double keep)
{
    if (json_is_number(v) && json_number_value(v) >= 0)
        return json_number_value(v);
    const char *s = json_string_value(v);
    if (s == NULL || *s == '\0')
        return keep;
    char *end = NULL;
    errno = 0;
    double d = strtod(s, &end);
    return errno == 0 && end && *end == '\0' && d >= 0 ? d : keep;
}

/* settings without the shard / replica counts (they become matrix axes) */
json_t *bf__split_settings(json_t *settings, double *shards, double *replicas)
{
    json_t *out = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(settings, k, v)
    {
        if (strcmp(k, "index") == 0 && json_is_object(v)) {
            const char *k2;
            json_t *v2;
            json_object_foreach(v, k2, v2)
            {
                char full[256];
                snprintf(full, sizeof full, "index.%s", k2);
                if (strcmp(k2, "number_of_shards") == 0)
                    *shards = bf__count_of(v2, *shards);
                else if (strcmp(k2, "number_of_replicas") == 0)
                    *replicas = bf__count_of(v2, *replicas);
                else
                    json_object_set(out, full, v2);
            }
            continue;
        }
        const char *bare = strncmp(k, "index.", 6) == 0 ? k + 6 : k;
        if (strcmp(bare, "number_of_shards") == 0)
            *shards = bf__count_of(v, *shards);
        else if (strcmp(bare, "number_of_replicas") == 0)
            *replicas = bf__count_of(v, *replicas);
        else
            json_object_set(out, k, v);
    }
    return out;
}

void bf__emit_axis(bf_buf_t *y, const char *name, const values *vs, double mult)
{
    bf_yaml_key(y, 1, name);
    bf_buf_appendz(y, "[");
    for (size_t i = 0; i < vs->n; i++)
        bf_buf_appendf(y, "%s%.0f", i ? ", " : "", vs->v[i] * mult);
    bf_buf_appendz(y, "]\n");
}

/* JSON as a YAML flow value: compact JSON is YAML; "${" would be read as an environment
 * variable by the loader, so it is written "$${". */
void bf__emit_json(bf_buf_t *y, json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    for (const char *p = s; p && *p; p++) {
        if (p[0] == '$' && p[1] == '{')
            bf_buf_appendz(y, "$$");
        else
            bf_buf_append(y, p, 1);
    }
    free(s);
}

/* The corpus caches of the tools, in the order they are looked in: Rally's
 * (~/.rally/benchmarks/data), OpenSearch Benchmark 1.x's (~/.benchmark/benchmarks/data) and
 * 2.x's (~/.osb/benchmarks/data), and each tool's `local.dataset.cache` of the [benchmarks]
 * section of its ini file (~/.rally/rally.ini, ~/.benchmark/benchmark.ini, ~/.osb/benchmark.ini;
 * Python configparser syntax, `~` and `${node:root.dir}` expanded as the tools do) when it names
 * another folder. Up to MAX_CACHES absolute paths into out (caller frees each); the count. */
size_t bf__corpus_caches(char **out)
{
    const char *home = getenv("HOME");
    size_t n = 0;
    if (home == NULL || *home == '\0')
        return 0;
    static const char *const tools[][2] = {
        {".rally", "rally.ini"}, {".benchmark", "benchmark.ini"}, {".osb", "benchmark.ini"}};
    for (size_t t = 0; t < 3; t++)
        out[n++] = bf_asprintf("%s/%s/benchmarks/data", home, tools[t][0]);
    for (size_t t = 0; t < 3 && n < MAX_CACHES; t++) {
        char *ini = bf_asprintf("%s/%s/%s", home, tools[t][0], tools[t][1]);
        FILE *f = fopen(ini, "r");
        free(ini);
        if (f == NULL)
            continue;
        char line[1024], section[64] = "", root[1024] = "", cache[1024] = "";
        while (fgets(line, sizeof line, f)) {
            char *p = line, *e = line + strlen(line);
            while (e > p && strchr(" \t\r\n", e[-1]))
                *--e = '\0';
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == '[') {
                snprintf(section, sizeof section, "%.*s", (int)strcspn(p + 1, "]"), p + 1);
                continue;
            }
            char *eq = strpbrk(p, "=:");
            if (eq == NULL || *p == '#' || *p == ';')
                continue;
            char *k = p, *ke = eq;
            while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
                ke--;
            *ke = '\0';
            char *v = eq + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            if (strcmp(section, "node") == 0 && strcmp(k, "root.dir") == 0)
                snprintf(root, sizeof root, "%s", v);
            else if (strcmp(section, "benchmarks") == 0 && strcmp(k, "local.dataset.cache") == 0)
                snprintf(cache, sizeof cache, "%s", v);
        }
        fclose(f);
        if (cache[0] == '\0')
            continue;
        bf_buf_t b;
        bf_buf_init(&b, 0);
        for (const char *c = cache; *c;) {
            if (strncmp(c, "${node:root.dir}", 16) == 0) {
                bf_buf_appendz(&b, root[0] == '~' ? home : "");
                bf_buf_appendz(&b, root[0] == '~' ? root + 1 : root);
                c += 16;
            } else if (c == cache && *c == '~') {
                bf_buf_appendz(&b, home);
                c++;
            } else {
                bf_buf_append(&b, c++, 1);
            }
        }
        char *dirp = bf_buf_steal(&b);
        int known = dirp == NULL || dirp[0] != '/';
        for (size_t i = 0; i < n && !known; i++)
            known = strcmp(out[i], dirp) == 0;
        if (known)
            free(dirp);
        else
            out[n++] = dirp;
    }
    return n;
}

/* the corpus file `src` of corpus `cn`: beside the track (dir), in each tool's corpus cache
 * (corpus_caches) under <cn>/, in corpus_dir (and its <cn>/), each as written or without
 * .bz2/.gz/.zst (decompressed by the tool); NULL when none (caller frees) */
char *bf__find_corpus(const char *dir, const char *cn, const char *src, const char *corpus_dir)
{
    char *cand[MAX_CACHES + 3] = {0};
    size_t n = 0;
    cand[n++] = bf_asprintf("%s/%s", dir, src);
    char *caches[MAX_CACHES];
    size_t nc = bf__corpus_caches(caches);
    for (size_t i = 0; i < nc; i++) {
        cand[n++] = bf_asprintf("%s/%s/%s", caches[i], cn, src);
        free(caches[i]);
    }
    char cdabs[PATH_MAX];
    if (corpus_dir && realpath(corpus_dir, cdabs) != NULL) { /* named absolutely */
        cand[n++] = bf_asprintf("%s/%s", cdabs, src);
        cand[n++] = bf_asprintf("%s/%s/%s", cdabs, cn, src);
    }
    char *found = NULL;
    for (size_t i = 0; i < n && !found; i++) {
        if (bf__file_exists(cand[i])) {
            found = cand[i];
            cand[i] = NULL;
            break;
        }
        char *dot = strrchr(cand[i], '.');
        if (dot &&
            (strcmp(dot, ".bz2") == 0 || strcmp(dot, ".gz") == 0 || strcmp(dot, ".zst") == 0)) {
            *dot = '\0';
            if (bf__file_exists(cand[i])) {
                found = cand[i];
                cand[i] = NULL;
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        free(cand[i]);
    return found;
}
