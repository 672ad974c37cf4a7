/* SPDX-License-Identifier: MIT */
/* bf_scenario_matrix.c — expand a scenario's matrix into cells in run order.
 *
 * Axes are `indices`, `shards`, `replicas`, `batch_size`, `concurrency`, `compression`,
 * `target_rate`, `routing_mode`, `target` (a name of the targets: section: where the cell's
 * requests go), `agents` (how many agents run the cell) (rows matrix.* of the key table) and
 * `settings.<path>` (any index setting, e.g.
 * settings.refresh_interval; also written as a nested `settings:` mapping). A list makes an
 * axis; a single value fixes the parameter for every cell without making an axis.
 *
 * Run order: the full factorial of the list axes with the FIRST axis written OUTERMOST (it
 * changes slowest, the last axis changes fastest), minus every cell matching all keys of an
 * `exclude` entry, then one cell per `include` entry in the order written. An include entry
 * sets the parameters it names; the rest take their base value (below), not the list values.
 * A key that only appears in include entries becomes an axis too (after the others).
 *
 * Base values (cells that do not set a parameter): the matrix's single value if given, else
 * indices = index.count, shards / replicas = index.settings number_of_shards /
 * number_of_replicas if written there, else 1 / 0; batch_size 1000; concurrency 1;
 * compression = request.compression; target_rate = run.target_rate; routing_mode =
 * request.routing_mode; target = the target: section; agents = run.agents; settings.* unset.
 *
 * Cell id: "i<indices>-s<shards>-r<replicas>-b<batch_size>-c<concurrency>", then "-<none|gzip>"
 * when compression is an axis, "-t<rate>" when target_rate is, "-<target name>" and "-a<agents>"
 * when those are axes, and "-<name>_<value>" for each
 * settings axis with a value, <name> being the setting's last path component; characters other
 * than letters, digits and '.' become '_'. A collision gets "-x<position>" appended.
 *
 * Index names: index.name with {shards} {replicas} {batch_size} {concurrency} {indices}
 * {compression} {target_rate} {i} ({i+N}: numbered from N) and {settings.<path>} — or just {<last
 * component>}, e.g. {refresh_interval} — replaced by the cell's values (lowercased; characters an
 * index name cannot hold become '_'). With indices > 1 and no {i}, names are "<name>-0" ..
 * "<name>-(n-1)".
 *
 * Settings: the cell's settings_json is {"index": {...}}: index.settings (nested or dotted keys,
 * with or without the "index." prefix), then number_of_shards and number_of_replicas, then the
 * cell's settings.* values; valid as the "settings" of PUT /<index>.
 */
#include "bf_scenario_int.h"

#include "bf_mem.h"
#include "bf_units.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    P_INDICES = 0,
    P_SHARDS,
    P_REPLICAS,
    P_BATCH,
    P_CONC,
    P_COMP,
    P_RATE,
    P_SCLIENTS,
    P_SRATE,
    P_ROUTE,
    P_TARGET,
    P_AGENTS,
    P_CORE
};

static const int core_row[P_CORE] = {
    BF__K_AX_INDICES,     BF__K_AX_SHARDS,       BF__K_AX_REPLICAS,    BF__K_AX_BATCH_SIZE,
    BF__K_AX_CONCURRENCY, BF__K_AX_COMPRESSION,  BF__K_AX_TARGET_RATE, BF__K_AX_SEARCH_CLIENTS,
    BF__K_AX_SEARCH_RATE, BF__K_AX_ROUTING_MODE, BF__K_AX_TARGET,      BF__K_AX_AGENTS,
};

typedef struct cval {
    const char *text;       /* kept by the scenario; NULL = unset (settings only) */
    const bf_ynode_t *node; /* where it was written, NULL for defaults */
} cval;

typedef struct param {
    const char *name;       /* "shards", "settings.refresh_interval" (kept) */
    int row;                /* key table row, -1 for settings.* */
    const bf_ynode_t *list; /* list of values (an axis) */
    cval *values;           /* the list's values */
    size_t nvalues;
    cval base;               /* value for cells that do not set it */
    const bf_ynode_t *fixed; /* single value written in the matrix */
    int is_axis;
} param;

typedef struct mx {
    bf__load_t *L;
    param *p;
    size_t np, capp;
    size_t *axis; /* param indices of axes, in column order */
    size_t naxes;
    json_t *settings; /* scenario settings {"index": {...}} */
    const bf_ynode_t *include, *exclude;
    /* id set */
    char **ids;
    size_t ids_cap;
} mx;

/* ---- small helpers ------------------------------------------------------------------------- */

static size_t find_param(mx *m, const char *name)
{
    for (size_t i = 0; i < m->np; i++)
        if (strcmp(m->p[i].name, name) == 0)
            return i;
    return (size_t)-1;
}

static size_t add_param(mx *m, const char *name, int row)
{
    if (m->np == m->capp) {
        m->capp = m->capp ? m->capp * 2 : 16;
        m->p = bf_realloc(m->p, m->capp * sizeof *m->p);
    }
    param *p = &m->p[m->np];
    memset(p, 0, sizeof *p);
    p->name = bf__keep(m->L->sc, name);
    p->row = row;
    return m->np++;
}

static void add_axis(mx *m, size_t pi)
{
    if (m->p[pi].is_axis)
        return;
    m->p[pi].is_axis = 1;
    m->axis = bf_realloc(m->axis, (m->naxes + 1) * sizeof *m->axis);
    m->axis[m->naxes++] = pi;
}

/* validate (opts->on_error): BF_OK when the mistake rc was kept for the full list (the caller
 * goes on with the next key or value), else rc (stop at the first, as run and plan do). */
static int keep(mx *m, int rc)
{
    return rc != BF_OK && bf__collect(m->L, rc) ? BF_OK : rc;
}

/* An include/exclude entry is a non-empty mapping: 1 when it is; 0 when not, with *rc BF_OK
 * (validate: the mistake kept, go on with the next entry) or the error (run, plan). */
static int entry_is_map(mx *m, const bf_ynode_t *ent, const char *where, const char *example,
                        int *rc)
{
    *rc = BF_OK;
    if (ent->kind == BF_Y_MAP && ent->n > 0)
        return 1;
    *rc = keep(m, bf__err(m->L, ent, BF_E_INVAL, "%s: expected a mapping of axis values like %s",
                          where, example));
    return 0;
}

/* Checks one value of parameter p; writes the canonical number for numeric rows. */
static int check_value(mx *m, const param *p, const bf_ynode_t *n, const char *where, uint64_t *num)
{
    bf__load_t *L = m->L;
    if (n->kind != BF_Y_SCALAR || bf_y_is_null(n))
        return bf__err(L, n, BF_E_INVAL, "%s: expected a single value, got a %s", where,
                       bf_y_kind_name(n));
    *num = 0;
    if (p->row < 0)
        return BF_OK;
    const bf__key_t *k = &bf__keys[p->row];
    if (k->type == BF__T_AXIS_NAME) {
        /* matrix.target: a name of the targets: section (not checked while that section
         * has a mistake of its own: validate says that one) */
        const bf_scenario_t *sc = L->sc;
        if (L->matrix_values_only && L->matrix_no_targets)
            return BF_OK;
        if (sc->ntargets == 0)
            return bf__err(L, n, BF_E_INVAL,
                           "%s: there is no targets: section to pick from; "
                           "add targets: {%.40s: {hosts: [http://127.0.0.1:9200]}, ...} "
                           "(docs/scenario.md, \"Targets and agents as axes\")",
                           where, n->value);
        char names[400];
        size_t o = 0, best_d = (size_t)-1;
        const char *best = NULL;
        names[0] = '\0';
        for (size_t i = 0; i < sc->ntargets; i++) {
            if (strcmp(sc->target_names[i], n->value) == 0)
                return BF_OK;
            size_t d = bf__edit_distance(n->value, sc->target_names[i]);
            if (d < best_d) {
                best_d = d;
                best = sc->target_names[i];
            }
            int w =
                snprintf(names + o, sizeof names - o, "%s%s", i ? ", " : "", sc->target_names[i]);
            if (w > 0 && (size_t)w < sizeof names - o)
                o += (size_t)w;
        }
        int close = best && best_d <= 2 && best_d < strlen(n->value);
        return bf__err(L, n, BF_E_INVAL, "%s: '%.80s' is not a name under targets: (%s)%s%s%s",
                       where, n->value, names, close ? "; did you mean '" : "", close ? best : "",
                       close ? "'?" : "");
    }
    if (k->type == BF__T_AXIS_ENUM) {
        if (bf__enum_index(k->extra, n->value) < 0) {
            char sug[32];
            const char *dym = bf__did_you_mean_alt(n->value, k->extra, sug, sizeof sug);
            char alts[96];
            size_t o = 0;
            for (const char *c = k->extra; *c && o + 3 < sizeof alts; c++) {
                if (*c == '|') { /* "none|gzip" -> "none, gzip" */
                    alts[o++] = ',';
                    alts[o++] = ' ';
                } else {
                    alts[o++] = *c;
                }
            }
            alts[o] = '\0';
            return bf__err(L, n, BF_E_INVAL, "%s: '%.80s' is not one of %s%s%s%s", where, n->value,
                           alts, dym ? "; did you mean '" : "", dym ? dym : "", dym ? "'?" : "");
        }
        return BF_OK;
    }
    uint64_t u;
    if (bf_units_parse_count(n->value, &u) != BF_OK || (double)u < k->min ||
        (k->max > 0 && (double)u > k->max)) {
        if (k->type == BF__T_AXIS_COUNT)
            return bf__err(L, n, BF_E_INVAL,
                           "%s: expected a rate in documents per second like "
                           "5000 or 10k, got '%.80s'",
                           where, n->value);
        return bf__err(L, n, BF_E_INVAL,
                       "%s: expected a whole number from %.0f to %.0f, got "
                       "'%.80s'",
                       where, k->min, k->max, n->value);
    }
    *num = u;
    return BF_OK;
}

/* Are two values of p the same (numbers compared as numbers: 5k == 5000)? */
static int same_value(const param *p, const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if (p->row >= 0 && bf__keys[p->row].type != BF__T_AXIS_ENUM &&
        bf__keys[p->row].type != BF__T_AXIS_NAME) {
        uint64_t x, y;
        if (bf_units_parse_count(a, &x) == BF_OK && bf_units_parse_count(b, &y) == BF_OK)
            return x == y;
    }
    return strcmp(a, b) == 0;
}

/* Every member of group obj put into parent as a dotted key "<prefix>.<member>" (nested groups
 * flattened too); takes obj's reference. */
static void settings_flatten_into(json_t *parent, const char *prefix, json_t *obj)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        char *key = bf_asprintf("%s.%s", prefix, k);
        if (json_is_object(v))
            settings_flatten_into(parent, key, json_incref(v));
        else
            json_object_set(parent, key, v);
        free(key);
    }
    json_decref(obj);
}

/* Settings: put value at a dotted path under {"index": ...}; takes the value's reference. A
 * name that is both a value and a group (OpenSearch k-NN's index.knn: true beside
 * index.knn.algo_param.ef_search) is kept as dotted keys from there on
 * ({"index": {"knn": true, "knn.algo_param.ef_search": 100}}): the engines read settings flat,
 * so a dotted key inside an object is the same setting (docs/scenario.md, index.settings). */
static int settings_put(json_t *root, const char *dotted, json_t *val, char *err, size_t errsz)
{
    const char *path = dotted;
    if (strncmp(path, "index.", 6) == 0)
        path += 6;
    json_t *cur = json_object_get(root, "index");
    if (cur == NULL) {
        cur = json_object();
        json_object_set_new(root, "index", cur);
    }
    if (strcmp(dotted, "index") == 0 || path[0] == '\0' || path[strlen(path) - 1] == '.' ||
        strstr(path, "..") || path[0] == '.') {
        snprintf(err, errsz, "'%s' is not a setting name", dotted);
        json_decref(val);
        return BF_E_INVAL;
    }
    char seg[256];
    const char *s = path;
    for (;;) {
        const char *dot = strchr(s, '.');
        size_t l = dot ? (size_t)(dot - s) : strlen(s);
        if (l >= sizeof seg) {
            snprintf(err, errsz, "setting name too long");
            json_decref(val);
            return BF_E_INVAL;
        }
        memcpy(seg, s, l);
        seg[l] = '\0';
        json_t *child = json_object_get(cur, seg);
        if (dot == NULL) {
            if (json_is_object(child) && !json_is_object(val)) {
                /* a group of that name came first: its members become dotted keys */
                json_t *grp = json_incref(child);
                json_object_del(cur, seg);
                settings_flatten_into(cur, seg, grp);
            }
            json_object_set_new(cur, seg, val);
            return BF_OK;
        }
        if (child != NULL && !json_is_object(child)) {
            /* a value of that name came first: the rest of the name is one dotted key here */
            json_object_set_new(cur, s, val);
            return BF_OK;
        }
        if (child == NULL) {
            child = json_object();
            json_object_set_new(cur, seg, child);
        }
        cur = child;
        s = dot + 1;
    }
}

/* index.settings (a YAML mapping, nested or with dotted keys) into m->settings. */
static int flatten_settings(mx *m, const bf_ynode_t *n, const char *prefix)
{
    for (size_t i = 0; i < n->n; i++) {
        const bf_ynode_t *k = n->items[2 * i], *v = n->items[2 * i + 1];
        char path[512];
        int w = prefix[0] ? snprintf(path, sizeof path, "%s.%s", prefix, k->value)
                          : snprintf(path, sizeof path, "%s", k->value);
        if (w < 0 || (size_t)w >= sizeof path)
            return bf__err(m->L, k, BF_E_INVAL, "index.settings: setting name too long");
        if (v->kind == BF_Y_MAP) {
            int rc = flatten_settings(m, v, path);
            if (rc != BF_OK)
                return rc;
            continue;
        }
        char err[300];
        if (settings_put(m->settings, path, bf_y_to_json(v), err, sizeof err) != BF_OK)
            return bf__err(m->L, k, BF_E_INVAL, "index.settings: %s", err);
    }
    return BF_OK;
}

/* Flattens matrix `settings:` (nested) into settings.<path> parameters. */
static int matrix_settings(mx *m, const bf_ynode_t *n, const char *prefix);

static int add_matrix_param(mx *m, const char *name, int row, const bf_ynode_t *key,
                            const bf_ynode_t *val)
{
    bf__load_t *L = m->L;
    char where[300];
    snprintf(where, sizeof where, "matrix.%s", name);
    size_t pi = find_param(m, name);
    if (pi != (size_t)-1 && (m->p[pi].list || m->p[pi].fixed))
        return keep(m, bf__err(L, key, BF_E_INVAL, "%s: given twice; remove one", where));
    if (pi == (size_t)-1)
        pi = add_param(m, name, row);
    param *p = &m->p[pi];
    if (val->kind == BF_Y_SEQ) {
        if (val->n == 0)
            return keep(m, bf__err(L, val, BF_E_INVAL,
                                   "%s: empty list; give at least one "
                                   "value or remove the axis",
                                   where));
        p->list = val;
        p->values = bf_calloc(val->n, sizeof *p->values);
        p->nvalues = val->n;
        for (size_t i = 0; i < val->n; i++) {
            const bf_ynode_t *it = val->items[i];
            uint64_t num;
            int rc = check_value(m, p, it, where, &num);
            if (rc != BF_OK) {
                if ((rc = keep(m, rc)) != BF_OK)
                    return rc;
                continue; /* validate: the next value may be wrong too */
            }
            int twice = 0;
            for (size_t j = 0; j < i && !twice; j++) {
                if (p->values[j].text == NULL || !same_value(p, p->values[j].text, it->value))
                    continue;
                const bf_ynode_t *first = val->items[j];
                if (strcmp(first->value, it->value) == 0)
                    rc = bf__err(L, it, BF_E_INVAL,
                                 "%s: value '%s' is listed twice (first "
                                 "at %u:%u); remove one",
                                 where, it->value, first->line, first->col);
                else
                    rc = bf__err(L, it, BF_E_INVAL,
                                 "%s: value '%s' is listed twice: it "
                                 "equals '%s' at %u:%u; remove one",
                                 where, it->value, first->value, first->line, first->col);
                if ((rc = keep(m, rc)) != BF_OK)
                    return rc;
                twice = 1;
            }
            if (twice)
                continue;
            p->values[i].text = bf__keep(L->sc, it->value);
            p->values[i].node = it;
        }
        add_axis(m, pi);
        return BF_OK;
    }
    if (val->kind == BF_Y_SCALAR && bf_y_is_null(val))
        return keep(m, bf__err(L, val, BF_E_INVAL,
                               "%s: empty; give a list of values (an "
                               "axis) or one value",
                               where));
    uint64_t num;
    int rc = check_value(m, p, val, where, &num);
    if (rc != BF_OK)
        return keep(m, rc);
    p->fixed = val;
    return BF_OK;
}

static int matrix_settings(mx *m, const bf_ynode_t *n, const char *prefix)
{
    for (size_t i = 0; i < n->n; i++) {
        const bf_ynode_t *k = n->items[2 * i], *v = n->items[2 * i + 1];
        char path[512];
        int w = snprintf(path, sizeof path, "%s.%s", prefix, k->value);
        if (w < 0 || (size_t)w >= sizeof path) {
            int rc = keep(m, bf__err(m->L, k, BF_E_INVAL,
                                     "matrix.%s: name too long; at most "
                                     "%zu characters",
                                     prefix, sizeof path - 1));
            if (rc != BF_OK)
                return rc;
            continue;
        }
        int rc =
            v->kind == BF_Y_MAP ? matrix_settings(m, v, path) : add_matrix_param(m, path, -1, k, v);
        if (rc != BF_OK)
            return rc;
    }
    return BF_OK;
}

/* Resolves a parameter name used by include/exclude: a core axis or settings.<path>. */
static int lookup_param_name(mx *m, const bf_ynode_t *key, const char *where, size_t *pi,
                             int create)
{
    const char *name = key->value;
    *pi = find_param(m, name);
    if (*pi != (size_t)-1)
        return BF_OK;
    if (strncmp(name, "settings.", 9) == 0 && name[9] && create) {
        *pi = add_param(m, name, -1);
        return BF_OK;
    }
    char sug[64];
    const char *dym = bf__did_you_mean_key(name, "matrix", sug, sizeof sug);
    if (dym && (strcmp(dym, "include") == 0 || strcmp(dym, "exclude") == 0))
        dym = NULL;
    return bf__err(m->L, key, BF_E_INVAL, "%s: '%s' is not an axis%s%s%s", where, name,
                   dym ? "; did you mean '"
                       : " (axes: indices, shards, replicas, batch_size, "
                         "concurrency, compression, target_rate, "
                         "routing_mode, target, agents, "
                         "settings.<name>)",
                   dym ? dym : "", dym ? "'?" : "");
}

/* ---- parsing the matrix -------------------------------------------------------------------- */

/* The key table's row of the axis `name` (matrix.<name>), or -1 when it is no axis (include,
 * exclude and settings[.<name>] are handled before). */
static int axis_row(const char *name)
{
    char path[160];
    snprintf(path, sizeof path, "matrix.%s", name);
    return strlen(name) < 100 ? bf__key_find(path) : -1;
}

/* The error of an unknown axis at its key k (with a did-you-mean when one is close). */
static int unknown_axis(bf__load_t *L, const bf_ynode_t *k)
{
    char sug[64];
    const char *dym = bf__did_you_mean_key(k->value, "matrix", sug, sizeof sug);
    if (dym)
        return bf__err(L, k, BF_E_INVAL, "matrix.%s: unknown axis; did you mean '%s'?", k->value,
                       dym);
    return bf__err(L, k, BF_E_INVAL,
                   "matrix.%s: unknown axis; axes are indices, shards, replicas, batch_size, "
                   "concurrency, compression, target_rate, routing_mode, target, agents and "
                   "settings.<name>",
                   k->value);
}

static int parse_matrix(mx *m)
{
    bf__load_t *L = m->L;
    const bf_ynode_t *mat = L->top[BF__K_MATRIX].node;
    if (mat == NULL || mat->kind != BF_Y_MAP)
        return BF_OK;
    for (size_t i = 0; i < mat->n; i++) {
        const bf_ynode_t *k = mat->items[2 * i], *v = mat->items[2 * i + 1];
        const char *name = k->value;
        int rc;
        if (strcmp(name, "include") == 0 || strcmp(name, "exclude") == 0) {
            if (!(v->kind == BF_Y_SCALAR && bf_y_is_null(v)) && v->kind != BF_Y_SEQ) {
                rc = keep(m, bf__err(L, v, BF_E_INVAL,
                                     "matrix.%s: expected a list of mappings "
                                     "like {shards: 2, batch_size: 500}",
                                     name));
                if (rc != BF_OK)
                    return rc;
                continue;
            }
            if (name[0] == 'i')
                m->include = v->kind == BF_Y_SEQ ? v : NULL;
            else
                m->exclude = v->kind == BF_Y_SEQ ? v : NULL;
            continue;
        }
        if (strcmp(name, "settings") == 0) {
            rc = v->kind == BF_Y_MAP
                     ? matrix_settings(m, v, "settings")
                     : keep(m, bf__err(L, v, BF_E_INVAL,
                                       "matrix.settings: expected a mapping "
                                       "of setting names to lists, e.g. {refresh_interval: "
                                       "[1s, -1]}"));
        } else if (strncmp(name, "settings.", 9) == 0 && name[9]) {
            rc = add_matrix_param(m, name, -1, k, v);
        } else {
            int row = axis_row(name);
            rc = row < 0 ? keep(m, unknown_axis(L, k)) : add_matrix_param(m, name, row, k, v);
        }
        if (rc != BF_OK)
            return rc;
        if (m->naxes > BF__MAX_AXES)
            return bf__err(L, k, BF_E_TOOBIG, "matrix: more than %u axes", BF__MAX_AXES);
    }
    return BF_OK;
}

/* Base values of every parameter (see the file comment). */
static void set_bases(mx *m)
{
    bf__load_t *L = m->L;
    bf_scenario_t *sc = L->sc;
    json_t *ix = json_object_get(m->settings, "index");
    for (size_t i = 0; i < m->np; i++) {
        param *p = &m->p[i];
        if (p->fixed) {
            p->base.text = bf__keep(sc, p->fixed->value);
            p->base.node = p->fixed;
            continue;
        }
        char buf[64];
        const char *t = NULL;
        const bf_ynode_t *node = NULL;
        json_t *j;
        switch (i < P_CORE ? (int)i : -1) {
        case P_INDICES:
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)L->top[BF__K_INDEX_COUNT].u);
            t = buf;
            node = L->top[BF__K_INDEX_COUNT].node;
            break;
        case P_SHARDS:
        case P_REPLICAS:
            j = json_object_get(ix, i == P_SHARDS ? "number_of_shards" : "number_of_replicas");
            if (json_is_integer(j))
                snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(j));
            else if (json_is_string(j))
                snprintf(buf, sizeof buf, "%s", json_string_value(j));
            else
                snprintf(buf, sizeof buf, "%s", i == P_SHARDS ? "1" : "0");
            t = buf;
            node = j ? L->top[BF__K_INDEX_SETTINGS].node : NULL;
            break;
        case P_BATCH: t = "1000"; break;
        case P_CONC: t = "1"; break;
        case P_COMP:
            t = sc->request.compression == BF_COMPRESS_GZIP ? "gzip" : "none";
            node = L->top[BF__K_REQ_COMPRESSION].node;
            break;
        case P_RATE:
            t = L->top[BF__K_RUN_TARGET_RATE].s ? L->top[BF__K_RUN_TARGET_RATE].s : "0";
            node = L->top[BF__K_RUN_TARGET_RATE].node;
            break;
        case P_SCLIENTS:
            snprintf(buf, sizeof buf, "%u", sc->search.enabled ? sc->search.clients : 0u);
            t = buf;
            node = L->top[BF__K_SEARCH_CLIENTS].node;
            break;
        case P_SRATE:
            t = sc->search.enabled && L->top[BF__K_SEARCH_RATE].s ? L->top[BF__K_SEARCH_RATE].s
                                                                  : "0";
            node = L->top[BF__K_SEARCH_RATE].node;
            break;
        case P_ROUTE:
            t = sc->request.routing_mode == BF_ROUTE_NODE    ? "node"
                : sc->request.routing_mode == BF_ROUTE_SHARD ? "shard"
                                                             : "none";
            node = L->top[BF__K_REQ_ROUTING_MODE].node;
            break;
        case P_TARGET: t = NULL; break; /* the target: section */
        case P_AGENTS:
            snprintf(buf, sizeof buf, "%u", sc->run.agents);
            t = buf;
            node = L->top[BF__K_RUN_AGENTS].node;
            break;
        default: t = NULL; break;
        }
        p->base.text = t ? bf__keep(sc, t) : NULL;
        p->base.node = node;
    }
}

/* ---- one cell ------------------------------------------------------------------------------ */

static void sanitize_id(bf_buf_t *b, const char *s)
{
    for (; *s; s++) {
        char c = *s;
        int ok =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.';
        bf_buf_append(b, ok ? &c : "_", 1);
    }
}

static const char *last_component(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot ? dot + 1 : name;
}

/* FNV-1a */
static size_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return (size_t)h;
}

/* Inserts id into the set; returns 0 if it was already there. */
static int id_insert(mx *m, const char *id)
{
    size_t mask = m->ids_cap - 1, h = hash_str(id) & mask;
    while (m->ids[h]) {
        if (strcmp(m->ids[h], id) == 0)
            return 0;
        h = (h + 1) & mask;
    }
    m->ids[h] = (char *)id;
    return 1;
}

/* Resolves {placeholder} in the index name pattern for one cell; k = index number. */
static int index_name_ok(bf__load_t *L, const bf_ynode_t *node, const char *key, char *name,
                         char **out);

static int render_index_name(mx *m, const cval *cv, uint32_t k, uint32_t indices, char **out)
{
    bf__load_t *L = m->L;
    const char *pat = L->sc->index.name;
    const bf_ynode_t *pn = L->top[BF__K_INDEX_NAME].node;
    const bf_document_spec_t *d = &L->sc->document;
    if (k == 0 && d->corpus_by_file && indices != d->ncorpus_files) {
        const bf_ynode_t *at = L->top[BF__K_CORPUS_INDICES].node;
        return bf_diag_set(L->diag, BF_E_INVAL,
                           "%s:%u:%u: document.corpus.indices: by_file sends file k's documents "
                           "to the cell's index k, but the corpus has %zu file%s and the cell "
                           "%u ind%s; give as many indices (index.names, or index.count) as "
                           "files",
                           L->origin, at ? at->line : 0, at ? at->col : 0, d->ncorpus_files,
                           d->ncorpus_files == 1 ? "" : "s", indices, indices == 1 ? "ex" : "ices");
    }
    if (L->sc->index.nnames) {
        /* index.names: the names as written, as many as the cell has indices */
        if (indices != L->sc->index.nnames) {
            const bf_ynode_t *at = L->top[BF__K_INDEX_NAMES].node;
            return bf_diag_set(L->diag, BF_E_INVAL,
                               "%s:%u:%u: index.names names %zu indices, a cell has %u "
                               "(matrix.indices): with index.names, leave the indices axis out",
                               L->origin, at ? at->line : 0, at ? at->col : 0, L->sc->index.nnames,
                               indices);
        }
        return index_name_ok(L, L->top[BF__K_INDEX_NAMES].node, "index.names",
                             bf_strdup(L->sc->index.names[k]), out);
    }
    const char *ph = strstr(pat, "$[[");
    if (ph) {
        uint32_t line = pn ? pn->line : 0, col = pn ? pn->col : 0;
        if (pn)
            bf_ydoc_locate(&L->doc, pn, (size_t)(ph - pat), "$[[", &line, &col);
        return bf_diag_set(L->diag, BF_E_INVAL,
                           "%s:%u:%u: index.name: $[[...]] placeholders "
                           "are for documents; index names use {axis} placeholders, and several "
                           "indices per cell come from index.count (names <name>-0.. or {i})",
                           L->origin, line, col);
    }
    bf_buf_t b;
    bf_buf_init(&b, 4096);
    int has_i = 0;
    const char *s = pat;
    while (*s) {
        if (*s != '{') {
            bf_buf_append(&b, s, 1);
            s++;
            continue;
        }
        const char *close = strchr(s, '}');
        uint32_t line = pn ? pn->line : 0, col = pn ? pn->col : 0;
        if (pn)
            bf_ydoc_locate(&L->doc, pn, (size_t)(s - pat), "{", &line, &col);
        if (close == NULL || close == s + 1 || close - s > 200) {
            bf_buf_cleanup(&b);
            return bf_diag_set(L->diag, BF_E_INVAL,
                               "%s:%u:%u: index.name: '{' without a name "
                               "and '}'; placeholders look like {shards}",
                               L->origin, line, col);
        }
        char key[256];
        memcpy(key, s + 1, (size_t)(close - s - 1));
        key[close - s - 1] = '\0';
        const char *val = NULL;
        char num[24];
        if (strcmp(key, "i") == 0 || strncmp(key, "i+", 2) == 0) {
            /* {i+N}: numbered from N, e.g. loadgen's test-$[[suffix]] over a range 10..13 */
            uint64_t first = 0;
            if (key[1] == '+' && (bf_units_parse_count(key + 2, &first) != BF_OK ||
                                  first > 1000000000 || key[2] < '0' || key[2] > '9')) {
                bf_buf_cleanup(&b);
                return bf_diag_set(L->diag, BF_E_INVAL,
                                   "%s:%u:%u: index.name: {%s}: expected "
                                   "{i} or {i+N} with N a whole number up to 1000000000, e.g. "
                                   "{i+10} for names from 10",
                                   L->origin, line, col, key);
            }
            snprintf(num, sizeof num, "%llu", (unsigned long long)(first + k));
            val = num;
            has_i = 1;
        } else {
            size_t pi = find_param(m, key);
            if (pi == (size_t)-1) {
                /* a settings axis by its last component, if unambiguous */
                size_t found = (size_t)-1, hits = 0;
                for (size_t j = P_CORE; j < m->np; j++)
                    if (strcmp(last_component(m->p[j].name), key) == 0) {
                        found = j;
                        hits++;
                    }
                if (hits == 1)
                    pi = found;
            }
            if (pi == (size_t)-1) {
                bf_buf_cleanup(&b);
                return bf_diag_set(L->diag, BF_E_INVAL,
                                   "%s:%u:%u: index.name: unknown "
                                   "placeholder {%s}; use {shards}, {replicas}, {batch_size}, "
                                   "{concurrency}, {indices}, {i} or another axis name",
                                   L->origin, line, col, key);
            }
            val = cv[pi].text ? cv[pi].text : "";
        }
        for (const char *v = val; *v; v++) {
            char c = *v;
            if (c >= 'A' && c <= 'Z')
                c = (char)(c - 'A' + 'a');
            if (strchr("\\/*?\"<>| ,#:", c) || (unsigned char)c < 0x20)
                c = '_';
            bf_buf_append(&b, &c, 1);
        }
        s = close + 1;
    }
    if (!has_i && indices > 1)
        bf_buf_appendf(&b, "-%u", k);
    return index_name_ok(L, pn ? pn : L->top[BF__K_NAME].node, "index.name", bf_buf_steal(&b), out);
}

/* name (owned; freed on error) against OpenSearch's index name rules: *out = name, else an
 * error at node naming key */
static int index_name_ok(bf__load_t *L, const bf_ynode_t *node, const char *key, char *name,
                         char **out)
{
    const char *bad = NULL;
    size_t nl = strlen(name);
    if (nl == 0 || nl > 255)
        bad = "must have 1 to 255 characters";
    else if (name[0] == '-' || name[0] == '_' || name[0] == '+')
        bad = "cannot start with '-', '_' or '+'";
    else if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        bad = "cannot be '.' or '..'";
    for (const char *c = name; !bad && *c; c++) {
        if (*c >= 'A' && *c <= 'Z')
            bad = "must be lowercase";
        else if (strchr("\\/*?\"<>| ,#:", *c) || (unsigned char)*c < 0x20)
            bad = "cannot contain \\ / * ? \" < > | space , # or :";
    }
    if (bad) {
        int rc = bf__err(L, node, BF_E_INVAL,
                         "%s: '%s' "
                         "%s (OpenSearch index name rules)",
                         key, name, bad);
        free(name);
        return rc;
    }
    *out = name;
    return BF_OK;
}

static uint32_t as_u32(const char *t)
{
    uint64_t u = 0;
    bf_units_parse_count(t, &u);
    return (uint32_t)u;
}

static int make_cell(mx *m, const cval *cv, size_t *ncells)
{
    bf__load_t *L = m->L;
    bf_scenario_t *sc = L->sc;
    size_t c = *ncells;
    bf_cell_t *cell = &sc->cells[c];
    memset(cell, 0, sizeof *cell);
    cell->index = c;
    cell->indices = as_u32(cv[P_INDICES].text);
    cell->shards = as_u32(cv[P_SHARDS].text);
    cell->replicas = as_u32(cv[P_REPLICAS].text);
    cell->batch_size = as_u32(cv[P_BATCH].text);
    cell->action = L->sc->document.action;
    cell->concurrency = as_u32(cv[P_CONC].text);
    cell->compression = strcmp(cv[P_COMP].text, "gzip") == 0 ? BF_COMPRESS_GZIP : BF_COMPRESS_NONE;
    cell->routing_mode = strcmp(cv[P_ROUTE].text, "node") == 0    ? BF_ROUTE_NODE
                         : strcmp(cv[P_ROUTE].text, "shard") == 0 ? BF_ROUTE_SHARD
                                                                  : BF_ROUTE_NONE;
    uint64_t rate = 0;
    bf_units_parse_count(cv[P_RATE].text, &rate);
    cell->target_rate = (double)rate;
    cell->search_clients = as_u32(cv[P_SCLIENTS].text);
    uint64_t srate = 0;
    bf_units_parse_count(cv[P_SRATE].text, &srate);
    cell->search_rate = (double)srate;
    cell->agents = as_u32(cv[P_AGENTS].text);
    cell->target = &sc->target;
    for (size_t t = 0; cv[P_TARGET].text && t < sc->ntargets; t++)
        if (strcmp(sc->target_names[t], cv[P_TARGET].text) == 0) {
            cell->target = &sc->targets[t];
            cell->target_name = sc->target_names[t];
        }
    if (cell->routing_mode != BF_ROUTE_NONE && sc->target.auth == BF_AUTH_AWS)
        return bf__err(L, cv[P_ROUTE].node ? cv[P_ROUTE].node : L->top[BF__K_TARGET_AUTH].node,
                       BF_E_INVAL,
                       "routing_mode %s cannot be used with target.auth.aws: Amazon OpenSearch "
                       "Service and Serverless do not let clients address their nodes; use "
                       "routing_mode: none",
                       cv[P_ROUTE].text);
    if (cell->indices == 0)
        cell->indices = 1;
    /* id */
    bf_buf_t b;
    bf_buf_init(&b, 0);
    bf_buf_appendf(&b, "i%u-s%u-r%u-b%u-c%u", cell->indices, cell->shards, cell->replicas,
                   cell->batch_size, cell->concurrency);
    if (m->p[P_COMP].is_axis)
        bf_buf_appendf(&b, "-%s", cv[P_COMP].text);
    if (m->p[P_RATE].is_axis) {
        bf_buf_appendz(&b, "-t");
        sanitize_id(&b, cv[P_RATE].text);
    }
    if (sc->search.enabled)
        bf_buf_appendf(&b, "-q%u", cell->search_clients);
    if (m->p[P_SRATE].is_axis) {
        bf_buf_appendz(&b, "-qr");
        sanitize_id(&b, cv[P_SRATE].text);
    }
    if (m->p[P_ROUTE].is_axis)
        bf_buf_appendf(&b, "-route_%s", cv[P_ROUTE].text);
    if (m->p[P_TARGET].is_axis) {
        bf_buf_appendz(&b, "-");
        sanitize_id(&b, cv[P_TARGET].text ? cv[P_TARGET].text : "target");
    }
    if (m->p[P_AGENTS].is_axis)
        bf_buf_appendf(&b, "-a%u", cell->agents);
    for (size_t a = 0; a < m->naxes; a++) {
        size_t pi = m->axis[a];
        if (pi < P_CORE || cv[pi].text == NULL)
            continue;
        bf_buf_appendz(&b, "-");
        sanitize_id(&b, last_component(m->p[pi].name));
        bf_buf_appendz(&b, "_");
        sanitize_id(&b, cv[pi].text);
    }
    if (b.len > 200) {
        b.len = 180;
        b.data[b.len] = '\0';
        bf_buf_appendf(&b, "-x%zu", c);
    }
    char *id = bf_buf_steal(&b);
    if (!id_insert(m, id)) {
        char *id2 = bf_asprintf("%s-x%zu", id, c);
        free(id);
        id = id2;
        id_insert(m, id);
    }
    cell->id = id;
    (*ncells)++; /* from here on the cell is owned by the scenario (freed by destroy) */
    /* index names */
    cell->index_names = bf_calloc(cell->indices, sizeof *cell->index_names);
    for (uint32_t k = 0; k < cell->indices; k++) {
        int rc = render_index_name(m, cv, k, cell->indices, &cell->index_names[k]);
        if (rc != BF_OK) {
            cell->indices = k;
            return rc;
        }
    }
    /* settings */
    json_t *st = json_deep_copy(m->settings);
    json_t *ix = json_object_get(st, "index");
    if (!bf_target_serverless(&sc->target)) {
        json_object_set_new(ix, "number_of_shards", json_integer(cell->shards));
        json_object_set_new(ix, "number_of_replicas", json_integer(cell->replicas));
    }
    for (size_t pi = P_CORE; pi < m->np; pi++) {
        if (cv[pi].text == NULL)
            continue;
        char err[300];
        json_t *v = cv[pi].node ? bf_y_scalar_to_json(cv[pi].node) : json_string(cv[pi].text);
        if (settings_put(st, m->p[pi].name + 9, v, err, sizeof err) != BF_OK) {
            json_decref(st);
            return bf__err(L, cv[pi].node, BF_E_INVAL, "matrix.%s: %s", m->p[pi].name, err);
        }
    }
    cell->settings_json = json_dumps(st, JSON_COMPACT);
    json_decref(st);
    /* axes */
    bf_axis_value_t *ax = &sc->cell_axes[c * m->naxes];
    for (size_t a = 0; a < m->naxes; a++) {
        size_t pi = m->axis[a];
        ax[a].axis = sc->axis_names[a];
        ax[a].value = cv[pi].text ? cv[pi].text : bf__keep(sc, "");
    }
    cell->axes = m->naxes ? ax : NULL;
    cell->naxes = m->naxes;
    L->cell_batch_node[c] = cv[P_BATCH].node;
    L->cell_replicas_node[c] = cv[P_REPLICAS].node;
    return BF_OK;
}

/* Does cell value vector cv match every key of an exclude entry? */
static int excluded(mx *m, const cval *cv)
{
    if (m->exclude == NULL)
        return 0;
    for (size_t e = 0; e < m->exclude->n; e++) {
        const bf_ynode_t *ent = m->exclude->items[e];
        int all = ent->n > 0;
        for (size_t i = 0; i < ent->n && all; i++) {
            size_t pi = find_param(m, ent->items[2 * i]->value);
            if (!same_value(&m->p[pi], cv[pi].text, ent->items[2 * i + 1]->value))
                all = 0;
        }
        if (all)
            return 1;
    }
    return 0;
}

static int check_include_exclude(mx *m)
{
    bf__load_t *L = m->L;
    if (m->exclude) {
        for (size_t e = 0; e < m->exclude->n; e++) {
            const bf_ynode_t *ent = m->exclude->items[e];
            char where[64];
            snprintf(where, sizeof where, "matrix.exclude[%zu]", e);
            int erc;
            if (!entry_is_map(m, ent, where, "{shards: 2, concurrency: 8}", &erc)) {
                if (erc != BF_OK)
                    return erc;
                continue;
            }
            for (size_t i = 0; i < ent->n; i++) {
                const bf_ynode_t *k = ent->items[2 * i], *v = ent->items[2 * i + 1];
                size_t pi;
                int rc = lookup_param_name(m, k, where, &pi, 0);
                if (rc != BF_OK) {
                    if ((rc = keep(m, rc)) != BF_OK)
                        return rc;
                    continue;
                }
                param *p = &m->p[pi];
                uint64_t num;
                if (p->list == NULL)
                    rc = bf__err(L, k, BF_E_INVAL,
                                 "%s: '%s' is not a list axis of the "
                                 "matrix, so there is nothing to exclude; remove it",
                                 where, k->value);
                else
                    rc = check_value(m, p, v, where, &num);
                if (rc != BF_OK) {
                    if ((rc = keep(m, rc)) != BF_OK)
                        return rc;
                    continue;
                }
                int found = 0;
                for (size_t j = 0; j < p->nvalues && !found; j++)
                    found = same_value(p, p->values[j].text, v->value);
                if (!found && (rc = keep(m, bf__err(L, v, BF_E_INVAL,
                                                    "%s: %s '%s' is not "
                                                    "among the axis values; exclude one that "
                                                    "matrix.%s lists",
                                                    where, k->value, v->value, k->value))) != BF_OK)
                    return rc;
            }
        }
    }
    if (m->include) {
        for (size_t e = 0; e < m->include->n; e++) {
            const bf_ynode_t *ent = m->include->items[e];
            char where[64];
            snprintf(where, sizeof where, "matrix.include[%zu]", e);
            int erc;
            if (!entry_is_map(m, ent, where, "{shards: 2, batch_size: 500}", &erc)) {
                if (erc != BF_OK)
                    return erc;
                continue;
            }
            for (size_t i = 0; i < ent->n; i++) {
                const bf_ynode_t *k = ent->items[2 * i], *v = ent->items[2 * i + 1];
                size_t pi;
                uint64_t num;
                int rc = lookup_param_name(m, k, where, &pi, 1);
                if (rc == BF_OK)
                    rc = check_value(m, &m->p[pi], v, where, &num);
                if (rc != BF_OK) {
                    if ((rc = keep(m, rc)) != BF_OK)
                        return rc;
                    continue;
                }
                add_axis(m, pi);
            }
        }
    }
    return BF_OK;
}

int bf__matrix_expand(bf__load_t *L)
{
    bf_scenario_t *sc = L->sc;
    mx m = {.L = L};
    int rc = BF_OK;
    cval *cv = NULL;
    m.settings = json_object();
    json_object_set_new(m.settings, "index", json_object());
    const bf_ynode_t *sn = L->top[BF__K_INDEX_SETTINGS].node;
    if (sn && sn->kind == BF_Y_MAP && (rc = flatten_settings(&m, sn, "")) != BF_OK)
        goto error;
    sc->index.settings_json = json_dumps(m.settings, JSON_COMPACT);
    for (int i = 0; i < P_CORE; i++) {
        const char *nm = bf__keys[core_row[i]].path + 7;
        add_param(&m, nm, core_row[i]);
    }
    size_t nerrors_before = L->nerrors;
    if ((rc = parse_matrix(&m)) != BF_OK || (rc = check_include_exclude(&m)) != BF_OK)
        goto error;
    if (m.naxes > BF__MAX_AXES) {
        rc = bf__err(L, L->top[BF__K_MATRIX].node, BF_E_TOOBIG, "matrix: more than %u axes",
                     BF__MAX_AXES);
        goto error;
    }
    int no_search = !sc->search.enabled && !(L->matrix_values_only && L->matrix_no_search);
    for (int i = P_SCLIENTS; i <= P_SRATE && no_search; i++) {
        const param *p = &m.p[i];
        if (p->list || p->fixed) {
            rc = keep(&m, bf__err(L, p->list ? p->list : p->fixed, BF_E_INVAL,
                                  "matrix.%s: "
                                  "there is no search section; add search: {queries: [...]} "
                                  "(docs/scenario.md, \"Search and mixed workloads\") or "
                                  "remove the axis",
                                  p->name));
            if (rc != BF_OK)
                goto error;
        }
    }
    if (L->nerrors > nerrors_before) { /* validate: each mistake kept; no cells from them */
        rc = BF_E_INVAL;
        goto error;
    }
    if (L->matrix_values_only) /* validate after key mistakes the cells would need */
        goto error;
    set_bases(&m);
    json_t *ix = json_object_get(m.settings, "index");
    if (json_object_get(ix, "number_of_shards") && m.p[P_SHARDS].list)
        bf__warn(L, m.p[P_SHARDS].list,
                 "index.settings number_of_shards is replaced by the "
                 "matrix's shards in every cell");
    if (json_object_get(ix, "number_of_replicas") && m.p[P_REPLICAS].list)
        bf__warn(L, m.p[P_REPLICAS].list,
                 "index.settings number_of_replicas is replaced by "
                 "the matrix's replicas in every cell");
    L->sc->placement_key =
        m.p[P_SHARDS].list || m.p[P_SHARDS].fixed       ? "matrix.shards"
        : m.p[P_REPLICAS].list || m.p[P_REPLICAS].fixed ? "matrix.replicas"
        : json_object_get(ix, "number_of_shards") || json_object_get(ix, "number_of_replicas")
            ? "index.settings"
            : NULL;
    if (bf_target_serverless(&L->sc->target)) {
        /* a collection places its shards itself and refuses both settings at creation */
        const bf_ynode_t *where = m.p[P_SHARDS].list ? m.p[P_SHARDS].list : m.p[P_REPLICAS].list;
        if (where == NULL &&
            (json_object_get(ix, "number_of_shards") || json_object_get(ix, "number_of_replicas")))
            where = L->top[BF__K_INDEX_SETTINGS].node;
        if (where) {
            rc = bf__err(L, where, BF_E_INVAL,
                         "%s: OpenSearch Serverless (target.auth.aws.service: aoss) places "
                         "shards and replicas itself and refuses number_of_shards and "
                         "number_of_replicas: remove them (rows then say shards and replicas "
                         "were not chosen by bulkfleet)",
                         m.p[P_SHARDS].list     ? "matrix.shards"
                         : m.p[P_REPLICAS].list ? "matrix.replicas"
                                                : "index.settings");
            goto error;
        }
    }
    /* size of the factorial */
    uint64_t total = 1;
    for (size_t a = 0; a < m.naxes; a++) {
        const param *p = &m.p[m.axis[a]];
        if (p->list == NULL)
            continue;
        total *= p->nvalues;
        if (total > BF_MAX_CELLS) {
            rc = bf__err(L, L->top[BF__K_MATRIX].node, BF_E_TOOBIG,
                         "matrix: more than %u "
                         "cells; remove axis values or use include for the cells you need",
                         BF_MAX_CELLS);
            goto error;
        }
    }
    size_t ninclude = m.include ? m.include->n : 0;
    size_t cap = (size_t)total + ninclude;
    if (cap > BF_MAX_CELLS) {
        rc = bf__err(L, L->top[BF__K_MATRIX].node, BF_E_TOOBIG, "matrix: more than %u cells",
                     BF_MAX_CELLS);
        goto error;
    }
    sc->naxes = m.naxes;
    sc->axis_names = bf_calloc(m.naxes ? m.naxes : 1, sizeof *sc->axis_names);
    for (size_t a = 0; a < m.naxes; a++)
        sc->axis_names[a] = bf_strdup(m.p[m.axis[a]].name);
    sc->cells = bf_calloc(cap, sizeof *sc->cells);
    sc->cell_axes = bf_calloc(cap * (m.naxes ? m.naxes : 1), sizeof *sc->cell_axes);
    L->cell_batch_node = bf_calloc(cap, sizeof *L->cell_batch_node);
    L->cell_replicas_node = bf_calloc(cap, sizeof *L->cell_replicas_node);
    m.ids_cap = 16;
    while (m.ids_cap < cap * 2)
        m.ids_cap *= 2;
    m.ids = bf_calloc(m.ids_cap, sizeof *m.ids);
    cv = bf_calloc(m.np, sizeof *cv);
    size_t ncells = 0;
    for (uint64_t k = 0; k < total; k++) {
        for (size_t pi = 0; pi < m.np; pi++)
            cv[pi] = m.p[pi].base;
        /* mixed radix, first axis most significant */
        uint64_t rest = k;
        for (size_t a = m.naxes; a-- > 0;) {
            const param *p = &m.p[m.axis[a]];
            if (p->list == NULL)
                continue;
            cv[m.axis[a]] = p->values[rest % p->nvalues];
            rest /= p->nvalues;
        }
        if (excluded(&m, cv))
            continue;
        rc = make_cell(&m, cv, &ncells);
        sc->ncells = ncells;
        if (rc != BF_OK)
            goto error;
    }
    for (size_t e = 0; e < ninclude; e++) {
        const bf_ynode_t *ent = m.include->items[e];
        for (size_t pi = 0; pi < m.np; pi++)
            cv[pi] = m.p[pi].base;
        for (size_t i = 0; i < ent->n; i++) {
            size_t pi = find_param(&m, ent->items[2 * i]->value);
            cv[pi].text = bf__keep(sc, ent->items[2 * i + 1]->value);
            cv[pi].node = ent->items[2 * i + 1];
        }
        /* an include equal to a cell already there adds nothing */
        int dup = 0;
        for (size_t c = 0; c < ncells && !dup; c++) {
            const bf_cell_t *o = &sc->cells[c];
            dup = o->indices == as_u32(cv[P_INDICES].text) &&
                  o->shards == as_u32(cv[P_SHARDS].text) &&
                  o->replicas == as_u32(cv[P_REPLICAS].text) &&
                  o->batch_size == as_u32(cv[P_BATCH].text) &&
                  o->concurrency == as_u32(cv[P_CONC].text) &&
                  o->search_clients == as_u32(cv[P_SCLIENTS].text);
            for (size_t a = 0; a < m.naxes && dup; a++) {
                size_t pi = m.axis[a];
                const char *t = cv[pi].text ? cv[pi].text : "";
                if (!same_value(&m.p[pi], o->axes[a].value, t))
                    dup = 0;
            }
        }
        if (dup) {
            bf__warn(L, ent, "matrix.include[%zu] repeats a cell of the matrix; ignored", e);
            continue;
        }
        rc = make_cell(&m, cv, &ncells);
        sc->ncells = ncells;
        if (rc != BF_OK)
            goto error;
    }
    if (ncells == 0) {
        rc = bf__err(L, L->top[BF__K_MATRIX].node, BF_E_INVAL,
                     "matrix: exclude removes every "
                     "cell; nothing would run");
        goto error;
    }
error:
    free(cv);
    for (size_t i = 0; i < m.np; i++)
        free(m.p[i].values);
    free(m.p);
    free(m.axis);
    free(m.ids);
    json_decref(m.settings);
    return rc;
}
