/* SPDX-License-Identifier: MIT */
/* bf_cfgerr.c — a failed index creation that every remaining cell would repeat (bf_cfgerr.h). */
#include "bf_cfgerr.h"

#include "bf_mem.h"

#include <jansson.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define MAX_SETTING_NAME 200 /* longer bracketed names are not settings we can compare */

/* The value at dotted path `name` in a settings object whose keys may be nested or dotted
 * ({"index":{"codec":"x"}}, {"index":{"sort.field":"f"}}): the first key that is a prefix of
 * what is left of the path at a dot boundary is followed. NULL when absent. */
static json_t *setting_at(json_t *obj, const char *name)
{
    if (!json_is_object(obj))
        return NULL;
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        size_t n = strlen(key);
        if (strncmp(name, key, n) != 0)
            continue;
        if (name[n] == '\0')
            return v;
        if (name[n] == '.') {
            json_t *deeper = setting_at(v, name + n + 1);
            if (deeper)
                return deeper;
        }
    }
    return NULL;
}

/* 1 when both cells' settings give `name` the same value (or both leave it out) */
static int same_setting(const bf_cell_t *a, const bf_cell_t *b, const char *name)
{
    json_t *ja = json_loads(a->settings_json ? a->settings_json : "{}", 0, NULL);
    json_t *jb = json_loads(b->settings_json ? b->settings_json : "{}", 0, NULL);
    json_t *va = setting_at(ja, name), *vb = setting_at(jb, name);
    if (va == NULL && vb == NULL && strncmp(name, "index.", 6) != 0) {
        char *full = bf_asprintf("index.%s", name);
        va = setting_at(ja, full);
        vb = setting_at(jb, full);
        free(full);
    }
    int same = (va == NULL && vb == NULL) || (va && vb && json_equal(va, vb));
    json_decref(ja);
    json_decref(jb);
    return same;
}

/* the first "setting [NAME]" (or "settings [NAME]") of the cluster's reason into name */
static int named_setting(const char *reason, char *name, size_t size)
{
    static const char *const marks[] = {"setting [", "settings ["};
    for (size_t m = 0; m < sizeof marks / sizeof *marks; m++) {
        const char *p = strstr(reason, marks[m]);
        if (p == NULL)
            continue;
        p += strlen(marks[m]);
        size_t n = strcspn(p, "]");
        if (n == 0 || p[n] != ']' || n >= size || n > MAX_SETTING_NAME)
            continue;
        memcpy(name, p, n);
        name[n] = '\0';
        return 1;
    }
    return 0;
}

int bf_cfgerr_repeats(const bf_cell_t *failed, const char *msg, const bf_cell_t *other, char *key,
                      size_t keylen)
{
    if (keylen)
        key[0] = '\0';
    if (failed == NULL || msg == NULL || other == NULL)
        return 0;
    /* bf_cluster_prepare_cell's own words for the two kinds of refusal it can tell apart */
    int module = strstr(msg, ": the mappings use field type ") != NULL;
    const char *create = strstr(msg, ": creating index ");
    const char *http = create ? strstr(create, ": HTTP 400: ") : NULL;
    if (!module && http == NULL)
        return 0;
    const char *reason = http ? http + strlen(": HTTP 400: ") : msg;
    char name[MAX_SETTING_NAME + 1];
    if (!module && named_setting(reason, name, sizeof name)) {
        if (!same_setting(failed, other, name))
            return 0;
        if (strcmp(name, "index.number_of_shards") == 0 || strcmp(name, "number_of_shards") == 0)
            snprintf(key, keylen, "matrix.shards");
        else if (strcmp(name, "index.number_of_replicas") == 0 ||
                 strcmp(name, "number_of_replicas") == 0)
            snprintf(key, keylen, "matrix.replicas");
        else
            snprintf(key, keylen, "setting %s (index.settings or a matrix setting)", name);
        return 1;
    }
    if (module || strstr(reason, "mapper_parsing_exception") || strstr(reason, "mapping") ||
        strstr(reason, "mapper [")) {
        snprintf(key, keylen, "index.mappings"); /* one for every cell of the scenario */
        return 1;
    }
    /* another 400 (a cluster limit such as the shards per node, a template's refusal) may
     * depend on the cluster's state as much as on the scenario: not taken for one */
    return 0;
}
