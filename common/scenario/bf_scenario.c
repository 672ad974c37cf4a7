/* SPDX-License-Identifier: MIT */
/* bf_scenario.c — load, validate and expand a scenario matrix file (docs/scenario.md).
 *
 * Steps, each reporting the first mistake as "file:line:column: key: message; what to do"
 * (validate, opts.on_error: every mistake of step 3, and of steps 4-6 for the sections step 3
 * found clean):
 *   1. parse the YAML into a tree with positions (bf_scenario_yaml.c);
 *   2. resolve ${VAR} / ${VAR:-default} from the environment (unless opts.no_env);
 *   3. walk the tree against the one key table (bf_scenario_keys.c): unknown keys (with a
 *      did-you-mean), wrong types, bounds, enum values, required keys; defaults fill the rest;
 *   4. build the model: target, index (mappings and template files read and checked as JSON),
 *      variables (dictionaries read, split into lines and JSON-escaped once), document, request,
 *      run;
 *   5. expand the matrix into cells (bf_scenario_matrix.c);
 *   6. compile the document template, render a few documents and parse them with jansson, and
 *      check that batch_size x document size stays under BF_MAX_BODY_BYTES in every cell;
 *   7. warn about replicas the cluster cannot place (opts.cluster_nodes);
 *   8. emit the resolved YAML (shipped to agents) and the redacted copy (kept with results).
 */
#include "bf_scenario_int.h"

#include "bf_corpus.h"
#include "bf_file.h"
#include "bf_jsonesc.h"
#include "bf_mem.h"
#include "bf_sha256.h"
#include "bf_template.h"
#include "bf_units.h"
#include "bf_vecfile.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#define SAMPLE_DOCS 8 /* documents rendered and parsed at load time */
#define TOP(id) (&L->top[BF__K_##id])

/* ---- template checks ----------------------------------------------------------------------- */

static void locate_template(void *ctx, enum bf__tfield field, size_t offset, char *buf, size_t size)
{
    bf__load_t *L = ctx;
    const bf_ynode_t *n = NULL;
    switch (field) {
    case BF__TF_SOURCE:
        if (L->source_file_text) {
            uint32_t line = 1, col = 1;
            const char *t = L->source_file_text;
            for (size_t i = 0; i < offset && t[i]; i++) {
                if (t[i] == '\n') {
                    line++;
                    col = 1;
                } else if (((unsigned char)t[i] & 0xC0) != 0x80) {
                    col++;
                }
            }
            snprintf(buf, size, "%s:%u:%u", L->sc->document.source_file, line, col);
            return;
        }
        n = L->source_node;
        break;
    case BF__TF_ID: n = L->top[BF__K_DOC_ID].node; break;
    case BF__TF_ROUTING: n = L->top[BF__K_DOC_ROUTING].node; break;
    case BF__TF_PIPELINE: n = L->top[BF__K_DOC_PIPELINE].node; break;
    }
    if (n == NULL) {
        snprintf(buf, size, "%s", L->origin);
        return;
    }
    uint32_t line, col;
    bf_ydoc_locate(&L->doc, n, offset, "$[[", &line, &col);
    snprintf(buf, size, "%s:%u:%u", L->origin, line, col);
}

static int collect_cb(void *ctx, int rc)
{
    return bf__collect(ctx, rc);
}

/* validate (opts->on_error): the template compiler keeps every placeholder mistake */
static bf__tmpl_collect_fn collector(const bf__load_t *L)
{
    return L->opts && L->opts->on_error ? collect_cb : NULL;
}

/* have_cells 0 (validate, after a matrix mistake): the documents are rendered for a stand-in
 * cell of one index and the body sizes are not checked. */
static int check_template(bf__load_t *L, int have_cells)
{
    bf_scenario_t *sc = L->sc;
    bf_tmpl_t *t = NULL;
    int rc = bf__tmpl_compile_loc(sc, locate_template, L, collector(L), L, &t, L->diag);
    if (rc != BF_OK)
        return rc;
    int corpus = sc->document.corpus_path || sc->document.corpus_local_path;
    bf_cell_t stand_in = {.indices = 1};
    const bf_cell_t *cell0 = have_cells ? &sc->cells[0] : &stand_in;
    rc = corpus ? BF_OK : bf__tmpl_check(t, cell0, SAMPLE_DOCS, locate_template, L, L->diag);
    if (rc != BF_OK || !have_cells) {
        bf_tmpl_destroy(&t);
        return rc;
    }
    /* a corpus: the action line as rendered, "}}\n", and the corpus's mean source line (1 KiB
     * when only the agents have the file) */
    sc->est_doc_bytes =
        bf_tmpl_estimate_doc_bytes(t, &sc->cells[0]) +
        (corpus ? 3 + (sc->corpus ? bf_corpus_mean_doc_bytes(sc->corpus) : 1024) : 0);
    size_t name0 = strlen(sc->cells[0].index_names[0]);
    unsigned char *told = bf_calloc(sc->ncells ? sc->ncells : 1, 1);
    int first_rc = BF_OK; /* validate: the first body-size mistake kept */
    for (size_t c = 0; c < sc->ncells; c++) {
        const bf_cell_t *cell = &sc->cells[c];
        size_t longest = 0;
        for (uint32_t k = 0; k < cell->indices; k++) {
            size_t l = strlen(cell->index_names[k]);
            if (l > longest)
                longest = l;
        }
        uint64_t doc = sc->est_doc_bytes + (longest > name0 ? longest - name0 : 0);
        uint64_t body = doc * cell->batch_size;
        const bf_ynode_t *bn = L->cell_batch_node[c];
        int said = 0; /* validate: each batch_size value once, not once per cell */
        for (size_t e = 0; e < c && bn && !said; e++)
            said = told[e] && L->cell_batch_node[e] == bn;
        if (body > BF_MAX_BODY_BYTES && !said) {
            char a[32], b[32];
            bf_units_format_bytes(body, a, sizeof a);
            bf_units_format_bytes(BF_MAX_BODY_BYTES, b, sizeof b);
            rc = bf__err(L, bn ? bn : TOP(DOCUMENT)->node, BF_E_TOOBIG,
                         "matrix.batch_size: %u documents of about %llu bytes make a %s bulk "
                         "body (cell %s), over the %s http.max_content_length; use a batch_size "
                         "of at most %llu",
                         cell->batch_size, (unsigned long long)doc, a, cell->id, b,
                         (unsigned long long)(BF_MAX_BODY_BYTES / (doc ? doc : 1)));
            told[c] = 1;
            if (!bf__collect(L, rc))
                break;
            first_rc = first_rc != BF_OK ? first_rc : rc;
            rc = BF_OK;
        }
    }
    free(told);
    bf_tmpl_destroy(&t);
    return rc != BF_OK ? rc : first_rc;
}

static void warn_replicas(bf__load_t *L)
{
    bf_scenario_t *sc = L->sc;
    uint32_t nodes = L->opts ? L->opts->cluster_nodes : 0;
    if (nodes == 0)
        return;
    uint32_t warned = UINT32_MAX;
    for (size_t c = 0; c < sc->ncells; c++) {
        uint32_t r = sc->cells[c].replicas;
        if (r + 1 > nodes && r != warned) {
            bf__warn(L, L->cell_replicas_node[c],
                     "cell %s: %u replica%s need%s %u data nodes "
                     "but the cluster has %u; the replicas stay unassigned (health yellow) and "
                     "the cell measures fewer copies than it says",
                     sc->cells[c].id, r, r == 1 ? "" : "s", r == 1 ? "s" : "", r + 1, nodes);
            warned = r;
        }
    }
}

/* ---- the search section -------------------------------------------------------------------- */

/* ---- vector dimensions against the mappings --------------------------------------------- */

/* The first field named `name` in the mappings object m (its "properties", at any depth): the
 * field's object, or NULL. */
static json_t *mapping_field(json_t *m, const char *name, int depth)
{
    json_t *props = json_is_object(m) ? json_object_get(m, "properties") : NULL;
    if (!json_is_object(props) || depth > 32)
        return NULL;
    json_t *f = json_object_get(props, name);
    if (json_is_object(f))
        return f;
    const char *k;
    json_t *sub;
    json_object_foreach(props, k, sub)
    {
        json_t *r = mapping_field(sub, name, depth + 1);
        if (r)
            return r;
    }
    return NULL;
}

/* The JSON key a placeholder at src[at] is the value of ("emb" in `"emb": $[[v]]`), copied into
 * key (size bytes); 0, or -1 when the placeholder is not a key's whole value. */
static int placeholder_key(const char *src, size_t at, char *key, size_t size)
{
    size_t i = at;
    while (i > 0 && (src[i - 1] == ' ' || src[i - 1] == '\t' || src[i - 1] == '\n'))
        i--;
    if (i == 0 || src[i - 1] != ':')
        return -1;
    i--;
    while (i > 0 && (src[i - 1] == ' ' || src[i - 1] == '\t' || src[i - 1] == '\n'))
        i--;
    if (i == 0 || src[i - 1] != '"')
        return -1;
    size_t end = --i;
    while (i > 0 && src[i - 1] != '"')
        i--;
    if (i == 0 || end - i == 0 || end - i >= size)
        return -1;
    memcpy(key, src + i, end - i);
    key[end - i] = '\0';
    return 0;
}

/* A vector variable put whole into a field that the mappings map as knn_vector (OpenSearch:
 * "dimension") or dense_vector (Elasticsearch: "dims", the bits of a bit vector as the
 * variable's dims) must have that many dimensions: else the cluster rejects every document
 * with a mapper_parsing_exception, which only a run would show. */
static int check_vector_dims(bf__load_t *L)
{
    bf_scenario_t *sc = L->sc;
    const char *src = sc->document.source;
    if (src == NULL || sc->index.mappings_json == NULL)
        return BF_OK;
    json_t *m = json_loads(sc->index.mappings_json, 0, NULL);
    if (m == NULL)
        return BF_OK;
    int rc = BF_OK;
    for (size_t i = 0; i < sc->nvars && rc == BF_OK; i++) {
        const bf_var_spec_t *v = &sc->vars[i];
        if (v->type != BF_VAR_VECTOR || i >= L->nvars)
            continue;
        char ph[300];
        if (strlen(v->name) + 6 > sizeof ph)
            continue;
        snprintf(ph, sizeof ph, "$[[%s]]", v->name);
        for (const char *p = strstr(src, ph); p && rc == BF_OK; p = strstr(p + 1, ph)) {
            char key[256];
            if (placeholder_key(src, (size_t)(p - src), key, sizeof key) != 0)
                continue;
            json_t *f = mapping_field(m, key, 0);
            const char *type = json_string_value(json_object_get(f, "type"));
            const char *dk = NULL;
            if (type && strcmp(type, "knn_vector") == 0)
                dk = "dimension";
            else if (type && strcmp(type, "dense_vector") == 0)
                dk = "dims";
            json_t *dj = dk ? json_object_get(f, dk) : NULL;
            if (!json_is_integer(dj) || json_integer_value(dj) == (json_int_t)v->dims)
                continue;
            const bf_ynode_t *at = L->var_vals[i][BF__K_VAR_DIMS].node;
            if (at == NULL)
                at = L->var_vals[i][BF__K_VAR_FILE].node;
            if (at == NULL)
                at = L->var_nodes[i];
            const char *mf = TOP(INDEX_MAPPINGS_FILE)->s;
            rc = bf__err(L, at, BF_E_INVAL,
                         "variables[%zu]: vector '%s' has %u dimensions, but the mappings (%s%s) "
                         "map field '%s', where document.source puts $[[%s]], as %s with %s "
                         "%lld: the cluster would reject every document; make the variable's "
                         "dims and the mapping's %s the same",
                         i, v->name, v->dims, mf ? "index.mappings_file " : "index.mappings",
                         mf ? mf : "", key, v->name, type, dk, (long long)json_integer_value(dj),
                         dk);
        }
    }
    json_decref(m);
    return rc;
}

int bf_scenario_path_is_msearch(const char *path)
{
    for (const char *p = path ? strstr(path, "/_msearch") : NULL; p; p = strstr(p + 1, "/_msearch"))
        if (p[9] == '\0' || p[9] == '/' || p[9] == '?')
            return 1;
    return 0;
}

static int build_search(bf__load_t *L)
{
    bf_search_spec_t *s = &L->sc->search;
    if (!TOP(SEARCH)->set || TOP(SEARCH)->node == NULL)
        return BF_OK;
    s->enabled = 1;
    s->clients = (uint32_t)TOP(SEARCH_CLIENTS)->u;
    s->target_rate = TOP(SEARCH_RATE)->d;
    s->prefill = TOP(SEARCH_PREFILL)->u;
    s->recreate = TOP(SEARCH_RECREATE)->b;
    s->warmup_set = TOP(SEARCH_WARMUP)->node != NULL;
    s->warmup_ms = s->warmup_set ? TOP(SEARCH_WARMUP)->u : 0;
    s->duration_ms = TOP(SEARCH_DURATION)->node ? TOP(SEARCH_DURATION)->u : 0;
    s->queries = bf_calloc(L->nq ? L->nq : 1, sizeof *s->queries);
    for (size_t i = 0; i < L->nq; i++) {
        bf__kval_t *qv = L->q_vals[i];
        bf_query_spec_t *q = &s->queries[i];
        s->nqueries = i + 1;
        q->name = bf__dup_str(&qv[BF__K_Q_NAME]);
        if (strlen(q->name) >= BF_MAX_QUERY_NAME)
            return bf__err(L, qv[BF__K_Q_NAME].node, BF_E_INVAL,
                           "search.queries[%zu].name: "
                           "at most %u characters",
                           i, BF_MAX_QUERY_NAME - 1);
        for (size_t j = 0; j < i; j++)
            if (strcmp(s->queries[j].name, q->name) == 0)
                return bf__err(L, qv[BF__K_Q_NAME].node, BF_E_INVAL,
                               "search.queries[%zu].name: "
                               "'%s' is already the name of search.queries[%zu]; names label "
                               "the results rows, give each query its own",
                               i, q->name, j);
        q->post = qv[BF__K_Q_METHOD].e == 0;
        q->path = bf__dup_str(&qv[BF__K_Q_PATH]);
        if (q->path[0] != '/')
            return bf__err(L, qv[BF__K_Q_PATH].node, BF_E_INVAL,
                           "search.queries[%zu].path: "
                           "'%s' must start with '/', e.g. /{index}/_search",
                           i, q->path);
        q->body = bf__dup_str(&qv[BF__K_Q_BODY]);
        q->weight = (uint32_t)qv[BF__K_Q_WEIGHT].u;
        q->profile = qv[BF__K_Q_PROFILE].b;
        if (qv[BF__K_Q_PAGING].node) {
            q->paging = qv[BF__K_PG_BY].e == 0 ? BF_PAGING_FROM : BF_PAGING_SEARCH_AFTER;
            q->page_size = (uint32_t)qv[BF__K_PG_SIZE].u;
            q->depth = (uint32_t)qv[BF__K_PG_DEPTH].u;
            q->pit = q->paging == BF_PAGING_SEARCH_AFTER && qv[BF__K_PG_PIT].b;
            if (q->body == NULL)
                return bf__err(L, qv[BF__K_Q_PAGING].node, BF_E_INVAL,
                               "search.queries[%zu].paging: "
                               "a paged query needs a body with a query and a sort, e.g. body: "
                               "'{\"query\": {\"match_all\": {}}, \"sort\": [{\"n\": \"asc\"}]}'",
                               i);
        }
        q->msearch = bf_scenario_path_is_msearch(q->path);
        if (q->msearch && q->paging != BF_PAGING_NONE)
            return bf__err(L, qv[BF__K_Q_PAGING].node, BF_E_INVAL,
                           "search.queries[%zu].paging: an _msearch query is one request of "
                           "several searches, not a sequence of pages; page with _search",
                           i);
        if (q->msearch && q->profile)
            return bf__err(L, qv[BF__K_Q_PROFILE].node, BF_E_INVAL,
                           "search.queries[%zu].profile: the profile is kept per search "
                           "request, and an _msearch holds several; profile its searches as "
                           "_search queries",
                           i);
        if (q->msearch && q->body == NULL)
            return bf__err(L, qv[BF__K_Q_PATH].node, BF_E_INVAL,
                           "search.queries[%zu]: an _msearch query needs a body of header/body "
                           "line pairs, e.g. body: |\n  {}\n  {\"query\": {\"match_all\": {}}}",
                           i);
    }
    return BF_OK;
}

/* Locates a byte of query qi's body template (the loader's positions, as for document.source). */
typedef struct qloc {
    bf__load_t *L;
    size_t qi;
} qloc;

static void locate_query(void *ctx, enum bf__tfield field, size_t offset, char *buf, size_t size)
{
    qloc *q = ctx;
    (void)field;
    const bf_ynode_t *n = q->L->q_vals[q->qi][BF__K_Q_BODY].node;
    uint32_t line = 0, col = 0;
    if (n)
        bf_ydoc_locate(&q->L->doc, n, offset, "$[[", &line, &col);
    snprintf(buf, size, "%s:%u:%u", q->L->origin, line, col);
}

/* 1 when a header line of an _msearch body (lines 1, 3, ...) names an index, a routing or a
 * preference: its searches may run elsewhere than the path's index, or on fewer shards. */
static int msearch_retargets(const bf_tmpl_t *t)
{
    bf_gen_t *g = bf_gen_new(t, NULL);
    bf_buf_t b;
    bf_buf_init(&b, 0);
    int r = 0;
    if (bf_tmpl_render_body(t, g, &b) == BF_OK) {
        size_t at = 0, line = 0;
        while (at < b.len) {
            const char *nl = memchr(b.data + at, '\n', b.len - at);
            size_t end = nl ? (size_t)(nl - b.data) : b.len;
            if (line % 2 == 0) {
                json_t *h = json_loadb(b.data + at, end - at, 0, NULL);
                if (json_object_get(h, "index") || json_object_get(h, "routing") ||
                    json_object_get(h, "preference"))
                    r = 1;
                json_decref(h);
            }
            line++;
            at = end + 1;
        }
    }
    bf_buf_cleanup(&b);
    bf_gen_destroy(&g);
    return r;
}

/* Every query body compiles against the variables and renders valid JSON; cells with nothing
 * to send are refused. validate (opts->on_error): every query's mistakes, each kept. */
static int check_search(bf__load_t *L)
{
    bf_scenario_t *sc = L->sc;
    int first_rc = BF_OK;
    for (size_t c = 0; c < sc->ncells; c++) {
        const bf_cell_t *cell = &sc->cells[c];
        if (cell->concurrency == 0 && cell->search_clients == 0) {
            int rc = bf__err(L, TOP(MATRIX)->node, BF_E_INVAL,
                             "cell %s: concurrency 0 and no "
                             "search clients: nothing to send; exclude it (matrix.exclude: "
                             "[{concurrency: 0, search_clients: 0}]) or add a search section",
                             cell->id);
            if (!bf__collect(L, rc))
                return rc;
            first_rc = rc;
            break; /* one line for them all */
        }
    }
    for (size_t i = 0; i < sc->search.nqueries; i++) {
        const bf_query_spec_t *q = &sc->search.queries[i];
        if (q->body == NULL)
            continue;
        char what[96];
        snprintf(what, sizeof what, "search.queries[%zu].body", i);
        qloc ql = {L, i};
        bf_tmpl_t *t = NULL;
        int rc = bf__tmpl_compile_body_loc(sc, q->body, what, q->msearch, locate_query, &ql,
                                           collector(L), L, &t, L->diag);
        if (rc == BF_OK)
            rc = bf__tmpl_check_body(t, 8, locate_query, &ql, L->diag);
        if (rc == BF_OK && q->msearch)
            sc->search.queries[i].msearch_retargets = msearch_retargets(t);
        if (rc == BF_OK && q->paging == BF_PAGING_SEARCH_AFTER) {
            /* each page continues after the last hit's sort values: no sort, no order */
            bf_gen_t *g = bf_gen_new(t, NULL);
            bf_buf_t b;
            bf_buf_init(&b, 0);
            json_t *j =
                bf_tmpl_render_body(t, g, &b) == BF_OK ? json_loadb(b.data, b.len, 0, NULL) : NULL;
            if (!json_is_array(json_object_get(j, "sort")) &&
                !json_is_object(json_object_get(j, "sort")) &&
                !json_is_string(json_object_get(j, "sort")))
                rc = bf__err(L, L->q_vals[i][BF__K_Q_BODY].node, BF_E_INVAL,
                             "search.queries[%zu]"
                             ".body: paging by search_after needs a \"sort\" in the body (the "
                             "last hit's sort values start the next page), e.g. \"sort\": "
                             "[{\"n\": \"asc\"}]",
                             i);
            json_decref(j);
            bf_buf_cleanup(&b);
            bf_gen_destroy(&g);
        }
        bf_tmpl_destroy(&t);
        if (rc != BF_OK && L->diag->msg[0] && bf__collect(L, rc))
            first_rc = first_rc != BF_OK ? first_rc : rc;
        else if (rc != BF_OK && L->diag->msg[0])
            return rc;
        else if (rc != BF_OK) /* the compiler kept its mistakes */
            first_rc = first_rc != BF_OK ? first_rc : rc;
    }
    return first_rc;
}

/* ---- load ---------------------------------------------------------------------------------- */

/* The scenario is valid: warnings, and the YAML shipped to agents and kept with results. */
static int finish_load(bf__load_t *L)
{
    bf_scenario_t *sc = L->sc;
    warn_replicas(L);
    sc->resolved_text = bf_ydoc_emit(&L->doc, 0);
    sc->redacted_text = bf_ydoc_emit(&L->doc, 1);
    if (sc->resolved_text == NULL || sc->redacted_text == NULL)
        return bf__err(L, NULL, BF_E_INVAL, "cannot write the scenario back as YAML");
    return BF_OK;
}

/* validate: one step after the key pass. 1 when it passed; 0 when it failed, its mistake kept
 * (a step that kept its own mistakes leaves diag empty). */
static int step_ok(bf__load_t *L, int rc)
{
    if (rc == BF_OK)
        return 1;
    if (L->diag->msg[0] == '\0' && L->nerrors == 0) /* a failure without a message */
        bf__err(L, NULL, rc, "%s", bf_strerror(rc));
    if (L->diag->msg[0] != '\0')
        bf__collect(L, rc); /* always kept: on_error is set whenever build_all runs */
    return 0;
}

/* The top-level section a kept mistake is in: "index" for "f.yaml:6:3: index.setings: ...",
 * the section a top-level did-you-mean names ("documnet: unknown key; did you mean
 * 'document'?" leaves document unwritten) and a missing one ("missing required key
 * 'document'"). */
static int mistake_in(const char *msg, const char *section)
{
    size_t sl = strlen(section);
    const char *p = strstr(msg, ": ");
    while (p && p[2] >= '0' && p[2] <= '9') /* past "origin:line:col" */
        p = strstr(p + 2, ": ");
    if (p == NULL)
        return 0;
    p += 2;
    if (strncmp(p, section, sl) == 0 && strchr(".[:", p[sl]) && p[sl] != '\0')
        return 1;
    const char *dym = strstr(p, "did you mean '");
    size_t pl = strcspn(p, ".[:");
    if (dym && p[pl] == ':' && strncmp(dym + 14, section, sl) == 0 && dym[14 + sl] == '\'')
        return 1;
    /* "missing required key 'document'" at the top: the section is not there at all */
    return strncmp(p, "missing required key '", 22) == 0 && strncmp(p + 22, section, sl) == 0 &&
           p[22 + sl] == '\'';
}

/* validate: no kept mistake of the key pass lies in any of the sections (NULL-terminated).
 * Past the cap (not every mistake kept) nothing counts as clean. */
static int sections_clean(const bf__load_t *L, int keys_failed, const char *const *sections)
{
    if (!keys_failed)
        return 1;
    if (L->nerrors > BF__MAX_COLLECTED)
        return 0;
    for (size_t i = 0; i < L->nerrors; i++)
        for (const char *const *s = sections; *s; s++)
            if (mistake_in(L->errors[i].msg, *s))
                return 0;
    return 1;
}

#define CLEAN(...) sections_clean(L, keys_failed, (const char *const[]){__VA_ARGS__, NULL})

/* validate (opts->on_error) after the key pass: every step runs unless a step it needs failed,
 * so the mistakes of the variables, the target, the index, the document, the matrix values and
 * the templates come in one list (file order, at most BF__MAX_COLLECTED). After key mistakes
 * (keys_failed), a step runs only when the sections it reads have none, and the matrix is
 * checked value by value without making cells. */
static int build_all(bf__load_t *L, int keys_failed)
{
    L->diag->code = BF_OK; /* step_ok reads a failed step's message from it */
    L->diag->msg[0] = '\0';
    /* a mistake in a target value (hosts, connect_timeout) keeps the target from being used,
     * but its auth, TLS files and headers are still checked, when target is a mapping that has
     * its hosts or cloud_id (else the key pass said what is missing) */
    const bf_ynode_t *tn = L->top[BF__K_TARGET].node;
    /* taken once, before the target is built: its own mistakes (a header bulkfleet sets) make
     * the section unclean afterwards, and a second build would say each of them twice */
    int target_clean = CLEAN("target");
    int ok_target = target_clean ? step_ok(L, bf__build_target(L)) : 0;
    if (!target_clean && tn != NULL && tn->kind == BF_Y_MAP &&
        (L->top[BF__K_TARGET_HOSTS].set || L->top[BF__K_TARGET_CLOUD_ID].set))
        (void)step_ok(L, bf__build_target(L));
    int ok_targets = ok_target && CLEAN("targets") && step_ok(L, bf__build_targets(L));
    if (CLEAN("metrics_store"))
        (void)step_ok(L, bf__build_metrics_store(L));
    int ok_index = CLEAN("index") && step_ok(L, bf__build_index(L));
    int ok_vars = CLEAN("variables") && step_ok(L, bf__build_variables(L));
    int ok_doc = CLEAN("document") && step_ok(L, bf__build_document(L));
    int ok_req = CLEAN("request", "run", "find_max", "findings", "name") &&
                 step_ok(L, bf__build_request_run(L));
    int ok_search = CLEAN("search") && step_ok(L, build_search(L));
    /* the matrix picks from targets:, knows the search section and the request's defaults:
     * with all of them right it makes the cells; else its own values, axis typos and
     * include/exclude are still checked (a batch_size of 0 is said with a missing target, not
     * after it is fixed), leaving out only what the section in error would decide */
    int ok_matrix = 0;
    L->matrix_values_only = keys_failed || !(ok_targets && ok_index && ok_req && ok_search);
    L->matrix_no_targets = !ok_targets;
    L->matrix_no_search = !ok_search;
    if (!L->matrix_values_only)
        ok_matrix = step_ok(L, bf__matrix_expand(L)) && L->sc->ncells > 0;
    else if (CLEAN("matrix"))
        (void)step_ok(L, bf__matrix_expand(L));
    if (ok_matrix)
        (void)step_ok(L, bf__check_data_stream(L));
    if (ok_vars && ok_doc)
        (void)step_ok(L, check_template(L, ok_matrix));
    if (ok_index && ok_vars && ok_doc)
        (void)step_ok(L, check_vector_dims(L));
    if (ok_vars && ok_search)
        (void)step_ok(L, check_search(L));
    if (L->nerrors)
        return bf__report_collected(L);
    return finish_load(L);
}
#undef CLEAN

static int load(bf__load_t *L, const char *text, size_t len)
{
    int rc = bf_ydoc_parse(&L->doc, text, len, L->origin, L->diag);
    if (rc != BF_OK)
        return rc;
    if (!(L->opts && L->opts->no_env)) {
        L->doc.env_unset = L->opts ? L->opts->env_unset : NULL;
        L->doc.env_warn = L->opts ? L->opts->env_warn : 0;
        rc = bf_ydoc_resolve_env(&L->doc, L->diag);
        if (rc != BF_OK)
            return rc;
    }
    for (size_t i = 0; i < L->doc.nunset; i++) {
        bf_scenario_t *w = L->sc;
        w->warnings = bf_realloc(w->warnings, (w->nwarnings + 1) * sizeof *w->warnings);
        w->warnings[w->nwarnings++] = bf_strdup(L->doc.unset_warnings[i]);
    }
    const bf_ynode_t *root = L->doc.root;
    /* variables are walked item by item below; everything else here */
    rc = bf__walk_map(L, root, "", "", L->top, 0);
    if (rc != BF_OK && !bf__collect(L, rc))
        return rc;
    const bf_ynode_t *vars = L->top[BF__K_VARIABLES].node;
    if (vars && vars->kind == BF_Y_SEQ) {
        if (vars->n > BF__MAX_VARIABLES)
            return bf__err(L, vars, BF_E_TOOBIG, "variables: more than %u variables",
                           BF__MAX_VARIABLES);
        L->nvars = vars->n;
        L->var_vals = bf_calloc(vars->n ? vars->n : 1, sizeof *L->var_vals);
        L->var_nodes = bf_calloc(vars->n ? vars->n : 1, sizeof *L->var_nodes);
        for (size_t i = 0; i < vars->n; i++) {
            char dp[64];
            snprintf(dp, sizeof dp, "variables[%zu]", i);
            const bf_ynode_t *item = vars->items[i];
            L->var_nodes[i] = item;
            if (item->kind != BF_Y_MAP) {
                rc = bf__err(L, item, BF_E_INVAL,
                             "%s: expected a mapping like {name: id, "
                             "type: sequence}",
                             dp);
                if (bf__collect(L, rc))
                    continue;
                return rc;
            }
            rc = bf__walk_map(L, item, "variables[]", dp, L->var_vals[i], 0);
            if (rc == BF_OK && L->nerrors == 0)
                rc = bf__apply_defaults(L, L->var_vals[i], 1);
            if (rc != BF_OK && !bf__collect(L, rc))
                return rc;
        }
    }
    const bf_ynode_t *qs = L->top[BF__K_SEARCH_QUERIES].node;
    if (qs && qs->kind == BF_Y_SEQ) {
        if (qs->n == 0 || qs->n > BF_MAX_QUERIES)
            return bf__err(L, qs, BF_E_INVAL,
                           "search.queries: give 1 to %u queries like {name: "
                           "all, body: '{\"query\": {\"match_all\": {}}}'}",
                           BF_MAX_QUERIES);
        L->nq = qs->n;
        L->q_vals = bf_calloc(qs->n, sizeof *L->q_vals);
        for (size_t i = 0; i < qs->n; i++) {
            char dp[64];
            snprintf(dp, sizeof dp, "search.queries[%zu]", i);
            const bf_ynode_t *item = qs->items[i];
            if (item->kind != BF_Y_MAP) {
                rc = bf__err(L, item, BF_E_INVAL,
                             "%s: expected a mapping like {name: all, "
                             "body: '{\"query\": {\"match_all\": {}}}'}",
                             dp);
                if (bf__collect(L, rc))
                    continue;
                return rc;
            }
            rc = bf__walk_map(L, item, "search.queries[]", dp, L->q_vals[i], 0);
            if (rc == BF_OK && L->nerrors == 0)
                rc = bf__apply_defaults(L, L->q_vals[i], 2);
            if (rc != BF_OK && !bf__collect(L, rc))
                return rc;
        }
    }
    int keys_failed = L->nerrors > 0; /* the key pass kept errors (opts->on_error) */
    if (keys_failed && L->opts->keys_failed)
        *L->opts->keys_failed = 1;
    if (keys_failed) { /* validate: the sections without key mistakes are checked on */
        for (size_t i = 0; i < L->nvars; i++)
            bf__apply_defaults(L, L->var_vals[i], 1);
        for (size_t i = 0; i < L->nq; i++)
            bf__apply_defaults(L, L->q_vals[i], 2);
    }
    rc = bf__apply_defaults(L, L->top, 0);
    if (rc != BF_OK)
        return rc;
    bf_scenario_t *sc = L->sc;
    sc->name = bf_strdup(L->top[BF__K_NAME].s ? L->top[BF__K_NAME].s : "");
    if (L->opts && L->opts->on_error)
        return build_all(L, keys_failed);
    if ((rc = bf__build_target(L)) != BF_OK || (rc = bf__build_targets(L)) != BF_OK ||
        (rc = bf__build_metrics_store(L)) != BF_OK || (rc = bf__build_index(L)) != BF_OK ||
        (rc = bf__build_variables(L)) != BF_OK || (rc = bf__build_document(L)) != BF_OK ||
        (rc = bf__build_request_run(L)) != BF_OK || (rc = build_search(L)) != BF_OK ||
        (rc = bf__matrix_expand(L)) != BF_OK || (rc = bf__check_data_stream(L)) != BF_OK ||
        (rc = check_template(L, 1)) != BF_OK || (rc = check_vector_dims(L)) != BF_OK ||
        (rc = check_search(L)) != BF_OK)
        return rc;
    return finish_load(L);
}

int bf_scenario_load_text(const char *text, size_t len, const char *origin,
                          const bf_load_opts_t *opts, bf_scenario_t **out, bf_diag_t *diag)
{
    bf_diag_t local = {0};
    if (diag == NULL)
        diag = &local;
    *out = NULL;
    bf__load_t *L = bf_calloc(1, sizeof *L);
    L->opts = opts;
    L->diag = diag;
    L->origin = origin ? origin : "<scenario>";
    /* "." (a scenario in the current folder) is left out: files are read as written, and a
     * message names '../dict/x.log', not './../dict/x.log' */
    L->base_dir = opts && opts->base_dir && strcmp(opts->base_dir, ".") != 0
                      ? bf_strdup(opts->base_dir)
                      : NULL;
    L->sc = bf_calloc(1, sizeof *L->sc);
    L->sc->origin = bf_strdup(L->origin);
    int rc = text ? load(L, text, len) : bf_diag_set(diag, BF_E_INVAL, "%s: no text", L->origin);
    if (rc == BF_OK)
        *out = L->sc;
    else
        bf_scenario_destroy(&L->sc);
    bf_ydoc_cleanup(&L->doc);
    free(L->var_vals);
    free(L->q_vals);
    free(L->var_nodes);
    free(L->cell_batch_node);
    free(L->cell_replicas_node);
    free(L->base_dir);
    for (size_t i = 0; i < L->nerrors && i < BF__MAX_COLLECTED; i++)
        free(L->errors[i].msg);
    free(L->errors);
    free(L);
    return rc;
}

int bf_scenario_load_file(const char *path, const bf_load_opts_t *opts, bf_scenario_t **out,
                          bf_diag_t *diag)
{
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    int err_no = 0;
    int rc = bf_file_read(path, BF_MAX_SCENARIO_BYTES, &text, &len, &err_no);
    if (rc == BF_E_TOOBIG)
        return bf_diag_set(diag, rc, "%s: larger than the %u-byte limit of a scenario file", path,
                           BF_MAX_SCENARIO_BYTES);
    if (rc != BF_OK)
        return bf_diag_set(diag, rc, "%s: cannot read the scenario: %s", path, strerror(err_no));
    bf_load_opts_t o = {0};
    if (opts)
        o = *opts;
    char *dir = NULL;
    if (o.base_dir == NULL) {
        const char *slash = strrchr(path, '/');
        dir = slash ? bf_strndup(path, (size_t)(slash - path) + (slash == path)) : bf_strdup(".");
        o.base_dir = dir;
    }
    rc = bf_scenario_load_text(text, len, path, &o, out, diag);
    free(dir);
    free(text);
    return rc;
}

static void target_cleanup(bf_target_t *t)
{
    for (size_t i = 0; i < t->nhosts; i++)
        free(t->hosts[i]);
    free(t->hosts);
    free(t->username);
    free(t->password);
    free(t->api_key);
    free(t->bearer);
    free(t->aws_region);
    free(t->aws_service);
    free(t->aws_key_id);
    free(t->aws_secret);
    free(t->aws_token);
    free(t->ca_file);
    free(t->cert_file);
    free(t->key_file);
    for (size_t i = 0; i < t->nheaders; i++)
        free(t->headers[i]);
    free(t->headers);
}

void bf_scenario_destroy(bf_scenario_t **sc_p)
{
    if (sc_p == NULL || *sc_p == NULL)
        return;
    bf_scenario_t *sc = *sc_p;
    free(sc->origin);
    free(sc->name);
    target_cleanup(&sc->target);
    target_cleanup(&sc->metrics_store);
    for (size_t i = 0; i < sc->ntargets; i++) {
        for (size_t j = 0; j < sc->targets[i].nhosts; j++)
            free(sc->targets[i].hosts[j]);
        free(sc->targets[i].hosts);
        free(sc->target_names[i]);
    }
    free(sc->targets);
    free(sc->target_names);
    free(sc->index.name);
    for (size_t i = 0; i < sc->index.nnames; i++)
        free(sc->index.names[i]);
    free(sc->index.names);
    free(sc->index.settings_json);
    free(sc->index.mappings_json);
    free(sc->index.template_json);
    free(sc->index.template_name);
    free(sc->index.timestamp_field);
    free(sc->index.pipeline_json);
    free(sc->request.pipeline);
    free(sc->request.filter_path);
    free(sc->document.id);
    free(sc->document.routing);
    free(sc->document.pipeline);
    free(sc->document.source);
    free(sc->document.source_file);
    for (size_t i = 0; i < sc->search.nqueries; i++) {
        free(sc->search.queries[i].name);
        free(sc->search.queries[i].path);
        free(sc->search.queries[i].body);
    }
    free(sc->search.queries);
    free(sc->document.corpus_path);
    free(sc->document.corpus_local_path);
    for (size_t i = 0; i < sc->document.ncorpus_files; i++)
        free(sc->document.corpus_files[i]);
    free(sc->document.corpus_files);
    bf_corpus_destroy(&sc->corpus);
    for (size_t i = 0; i < sc->nvars; i++)
        bf_var_spec_cleanup(&sc->vars[i]);
    free(sc->vars);
    for (size_t i = 0; i < sc->naxes; i++)
        free(sc->axis_names[i]);
    free(sc->axis_names);
    for (size_t c = 0; c < sc->ncells; c++) {
        bf_cell_t *cell = &sc->cells[c];
        free((char *)cell->id);
        free((char *)cell->settings_json);
        if (cell->index_names)
            for (uint32_t k = 0; k < cell->indices; k++)
                free(cell->index_names[k]);
        free(cell->index_names);
    }
    free(sc->cells);
    free(sc->cell_axes);
    for (size_t i = 0; i < sc->nstrings; i++)
        free(sc->strings[i]);
    free(sc->strings);
    for (size_t i = 0; i < sc->nfiles; i++) {
        free((char *)sc->files[i].path);
        if (!sc->files[i].borrowed)
            free((char *)sc->files[i].data);
        free((char *)sc->files[i].local);
    }
    free(sc->files);
    for (size_t i = 0; i < sc->nwarnings; i++)
        free(sc->warnings[i]);
    free(sc->warnings);
    free(sc->resolved_text);
    free(sc->redacted_text);
    free(sc);
    *sc_p = NULL;
}
