/* SPDX-License-Identifier: MIT */
/* bf_import_rally.c — a Rally track / OpenSearch Benchmark workload as a bulkfleet scenario.
 *
 * The track format is Rally's (docs/track.rst of elastic/rally: indices, corpora, operations,
 * challenges / schedule; OpenSearch Benchmark keeps it as workload.json). Only plain JSON is
 * read: Rally renders tracks with Jinja2 first, and a track that needs it is refused at the
 * first construct, with its position, rather than converted wrongly.
 */
#include "bf_import_rally.h"

#include "bf_buf.h"
#include "bf_cluster.h"
#include "bf_corpus.h"
#include "bf_import_render.h"
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
#define MAX_VALUES 32               /* distinct values of one matrix axis */
#define PASSES_ONCE_DURATION_S 86400 /* a corpus read once: the cell ends when it is read */

typedef struct values {
    double v[MAX_VALUES];
    size_t n;
} values;

static void add_value(values *vs, double v)
{
    for (size_t i = 0; i < vs->n; i++)
        if (vs->v[i] == v)
            return;
    if (vs->n < MAX_VALUES)
        vs->v[vs->n++] = v;
}

static int read_file(const char *path, char **out, size_t *len, bf_diag_t *diag)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return bf_diag_set(diag, errno == ENOENT ? BF_E_NOTFOUND : BF_E_IO, "%s: %s", path,
                           strerror(errno));
    bf_buf_t b;
    bf_buf_init(&b, MAX_TRACK_BYTES);
    char chunk[65536];
    size_t n;
    int rc = BF_OK;
    while (rc == BF_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        rc = bf_buf_append(&b, chunk, n);
    fclose(f);
    if (rc != BF_OK) {
        bf_buf_cleanup(&b);
        return bf_diag_set(diag, BF_E_TOOBIG,
                           "%s: larger than %u MiB; a track file is small "
                           "JSON",
                           path, MAX_TRACK_BYTES >> 20);
    }
    *len = b.len;
    *out = bf_buf_steal(&b);
    if (*out == NULL)
        *out = bf_calloc(1, 1);
    return BF_OK;
}

/* 1 when text holds a Jinja construct ({{ ... }}, {% ... %}, {# ... #}) */
static int has_jinja(const char *text, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++)
        if (text[i] == '{' && (text[i + 1] == '{' || text[i + 1] == '%' || text[i + 1] == '#'))
            return 1;
    return 0;
}

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

static void jp_locate(jposmap *m, size_t to, unsigned *line, unsigned *col)
{
    for (; m->at < to; m->at++) {
        unsigned char c = (unsigned char)m->text[m->at];
        if (c == '\n') {
            m->line++;
            m->col = 1;
        } else if ((c & 0xC0) != 0x80) {
            m->col++;
        }
    }
    *line = m->line;
    *col = m->col;
}

static void jp_record(jposmap *m, const char *path, size_t at)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 256;
        m->v = bf_realloc(m->v, m->cap * sizeof *m->v);
    }
    jpos *p = &m->v[m->n++];
    p->path = bf_strdup(path);
    jp_locate(m, at, &p->line, &p->col);
}

static void jp_ws(jposmap *m)
{
    while (m->i < m->len && strchr(" \t\r\n", m->text[m->i]) && m->text[m->i])
        m->i++;
}

/* a string at text[i] (the opening quote): its raw content into out (truncated), i after it */
static void jp_string(jposmap *m, char *out, size_t out_size)
{
    size_t n = 0;
    m->i++;
    while (m->i < m->len && m->text[m->i] != '"') {
        if (m->text[m->i] == '\\' && m->i + 1 < m->len)
            m->i++;
        if (n + 1 < out_size)
            out[n++] = m->text[m->i];
        m->i++;
    }
    m->i++;
    if (out_size)
        out[n] = '\0';
}

static void jp_value(jposmap *m, const char *path, int depth)
{
    jp_ws(m);
    if (m->i >= m->len)
        return;
    char c = m->text[m->i];
    char sub[1024];
    if (c == '{' || c == '[') {
        m->i++;
        for (size_t k = 0;; k++) {
            jp_ws(m);
            if (m->i >= m->len || m->text[m->i] == '}' || m->text[m->i] == ']') {
                m->i++;
                return;
            }
            if (m->text[m->i] == ',') {
                m->i++;
                jp_ws(m);
            }
            size_t at = m->i;
            if (c == '{') {
                char key[256];
                jp_string(m, key, sizeof key);
                snprintf(sub, sizeof sub, "%s/%s", path, key);
                jp_ws(m);
                if (m->i < m->len && m->text[m->i] == ':')
                    m->i++;
            } else {
                snprintf(sub, sizeof sub, "%s/%zu", path, k);
            }
            if (depth < MAX_POS_DEPTH)
                jp_record(m, sub, at);
            jp_value(m, sub, depth + 1);
        }
    }
    if (c == '"') {
        char skip[1];
        jp_string(m, skip, 0);
        return;
    }
    while (m->i < m->len && !strchr(",}] \t\r\n", m->text[m->i]))
        m->i++;
}

static void jp_build(jposmap *m, const char *text, size_t len)
{
    memset(m, 0, sizeof *m);
    m->text = text;
    m->len = len;
    m->line = m->col = 1;
    jp_value(m, "", 0);
    m->text = NULL; /* borrowed only while building */
}

static void jp_cleanup(jposmap *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].path);
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* "file:line:column" of the member at path (else of its closest recorded parent, else the
 * file alone) into buf */
static const char *jp_where(const jposmap *m, const char *file, const char *path, char *buf,
                            size_t size)
{
    char p[1024];
    bf_strlcpy(p, path, sizeof p);
    for (;;) {
        for (size_t i = 0; m && i < m->n; i++)
            if (strcmp(m->v[i].path, p) == 0) {
                snprintf(buf, size, "%s:%u:%u", file, m->v[i].line, m->v[i].col);
                return buf;
            }
        char *slash = strrchr(p, '/');
        if (slash == NULL || slash == p)
            break;
        *slash = '\0';
    }
    snprintf(buf, size, "%s", file);
    return buf;
}

/* One import's files: the track, and its rendering by Jinja2 once one of them needs it (Rally
 * renders every file; a file without a construct renders to itself). */
typedef struct track_src {
    const char *track_file;         /* absolute */
    const bf_render_opts_t *render; /* the tools' globals and the track parameters */
    json_t *bundle;                 /* bf_import_render's answer, or NULL before it is needed */
} track_src;

/* the rendered text of `file` (the track, or a file it names as `rel`) into *text / *len
 * (borrowed from the bundle); renders the track the first time */
static int rendered_text(track_src *src, const char *file, const char *rel, const char **text,
                         size_t *len, bf_diag_t *diag)
{
    if (src->bundle == NULL) {
        int rc = bf_import_render(src->track_file, src->render, &src->bundle, diag);
        if (rc != BF_OK)
            return rc;
    }
    json_t *t = strcmp(file, src->track_file) == 0
                    ? json_object_get(src->bundle, "track")
                    : json_object_get(json_object_get(src->bundle, "files"), rel ? rel : "");
    if (!json_is_string(t))
        return bf_diag_set(diag, BF_E_NOTFOUND,
                           "%s: the track renderer did not render this file (it renders the "
                           "files the track's indices and templates name)",
                           file);
    *text = json_string_value(t);
    *len = json_string_length(t);
    return BF_OK;
}

/* file as JSON (rendered with Jinja2 when it needs it: the whole track then); *label is the
 * name positions are given in ("FILE" or "FILE (rendered)"; caller frees). rel: the name the
 * track gives the file (NULL for the track itself). */
static int load_json_at(track_src *src, const char *file, const char *rel, json_t **out,
                        jposmap *pos, char **label, bf_diag_t *diag)
{
    char *text = NULL;
    size_t len = 0;
    int rc = read_file(file, &text, &len, diag);
    if (rc != BF_OK)
        return rc;
    const char *use = text;
    size_t use_len = len;
    int rendered = 0;
    if (src && (has_jinja(text, len) || src->bundle != NULL ||
                (src->render && src->render->params && rel == NULL))) {
        rc = rendered_text(src, file, rel, &use, &use_len, diag);
        rendered = 1;
    }
    if (rc == BF_OK) {
        char *lab = rendered ? bf_asprintf("%s (rendered)", file) : bf_strdup(file);
        json_error_t je;
        *out = json_loadb(use, use_len, JSON_REJECT_DUPLICATES, &je);
        if (*out == NULL && strstr(je.text, "duplicate object key")) {
            /* Rally reads tracks with Python's json, which keeps a key's last value
             * (elser-ingest-speedtest's rendered pipeline repeats "field"): so does this
             * import, and it says where */
            json_error_t je2;
            *out = json_loadb(use, use_len, 0, &je2);
            if (*out)
                bf_warn("%s:%d:%d: %s; Rally keeps the key's last value, and so does this "
                        "import (remove the first to silence this)",
                        lab, je.line, je.column, je.text);
        }
        if (*out == NULL)
            rc = bf_diag_set(diag, BF_E_PARSE, "%s:%d:%d: not JSON: %s", lab, je.line, je.column,
                             je.text);
        else if (pos)
            jp_build(pos, use, use_len);
        if (label && rc == BF_OK)
            *label = lab;
        else
            free(lab);
    }
    free(text);
    return rc;
}

/* ---- what Rally's track reference defines (docs/track.rst of elastic/rally) ------------- */
static const char *const TASK_KEYS[] = {"operation",
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
static const char *const BULK_KEYS[] = {"name",
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

/* The checks of one track (bf_import_rally): positions, the file's name, warnings said as
 * header notes and on stderr. */
typedef struct track_ck {
    const char *file;
    const jposmap *pos;
    bf_buf_t *notes;
} track_ck;

/* Every key of obj (at path) is one of known: a misspelling of a known one is an error (the
 * scenario would silently be another benchmark), another key a warning (Rally passes unknown
 * parameters to the operation, which ignores them). what: "task 'x'" for the messages. */
static int check_keys(const track_ck *ck, json_t *obj, const char *path, const char *const *known,
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
        jp_where(ck->pos, ck->file, sub, where, sizeof where);
        const char *fix = misspelt(k, known);
        if (fix && !json_object_get(obj, fix))
            return bf_diag_set(diag, BF_E_INVAL,
                               "%s: %s: unknown key '%s'; did you mean '%s'? (Rally's keys are "
                               "written with '-'); fix it and run import-rally again",
                               where, what, k, fix);
        bf_warn("%s: %s: '%s' is not a key of Rally's track reference; it is not imported", where,
                what, k);
        bf_buf_appendf(ck->notes, "#  - %s: %s: '%s' is not a Rally key; not imported\n", where,
                       what, k);
    }
    return BF_OK;
}

/* obj[key], when present, is a number >= min (whole when `whole`): else an error at its
 * position saying what to write; *v the value (untouched when absent). Returns 1 present,
 * 0 absent, a negative bf_err when wrong. */
static int check_num(const track_ck *ck, json_t *obj, const char *path, const char *key, double min,
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
    jp_where(ck->pos, ck->file, sub, where, sizeof where);
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

static const char *str_of(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* 1 when name is `list` (a string) or one of its strings (a list). */
static int name_listed(json_t *list, const char *name)
{
    if (json_is_string(list))
        return strcmp(json_string_value(list), name) == 0;
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) if (json_is_string(v) &&
                                       strcmp(json_string_value(v), name) == 0) return 1;
    return 0;
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Appends every task of a schedule, parallel blocks flattened, and each one's JSON pointer
 * (under `at`, the schedule's) to paths. */
static void collect_tasks(json_t *schedule, json_t *tasks, const char *at, json_t *paths)
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
static double count_of(json_t *v, double keep)
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
static json_t *split_settings(json_t *settings, double *shards, double *replicas)
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
                    *shards = count_of(v2, *shards);
                else if (strcmp(k2, "number_of_replicas") == 0)
                    *replicas = count_of(v2, *replicas);
                else
                    json_object_set(out, full, v2);
            }
            continue;
        }
        const char *bare = strncmp(k, "index.", 6) == 0 ? k + 6 : k;
        if (strcmp(bare, "number_of_shards") == 0)
            *shards = count_of(v, *shards);
        else if (strcmp(bare, "number_of_replicas") == 0)
            *replicas = count_of(v, *replicas);
        else
            json_object_set(out, k, v);
    }
    return out;
}

static void emit_axis(bf_buf_t *y, const char *name, const values *vs, double mult)
{
    bf_buf_appendf(y, "  %s: [", name);
    for (size_t i = 0; i < vs->n; i++)
        bf_buf_appendf(y, "%s%.0f", i ? ", " : "", vs->v[i] * mult);
    bf_buf_appendz(y, "]\n");
}

/* JSON as a YAML flow value: compact JSON is YAML; "${" would be read as an environment
 * variable by the loader, so it is written "$${". */
static void emit_json(bf_buf_t *y, json_t *j)
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
#define MAX_CACHES 6
static size_t corpus_caches(char **out)
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
static char *find_corpus(const char *dir, const char *cn, const char *src, const char *corpus_dir)
{
    char *cand[MAX_CACHES + 3] = {0};
    size_t n = 0;
    cand[n++] = bf_asprintf("%s/%s", dir, src);
    char *caches[MAX_CACHES];
    size_t nc = corpus_caches(caches);
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
        if (file_exists(cand[i])) {
            found = cand[i];
            cand[i] = NULL;
            break;
        }
        char *dot = strrchr(cand[i], '.');
        if (dot &&
            (strcmp(dot, ".bz2") == 0 || strcmp(dot, ".gz") == 0 || strcmp(dot, ".zst") == 0)) {
            *dot = '\0';
            if (file_exists(cand[i])) {
                found = cand[i];
                cand[i] = NULL;
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        free(cand[i]);
    return found;
}

/* ---- every task of the schedule accounted for ------------------------------------------
 * bulk: the cells; search-type operations: the scenario's search queries; the administrative
 * ones: what the campaign does anyway; the rest: named in the notes, counted on stderr. */
#define MAX_IMPORT_QUERIES BF_MAX_QUERIES /* search.queries holds at most this many */
typedef struct task_acc {
    size_t bulk, searches, mapped, total;
    json_t *queries; /* [{name, path, body, clients, rate, paging...}] */
    json_t *skipped; /* ["name (type): why"] */
    bf_buf_t notes;  /* the mapped ones, one note each */
    int all_rated;   /* every search has a target-throughput */
    double rate_sum, sum_clients; /* of the search tasks: each runs its own clients */
    size_t beside, after; /* searches Rally runs beside the load (in its parallel block), after */
    double search_period; /* the longest time-period of a search task (s), 0 when none */
    double search_warmup; /* the longest warmup-time-period of a search task (s), 0 when none */
    const char *dir;      /* the track's folder: its track.py and the files that reads */
    const char *pyname;   /* "track.py", or OpenSearch Benchmark's "workload.py" */
    bf_buf_t vars;        /* variables: entries the derived queries need (YAML lines) */
} task_acc;

/* ---- searches built by a track's Python ---------------------------------------------------
 * Rally asks a param-source of the track's track.py for such a search's request. bulkfleet runs
 * no Python, but a param-source whose request is fixed data can be written as a query: geonames'
 * three terms queries over the values of its terms.txt, with a random number appended as Rally
 * does to defeat the request cache (a range variable here). Each is recognised only when
 * track.py registers it under its published class and that class builds the published query;
 * any other param-source is named as not imported. */
typedef struct psrc_known {
    const char *name, *cls; /* the param-source and the class track.py registers */
    const char *shape;      /* the class's query, as its source writes it */
    int rand_max;           /* random.randint(1, rand_max) appended to the terms */
    const char *must;       /* "feature_class.raw" value of the bool query's must, or NULL */
    const char *clause;     /* the bool clause holding the terms: "filter", "must_not" */
} psrc_known;
static const psrc_known PSRC_KNOWN[] = {
    /* shapes without white space, up to a list's end
       (Python allows a comma before it) */
    {"pure-terms-query-source", "PureTermsQueryParamSource", "\"terms\":{\"name.raw\":query_terms}",
     100, NULL, NULL},
    {"filtered-terms-query-source", "FilteredTermsQueryParamSource",
     "\"filter\":[{\"terms\":{\"name.raw\":query_terms}}", 1000, "T", "filter"},
    {"prohibited-terms-query-source", "ProhibitedTermsQueryParamSource",
     "\"must_not\":[{\"terms\":{\"name.raw\":query_terms}}", 1000, "A", "must_not"},
};
#define PSRC_RANDOM "@@bulkfleet-rally-random@@"

/* text without its white space (Python's layout differs between Rally's and OpenSearch
 * Benchmark's copies of the same class); caller frees */
static char *squeeze(const char *text, size_t len)
{
    char *out = bf_malloc(len + 1), *o = out;
    for (size_t i = 0; i < len; i++)
        if (!isspace((unsigned char)text[i]))
            *o++ = text[i];
    *o = '\0';
    return out;
}

/* The body of the search param-source psrc of the track in dir (its Python: pyname, track.py
 * or OpenSearch Benchmark's workload.py), as a scenario query template (caller frees), and the
 * range variable it draws from into *var ("rally_random_100"); NULL when the param-source is
 * not one of PSRC_KNOWN as published (why says what differs). */
static char *psrc_body(const char *dir, const char *pyname, const char *psrc, char *var,
                       size_t var_size, char *why, size_t why_size)
{
    const psrc_known *k = NULL;
    for (size_t i = 0; i < sizeof PSRC_KNOWN / sizeof PSRC_KNOWN[0]; i++)
        if (strcmp(PSRC_KNOWN[i].name, psrc) == 0)
            k = &PSRC_KNOWN[i];
    snprintf(why, why_size, "which bulkfleet does not run");
    size_t wl = strlen(why);
    if (k == NULL)
        return NULL;
    char *py_path = bf_asprintf("%s/%s", dir, pyname), *raw = NULL;
    size_t py_len = 0;
    bf_diag_t d = {0};
    int rc = read_file(py_path, &raw, &py_len, &d);
    free(py_path);
    if (rc != BF_OK) {
        snprintf(why + wl, why_size - wl, " (and %s is not beside the track)", pyname);
        return NULL;
    }
    char *py = squeeze(raw, py_len);
    free(raw);
    char reg[256], cls[128], rnd[64], must[96];
    snprintf(reg, sizeof reg, "register_param_source(\"%s\",%s)", k->name, k->cls);
    snprintf(cls, sizeof cls, "class%s(QueryParamSource):", k->cls);
    snprintf(rnd, sizeof rnd, "str(random.randint(1,%d))", k->rand_max);
    snprintf(must, sizeof must, "\"must\":[{\"match\":{\"feature_class.raw\":\"%s\"}}",
             k->must ? k->must : "");
    const char *c = strstr(py, cls);
    /* up to the next class's header, or register() ("class" alone is in "feature_class") */
    const char *end = c ? strstr(c + strlen(cls), "(QueryParamSource):") : NULL;
    const char *reg_at = c ? strstr(c + strlen(cls), "defregister(") : NULL;
    if (end == NULL || (reg_at && reg_at < end))
        end = reg_at;
    if (end == NULL && c)
        end = c + strlen(c);
    size_t span = c ? (size_t)(end - c) : 0;
    int same = strstr(py, reg) && c && memmem(c, span, k->shape, strlen(k->shape)) &&
               memmem(c, span, rnd, strlen(rnd)) && strstr(py, "os.path.join(cwd,\"terms.txt\")") &&
               (!k->must || memmem(c, span, must, strlen(must)));
    free(py);
    if (!same) {
        snprintf(why + wl, why_size - wl,
                 " (its class is not geonames' %s as published, which bulkfleet can write as a "
                 "query)",
                 k->cls);
        return NULL;
    }
    char *tp = bf_asprintf("%s/terms.txt", dir), *terms = NULL;
    size_t tl = 0;
    rc = read_file(tp, &terms, &tl, &d);
    free(tp);
    if (rc != BF_OK) {
        snprintf(why + wl, why_size - wl, " (terms.txt, which it reads, is not beside it)");
        return NULL;
    }
    /* the values as track.py reads them: every line, stripped */
    json_t *list = json_array();
    for (char *line = terms; line < terms + tl;) {
        char *nl = memchr(line, '\n', (size_t)(terms + tl - line));
        char *e = nl ? nl : terms + tl;
        char *a = line, *b = e;
        while (a < b && isspace((unsigned char)*a))
            a++;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        json_array_append_new(list, json_stringn(a, (size_t)(b - a)));
        line = nl ? nl + 1 : e;
    }
    free(terms);
    json_array_append_new(list, json_string(PSRC_RANDOM));
    json_t *tq = json_pack("{s:{s:o}}", "terms", "name.raw", list);
    json_t *q = k->must ? json_pack("{s:{s:[{s:{s:s}}], s:[o]}}", "bool", "must", "match",
                                    "feature_class.raw", k->must, k->clause, tq)
                        : tq;
    json_t *body = json_pack("{s:o}", "query", q);
    char *txt = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    snprintf(var, var_size, "rally_random_%d", k->rand_max);
    /* the random value where the marker is (a string, as Rally's str()) */
    bf_buf_t out;
    bf_buf_init(&out, 0);
    const char *m = txt ? strstr(txt, PSRC_RANDOM) : NULL;
    if (m == NULL) {
        free(txt);
        return NULL;
    }
    bf_buf_append(&out, txt, (size_t)(m - txt));
    bf_buf_appendf(&out, "$[[%s]]%s", var, m + strlen(PSRC_RANDOM));
    free(txt);
    return bf_buf_steal(&out);
}

static int is_search_type(const char *type)
{
    return strcmp(type, "search") == 0 || strcmp(type, "paginated-search") == 0 ||
           strcmp(type, "scroll-search") == 0 || strcmp(type, "composite-agg") == 0;
}

/* what the campaign does instead of an administrative operation, or NULL */
static const char *mapped_admin(const char *type)
{
    static const struct {
        const char *type, *what;
    } map[] = {
        {"delete-index", "each cell deletes and creates its index (index.recreate: true)"},
        {"create-index",
         "each cell creates its index with the track's body (index.recreate: true)"},
        {"cluster-health", "each cell waits for its index to be allocated before the load"},
        {"refresh", "each cell refreshes its index before counting the documents (_refresh)"},
        {"put-settings", "cluster settings are not changed by bulkfleet: set them on the cluster "
                         "before the run"},
        {"wait-for-recovery", "each cell waits for its index to be allocated before the load"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(type, map[i].type) == 0)
            return map[i].what;
    return NULL;
}

/* a query name: letters, digits, '_', '-', '.' only, at most 63, unique in acc */
static void query_name(const task_acc *acc, const char *want, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = want; *p && n + 1 < size && n < 56; p++)
        out[n++] = (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.') ? *p : '_';
    out[n] = '\0';
    if (n == 0)
        bf_strlcpy(out, "query", size);
    char base[64];
    bf_strlcpy(base, out, sizeof base);
    for (int k = 2;; k++) {
        int clash = 0;
        size_t i;
        json_t *q;
        json_array_foreach(acc->queries, i, q) if (strcmp(str_of(q, "name"), out) == 0) clash = 1;
        if (!clash)
            return;
        snprintf(out, size, "%s-%d", base, k);
    }
}

static void account_task(task_acc *acc, json_t *t, json_t *op, const char *type, const char *tpath)
{
    acc->total++;
    const char *tn = str_of(t, "name")          ? str_of(t, "name")
                     : op && str_of(op, "name") ? str_of(op, "name")
                                                : type;
    const char *admin = mapped_admin(type);
    if (admin) {
        acc->mapped++;
        bf_buf_appendf(&acc->notes, "#  - task '%s' (%s): %s\n", tn, type, admin);
        return;
    }
    if (op == NULL || !is_search_type(type)) {
        char *why = bf_asprintf("%s (%s)", tn, type);
        json_array_append_new(acc->skipped, json_string(why));
        free(why);
        return;
    }
    const char *psrc = str_of(op, "param-source");
    char *derived = NULL, var[64] = "";
    if (psrc) {
        /* Rally asks the track's Python for the request (body, index, cache): the operation's
         * own body, if any, is not what Rally sends, so nothing is imported under its name
         * unless the param-source is one whose query is known (psrc_body) */
        char because[256];
        derived = psrc_body(acc->dir, acc->pyname, psrc, var, sizeof var, because, sizeof because);
        if (derived == NULL) {
            char *why = bf_asprintf("%s (%s: its request comes from the param-source '%s' of the "
                                    "track's %s, %s)",
                                    tn, type, psrc, acc->pyname, because);
            json_array_append_new(acc->skipped, json_string(why));
            free(why);
            return;
        }
        if (strstr(acc->vars.data ? acc->vars.data : "", var) == NULL)
            bf_buf_appendf(&acc->vars, "  - {name: %s, type: range, from: 1, to: %s}\n", var,
                           strrchr(var, '_') + 1);
        bf_buf_appendf(&acc->notes,
                       "#  - task '%s' (%s): its body comes from the param-source '%s' of the "
                       "track's %s; written here as that class builds it (a terms query on "
                       "name.raw over the lines of terms.txt, and a random number from 1 to %s "
                       "appended as a string, as Rally does against the request cache: $[[%s]])\n",
                       tn, type, psrc, acc->pyname, strrchr(var, '_') + 1, var);
    }
    if (json_array_size(acc->queries) >= MAX_IMPORT_QUERIES) {
        char *why =
            bf_asprintf("%s (%s: search.queries holds at most %u)", tn, type, MAX_IMPORT_QUERIES);
        json_array_append_new(acc->skipped, json_string(why));
        free(why);
        return;
    }
    acc->searches++;
    char qn[64];
    query_name(acc, tn, qn, sizeof qn);
    bf_buf_t path;
    bf_buf_init(&path, 0);
    const char *ix = str_of(op, "index");
    bf_buf_appendz(&path, "/{index}/_search");
    char sep = '?';
    json_t *rp = json_object_get(op, "request-params");
    const char *k;
    json_t *v;
    json_object_foreach(rp, k, v)
    {
        char *vs = json_is_string(v) ? bf_strdup(json_string_value(v))
                                     : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        bf_buf_appendf(&path, "%c%s=%s", sep, k, vs ? vs : "");
        sep = '&';
        free(vs);
    }
    json_t *cache = json_object_get(op, "cache");
    if (json_is_boolean(cache) && !json_object_get(rp, "request_cache"))
        bf_buf_appendf(&path, "%crequest_cache=%s", sep, json_is_true(cache) ? "true" : "false");
    json_t *body = json_object_get(op, "body");
    char *bs = derived                ? derived
               : json_is_object(body) ? json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS)
                                      : bf_strdup("{\"query\":{\"match_all\":{}}}");
    json_t *q =
        json_pack("{s:s, s:s, s:s, s:s}", "name", qn, "path", path.data, "body", bs, "type", type);
    free(bs);
    bf_buf_cleanup(&path);
    /* Rally's scroll: scroll-search, or a search with "pages" (its query runner scrolls
     * then); paginated-search: search_after pages, in a point in time with
     * "with-point-in-time-from". Both become a page sequence of search_after (bulkfleet does not
     * scroll; a point in time for a scroll, whose pages it also reads from one view of the
     * index), sorted by _doc (a scroll's order) when the body has no sort */
    int scroll = strcmp(type, "scroll-search") == 0 ||
                 (strcmp(type, "search") == 0 && json_object_get(op, "pages") != NULL);
    if (scroll || strcmp(type, "paginated-search") == 0) {
        double size = count_of(json_object_get(op, "results-per-page"), 0);
        if (size <= 0)
            size = count_of(json_object_get(json_object_get(op, "body"), "size"), 10);
        if (size < 1)
            size = 10;
        if (size > 10000)
            size = 10000;
        json_t *pj = json_object_get(op, "pages");
        double pages = count_of(pj, 0);
        int all = pj == NULL || (json_is_string(pj) && strcmp(json_string_value(pj), "all") == 0);
        double depth = all || pages < 1 ? 10000000.0 : size * pages;
        if (depth > 10000000.0)
            depth = 10000000.0;
        json_object_set_new(q, "page_size", json_real(size));
        json_object_set_new(q, "depth", json_real(depth));
        json_object_set_new(q, "pit",
                            json_boolean(scroll || json_object_get(op, "with-point-in-time-from")));
        json_t *b = json_is_object(body) ? json_deep_copy(body)
                                         : json_pack("{s:{s:{}}}", "query", "match_all");
        json_object_del(b, "size");
        if (!json_object_get(b, "sort"))
            json_object_set_new(b, "sort", json_pack("[s]", "_doc"));
        char *pb = json_dumps(b, JSON_COMPACT | JSON_SORT_KEYS);
        json_object_set_new(q, "body", json_string(pb));
        free(pb);
        json_decref(b);
        char np[96];
        if (all)
            snprintf(np, sizeof np,
                     "pages: all, until a page has no hit (bounded at "
                     "10,000,000 hits)");
        else
            snprintf(np, sizeof np, "%.0f pages", pages);
        bf_buf_appendf(&acc->notes,
                       "#  - task '%s' (%s): %s %s of %.0f hits, imported as a paged query "
                       "(search_after%s); each page counts as one op (Rally counts the whole "
                       "sequence as one)\n",
                       tn, type, scroll ? "Rally scrolls" : "Rally pages with search_after", np,
                       size,
                       scroll ? " in a point in time: bulkfleet does not scroll, and both read "
                                "one view of the index; sorted by _doc, a scroll's order, when "
                                "the body has no sort"
                              : "");
    }
    /* the parallel block it is in ("/challenges/0/schedule/5"), or "": rally_account knows
     * whether a bulk task runs in the same block */
    const char *par = tpath ? strstr(tpath, "/parallel/") : NULL;
    json_object_set_new(q, "block",
                        par ? json_stringn(tpath, (size_t)(par - tpath)) : json_string(""));
    double tpd = count_of(json_object_get(t, "time-period"), 0);
    if (tpd > acc->search_period)
        acc->search_period = tpd;
    double twu = count_of(json_object_get(t, "warmup-time-period"), 0);
    if (twu > acc->search_warmup)
        acc->search_warmup = twu;
    acc->sum_clients += count_of(json_object_get(t, "clients"), 1);
    json_t *tt = json_object_get(t, "target-throughput");
    if (json_is_number(tt)) {
        acc->rate_sum += json_number_value(tt);
        json_object_set_new(q, "rate", json_real(json_number_value(tt)));
    } else {
        acc->all_rated = 0;
    }
    (void)ix; /* the cell's index: Rally's searches name the track's index */
    json_array_append_new(acc->queries, q);
}

/* a string as a YAML double-quoted scalar ("${" kept from the loader's environment) */
static void emit_str(bf_buf_t *y, const char *s)
{
    json_t *j = json_string(s);
    char *d = json_dumps(j, JSON_ENCODE_ANY);
    for (const char *p = d; p && *p; p++) {
        if (p[0] == '$' && p[1] == '{')
            bf_buf_appendz(y, "$$");
        else
            bf_buf_append(y, p, 1);
    }
    free(d);
    json_decref(j);
}

/* ---- bf_import_rally's steps ----------------------------------------------------------------
 * One import's state: the track and what the steps read from it, in the order they run
 * (rally_open, rally_params, rally_list or rally_schedule, rally_bulk_tasks, rally_corpora,
 * rally_index, rally_account, rally_write); rally_cleanup frees it whatever step failed. */
typedef struct rally {
    const bf_rally_opts_t *opts;
    bf_diag_t *diag;
    char *file, *dir; /* the track (or workload) file and its folder, absolute */
    const char *base; /* the folder's name: the scenario's and index's default name */
    json_t *track, *tasks, *task_paths, *body, *settings;
    bf_buf_t y, notes;   /* the scenario, and the header's notes */
    bf_buf_t other_bulk; /* types of indexing tasks that are not "bulk" */
    jposmap pos;
    bf_render_opts_t ro;
    track_src tsrc;
    task_acc acc;
    char *label; /* the track's name in positions: "FILE" or "FILE (rendered)" */
    track_ck ck;
    /* the schedule */
    json_t *schedule, *challenges;
    const char *ckey, *one_key; /* "challenges"/"challenge" or OSB's test_procedure(s) */
    const char *chosen;         /* the challenge's name, or NULL for the track's schedule */
    char sched_path[64];
    /* the bulk tasks */
    values batch, clients, rate;
    double warmup_s, period_s; /* the first bulk task's that has one, else -1 */
    json_t *first_bulk;        /* its corpora and indices name the documents files */
    json_t *bulk_blocks;       /* the parallel blocks holding a bulk task ("/.../schedule/5") */
    size_t nbulk;
    /* the corpora */
    json_t *files, *targets;
    json_t *file_targets; /* the target index of each file, in the order of files */
    int by_file;          /* each file into its own index: index.names, corpus.indices by_file */
    uint64_t ship_bytes;
    int bulk_format;        /* 1 action-and-meta-data lines, 0 sources, -1 none yet */
    size_t missing;         /* corpus files not downloaded yet */
    size_t npartial;        /* corpus files shorter than their document-count (allowed) */
    const char *only_index; /* the track's one index: a documents entry's default target */
    /* the index */
    size_t ntargets;
    const char *target;
    double shards, replicas;
} rally_t;

static void rally_cleanup(rally_t *R)
{
    json_decref(R->files);
    json_decref(R->file_targets);
    json_decref(R->targets);
    bf_buf_cleanup(&R->y);
    bf_buf_cleanup(&R->notes);
    bf_buf_cleanup(&R->other_bulk);
    json_decref(R->track);
    json_decref(R->tasks);
    json_decref(R->task_paths);
    json_decref(R->bulk_blocks);
    jp_cleanup(&R->pos);
    json_decref(R->acc.queries);
    json_decref(R->acc.skipped);
    bf_buf_cleanup(&R->acc.notes);
    bf_buf_cleanup(&R->acc.vars);
    json_decref(R->tsrc.bundle);
    free(R->label);
    json_decref(R->body);
    json_decref(R->settings);
    free(R->file);
    free(R->dir);
}

/* The track file of path (a folder's track.json, else its OpenSearch Benchmark
 * workload.json; or the file itself) and its folder, then the track loaded (rendered with
 * Jinja2 when it needs it). */
static int rally_open(rally_t *R, const char *path)
{
    char real[PATH_MAX];
    if (realpath(path, real) == NULL)
        return bf_diag_set(R->diag, errno == ENOENT ? BF_E_NOTFOUND : BF_E_IO,
                           "import-rally: %s: "
                           "%s",
                           path, strerror(errno));
    struct stat st;
    if (stat(real, &st) == 0 && S_ISDIR(st.st_mode)) {
        R->dir = bf_strdup(real);
        R->file = bf_asprintf("%s/track.json", real);
        if (!file_exists(R->file)) {
            free(R->file);
            R->file = bf_asprintf("%s/workload.json", real); /* OpenSearch Benchmark */
        }
    } else {
        R->file = bf_strdup(real);
        R->dir = bf_strdup(real);
        *strrchr(R->dir, '/') = '\0';
    }
    R->base = strrchr(R->dir, '/') ? strrchr(R->dir, '/') + 1 : R->dir;
    R->tsrc = (track_src){.track_file = R->file, .render = &R->ro, .bundle = NULL};
    R->ck = (track_ck){.file = R->file, .pos = &R->pos, .notes = &R->notes};
    int rc = load_json_at(&R->tsrc, R->file, NULL, &R->track, &R->pos, &R->label, R->diag);
    if (rc == BF_OK)
        R->ck.file = R->label;
    return rc;
}

/* the names of a JSON array of strings, ", "-separated, appended to b */
static void append_names(bf_buf_t *b, json_t *names)
{
    size_t ui;
    json_t *uv;
    json_array_foreach(names, ui, uv)
        bf_buf_appendf(b, "%s%s", ui ? ", " : "", json_string_value(uv));
}

/* The track parameters of a rendered track: one that no template reads is refused, as Rally
 * does (a typo would be another benchmark); the ones it reads are a header note. */
static int rally_params(rally_t *R)
{
    if (R->tsrc.bundle == NULL)
        return BF_OK;
    json_t *unused = json_object_get(R->tsrc.bundle, "unused");
    if (json_array_size(unused) > 0) {
        bf_buf_t u, known;
        bf_buf_init(&u, 0);
        bf_buf_init(&known, 0);
        append_names(&u, unused);
        append_names(&known, json_object_get(R->tsrc.bundle, "params"));
        int rc = bf_diag_set(R->diag, BF_E_INVAL,
                             "%s: --track-params: %s %s not read by any template of this track "
                             "(as Rally, import-rally refuses them: a misspelt parameter would "
                             "silently be another benchmark); the track reads: %s",
                             R->file, u.data, json_array_size(unused) > 1 ? "are" : "is",
                             known.len ? known.data : "none");
        bf_buf_cleanup(&u);
        bf_buf_cleanup(&known);
        return rc;
    }
    json_t *pr = json_object_get(R->tsrc.bundle, "params");
    if (json_array_size(pr) > 0) {
        bf_buf_appendz(&R->notes, "#  - rendered with Jinja2 as Rally does; the track's "
                                  "parameters (--track-params k:v,... to set them): ");
        append_names(&R->notes, pr);
        bf_buf_appendf(&R->notes, "%s%s\n", R->opts->track_params ? "; given: " : "",
                       R->opts->track_params ? R->opts->track_params : "");
    }
    return BF_OK;
}

/* --list: every challenge (or test procedure) with its task count, the default marked; the
 * track's own schedule when it has no challenge. Caller frees. */
static char *rally_list(const rally_t *R)
{
    json_t *track = R->track;
    bf_buf_t l;
    bf_buf_init(&l, 0);
    size_t li;
    json_t *lc;
    json_t *all = json_is_array(R->challenges) ? json_incref(R->challenges) : json_array();
    if (json_is_object(json_object_get(track, R->one_key)))
        json_array_append(all, json_object_get(track, R->one_key));
    json_array_foreach(all, li, lc)
    {
        json_t *lt = json_array(), *lp = json_array();
        collect_tasks(json_object_get(lc, "schedule"), lt, "", lp);
        bf_buf_appendf(&l, "%s\t%zu tasks%s%s%s\n", str_of(lc, "name") ? str_of(lc, "name") : "?",
                       json_array_size(lt),
                       json_is_true(json_object_get(lc, "default")) ? "\tdefault" : "",
                       str_of(lc, "description") ? "\t" : "",
                       str_of(lc, "description") ? str_of(lc, "description") : "");
        json_decref(lt);
        json_decref(lp);
    }
    if (json_array_size(all) == 0 && json_is_array(json_object_get(track, "schedule"))) {
        json_t *lt = json_array(), *lp = json_array();
        collect_tasks(json_object_get(track, "schedule"), lt, "", lp);
        bf_buf_appendf(&l, "(the track's schedule)\t%zu tasks\tdefault\n", json_array_size(lt));
        json_decref(lt);
        json_decref(lp);
    }
    json_decref(all);
    char *text = bf_buf_steal(&l);
    return text ? text : bf_strdup("");
}

/* Where the challenges are: "challenges" / "challenge", or OpenSearch Benchmark's
 * "test_procedures" / "test_procedure". */
static void rally_challenges(rally_t *R)
{
    R->schedule = json_object_get(R->track, "schedule");
    R->ckey = json_object_get(R->track, "challenges") ? "challenges" : "test_procedures";
    R->challenges = json_object_get(R->track, R->ckey);
    R->one_key = json_object_get(R->track, "challenge") ? "challenge" : "test_procedure";
    snprintf(R->sched_path, sizeof R->sched_path, "/schedule");
}

/* The schedule: the --challenge named (an error when there is none of that name), else the
 * default challenge, else the first; a single challenge object; else the track's own. Its
 * tasks are collected in order with their JSON paths. */
static int rally_schedule(rally_t *R)
{
    const char *challenge = R->opts->challenge;
    json_t *challenges = R->challenges;
    if (json_is_array(challenges) && json_array_size(challenges) > 0) {
        json_t *ch = NULL, *c;
        size_t i, chi = 0;
        json_array_foreach(challenges, i, c)
        {
            const char *cn = str_of(c, "name");
            if (challenge ? cn && strcmp(cn, challenge) == 0
                          : json_is_true(json_object_get(c, "default"))) {
                ch = c;
                chi = i;
                break;
            }
        }
        if (ch == NULL && challenge)
            return bf_diag_set(R->diag, BF_E_INVAL,
                               "%s: no %s named '%s'; the track has %zu (import-rally --list "
                               "names them)",
                               R->file, R->ckey[0] == 'c' ? "challenge" : "test procedure",
                               challenge, json_array_size(challenges));
        if (ch == NULL)
            ch = json_array_get(challenges, 0);
        R->chosen = str_of(ch, "name");
        R->schedule = json_object_get(ch, "schedule");
        snprintf(R->sched_path, sizeof R->sched_path, "/%s/%zu/schedule", R->ckey, chi);
    } else if (json_is_object(json_object_get(R->track, R->one_key))) {
        json_t *ch = json_object_get(R->track, R->one_key);
        R->chosen = str_of(ch, "name");
        R->schedule = json_object_get(ch, "schedule");
        snprintf(R->sched_path, sizeof R->sched_path, "/%s/schedule", R->one_key);
    }
    if (!json_is_array(R->schedule))
        return bf_diag_set(R->diag, BF_E_INVAL,
                           "%s: no schedule (neither \"schedule\" nor a challenge with one: "
                           "\"challenges\", \"challenge\", or OpenSearch Benchmark's "
                           "\"test_procedures\", \"test_procedure\")",
                           R->file);
    collect_tasks(R->schedule, R->tasks, R->sched_path, R->task_paths);
    return BF_OK;
}

/* One bulk task t (its operation op at opath, the task at tpath; `what` names it in
 * messages): its keys checked against Rally's reference (a misspelling is an error), its
 * bulk-size (required) a batch_size value, clients a concurrency value, target-throughput
 * (bulk requests/s, the task's or else the operation's) x bulk-size a target_rate value; the
 * first warmup-time-period and time-period found are the run's. */
static int rally_bulk_task(rally_t *R, json_t *t, json_t *op, const char *opath, const char *tpath,
                           const char *what)
{
    track_ck *ck = &R->ck;
    bf_diag_t *diag = R->diag;
    double v;
    int rc = check_keys(ck, t, tpath ? tpath : "", TASK_KEYS, what, diag);
    if (rc == BF_OK && json_is_object(op))
        rc = check_keys(ck, op, opath, BULK_KEYS, what, diag);
    if (rc != BF_OK)
        return rc;
    int have = check_num(ck, op, opath, "bulk-size", 1, 1, " (documents)", what, &v, diag);
    if (have < 0)
        return have;
    if (have == 0) {
        char where[1200];
        jp_where(&R->pos, R->file, opath, where, sizeof where);
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s: %s has no \"bulk-size\" (documents per bulk request, which "
                           "Rally requires); add one, e.g. \"bulk-size\": 1000",
                           where, what);
    }
    add_value(&R->batch, v);
    double cl = 1, tp = 0, wu = -1, tpd = -1, ru = 0;
    const char *tpk = tpath ? tpath : "";
    /* in file order of Rally's reference, the first wrong one reported */
    struct {
        const char *key, *unit;
        double min, *v;
        int whole;
    } nums[] = {{"clients", "", 1, &cl, 1},
                {"warmup-time-period", " (seconds)", 0, &wu, 0},
                {"time-period", " (seconds)", 0, &tpd, 0},
                {"target-throughput", " (bulk requests per second)", 0, &tp, 0},
                {"ramp-up-time-period", " (seconds)", 0, &ru, 0}};
    int got[5];
    for (size_t g = 0; g < 5; g++) {
        got[g] = check_num(ck, t, tpk, nums[g].key, nums[g].min, nums[g].whole, nums[g].unit, what,
                           nums[g].v, diag);
        if (got[g] < 0)
            return got[g];
    }
    add_value(&R->clients, cl);
    if (got[3] == 0) {
        int og = check_num(ck, op, opath, "target-throughput", 0, 0, " (bulk requests per second)",
                           what, &tp, diag);
        if (og < 0)
            return og;
        got[3] = og;
    }
    if (got[3] > 0)
        add_value(&R->rate, tp * (R->batch.n ? R->batch.v[R->batch.n - 1] : 1));
    else
        add_value(&R->rate, 0);
    if (R->warmup_s < 0 && got[1] > 0)
        R->warmup_s = wu;
    if (R->period_s < 0 && got[2] > 0)
        R->period_s = tpd;
    if (R->first_bulk == NULL)
        R->first_bulk = op;
    if (json_object_get(t, "iterations") || json_object_get(t, "warmup-iterations"))
        bf_buf_appendz(&R->notes, "#  - iterations are not imported: a cell runs for a time, "
                                  "or reads its corpus once\n");
    return BF_OK;
}

/* Every task of the schedule: its operation resolved by name ("operations"; a name without a
 * definition is one of Rally's built-in operations, whose name is its type), each bulk task
 * read by rally_bulk_task, every other accounted (account_task); a schedule without a bulk
 * task is an error. */
static int rally_bulk_tasks(rally_t *R)
{
    json_t *ops = json_object_get(R->track, "operations");
    R->acc.dir = R->dir;
    size_t fl = strlen(R->file);
    R->acc.pyname =
        fl >= 13 && strcmp(R->file + fl - 13, "workload.json") == 0 ? "workload.py" : "track.py";
    size_t i;
    json_t *t;
    json_array_foreach(R->tasks, i, t)
    {
        const char *tpath = json_string_value(json_array_get(R->task_paths, i));
        char opath[1100];
        snprintf(opath, sizeof opath, "%s/operation", tpath ? tpath : "");
        json_t *op = json_object_get(t, "operation");
        if (json_is_string(op)) {
            const char *on = json_string_value(op);
            json_t *found = NULL, *o;
            size_t k;
            json_array_foreach(ops, k, o)
            {
                const char *n2 = str_of(o, "name");
                if (n2 && strcmp(n2, on) == 0) {
                    found = o;
                    snprintf(opath, sizeof opath, "/operations/%zu", k);
                }
            }
            if (found == NULL) {
                account_task(&R->acc, t, NULL, on, tpath);
                continue;
            }
            op = found;
        }
        const char *type = str_of(op, "operation-type");
        if (type == NULL || strcmp(type, "bulk") != 0) {
            account_task(&R->acc, t, op, type ? type : "?", tpath);
            /* indexing of another kind, named if no bulk task is found */
            if (type && (strstr(type, "bulk") || strstr(type, "ingest")) &&
                !strstr(R->other_bulk.data ? R->other_bulk.data : "", type))
                bf_buf_appendf(&R->other_bulk, "%s'%s'", R->other_bulk.len ? ", " : "", type);
            continue;
        }
        R->acc.bulk++;
        R->acc.total++;
        R->nbulk++;
        const char *par = tpath ? strstr(tpath, "/parallel/") : NULL;
        if (par)
            json_array_append_new(R->bulk_blocks, json_stringn(tpath, (size_t)(par - tpath)));
        /* named for messages: the operation's name, else the task's, else its place */
        char what[400];
        const char *opn = str_of(op, "name") ? str_of(op, "name") : str_of(t, "name");
        if (opn)
            snprintf(what, sizeof what, "bulk task '%s'", opn);
        else
            snprintf(what, sizeof what, "bulk task %zu of the schedule", i + 1);
        int rc = rally_bulk_task(R, t, op, opath, tpath, what);
        if (rc != BF_OK)
            return rc;
    }
    if (R->nbulk == 0)
        return bf_diag_set(R->diag, BF_E_INVAL,
                           "%s: the %s%s%s schedule has no bulk task "
                           "(operation-type \"bulk\"); bulkfleet imports bulk indexing%s%s%s",
                           R->file, R->chosen ? "challenge '" : "",
                           R->chosen ? R->chosen : "track's", R->chosen ? "'" : "",
                           R->other_bulk.len ? "; its indexing tasks are operation-type " : "",
                           R->other_bulk.len ? R->other_bulk.data : "",
                           R->other_bulk.len ? ", which bulkfleet does not send (it sends "
                                               "bulk bodies from a corpus file or a template)"
                                             : "");
    return BF_OK;
}

/* The track's "document-count" of documents entry e (corpus cn, entry k of corpus i; its
 * file src found at cf, bulk format or not) against the file: Rally reads the file by that
 * count, so another count (a truncated download, or another file's) is an error that says
 * both. */
static int rally_document_count(rally_t *R, json_t *e, size_t i, size_t k, const char *cn,
                                const char *src, const char *cf, int bulk)
{
    json_t *dc = json_object_get(e, "document-count");
    if (dc == NULL)
        return BF_OK;
    char dpath[200], where[1200];
    snprintf(dpath, sizeof dpath, "/corpora/%zu/documents/%zu", i, k);
    char *dwhat = bf_asprintf("corpus '%s', file '%s'", cn ? cn : "?", src);
    double want = 0;
    int g =
        check_num(&R->ck, e, dpath, "document-count", 0, 1, " (documents)", dwhat, &want, R->diag);
    free(dwhat);
    if (g < 0)
        return g;
    bf_corpus_t *cc = NULL;
    bf_diag_t cd = {0};
    if (bf_corpus_open_file(cf, bulk ? BF_CORPUS_BULK : BF_CORPUS_SOURCE, &cc, &cd) != BF_OK)
        return bf_diag_set(R->diag, cd.code ? cd.code : BF_E_PARSE, "%s", cd.msg);
    size_t have = bf_corpus_docs(cc) + bf_corpus_bad_count(cc);
    bf_corpus_destroy(&cc);
    if ((double)have < want && R->opts->allow_partial_corpus) {
        /* a prefix of the file, made on purpose (a small run of a big track) */
        if (R->npartial++ == 0) /* once; each file is in the notes */
            bf_warn("%s: corpus '%s': '%s' holds %zu of the track's "
                    "\"document-count\" %.0f documents (--allow-partial-corpus: "
                    "the scenario reads the %zu; every such file is named in "
                    "the scenario's notes)",
                    R->file, cn ? cn : "?", cf, have, want, have);
        bf_buf_appendf(&R->notes,
                       "#  - corpus file %s holds %zu of the track's "
                       "document-count %.0f (--allow-partial-corpus)\n",
                       cf, have, want);
    } else if ((double)have != want) {
        char dcp[260];
        snprintf(dcp, sizeof dcp, "%s/document-count", dpath);
        jp_where(&R->pos, R->file, dcp, where, sizeof where);
        return bf_diag_set(R->diag, BF_E_INVAL,
                           "%s: corpus '%s': \"document-count\" is %.0f but '%s' "
                           "holds %zu documents: download the file again (a "
                           "truncated download?), or write \"document-count\": "
                           "%zu%s",
                           where, cn ? cn : "?", want, cf, have, have,
                           (double)have < want ? " (or, for a prefix you made on purpose, "
                                                 "import with --allow-partial-corpus)"
                                               : "");
    }
    return BF_OK;
}

/* One documents entry e of corpus c (entry k of corpus i): its file looked for where users
 * keep corpora (beside the track, Rally's and OpenSearch Benchmark's data directories,
 * --corpus-dir), one format for all files; a file not downloaded yet is a warning and a note
 * (validate refuses it later), a downloaded one is checked by rally_document_count. The file
 * and its target index are added. */
static int rally_corpus_file(rally_t *R, json_t *c, json_t *e, size_t i, size_t k)
{
    const char *cn = str_of(c, "name");
    const char *src = str_of(e, "source-file");
    const char *target =
        str_of(e, "target-index") ? str_of(e, "target-index") : str_of(c, "target-index");
    if (target == NULL)
        target = R->only_index;
    json_t *want_indices = json_object_get(R->first_bulk, "indices");
    if (want_indices && !name_listed(want_indices, target ? target : ""))
        return BF_OK;
    if (src == NULL)
        return bf_diag_set(R->diag, BF_E_INVAL,
                           "%s: corpus '%s', documents entry %zu has no source-file", R->file,
                           cn ? cn : "?", k + 1);
    json_t *fmt = json_object_get(e, "includes-action-and-meta-data");
    if (fmt == NULL)
        fmt = json_object_get(c, "includes-action-and-meta-data");
    int bf = json_is_true(fmt);
    if (R->bulk_format >= 0 && bf != R->bulk_format)
        return bf_diag_set(R->diag, BF_E_INVAL,
                           "%s: corpus '%s': '%s' %s action-and-meta-data lines and an "
                           "earlier file does not; one scenario corpus has one format "
                           "(import the files separately with --challenge, or make them "
                           "alike)",
                           R->file, cn ? cn : "?", src, bf ? "includes" : "has no");
    R->bulk_format = bf;
    const char *corpus_dir = R->opts->corpus_dir;
    char *cf = find_corpus(R->dir, cn ? cn : "", src, corpus_dir);
    if (cf == NULL) {
        const char *url = str_of(e, "base-url") ? str_of(e, "base-url") : str_of(c, "base-url");
        cf = bf_asprintf("%s/%s", R->dir, src);
        /* the file's own address, as Rally downloads it: <base-url>/<source-file> */
        size_t ul = url ? strlen(url) : 0;
        while (ul > 0 && url[ul - 1] == '/')
            ul--;
        char *get =
            url ? bf_asprintf(": curl -fL -o '%s' %.*s/%s", cf, (int)ul, url, src) : bf_strdup("");
        bf_buf_t looked;
        bf_buf_init(&looked, 0);
        char *caches[MAX_CACHES];
        size_t nc = corpus_caches(caches);
        for (size_t ci = 0; ci < nc; ci++) {
            bf_buf_appendf(&looked, ", %s/%s", caches[ci], cn ? cn : "?");
            free(caches[ci]);
        }
        bf_warn("%s: corpus '%s': '%s' is not downloaded yet (looked in %s%s%s%s, each "
                "also without its compression suffix); the scenario names %s: download "
                "it there before validate / run%s",
                R->file, cn ? cn : "?", src, R->dir, looked.len ? looked.data : "",
                corpus_dir ? ", " : "", corpus_dir ? corpus_dir : "", cf, get);
        bf_buf_cleanup(&looked);
        bf_buf_appendf(&R->notes,
                       "#  - corpus file not downloaded yet: %s (validate and run need it)%s\n", cf,
                       get);
        free(get);
        R->missing++;
    } else {
        struct stat cst;
        stat(cf, &cst);
        R->ship_bytes += (uint64_t)cst.st_size;
        int rc = rally_document_count(R, e, i, k, cn, src, cf, bf);
        if (rc != BF_OK) {
            free(cf);
            return rc;
        }
    }
    json_array_append_new(R->files, json_string(cf));
    json_array_append_new(R->file_targets, json_string(target ? target : ""));
    free(cf);
    if (target && !name_listed(R->targets, target))
        json_array_append_new(R->targets, json_string(target));
    return BF_OK;
}

/* The corpora: every documents file of the corpora the (first) bulk operation names (all of
 * the track's when it names none), only those whose target is in its "indices" when it has
 * that filter; Rally's corpus-level properties are defaults for its documents. None at all
 * is an error. */
static int rally_corpora(rally_t *R)
{
    json_t *want_corpora = json_object_get(R->first_bulk, "corpora");
    json_t *want_indices = json_object_get(R->first_bulk, "indices");
    json_t *corpora = json_object_get(R->track, "corpora"), *c;
    size_t i;
    /* Rally (and OpenSearch Benchmark) derive a documents entry's target-index when the track
     * defines exactly one index (neural_search's corpora name none) */
    json_t *track_indices = json_object_get(R->track, "indices");
    R->only_index = json_array_size(track_indices) == 1
                        ? str_of(json_array_get(track_indices, 0), "name")
                        : NULL;
    json_array_foreach(corpora, i, c)
    {
        const char *cn = str_of(c, "name");
        if (!json_is_null(want_corpora) && want_corpora != NULL &&
            !name_listed(want_corpora, cn ? cn : ""))
            continue;
        json_t *dd = json_object_get(c, "documents"), *e;
        size_t k;
        json_array_foreach(dd, k, e)
        {
            int rc = rally_corpus_file(R, c, e, i, k);
            if (rc != BF_OK)
                return rc;
        }
    }
    if (json_array_size(R->files) == 0) {
        char *wc = want_corpora ? json_dumps(want_corpora, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        char *wi = want_indices ? json_dumps(want_indices, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        int empty = (wc && strstr(wc, "\"\"")) || (wi && strstr(wi, "\"\""));
        const char *ps = str_of(R->first_bulk, "param-source");
        int rc = bf_diag_set(R->diag, BF_E_INVAL,
                             "%s: the bulk operation's corpora have no documents file%s (the "
                             "operation names corpora %s, indices %s; see the track's "
                             "\"corpora\" and the operation's \"corpora\" / \"indices\")%s",
                             R->file, want_indices ? " for its indices" : "", wc ? wc : "(all)",
                             wi ? wi : "(any)",
                             empty ? "; an empty name is a track parameter without a default: "
                                     "give the track's parameters with --track-params "
                                     "FILE.json (a workload's params/*.json)"
                             : ps  ? "; the bulk operation takes its documents from the "
                                     "param-source of the track's own Python (track.py), which "
                                     "bulkfleet does not run: write a corpus file, or a template "
                                     "(docs/scenario.md)"
                                   : "");
        free(wc);
        free(wi);
        return rc;
    }
    return BF_OK;
}

/* A note naming the track's indices no imported bulk task writes (nyc_taxis' 4 lookup
 * indices). */
static void rally_other_indices(rally_t *R, json_t *indices)
{
    bf_buf_t other;
    bf_buf_init(&other, 0);
    size_t nother = 0, i;
    json_t *c;
    json_array_foreach(indices, i, c)
    {
        const char *in = str_of(c, "name");
        if (in == NULL || (R->target && strcmp(in, R->target) == 0) || name_listed(R->targets, in))
            continue;
        bf_buf_appendf(&other, "%s%s", nother++ ? ", " : "", in);
    }
    bf_buf_t mine;
    bf_buf_init(&mine, 0);
    if (json_array_size(R->targets))
        append_names(&mine, R->targets);
    else
        bf_buf_appendz(&mine, R->target ? R->target : "its index");
    if (nother)
        bf_buf_appendf(&R->notes,
                       "#  - not imported: the track's other %zu ind%s (%s): the imported "
                       "bulk task does not write %s; the scenario creates and loads %s "
                       "only (import another challenge, or write a scenario per index)\n",
                       nother, nother == 1 ? "ex" : "ices", other.data, nother == 1 ? "it" : "them",
                       mine.data);
    bf_buf_cleanup(&mine);
    bf_buf_cleanup(&other);
}

/* The index and its body: the bulk task's first target (else the track's first index), its
 * body file's settings (shards and replicas become matrix axes) and mappings; notes for data
 * streams and for a bulk task that writes several indices (index.count, round-robin). */
static int rally_index(rally_t *R)
{
    R->ntargets = json_array_size(R->targets);
    R->target = R->ntargets ? json_string_value(json_array_get(R->targets, 0)) : NULL;
    json_t *indices = json_object_get(R->track, "indices"), *ix = NULL, *c;
    size_t i;
    json_array_foreach(indices, i, c)
    {
        const char *in = str_of(c, "name");
        if (R->target == NULL || (in && strcmp(in, R->target) == 0)) {
            ix = c;
            break;
        }
    }
    if (R->target == NULL)
        R->target = str_of(ix, "name");
    if (R->target == NULL && json_object_get(R->track, "data-streams"))
        bf_buf_appendz(&R->notes, "#  - the track writes to data streams; set index.template "
                                  "with data_stream: {} (docs/scenario.md) to do the same\n");
    R->shards = 1;
    R->replicas = 0;
    const char *body_file = str_of(ix, "body");
    if (body_file) {
        char *bp = bf_asprintf("%s/%s", R->dir, body_file);
        int rc = load_json_at(&R->tsrc, bp, body_file, &R->body, NULL, NULL, R->diag);
        free(bp);
        if (rc != BF_OK)
            return rc;
        R->settings =
            split_settings(json_object_get(R->body, "settings"), &R->shards, &R->replicas);
    }
    rally_other_indices(R, indices);
    /* several targets: each file into its own index, as Rally does, when every file has its
     * own (http_logs' seven days); else round-robin over index.count names, said */
    R->by_file = R->ntargets > 1 && json_array_size(R->file_targets) == R->ntargets;
    if (R->by_file) {
        bf_buf_appendf(&R->notes, "#  - the bulk task writes %zu indices, one per corpus file (",
                       R->ntargets);
        append_names(&R->notes, R->file_targets);
        bf_buf_appendf(&R->notes,
                       "): here too, with their names (index.names) and each file's documents "
                       "in its own index (document.corpus.indices: by_file), all created with "
                       "the body of %s; each client reads a contiguous slice of the files one "
                       "after the other, where Rally gives each client a slice of every file (so "
                       "Rally's clients write one index at a time, bulkfleet's may write "
                       "several at once)\n",
                       R->target);
        size_t ti;
        json_t *tv;
        json_array_foreach(indices, ti, tv)
        {
            const char *in = str_of(tv, "name");
            if (in && name_listed(R->targets, in) && str_of(tv, "body") && body_file &&
                strcmp(str_of(tv, "body"), body_file) != 0)
                bf_buf_appendf(&R->notes,
                               "#  - index %s has its own body in the track (%s); here it is "
                               "created with %s's (%s)\n",
                               in, str_of(tv, "body"), R->target, body_file);
        }
    } else if (R->ntargets > 1) {
        bf_buf_appendf(&R->notes, "#  - the bulk task writes %zu indices (", R->ntargets);
        append_names(&R->notes, R->targets);
        bf_buf_appendf(&R->notes,
                       "); several files write one of them, so here index.count: %zu indices "
                       "named %s-0 .. %s-%zu with the body of %s, and every file's documents go "
                       "round-robin over all of them\n",
                       R->ntargets, R->target, R->target, R->ntargets - 1, R->target);
    }
    return BF_OK;
}

/* Every task accounted for: the mapped ones' notes, the searches imported, each task not
 * imported named in the notes, and one line with the counts on stderr (a warning when some
 * were left out). */
static void rally_account(rally_t *R)
{
    task_acc *acc = &R->acc;
    if (acc->notes.len)
        bf_buf_appendz(&R->notes, acc->notes.data);
    size_t qi;
    json_t *q;
    json_array_foreach(acc->queries, qi, q)
    {
        const char *blk = str_of(q, "block");
        if (blk && *blk && name_listed(R->bulk_blocks, blk))
            acc->beside++;
        else
            acc->after++;
    }
    const char *rate = acc->all_rated && acc->rate_sum > 0
                           ? "target_rate: the sum of their target-throughputs, each query's "
                             "weight its target-throughput x 10, so each runs at its own rate"
                           : "weight 1 each, closed loop: not every search has a "
                             "target-throughput";
    if (acc->searches && acc->after == 0)
        bf_buf_appendf(&R->notes,
                       "#  - %zu search task%s imported as search.queries: Rally runs %s in a "
                       "parallel block with the bulk task, so here %s one mix beside the load "
                       "in each cell (%s; clients: the sum of the tasks' clients)\n",
                       acc->searches, acc->searches > 1 ? "s" : "",
                       acc->searches > 1 ? "them" : "it", acc->searches > 1 ? "they are" : "it is",
                       rate);
    else if (acc->searches)
        bf_buf_appendf(&R->notes,
                       "#  - %zu search task%s imported as search.queries: Rally runs %s after "
                       "the load, one task after the other; here the load cells have no search "
                       "client (search_clients: 0) and one search-only cell after them "
                       "(concurrency: 0, the index the load left: search.recreate false) runs "
                       "them as one mix (%s; clients: the sum of the tasks' clients) for "
                       "search.duration%s\n",
                       acc->searches, acc->searches > 1 ? "s" : "",
                       acc->searches > 1 ? "them" : "it", rate,
                       acc->beside ? "; the ones in Rally's parallel block with the bulk task "
                                     "run there too, not beside the load"
                                   : "");
    size_t nskip = json_array_size(acc->skipped);
    bf_buf_t sk;
    bf_buf_init(&sk, 0);
    size_t si;
    json_t *sv;
    json_array_foreach(acc->skipped, si, sv)
    {
        bf_buf_appendf(&sk, "%s%s", si ? ", " : "", json_string_value(sv));
        bf_buf_appendf(&R->notes, "#  - not imported: task %s\n", json_string_value(sv));
    }
    char line[160];
    snprintf(line, sizeof line,
             "%zu tasks: %zu bulk, %zu search%s imported, %zu mapped to what each cell does",
             acc->total, acc->bulk, acc->searches, acc->searches == 1 ? "" : "es", acc->mapped);
    const char *chosen = R->chosen;
    if (nskip)
        bf_warn("%s: %s; %zu not imported: %s", chosen ? chosen : "schedule", line, nskip, sk.data);
    else
        bf_info("%s: %s; none left out", chosen ? chosen : "schedule", line);
    bf_buf_appendf(&R->notes, "#  - %s; %zu not imported\n", line, nskip);
    bf_buf_cleanup(&sk);
}

/* a target_rate axis is written: some bulk task has a target-throughput */
static int rally_rated(const rally_t *R)
{
    return R->rate.n > 1 || (R->rate.n == 1 && R->rate.v[0] > 0);
}

/* The scenario's head (origin, notes), name, target and index (settings, mappings). */
static void rally_write_index(rally_t *R)
{
    bf_buf_t *y = &R->y;
    const char *chosen = R->chosen;
    const char *ixname = R->target ? R->target : R->base;
    /* the one place the production-name caution is said for the track's own name:
     * index.imported_name keeps validate and plan from repeating it (docs/scenario.md "index") */
    if (bf_cluster_production_like(ixname))
        bf_buf_appendf(&R->notes,
                       "#  - index.name %s is the track's own and looks like a production index "
                       "name: a run creates it, deletes only an index bulkfleet created and "
                       "refuses (exit 3, nothing deleted) an existing %s it did not create; "
                       "index.imported_name marks it as the track's, so validate and plan do not "
                       "warn about it (they do once index.name is changed)\n",
                       ixname, ixname);
    bf_buf_appendf(y, "# Imported from %s by bulkfleet-coordinator import-rally%s%s%s.\n", R->file,
                   chosen ? " (challenge " : "", chosen ? chosen : "", chosen ? ")" : "");
    if (rally_rated(R))
        bf_buf_appendz(y, "# Rally's target-throughput counts bulk requests/s; target_rate here "
                          "is docs/s (x bulk-size).\n");
    if (R->notes.len)
        bf_buf_appendf(y, "# Notes:\n%s", R->notes.data);
    bf_buf_appendf(y, "name: %s\n", R->opts->name ? R->opts->name : R->base);
    bf_buf_appendz(y, "target:\n  hosts: [\"${BF_TARGET:-http://127.0.0.1:9200}\"]\n");
    bf_buf_appendf(y, "index:\n  name: %s\n  imported_name: %s\n  recreate: true\n", ixname,
                   ixname);
    if (R->by_file) {
        bf_buf_appendz(y, "  names: [");
        for (size_t f = 0; f < json_array_size(R->file_targets); f++)
            bf_buf_appendf(y, "%s%s", f ? ", " : "",
                           json_string_value(json_array_get(R->file_targets, f)));
        bf_buf_appendz(y, "]\n");
    } else if (R->ntargets > 1) {
        bf_buf_appendf(y, "  count: %zu\n", R->ntargets);
    }
    if (R->settings && json_object_size(R->settings)) {
        bf_buf_appendz(y, "  settings: ");
        emit_json(y, R->settings);
        bf_buf_appendz(y, "\n");
    }
    json_t *mappings = json_object_get(R->body, "mappings");
    if (json_is_object(mappings) && json_object_size(mappings)) {
        bf_buf_appendz(y, "  mappings: ");
        emit_json(y, mappings);
        bf_buf_appendz(y, "\n");
    }
}

/* document: (the corpus files: local_path past what the coordinator ships, its format, read
 * once or in a loop for a time-period) and run: (warmup, and a duration: the time-period, a
 * corpus read once, or the searches' longest time-period, else 60 s, when searches keep the
 * cell running). */
static void rally_write_run(rally_t *R)
{
    bf_buf_t *y = &R->y;
    int local = R->ship_bytes > BF_MAX_CORPUS_SHIP_BYTES;
    if (R->acc.vars.len) /* what the searches written from the track's Python draw */
        bf_buf_appendf(y, "variables:\n%s", R->acc.vars.data);
    bf_buf_appendf(y,
                   "document:\n  action: index\n  corpus:\n    %s:", local ? "local_path" : "path");
    /* double-quoted (JSON escapes are YAML's too): a path may hold spaces, '#' or ': ' */
    for (size_t f = 0; f < json_array_size(R->files); f++) {
        char *q = json_dumps(json_array_get(R->files, f), JSON_ENCODE_ANY);
        if (json_array_size(R->files) == 1)
            bf_buf_appendf(y, " %s\n", q);
        else
            bf_buf_appendf(y, "%s      - %s\n", f == 0 ? "\n" : "", q);
        free(q);
    }
    double period_s = R->period_s;
    bf_buf_appendf(y, "    format: %s\n    passes: %s\n", R->bulk_format == 1 ? "bulk" : "source",
                   period_s > 0 ? "loop" : "1");
    if (R->by_file)
        bf_buf_appendz(y, "    indices: by_file   # each file into its own index (index.names)\n");
    const task_acc *acc = &R->acc;
    /* a corpus read once is read whole: the cell ends when it is read, the duration only
     * bounds it (searches beside the load end with it, as the bulk task ends Rally's block) */
    double dur = period_s > 0 ? period_s : (double)PASSES_ONCE_DURATION_S;
    bf_buf_appendf(y, "run:\n  warmup: %.0fs\n  duration: %.0fs%s\n",
                   R->warmup_s > 0 ? R->warmup_s : 0, dur,
                   period_s > 0 ? ""
                                : "   # no time-period: the corpus is read once, whole; the cell "
                                  "ends when it is read (this is only a bound)");
    if (acc->searches && acc->after)
        /* the search-only cell reads the index the load cell left: rounds would shuffle it
         * before the load once run.repeat is raised */
        bf_buf_appendz(y, "  order: sequential   # the load, then the searches on the index it "
                          "left (also with run.repeat)\n");
}

/* search: (clients, target_rate, the queries with paging) and matrix: (shards, replicas,
 * batch_size, concurrency, target_rate axes). */
static void rally_write_search_matrix(rally_t *R)
{
    bf_buf_t *y = &R->y;
    const task_acc *acc = &R->acc;
    if (acc->searches) {
        bf_buf_appendf(y, "search:\n  clients: %.0f\n",
                       acc->sum_clients >= 1 ? acc->sum_clients : 1);
        if (acc->all_rated && acc->rate_sum > 0)
            bf_buf_appendf(y, "  target_rate: %.0f\n", acc->rate_sum < 1 ? 1 : acc->rate_sum);
        if (acc->after)
            bf_buf_appendf(y,
                           "  warmup: %.0fs   # the search-only cell's (run.warmup is the load's)\n"
                           "  duration: %.0fs   # %s\n",
                           acc->search_warmup > 0 ? acc->search_warmup : 10,
                           acc->search_period > 0 ? acc->search_period : 60,
                           acc->search_period > 0 ? "the searches' longest time-period"
                                                  : "Rally's searches count iterations; "
                                                    "bulkfleet measures for a time");
        bf_buf_appendz(y, "  queries:\n");
        size_t qi;
        json_t *q;
        json_array_foreach(acc->queries, qi, q)
        {
            bf_buf_appendf(y, "    - name: %s   # Rally %s\n      path: ", str_of(q, "name"),
                           str_of(q, "type"));
            emit_str(y, str_of(q, "path"));
            bf_buf_appendz(y, "\n      body: ");
            emit_str(y, str_of(q, "body"));
            bf_buf_appendz(y, "\n");
            if (acc->all_rated && acc->rate_sum > 0) {
                /* its share of the mix is its own target-throughput's share of their sum */
                double w = json_real_value(json_object_get(q, "rate")) * 10;
                bf_buf_appendf(y, "      weight: %.0f   # target-throughput %g x 10\n",
                               w < 1         ? 1
                               : w > 1000000 ? 1000000
                                             : w,
                               json_real_value(json_object_get(q, "rate")));
            }
            if (json_object_get(q, "depth"))
                bf_buf_appendf(y,
                               "      paging: {by: search_after, size: %.0f, depth: %.0f, pit: "
                               "%s}\n",
                               json_real_value(json_object_get(q, "page_size")),
                               json_real_value(json_object_get(q, "depth")),
                               json_is_true(json_object_get(q, "pit")) ? "true" : "false");
        }
    }
    bf_buf_appendz(y, "matrix:\n");
    bf_buf_appendf(y, "  shards: [%.0f]\n  replicas: [%.0f]\n", R->shards, R->replicas);
    emit_axis(y, "batch_size", &R->batch, 1);
    emit_axis(y, "concurrency", &R->clients, 1);
    if (rally_rated(R))
        emit_axis(y, "target_rate", &R->rate, 1);
    if (acc->searches && acc->after) {
        /* Rally's order: the load, then the searches on the index it left */
        bf_buf_appendf(y,
                       "  search_clients: [0]   # the load alone, as Rally's bulk task\n"
                       "  include:   # then the searches, on the index the load left\n"
                       "    - {shards: %.0f, replicas: %.0f, concurrency: 0, search_clients: "
                       "%.0f}\n",
                       R->shards, R->replicas, acc->sum_clients >= 1 ? acc->sum_clients : 1);
    }
}

int bf_import_rally(const char *path, const bf_rally_opts_t *opts, char **yaml, bf_diag_t *diag)
{
    static const bf_rally_opts_t none = {0};
    if (opts == NULL)
        opts = &none;
    *yaml = NULL;
    rally_t *R = bf_calloc(1, sizeof *R);
    R->opts = opts;
    R->diag = diag;
    R->tasks = json_array();
    R->task_paths = json_array();
    R->bulk_blocks = json_array();
    R->files = json_array();
    R->file_targets = json_array();
    R->targets = json_array();
    bf_buf_init(&R->y, 0);
    bf_buf_init(&R->notes, 0);
    bf_buf_init(&R->other_bulk, 0);
    R->ro = (bf_render_opts_t){.params = opts->track_params,
                               .build_flavor = opts->build_flavor,
                               .serverless_operator = opts->serverless_operator,
                               .distribution_version = opts->distribution_version};
    R->acc = (task_acc){.queries = json_array(), .skipped = json_array(), .all_rated = 1};
    bf_buf_init(&R->acc.notes, 0);
    bf_buf_init(&R->acc.vars, 0);
    R->warmup_s = -1;
    R->period_s = -1;
    R->bulk_format = -1;
    int rc = rally_open(R, path);
    if (rc == BF_OK)
        rc = rally_params(R);
    if (rc == BF_OK && !json_is_object(R->track))
        rc = bf_diag_set(diag, BF_E_INVAL, "%s: a track is a JSON object", R->file);
    if (rc == BF_OK) {
        rally_challenges(R);
        if (opts->list) {
            *yaml = rally_list(R);
            goto out;
        }
        rc = rally_schedule(R);
    }
    if (rc == BF_OK)
        rc = rally_bulk_tasks(R);
    if (rc == BF_OK)
        rc = rally_corpora(R);
    if (rc == BF_OK)
        rc = rally_index(R);
    if (rc == BF_OK) {
        rally_account(R);
        rally_write_index(R);
        rally_write_run(R);
        rally_write_search_matrix(R);
        *yaml = bf_buf_steal(&R->y);
        if (opts->corpus_missing)
            *opts->corpus_missing = R->missing;
    }
out:
    rally_cleanup(R);
    free(R);
    return rc;
}

int bf_cmd_import_rally(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"challenge", required_argument, NULL, 'C'},
        {"test-procedure", required_argument, NULL, 'C'}, /* OpenSearch Benchmark's name */
        {"name", required_argument, NULL, 'N'},
        {"track-params", required_argument, NULL, 'P'},
        {"workload-params", required_argument, NULL, 'P'}, /* OpenSearch Benchmark's name */
        {"build-flavor", required_argument, NULL, 'F'},
        {"serverless-operator", no_argument, NULL, 'S'},
        {"distribution-version", required_argument, NULL, 'V'},
        {"list", no_argument, NULL, 'L'},
        {"corpus-dir", required_argument, NULL, 'D'},
        {"allow-partial-corpus", no_argument, NULL, 'A'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *usage = "import-rally TRACK_DIR_OR_JSON [--challenge|--test-procedure NAME] "
                        "[--track-params K:V,...|FILE.json] [--build-flavor F] "
                        "[--serverless-operator] [--distribution-version V] [--name NAME] "
                        "[--corpus-dir DIR] [--allow-partial-corpus] [-o OUT.yaml] "
                        "[--list]";
    bf_rally_opts_t ro = {0};
    size_t corpus_missing = 0;
    ro.corpus_missing = &corpus_missing;
    const char *out_path = NULL;
    optind = 0;
    opterr = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "C:N:o:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'C': ro.challenge = optarg; break;
        case 'N': ro.name = optarg; break;
        case 'P': ro.track_params = optarg; break;
        case 'F': ro.build_flavor = optarg; break;
        case 'S': ro.serverless_operator = 1; break;
        case 'V': ro.distribution_version = optarg; break;
        case 'L': ro.list = 1; break;
        case 'D': ro.corpus_dir = optarg; break;
        case 'A': ro.allow_partial_corpus = 1; break;
        case 'o': out_path = optarg; break;
        case 'h':
            printf("usage: bulkfleet-coordinator %s\n"
                   "  prints (or writes with -o) a scenario from a Rally track or an OpenSearch "
                   "Benchmark\n  workload: its first bulk task's corpus, bulk-size, clients and "
                   "index body, its\n  searches; the header notes say what was not imported "
                   "(docs/import.md)\n"
                   "  --challenge NAME        the challenge (--test-procedure: OpenSearch "
                   "Benchmark's word);\n                          default: the track's default "
                   "one (--list shows them)\n"
                   "  --track-params K:V,...  the track's parameters, or a FILE.json of them, as "
                   "Rally's\n                          --track-params (--workload-params)\n"
                   "  --corpus-dir DIR        where the downloaded corpus files are (also looked "
                   "for: the\n                          track's folder, ~/.rally/benchmarks/data/"
                   "<corpus>,\n                          ~/.benchmark/... and "
                   "~/.osb/benchmarks/data/<corpus>,\n                          each tool's "
                   "local.dataset.cache)\n"
                   "  --allow-partial-corpus  accept a corpus file shorter than the track's "
                   "document-count\n                          (a prefix made on purpose)\n"
                   "  --build-flavor F, --serverless-operator, --distribution-version V\n"
                   "                          what the track's templates see of the cluster, "
                   "as in Rally\n"
                   "  --name NAME             the scenario's name (default: the track's folder)\n"
                   "  -o, --output OUT.yaml   write the scenario there (default: stdout)\n"
                   "  --list                  the challenges with their task counts, nothing "
                   "imported\n",
                   usage);
            return BF_EXIT_OK;
        default: bf_error("usage: bulkfleet-coordinator %s", usage); return BF_EXIT_INPUT;
        }
    }
    if (optind != argc - 1) {
        bf_error("usage: bulkfleet-coordinator %s", usage);
        return BF_EXIT_INPUT;
    }
    char *yaml = NULL;
    bf_diag_t diag = {0};
    int rc = bf_import_rally(argv[optind], &ro, &yaml, &diag);
    if (rc != BF_OK) {
        bf_error("%s", diag.msg[0] ? diag.msg : bf_strerror(rc));
        return rc == BF_E_IO ? BF_EXIT_ENV : BF_EXIT_INPUT;
    }
    if (ro.list) {
        fputs(yaml, stdout);
        free(yaml);
        return BF_EXIT_OK;
    }
    /* the result must load (paths are absolute, so from anywhere) */
    bf_load_opts_t lo = {.base_dir = ".", .env_warn = 1}; /* an unset ${VAR}: a warning */
    bf_scenario_t *check = NULL;
    bf_diag_t cd = {0};
    int code = BF_EXIT_OK;
    if (corpus_missing)
        bf_warn("the scenario is not checked here: %zu corpus file%s not downloaded yet (see "
                "above); validate checks it once %s there",
                corpus_missing, corpus_missing > 1 ? "s are" : " is",
                corpus_missing > 1 ? "they are" : "it is");
    else if (bf_scenario_load_text(yaml, strlen(yaml),
                                   out_path ? out_path : "(the converted track)", &lo, &check,
                                   &cd) != BF_OK) {
        bf_error("the converted track does not validate; fix it before running it: %s", cd.msg);
        code = BF_EXIT_INPUT;
    }
    for (size_t i = 0; check && i < bf_scenario_warning_count(check); i++)
        bf_warn("%s", bf_scenario_warning(check, i));
    bf_scenario_destroy(&check);
    if (out_path) {
        FILE *f = fopen(out_path, "wb");
        int bad = f == NULL || fputs(yaml, f) == EOF;
        if (f && fclose(f) != 0)
            bad = 1;
        if (bad) {
            bf_error("cannot write %s: %s", out_path, strerror(errno));
            free(yaml);
            return BF_EXIT_ENV;
        }
        if (code == BF_EXIT_OK && corpus_missing)
            bf_info("wrote %s; download the corpus (above), then check it with: "
                    "bulkfleet-coordinator validate %s",
                    out_path, out_path);
        else if (code == BF_EXIT_OK)
            bf_info("wrote %s; check it with: bulkfleet-coordinator validate %s", out_path,
                    out_path);
    } else {
        fputs(yaml, stdout);
    }
    free(yaml);
    return code;
}
