/* SPDX-License-Identifier: MIT */
/* bf_campaign.c — the campaign loop: every cell of the matrix, each repetition, in order.
 *
 * Setup (binds, keys, local agents, each cell's indices) is bf_cell_setup.c; one repetition on
 * the agents connected now (waiting for them, retrying a lost one) is bf_cell_attempt.c, which
 * find-max (bf_findmax_run.c) uses as well; its run on the fleet (the member state table) is
 * bf_cell_protocol.c; the end of a repetition
 * and of a cell (verification, cells/<cell>.ndjson, the matrix) is resultlib's bf_finish.c,
 * which the agent's standalone mode uses as well.
 */
#include "bf_campaign_int.h"

#include "bf_buf.h"
#include "bf_cfgerr.h"
#include "bf_clock.h"
#include "bf_file.h"
#include "bf_matrixfile.h"
#include "bf_finish.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_report.h"
#include "bf_rounds.h"
#include "bf_runopts.h"
#include "bf_scenload.h"
#include "bf_units.h"
#include "bf_until.h"
#include "bf_vars.h"
#include "bf_wire.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the campaign ------------------------------------------------------------------------- */

/* --resume DIR with a scenario that differs from the one the campaign started with would mix
 * rows measured under two definitions. Returns 1 (after saying why) when DIR/scenario.yaml is
 * missing or differs from this scenario's redacted text. */
static int resume_mismatch(const char *dir, const bf_scenario_t *sc)
{
    char *path = bf_asprintf("%s/scenario.yaml", dir);
    char *text = NULL;
    size_t len = 0;
    int err_no = 0, differs = 1;
    int rc = bf_file_read(path, BF_MAX_SCENARIO_BYTES, &text, &len, &err_no);
    if (rc == BF_E_NOTFOUND || (rc == BF_E_IO && err_no != EISDIR)) {
        bf_error("--resume %s: %s: %s; give the results directory "
                 "of the campaign to continue",
                 dir, path, strerror(err_no));
    } else {
        /* larger than any scenario, or a directory: not the one this campaign wrote */
        const char *now = bf_scenario_redacted_text(sc);
        differs = text == NULL || len == 0 || strcmp(text, now) != 0;
        if (differs)
            bf_error("--resume %s: the scenario differs from the one "
                     "this campaign started with (%s); resume with the same scenario file and "
                     "environment, or start a new campaign",
                     dir, path);
        free(text);
    }
    free(path);
    return differs;
}

/* --resume DIR: the --cells/--warmup/--duration this campaign started with (DIR/run-options.json)
 * reconciled with the ones given now into *use (bf_runopts_resume; use->cells may point into
 * *recorded, which the caller cleans up). *have_record = 0 when DIR has no record (a campaign
 * from before it was kept): then the options given now are used. Returns 0, or BF_EXIT_INPUT
 * after saying why. */
static int resume_options(const char *dir, const bf_runopts_t *given, bf_runopts_t *recorded,
                          bf_runopts_t *use, int *have_record)
{
    char *path = bf_asprintf("%s/%s", dir, BF_RUNOPTS_FILE);
    char desc[4200];
    int code = BF_EXIT_OK;
    *use = *given;
    *have_record = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        if (errno == ENOENT)
            bf_warn("--resume %s: no %s (the campaign's --cells, --warmup and --duration were "
                    "not recorded): using the ones given now (%s)",
                    dir, BF_RUNOPTS_FILE, bf_runopts_describe(given, desc, sizeof desc));
        else {
            bf_error("--resume %s: cannot read %s: %s", dir, path, strerror(errno));
            code = BF_EXIT_INPUT;
        }
        free(path);
        return code;
    }
    bf_buf_t b;
    bf_buf_init(&b, BF_MAX_RUNOPTS_BYTES);
    char chunk[4096];
    size_t n;
    int big = 0;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (bf_buf_append(&b, chunk, n) != BF_OK) {
            big = 1;
            break;
        }
    fclose(f);
    bf_diag_t d = {0};
    if (big) {
        bf_error("--resume %s: %s is larger than %u bytes; it is not one bulkfleet wrote", dir,
                 path, BF_MAX_RUNOPTS_BYTES);
        code = BF_EXIT_INPUT;
    } else if (bf_runopts_parse(b.data ? b.data : "", b.len, path, recorded, &d) != BF_OK ||
               bf_runopts_resume(recorded, given, use, &d) != BF_OK) {
        bf_error("%s", d.msg);
        code = BF_EXIT_INPUT;
    } else {
        *have_record = 1;
        bf_info("--resume: continuing with the options the campaign started with: %s (from %s)",
                bf_runopts_describe(use, desc, sizeof desc), path);
    }
    bf_buf_cleanup(&b);
    free(path);
    return code;
}

/* --cells "i1-s2-r0-b500-c4,3": ids or 1-based numbers. *sel gets one flag per cell (caller
 * frees). Returns 0, or BF_E_NOTFOUND after printing which entry matched nothing. */
static int select_cells(const bf_scenario_t *sc, const char *opt, const char *list, uint8_t **sel)
{
    size_t n = bf_scenario_cell_count(sc);
    *sel = bf_calloc(n + 1, 1);
    const char *cur = list;
    char tok[256];
    int rc = BF_OK;
    while (bf_str_field(&cur, ',', tok, sizeof tok)) {
        const bf_cell_t *cell = bf_scenario_find_cell(sc, tok);
        uint64_t num;
        if (cell == NULL && bf_units_parse_u64(tok, &num) == BF_OK && num >= 1 && num <= n)
            cell = bf_scenario_cell(sc, (size_t)num - 1);
        if (cell == NULL) {
            bf_error("%s: '%s' is neither a cell id nor a number "
                     "1..%zu; `bulkfleet-coordinator plan` lists them",
                     opt, tok, n);
            rc = BF_E_NOTFOUND;
            break;
        }
        (*sel)[cell->index] = 1;
    }
    if (rc != BF_OK) {
        free(*sel);
        *sel = NULL;
    }
    return rc;
}

/* The command line's values that can be judged without the cluster or the fleet, before
 * either is contacted (a --bind port out of range was said only after probing the cluster,
 * or not at all when the cluster was down: exit 3 for a typo). Returns BF_OK, or BF_E_INVAL
 * after saying what is wrong and what to give. */
static int check_options(const bf_campaign_opts_t *opts)
{
    bf_diag_t d = {0};
    const char *control = opts->control_bind ? opts->control_bind : "tcp://127.0.0.1:7100";
    uint32_t cport = 0, dport = 0;
    if (bf_wire_endpoint_check("--bind", control, opts->data_bind == NULL, &cport, &d) != BF_OK ||
        (opts->data_bind &&
         bf_wire_endpoint_check("--data-bind", opts->data_bind, 0, &dport, &d) != BF_OK)) {
        bf_error("%s", d.msg);
        return BF_E_INVAL;
    }
    if (opts->data_bind && strcmp(opts->data_bind, control) == 0) {
        bf_error("--data-bind %s is the --bind endpoint: samples need a port of their own (leave "
                 "--data-bind out to use the next port)",
                 opts->data_bind);
        return BF_E_INVAL;
    }
    if (opts->metrics_store && strncmp(opts->metrics_store, "http://", 7) != 0 &&
        strncmp(opts->metrics_store, "https://", 8) != 0) {
        bf_error("--metrics-store %s: expected an http:// or https:// URL, such as "
                 "http://127.0.0.1:9200",
                 opts->metrics_store);
        return BF_E_INVAL;
    }
    if (opts->resume_dir) {
        struct stat st;
        int src = stat(opts->resume_dir, &st);
        if (src != 0 || !S_ISDIR(st.st_mode)) {
            bf_error("--resume %s: %s; give the results directory of the campaign to continue "
                     "(results/<name>-<time>)",
                     opts->resume_dir, src != 0 ? strerror(errno) : "not a directory");
            return BF_E_INVAL;
        }
    }
    uint32_t want = opts->agents ? opts->agents : (opts->local_agents ? opts->local_agents : 1);
    if (opts->min_agents > want) {
        bf_error("--min-agents %u is more than the %u agent%s this campaign waits for (--agents, "
                 "--local-agents); lower it or start more",
                 opts->min_agents, want, want == 1 ? "" : "s");
        return BF_E_INVAL;
    }
    return BF_OK;
}

/* What bf_campaign_run reads from its options before it touches a cluster: the run options
 * in force (given, or with --resume the campaign's recorded ones) and the cells picked by
 * --cells and --rerun (NULL: all / none). campaign_inputs_cleanup frees it. */
typedef struct campaign_inputs {
    bf_runopts_t given, recorded, use;
    int have_record; /* the results directory already records its run options */
    uint8_t *selected, *rerun;
} campaign_inputs_t;

static void campaign_inputs_cleanup(campaign_inputs_t *in)
{
    bf_runopts_cleanup(&in->recorded);
    free(in->selected);
    free(in->rerun);
}

/* --rerun with --resume only, and only among the campaign's --cells */
static int check_rerun(const bf__campaign_t *c, const bf_campaign_opts_t *opts,
                       campaign_inputs_t *in)
{
    if (opts->rerun && opts->resume_dir == NULL) {
        bf_error("--rerun runs cells of a campaign again: give it with --resume DIR");
        return BF_EXIT_INPUT;
    }
    if (opts->rerun && select_cells(c->sc, "--rerun", opts->rerun, &in->rerun) != BF_OK)
        return BF_EXIT_INPUT;
    for (size_t k = 0; in->rerun && in->selected && k < bf_scenario_cell_count(c->sc); k++) {
        if (in->rerun[k] && !in->selected[k]) {
            bf_error("--rerun: cell %s is not among the campaign's --cells %s; only they run",
                     bf_scenario_cell(c->sc, k)->id, in->use.cells);
            return BF_EXIT_INPUT;
        }
    }
    return BF_EXIT_OK;
}

/* The campaign's seed: with --resume and no run.seed the campaign's own (the rows already
 * finished were generated with it: the cells run again produce the same documents and
 * matrix.json keeps one seed); else without run.seed a fresh one per campaign (ids differ
 * between campaigns), said so the campaign can be repeated exactly. */
static void campaign_seed(bf__campaign_t *c, const bf_campaign_opts_t *opts)
{
    if (opts->resume_dir && !bf_scenario_run(c->sc)->seed_set) {
        json_t *m = NULL;
        bf_matrixfile_read(opts->resume_dir, &m, NULL); /* resume checks the directory */
        json_t *sd = json_object_get(m, "seed");
        if (json_is_integer(sd)) {
            bf_scenario_set_seed(c->sc, (uint64_t)json_integer_value(sd));
            bf_info("--resume: this campaign's seed %llu (from %s/matrix.json)",
                    (unsigned long long)bf_scenario_run(c->sc)->seed, opts->resume_dir);
        }
        json_decref(m);
    }
    uint64_t seed;
    if (bf_scenario_seed_fresh(c->sc, &seed))
        bf_info("run.seed not set: this campaign uses seed %llu (write run.seed: %llu to repeat "
                "its documents exactly)", (unsigned long long)seed, (unsigned long long)seed);
}

/* The scenario loaded (its warnings said) with the run options in force: --cells, --warmup,
 * --duration as given, or with --resume the campaign's own (resume_options); --rerun; the
 * seed. Returns BF_EXIT_OK or BF_EXIT_INPUT (said); c->sc is set when it loaded. */
static int campaign_inputs(bf__campaign_t *c, const bf_campaign_opts_t *opts, campaign_inputs_t *in)
{
    if (check_options(opts) != BF_OK)
        return BF_EXIT_INPUT;
    if (bf_scenload_file(opts->scenario_path, NULL, &c->sc) != BF_OK)
        return BF_EXIT_INPUT; /* every mistake said, as validate says them */
    for (size_t i = 0; i < bf_scenario_warning_count(c->sc); i++)
        bf_warn("%s", bf_scenario_warning(c->sc, i));
    in->given =
        (bf_runopts_t){.cells = opts->cells,
                       .has_warmup = opts->warmup_ms != NULL,
                       .warmup_ms = opts->warmup_ms ? *opts->warmup_ms : 0,
                       .has_first_warmup = opts->first_warmup_ms != NULL,
                       .first_warmup_ms = opts->first_warmup_ms ? *opts->first_warmup_ms : 0,
                       .has_duration = opts->duration_ms != NULL,
                       .duration_ms = opts->duration_ms ? *opts->duration_ms : 0};
    in->use = in->given;
    if (opts->resume_dir && resume_options(opts->resume_dir, &in->given, &in->recorded, &in->use,
                                           &in->have_record) != BF_EXIT_OK)
        return BF_EXIT_INPUT;
    bf_scenario_override_run(c->sc, in->use.has_warmup ? &in->use.warmup_ms : NULL,
                             in->use.has_first_warmup ? &in->use.first_warmup_ms : NULL,
                             in->use.has_duration ? &in->use.duration_ms : NULL);
    if (in->use.has_duration && in->use.duration_ms < 1000) {
        bf_error("--duration must be at least 1s");
        return BF_EXIT_INPUT;
    }
    if (in->use.cells && select_cells(c->sc, "--cells", in->use.cells, &in->selected) != BF_OK)
        return BF_EXIT_INPUT;
    if (check_rerun(c, opts, in) != BF_EXIT_OK)
        return BF_EXIT_INPUT;
    campaign_seed(c, opts);
    return BF_EXIT_OK;
}

/* Every named host set (targets:) must answer, and be the same cluster: bulkfleet prepares,
 * counts and watches through target.hosts, so a gateway in front of another cluster would
 * give rows verified against the wrong one. */
static int probe_named_targets(bf__campaign_t *c, uint64_t probe_ms)
{
    for (size_t t = 0; t < bf_scenario_named_target_count(c->sc); t++) {
        const char *tname = NULL;
        const bf_target_t *nt = bf_scenario_named_target(c->sc, t, &tname);
        for (size_t i = 0; i < nt->nhosts; i++) {
            bf_cluster_info_t info_i;
            bf_diag_t d_i = {0};
            int rc_i = bf_cluster_probe(nt, i, probe_ms, &info_i, &d_i);
            char *red_i = bf_url_redact_userinfo(nt->hosts[i]);
            char host_i[512];
            bf_strlcpy(host_i, red_i ? red_i : nt->hosts[i], sizeof host_i);
            free(red_i);
            if (rc_i != BF_OK) {
                bf_error("targets.%s.hosts[%zu] is not usable: %s", tname, i, d_i.msg);
                return BF_EXIT_ENV;
            }
            if (strcmp(info_i.cluster_uuid, c->cluster.cluster_uuid) != 0 ||
                strcmp(info_i.cluster_name, c->cluster.cluster_name) != 0) {
                bf_error("targets.%s.hosts[%zu] (%s) reaches cluster '%s' (uuid %s), but "
                         "target.hosts reaches '%s' (uuid %s): every named target must lead to "
                         "the cluster in target.hosts, through which bulkfleet prepares and "
                         "counts each cell; fix the URL or run the other cluster as its own "
                         "campaign",
                         tname, i, host_i, info_i.cluster_name,
                         info_i.cluster_uuid[0] ? info_i.cluster_uuid : "-",
                         c->cluster.cluster_name,
                         c->cluster.cluster_uuid[0] ? c->cluster.cluster_uuid : "-");
                return BF_EXIT_INPUT;
            }
            if (strcmp(info_i.flavor, c->cluster.flavor) != 0 &&
                (strcmp(info_i.flavor, "serverless") == 0 ||
                 strcmp(c->cluster.flavor, "serverless") == 0)) {
                /* what is skipped or refused follows target.hosts' GET /: a named target
                 * answering as another flavor would get requests its flavor refuses */
                bf_error("targets.%s.hosts[%zu] (%s) answers GET / with build_flavor '%s', but "
                         "target.hosts answers '%s': an Elastic Serverless project must be "
                         "reached as one through every host set (bulkfleet skips its "
                         "non-public APIs for all of them or none); fix the URL or run it as "
                         "its own campaign",
                         tname, i, host_i, info_i.flavor[0] ? info_i.flavor : "(none)",
                         c->cluster.flavor[0] ? c->cluster.flavor : "(none)");
                return BF_EXIT_INPUT;
            }
        }
    }
    return BF_EXIT_OK;
}

/* The outside before any load: live metrics (a port in use is said at once, not after
 * setup), the target cluster's first contact (bounded by request.timeout, saying what it
 * waits for), its telemetry, the metrics store, every other host agents will load (must
 * answer now, not fail a third of the requests later), the named targets, and that
 * index.recreate deletes only what bulkfleet made (bf_owner_t). Returns an exit code. */
static int campaign_cluster(bf__campaign_t *c, const bf_campaign_opts_t *opts,
                            const uint8_t *selected)
{
    const bf_target_t *target = bf_scenario_target(c->sc);
    bf_diag_t diag = {0};
    if (opts->metrics_listen || opts->statsd) {
        c->metrics = bf_metrics_new(opts->metrics_listen, opts->statsd, &diag);
        if (c->metrics == NULL) {
            bf_error("%s", diag.msg);
            return diag.code == BF_E_INVAL ? BF_EXIT_INPUT : BF_EXIT_ENV;
        }
        if (opts->metrics_listen)
            bf_info("live metrics: http://%.*s:%u/metrics",
                    (int)(strrchr(opts->metrics_listen, ':') - opts->metrics_listen),
                    opts->metrics_listen, (unsigned)bf_metrics_port(c->metrics));
    }
    c->es = bf_es_new(target, 0, 130000);
    uint64_t probe_ms = bf_scenario_request(c->sc)->timeout_ms;
    if (bf_cluster_probe(target, 0, probe_ms, &c->cluster, &diag) != BF_OK) {
        bf_error("cannot use the target cluster: %s", diag.msg);
        return BF_EXIT_ENV;
    }
    if (strcmp(c->cluster.flavor, "serverless") == 0) {
        /* an Elastic Serverless project: what it refuses is refused here, before any index is
         * made; what bulkfleet would add by itself (shards, replicas) is left out */
        char err[2048];
        if (bf_scenario_elastic_serverless(c->sc, selected, err, sizeof err) != BF_OK) {
            bf_error("%s", err);
            return BF_EXIT_INPUT;
        }
        bf_info("target: Elastic Serverless (build_flavor serverless): indices are created "
                "without number_of_shards and number_of_replicas (the project places shards "
                "itself; the rows' shards and replicas are not measured); _cluster/health, "
                "_nodes/stats, _stats and _flush are not public and are skipped, as Rally "
                "skips non-public operations");
    }
    c->tele = bf_telemetry_new(target);
    bf_product_t prod;
    bf_diag_t td = {0};
    if (bf_target_serverless(target)) {
        bf_info("telemetry: not measured: OpenSearch Serverless has no _nodes/stats (no write "
                "pool queue, rejections, hot spot or cluster docs/s in the rows)");
        bf_telemetry_disable(c->tele);
    } else if (bf_telemetry_probe(c->tele, &prod, &td) != BF_OK) {
        bf_warn("telemetry: %s", td.msg);
    } else if (prod.compat_mode) {
        /* OpenSearch answering GET / as Elasticsearch 7.10.2 (docs/internals/es-api.md §3.1) */
        bf_strlcpy(c->cluster.distribution, prod.distribution, sizeof c->cluster.distribution);
        bf_strlcpy(c->cluster.version, prod.version, sizeof c->cluster.version);
    } else if (strcmp(prod.flavor, "serverless") == 0) {
        /* Rally's rule for Elastic Serverless: operations that are not public are skipped */
        bf_info("telemetry: not measured: Elastic Serverless (build_flavor serverless) has no "
                "public _nodes/stats; skipped, as Rally skips non-public operations");
        bf_telemetry_disable(c->tele);
    }
    bf_info("target: %s %s, %u node%s (%s)", c->cluster.distribution, c->cluster.version,
            c->cluster.nodes, c->cluster.nodes == 1 ? "" : "s", bf_es_host(c->es));
    char vmsg[512];
    if (bf_var_vector_check(bf_scenario_variables(c->sc), bf_scenario_variable_count(c->sc),
                            c->cluster.distribution, c->cluster.version, vmsg,
                            sizeof vmsg) != BF_OK) {
        bf_error("%s", vmsg);
        return BF_EXIT_INPUT;
    }
    int code = bf__mstore_open(c); /* --metrics-store / metrics_store: (bf_campaign_mstore.c) */
    if (code != BF_EXIT_OK)
        return code;
    for (size_t i = 1; i < target->nhosts; i++) {
        bf_cluster_info_t info_i;
        bf_diag_t d_i = {0};
        if (bf_cluster_probe(target, i, probe_ms, &info_i, &d_i) != BF_OK) {
            bf_error("target.hosts[%zu] is not usable: %s", i, d_i.msg);
            return BF_EXIT_ENV;
        }
    }
    code = probe_named_targets(c, probe_ms);
    if (code != BF_EXIT_OK)
        return code;
    c->owner.scenario = bf_scenario_name(c->sc);
    c->owner.replace = opts->replace_existing;
    c->owner.nreplace = opts->nreplace_existing;
    if (bf_cluster_check_owned(c->es, c->sc, selected, &c->owner, &diag) != BF_OK) {
        bf_error("%s", diag.msg);
        return BF_EXIT_ENV;
    }
    return BF_EXIT_OK;
}

/* The fleet's sockets and handlers, the results directory (a --resume of another scenario is
 * refused; the run options recorded for a later --resume; the campaign id its name) and the
 * local agents. Returns an exit code. */
static int campaign_fleet(bf__campaign_t *c, const bf_campaign_opts_t *opts, bf__fleet_setup_t *fs,
                          const campaign_inputs_t *in)
{
    bf_diag_t diag = {0};
    int code = bf__cell_setup_fleet(c, fs);
    if (code != 0)
        return code;
    bf__cell_protocol_attach(c);
    if (opts->resume_dir && resume_mismatch(opts->resume_dir, c->sc))
        return BF_EXIT_INPUT;
    c->res = bf_results_open(opts->results_base ? opts->results_base : "results", opts->resume_dir,
                             c->sc, &diag);
    if (c->res == NULL) {
        bf_error("%s", diag.msg);
        return BF_EXIT_ENV;
    }
    bf_results_set_cluster(c->res, &c->cluster);
    /* said at the start: a coordinator killed (kill -9, its host gone) prints nothing after */
    if (opts->resume_dir == NULL)
        bf_info("results: %s (if this run is interrupted: run --resume %s continues it)",
                bf_results_dir(c->res), bf_results_dir(c->res));
    if (!in->have_record) {
        /* what --resume of this directory will reuse (or refuse to change) */
        char *ro = bf_runopts_json(&in->use);
        if (bf_results_write_file(c->res, BF_RUNOPTS_FILE, ro, strlen(ro)) != BF_OK)
            bf_warn("cannot write %s/%s: a --resume will not know this campaign's --cells, "
                    "--warmup and --duration",
                    bf_results_dir(c->res), BF_RUNOPTS_FILE);
        free(ro);
    }
    if (opts->resume_record && opts->resume_dir == NULL &&
        bf_results_write_file(c->res, "resume.json", opts->resume_record,
                              strlen(opts->resume_record)) != BF_OK)
        bf_warn("cannot write %s/resume.json: `run --resume %s` will need the scenario file and "
                "the agents' options again",
                bf_results_dir(c->res), bf_results_dir(c->res));
    const char *dir = bf_results_dir(c->res), *slash = strrchr(dir, '/');
    bf_strlcpy(c->campaign_id, slash ? slash + 1 : dir, sizeof c->campaign_id);
    c->owner.campaign = c->campaign_id;
    return bf__cell_setup_local_agents(c, fs);
}

/* The agents: --agents (or the local ones, or 1) within --agent-wait; a cell never runs on
 * more than run.agents, and a selected cell whose matrix.agents is more than the campaign has
 * is refused before any wait. Sets c->min_agents and c->wait_ms. Returns an exit code. */
static int campaign_agents(bf__campaign_t *c, const bf_campaign_opts_t *opts,
                           const uint8_t *selected)
{
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    const char *control = opts->control_bind ? opts->control_bind : "tcp://127.0.0.1:7100";
    uint32_t want = opts->agents ? opts->agents : (opts->local_agents ? opts->local_agents : 1);
    uint32_t min_agents = opts->min_agents ? opts->min_agents : want;
    if (run->agents && min_agents > run->agents) {
        bf_info("scenario run.agents is %u: cells run on %u of the %u agents", run->agents,
                run->agents, want);
        min_agents = run->agents;
    }
    for (size_t k = 0; k < bf_scenario_cell_count(c->sc); k++) {
        const bf_cell_t *cell = bf_scenario_cell(c->sc, k);
        if ((selected == NULL || selected[k]) && bf__cell_attempt_agents_is_axis(cell) &&
            cell->agents > want) {
            bf_error("cell %s: matrix.agents %u, but this campaign has %u agents; start more "
                     "(--local-agents N, or --agents N with remote agents) or lower the value",
                     cell->id, cell->agents, want);
            return BF_EXIT_INPUT;
        }
    }
    uint64_t wait_ms = opts->agent_wait_ms ? opts->agent_wait_ms : 60000;
    int wr = bf__cell_attempt_wait_agents(c, want, wait_ms);
    if (wr == BF_E_INTR)
        return bf_exit_of_signal(bf_campaign_signal);
    if (wr != BF_OK) {
        bf_error("only %zu of %u agents connected within %llu s; "
                 "start agents with: bulkfleet-agent --coordinator tcp://<this host>%s",
                 bf_fleet_ready_count(c->fleet), want, (unsigned long long)(wait_ms / 1000),
                 strrchr(control, ':'));
        return BF_EXIT_ENV;
    }
    c->min_agents = min_agents;
    c->wait_ms = wait_ms;
    return BF_EXIT_OK;
}

/* A repetition finished in the --resume directory (its row in *row): kept (said and handed to
 * the metrics store again, idempotent), or to run again as bf_resume_decide says (said, the
 * row cleared). A cell not selected keeps its row silently. Returns 1 when kept. */
static int resume_keep(bf__campaign_t *c, const char *name, int skip, int rerun_asked,
                       bf_row_t *row)
{
    const char *dir = c->opts->resume_dir;
    bf_resume_t what = bf_resume_decide(row, c->opts->keep_failed, rerun_asked);
    if (what == BF_RESUME_KEEP || skip) {
        if (!skip)
            bf_info("cell %s already finished in %s; kept", name, dir);
        if (!skip)
            bf__mstore_cell(c, name); /* idempotent: same ids as when it ran */
        return 1;
    }
    if (what == BF_RESUME_RERUN_ASKED)
        bf_info("cell %s finished in %s: running it again (--rerun)", name, dir);
    else if (what == BF_RESUME_RERUN_UNCOUNTED)
        bf_info("cell %s in %s could not be counted (%s): running it again "
                "(--keep-failed keeps it)",
                name, dir, row->reason);
    else
        bf_info("cell %s failed in %s (%s): running it again (--keep-failed keeps it)", name, dir,
                row->reason);
    memset(row, 0, sizeof *row);
    return 0;
}

/* After a repetition of cell k whose indices the cluster refused to create (c->setup_error):
 * 1 when the work left (left[j] repetitions of each cell j, 0 for a cell not selected or done)
 * would send the part of the request it refused unchanged, so every one of them would fail the
 * same way (bf_cfgerr_repeats): c->config_stop gets the key to fix and c->not_run (owned) the
 * work left. Never with --keep-going, nor when nothing is left. */
static int config_error_repeats(bf__campaign_t *c, size_t k, const uint32_t *left)
{
    if (c->setup_error[0] == '\0' || c->opts->keep_going)
        return 0;
    const bf_cell_t *failed = bf_scenario_cell(c->sc, k);
    uint32_t repeat = bf_scenario_run(c->sc)->repeat ? bf_scenario_run(c->sc)->repeat : 1;
    char key[sizeof c->config_stop] = "";
    bf_buf_t rest;
    bf_buf_init(&rest, 0);
    int repeats = 1;
    for (size_t j = 0; repeats && j < bf_scenario_cell_count(c->sc); j++) {
        if (left[j] == 0)
            continue;
        const bf_cell_t *other = bf_scenario_cell(c->sc, j);
        repeats = bf_cfgerr_repeats(failed, c->setup_error, other, key, sizeof key);
        if (left[j] == repeat) /* the whole cell */
            bf_buf_appendf(&rest, "%s%s", rest.len ? ", " : "", other->id);
        else if (left[j] == 1)
            bf_buf_appendf(&rest, "%s%s repetition %u", rest.len ? ", " : "", other->id, repeat);
        else
            bf_buf_appendf(&rest, "%s%s repetitions %u-%u", rest.len ? ", " : "", other->id,
                           repeat - left[j] + 1, repeat);
    }
    if (repeats && rest.len) {
        bf_strlcpy(c->config_stop, key, sizeof c->config_stop);
        free(c->not_run);
        c->not_run = bf_buf_steal(&rest);
    }
    bf_buf_cleanup(&rest);
    return repeats && c->not_run != NULL;
}

/* Repetition rep of cell k into *row: kept from a --resume directory (resume_keep) or run
 * (bf__cell_attempt_run; pos of nruns for the progress line). A cell not selected (skip) only keeps
 * what is finished. *have is 1 when *row holds a kept repetition, 2 a run one. Returns 0, 1 when a
 * cell not selected has no such repetition, or an exit code (a setup failure, an
 * interruption). */
static int campaign_rep(bf__campaign_t *c, size_t k, uint32_t rep, int skip, const uint8_t *rerun,
                        size_t pos, size_t nruns, uint64_t campaign_start, bf_row_t *row, int *have)
{
    const bf_cell_t *cell = bf_scenario_cell(c->sc, k);
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    uint32_t repeat = run->repeat ? run->repeat : 1;
    char name[256];
    *have = 0;
    bf_results_cell_name(cell, rep, repeat, name, sizeof name);
    if (c->opts->resume_dir && bf_results_cell_finished(c->res, name) &&
        bf_results_load_row(c->res, name, cell, row) == BF_OK &&
        resume_keep(c, name, skip, rerun && rerun[k], row)) {
        *have = 1;
        return 0;
    }
    if (skip)
        return 1; /* not selected with --cells: neither run nor (unless finished) reported */
    long partial = c->opts->resume_dir && !bf_results_cell_finished(c->res, name)
                       ? bf_results_cell_partial(c->res, name)
                       : -1;
    if (partial >= 0) /* it ran again without a word */
        bf_info("cell %s started in %s and did not finish (cells/%s.samples.partial, %ld "
                "sample lines): running it again from the start; its partial samples "
                "are replaced",
                name, c->opts->resume_dir, name, partial);
    int rc = bf__cell_attempt_run(c, cell, rep, name, pos, nruns, campaign_start, row);
    if (rc > 0)
        return rc;
    bf__mstore_cell(c, name);
    *have = 2;
    if (rc == BF_E_INTR)
        return bf_exit_of_signal(bf_campaign_signal);
    return 0;
}

/* The campaign stops after a cell when the cluster stayed unreachable while preparing one
 * (--cluster-wait) or the results directory cannot be written (disk full, read-only:
 * loading more cells would measure what cannot be kept; every file written before is
 * complete); said with how to continue. Returns BF_EXIT_ENV then, else 0. */
static int campaign_must_stop(const bf__campaign_t *c)
{
    if (c->cluster_gone) {
        bf_error("stopping the campaign: the cluster at %s "
                 "stayed unreachable while preparing a cell (--cluster-wait); finished cells "
                 "are in %s; once it is back, continue with: bulkfleet-coordinator run --resume %s "
                 "(failed cells "
                 "and cells whose documents could not be counted run again; --rerun CELLS "
                 "runs chosen finished ones again too)",
                 bf_es_host(c->es), bf_results_dir(c->res), bf_results_dir(c->res));
        return BF_EXIT_ENV;
    }
    if (c->config_stop[0]) {
        bf_error("stopping the campaign: %s; every cell left sends the same %s, so each would "
                 "fail the same way (--keep-going tries them all). Not run: %s. Fix %s in the "
                 "scenario (validate checks the file, not what the cluster accepts) and run "
                 "again, or continue with: bulkfleet-coordinator run --resume %s",
                 c->setup_error, c->config_stop, c->not_run ? c->not_run : "-", c->config_stop,
                 bf_results_dir(c->res));
        return BF_EXIT_INPUT;
    }
    if (bf_results_error(c->res)) {
        /* the failed write was said where it happened (with its file and errno): once */
        bf_error("stopping the campaign: the results directory %s cannot be written (the "
                 "error above); the files that were complete before are kept; free space (or "
                 "fix the directory) and continue with: bulkfleet-coordinator run --resume %s",
                 bf_results_dir(c->res), bf_results_dir(c->res));
        return BF_EXIT_ENV;
    }
    return 0;
}

/* matrix.json's "schedule": every repetition held (reps[k * repeat + i], nreps[k] of cell k)
 * in the order it ran (by start time; kept ones from an earlier run of a --resume by theirs),
 * each with its cell, name, repetition, round, position and start (UTC, ISO 8601 with ms). */
static json_t *campaign_schedule(const bf__campaign_t *c, const bf_row_t *reps,
                                 const uint32_t *nreps, uint32_t repeat)
{
    size_t ncells = bf_scenario_cell_count(c->sc), n = 0;
    const bf_row_t **held = bf_calloc(ncells * repeat + 1, sizeof *held);
    for (size_t k = 0; k < ncells; k++)
        for (uint32_t i = 0; i < nreps[k]; i++)
            held[n++] = &reps[k * repeat + i];
    for (size_t i = 1; i < n; i++) /* insertion sort by start: a few hundred at most */
        for (size_t j = i; j > 0 && held[j]->started_at_ms < held[j - 1]->started_at_ms; j--) {
            const bf_row_t *t = held[j];
            held[j] = held[j - 1];
            held[j - 1] = t;
        }
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        const bf_row_t *r = held[i];
        char name[256], when[40] = "";
        bf_results_cell_name(r->cell, r->repetition, repeat, name, sizeof name);
        if (r->started_at_ms > 0) {
            time_t t = (time_t)(r->started_at_ms / 1000);
            struct tm tm;
            gmtime_r(&t, &tm);
            size_t l = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
            snprintf(when + l, sizeof when - l, ".%03dZ", (int)(r->started_at_ms % 1000));
        }
        json_array_append_new(arr, json_pack("{s:s, s:s, s:i, s:i, s:i, s:o}", "cell", r->cell->id,
                                             "name", name, "repetition", (json_int_t)r->repetition,
                                             "round", (json_int_t)r->round, "position",
                                             (json_int_t)r->position, "started_at",
                                             when[0] ? json_string(when) : json_null()));
    }
    free(held);
    return arr;
}

/* The matrix from every repetition held so far: each cell's folded into one row
 * (bf_finish_fold) in matrix order into rows[0..*nrows), with the schedule; matrix.* written
 * once. Returns 1 when a folded row is not clean. */
static int campaign_fold(bf__campaign_t *c, const bf_row_t *reps, const uint32_t *nreps,
                         uint32_t repeat, bf_row_t *rows, size_t *nrows)
{
    int any_bad = 0;
    *nrows = 0;
    for (size_t k = 0; k < bf_scenario_cell_count(c->sc); k++) {
        const bf_row_t *folded =
            bf_finish_fold(NULL, c->sc, &reps[k * repeat], nreps[k], rows, nrows, NULL);
        if (folded)
            any_bad |= !bf_row_is_clean(folded);
    }
    bf_finish_mark_unsteady(rows, *nrows);
    bf_results_set_schedule(c->res, campaign_schedule(c, reps, nreps, repeat));
    if (*nrows) /* off the fleet's thread: a slow results disk delays no heartbeat */
        bf__cell_setup_write_matrix(c, rows, *nrows);
    return any_bad;
}

/* A signal stopped the campaign during cell `stopped` (SIZE_MAX: between cells): one line of
 * its own saying so, which selected cells did not run all their repetitions (nreps[k] of
 * repeat finished; done: not selected), that the stopped cell's documents in flight are unknown
 * by design (it runs again), and the command that continues. */
static void say_interrupted(const bf__campaign_t *c, const uint8_t *selected, const uint8_t *done,
                            const uint32_t *nreps, uint32_t repeat, size_t stopped)
{
    bf_buf_t left;
    bf_buf_init(&left, 0);
    size_t n = 0;
    for (size_t k = 0; k < bf_scenario_cell_count(c->sc); k++) {
        if ((selected && !selected[k]) || done[k] || (nreps[k] >= repeat && k != stopped))
            continue;
        const char *id = bf_scenario_cell(c->sc, k)->id;
        if (n < 20)
            bf_buf_appendf(&left, "%s%s", n ? ", " : "", id);
        n++;
    }
    if (n > 20)
        bf_buf_appendf(&left, " and %zu more", n - 20);
    const char *dir = bf_results_dir(c->res);
    bf_error("interrupted (%s)%s%s%s: %zu cell%s did not finish%s%s; the finished ones are in "
             "%s; continue with: bulkfleet-coordinator run --resume %s",
             bf_campaign_signal == 15 ? "SIGTERM" : "SIGINT",
             stopped != SIZE_MAX ? " during cell " : "",
             stopped != SIZE_MAX ? bf_scenario_cell(c->sc, stopped)->id : "",
             stopped != SIZE_MAX ? " (its documents still in flight when the load stopped are of "
                                   "unknown outcome by design, not lost: it runs again on resume)"
                                 : "",
             n, n == 1 ? "" : "s", n ? ": " : "", left.data ? left.data : "", dir, dir);
    bf_buf_cleanup(&left);
}

#define UNTIL_NAMED 16 /* open comparisons kept for the progress line and matrix.json */

/* run.repeat: auto between rounds: the findings' tests over the rows folded so far
 * (bf_until_open: the same tests, correction and verdicts matrix.json states); need[k] = 1 for
 * each cell of a comparison still open. *stop gets why the rounds end ("decided",
 * "max_repeat", "max_time") or stays NULL to run round `next` (round_us: how long the last
 * round took for last_cells cells; 0 before any). The record for matrix.json ("repeat_auto")
 * is set each time, so the matrix written after the last repetition says how it ended. */
static void until_test(bf__campaign_t *c, const bf_row_t *rows, size_t nrows, uint8_t *need,
                       uint32_t next, uint64_t campaign_start_us, uint64_t round_us,
                       size_t last_cells, const char **stop)
{
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    size_t ncells = bf_scenario_cell_count(c->sc);
    bf_finding_point_t *pts = bf_calloc(nrows + 1, sizeof *pts);
    uint8_t *need_row = bf_calloc(nrows + 1, 1);
    for (size_t i = 0; i < nrows; i++)
        bf_finding_point_from_row(&rows[i], &pts[i]);
    const bf_findings_spec_t *fs = bf_scenario_findings(c->sc);
    bf_findings_opts_t fo = {fs->alpha, fs->noise_band};
    bf_until_open_t open[UNTIL_NAMED];
    size_t tested = 0;
    size_t nopen =
        bf_until_open(pts, nrows, &fo, run->until_min_repeat, open, UNTIL_NAMED, need_row, &tested);
    size_t nneed = 0;
    memset(need, 0, ncells);
    for (size_t i = 0; i < nrows; i++)
        for (size_t k = 0; need_row[i] && k < ncells; k++)
            if (rows[i].cell && strcmp(rows[i].cell->id, bf_scenario_cell(c->sc, k)->id) == 0) {
                need[k] = 1;
                nneed++;
            }
    bf_until_text(open, UNTIL_NAMED, nopen, c->open_text, sizeof c->open_text);
    uint64_t elapsed_ms = (bf_clock_mono_us() - campaign_start_us) / 1000u;
    /* the next round runs nneed cells, each about as long as the last round's took */
    uint64_t next_ms = last_cells ? round_us / 1000u * nneed / last_cells : 0;
    char el[32], nx[32], mt[32];
    if (nopen == 0 && tested == 0) {
        *stop = "decided";
        bf_warn("run.repeat: auto: the findings state no comparison to test after %u rounds "
                "(cells left out, or nothing to compare: see the findings); stopping",
                next - 1);
    } else if (nopen == 0) {
        *stop = "decided";
        bf_info("run.repeat: auto: every comparison the findings state is decided (%zu tested) "
                "after %u rounds",
                tested, next - 1);
    } else if (next > run->until_max_repeat) {
        *stop = "max_repeat";
        bf_warn("run.repeat: auto: run.until.max_repeat (%u rounds) reached with %zu of %zu "
                "comparisons still unclear: %s; their findings say unclear (raise max_repeat, "
                "or accept that the difference is within the noise)",
                run->until_max_repeat, nopen, tested, c->open_text);
    } else if (run->until_max_time_ms && elapsed_ms + next_ms > run->until_max_time_ms) {
        *stop = "max_time";
        bf_warn("run.repeat: auto: another round (~%s) would end after run.until.max_time (%s; "
                "%s so far) with %zu of %zu comparisons still unclear: %s",
                bf_units_format_duration_ms(next_ms, nx, sizeof nx),
                bf_units_format_duration_ms(run->until_max_time_ms, mt, sizeof mt),
                bf_units_format_duration_ms(elapsed_ms, el, sizeof el), nopen, tested,
                c->open_text);
    } else {
        bf_info("run.repeat: auto: round %u of at most %u runs %zu of %zu cells again: %zu of "
                "%zu comparisons open: %s",
                next, run->until_max_repeat, nneed, ncells, nopen, tested, c->open_text);
    }
    json_t *arr = json_array();
    for (size_t i = 0; i < nopen && i < UNTIL_NAMED; i++)
        json_array_append_new(
            arr,
            json_pack("{s:s, s:s, s:s, s:o, s:o, s:i, s:i}", "comparison", open[i].label, "cell_a",
                      rows[open[i].a].cell ? rows[open[i].a].cell->id : "", "cell_b",
                      rows[open[i].b].cell ? rows[open[i].b].cell->id : "", "ratio",
                      isfinite(open[i].ratio) ? json_real(open[i].ratio) : json_null(), "p_value",
                      isfinite(open[i].p_value) ? json_real(open[i].p_value) : json_null(), "n_a",
                      (json_int_t)open[i].n_a, "n_b", (json_int_t)open[i].n_b));
    bf_results_set_until(c->res, json_pack("{s:i, s:i, s:I, s:i, s:o, s:i, s:i, s:o}", "min_repeat",
                                           (json_int_t)run->until_min_repeat, "max_repeat",
                                           (json_int_t)run->until_max_repeat, "max_time_s",
                                           (json_int_t)(run->until_max_time_ms / 1000u), "rounds",
                                           (json_int_t)(next - 1), "stopped",
                                           *stop ? json_string(*stop) : json_null(), "tested",
                                           (json_int_t)tested, "open_count", (json_int_t)nopen,
                                           "open", arr));
    free(need_row);
    free(pts);
}

/* Every repetition of every cell (the ones --cells picks run; progress counts their
 * repetitions): with run.repeat >= 2 in rounds, each round every cell once in the order
 * bf_rounds_order draws from run.seed and the round; with run.order: sequential or one
 * repetition, each cell's repetitions back to back in matrix order. The matrix is rewritten
 * after each repetition (campaign_fold): its rows in matrix order, each the median of the
 * cell's repetitions so far. Returns an exit code: BF_EXIT_FAILED when a row is not clean. */
static int campaign_cells(bf__campaign_t *c, const campaign_inputs_t *in, bf_row_t **rows_out,
                          size_t *nrows)
{
    const uint8_t *selected = in->selected;
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    size_t ncells = bf_scenario_cell_count(c->sc);
    uint32_t repeat = run->repeat ? run->repeat : 1;
    int shuffled = bf_rounds_shuffled(repeat, run->order_sequential);
    bf_row_t *rows = bf_calloc(ncells + 1, sizeof *rows);
    *rows_out = rows;
    bf_row_t *reps = bf_calloc(ncells * repeat + 1, sizeof *reps);
    uint32_t *nreps = bf_calloc(ncells + 1, sizeof *nreps);
    size_t *order = bf_calloc(ncells + 1, sizeof *order);
    uint8_t *done = bf_calloc(ncells + 1, 1); /* a cell not selected with nothing more kept */
    uint32_t *left = bf_calloc(ncells + 1, sizeof *left); /* repetitions each cell has left */
    uint64_t campaign_start = bf_clock_mono_us();
    int any_bad = 0, code = 0;
    size_t nsel = 0, pos = 0, stopped_at = SIZE_MAX; /* the cell a signal stopped */
    for (size_t k = 0; k < ncells; k++)
        nsel += !selected || selected[k];
    size_t nruns = nsel * repeat;
    c->nrounds = shuffled ? repeat : 1;
    bf__cell_protocol_publish(c, 0, nruns, NULL, -1);
    /* sequential: one "round" of cells, each with all its repetitions */
    uint32_t rounds = shuffled ? repeat : 1, per = shuffled ? 1 : repeat;
    /* run.repeat: auto: the cells the next round runs (all until min_repeat rounds) */
    uint8_t *need = bf_malloc(ncells + 1);
    memset(need, 1, ncells + 1);
    const char *until_stop = NULL;
    uint64_t round_us = 0;
    size_t round_cells = 0;
    for (uint32_t r = 1; r <= rounds && code == 0; r++) {
        if (run->repeat_auto && r > run->until_min_repeat) {
            until_test(c, rows, *nrows, need, r, campaign_start, round_us, round_cells,
                       &until_stop);
            if (until_stop)
                break;
        }
        uint64_t round_start = bf_clock_mono_us();
        round_cells = 0;
        bf_rounds_order(run->seed, r, shuffled, ncells, order);
        c->round = shuffled ? r : 0;
        uint32_t place = 0;
        for (size_t j = 0; j < ncells && code == 0; j++) {
            size_t k = order[j];
            if (!need[k]) /* auto: decided in every comparison it is in */
                continue;
            round_cells++;
            int skip = selected && !selected[k];
            place += !skip;
            for (uint32_t i = 0; i < per && code == 0 && !done[k]; i++) {
                uint32_t rep = shuffled ? r : i + 1;
                c->position = shuffled ? place : (uint32_t)pos + 1;
                int have = 0;
                code = campaign_rep(c, k, rep, skip, in->rerun, pos, nruns, campaign_start,
                                    &reps[k * repeat + nreps[k]], &have);
                if (code > 128 && stopped_at == SIZE_MAX)
                    stopped_at = k;
                if (code == 1) { /* not selected, and this repetition is not kept */
                    done[k] = 1;
                    code = 0;
                }
                pos += !skip;
                nreps[k] += have != 0;
                if (have == 2) { /* run now: would the work left fail as its setup did? */
                    for (size_t q = 0; q < ncells; q++)
                        left[q] = (selected && !selected[q]) || done[q] ? 0 : repeat - nreps[q];
                    config_error_repeats(c, k, left);
                }
                if (have && !skip)
                    any_bad = campaign_fold(c, reps, nreps, repeat, rows, nrows);
                int stop = campaign_must_stop(c);
                if (stop && code == 0)
                    code = stop;
            }
        }
        round_us = bf_clock_mono_us() - round_start;
    }
    if (run->repeat_auto && code == 0 && until_stop == NULL) /* all rounds: decided at last? */
        until_test(c, rows, *nrows, need, rounds + 1, campaign_start, round_us, round_cells,
                   &until_stop);
    free(need);
    any_bad = campaign_fold(c, reps, nreps, repeat, rows, nrows);
    if (code > 128)
        say_interrupted(c, selected, done, nreps, repeat, stopped_at);
    free(left);
    free(done);
    free(order);
    free(nreps);
    free(reps);
    return code == BF_EXIT_OK && any_bad ? BF_EXIT_FAILED : code;
}

/* report.html from what is on disk, also after an interruption (not when the directory
 * cannot be written: it would fail the same way), and the matrix on stdout. */
static void campaign_summary(const bf__campaign_t *c, const bf_row_t *rows, size_t nrows)
{
    if (nrows == 0)
        return;
    bf_diag_t rd = {0};
    if (!bf_results_error(c->res) && bf_report_write(bf_results_dir(c->res), &rd) != BF_OK)
        bf_warn("report: %s", rd.msg);
    printf("\n");
    if (isatty(STDOUT_FILENO)) /* a terminal: the columns that fit; a file or pipe: all */
        bf_results_print_compact(stdout, c->sc, rows, nrows, bf_results_dir(c->res));
    else
        bf_results_print_md(stdout, c->sc, rows, nrows);
    if (bf_results_runs_note(c->res))
        printf("\n%s\n", bf_results_runs_note(c->res));
    printf("\nresults: %s\n", bf_results_dir(c->res));
    fflush(stdout);
}

int bf_campaign_run(const bf_campaign_opts_t *opts)
{
    bf__campaign_t c;
    memset(&c, 0, sizeof c);
    bf_strmap_init(&c.said_held);
    c.opts = opts;
    /* command ids unique across coordinator runs: an agent takes a repeated id as a resend, so
     * a restarted (or --resume'd) coordinator counting from 1 again would be answered from the
     * agent's memory of the previous run instead of being obeyed */
    c.next_cmd = bf_clock_wall_us();
    bf__fleet_setup_t fs = {0};
    bf_row_t *rows = NULL;
    size_t nrows = 0;
    campaign_inputs_t in;
    memset(&in, 0, sizeof in);
    if (campaign_inputs(&c, opts, &in) != BF_EXIT_OK) {
        campaign_inputs_cleanup(&in);
        bf_strmap_cleanup(&c.said_held);
        bf_scenario_destroy(&c.sc);
        return BF_EXIT_INPUT;
    }
    int code = campaign_cluster(&c, opts, in.selected);
    if (code == BF_EXIT_OK)
        code = campaign_fleet(&c, opts, &fs, &in);
    if (code == BF_EXIT_OK)
        code = campaign_agents(&c, opts, in.selected);
    if (code == BF_EXIT_OK && opts->agents <= opts->local_agents)
        bf__cell_setup_forget_secrets(&fs); /* every agent is local and has joined */
    if (code == BF_EXIT_OK && opts->find_max) {
        code = bf__findmax_run(&c, &rows, &nrows);
    } else if (code == BF_EXIT_OK) {
        code = campaign_cells(&c, &in, &rows, &nrows);
        campaign_summary(&c, rows, nrows);
    }
    bf__mstore_close(&c, rows, nrows); /* flush, report what was dropped, matrix.json */
    bf__cell_setup_cleanup(&fs);
    bf_strmap_cleanup(&c.said_held);
    campaign_inputs_cleanup(&in);
    free(c.not_run);
    free(rows);
    bf_results_close(&c.res);
    bf_fleet_destroy(&c.fleet);
    bf_telemetry_destroy(&c.tele);
    if (bf_metrics_statsd_dropped(c.metrics))
        bf_warn("statsd: %llu datagrams could not be sent",
                (unsigned long long)bf_metrics_statsd_dropped(c.metrics));
    bf_metrics_destroy(&c.metrics);
    bf_es_destroy(&c.es);
    bf__cell_protocol_free_chunks(&c);
    bf_scenario_destroy(&c.sc);
    return code;
}
