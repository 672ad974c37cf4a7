/* SPDX-License-Identifier: MIT */
/* bf_modcheck.c — the server modules a scenario needs, checked against the target before a run
 * (bf_modcheck.h). The dev clusters' table is deploy/devcluster-modules.tsv, compiled in as
 * bf_devmods_tsv (coordinator/CMakeLists.txt generates it at configure time). */
#include "bf_modcheck.h"

#include "bf_es.h"
#include "bf_log.h"
#include "bf_mem.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char bf_devmods_tsv[]; /* the TSV's bytes, NUL-terminated (generated) */

typedef struct devrow {
    char *engine, *module, *loaded, *instead;
} devrow;

static devrow *rows;
static size_t nrows;

/* the TSV split into rows once: tab-separated, '#' lines and the header skipped */
static void parse_table(void)
{
    if (rows)
        return;
    char *text = bf_strdup(bf_devmods_tsv); /* kept: the rows point into it */
    size_t cap = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || strncmp(line, "engine\t", 7) == 0)
            continue;
        char *f[5] = {0};
        char *p = line;
        for (int i = 0; i < 5 && p; i++) {
            f[i] = p;
            p = strchr(p, '\t');
            if (p)
                *p++ = '\0';
        }
        if (f[4] == NULL)
            continue;
        if (nrows == cap) {
            cap = cap ? 2 * cap : 64;
            rows = bf_realloc(rows, cap * sizeof *rows);
        }
        rows[nrows++] = (devrow){f[0], f[1], f[2], f[4]};
    }
    if (rows == NULL)
        rows = bf_calloc(1, sizeof *rows); /* an empty table is parsed too */
}

int bf_modcheck_devcluster(const char *engine, const char *module, const char **loaded,
                           const char **instead)
{
    parse_table();
    for (size_t i = 0; i < nrows; i++)
        if (strcmp(rows[i].engine, engine) == 0 && strcmp(rows[i].module, module) == 0) {
            *loaded = rows[i].loaded;
            *instead = rows[i].instead;
            return 1;
        }
    return 0;
}

/* How many of the answer's nodes list name (or, unless full_only, bulkfleet-<name>, a partial
 * stand-in of a dev cluster) among their modules or plugins. */
static size_t nodes_with(json_t *nodes, const char *name, int full_only)
{
    size_t have = 0;
    const char *id;
    json_t *node;
    char partial[128];
    snprintf(partial, sizeof partial, "bulkfleet-%s", name);
    json_object_foreach(nodes, id, node)
    {
        int found = 0;
        static const char *const lists[] = {"modules", "plugins"};
        for (size_t l = 0; l < 2 && !found; l++) {
            size_t i;
            json_t *m;
            json_array_foreach(json_object_get(node, lists[l]), i, m)
            {
                const char *n = json_string_value(json_object_get(m, "name"));
                if (n && (strcmp(n, name) == 0 || (!full_only && strcmp(n, partial) == 0)))
                    found = 1;
            }
        }
        have += (size_t)found;
    }
    return have;
}

size_t bf_modcheck_target(const char *path, const bf_target_t *t, const bf_modneed_t *needs,
                          size_t n)
{
    if (n == 0 || t == NULL || t->nhosts == 0)
        return 0;
    bf_target_t quick = *t; /* borrowed fields; only the connect bound differs */
    quick.connect_timeout_ms = 2000;
    bf_es_t *es = bf_es_new(&quick, 0, 5000);
    long status = 0;
    const char *body = NULL;
    bf_diag_t d = {0};
    json_t *root = NULL, *plugins = NULL;
    size_t said = 0;
    if (bf_es_request(es, "GET", "/", NULL, &status, &body, &d) != BF_OK || status != 200 ||
        (root = json_loads(body, 0, NULL)) == NULL) {
        bf_info("%s: the target %s was not asked which modules it has (%s): whether it has %s "
                "and the rest is known when the run creates the index",
                path, t->hosts[0], d.msg[0] ? d.msg : "GET / did not answer 200 with JSON",
                needs[0].module);
        goto out;
    }
    if (bf_es_request(es, "GET",
                      "/_nodes/plugins?filter_path=nodes.*.modules.name,nodes.*.plugins.name", NULL,
                      &status, &body, &d) != BF_OK ||
        status != 200 || (plugins = json_loads(body, 0, NULL)) == NULL) {
        bf_info("%s: the target %s did not say which modules it has (GET /_nodes/plugins: %s)",
                path, t->hosts[0], d.msg[0] ? d.msg : "no answer 200 with JSON");
        goto out;
    }
    json_t *ver = json_object_get(root, "version");
    const char *num = json_string_value(json_object_get(ver, "number"));
    const char *dist = json_string_value(json_object_get(ver, "distribution"));
    const char *name = json_string_value(json_object_get(root, "cluster_name"));
    int is_os = dist && strcmp(dist, "opensearch") == 0;
    char engine[48];
    long major = num ? strtol(num, NULL, 10) : 0; /* "8.17.0": what precedes the first dot */
    snprintf(engine, sizeof engine, "%s%ld", is_os ? "opensearch" : "elasticsearch", major);
    int dev = name && strcmp(name, "bulkfleet-dev") == 0;
    json_t *nodes = json_object_get(plugins, "nodes");
    size_t nnodes = json_object_size(nodes);
    for (size_t i = 0; i < n; i++) {
        const bf_modneed_t *m = &needs[i];
        int dup = 0;
        for (size_t j = 0; j < i; j++)
            dup |= strcmp(needs[j].module, m->module) == 0 && needs[j].full_only == m->full_only;
        size_t have = nodes_with(nodes, m->module, m->full_only);
        if (dup || (nnodes > 0 && have == nnodes))
            continue;
        const char *loaded = NULL, *instead = NULL;
        int row = dev && bf_modcheck_devcluster(engine, m->module, &loaded, &instead);
        char who[256];
        if (dev)
            snprintf(who, sizeof who,
                     "the %s dev cluster of scripts/devcluster.sh (%s %s at %s, cluster_name "
                     "bulkfleet-dev; deploy/devcluster-modules.tsv)",
                     engine, is_os ? "OpenSearch" : "Elasticsearch", num ? num : "?", t->hosts[0]);
        else
            snprintf(who, sizeof who, "%s (%s %s%s)", t->hosts[0],
                     is_os ? "OpenSearch" : "Elasticsearch", num ? num : "?",
                     have ? ", some of its nodes" : "");
        char way[600];
        if (row && strcmp(instead, "-") != 0)
            snprintf(way, sizeof way, "%s", instead);
        else if (dev)
            snprintf(way, sizeof way,
                     "the OpenSearch dev cluster (--engine opensearch2) or a real cluster");
        else
            snprintf(way, sizeof way,
                     "a cluster whose every node has %s (full distributions "
                     "have it)",
                     m->module);
        bf_warn("%s: %s needs the module %s%s, which the target lacks: %s (GET /_nodes/plugins "
                "lists it on %zu of %zu nodes); %s. Instead: %s",
                path, m->what, m->module, m->full_only ? " itself (not a partial stand-in)" : "",
                who, have, nnodes, m->consequence, way);
        said++;
    }
out:
    json_decref(root);
    json_decref(plugins);
    bf_es_destroy(&es);
    return said;
}
