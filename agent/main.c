/* SPDX-License-Identifier: MIT */
/* main.c — bulkfleet-agent: connects out to its coordinator and generates bulk load.
 *
 *   bulkfleet-agent --coordinator tcp://HOST:7100 [--threads N] [--id ID] [--insecure]
 *   bulkfleet-agent run SCENARIO [--cell ID|N] [--threads N] [--results DIR]
 *                                [--warmup DURATION] [--duration DURATION]   (standalone)
 *   bulkfleet-agent render SCENARIO [--cell ID|N] [--requests N]   (bulk bodies to stdout)
 *   bulkfleet-agent selftest SCENARIO [--cell ID|N] [--threads N] [--seconds S]  (no network)
 *   bulkfleet-agent shard-of --shards N [--routing-shards R] [--partition-size P] ID [ROUTING]
 */
#include "bf_agent.h"
#include "bf_keys.h"
#include "bf_log.h"
#include "bf_shardof.h"
#include "bf_selftest.h"
#include "bf_standalone.h"
#include "bf_units.h"

#include <curl/curl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_signal(int sig)
{
    bf_agent_stop_flag = bf_exit_of_signal(sig);
    bf_standalone_stop_flag = bf_agent_stop_flag;
}

static void usage(FILE *f)
{
    fputs("usage: bulkfleet-agent --coordinator tcp://HOST:7100 [options]\n"
          "       bulkfleet-agent run SCENARIO [--cell ID|N] [--threads N] [--results DIR]\n"
          "                               [--warmup DURATION] [--duration DURATION]\n"
          "       bulkfleet-agent render SCENARIO [--cell ID|N] [--requests N]\n"
          "       bulkfleet-agent selftest SCENARIO [--cell ID|N] [--threads N] [--seconds S]\n"
          "       bulkfleet-agent keygen DIR\n"
          "       bulkfleet-agent shard-of --shards N [--routing-shards R] [--partition-size P]"
          " ID [ROUTING]\n"
          "\n"
          "options:\n"
          "  --coordinator URL   control endpoint of the coordinator (data is port + 1)\n"
          "  --data URL          data endpoint, if not control port + 1\n"
          "  --id ID             stable agent id (default hostname-pid)\n"
          "  --threads N         worker threads (default: one per core)\n"
          "  --deadman DURATION  stop the load after this much coordinator silence (15s)\n"
          "  --keys DIR          CURVE keys: DIR/agent.key (0600) and DIR/coordinator.pub\n"
          "  --allow-target HOST|CIDR  only load these cluster hosts (repeatable)\n"
          "  --insecure          plain TCP without CURVE (trusted networks only)\n"
          "  --exit-after-cells N  exit after N cells (tests)\n"
          "  -v, --verbose       debug logging\n"
          "  -q, --quiet         warnings and errors only\n",
          f);
}

/* Messages of a subcommand name it ("bulkfleet-agent render: error: ..."); the session with a
 * coordinator and `run` (long-running) stamp their lines with the time. */
static void log_as(const char *cmd, int timestamps)
{
    static char prefix[64];
    snprintf(prefix, sizeof prefix, "bulkfleet-agent %.32s", cmd);
    bf_log_set_prefix(prefix);
    bf_log_set_timestamps(timestamps);
}

int main(int argc, char **argv)
{
    bf_log_set_prefix("bulkfleet-agent");
    if (argc >= 2 && argv[1][0] != '-')
        log_as(argv[1], strcmp(argv[1], "run") == 0);
    curl_global_init(CURL_GLOBAL_ALL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (argc >= 2 && strcmp(argv[1], "run") == 0)
        return bf_standalone_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "render") == 0)
        return bf_standalone_render_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "selftest") == 0)
        return bf_selftest_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "shard-of") == 0)
        return bf_shardof_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "keygen") == 0) {
        static const char keygen_usage[] =
            "usage: bulkfleet-agent keygen DIR   (writes DIR/agent.key and DIR/agent.pub)\n";
        if (argc == 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
            fputs(keygen_usage, stdout);
            return BF_EXIT_OK;
        }
        if (argc != 3 || argv[2][0] == '-') { /* not an option taken for a folder name */
            fputs(keygen_usage, stderr);
            return BF_EXIT_INPUT;
        }
        bf_diag_t d = {0};
        if (bf_keys_generate(argv[2], "agent", &d) != 0) {
            bf_error("%s", d.msg);
            return BF_EXIT_ENV;
        }
        printf("wrote %s/agent.key (secret, 0600) and %s/agent.pub\n"
               "next: copy agent.pub into the coordinator's allow-list directory, and the\n"
               "coordinator's coordinator.pub into %s/\n", argv[2], argv[2], argv[2]);
        return BF_EXIT_OK;
    }

    bf_agent_opts_t o;
    memset(&o, 0, sizeof o);
    static const struct option longopts[] = {
        {"coordinator", required_argument, NULL, 'c'},
        {"data", required_argument, NULL, 'D'},
        {"id", required_argument, NULL, 'i'},
        {"threads", required_argument, NULL, 't'},
        {"deadman", required_argument, NULL, 'd'},
        {"insecure", no_argument, NULL, 'I'},
        {"keys", required_argument, NULL, 'k'},
        {"allow-target", required_argument, NULL, 'A'},
        {"exit-after-cells", required_argument, NULL, 'x'},
        {"verbose", no_argument, NULL, 'v'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    uint64_t v;
    static const char *allow[65];
    size_t nallow = 0;
    while ((ch = getopt_long(argc, argv, "c:t:vqh", longopts, NULL)) != -1) {
        switch (ch) {
        case 'c': o.control_endpoint = optarg; break;
        case 'D': o.data_endpoint = optarg; break;
        case 'i': o.agent_id = optarg; break;
        case 't':
            if (bf_units_parse_u64(optarg, &v) != 0 || v == 0 || v > 1024) {
                bf_error("--threads %s: expected 1..1024", optarg);
                return BF_EXIT_INPUT;
            }
            o.threads = (uint32_t)v;
            break;
        case 'd':
            if (bf_units_parse_duration_ms(optarg, &v) != 0 || v < 1000) {
                bf_error("--deadman %s: expected a duration >= 1s", optarg);
                return BF_EXIT_INPUT;
            }
            o.deadman_ms = (uint32_t)v;
            break;
        case 'I': o.insecure = 1; break;
        case 'k': o.keys_dir = optarg; break;
        case 'A':
            if (nallow + 1 >= sizeof allow / sizeof allow[0]) {
                bf_error("too many --allow-target rules");
                return BF_EXIT_INPUT;
            }
            allow[nallow++] = optarg;
            allow[nallow] = NULL;
            o.allow_targets = allow;
            break;
        case 'x':
            if (bf_units_parse_u64(optarg, &v) != 0) {
                bf_error("--exit-after-cells %s: expected a number", optarg);
                return BF_EXIT_INPUT;
            }
            o.exit_after_cells = (int)v;
            break;
        case 'v': bf_log_set_level(BF_LOG_DEBUG); break;
        case 'q': bf_log_set_level(BF_LOG_WARN); break;
        case 'h': usage(stdout); return BF_EXIT_OK;
        default: usage(stderr); return BF_EXIT_INPUT;
        }
    }
    if (o.control_endpoint == NULL) {
        bf_error("--coordinator tcp://HOST:7100 is required");
        usage(stderr);
        return BF_EXIT_INPUT;
    }
    int rc = bf_agent_main(&o);
    curl_global_cleanup();
    return rc;
}
