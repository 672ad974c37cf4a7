/* SPDX-License-Identifier: MIT */
/* bf_cmd_scenario.c — validate, plan and import-loadgen: scenario files without a cluster.
 *
 * These are the commands a user runs before a campaign: is the file right (validate), what will
 * it do and cost (plan), and how do I get here from a loadgen config (import-loadgen).
 */
#include "bf_cmd_scenario.h"

#include "bf_campaign_int.h"
#include "bf_findmax.h"

#include "bf_cluster.h"
#include "bf_corpus.h"
#include "bf_error.h"
#include "bf_file.h"
#include "bf_mem.h"
#include "bf_rounds.h"
#include "bf_scenario.h"
#include "bf_scenload.h"
#include "bf_import_loadgen.h"
#include "bf_modcheck.h"
#include "bf_selftest.h"
#include "bf_template.h"
#include "bf_units.h"
#include "bf_log.h"

#include <errno.h>
#include <sys/stat.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SETUP_MS 5000u      /* per cell: delete + create index, prepare agents (estimate) */
#define AGENT_BASE_BYTES                                                                           \
    (64ull << 20) /* docs/internals/budgets.md: agent memory budget above the bodies */
#define PLAN_SELFTEST_MS 500u          /* plan: selftest per distinct batch size and compression */

static int exit_code_of(int rc)
{
    return rc == BF_E_IO ? BF_EXIT_ENV : BF_EXIT_INPUT;
}

static int parse_u32_opt(const char *opt, const char *arg, uint32_t *out)
{
    uint64_t v;
    if (arg == NULL || bf_units_parse_count(arg, &v) != BF_OK || v > UINT32_MAX) {
        bf_error("%s needs a whole number, got '%s'", opt, arg ? arg : "");
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* Common options of validate and plan. Returns the scenario path or NULL (usage error). */
static int strict; /* --strict: an unset ${VAR} without default is an error, as for run */

static const char *parse_common(int argc, char **argv, uint32_t *agents, uint32_t *nodes,
                                double *agent_rate, const char *usage)
{
    static const struct option longopts[] = {
        {"strict", no_argument, NULL, 's'},
        {"agent-docs-per-s", required_argument, NULL, 'r'},
        {"agents", required_argument, NULL, 'a'},
        {"cluster-nodes", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    optind = 0; /* GNU: restart scanning (main may have used getopt) */
    opterr = 1;
    int ch;
    strict = 0;
    while ((ch = getopt_long(argc, argv, "a:n:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 's': strict = 1; break;
        case 'r': {
            char *end = NULL;
            errno = 0;
            double r = strtod(optarg, &end);
            if (agent_rate == NULL || errno != 0 || end == optarg || *end != '\0' || !(r > 0)) {
                fprintf(stderr, "--agent-docs-per-s %s: %s\nusage: bulkfleet-coordinator %s\n",
                        optarg,
                        agent_rate ? "expected docs/s > 0 (what bulkfleet-agent "
                                     "selftest printed on an agent host)"
                                   : "only for plan",
                        usage);
                return NULL;
            }
            *agent_rate = r;
            break;
        }
        case 'a':
            if (parse_u32_opt("--agents", optarg, agents) != 0)
                return NULL;
            break;
        case 'n':
            if (parse_u32_opt("--cluster-nodes", optarg, nodes) != 0)
                return NULL;
            break;
        case 'h':
            fprintf(stdout,
                    "usage: bulkfleet-coordinator %s\n"
                    "  checks the scenario without touching a cluster: file:line:column, what is "
                    "wrong and\n  what to do, exit 2; plan also lists the cells in run order, the "
                    "estimated\n  duration and each agent's memory\n"
                    "  --cluster-nodes N   the target's data nodes: warns when a cell's replicas "
                    "need more\n                      (a replica never shares a node with its "
                    "primary)\n"
                    "  --agents N          (plan) the agents the memory and concurrency split "
                    "assume\n"
                    "  --strict            an unset ${VAR} without a default is an error (as for "
                    "run), not a\n                      warning\n",
                    usage);
            exit(BF_EXIT_OK);
        default: fprintf(stderr, "usage: bulkfleet-coordinator %s\n", usage); return NULL;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "usage: bulkfleet-coordinator %s\n", usage);
        return NULL;
    }
    return argv[optind];
}

static size_t nproduction; /* warnings of production_warnings, for validate's count */

/* Names that look like data someone keeps (bf_cluster_production_like): said before a run
 * points bulkfleet at them. One warning for all the index names (the first, how many, the last:
 * an index.count of 7 is one decision, not 7), and one per pattern of the template. Not for
 * the names of an index.name import-rally / import-loadgen wrote (index.imported_name equal to
 * it, docs/scenario.md "index"): the track's or the loadgen config's own name, which the import's
 * notes spoke of once; a name edited by hand is warned about as any other. */
static void production_warnings(const char *path, const bf_scenario_t *sc)
{
    nproduction = 0;
    const bf_index_spec_t *ix = bf_scenario_index(sc);
    const char *first = NULL, *last = NULL;
    size_t nnames = 0;
    for (size_t k = 0; k < bf_scenario_cell_count(sc) && !ix->name_imported; k++) {
        const bf_cell_t *cell = bf_scenario_cell(sc, k);
        for (uint32_t i = 0; i < cell->indices; i++) {
            const char *name = cell->index_names[i];
            int seen = 0;
            for (size_t p = 0; p < k && !seen; p++) {
                const bf_cell_t *prev = bf_scenario_cell(sc, p);
                for (uint32_t q = 0; q < prev->indices && !seen; q++)
                    seen = strcmp(prev->index_names[q], name) == 0;
            }
            if (seen || !bf_cluster_production_like(name))
                continue;
            if (first == NULL)
                first = name;
            last = name;
            nnames++;
        }
    }
    if (nnames) {
        char more[600] = "";
        if (nnames > 1)
            snprintf(more, sizeof more, " (and %zu more names of this scenario, up to %s)",
                     nnames - 1, last);
        bf_warn("%s: index.name: %s%s %s; "
                "bulkfleet %s, but make sure target.hosts is a test cluster and give the "
                "campaign its own names (e.g. bench-{shards}s)",
                path, first, more,
                nnames > 1 ? "look like production indices" : "looks like a production index",
                ix->recreate ? "deletes (index.recreate) only indices it created itself"
                             : "writes into it (index.recreate: false)");
        nproduction++;
    }
    json_t *t = ix->template_json ? json_loads(ix->template_json, 0, NULL) : NULL;
    json_t *pats = json_object_get(t, "index_patterns");
    json_t *list = json_is_string(pats) ? json_pack("[O]", pats) : json_incref(pats);
    size_t i;
    json_t *p;
    json_array_foreach(list, i, p) {
        const char *pat = json_string_value(p);
        if (pat && bf_cluster_production_like(pat)) {
            bf_warn("%s: index.template: index_patterns \"%s\" looks like it "
                    "covers production indices; a run refuses a template that matches indices "
                    "bulkfleet did not create",
                    path, pat);
            nproduction++;
        }
    }
    json_decref(list);
    json_decref(t);
}

/* every mistake the loader found (validate: all at once, in file order); counts them, the
 * loader's closing "... and N more mistakes" as N */
/* A corpus read a fixed number of times (document.corpus.passes) may be read to its end before
 * the measurement window starts: the row then holds nothing and is stalled (an
 * imported 240 s warmup over a small corpus). Warns once, naming the first such cell, when the
 * corpus's documents x passes take no longer than run.warmup at the cell's rate: its
 * target_rate, else --agent-docs-per-s x the agents (agent_rate x fleet, when given), else at
 * least one bulk response a second on each connection (concurrency x batch_size docs/s; a
 * cluster slower than that is stalled anyway). c may be NULL (not readable here: no warning).
 * Returns 1 when it warned. */
static int corpus_warmup_warning(const char *path, const bf_scenario_t *sc, const bf_corpus_t *c,
                                 double agent_rate, uint32_t fleet)
{
    const bf_document_spec_t *ds = bf_scenario_document(sc);
    const bf_run_spec_t *run = bf_scenario_run(sc);
    if (c == NULL || ds->corpus_passes == 0 || run->warmup_ms == 0)
        return 0;
    double docs = (double)bf_corpus_docs(c) * ds->corpus_passes;
    size_t hit = 0, first = 0;
    double first_s = 0;
    char basis[160] = "";
    for (size_t k = 0; k < bf_scenario_cell_count(sc); k++) {
        const bf_cell_t *cell = bf_scenario_cell(sc, k);
        double rate = cell->target_rate > 0 ? cell->target_rate
                      : agent_rate > 0      ? agent_rate * fleet
                                            : (double)cell->concurrency * cell->batch_size;
        if (!(rate > 0) || docs / rate * 1000.0 > (double)run->warmup_ms)
            continue;
        if (hit++ == 0) {
            first = k;
            first_s = docs / rate;
            if (cell->target_rate > 0)
                snprintf(basis, sizeof basis, "its target_rate %.0f docs/s", cell->target_rate);
            else if (agent_rate > 0)
                snprintf(basis, sizeof basis, "--agent-docs-per-s %.0f x %u agent%s", agent_rate,
                         fleet, fleet == 1 ? "" : "s");
            else
                snprintf(basis, sizeof basis,
                         "even one bulk response a second on each of its %u connections "
                         "(batch_size %u)",
                         cell->concurrency, cell->batch_size);
        }
    }
    if (hit == 0)
        return 0;
    char w[32];
    bf_warn("%s: document.corpus: %zu documents x %u pass%s end before the measurement window "
            "starts in %zu of %zu cells: cell %s reads them in at most %.1f s at %s, within "
            "run.warmup %s, so its row would hold nothing (stalled). Set run.warmup below that "
            "(0s measures the whole corpus), read it more often (passes, or loop), or use a "
            "larger corpus",
            path, bf_corpus_docs(c), ds->corpus_passes, ds->corpus_passes == 1 ? "" : "es", hit,
            bf_scenario_cell_count(sc), bf_scenario_cell(sc, first)->id, first_s, basis,
            bf_units_format_duration_ms(run->warmup_ms, w, sizeof w));
    return 1;
}

/* every "type" string under a mapping's properties (and fields), into the module notes */
static void collect_types(json_t *v, const char **modules, const char **types, size_t *n,
                          size_t cap)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x)
        {
            const char *m =
                strcmp(k, "type") == 0 ? bf_cluster_type_module(json_string_value(x)) : NULL;
            int seen = 0;
            for (size_t i = 0; m && i < *n; i++)
                seen |= strcmp(types[i], json_string_value(x)) == 0;
            if (m && !seen && *n < cap) {
                modules[*n] = m;
                types[(*n)++] = json_string_value(x);
            }
            collect_types(x, modules, types, n, cap);
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) collect_types(x, modules, types, n, cap);
    }
}

/* A mapping field type outside the server core (scaled_float of an imported track
 * on the dev cluster, which lacks mapper-extras): said at validate and plan, with the module,
 * since only the cluster knows whether it has it. */
static void module_notes(const char *path, const bf_scenario_t *sc)
{
    const bf_index_spec_t *ix = bf_scenario_index(sc);
    const char *texts[2] = {ix->mappings_json, ix->template_json};
    const char *modules[16], *types[16];
    size_t n = 0;
    json_t *docs[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        docs[k] = texts[k] ? json_loads(texts[k], 0, NULL) : NULL;
        collect_types(docs[k], modules, types, &n, 16);
    }
    for (size_t i = 0; i < n; i++) {
        int first = 1;
        for (size_t j = 0; j < i; j++)
            first &= strcmp(modules[j], modules[i]) != 0;
        if (!first)
            continue;
        char list[256] = "";
        size_t used = 0;
        for (size_t j = i; j < n; j++)
            if (strcmp(modules[j], modules[i]) == 0 && used < sizeof list)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                         used ? " and " : "", types[j]);
        bf_info("%s: the mappings use %s, from the OpenSearch/Elasticsearch module %s: a "
                "cluster without it refuses the index (\"no handler for type\"); "
                "docs/development.md lists which dev cluster of scripts/devcluster.sh has it, "
                "full distributions have it",
                path, list, modules[i]);
    }
    json_decref(docs[0]);
    json_decref(docs[1]);
}

/* The script languages a JSON value runs (a "script" object's "lang", painless when it has
 * none; a "script" string is painless; a stored script by "id" is the cluster's own), each
 * once, into langs (at most cap). */
static void collect_langs(json_t *v, const char **langs, size_t *n, size_t cap)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x)
        {
            const char *lang = NULL;
            if (strcmp(k, "script") == 0 && json_is_string(x))
                lang = "painless";
            else if (strcmp(k, "script") == 0 && json_is_object(x) &&
                     (json_object_get(x, "source") || json_object_get(x, "inline")))
                lang = json_is_string(json_object_get(x, "lang"))
                           ? json_string_value(json_object_get(x, "lang"))
                           : "painless";
            int seen = 0;
            for (size_t i = 0; lang && i < *n; i++)
                seen |= strcmp(langs[i], lang) == 0;
            if (lang && !seen && *n < cap)
                langs[(*n)++] = lang;
            collect_langs(x, langs, n, cap);
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) collect_langs(x, langs, n, cap);
    }
}

/* A script in a search query or in the mappings (runtime fields) needs the cluster's
 * lang-painless / lang-expression / lang-mustache module (geonames' painless and expression
 * searches on a dev cluster without them answered 400 and stopped the cell): said at validate
 * and plan, naming the queries, the module and the way out. */
static void script_notes(const char *path, const bf_scenario_t *sc)
{
    const bf_search_spec_t *ss = bf_scenario_search(sc);
    const bf_index_spec_t *ix = bf_scenario_index(sc);
    static const char *const known[] = {"painless", "expression", "mustache"};
    for (size_t l = 0; l < 3; l++) {
        char who[512] = "";
        size_t used = 0, nq = 0;
        for (size_t q = 0; ss->enabled && q < ss->nqueries; q++) {
            const char *body = ss->queries[q].body;
            json_t *j = body ? json_loads(body, 0, NULL) : NULL; /* a template may not parse */
            const char *langs[8];
            size_t n = 0;
            collect_langs(j, langs, &n, 8);
            int uses = 0;
            for (size_t i = 0; i < n; i++)
                uses |= strcmp(langs[i], known[l]) == 0;
            json_decref(j); /* langs point into it */
            if (uses && used < sizeof who)
                used += (size_t)snprintf(who + used, sizeof who - used, "%s'%s'", nq ? ", " : "",
                                         ss->queries[q].name);
            nq += (size_t)uses;
        }
        json_t *m = ix->mappings_json ? json_loads(ix->mappings_json, 0, NULL) : NULL;
        const char *langs[8];
        size_t n = 0;
        collect_langs(m, langs, &n, 8);
        int in_mappings = 0;
        for (size_t i = 0; i < n; i++)
            in_mappings |= strcmp(langs[i], known[l]) == 0;
        json_decref(m); /* langs point into it */
        if (nq == 0 && !in_mappings)
            continue;
        bf_info("%s: %s%s%s%s %s %s scripts, from the OpenSearch/Elasticsearch module lang-%s: "
                "a cluster without it refuses them (HTTP 400, and a refused search query stops "
                "the cell); %s; full distributions have it",
                path, nq ? (nq == 1 ? "search query " : "search queries ") : "", nq ? who : "",
                nq && in_mappings ? " and " : "",
                in_mappings ? "the mappings (runtime fields)" : "",
                nq == 1 && !in_mappings ? "runs" : "run", known[l], known[l],
                l < 2 ? "of the dev clusters of scripts/devcluster.sh only the OpenSearch 2 one "
                        "started with BF_DEVCLUSTER_SCRIPTING=1 has it (docs/development.md)"
                      : "docs/development.md lists what each dev cluster of "
                        "scripts/devcluster.sh has");
    }
}

/* The analysis component names an index's settings use (types of its tokenizers, filters,
 * char_filters, analyzers, normalizers, and the components its custom analyzers name that it
 * does not define), each once, into names (at most cap; pointing into ana). */
static void collect_analysis(json_t *ana, const char **names, size_t *n, size_t cap)
{
    static const char *const kinds[] = {"tokenizer", "filter", "char_filter", "analyzer",
                                        "normalizer"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const char *key;
        json_t *def;
        json_object_foreach(json_object_get(ana, kinds[k]), key, def)
        {
            const char *uses[16];
            size_t nu = 0;
            if (json_is_string(json_object_get(def, "type")))
                uses[nu++] = json_string_value(json_object_get(def, "type"));
            static const char *const refs[] = {"tokenizer", "filter", "char_filter"};
            for (size_t r = 0; r < 3; r++) {
                json_t *v = json_object_get(def, refs[r]);
                if (json_is_string(v) &&
                    !json_object_get(json_object_get(ana, refs[r]), json_string_value(v)))
                    uses[nu++] = json_string_value(v);
                size_t i;
                json_t *x;
                json_array_foreach(v, i, x) if (json_is_string(x) && nu < 16 &&
                                                !json_object_get(json_object_get(ana, refs[r]),
                                                                 json_string_value(x))) uses[nu++] =
                    json_string_value(x);
            }
            for (size_t u = 0; u < nu; u++) {
                int seen = strcmp(uses[u], "custom") == 0 || strcmp(uses[u], "standard") == 0;
                for (size_t i = 0; i < *n; i++)
                    seen |= strcmp(names[i], uses[u]) == 0;
                if (!seen && *n < cap)
                    names[(*n)++] = uses[u];
            }
        }
    }
}

/* The modules sc needs outside the server core, into needs (at most cap): mapping field types
 * (bf_cluster_type_module), script languages of search queries and runtime fields, and
 * analysis components (analysis-common; the ones a partial stand-in lacks, full_only). */
static size_t module_needs(const bf_scenario_t *sc, bf_modneed_t *needs, size_t cap)
{
    size_t n = 0;
    const bf_index_spec_t *ix = bf_scenario_index(sc);
    const char *texts[2] = {ix->mappings_json, ix->template_json};
    for (int k = 0; k < 2; k++) {
        json_t *doc = texts[k] ? json_loads(texts[k], 0, NULL) : NULL;
        const char *modules[16], *types[16];
        size_t nt = 0;
        collect_types(doc, modules, types, &nt, 16);
        for (size_t i = 0; i < nt && n < cap; i++) {
            size_t same = n;
            for (size_t j = 0; j < n; j++)
                if (strcmp(needs[j].module, modules[i]) == 0 && strstr(needs[j].what, "field type"))
                    same = j;
            if (same < n) { /* one line per module: its types together */
                size_t l = strlen(needs[same].what);
                snprintf(needs[same].what + l, sizeof needs[0].what - l, " and %s", types[i]);
                continue;
            }
            needs[n] = (bf_modneed_t){.module = modules[i],
                                      .consequence = "without it the index is refused at "
                                                     "creation (\"no handler for type\") and "
                                                     "every cell stops before its load"};
            snprintf(needs[n++].what, sizeof needs[0].what, "the %s field type %s",
                     k ? "index template's" : "mappings'", types[i]);
        }
        json_decref(doc);
    }
    static const char *const langs[] = {"painless", "expression", "mustache"};
    static const char *const lang_mods[] = {"lang-painless", "lang-expression", "lang-mustache"};
    const bf_search_spec_t *ss = bf_scenario_search(sc);
    for (size_t l = 0; l < 3 && n < cap; l++) {
        char who[200] = "";
        size_t used = 0, nq = 0;
        for (size_t q = 0; ss->enabled && q < ss->nqueries; q++) {
            json_t *j = ss->queries[q].body ? json_loads(ss->queries[q].body, 0, NULL) : NULL;
            const char *found[8];
            size_t nf = 0;
            collect_langs(j, found, &nf, 8);
            int uses = 0;
            for (size_t i = 0; i < nf; i++)
                uses |= strcmp(found[i], langs[l]) == 0;
            json_decref(j);
            if (uses && used < sizeof who)
                used += (size_t)snprintf(who + used, sizeof who - used, "%s'%s'", nq ? ", " : "",
                                         ss->queries[q].name);
            nq += (size_t)uses;
        }
        if (nq == 0)
            continue;
        needs[n] = (bf_modneed_t){.module = lang_mods[l],
                                  .consequence = "without it the cluster answers HTTP 400 to "
                                                 "the script, and a refused search query stops "
                                                 "the cell"};
        snprintf(needs[n++].what, sizeof needs[0].what, "the %s script%s of search quer%s %s",
                 langs[l], nq == 1 ? "" : "s", nq == 1 ? "y" : "ies", who);
    }
    json_t *st = ix->settings_json ? json_loads(ix->settings_json, 0, NULL) : NULL;
    json_t *ana = json_object_get(json_object_get(st, "index"), "analysis");
    const char *names[32];
    size_t na = 0;
    collect_analysis(ana, names, &na, 32);
    /* what bulkfleet-analysis-common, the Elasticsearch dev clusters' stand-in, lacks
     * (deploy/devcluster-es/README.md) */
    static const char *const full_only[] = {
        "synonym",          "synonym_graph",           "hunspell",
        "stemmer_override", "dictionary_decompounder", "hyphenation_decompounder"};
    for (int pass = 0; pass < 2 && n < cap; pass++) {
        char list[200] = "";
        size_t used = 0, count = 0;
        for (size_t i = 0; i < na; i++) {
            int lacking = 0;
            for (size_t f = 0; f < sizeof full_only / sizeof full_only[0]; f++)
                lacking |= strcmp(names[i], full_only[f]) == 0;
            if (lacking != pass)
                continue;
            if (used < sizeof list)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", count ? ", " : "",
                                         names[i]);
            count++;
        }
        if (count == 0)
            continue;
        needs[n] = (bf_modneed_t){.module = "analysis-common",
                                  .full_only = pass,
                                  .consequence = "without it the index is refused at creation "
                                                 "(\"Unknown ... type\") and every cell stops "
                                                 "before its load"};
        snprintf(needs[n++].what, sizeof needs[0].what, "index.settings analysis (%s)", list);
    }
    json_decref(st);
    return n;
}

static int load(const char *path, uint32_t nodes, bf_scenario_t **sc)
{
    /* validate and plan check a scenario without its secrets (CI): an unset ${VAR} is a
     * warning with a stand-in value unless --strict; every mistake is said, as run does */
    bf_load_opts_t opts = {.cluster_nodes = nodes, .env_warn = !strict};
    int rc = bf_scenload_file(path, &opts, sc);
    if (rc != BF_OK)
        return exit_code_of(rc);
    for (size_t i = 0; i < bf_scenario_warning_count(*sc); i++)
        bf_warn("%s", bf_scenario_warning(*sc, i));
    production_warnings(path, *sc);
    module_notes(path, *sc);
    script_notes(path, *sc);
    bf_modneed_t needs[16];
    size_t nneeds = module_needs(*sc, needs, 16);
    if (nneeds) /* the target asked: what it lacks, and for a dev cluster the way out */
        bf_modcheck_target(path, bf_scenario_target(*sc), needs, nneeds);
    return BF_EXIT_OK;
}

/* "shards(2) batch_size(3)" — each axis with its number of distinct values. */
static void axes_summary(const bf_scenario_t *sc, char *buf, size_t size)
{
    size_t n = bf_scenario_axis_count(sc), used = 0, cells = bf_scenario_cell_count(sc);
    buf[0] = '\0';
    if (n == 0) {
        snprintf(buf, size, "none");
        return;
    }
    for (size_t a = 0; a < n; a++) {
        size_t distinct = 0;
        for (size_t c = 0; c < cells; c++) {
            const char *v = bf_scenario_cell(sc, c)->axes[a].value;
            int seen = 0;
            for (size_t d = 0; d < c && !seen; d++)
                seen = strcmp(bf_scenario_cell(sc, d)->axes[a].value, v) == 0;
            distinct += !seen;
        }
        int w = snprintf(buf + used, size - used, "%s%s(%zu)", a ? " " : "",
                         bf_scenario_axis_name(sc, a), distinct);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

int bf_cmd_validate(int argc, char **argv)
{
    uint32_t agents = 1, nodes = 0;
    const char *path = parse_common(argc, argv, &agents, &nodes, NULL,
                                    "validate FILE [--cluster-nodes N] [--strict]");
    if (path == NULL)
        return BF_EXIT_INPUT;
    bf_scenario_t *sc = NULL;
    int rc = load(path, nodes, &sc);
    if (rc != BF_EXIT_OK)
        return rc;
    size_t nwarn = bf_scenario_warning_count(sc) + nproduction;
    nwarn += (size_t)corpus_warmup_warning(path, sc, bf_scenario_corpus(sc), 0, agents);
    char axes[1024];
    axes_summary(sc, axes, sizeof axes);
    size_t cells = bf_scenario_cell_count(sc);
    printf("ok: %s: %zu cell%s; axes: %s; ~%zu bytes per document; %zu warning%s\n",
           bf_scenario_name(sc), cells, cells == 1 ? "" : "s", axes, bf_scenario_doc_bytes(sc),
           nwarn, nwarn == 1 ? "" : "s");
    bf_scenario_destroy(&sc);
    return BF_EXIT_OK;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return b ? (a + b - 1) / b : a;
}

/* Target-rate cells whose per-agent share exceeds what one agent builds:
 * from --agent-docs-per-s (bulkfleet-agent selftest on an agent host, or bench/RESULTS.md), else
 * a short selftest on this host per distinct batch size and compression, one thread per core. */
static void rate_warnings(const bf_scenario_t *sc, const bf_tmpl_t *t, uint32_t fleet,
                          double agent_rate)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t threads = ncpu > 0 ? (uint32_t)ncpu : 1;
    size_t ncells = bf_scenario_cell_count(sc);
    double *cap = bf_calloc(ncells + 1, sizeof *cap);
    for (size_t c = 0; c < ncells; c++) {
        const bf_cell_t *cell = bf_scenario_cell(sc, c);
        if (cell->target_rate <= 0)
            continue;
        double can = agent_rate;
        for (size_t k = 0; can == 0 && k < c; k++) {
            const bf_cell_t *o = bf_scenario_cell(sc, k);
            if (cap[k] > 0 && o->batch_size == cell->batch_size &&
                o->compression == cell->compression)
                can = cap[k];
        }
        if (can == 0) {
            bf_selftest_result_t r;
            bf_diag_t d = {0};
            if (bf_selftest_run(sc, t, cell, threads, PLAN_SELFTEST_MS, &r, &d) != BF_OK) {
                bf_warn("cell %s: no selftest (%s): its target rate is not checked", cell->id,
                        d.msg);
                continue;
            }
            can = r.docs_per_s;
            printf("selftest on this host for cell %s: %.0f docs/s with %u threads (%.0f docs "
                   "per CPU-second); give --agent-docs-per-s for the agent hosts' figure\n",
                   cell->id, can, r.threads, r.docs_per_cpu_s);
        }
        cap[c] = can;
        double share = cell->target_rate / fleet;
        if (share > can)
            bf_warn("cell %s: target %.0f docs/s is %.0f per agent with %u agent%s, more than the "
                    "%.0f docs/s one agent builds (%s): the cell would be client-bound and "
                    "target-missed; use --agents %u or more, or lower target_rate",
                    cell->id, cell->target_rate, share, fleet, fleet == 1 ? "" : "s", can,
                    agent_rate > 0 ? "--agent-docs-per-s" : "selftest on this host",
                    (uint32_t)ceil(cell->target_rate / can));
    }
    free(cap);
}

/* What plan works out once and its steps below print: the scenario, the fleet it assumes
 * and each agent's fixed memory (dictionaries, corpus). */
typedef struct plan {
    const bf_scenario_t *sc;
    const bf_tmpl_t *t;
    const bf_run_spec_t *run;
    const bf_document_spec_t *dspec;
    size_t ncells, naxes;
    uint32_t agents;          /* --agents */
    uint32_t fleet;           /* the agents the campaign uses: run.agents when fewer */
    double agent_rate;        /* --agent-docs-per-s: what one agent builds; 0 = selftest here */
    uint64_t dict_bytes;      /* each agent's dictionaries (raw + escaped) */
    uint64_t corpus_bytes;    /* each agent's corpus text and index (+ files read at Prepare) */
    uint64_t corpus_il_bytes; /* the largest cell's contiguous bodies at Prepare */
    char corpus_line[8192];   /* the corpus: line(s) of the output, or "" */
    const bf_corpus_t *pc;    /* the corpus, to size bodies by its documents, or NULL */
    bf_corpus_t *local;       /* a local_path corpus opened here (owned), or NULL */
    uint64_t peak_mem;        /* the largest mem/agent of the cells, and its cell */
    size_t peak_cell;
} plan_t;

/* The dictionaries as each agent holds them: raw copy + escaped values (a shipped corpus:
 * the agent's cache + the scenario's copy); a file not read whole here (a vector file) once:
 * the agent's cache, lent to its scenario (docs/vectors.md). */
static uint64_t plan_dict_bytes(const bf_scenario_t *sc)
{
    uint64_t dict_bytes = 0;
    for (size_t i = 0; i < bf_scenario_file_count(sc); i++) {
        const bf_scenario_file_t *f = bf_scenario_file(sc, i);
        dict_bytes += f->data ? 2 * (uint64_t)f->len : f->len;
    }
    return dict_bytes;
}

/* The corpus line(s) of the output for corpus c: its documents and sizes, what each agent
 * holds, and each file with its codec and sizes when there are several (only the
 * first was named, and its codec given for all). */
static void plan_corpus_line(plan_t *P, const bf_corpus_t *c)
{
    const bf_document_spec_t *dspec = P->dspec;
    char b1[32], b2[32], b3[32];
    char il_note[160] = "";
    if (P->corpus_il_bytes)
        snprintf(il_note, sizeof il_note,
                 "; %s more while it lays out contiguous bodies at Prepare",
                 bf_units_format_bytes(P->corpus_il_bytes, b3, sizeof b3));
    size_t nparts = bf_corpus_parts(c);
    char what[600];
    if (nparts > 1)
        snprintf(what, sizeof what, "%zu files", nparts);
    else
        snprintf(what, sizeof what, "%s (%s)",
                 dspec->corpus_path ? dspec->corpus_path : dspec->corpus_local_path,
                 bf_corpus_codec_name(bf_corpus_codec(c)));
    size_t used = (size_t)snprintf(
        P->corpus_line, sizeof P->corpus_line,
        "corpus: %s: %zu documents, %s decompressed; each agent holds %s "
        "of text and index%s%s (in mem/agent)\n",
        what, bf_corpus_docs(c), bf_units_format_bytes(bf_corpus_text_bytes(c), b1, sizeof b1),
        bf_units_format_bytes(P->corpus_bytes, b2, sizeof b2),
        P->local ? ", with the files it reads at Prepare"
                 : ", and the shipped files twice (counted with the files)",
        il_note);
    for (size_t i = 0; nparts > 1 && i < nparts && used < sizeof P->corpus_line; i++) {
        bf_corpus_part_t pt;
        if (bf_corpus_part(c, i, &pt) != BF_OK)
            continue;
        char f1[32], f2[32];
        used += (size_t)snprintf(P->corpus_line + used, sizeof P->corpus_line - used,
                                 "  %zu. %s (%s): %zu documents, %s in the file, %s decompressed\n",
                                 i + 1, pt.name, bf_corpus_codec_name(pt.codec), pt.docs,
                                 bf_units_format_bytes(pt.file_bytes, f1, sizeof f1),
                                 bf_units_format_bytes(pt.text_bytes, f2, sizeof f2));
    }
}

/* The corpus as each agent holds it: decompressed text and index (a local_path file is also
 * read whole before it is decompressed: the peak at Prepare), and the contiguous bodies the
 * agent lays out at Prepare beside the file's text (bf_run; counted at that peak, for the
 * whole corpus, one agent's part at most). A local_path corpus this host cannot read is
 * said and left out of mem/agent. */
static void plan_corpus(plan_t *P)
{
    const bf_document_spec_t *dspec = P->dspec;
    if (!dspec->corpus_path && !dspec->corpus_local_path)
        return;
    const bf_corpus_t *c = bf_scenario_corpus(P->sc);
    bf_diag_t cd = {0};
    uint64_t file_bytes = 0;
    if (c == NULL && dspec->corpus_local_path) {
        for (size_t i = 0; i < dspec->ncorpus_files; i++) {
            struct stat st;
            if (stat(dspec->corpus_files[i], &st) == 0)
                file_bytes += (uint64_t)st.st_size; /* all read whole, then decompressed */
        }
        if (bf_corpus_open_files((const char *const *)dspec->corpus_files, dspec->ncorpus_files,
                                 (enum bf_corpus_format)dspec->corpus_format, &P->local,
                                 &cd) == BF_OK)
            c = P->local;
    }
    if (c != NULL) {
        P->corpus_bytes = bf_corpus_memory_bytes(c) + file_bytes;
        bf_buf_t head;
        bf_buf_init(&head, 0);
        for (size_t i = 0; i < bf_scenario_cell_count(P->sc); i++) {
            const bf_cell_t *cell = bf_scenario_cell(P->sc, i);
            if (cell->routing_mode == BF_ROUTE_NONE &&
                bf_tmpl_corpus_bulk_head(P->t, cell, &head)) {
                uint64_t il = bf_corpus_interleave_bytes(c, 0, bf_corpus_docs(c), head.len);
                if (il > P->corpus_il_bytes)
                    P->corpus_il_bytes = il;
            }
        }
        bf_buf_cleanup(&head);
        plan_corpus_line(P, c);
    } else {
        snprintf(P->corpus_line, sizeof P->corpus_line,
                 "corpus: local_path %s cannot be read on this host (%s): mem/agent leaves "
                 "it out; run plan where the file is to count it\n",
                 dspec->corpus_local_path, cd.msg[0] ? cd.msg : "not found");
    }
    P->pc = c;
}

/* The head of the plan: scenario, cells and axes, the document and the agents, the corpus,
 * and the search mix as shares of the weights (so a reader sees what each cell will ask). */
static void plan_print_head(const plan_t *P, const char *path)
{
    const bf_scenario_t *sc = P->sc;
    char axes[1024];
    axes_summary(sc, axes, sizeof axes);
    printf("scenario %s (%s): %zu cell%s, axes: %s\n", bf_scenario_name(sc), path, P->ncells,
           P->ncells == 1 ? "" : "s", axes);
    printf("document: ~%zu bytes (action + source line); agents: %u\n", bf_scenario_doc_bytes(sc),
           P->fleet);
    fputs(P->corpus_line, stdout);
    const bf_search_spec_t *ss = bf_scenario_search(sc);
    if (ss->enabled) {
        uint64_t wsum = 0;
        for (size_t q = 0; q < ss->nqueries; q++)
            wsum += ss->queries[q].weight;
        printf("search: %zu quer%s (", ss->nqueries, ss->nqueries == 1 ? "y" : "ies");
        for (size_t q = 0; q < ss->nqueries; q++)
            printf("%s%s %s %s %.0f%%", q ? ", " : "", ss->queries[q].name,
                   ss->queries[q].post ? "POST" : "GET", ss->queries[q].path,
                   100.0 * ss->queries[q].weight / (double)(wsum ? wsum : 1));
        printf("); prefill %llu documents into each new index (not measured)%s\n",
               (unsigned long long)ss->prefill,
               ss->recreate ? "" : "; search-only cells keep an existing index");
    }
    printf("\n");
}

/* the axes the cell table shows in their own columns */
static int plan_fixed_axis(const char *an)
{
    return !strcmp(an, "indices") || !strcmp(an, "shards") || !strcmp(an, "replicas") ||
           !strcmp(an, "batch_size") || !strcmp(an, "concurrency");
}

/* One cell's bulk body and memory per agent: the body (the template's estimate, plus the
 * corpus's mean source when the source comes from a corpus) x the batch; the memory is the
 * cell's concurrency share on the busiest agent (the agents as the campaign picks them: the
 * cell's agents value, never more than requests in flight) x body (x 2 with gzip) +
 * dictionaries + corpus + the agent's base budget, + the contiguous bodies of a corpus cell
 * without routing. */
static void plan_cell_memory(const plan_t *P, const bf_cell_t *cell, uint64_t *body_out,
                             uint64_t *mem_out)
{
    uint64_t doc = bf_tmpl_estimate_doc_bytes(P->t, cell) + (P->pc ? bf_corpus_mean_doc_bytes(P->pc)
                                                             : P->dspec->corpus_local_path
                                                                 ? bf_scenario_doc_bytes(P->sc)
                                                                 : 0);
    uint64_t body = doc * cell->batch_size;
    uint32_t cf = cell->agents && cell->agents < P->agents ? cell->agents : P->agents;
    if (cell->concurrency > 0 && cell->concurrency < cf)
        cf = cell->concurrency;
    uint64_t share = ceil_div(cell->concurrency, cf);
    uint64_t mem = share * body * (cell->compression == BF_COMPRESS_GZIP ? 2 : 1) + P->dict_bytes +
                   P->corpus_bytes + AGENT_BASE_BYTES;
    if (P->pc && cell->routing_mode == BF_ROUTE_NONE) {
        bf_buf_t head;
        bf_buf_init(&head, 0);
        if (bf_tmpl_corpus_bulk_head(P->t, cell, &head))
            mem += bf_corpus_interleave_bytes(P->pc, 0, bf_corpus_docs(P->pc), head.len);
        bf_buf_cleanup(&head);
    }
    *body_out = body;
    *mem_out = mem;
}

#define PLAN_MAX_ROUNDS 20 /* rounds printed by plan_print_order; the rest are counted */

/* The run order: matrix order (# above) with each cell's repetitions back to back, or with
 * run.repeat >= 2 the shuffled rounds (bf_rounds_order) by cell number, when run.seed is set
 * (else each run draws its own seed: said, with how to fix it). */
static void plan_print_order(const plan_t *P)
{
    uint32_t repeat = P->run->repeat ? P->run->repeat : 1;
    if (!bf_rounds_shuffled(repeat, P->run->order_sequential)) {
        if (repeat > 1)
            printf("\nrun order: the cells in # order, each cell's %u repetitions back to back "
                   "(run.order: sequential)\n",
                   repeat);
        return;
    }
    printf("\nrun order: %s%u rounds, each running every cell once in an order shuffled from "
           "run.seed and the round (run.order: rounds; drift falls on every cell alike)",
           P->run->repeat_auto ? "up to " : "", repeat);
    if (!P->run->seed_set) {
        printf(";\n  run.seed is not set: each run draws its own seed (printed at its start, "
               "recorded in matrix.json, its order in matrix.json's schedule); set run.seed to "
               "see the order here\n");
        return;
    }
    printf(", seed %llu:\n", (unsigned long long)P->run->seed);
    size_t *order = bf_calloc(P->ncells + 1, sizeof *order);
    for (uint32_t r = 1; r <= repeat && r <= PLAN_MAX_ROUNDS; r++) {
        bf_rounds_order(P->run->seed, r, 1, P->ncells, order);
        printf("  round %u:", r);
        for (size_t j = 0; j < P->ncells; j++)
            printf(" %zu", order[j] + 1);
        printf("\n");
    }
    if (repeat > PLAN_MAX_ROUNDS)
        printf("  ... and %u rounds more, drawn the same way\n", repeat - PLAN_MAX_ROUNDS);
    free(order);
}

/* The cell table in run order (the other axes in columns of their own) with each cell's body
 * and memory per agent; notes the cell with the most memory. */
static void plan_print_cells(plan_t *P)
{
    const bf_scenario_t *sc = P->sc;
    int idw = 4;
    for (size_t c = 0; c < P->ncells; c++) {
        int l = (int)strlen(bf_scenario_cell(sc, c)->id);
        if (l > idw)
            idw = l;
    }
    printf("%5s  %-*s %7s %6s %8s %10s %11s", "#", idw, "cell", "indices", "shards", "replicas",
           "batch_size", "concurrency");
    for (size_t a = 0; a < P->naxes; a++) {
        const char *an = bf_scenario_axis_name(sc, a);
        if (!plan_fixed_axis(an))
            printf(" %12s", an);
    }
    printf(" %10s %12s\n", "body", "mem/agent");
    for (size_t c = 0; c < P->ncells; c++) {
        const bf_cell_t *cell = bf_scenario_cell(sc, c);
        uint64_t body = 0, mem = 0;
        plan_cell_memory(P, cell, &body, &mem);
        if (mem > P->peak_mem) {
            P->peak_mem = mem;
            P->peak_cell = c;
        }
        char b1[32], b2[32];
        printf("%5zu  %-*s %7u %6u %8u %10u %11u", c + 1, idw, cell->id, cell->indices,
               cell->shards, cell->replicas, cell->batch_size, cell->concurrency);
        for (size_t a = 0; a < P->naxes; a++) {
            const char *an = cell->axes[a].axis;
            if (!plan_fixed_axis(an))
                printf(" %12s", cell->axes[a].value[0] ? cell->axes[a].value : "-");
        }
        printf(" %10s %12s\n", bf_units_format_bytes(body, b1, sizeof b1),
               bf_units_format_bytes(mem, b2, sizeof b2));
    }
}

/* The estimated duration of a corpus read a given number of passes: a cell ends when its
 * corpus is read (docs/scenario.md, End of the corpus), in the time the cluster takes;
 * run.warmup + run.duration is only the most it may take. With a rate known (target_rate,
 * or --agent-docs-per-s x agents, the fastest the agents can send) the corpus's time is
 * documents x passes / rate. extra: the first cell's longer warmup, said, or "". */
static void plan_print_corpus_duration(const plan_t *P, uint64_t first_extra, const char *extra)
{
    const bf_run_spec_t *run = P->run;
    size_t ncells = P->ncells;
    char d1[32], d2[32], d3[32], d4[32], d5[32];
    uint64_t docs = (uint64_t)bf_corpus_docs(P->pc) * P->dspec->corpus_passes;
    uint64_t most_ms = run->warmup_ms + run->duration_ms;
    uint64_t known = 0, sum_ms = 0, bound_ms = 0;
    for (size_t c = 0; c < ncells; c++) {
        const bf_cell_t *cell = bf_scenario_cell(P->sc, c);
        uint64_t w_ms, d_ms;
        bf_scenario_cell_timing(P->sc, cell, &w_ms, &d_ms);
        if (cell->concurrency == 0) { /* a search-only cell reads no corpus: its own time */
            sum_ms += w_ms + d_ms;
            bound_ms += w_ms + d_ms + SETUP_MS;
            known++;
            continue;
        }
        bound_ms += most_ms + SETUP_MS;
        double rate = cell->target_rate > 0 ? cell->target_rate : P->agent_rate * P->fleet;
        if (!(rate > 0))
            continue;
        uint64_t ms = (uint64_t)((double)docs / rate * 1000.0) + 1;
        sum_ms += ms < most_ms ? ms : most_ms;
        known++;
    }
    uint64_t at_most = bound_ms * run->repeat + first_extra;
    printf("\nestimated duration: %zu cell%s x %u repeat, each ending when its corpus is read "
           "(%llu documents: %zu x %u pass%s), at most %s warmup + %s, + ~%s setup%s\n",
           ncells, ncells == 1 ? "" : "s", run->repeat, (unsigned long long)docs,
           bf_corpus_docs(P->pc), P->dspec->corpus_passes, P->dspec->corpus_passes == 1 ? "" : "es",
           bf_units_format_duration_ms(run->warmup_ms, d1, sizeof d1),
           bf_units_format_duration_ms(run->duration_ms, d2, sizeof d2),
           bf_units_format_duration_ms(SETUP_MS, d3, sizeof d3), extra);
    if (known == ncells && ncells) {
        uint64_t est = (sum_ms + (uint64_t)ncells * SETUP_MS) * run->repeat + first_extra;
        printf("  = about %s at %s (the corpus's time; the cluster may be slower), at most "
               "%s\n",
               bf_units_format_duration_ms(est, d4, sizeof d4),
               P->agent_rate > 0 ? "--agent-docs-per-s x the agents" : "target_rate",
               bf_units_format_duration_ms(at_most, d5, sizeof d5));
    } else {
        printf("  = as long as the cluster takes to index them (the corpus's time), at most "
               "%s; give --agent-docs-per-s (or a target_rate) for an estimate\n",
               bf_units_format_duration_ms(at_most, d4, sizeof d4));
    }
}

/* run.repeat: auto: the estimate above is its worst case (max_repeat rounds, or
 * run.until.max_time when that comes first); the least is min_repeat rounds. */
static void plan_print_auto(const plan_t *P, uint64_t worst_ms, uint64_t least_ms)
{
    const bf_run_spec_t *run = P->run;
    if (!run->repeat_auto)
        return;
    char w[32], l[32], t[32];
    const char *cut = "";
    if (run->until_max_time_ms && run->until_max_time_ms < worst_ms) {
        worst_ms = run->until_max_time_ms;
        cut = ", cut by run.until.max_time";
    }
    printf("run.repeat: auto: worst case %u rounds (run.until.max_repeat)%s = %s; at least %u "
           "rounds (run.until.min_repeat) = %s; after each round from then on, the cells of "
           "every comparison still unclear run again%s%s\n",
           run->until_max_repeat, cut, bf_units_format_duration_ms(worst_ms, w, sizeof w),
           run->until_min_repeat, bf_units_format_duration_ms(least_ms, l, sizeof l),
           run->until_max_time_ms ? "; no round starts that would end after " : "",
           run->until_max_time_ms ? bf_units_format_duration_ms(run->until_max_time_ms, t, sizeof t)
                                  : "");
}

/* The estimated duration: cells x repeat x (warmup + duration + setup), + the first cell's
 * longer run.first_warmup; a passes-bounded corpus as plan_print_corpus_duration says. */
static void plan_print_duration(const plan_t *P)
{
    const bf_run_spec_t *run = P->run;
    size_t ncells = P->ncells;
    uint64_t per_cell = run->warmup_ms + run->duration_ms + SETUP_MS, cells_ms = 0;
    for (size_t c = 0; c < ncells; c++) { /* search-only cells may have their own time */
        uint64_t w_ms, d_ms;
        bf_scenario_cell_timing(P->sc, bf_scenario_cell(P->sc, c), &w_ms, &d_ms);
        cells_ms += w_ms + d_ms + SETUP_MS;
    }
    uint64_t first_extra =
        ncells && run->first_warmup_ms > run->warmup_ms ? run->first_warmup_ms - run->warmup_ms : 0;
    uint64_t total = cells_ms * run->repeat + first_extra;
    char d1[32], d2[32], d3[32], d4[32], d5[32];
    char extra[160] = "";
    if (first_extra)
        snprintf(extra, sizeof extra, " + %s (the first cell's longer run.first_warmup)",
                 bf_units_format_duration_ms(first_extra, d5, sizeof d5));
    if (cells_ms != (uint64_t)ncells * per_cell)
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
                 ", search-only cells with search.warmup + search.duration");
    if (P->pc && P->dspec->corpus_passes > 0) {
        plan_print_corpus_duration(P, first_extra, extra);
        return;
    }
    /* run.warmup: auto: the worst case, every cell warming up to run.warmup_max */
    printf("\nestimated duration: %s%zu cell%s x %u repeat x (%s%s warmup + %s + ~%s setup)%s = "
           "%s\n",
           run->warmup_auto ? "at most " : "", ncells, ncells == 1 ? "" : "s", run->repeat,
           run->warmup_auto ? "at most " : "",
           bf_units_format_duration_ms(run->warmup_ms, d1, sizeof d1),
           bf_units_format_duration_ms(run->duration_ms, d2, sizeof d2),
           bf_units_format_duration_ms(SETUP_MS, d3, sizeof d3), extra,
           bf_units_format_duration_ms(total, d4, sizeof d4));
    plan_print_auto(P, total, cells_ms * run->until_min_repeat + first_extra);
}

/* `find-max` runs steps, not these cells: its time is the search's bound
 * ("1 cell, 12 s" would say nothing of a search that may take find_max.max_time). Nothing without
 * a find_max: section. */
static void plan_print_findmax(const plan_t *P)
{
    const bf_run_spec_t *run = P->run;
    const bf_findmax_spec_t *fms = bf_scenario_findmax(P->sc);
    if (!fms->present)
        return;
    bf_fm_cfg_t fc;
    bf_fm_cfg_defaults(&fc);
    fc.batch_start = fms->batch_start, fc.batch_max = fms->batch_max;
    fc.concurrency_start = fms->concurrency_start, fc.concurrency_max = fms->concurrency_max;
    fc.sustain_tries = fms->sustain_tries;
    uint32_t nsearch = 0, nsustain = 0;
    bf_fm_max_steps(&fc, &nsearch, &nsustain);
    size_t ncombo = bf__findmax_combinations(P->sc);
    uint64_t steps_ms = (uint64_t)nsearch * (run->warmup_ms + run->duration_ms + SETUP_MS) +
                        (uint64_t)nsustain * (run->warmup_ms + fms->sustain_ms + SETUP_MS);
    uint64_t per_ms = steps_ms < fms->max_time_ms ? steps_ms : fms->max_time_ms;
    char f1[32], f2[32], f3[32], f4[32], f5[32], f6[32], f7[32], f8[32];
    printf("find-max: %zu combination%s of the other axes, each a search of at most %u "
           "search steps (%s warmup + %s + ~%s setup) and %u sustain steps (%s + "
           "find_max.sustain %s + ~%s) = %s, bounded by find_max.max_time %s: up to %s per "
           "combination, %s in all (the estimated duration above is `run`'s)\n",
           ncombo, ncombo == 1 ? "" : "s", nsearch,
           bf_units_format_duration_ms(run->warmup_ms, f1, sizeof f1),
           bf_units_format_duration_ms(run->duration_ms, f2, sizeof f2),
           bf_units_format_duration_ms(SETUP_MS, f3, sizeof f3), nsustain, f1,
           bf_units_format_duration_ms(fms->sustain_ms, f4, sizeof f4), f3,
           bf_units_format_duration_ms(steps_ms, f5, sizeof f5),
           bf_units_format_duration_ms(fms->max_time_ms, f6, sizeof f6),
           bf_units_format_duration_ms(per_ms, f7, sizeof f7),
           bf_units_format_duration_ms(per_ms * ncombo, f8, sizeof f8));
}

/* Peak memory per agent (the cell with the most), and what the coordinator keeps per cell on
 * purpose (a soak's RSS grew by exactly this): one row per finished cell
 * (matrix.json/matrix.md are rewritten from every row after each cell) and one per
 * repetition of the running cell (its row is the median repetition's, picked when the last
 * one ends). */
static void plan_print_memory(const plan_t *P)
{
    const bf_scenario_t *sc = P->sc;
    char m1[32], m2[32];
    printf("peak memory per agent: %s in cell %s (its concurrency share x body%s + "
           "dictionaries%s + 64 MiB)\n",
           bf_units_format_bytes(P->peak_mem, m1, sizeof m1),
           bf_scenario_cell(sc, P->peak_cell)->id,
           bf_scenario_cell(sc, P->peak_cell)->compression == BF_COMPRESS_GZIP ? " x 2 (gzip)" : "",
           P->corpus_bytes ? " + corpus" : "");
    uint32_t reps = P->run->repeat ? P->run->repeat : 1;
    printf("coordinator memory for rows: %s at most (one %zu-byte row per cell for matrix.json, "
           "%zu, + one per repetition, %zu, kept for the medians since rounds interleave the "
           "cells): it grows by a row a repetition, by design\n",
           bf_units_format_bytes((uint64_t)(P->ncells * (1 + (size_t)reps) + 1) * sizeof(bf_row_t),
                                 m2, sizeof m2),
           sizeof(bf_row_t), P->ncells, P->ncells * (size_t)reps);
}

int bf_cmd_plan(int argc, char **argv)
{
    uint32_t agents = 1, nodes = 0;
    double agent_rate = 0;
    const char *path = parse_common(argc, argv, &agents, &nodes, &agent_rate,
                                    "plan FILE [--agents N] [--agent-docs-per-s D] "
                                    "[--cluster-nodes N] [--strict]");
    if (path == NULL)
        return BF_EXIT_INPUT;
    if (agents == 0) {
        bf_error("--agents must be at least 1");
        return BF_EXIT_INPUT;
    }
    bf_scenario_t *sc = NULL;
    int rc = load(path, nodes, &sc);
    if (rc != BF_EXIT_OK)
        return rc;
    bf_tmpl_t *t = NULL;
    bf_diag_t diag = {0};
    if (bf_tmpl_compile(sc, &t, &diag) != BF_OK) {
        bf_error("%s", diag.msg);
        bf_scenario_destroy(&sc);
        return BF_EXIT_INPUT;
    }
    plan_t *P = bf_calloc(1, sizeof *P);
    P->sc = sc;
    P->t = t;
    P->run = bf_scenario_run(sc);
    P->dspec = bf_scenario_document(sc);
    P->ncells = bf_scenario_cell_count(sc);
    P->naxes = bf_scenario_axis_count(sc);
    P->agents = agents;
    P->fleet = P->run->agents && P->run->agents < agents ? P->run->agents : agents;
    P->agent_rate = agent_rate;
    P->dict_bytes = plan_dict_bytes(sc);
    plan_corpus(P);
    corpus_warmup_warning(path, sc, P->pc, agent_rate, P->fleet);
    plan_print_head(P, path);
    plan_print_cells(P);
    plan_print_order(P);
    plan_print_duration(P);
    plan_print_findmax(P);
    plan_print_memory(P);
    rate_warnings(sc, t, P->fleet, agent_rate);
    bf_corpus_destroy(&P->local);
    free(P);
    bf_tmpl_destroy(&t);
    bf_scenario_destroy(&sc);
    return BF_EXIT_OK;
}

/* The whole file at path, at most BF_MAX_SCENARIO_BYTES, through bf_file_read; errno is set
 * to its errno on a failure, for the caller's message. */
static int read_all(const char *path, char **data, size_t *len)
{
    int err_no = 0;
    int rc = bf_file_read(path, BF_MAX_SCENARIO_BYTES, data, len, &err_no);
    if (rc != BF_OK && err_no != 0)
        errno = err_no;
    return rc;
}

int bf_cmd_import_loadgen(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"concurrency", required_argument, NULL, 'c'},
        {"duration", required_argument, NULL, 'd'},
        {"rate", required_argument, NULL, 'r'},
        {"compress", no_argument, NULL, 'z'},
        {"name", required_argument, NULL, 'N'},
        {"output", required_argument, NULL, 'o'},
        {"config", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *usage = "import-loadgen LOADGEN.yml|LOADGEN.dsl [-c N] [-d SECONDS] [-r QPS] "
                        "[--compress] [--config loadgen.yml] [--name NAME] [-o OUT.yaml]";
    const char *config_path = NULL;
    const char *out_path = NULL;
    bf_import_opts_t o = {0};
    optind = 0;
    opterr = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "c:d:r:zN:o:h", longopts, NULL)) != -1) {
        uint32_t v;
        switch (ch) {
        case 'c':
            if (parse_u32_opt("-c", optarg, &v) != 0 || v == 0)
                return BF_EXIT_INPUT;
            o.concurrency = v;
            break;
        case 'd':
            if (parse_u32_opt("-d", optarg, &v) != 0 || v == 0)
                return BF_EXIT_INPUT;
            o.duration_s = v;
            break;
        case 'r':
            if (parse_u32_opt("-r", optarg, &v) != 0)
                return BF_EXIT_INPUT;
            o.qps = v;
            break;
        case 'z': o.compress = 1; break;
        case 'N': o.name = optarg; break;
        case 'o': out_path = optarg; break;
        case 'C': config_path = optarg; break;
        case 'h':
            printf("usage: bulkfleet-coordinator %s\n"
                   "  a .dsl file (loadgen -run) is read through its YAML form; --config names "
                   "the\n  loadgen.yml whose env:, variables: and runner: it uses (loadgen "
                   "-config; default:\n  the loadgen.yml beside the .dsl file, when there is "
                   "one)\n",
                   usage);
            return BF_EXIT_OK;
        default: fprintf(stderr, "usage: bulkfleet-coordinator %s\n", usage); return BF_EXIT_INPUT;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "usage: bulkfleet-coordinator %s\n", usage);
        return BF_EXIT_INPUT;
    }
    const char *path = argv[optind];
    char *text = NULL;
    size_t len = 0;
    int rc = read_all(path, &text, &len);
    if (rc != BF_OK) {
        bf_error("cannot read %s: %s", path, rc == BF_E_TOOBIG ? "too large" : strerror(errno));
        return rc == BF_E_IO ? BF_EXIT_ENV : BF_EXIT_INPUT;
    }
    /* a DSL file takes its env:, variables: and runner: from loadgen.yml (loadgen -config) */
    char *cfg_text = NULL, *cfg_auto = NULL;
    size_t plen = strlen(path);
    if (config_path == NULL && plen > 4 && strcmp(path + plen - 4, ".dsl") == 0) {
        const char *slash = strrchr(path, '/');
        cfg_auto = slash ? bf_asprintf("%.*s/loadgen.yml", (int)(slash - path), path)
                         : bf_strdup("loadgen.yml");
        if (access(cfg_auto, R_OK) == 0) {
            config_path = cfg_auto;
            bf_info("%s: using the env:, variables: and runner: of %s beside it, as loadgen's "
                    "-config does (--config FILE names another)",
                    path, cfg_auto);
        }
    }
    if (config_path) {
        size_t cl = 0;
        if (read_all(config_path, &cfg_text, &cl) != BF_OK) {
            bf_error("cannot read --config %s: %s", config_path, strerror(errno));
            free(text);
            free(cfg_auto);
            return BF_EXIT_INPUT;
        }
        o.config_text = cfg_text;
        o.config_origin = config_path;
    }
    char *yaml = NULL;
    bf_diag_t diag = {0};
    rc = bf_import_loadgen(text, len, path, &o, &yaml, &diag);
    free(text);
    free(cfg_text);
    free(cfg_auto);
    if (rc != BF_OK) {
        bf_error("%s", diag.msg[0] ? diag.msg : bf_strerror(rc));
        return BF_EXIT_INPUT;
    }
    int code = BF_EXIT_OK;
    /* what the output still has wrong that the import can list in full (every duplicate key of
     * the body; the loader below stops at the first) */
    if (diag.msg[0]) {
        bf_error("%s", diag.msg);
        code = BF_EXIT_INPUT;
    }
    /* Does the result load? Relative paths as the output will see them; an environment
     * variable not set yet (the password the user exports later) is not a mistake. What loadgen
     * tolerated and bulkfleet refuses (duplicate keys in a body, say) is said now, not at the
     * first run. */
    {
        char *dir_src = bf_strdup(out_path ? out_path : path);
        char *slash = strrchr(dir_src, '/');
        if (slash)
            *slash = '\0';
        /* as validate does: an unset ${VAR} is a warning, checked with a stand-in that passes
         * the key's checks (a URL under hosts), never a value of the import's own */
        bf_load_opts_t lo = {.base_dir = slash ? dir_src : ".", .env_warn = 1};
        bf_scenario_t *check = NULL;
        bf_diag_t cd = {0};
        const char *origin = out_path ? out_path : "(the converted scenario)";
        if (bf_scenario_load_text(yaml, strlen(yaml), origin, &lo, &check, &cd) != BF_OK &&
            !(diag.msg[0] && strstr(cd.msg, "duplicate object key"))) {
            bf_error("the converted scenario does not validate yet; fix it before running it: %s",
                     cd.msg);
            code = BF_EXIT_INPUT;
        }
        for (size_t i = 0; check && i < bf_scenario_warning_count(check); i++)
            if (strstr(bf_scenario_warning(check, i), "environment variable "))
                bf_warn("%s", bf_scenario_warning(check, i));
        bf_scenario_destroy(&check);
        free(dir_src);
    }
    if (out_path) {
        FILE *f = fopen(out_path, "wb");
        int bad = f == NULL || fputs(yaml, f) == EOF;
        if (f && fclose(f) != 0)
            bad = 1;
        if (bad) {
            bf_error("cannot write %s: %s", out_path, strerror(errno));
            code = BF_EXIT_ENV;
        } else if (code == BF_EXIT_OK) {
            bf_info("wrote %s; check it with: bulkfleet-coordinator validate %s", out_path,
                    out_path);
        } else {
            bf_warn("wrote %s anyway, to be fixed", out_path);
        }
    } else {
        fputs(yaml, stdout);
    }
    free(yaml);
    return code;
}
