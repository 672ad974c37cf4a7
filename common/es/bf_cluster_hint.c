/* SPDX-License-Identifier: MIT */
/* bf_cluster_hint.c — what a cluster's refusal means, in the words of the fix: the module a
 * mapping field type needs, the analysis component a name stands for, the module of a script
 * language (bf_cluster.h: bf_cluster_type_module, bf_cluster_analysis_hint,
 * bf_cluster_script_hint). Pure functions of the answer's text; thread-safe. */
#include "bf_cluster.h"

#include <stdio.h>
#include <string.h>

const char *bf_cluster_type_module(const char *type)
{
    static const struct {
        const char *type, *module;
    } types[] = {
        {"match_only_text", "mapper-extras"},
        {"scaled_float", "mapper-extras"},
        {"rank_feature", "mapper-extras"},
        {"rank_features", "mapper-extras"},
        {"search_as_you_type", "mapper-extras"},
        {"token_count", "mapper-extras"},
        {"join", "parent-join"},
        {"percolator", "percolator"},
    };
    for (size_t i = 0; type && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i].type, type) == 0)
            return types[i].module;
    return NULL;
}

/* what to use instead of an analysis component the Elasticsearch dev cluster's
 * bulkfleet-analysis-common module lacks (deploy/devcluster-es/README.md), by type */
static const char *analysis_instead(const char *type)
{
    static const struct {
        const char *type, *instead;
    } alt[] = {
        {"nGram", "ngram (the name since Elasticsearch 7.6)"},
        {"edgeNGram", "edge_ngram (the name since Elasticsearch 7.6)"},
        {"lowercase", "the letter tokenizer with the lowercase filter"},
        {"PathHierarchy", "path_hierarchy"},
        {"hunspell", "the stemmer filter (language: english, light_german, ...)"},
        {"stemmer_override", "keyword_marker before the stemmer filter"},
        {"synonym", NULL},
        {"synonym_graph", NULL},
    };
    for (size_t i = 0; i < sizeof alt / sizeof alt[0]; i++)
        if (strcmp(alt[i].type, type) == 0)
            return alt[i].instead;
    return NULL;
}

int bf_cluster_analysis_hint(const char *body, char *out, size_t out_size)
{
    static const char *const kinds[] = {"tokenizer", "filter", "char_filter", "analyzer"};
    if (body == NULL || out == NULL || out_size == 0)
        return 0;
    const char *kind = NULL, *p = NULL;
    char pat[64];
    for (size_t i = 0; p == NULL && i < sizeof kinds / sizeof kinds[0]; i++) {
        snprintf(pat, sizeof pat, "nknown %s type [", kinds[i]);
        p = strstr(body, pat);
        if (p == NULL) {
            snprintf(pat, sizeof pat, "failed to find global %s under [", kinds[i]);
            p = strstr(body, pat);
        }
        if (p == NULL) {
            snprintf(pat, sizeof pat, "failed to find %s under name [", kinds[i]);
            p = strstr(body, pat);
        }
        if (p != NULL) {
            kind = kinds[i];
            p += strlen(pat);
        }
    }
    if (p == NULL)
        return 0;
    size_t n = strcspn(p, "]\"");
    char type[64];
    if (n == 0 || n >= sizeof type)
        return 0;
    memcpy(type, p, n);
    type[n] = '\0';
    /* the plugin modules' own prefixes; the rest is analysis-common's */
    static const char *const plugins[] = {"icu_",    "kuromoji", "nori",     "smartcn",
                                          "stempel", "polish",   "phonetic", "ukrainian"};
    const char *module = "analysis-common";
    for (size_t i = 0; i < sizeof plugins / sizeof plugins[0]; i++)
        if (strncmp(type, plugins[i], strlen(plugins[i])) == 0)
            module = "an analysis plugin (analysis-icu, -kuromoji, -nori, -smartcn, -stempel, "
                     "-phonetic, -ukrainian)";
    const char *instead = analysis_instead(type);
    snprintf(out, out_size,
             "the index's analysis uses the %s type [%s], which the cluster lacks: it comes from "
             "%s (on the Elasticsearch dev cluster of scripts/devcluster.sh, bulkfleet's own "
             "bulkfleet-analysis-common module stands in for analysis-common and lacks it: "
             "deploy/devcluster-es/README.md lists what it has); %s%s%srun against the "
             "OpenSearch dev cluster (scripts/devcluster.sh start: OpenSearch's analysis-common "
             "from Maven Central) or a real cluster",
             kind, type, module, instead ? "use " : "", instead ? instead : "",
             instead ? " instead, or " : "");
    return 1;
}

int bf_cluster_script_hint(const char *body, char *out, size_t out_size)
{
    static const char pat[] = "script_lang not supported [";
    if (out == NULL || out_size == 0)
        return 0;
    out[0] = '\0';
    const char *p = body ? strstr(body, pat) : NULL;
    if (p == NULL)
        return 0;
    p += sizeof pat - 1;
    size_t n = strcspn(p, "]\"");
    char lang[32];
    if (n == 0 || n >= sizeof lang)
        return 0;
    memcpy(lang, p, n);
    lang[n] = '\0';
    snprintf(out, out_size,
             "; the cluster has no %s scripting (the module lang-%s; the Elasticsearch dev "
             "clusters of scripts/devcluster.sh have none, Maven Central does not publish it): "
             "run against the OpenSearch dev cluster started with BF_DEVCLUSTER_SCRIPTING=1 "
             "(painless, expression) or a real cluster, or leave the query out",
             lang, lang);
    return 1;
}
