/* SPDX-License-Identifier: MIT */
/* bf_import_rally_tasks.c — every task of a Rally schedule accounted for: bulk tasks
 * make the cells, search-type operations the scenario's queries (with the param-sources of a
 * track's Python that are fixed data), administrative ones what the campaign does anyway.
 */
#include "bf_import_rally_int.h"

#include "bf_import_rally.h"

#include "bf_buf.h"
#include "bf_cluster.h"
#include "bf_corpus.h"
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

/* ---- every task of the schedule accounted for ------------------------------------------
 * bulk: the cells; search-type operations: the scenario's search queries; the administrative
 * ones: what the campaign does anyway; the rest: named in the notes, counted on stderr. */
#define MAX_IMPORT_QUERIES BF_MAX_QUERIES /* search.queries holds at most this many */
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
    int rc = bf__rally_read_file(py_path, &raw, &py_len, &d);
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
    rc = bf__rally_read_file(tp, &terms, &tl, &d);
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
           strcmp(type, "scroll-search") == 0 || strcmp(type, "composite-agg") == 0 ||
           strcmp(type, "vector-search") == 0;
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
        {"delete-data-stream", "each cell deletes and creates its data stream (index.recreate: "
                               "true; only a stream bulkfleet created)"},
        {"delete-composable-template", "each cell sends the track's template before its load "
                                       "(index.template), replacing it"},
        {"create-composable-template", "each cell sends the track's template before its load "
                                       "(index.template)"},
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
        json_array_foreach(acc->queries, i, q) if (strcmp(bf__str_of(q, "name"), out) == 0) clash =
            1;
        if (!clash)
            return;
        snprintf(out, size, "%s-%d", base, k);
    }
}

void bf__account_task(task_acc *acc, json_t *t, json_t *op, const char *type, const char *tpath)
{
    acc->total++;
    const char *tn = bf__str_of(t, "name")          ? bf__str_of(t, "name")
                     : op && bf__str_of(op, "name") ? bf__str_of(op, "name")
                                                    : type;
    if (strcmp(type, "force-merge") == 0 && op) {
        /* the after-load step: each cell merges and refreshes its index after the load */
        double seg = bf__count_of(json_object_get(op, "max-num-segments"), 0);
        acc->mapped++;
        if (acc->force_merge == 0)
            acc->force_merge = seg >= 1 && seg <= 100000 ? (uint32_t)seg : 1;
        bf_yaml_note(&acc->notes,
                     "task '%s' (force-merge): each cell's after-load step, "
                     "index.force_merge: %u (_forcemerge%s, then _refresh; merge_s and the "
                     "segments before and after in its row)%s",
                     tn, acc->force_merge, seg >= 1 ? "?max_num_segments" : "",
                     seg >= 1 ? "" : "; the task gives no max-num-segments: 1 here");
        return;
    }
    const char *admin = mapped_admin(type);
    if (admin) {
        acc->mapped++;
        bf_yaml_note(&acc->notes, "task '%s' (%s): %s", tn, type, admin);
        return;
    }
    if (op == NULL || !is_search_type(type)) {
        char *why = bf_asprintf("%s (%s)", tn, type);
        json_array_append_new(acc->skipped, json_string(why));
        free(why);
        return;
    }
    const char *psrc = bf__str_of(op, "param-source");
    char *derived = NULL, var[64] = "";
    if (acc->vctx && (strcmp(type, "vector-search") == 0 || psrc)) {
        /* a k-NN search: its query vectors a vector variable (bf_import_vector.h) */
        char why[600] = "";
        derived = bf_vimport_query(acc->vctx, op, type, &acc->notes, why, sizeof why);
        if (derived == NULL && (why[0] || strcmp(type, "vector-search") == 0)) {
            char *skip = psrc ? bf_asprintf("%s (%s: its request comes from the param-source "
                                            "'%s' of the track's %s%s)",
                                            tn, type, psrc, acc->pyname, why)
                              : bf_asprintf("%s (%s%s)", tn, type, why);
            json_array_append_new(acc->skipped, json_string(skip));
            free(skip);
            return;
        }
        if (derived)
            psrc = NULL; /* written: not a geonames query */
    }
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
        if (strstr(acc->vars.data ? acc->vars.data : "", var) == NULL) {
            bf_yaml_flow_t f;
            bf_yaml_flow_open(&f, &acc->vars, 1, NULL);
            bf_yaml_flow_kv(&f, "name", var, BF_YQ_RAW);
            bf_yaml_flow_kv(&f, "type", "range", BF_YQ_RAW);
            bf_yaml_flow_kv(&f, "from", "1", BF_YQ_RAW);
            bf_yaml_flow_kv(&f, "to", strrchr(var, '_') + 1, BF_YQ_RAW);
            bf_yaml_flow_close(&f);
        }
        bf_yaml_note(&acc->notes,
                     "task '%s' (%s): its body comes from the param-source '%s' of the "
                     "track's %s; written here as that class builds it (a terms query on "
                     "name.raw over the lines of terms.txt, and a random number from 1 to %s "
                     "appended as a string, as Rally does against the request cache: $[[%s]])",
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
    const char *ix = bf__str_of(op, "index");
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
        double size = bf__count_of(json_object_get(op, "results-per-page"), 0);
        if (size <= 0)
            size = bf__count_of(json_object_get(json_object_get(op, "body"), "size"), 10);
        if (size < 1)
            size = 10;
        if (size > 10000)
            size = 10000;
        json_t *pj = json_object_get(op, "pages");
        double pages = bf__count_of(pj, 0);
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
        bf_yaml_note(&acc->notes,
                     "task '%s' (%s): %s %s of %.0f hits, imported as a paged query "
                     "(search_after%s); each page counts as one op (Rally counts the whole "
                     "sequence as one)",
                     tn, type, scroll ? "Rally scrolls" : "Rally pages with search_after", np, size,
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
    double tpd = bf__count_of(json_object_get(t, "time-period"), 0);
    if (tpd > acc->search_period)
        acc->search_period = tpd;
    double twu = bf__count_of(json_object_get(t, "warmup-time-period"), 0);
    if (twu > acc->search_warmup)
        acc->search_warmup = twu;
    acc->sum_clients += bf__count_of(json_object_get(t, "clients"), 1);
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
