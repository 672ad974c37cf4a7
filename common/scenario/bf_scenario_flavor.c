/* SPDX-License-Identifier: MIT */
/* bf_scenario_flavor.c — a scenario adapted to a service found at run: an Elastic Serverless
 * project (GET / says version.build_flavor "serverless"). The list of index settings a project
 * accepts is Elasticsearch's "Index settings available in Serverless projects" page
 * (docs/cloud.md "Elastic Cloud Serverless" keeps it). */
#include "bf_error.h"
#include "bf_scenario_int.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The index settings an Elastic Serverless project accepts, without "index."; a name ending in
 * '.' admits every setting under it (index.sort.*, index.analysis.*, index.similarity.*). */
static const char *const serverless_settings[] = {
    "codec",
    "default_pipeline",
    "dense_vector.hnsw_filter_heuristic",
    "final_pipeline",
    "hidden",
    "mode",
    "query.default_field",
    "refresh_interval",
    "sort.",
    "blocks.read_only",
    "blocks.read",
    "blocks.write",
    "blocks.metadata",
    "mapping.coerce",
    "mapping.ignore_above",
    "mapping.ignore_malformed",
    "mapping.source.mode",
    "mapping.synthetic_source_keep",
    "mapping.total_fields.limit",
    "mapping.total_fields.ignore_dynamic_beyond_limit",
    "lifecycle.origination_date",
    "time_series.start_time",
    "time_series.end_time",
    "look_ahead_time",
    "look_back_time",
    "routing_path",
    "similarity.",
    "analysis.",
};

int bf_target_managed(const bf_target_t *t)
{
    return t && (t->es_serverless || bf_target_serverless(t));
}

static int setting_allowed(const char *name)
{
    for (size_t i = 0; i < sizeof serverless_settings / sizeof serverless_settings[0]; i++) {
        const char *a = serverless_settings[i];
        size_t n = strlen(a);
        if (a[n - 1] == '.' ? strncmp(name, a, n) == 0 : strcmp(name, a) == 0)
            return 1;
    }
    return 0;
}

/* The first setting under obj (dotted path from prefix) that a project does not accept, other
 * than number_of_shards/number_of_replicas; 1 with its name in out, else 0. */
static int first_refused(json_t *obj, const char *prefix, char *out, size_t size)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        char name[512];
        snprintf(name, sizeof name, "%s%s%s", prefix, prefix[0] ? "." : "", key);
        if (json_is_object(v) && !setting_allowed(name)) {
            if (first_refused(v, name, out, size))
                return 1;
            continue;
        }
        if (strcmp(name, "number_of_shards") == 0 || strcmp(name, "number_of_replicas") == 0)
            continue;
        if (!setting_allowed(name)) {
            snprintf(out, size, "%s", name);
            return 1;
        }
    }
    return 0;
}

static void allowed_list(char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof serverless_settings / sizeof serverless_settings[0]; i++) {
        const char *a = serverless_settings[i];
        int n = snprintf(buf + used, size - used, "%s%s%s", i ? ", " : "", a,
                         a[strlen(a) - 1] == '.' ? "*" : "");
        if (n < 0 || (size_t)n >= size - used)
            return;
        used += (size_t)n;
    }
}

int bf_scenario_elastic_serverless(bf_scenario_t *sc, const uint8_t *selected, char *err,
                                   size_t size)
{
    static const char why_placement[] =
        "Elastic Serverless (GET / said build_flavor serverless) places shards and replicas "
        "itself and does not accept number_of_shards or number_of_replicas: remove %s%s (the "
        "rows then say that shards and replicas are the project's own, not measured)";
    const char *placement = sc->placement_key;
    const char *cell_id = NULL;
    for (size_t i = 0; placement == NULL && i < sc->ncells; i++) {
        const bf_cell_t *cell = &sc->cells[i];
        if (selected && !selected[i])
            continue;
        if (cell->shards != 1 || cell->replicas != 0) {
            placement = "matrix.include's shards and replicas";
            cell_id = cell->id;
        }
    }
    if (placement) {
        char where[300] = "";
        if (cell_id)
            snprintf(where, sizeof where, " (cell %s)", cell_id);
        snprintf(err, size, why_placement, placement, where);
        return BF_E_INVAL;
    }
    for (size_t i = 0; i < sc->ncells; i++) {
        const bf_cell_t *cell = &sc->cells[i];
        if (selected && !selected[i])
            continue;
        if (cell->routing_mode != BF_ROUTE_NONE) {
            snprintf(err, size,
                     "request.routing_mode %s (cell %s): Elastic Serverless (GET / said "
                     "build_flavor serverless) does not make _nodes/http and _cluster/state "
                     "public, which routing by node or shard reads: use routing_mode none",
                     cell->routing_mode == BF_ROUTE_NODE ? "node" : "shard", cell->id);
            return BF_E_INVAL;
        }
        json_t *st = json_loads(cell->settings_json ? cell->settings_json : "{}", 0, NULL);
        json_t *ix = json_object_get(st, "index");
        char bad[512];
        if (json_is_object(ix) && first_refused(ix, "", bad, sizeof bad)) {
            json_t *scen =
                json_loads(sc->index.settings_json ? sc->index.settings_json : "{}", 0, NULL);
            char probe[512];
            int from_scenario =
                first_refused(json_object_get(scen, "index"), "", probe, sizeof probe) &&
                strcmp(probe, bad) == 0;
            json_decref(scen);
            char list[1200];
            allowed_list(list, sizeof list);
            snprintf(err, size,
                     "%s.%s (cell %s): Elastic Serverless (GET / said build_flavor serverless) "
                     "does not accept the index setting index.%s; a project accepts only: %s "
                     "(Elasticsearch's list of index settings available in Serverless, "
                     "docs/cloud.md): remove it",
                     from_scenario ? "index.settings" : "matrix.settings", bad, cell->id, bad,
                     list);
            json_decref(st);
            return BF_E_INVAL;
        }
        json_decref(st);
    }
    for (size_t i = 0; i < sc->ncells; i++) {
        bf_cell_t *cell = &sc->cells[i];
        json_t *st = json_loads(cell->settings_json ? cell->settings_json : "{}", 0, NULL);
        json_t *ix = json_object_get(st, "index");
        json_object_del(ix, "number_of_shards");
        json_object_del(ix, "number_of_replicas");
        free((char *)cell->settings_json);
        cell->settings_json = json_dumps(st, JSON_COMPACT);
        json_decref(st);
    }
    sc->target.es_serverless = 1;
    /* every named host set (targets:) leads to the same project: a cell sent through one is
     * held to the same rules as one sent through target.hosts */
    for (size_t i = 0; i < sc->ntargets; i++)
        sc->targets[i].es_serverless = 1;
    return BF_OK;
}
