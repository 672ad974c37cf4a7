/* SPDX-License-Identifier: MIT */
/* bf_import_vector.c — vector tasks of a track as scenario variables, documents and queries
 * (bf_import_vector.h). What each published source sends is read from its code: Rally's
 * random_vector/track.py, OpenSearch Benchmark's vectorsearch/workload.py and its
 * BulkVectorsFromDataSetParamSource / VectorSearchPartitionParamSource (osbenchmark/workload/
 * params.py). */
#include "bf_import_vector.h"
#include "bf_import_yaml.h"

#include "bf_mem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DIMS 16384
#define MAX_PARAGRAPHS 64
#define MAX_PARTITION_ITEMS 200000 /* list items of the weighted partition variable */
#define VEC_MARK "@@bulkfleet-vector@@"

/* The param-sources recognised, with what their class must hold (white space removed). */
typedef struct psrc_vec {
    const char *name, *cls, *marker;
    int search; /* 1: a search param-source */
    int osb;    /* 1: OpenSearch Benchmark's vectorsearch workload.py, 0: Rally's track.py */
} psrc_vec;
static const psrc_vec PSRC_VEC[] = {
    {"random-bulk-param-source", "RandomBulkParamSource", "np.random.rand(self._dims).tolist()", 0,
     0},
    {"knn-param-source", "RandomSearchParamSource", "\"query_vector\":query_vector", 1, 0},
    {"random-vector-bulk-param-source", "RandomBulkParamSource",
     "{\"partition_id\":partition_id,self._field:vectors[i].tolist()}", 0, 1},
    {"random-vector-search-param-source", "RandomSearchParamSource",
     "self._field:{\"vector\":query_vector,\"k\":self._top_k}", 1, 1},
};

static const char *const RALLY_BULK_KEYS[] = {"dims",
                                              "small-partitions",
                                              "medium-partitions",
                                              "large-partitions",
                                              "custom-routing",
                                              "paragraph-size",
                                              NULL};
static const char *const OSB_BULK_KEYS[] = {"dims",        "index_name",  "field", "partitions",
                                            "num_centers", "cluster_std", NULL};
static const char *const DATASET_KEYS[] = {"index",
                                           "field",
                                           "bulk_size",
                                           "data_set_format",
                                           "data_set_path",
                                           "data_set_corpus",
                                           "num_vectors",
                                           "id-field-name",
                                           "filter_attributes",
                                           "retries",
                                           NULL};

static const char *str_of(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* a number written as a number or a string ("128"), else dflt */
static double num_of(json_t *o, const char *key, double dflt)
{
    json_t *v = json_object_get(o, key);
    if (json_is_number(v))
        return json_number_value(v);
    const char *s = json_string_value(v);
    if (s && *s) {
        char *end = NULL;
        double d = strtod(s, &end);
        if (end && *end == '\0')
            return d;
    }
    return dflt;
}

/* the file's text without white space, or NULL; caller frees */
static char *squeezed_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    bf_buf_t b;
    bf_buf_init(&b, 16u << 20);
    int c;
    while ((c = fgetc(f)) != EOF)
        if (!isspace(c) && bf_buf_append(&b, &(char){(char)c}, 1) != 0)
            break;
    fclose(f);
    return bf_buf_steal(&b);
}

/* the recognised param-source op names, checked against the track's Python; NULL when it is
 * not one, or its class is not the published one (why says which) */
static const psrc_vec *psrc_checked(const bf_vimport_ctx_t *ctx, const char *psrc, int search,
                                    char *why, size_t why_size)
{
    const psrc_vec *k = NULL;
    for (size_t i = 0; psrc && i < sizeof PSRC_VEC / sizeof PSRC_VEC[0]; i++)
        if (strcmp(PSRC_VEC[i].name, psrc) == 0 && PSRC_VEC[i].search == search)
            k = &PSRC_VEC[i];
    if (k == NULL)
        return NULL;
    char *pp = bf_asprintf("%s/%s", ctx->dir, ctx->pyname);
    char *py = squeezed_file(pp);
    free(pp);
    if (py == NULL) {
        if (why)
            snprintf(why, why_size, " (and %s is not beside the track)", ctx->pyname);
        return NULL;
    }
    char reg[256], cls[128];
    snprintf(reg, sizeof reg, "register_param_source(\"%s\",%s)", k->name, k->cls);
    snprintf(cls, sizeof cls, "class%s", k->cls);
    /* the class, and what it sends (in the class, or in a helper of the file it calls:
     * Rally's generate_knn_query) */
    const char *c = strstr(py, cls);
    int same = strstr(py, reg) && c && (c[strlen(cls)] == '(' || c[strlen(cls)] == ':') &&
               strstr(py, k->marker);
    /* the class the track registers under the name instead (dense_vector's, so_vector's,
     * openai_vector's and cohere_vector's KnnParamSource, reading their queries file) */
    char other[64] = "";
    char at[200];
    snprintf(at, sizeof at, "register_param_source(\"%s\",", k->name);
    const char *o = strstr(py, at);
    if (!same && o) {
        o += strlen(at);
        size_t n = strcspn(o, ")");
        if (n > 0 && n < sizeof other && strncmp(o, k->cls, n) != 0)
            snprintf(other, sizeof other, "%.*s", (int)n, o);
    }
    free(py);
    if (!same) {
        if (why && other[0])
            snprintf(why, why_size,
                     ", which bulkfleet does not run (the track's %s registers %s under it, not "
                     "the published %s whose query bulkfleet writes as a template)",
                     ctx->pyname, other, k->cls);
        else if (why)
            snprintf(why, why_size,
                     ", which bulkfleet does not run (the track's %s does not register the "
                     "published %s under it, which bulkfleet writes as a template)",
                     ctx->pyname, k->cls);
        return NULL;
    }
    return k;
}

int bf_vimport_bulk_kind(const bf_vimport_ctx_t *ctx, json_t *op, const char *type,
                         const char *const **keys)
{
    if (keys)
        *keys = NULL;
    if (type && strcmp(type, "bulk-vector-data-set") == 0) {
        if (keys)
            *keys = DATASET_KEYS;
        return 1;
    }
    if (type == NULL || strcmp(type, "bulk") != 0)
        return 0;
    const psrc_vec *k = psrc_checked(ctx, str_of(op, "param-source"), 0, NULL, 0);
    if (k && keys)
        *keys = k->osb ? OSB_BULK_KEYS : RALLY_BULK_KEYS;
    return k != NULL;
}

/* appends a variable's YAML line unless one of that name is there */
static void add_var(const bf_vimport_ctx_t *ctx, const char *name, const char *def)
{
    char probe[160];
    snprintf(probe, sizeof probe, "{name: %s,", name);
    if (ctx->vars->data && strstr(ctx->vars->data, probe))
        return;
    bf_buf_appendf(ctx->vars, "  - {name: %s, %s}\n", name, def);
}

/* add_var with the definition "<pre><arg>" (pre ends in the key's ": ") */
static void add_varf(const bf_vimport_ctx_t *ctx, const char *name, const char *pre,
                     const char *arg)
{
    char *def = bf_asprintf("%s%s", pre, arg);
    add_var(ctx, name, def);
    free(def);
}

static int dims_of(json_t *op, double dflt, const char *what, int *dims, bf_diag_t *diag)
{
    double d = num_of(op, "dims", dflt);
    if (d < 1 || d > MAX_DIMS || d != (double)(int)d)
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s: \"dims\" is %g; a vector has 1..%d dimensions (give the track's "
                           "parameter, e.g. --track-params dims:768)",
                           what, d, MAX_DIMS);
    *dims = (int)d;
    return BF_OK;
}

/* the data set file of a bulk-vector-data-set / vector-search op (ctx the track): its
 * data_set_path, else the file of its data_set_corpus; "#train" / "#test" appended for hdf5.
 * *missing set when the file is not there (a note says how to get it). Caller frees. */
static char *dataset_file(const bf_vimport_ctx_t *ctx, json_t *op, const char *prefix,
                          const char *h5set, const char *what, bf_buf_t *notes, size_t *missing,
                          bf_diag_t *diag)
{
    char k_fmt[64], k_path[64], k_corpus[64];
    snprintf(k_fmt, sizeof k_fmt, "%sdata_set_format", prefix);
    snprintf(k_path, sizeof k_path, "%sdata_set_path", prefix);
    snprintf(k_corpus, sizeof k_corpus, "%sdata_set_corpus", prefix);
    const char *fmt = str_of(op, k_fmt) && *str_of(op, k_fmt) ? str_of(op, k_fmt) : "hdf5";
    int h5 = strcmp(fmt, "hdf5") == 0;
    if (!h5 && strcmp(fmt, "bigann") != 0) {
        bf_diag_set(diag, BF_E_INVAL,
                    "%s: \"%s\" is '%s'; bulkfleet reads hdf5 and bigann data sets (the "
                    "formats OpenSearch Benchmark reads)",
                    what, k_fmt, fmt);
        return NULL;
    }
    const char *path = str_of(op, k_path);
    const char *cn = str_of(op, k_corpus);
    char *file = NULL;
    if (path && *path && strcmp(path, "None") != 0) {
        file = path[0] == '/' ? bf_strdup(path) : bf_asprintf("%s/%s", ctx->dir, path);
    } else if (cn && *cn && strcmp(cn, "None") != 0) {
        /* the corpus's first documents file, where import-rally looks for corpus files */
        json_t *corpora = json_object_get(ctx->track, "corpora"), *c, *hit = NULL;
        size_t i;
        json_array_foreach(corpora, i,
                           c) if (str_of(c, "name") && strcmp(str_of(c, "name"), cn) == 0) hit = c;
        json_t *doc = json_array_get(json_object_get(hit, "documents"), 0);
        const char *src = str_of(doc, "source-file");
        if (src == NULL) {
            bf_diag_set(diag, BF_E_INVAL,
                        "%s: \"%s\" is '%s', which is not a corpus of the workload with a "
                        "documents file",
                        what, k_corpus, cn);
            return NULL;
        }
        file = ctx->find_corpus ? ctx->find_corpus(ctx->dir, cn, src, ctx->corpus_dir) : NULL;
        if (file == NULL) {
            char *want = bf_asprintf("%s/%s", ctx->dir, src);
            char *dot = strrchr(want, '.');
            if (dot && (strcmp(dot, ".bz2") == 0 || strcmp(dot, ".gz") == 0))
                *dot = '\0';
            const char *url =
                str_of(doc, "base-url") ? str_of(doc, "base-url") : str_of(hit, "base-url");
            bf_yaml_note(notes,
                         "data set of corpus '%s' not downloaded yet: %s (validate and "
                         "run need it%s%s/%s, then decompress it)",
                         cn, want, url ? "; download " : "", url ? url : "", url ? src : "");
            (*missing)++;
            file = want;
        }
    } else {
        bf_diag_set(diag, BF_E_INVAL,
                    "%s: neither \"%s\" nor \"%s\" names the data set; give the workload's "
                    "parameters (--workload-params FILE.json, e.g. its params/*.json)",
                    what, k_path, k_corpus);
        return NULL;
    }
    struct stat st;
    if (stat(file, &st) != 0 && (path && *path)) {
        bf_yaml_note(notes, "data set not there yet: %s (validate and run need it)", file);
        (*missing)++;
    }
    if (h5) {
        char *f2 = bf_asprintf("%s#%s", file, h5set);
        free(file);
        file = f2;
    }
    return file;
}

/* a path as a YAML double-quoted scalar (JSON escapes are YAML's); caller frees */
static char *yq(const char *s)
{
    bf_buf_t b;
    bf_buf_init(&b, 0);
    if (bf_yaml_put_dq(&b, s, 0) != BF_OK) {
        bf_buf_cleanup(&b);
        return bf_strdup("\"\"");
    }
    return bf_buf_steal(&b);
}

static int bulk_dataset(const bf_vimport_ctx_t *ctx, json_t *op, const char *what,
                        bf_vimport_t *out, bf_diag_t *diag)
{
    const char *field =
        str_of(op, "field") && *str_of(op, "field") ? str_of(op, "field") : "target_field";
    double bs = num_of(op, "bulk_size", 500);
    if (bs < 1 || bs != (double)(long)bs)
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s: \"bulk_size\" is %g, not a whole number of at least 1 "
                           "(documents per bulk request)",
                           what, bs);
    out->bulk_size = bs;
    char *file = dataset_file(ctx, op, "", "train", what, &out->notes, &out->missing, diag);
    if (file == NULL)
        return diag && diag->code ? diag->code : BF_E_INVAL;
    char *q = yq(file);
    /* BulkVectorsFromDataSetParamSource reads the data set once: each row sent once; its
     * num_vectors, the first N rows of the data set, is the variable's rows: */
    double nv = num_of(op, "num_vectors", -1);
    char *qp =
        nv >= 1 ? bf_asprintf("%s, passes: 1, rows: %.0f", q, nv) : bf_asprintf("%s, passes: 1", q);
    add_varf(ctx, "vec", "type: vector, file: ", qp);
    free(qp);
    free(q);
    out->once = 1;
    add_varf(ctx, "row", "type: sequence, from: ", "0");
    json_t *src = json_object();
    /* a nested field "outer.inner": OpenSearch Benchmark sends {"outer": [{"inner": v}, ...]},
     * the consecutive rows of one parent id (the data set's parents column) in one document
     * whose _id is that parent; the parents are not read here: one row, one nested object */
    const char *dot = strchr(field, '.');
    if (dot) {
        char *outer = bf_strndup(field, (size_t)(dot - field));
        json_object_set_new(src, outer, json_pack("[{s:s}]", dot + 1, VEC_MARK));
        free(outer);
    } else
        json_object_set_new(src, field, json_string(VEC_MARK));
    const char *idf = str_of(op, "id-field-name");
    int id_in_source = idf && *idf && strcmp(idf, "_id") != 0 && strcmp(idf, "None") != 0;
    if (id_in_source)
        json_object_set_new(src, idf, json_string("$[[row]]"));
    else
        out->id = bf_strdup("$[[row]]");
    char *txt = json_dumps(src, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(src);
    /* the vector placeholder renders a whole JSON value: the marker's quotes go */
    char *mk = strstr(txt, "\"" VEC_MARK "\"");
    out->source = bf_asprintf("%.*s$[[vec]]%s", (int)(mk - txt), txt, mk + strlen(VEC_MARK) + 2);
    free(txt);
    out->action = "index";
    out->index = str_of(op, "index") ? bf_strdup(str_of(op, "index")) : NULL;
    bf_yaml_note(&out->notes,
                 "%s (bulk-vector-data-set): the data set's rows as the vector variable "
                 "vec (file: %s), one document %s each%s, its %s the row number "
                 "(the variable row), as OpenSearch Benchmark sends them; bulk_size %.0f, "
                 "the task's clients",
                 what, file, out->source, id_in_source ? " and the id field" : "",
                 id_in_source ? idf : "_id", bs);
    free(file);
    if (dot)
        bf_yaml_note(&out->notes,
                     "not imported: the parents of the nested field %s (OpenSearch "
                     "Benchmark puts the consecutive rows of one parent id, the data set's "
                     "parents column, into one document with that _id; here each row is a "
                     "document of one nested object, its _id the row number)",
                     field);
    if (nv >= 1)
        bf_yaml_note(&out->notes,
                     "num_vectors %.0f: the first %.0f rows of the data set (rows: on vec), as "
                     "OpenSearch Benchmark sends them",
                     nv, nv);
    bf_yaml_note(&out->notes, "the data set is sent once, as OpenSearch Benchmark reads it once "
                              "(passes: 1 on vec, each row once over the fleet's threads): the "
                              "cell ends when every row is sent");
    json_t *fa = json_object_get(op, "filter_attributes");
    if (json_array_size(fa) > 0)
        bf_yaml_note(&out->notes, "not imported: filter_attributes (the data set's "
                                  "attribute columns are not read)");
    return BF_OK;
}

/* Rally's random_vector: its tiers' partitions as a list variable, each partition repeated by
 * its tier's weight (track.py's PartitionRegistry.pick_weighted weighs a tier by count x the
 * midpoint of its size range, so one partition of a tier weighs that midpoint: small 5,500,
 * medium 55,000, large 550,000, i.e. 1 : 10 : 100). Returns the number of partitions. */
static size_t rally_partitions(const bf_vimport_ctx_t *ctx, json_t *op, const char *name,
                               const char *only, int weighted)
{
    static const struct {
        const char *tier, *key;
        double dflt;
        int weight;
    } tiers[] = {{"small", "small-partitions", 100, 1},
                 {"medium", "medium-partitions", 20, 10},
                 {"large", "large-partitions", 5, 100}};
    bf_buf_t l;
    bf_buf_init(&l, 0);
    size_t n = 0, items = 0;
    for (size_t t = 0; t < 3; t++) {
        if (only && strcmp(only, tiers[t].tier) != 0)
            continue;
        double cnt = num_of(op, tiers[t].key, tiers[t].dflt);
        for (long i = 0; i < (long)cnt && items < MAX_PARTITION_ITEMS; i++, n++)
            for (int w = 0; w < (weighted ? tiers[t].weight : 1); w++, items++)
                bf_buf_appendf(&l, "%s%s-%ld", items ? ", " : "", tiers[t].tier, i);
    }
    if (items) {
        char *def = bf_asprintf("type: list, data: [%s]", l.data);
        add_var(ctx, name, def);
        free(def);
    }
    bf_buf_cleanup(&l);
    return n;
}

static int bulk_random(const bf_vimport_ctx_t *ctx, json_t *op, const psrc_vec *k, const char *what,
                       bf_vimport_t *out, bf_diag_t *diag)
{
    int dims = 0;
    int rc = dims_of(op, k->osb ? 768 : 128, what, &dims, diag);
    if (rc != BF_OK)
        return rc;
    char dv[160];
    snprintf(dv, sizeof dv, "%d", dims);
    out->action = "create";
    if (k->osb) {
        const char *field = str_of(op, "field") ? str_of(op, "field") : "target_field";
        add_varf(ctx, "vec", "type: vector, dims: ", dv);
        char pr[64];
        snprintf(pr, sizeof pr, "%.0f", num_of(op, "partitions", 1000));
        add_varf(ctx, "partition_id", "type: range, from: 0, to: ", pr);
        json_t *j = json_string(field);
        char *fq = json_dumps(j, JSON_ENCODE_ANY);
        json_decref(j);
        out->source = bf_asprintf("{\"partition_id\":$[[partition_id]],%s:$[[vec]]}", fq);
        free(fq);
        out->index =
            bf_strdup(str_of(op, "index_name") ? str_of(op, "index_name") : "target_index");
        bf_yaml_note(&out->notes,
                     "%s: the param-source 'random-vector-bulk-param-source' of the "
                     "workload's %s, written as a template: create {\"partition_id\": 0..%s, "
                     "\"%s\": %d floats} (variables partition_id, vec); its vectors are "
                     "scikit-learn make_blobs clusters around 2000 centres in [0, 100), "
                     "bulkfleet's are uniform in [-1, 1] with 6 digits (the same work for the "
                     "engine per element, other neighbourhoods for HNSW)",
                     what, ctx->pyname, pr, field, dims);
        return BF_OK;
    }
    double para = num_of(op, "paragraph-size", 1);
    if (para < 1 || para > MAX_PARAGRAPHS || para != (double)(int)para)
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s: \"paragraph-size\" is %g; bulkfleet writes 1..%d vectors a "
                           "document",
                           what, para, MAX_PARAGRAPHS);
    add_varf(ctx, "ts", "type: now_unix_ms", "");
    size_t np = rally_partitions(ctx, op, "partition_id", NULL, 1);
    if (np == 0)
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s: no partition (small-, medium- and large-partitions are 0); "
                           "the track's param-source needs at least one",
                           what);
    bf_buf_t s;
    bf_buf_init(&s, 0);
    bf_buf_appendz(&s, "{\"@timestamp\":$[[ts]],\"partition_id\":$[[partition_id]],");
    if (para > 1) {
        bf_buf_appendz(&s, "\"nested\":[");
        for (int i = 0; i < (int)para; i++) {
            char vn[32];
            snprintf(vn, sizeof vn, "emb_%d", i);
            add_varf(ctx, vn, "type: vector, dims: ", dv);
            bf_buf_appendf(&s, "%s{\"emb\":$[[%s]],\"paragraph_id\":%d}", i ? "," : "", vn, i);
        }
        bf_buf_appendz(&s, "]}");
    } else {
        add_varf(ctx, "emb", "type: vector, dims: ", dv);
        bf_buf_appendz(&s, "\"emb\":$[[emb]]}");
    }
    out->source = bf_buf_steal(&s);
    out->data_stream = 1;
    json_t *ds = json_array_get(json_object_get(ctx->track, "data-streams"), 0);
    out->index = str_of(ds, "name") ? bf_strdup(str_of(ds, "name")) : NULL;
    json_t *cr = json_object_get(op, "custom-routing");
    if (json_is_true(cr))
        out->routing = bf_strdup("$[[partition_id]]");
    bf_yaml_note(&out->notes,
                 "%s: the param-source 'random-bulk-param-source' of the track's %s, "
                 "written as a template: create into the data stream of {\"@timestamp\" (ts), "
                 "\"partition_id\" (%zu partitions, each as likely as track.py's weighted "
                 "pick: small 1, medium 10, large 100), %s%d-dimension vector%s}%s; its "
                 "floats are numpy's uniform [0, 1) with 17 digits, bulkfleet's uniform in "
                 "[-1, 1] with 6 (the same work for the engine per element)",
                 what, ctx->pyname, np, para > 1 ? "\"nested\": paragraphs of a " : "\"emb\": a ",
                 dims, para > 1 ? " each" : "", json_is_true(cr) ? ", routed by partition_id" : "");
    return BF_OK;
}

int bf_vimport_bulk(const bf_vimport_ctx_t *ctx, json_t *op, const char *type, const char *what,
                    bf_vimport_t *out, bf_diag_t *diag)
{
    bf_buf_init(&out->notes, 0);
    int rc;
    if (type && strcmp(type, "bulk-vector-data-set") == 0) {
        rc = bulk_dataset(ctx, op, what, out, diag);
    } else {
        const psrc_vec *k = psrc_checked(ctx, str_of(op, "param-source"), 0, NULL, 0);
        if (k == NULL)
            return bf_diag_set(diag, BF_E_INVAL, "%s: not a vector bulk task", what);
        rc = bulk_random(ctx, op, k, what, out, diag);
    }
    if (rc == BF_OK)
        out->active = 1;
    return rc;
}

/* body (an object) as a template with VEC_MARK's string replaced by $[[var]]; caller frees */
static char *body_with_vector(json_t *body, const char *var)
{
    char *txt = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
    char *mk = txt ? strstr(txt, "\"" VEC_MARK "\"") : NULL;
    if (mk == NULL) {
        free(txt);
        return NULL;
    }
    char *out = bf_asprintf("%.*s$[[%s]]%s", (int)(mk - txt), txt, var, mk + strlen(VEC_MARK) + 2);
    free(txt);
    return out;
}

char *bf_vimport_query(const bf_vimport_ctx_t *ctx, json_t *op, const char *type, bf_buf_t *notes,
                       char *why, size_t why_size)
{
    const char *opn = str_of(op, "name") ? str_of(op, "name") : type;
    const char *six = str_of(op, "index");
    if (ctx->loaded_index && six && *six && strcmp(six, ctx->loaded_index) != 0) {
        /* train-test's prod-queries search target_index; the scenario loads train_index */
        snprintf(why, why_size, ": it searches index %s; the scenario loads %s", six,
                 ctx->loaded_index);
        return NULL;
    }
    if (strcmp(type, "vector-search") == 0) {
        const char *field =
            str_of(op, "field") && *str_of(op, "field") ? str_of(op, "field") : "target_field";
        double kk = num_of(op, "k", 0);
        int k_given = kk >= 1;
        /* radial search (VectorSearchPartitionParamSource's _add_search_threshold): a
         * max_distance or min_score stands instead of k; with radial_search_type the threshold
         * of each query is read from the neighbors data set, which is not imported */
        json_t *maxd = json_object_get(op, "max_distance");
        json_t *mins = json_object_get(op, "min_score");
        int radial = json_is_number(maxd) || json_is_number(mins);
        const char *rst = str_of(op, "radial_search_type");
        if (rst && *rst && strcmp(rst, "None") != 0) {
            snprintf(why, why_size,
                     ": radial_search_type %s reads each query's threshold from the neighbors "
                     "data set, which is not imported",
                     rst);
            return NULL;
        }
        if (!k_given && !radial)
            kk = 100;
        /* a filtered search (VectorSearchPartitionParamSource: filter_type efficient puts
         * filter_body into the knn query, post_filter beside it, script and boolean around it)
         * filters on the attribute fields bulk-vector-data-set writes from the data set's
         * attribute columns (filter_attributes), which the imported documents do not have: the
         * same query would match other documents, so the task is named, not imported */
        json_t *fb = json_object_get(op, "filter_body");
        if (json_object_size(fb) > 0) {
            const char *ft = str_of(op, "filter_type");
            snprintf(why, why_size,
                     ": its filter_body (filter_type %s) filters on the attribute fields that "
                     "bulk-vector-data-set's filter_attributes read from the data set; the "
                     "imported documents hold only the vector and the id (the attribute "
                     "columns are not imported)",
                     ft && *ft ? ft : "none");
            return NULL;
        }
        bf_diag_t d = {0};
        size_t missing = 0;
        char *file = dataset_file(ctx, op, "", "test", opn, notes, &missing, &d);
        if (file == NULL) {
            snprintf(why, why_size, ": %s", d.msg);
            return NULL;
        }
        char *q = yq(file);
        /* num_vectors (the workload's query_count): the first N query rows */
        double nq = num_of(op, "num_vectors", -1);
        char *qr = nq >= 1 ? bf_asprintf("%s, rows: %.0f", q, nq) : bf_strdup(q);
        add_varf(ctx, "query_vec", "type: vector, file: ", qr);
        free(qr);
        free(q);
        json_t *body = json_is_object(json_object_get(op, "body"))
                           ? json_deep_copy(json_object_get(op, "body"))
                           : json_object();
        /* as _build_vector_search_query_body builds it: {"vector", "k" (or the radial
         * threshold), "rescore": {"oversample_factor"}} under knn.FIELD, inside a nested query
         * on the outer field when FIELD is "outer.inner"; the body's own size, else k */
        json_t *kq = json_pack("{s:s}", "vector", VEC_MARK);
        if (!radial)
            json_object_set_new(kq, "k", json_integer((json_int_t)kk));
        if (json_is_number(maxd))
            json_object_set(kq, "max_distance", maxd);
        if (json_is_number(mins))
            json_object_set(kq, "min_score", mins);
        json_t *osf = json_object_get(op, "oversample_factor");
        if (json_is_number(osf))
            json_object_set_new(kq, "rescore", json_pack("{s:O}", "oversample_factor", osf));
        json_t *knn = json_pack("{s:{s:o}}", "knn", field, kq);
        const char *dot = strchr(field, '.');
        if (dot) {
            char *outer = bf_strndup(field, (size_t)(dot - field));
            knn = json_pack("{s:{s:s, s:o}}", "nested", "path", outer, "query", knn);
            free(outer);
        }
        if (json_object_get(body, "size") == NULL && !radial)
            json_object_set_new(body, "size", json_integer((json_int_t)kk));
        json_object_set_new(body, "query", knn);
        char *out = body_with_vector(body, "query_vec");
        json_decref(body);
        char thr[120];
        if (radial)
            snprintf(thr, sizeof thr, "%s %g", json_is_number(maxd) ? "max_distance" : "min_score",
                     json_number_value(json_is_number(maxd) ? maxd : mins));
        else
            snprintf(thr, sizeof thr, "k %.0f%s", kk,
                     k_given ? "" : ": the workload gives none, 100 here");
        bf_yaml_note(notes,
                     "task '%s' (vector-search): the k-NN query of OpenSearch Benchmark "
                     "(%squery.knn.%s.vector, %s%s) over the query data set's rows (the "
                     "vector variable query_vec, file: %s) with the task's body",
                     opn, dot ? "a nested query around " : "", field, thr,
                     json_is_number(osf) ? ", rescore.oversample_factor" : "", file);
        free(file);
        /* what the task's parameters ask that a search: cell does not do, each by name */
        double reps = num_of(op, "repetitions", 1);
        if (nq >= 1)
            bf_yaml_note(notes,
                         "num_vectors %.0f of task '%s': the first %.0f query rows (rows: on "
                         "query_vec); not imported: repetitions %.0f (OpenSearch Benchmark "
                         "sends each row that many times; the search cell sends the rows over "
                         "and over for search.duration)",
                         nq, opn, nq, reps >= 1 ? reps : 1);
        const char *np = str_of(op, "neighbors_data_set_path");
        const char *nc = str_of(op, "neighbors_data_set_corpus");
        char nfrom[600];
        if (np && *np && strcmp(np, "None") != 0)
            snprintf(nfrom, sizeof nfrom, "%s", np);
        else if (nc && *nc && strcmp(nc, "None") != 0)
            snprintf(nfrom, sizeof nfrom, "the data set corpus %s", nc);
        else
            snprintf(nfrom, sizeof nfrom, "the query data set's file");
        bf_yaml_note(notes,
                     "not imported: recall of task '%s' (OpenSearch Benchmark reports "
                     "recall@k and recall@1 of each answer against the ground-truth neighbors "
                     "in %s; bulkfleet's search cells measure latency and throughput, not "
                     "recall)",
                     opn, nfrom);
        return out;
    }
    char because[200] = "";
    const psrc_vec *k = psrc_checked(ctx, str_of(op, "param-source"), 1, because, sizeof because);
    if (k == NULL) {
        snprintf(why, why_size, "%s", because);
        return NULL;
    }
    int dims = 0;
    bf_diag_t d = {0};
    if (dims_of(op, k->osb ? 768 : 128, opn, &dims, &d) != BF_OK) {
        snprintf(why, why_size, ": %s", d.msg);
        return NULL;
    }
    char dv[32];
    snprintf(dv, sizeof dv, "%d", dims);
    add_varf(ctx, "query_vec", "type: vector, dims: ", dv);
    const char *field = str_of(op, "field") ? str_of(op, "field") : k->osb ? "target_field" : "emb";
    double kk = num_of(op, "k", k->osb ? 100 : 10);
    json_t *body;
    char pvar[64] = "";
    if (k->osb) {
        body = json_is_object(json_object_get(op, "body"))
                   ? json_deep_copy(json_object_get(op, "body"))
                   : json_object();
        json_object_set_new(
            body, "query",
            json_pack("{s:{s:{s:s, s:I}}}", "knn", field, "vector", VEC_MARK, "k", (json_int_t)kk));
        json_object_set_new(body, "size", json_integer((json_int_t)kk));
    } else {
        const char *tier = str_of(op, "partition-tier");
        snprintf(pvar, sizeof pvar, "partition_%s", tier ? tier : "any");
        rally_partitions(ctx, op, pvar, tier, 0);
        json_t *knn = json_pack("{s:s, s:s, s:I, s:I, s:{s:{s:s}}}", "field", field, "query_vector",
                                VEC_MARK, "k", (json_int_t)kk, "num_candidates", (json_int_t)kk,
                                "filter", "term", "partition_id", "@@PID@@");
        double ro = num_of(op, "rescore-oversample", -1);
        if (ro >= 0)
            json_object_set_new(knn, "rescore_vector", json_pack("{s:f}", "oversample", ro));
        body = json_pack("{s:o, s:I}", "knn", knn, "size", (json_int_t)kk);
    }
    char *out = body_with_vector(body, "query_vec");
    json_decref(body);
    if (out && pvar[0]) {
        /* the partition: a list value is a quoted string already */
        char *m = strstr(out, "\"@@PID@@\"");
        char *o2 = m ? bf_asprintf("%.*s$[[%s]]%s", (int)(m - out), out, pvar, m + 9) : NULL;
        free(out);
        out = o2;
    }
    bf_yaml_note(notes,
                 "task '%s': the param-source '%s' of the track's %s, written as a "
                 "query: %s with a random %d-dimension query vector (query_vec)%s%s",
                 opn, k->name, ctx->pyname,
                 k->osb ? "the OpenSearch k-NN query (query.knn)" : "Elasticsearch's knn search",
                 dims, pvar[0] ? " filtered on a random partition of " : "", pvar[0] ? pvar : "");
    return out;
}

void bf_vimport_cleanup(bf_vimport_t *out)
{
    if (out == NULL)
        return;
    free(out->index);
    free(out->id);
    free(out->routing);
    free(out->source);
    bf_buf_cleanup(&out->notes);
    memset(out, 0, sizeof *out);
}
