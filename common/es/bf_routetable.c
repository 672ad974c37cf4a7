/* SPDX-License-Identifier: MIT */
/* bf_routetable.c — shard -> primary node -> HTTP address, from _cluster/state and _nodes/http. */
#include "bf_routetable.h"

#include "bf_buf.h"
#include "bf_mem.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bf_routetable_destroy(bf_routetable_t **rt_p)
{
    if (rt_p == NULL || *rt_p == NULL)
        return;
    bf_routetable_t *rt = *rt_p;
    for (size_t i = 0; i < rt->nnodes; i++) {
        free(rt->nodes[i].id);
        free(rt->nodes[i].name);
        free(rt->nodes[i].url);
        free(rt->nodes[i].addr);
        free(rt->nodes[i].resolve);
    }
    free(rt->nodes);
    for (size_t i = 0; i < rt->nindices; i++) {
        free(rt->indices[i].name);
        free(rt->indices[i].primary_node);
        free(rt->indices[i].primary_term);
    }
    free(rt->indices);
    free(rt);
    *rt_p = NULL;
}

/* A count that the state may give as a number or as a string ("3"); 0 if neither. */
static uint64_t json_count(const json_t *v)
{
    if (json_is_integer(v))
        return json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
    if (json_is_string(v)) {
        char *end = NULL;
        unsigned long long u = strtoull(json_string_value(v), &end, 10);
        return end && *end == '\0' ? u : 0;
    }
    return 0;
}

static long node_pos(const bf_routetable_t *rt, const char *id)
{
    for (size_t i = 0; i < rt->nnodes; i++)
        if (strcmp(rt->nodes[i].id, id) == 0)
            return (long)i;
    return -1;
}

long bf_routetable_find(const bf_routetable_t *rt, const char *name, size_t len)
{
    for (size_t i = 0; i < rt->nindices; i++)
        if (strlen(rt->indices[i].name) == len && memcmp(rt->indices[i].name, name, len) == 0)
            return (long)i;
    return -1;
}

static int parse_nodes(bf_routetable_t *rt, json_t *nodes, const char *scheme, bf_diag_t *d)
{
    json_t *map = json_object_get(nodes, "nodes");
    if (!json_is_object(map))
        return bf_diag_set(d, BF_E_PARSE, "_nodes/http: no \"nodes\" object in the response");
    size_t n = json_object_size(map);
    if (n > BF_MAX_RT_NODES)
        return bf_diag_set(d, BF_E_RANGE, "_nodes/http: %zu nodes, more than %u", n,
                           BF_MAX_RT_NODES);
    rt->nodes = bf_calloc(n ? n : 1, sizeof *rt->nodes);
    const char *id;
    json_t *v;
    json_object_foreach(map, id, v)
    {
        bf_rt_node_t *nd = &rt->nodes[rt->nnodes++];
        nd->id = bf_strdup(id);
        const char *name = json_string_value(json_object_get(v, "name"));
        nd->name = bf_strdup(name ? name : "");
        const char *pub =
            json_string_value(json_object_get(json_object_get(v, "http"), "publish_address"));
        if (pub == NULL || pub[0] == '\0')
            continue;
        /* "hostname/1.2.3.4:9200" when the node knows a host name: the address is after '/' */
        const char *slash = strrchr(pub, '/');
        const char *addr = slash ? slash + 1 : pub;
        const char *colon = strrchr(addr, ':');
        nd->addr = bf_strdup(addr);
        size_t namelen = slash ? (size_t)(slash - pub) : 0;
        if (strcmp(scheme, "https") == 0 && namelen > 0 && colon && colon > addr &&
            !(namelen == (size_t)(colon - addr) && memcmp(pub, addr, namelen) == 0)) {
            /* TLS: the certificate names the host, not (only) its address */
            nd->url = bf_asprintf("https://%.*s%s", (int)namelen, pub, colon);
            nd->resolve =
                bf_asprintf("%.*s%s:%.*s", (int)namelen, pub, colon, (int)(colon - addr), addr);
        } else {
            nd->url = bf_asprintf("%s://%s", scheme, addr);
        }
    }
    return BF_OK;
}

static int parse_index(bf_routetable_t *rt, json_t *state, const char *name, bf_rt_index_t *ix,
                       bf_diag_t *d)
{
    json_t *meta =
        json_object_get(json_object_get(json_object_get(state, "metadata"), "indices"), name);
    json_t *table =
        json_object_get(json_object_get(json_object_get(state, "routing_table"), "indices"), name);
    if (!json_is_object(meta) || !json_is_object(table))
        return bf_diag_set(d, BF_E_NOTFOUND,
                           "_cluster/state: index %s is not in the cluster "
                           "state (deleted, or an alias or data stream: routing needs the "
                           "concrete index)",
                           name);
    json_t *settings = json_object_get(json_object_get(meta, "settings"), "index");
    uint64_t shards = json_count(json_object_get(settings, "number_of_shards"));
    uint64_t rshards = json_count(json_object_get(meta, "routing_num_shards"));
    if (rshards == 0) /* older layouts: the setting, else the default */
        rshards = json_count(json_object_get(settings, "number_of_routing_shards"));
    uint64_t part = json_count(json_object_get(settings, "routing_partition_size"));
    if (shards == 0 || shards > BF_ROUTING_MAX_SHARDS || rshards > 2ull * BF_ROUTING_MAX_SHARDS ||
        part > BF_ROUTING_MAX_SHARDS)
        return bf_diag_set(d, BF_E_PARSE,
                           "_cluster/state: index %s: number_of_shards %llu, "
                           "routing_num_shards %llu: not usable",
                           name, (unsigned long long)shards, (unsigned long long)rshards);
    int rc =
        bf_routing_index_init(&ix->routing, (uint32_t)shards, (uint32_t)rshards, (uint32_t)part, d);
    if (rc != BF_OK)
        return rc;
    /* Elasticsearch 9.4+ indices route by floorMod(hash, number_of_shards) (bf_routing.h) */
    uint64_t created = json_count(json_object_get(json_object_get(settings, "version"), "created"));
    ix->routing.modulo = bf_routing_es_modulo_created(created);
    ix->name = bf_strdup(name);
    ix->primary_node = bf_malloc(shards * sizeof *ix->primary_node);
    ix->primary_term = bf_calloc(shards, sizeof *ix->primary_term);
    json_t *terms = json_object_get(meta, "primary_terms");
    json_t *by_shard = json_object_get(table, "shards");
    for (uint32_t s = 0; s < shards; s++) {
        char key[16];
        snprintf(key, sizeof key, "%u", s);
        ix->primary_node[s] = BF_RT_NO_NODE;
        ix->primary_term[s] = json_count(json_object_get(terms, key));
        json_t *copies = json_object_get(by_shard, key);
        size_t k;
        json_t *c;
        json_array_foreach(copies, k, c)
        {
            if (!json_is_true(json_object_get(c, "primary")))
                continue;
            const char *state_s = json_string_value(json_object_get(c, "state"));
            const char *node = json_string_value(json_object_get(c, "node"));
            /* a RELOCATING primary is still served by its source node until the hand-off */
            if (node == NULL || state_s == NULL ||
                (strcmp(state_s, "STARTED") != 0 && strcmp(state_s, "RELOCATING") != 0))
                continue;
            long p = node_pos(rt, node);
            if (p >= 0)
                ix->primary_node[s] = (uint32_t)p;
        }
    }
    return BF_OK;
}

int bf_routetable_parse(const char *state_json, const char *nodes_json, const char *scheme,
                        const char *const *index_names, size_t nindex, bf_routetable_t **out,
                        bf_diag_t *d)
{
    *out = NULL;
    json_error_t je;
    json_t *state = json_loads(state_json, 0, &je);
    json_t *nodes = json_loads(nodes_json, 0, &je);
    bf_routetable_t *rt = bf_calloc(1, sizeof *rt);
    int rc = BF_OK;
    if (!json_is_object(state)) {
        rc = bf_diag_set(d, BF_E_PARSE, "_cluster/state: the response is not a JSON object");
        goto error;
    }
    if (!json_is_object(nodes)) {
        rc = bf_diag_set(d, BF_E_PARSE, "_nodes/http: the response is not a JSON object");
        goto error;
    }
    if ((rc = parse_nodes(rt, nodes, scheme, d)) != BF_OK)
        goto error;
    rt->version = json_count(json_object_get(state, "version"));
    rt->indices = bf_calloc(nindex ? nindex : 1, sizeof *rt->indices);
    for (size_t i = 0; i < nindex; i++) {
        if ((rc = parse_index(rt, state, index_names[i], &rt->indices[i], d)) != BF_OK)
            goto error;
        rt->nindices++;
    }
    json_decref(state);
    json_decref(nodes);
    *out = rt;
    return BF_OK;
error:
    json_decref(state);
    json_decref(nodes);
    bf_routetable_destroy(&rt);
    return rc;
}

int bf_routetable_fetch(bf_es_t *es, const char *const *index_names, size_t nindex,
                        bf_routetable_t **out, bf_diag_t *d)
{
    *out = NULL;
    bf_buf_t path;
    bf_buf_init(&path, 0);
    bf_buf_appendz(&path, "/_cluster/state/metadata,routing_table/");
    for (size_t i = 0; i < nindex; i++)
        bf_buf_appendf(&path, "%s%s", i ? "," : "", index_names[i]);
    bf_buf_appendz(&path, "?filter_path=version,metadata.indices.*.settings.index,"
                          "metadata.indices.*.routing_num_shards,"
                          "metadata.indices.*.primary_terms,routing_table.indices");
    long status = 0;
    const char *body = NULL;
    char *state = NULL;
    int rc = bf_es_request(es, "GET", path.data, NULL, &status, &body, d);
    bf_buf_cleanup(&path);
    if (rc != BF_OK)
        return rc;
    if (status != 200)
        return bf_diag_set(d, BF_E_HTTP,
                           "GET _cluster/state on %s for the routing table: HTTP "
                           "%ld (the user needs the cluster:monitor/state privilege)",
                           bf_es_host(es), status);
    state = bf_strdup(body);
    rc = bf_es_request(es, "GET",
                       "/_nodes/http?filter_path=nodes.*.name,"
                       "nodes.*.http.publish_address",
                       NULL, &status, &body, d);
    if (rc == BF_OK && status != 200)
        rc = bf_diag_set(d, BF_E_HTTP,
                         "GET _nodes/http on %s: HTTP %ld (the user needs the "
                         "cluster:monitor/nodes/info privilege)",
                         bf_es_host(es), status);
    if (rc == BF_OK) {
        const char *host = bf_es_host(es);
        const char *scheme = strncmp(host, "https:", 6) == 0 ? "https" : "http";
        rc = bf_routetable_parse(state, body, scheme, index_names, nindex, out, d);
    }
    free(state);
    return rc;
}
