/* SPDX-License-Identifier: MIT */
/* main.c — bulkfleet-coordinator: runs a scenario matrix across the fleet.
 *
 *   bulkfleet-coordinator run SCENARIO [--local-agents N | --agents N] [options]
 *   bulkfleet-coordinator validate SCENARIO
 *   bulkfleet-coordinator plan SCENARIO [--agents N]
 *   bulkfleet-coordinator import-loadgen loadgen.yml [-c N] [-d SECONDS]
 *   bulkfleet-coordinator import-rally TRACK_DIR_OR_JSON [--challenge NAME] [-o OUT.yaml]
 *   bulkfleet-coordinator report DIR
 *   bulkfleet-coordinator compare BASE_DIR CONTENDER_DIR [--csv]
 *   bulkfleet-coordinator publish RESULTS_DIR --metrics-store URL
 */
#include "bf_campaign.h"
#include "bf_keys.h"
#include "bf_publish.h"
#include "bf_cmd_scenario.h"
#include "bf_import_rally.h"
#include "bf_compare.h"
#include "bf_report.h"
#include "bf_sizing.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_units.h"
#include "bf_wire.h"

#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void on_signal(int sig)
{
    bf_campaign_signal = sig;
}

/* run's and find-max's options (both take them all) */
#define RUN_OPTIONS                                                                                \
    "  --local-agents N      start N agent processes on this host\n"                               \
    "  --agents N            wait for N agents (default: local agents, or 1)\n"                    \
    "  --min-agents N        a cell may start with this many agents\n"                             \
    "  --threads N           worker threads of each local agent\n"                                 \
    "  --bind URL            control endpoint to bind (tcp://127.0.0.1:7100; data = port + 1)\n"   \
    "  --results DIR         where results/<name>-<time>/ goes (default ./results)\n"              \
    "  --resume DIR          continue an interrupted campaign in DIR, keeping finished cells\n"    \
    "                        (alone, without SCENARIO: with the scenario and options it\n"         \
    "                        started with, from DIR/resume.json)\n"                                \
    "                        (failed, aborted and uncounted cells run again), with the --cells,\n" \
    "                        --warmup, --first-warmup and --duration it started with\n"            \
    "                        (another value: exit 2)\n"                                            \
    "  --cells LIST          run only these cells (ids or numbers from `plan`, comma-separated)\n" \
    "  --warmup DURATION     override run.warmup (e.g. 1s for a smoke run); the first cell\n"      \
    "                        keeps run.first_warmup\n"                                             \
    "  --first-warmup DURATION  override run.first_warmup (the first cell's longer warmup;\n"      \
    "                        0s = run.warmup)\n"                                                   \
    "  --duration DURATION   override run.duration\n"                                              \
    "  --cluster-wait DURATION  preparing a cell retries this long while the cluster is\n"         \
    "                        unreachable, then the campaign stops with exit 3 (60s)\n"             \
    "  --keep-failed         with --resume: keep failed cells instead of running them again\n"     \
    "  --keep-going          run every cell although the cluster refused a cell's mapping or\n"    \
    "                        setting that the cells left send too (default: stop, exit 2)\n"       \
    "  --rerun LIST          with --resume: run these finished cells again too (ids or numbers)\n" \
    "  --replace-existing NAME  index.recreate may delete and replace this index, data\n"          \
    "                        stream or index template although bulkfleet did not create it\n"      \
    "                        (repeatable; without it such names are refused, exit 3)\n"            \
    "  --wait DURATION       how long to wait for agents (60s)\n"                                  \
    "  --lost DURATION       silence after which an agent is lost (10s)\n"                         \
    "  --keys DIR            CURVE: DIR/coordinator.key; agents admitted from DIR/agents/*.pub\n"  \
    "  --allow DIR           allow-list directory of agent *.pub keys (instead of DIR/agents)\n"   \
    "  --insecure            plain TCP without CURVE (trusted networks only)\n"                    \
    "  --metrics-listen IPV4:PORT  serve live metrics in the Prometheus text format at\n"          \
    "                        http://IPV4:PORT/metrics while the campaign runs\n"                   \
    "  --statsd IPV4:PORT    send the same live metrics as statsd gauges and counters (UDP)\n"     \
    "  --metrics-store URL   also write samples, telemetry and rows into this Elasticsearch\n"     \
    "                        or OpenSearch (bulkfleet-samples-YYYY.MM, bulkfleet-results);\n"      \
    "                        auth/TLS from the scenario's metrics_store: section\n"                \
    "  --metrics-store-allow-target  the metrics store may be the target cluster itself\n"         \
    "  --file-chunk-size SIZE  files larger than this (a corpus) go to agents in chunks of\n"      \
    "                        it, each checked by hash and kept by the agent (16MiB;\n"             \
    "                        4KiB-128MiB)\n"                                                       \
    "  -q, --quiet           no progress line\n"                                                   \
    "  -v, --verbose         debug logging\n"
#define EXIT_CODES                                                                                 \
    "exit codes: 0 all cells ok, 1 some cells failed or degraded, 2 bad input,\n"                  \
    "            3 environment (cluster unreachable, too few agents), 130/143 interrupted\n"

/* `run --help` and `find-max --help`: the command's own usage, not the list of commands */
static void run_usage(FILE *f, int find_max)
{
    if (find_max)
        fputs("usage: bulkfleet-coordinator find-max SCENARIO [options]\n"
              "\n"
              "Searches the highest docs/s the cluster sustains, for each combination of the\n"
              "scenario's other axes (its find_max: section sets the bounds; every key has a\n"
              "default): the batch size doubles at concurrency 1 until docs/s gains less than\n"
              "find_max.gain_pct; then the concurrency doubles at that batch size; then the peak\n"
              "rate is run open loop for the sustain window, 10 % lower each time until it holds\n"
              "(target met, nothing rejected, p99 under the bound and not growing). Every step is\n"
              "a verified cell; findmax.json and report.html hold the path and the answer.\n"
              "\n"
              "options (the same as run's, plus --sustain):\n"
              "  --sustain DURATION    the sustain phase's window (find_max.sustain, 2m)\n"
              "  --warmup/--duration   apply to the batch and concurrency steps\n",
              f);
    else
        fputs("usage: bulkfleet-coordinator run SCENARIO [options]\n"
              "\n"
              "Runs every cell of the scenario's matrix in order (prepare the indices, load them\n"
              "from the agents, verify by _count) and writes results/<name>-<UTC time>/:\n"
              "matrix.md/.csv/.json, report.html, cells/ and telemetry/.\n"
              "\n"
              "options:\n",
              f);
    fputs(RUN_OPTIONS "\n" EXIT_CODES, f);
}

static void usage(FILE *f)
{
    fputs("usage: bulkfleet-coordinator COMMAND ...\n"
          "\n"
          "commands:\n"
          "  run SCENARIO          run every cell of the matrix and write the results\n"
          "  find-max SCENARIO     search the max sustainable docs/s per combination of the\n"
          "                        other axes (find_max: section; run's options, --sustain D)\n"
          "  validate SCENARIO     check a scenario file; exit 0, or file:line:column and exit 2\n"
          "  plan SCENARIO         cells in run order, total duration, memory per agent\n"
          "  import-loadgen FILE   print a scenario equivalent to an INFINI loadgen config\n"
          "  import-rally TRACK    print a scenario from a Rally track / OpenSearch Benchmark\n"
          "                        workload (plain JSON; corpora, bulk-size, clients)\n"
          "  keygen DIR            create DIR/coordinator.key and .pub, and DIR/agents/\n"
          "  report DIR            write DIR/report.html (charts) from a results directory\n"
          "  compare BASE NEW      docs/s of two results directories cell by cell [--csv]\n"
          "  compare D1 D2 D3 ...  the trend per cell across campaigns, oldest first [--csv]\n"
          "  publish DIR --metrics-store URL\n"
          "                        load a results directory into a metrics store (idempotent)\n"
          "  size --daily-gb GB --days N --ram-gb GB ...\n"
          "                        data nodes by storage (Elastic's sizing method for logs and\n"
          "                        metrics) and by ingest\n"
          "\n"
          "run options (also find-max's; COMMAND --help shows one command's usage):\n" RUN_OPTIONS
          "\n" EXIT_CODES,
          f);
}

static int parse_u32(const char *opt, const char *s, uint32_t *out)
{
    uint64_t v;
    if (bf_units_parse_u64(s, &v) != 0 || v > 100000) {
        bf_error("%s %s: expected a number", opt, s);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static int parse_ms(const char *opt, const char *s, uint64_t *out)
{
    if (bf_units_parse_duration_ms(s, out) != 0) {
        bf_error("%s %s: expected a duration like 30s", opt, s);
        return -1;
    }
    return 0;
}

#define BF_RESUME_FILE "resume.json"
static int resumed; /* cmd_run runs again from run_resumed: never a second time */
static int cmd_run(int argc, char **argv, int find_max);

/* What `run --resume DIR` alone needs of this run (written by the campaign into DIR/resume.json):
 * the scenario file's absolute path and the options given (argv[1..optind) after getopt moved
 * the SCENARIO behind them), without --resume, --rerun, --keep-failed, --keep-going, -q, -v:
 * {"scenario": PATH, "args": [...]}. Caller frees; NULL when the path cannot be resolved. */
static char *resume_record(int optind_scenario, char **argv, const char *scenario)
{
    char abs[PATH_MAX];
    if (realpath(scenario, abs) == NULL)
        return NULL;
    static const char *const skip_arg[] = {"--resume", "--rerun"};
    static const char *const skip[] = {"--keep-failed", "--keep-going", "-q",
                                       "--quiet",       "-v",           "--verbose"};
    json_t *args = json_array();
    for (int i = 1; i < optind_scenario; i++) {
        int drop = 0;
        for (size_t k = 0; k < sizeof skip_arg / sizeof *skip_arg; k++) {
            size_t l = strlen(skip_arg[k]);
            if (strcmp(argv[i], skip_arg[k]) == 0) {
                drop = 2;
            } else if (strncmp(argv[i], skip_arg[k], l) == 0 && argv[i][l] == '=') {
                drop = 1;
            }
        }
        for (size_t k = 0; k < sizeof skip / sizeof *skip; k++)
            if (strcmp(argv[i], skip[k]) == 0)
                drop = 1;
        if (drop) {
            i += drop - 1;
            continue;
        }
        json_array_append_new(args, json_string(argv[i]));
    }
    json_t *j = json_pack("{s:s, s:o}", "scenario", abs, "args", args);
    char *text = json_dumps(j, JSON_INDENT(2));
    json_decref(j);
    return text;
}

/* run --resume DIR without SCENARIO: again with the campaign's own scenario file and options
 * (DIR/resume.json) before the ones given now (a later option wins). */
static int run_resumed(int argc, char **argv, int find_max, const char *dir)
{
    char *path = bf_asprintf("%s/%s", dir, BF_RESUME_FILE);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    json_t *args = json_object_get(j, "args");
    const char *scenario = json_string_value(json_object_get(j, "scenario"));
    int rc = BF_EXIT_INPUT;
    if (j == NULL || scenario == NULL || !json_is_array(args)) {
        bf_error("--resume %s: %s: %s; this campaign did not record how it was started: give "
                 "its scenario file and agent options again: bulkfleet-coordinator run "
                 "SCENARIO --resume %s [--local-agents N | --agents N ...]",
                 dir, path, j == NULL ? je.text : "not a record bulkfleet wrote", dir);
    } else if (access(scenario, R_OK) != 0) {
        bf_error("--resume %s: the campaign's scenario file %s: %s (%s/scenario.yaml is its "
                 "copy with secrets redacted); give the file: bulkfleet-coordinator run SCENARIO "
                 "--resume %s",
                 dir, scenario, strerror(errno), dir, dir);
    } else {
        size_t n = json_array_size(args);
        char **av = calloc((size_t)argc + n + 2, sizeof *av);
        size_t k = 0;
        av[k++] = argv[0];
        for (size_t i = 0; i < n; i++)
            av[k++] = (char *)json_string_value(json_array_get(args, i));
        for (int i = 1; i < argc; i++)
            av[k++] = argv[i];
        av[k++] = (char *)scenario;
        bf_info("--resume %s: the campaign's scenario %s and options%s%s (%s)", dir, scenario,
                n ? " " : "", n ? "as recorded" : " (none recorded)", path);
        resumed = 1;
        rc = cmd_run((int)k, av, find_max);
        free(av);
    }
    json_decref(j);
    free(path);
    return rc;
}

static int cmd_run(int argc, char **argv, int find_max)
{
    bf_campaign_opts_t o;
    memset(&o, 0, sizeof o);
    o.find_max = find_max;
    static const struct option longopts[] = {
        {"local-agents", required_argument, NULL, 'L'},
        {"agents", required_argument, NULL, 'a'},
        {"min-agents", required_argument, NULL, 'm'},
        {"threads", required_argument, NULL, 't'},
        {"bind", required_argument, NULL, 'b'},
        {"data-bind", required_argument, NULL, 'B'},
        {"results", required_argument, NULL, 'r'},
        {"resume", required_argument, NULL, 'R'},
        {"wait", required_argument, NULL, 'w'},
        {"lost", required_argument, NULL, 'l'},
        {"insecure", no_argument, NULL, 'I'},
        {"quiet", no_argument, NULL, 'q'},
        {"keys", required_argument, NULL, 'k'},
        {"allow", required_argument, NULL, 'A'},
        {"cells", required_argument, NULL, 'C'},
        {"warmup", required_argument, NULL, 'W'},
        {"first-warmup", required_argument, NULL, 'f'},
        {"duration", required_argument, NULL, 'D'},
        {"sustain", required_argument, NULL, 'S'},
        {"replace-existing", required_argument, NULL, 'X'},
        {"cluster-wait", required_argument, NULL, 'Y'},
        {"keep-failed", no_argument, NULL, 'K'},
        {"keep-going", no_argument, NULL, 'G'},
        {"rerun", required_argument, NULL, 'U'},
        {"metrics-listen", required_argument, NULL, 'M'},
        {"statsd", required_argument, NULL, 'T'},
        {"metrics-store", required_argument, NULL, 'Z'},
        {"metrics-store-allow-target", no_argument, NULL, 'z'},
        {"file-chunk-size", required_argument, NULL, 'F'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    uint64_t ms;
    static uint64_t warmup_ms, first_warmup_ms, duration_ms, sustain_ms;
    static const char *replace[BF_MAX_REPLACE_EXISTING];
    optind = 1;
    while ((ch = getopt_long(argc, argv, "qvh", longopts, NULL)) != -1) {
        switch (ch) {
        case 'L':
            if (parse_u32("--local-agents", optarg, &o.local_agents))
                return BF_EXIT_INPUT;
            break;
        case 'a': if (parse_u32("--agents", optarg, &o.agents)) return BF_EXIT_INPUT; break;
        case 'm': if (parse_u32("--min-agents", optarg, &o.min_agents)) return BF_EXIT_INPUT; break;
        case 't': if (parse_u32("--threads", optarg, &o.local_threads)) return BF_EXIT_INPUT; break;
        case 'b': o.control_bind = optarg; break;
        case 'B': o.data_bind = optarg; break;
        case 'r': o.results_base = optarg; break;
        case 'R': o.resume_dir = optarg; break;
        case 'w': if (parse_ms("--wait", optarg, &o.agent_wait_ms)) return BF_EXIT_INPUT; break;
        case 'l':
            if (parse_ms("--lost", optarg, &ms)) return BF_EXIT_INPUT;
            o.lost_ms = (uint32_t)ms;
            break;
        case 'I': o.insecure = 1; break;
        case 'k': o.keys_dir = optarg; break;
        case 'C': o.cells = optarg; break;
        case 'W':
            if (parse_ms("--warmup", optarg, &warmup_ms)) return BF_EXIT_INPUT;
            o.warmup_ms = &warmup_ms;
            break;
        case 'f':
            if (parse_ms("--first-warmup", optarg, &first_warmup_ms))
                return BF_EXIT_INPUT;
            o.first_warmup_ms = &first_warmup_ms;
            break;
        case 'D':
            if (parse_ms("--duration", optarg, &duration_ms)) return BF_EXIT_INPUT;
            o.duration_ms = &duration_ms;
            break;
        case 'S':
            if (!find_max) {
                bf_error("--sustain is a find-max option (find_max.sustain)");
                return BF_EXIT_INPUT;
            }
            if (parse_ms("--sustain", optarg, &sustain_ms))
                return BF_EXIT_INPUT;
            o.sustain_ms = &sustain_ms;
            break;
        case 'A': o.allow_dir = optarg; break;
        case 'Y':
            if (parse_ms("--cluster-wait", optarg, &o.cluster_wait_ms))
                return BF_EXIT_INPUT;
            break;
        case 'K': o.keep_failed = 1; break;
        case 'G': o.keep_going = 1; break;
        case 'U': o.rerun = optarg; break;
        case 'M': o.metrics_listen = optarg; break;
        case 'T': o.statsd = optarg; break;
        case 'Z': o.metrics_store = optarg; break;
        case 'z': o.metrics_store_allow_target = 1; break;
        case 'F':
            if (bf_units_parse_size(optarg, &o.file_chunk_bytes) != BF_OK ||
                o.file_chunk_bytes < BF_FILE_CHUNK_MIN || o.file_chunk_bytes > BF_FILE_CHUNK_MAX) {
                bf_error("--file-chunk-size: '%s' is not a size from 4KiB to 128MiB (e.g. 16MiB)",
                         optarg);
                return BF_EXIT_INPUT;
            }
            break;
        case 'X':
            if (o.nreplace_existing >= BF_MAX_REPLACE_EXISTING) {
                bf_error("--replace-existing: at most %d names", BF_MAX_REPLACE_EXISTING);
                return BF_EXIT_INPUT;
            }
            replace[o.nreplace_existing++] = optarg;
            o.replace_existing = replace;
            break;
        case 'q': o.quiet = 1; break;
        case 'v': bf_log_set_level(BF_LOG_DEBUG); break;
        case 'h': run_usage(stdout, find_max); return BF_EXIT_OK;
        default: run_usage(stderr, find_max); return BF_EXIT_INPUT;
        }
    }
    if (optind == argc && o.resume_dir && !resumed)
        return run_resumed(argc, argv, find_max, o.resume_dir);
    if (optind != argc - 1) {
        bf_error("expected one SCENARIO file (or --resume DIR alone: the campaign in DIR with "
                 "the scenario and options it started with)");
        run_usage(stderr, find_max);
        return BF_EXIT_INPUT;
    }
    o.scenario_path = argv[optind];
    char *record = resume_record(optind, argv, o.scenario_path);
    o.resume_record = record;
    int rc = bf_campaign_run(&o);
    free(record);
    return rc;
}

#define KEYGEN_USAGE                                                                               \
    "usage: bulkfleet-coordinator keygen DIR\n"                                                    \
    "  writes DIR/coordinator.key (secret, 0600) and DIR/coordinator.pub, and makes DIR/agents/\n" \
    "  for the agents' public keys (the allow-list: every regular file holding one public key\n"   \
    "  line, any file name: it is the key's name, without a .pub ending; the coordinator says\n"   \
    "  at start which files it skipped and why)\n"

static int cmd_keygen(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(KEYGEN_USAGE, stdout);
        return BF_EXIT_OK;
    }
    if (argc != 2 || argv[1][0] == '-') { /* not an option taken for a folder name */
        fputs(KEYGEN_USAGE, stderr);
        return BF_EXIT_INPUT;
    }
    bf_diag_t d = {0};
    if (bf_keys_generate(argv[1], "coordinator", &d) != 0) {
        bf_error("%s", d.msg);
        return BF_EXIT_ENV;
    }
    char agents[4096];
    snprintf(agents, sizeof agents, "%s/agents", argv[1]);
    mkdir(agents, 0755);
    printf("wrote %s/coordinator.key (secret, 0600) and %s/coordinator.pub\n"
           "next: copy coordinator.pub to every agent's key directory, and each agent's\n"
           "agent.pub into %s/ (name it <agent>.pub)\n", argv[1], argv[1], agents);
    return BF_EXIT_OK;
}

/* Messages of a command name it ("bulkfleet-coordinator validate: error: ..."); only the
 * long-running campaign stamps its lines with the time. */
static void log_as(const char *cmd, int timestamps)
{
    static char prefix[64];
    snprintf(prefix, sizeof prefix, "bulkfleet-coordinator %.32s", cmd);
    bf_log_set_prefix(prefix);
    bf_log_set_timestamps(timestamps);
}

int main(int argc, char **argv)
{
    bf_log_set_prefix("bulkfleet-coordinator");
    if (argc < 2) {
        usage(stderr);
        return BF_EXIT_INPUT;
    }
    curl_global_init(CURL_GLOBAL_ALL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    const char *cmd = argv[1];
    int rc;
    if (cmd[0] != '-' && strcmp(cmd, "help") != 0)
        log_as(cmd, strcmp(cmd, "run") == 0 || strcmp(cmd, "find-max") == 0);
    if (strcmp(cmd, "run") == 0)
        rc = cmd_run(argc - 1, argv + 1, 0);
    else if (strcmp(cmd, "find-max") == 0)
        rc = cmd_run(argc - 1, argv + 1, 1);
    else if (strcmp(cmd, "validate") == 0)
        rc = bf_cmd_validate(argc - 1, argv + 1);
    else if (strcmp(cmd, "plan") == 0)
        rc = bf_cmd_plan(argc - 1, argv + 1);
    else if (strcmp(cmd, "keygen") == 0)
        rc = cmd_keygen(argc - 1, argv + 1);
    else if (strcmp(cmd, "import-loadgen") == 0)
        rc = bf_cmd_import_loadgen(argc - 1, argv + 1);
    else if (strcmp(cmd, "import-rally") == 0)
        rc = bf_cmd_import_rally(argc - 1, argv + 1);
    else if (strcmp(cmd, "report") == 0)
        rc = bf_report_cmd(argc - 1, argv + 1);
    else if (strcmp(cmd, "compare") == 0)
        rc = bf_compare_cmd(argc - 1, argv + 1);
    else if (strcmp(cmd, "publish") == 0)
        rc = bf_publish_cmd(argc - 1, argv + 1);
    else if (strcmp(cmd, "size") == 0)
        rc = bf_size_cmd(argc - 1, argv + 1);
    else if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        rc = BF_EXIT_OK;
    } else {
        bf_log_set_prefix("bulkfleet-coordinator");
        bf_error("unknown command '%s'", cmd);
        usage(stderr);
        rc = BF_EXIT_INPUT;
    }
    curl_global_cleanup();
    return rc;
}
