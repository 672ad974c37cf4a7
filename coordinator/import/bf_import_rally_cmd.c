/* SPDX-License-Identifier: MIT */
/* bf_import_rally_cmd.c — the import-rally command: its options, usage, writing -o
 * and reloading the output as a scenario.
 */
#include "bf_import_rally_int.h"

#include "bf_import_rally.h"

#include "bf_buf.h"
#include "bf_cluster.h"
#include "bf_corpus.h"
#include "bf_import_render.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_scenario.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int bf_cmd_import_rally(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"challenge", required_argument, NULL, 'C'},
        {"test-procedure", required_argument, NULL, 'C'}, /* OpenSearch Benchmark's name */
        {"name", required_argument, NULL, 'N'},
        {"track-params", required_argument, NULL, 'P'},
        {"workload-params", required_argument, NULL, 'P'}, /* OpenSearch Benchmark's name */
        {"build-flavor", required_argument, NULL, 'F'},
        {"serverless-operator", no_argument, NULL, 'S'},
        {"distribution-version", required_argument, NULL, 'V'},
        {"list", no_argument, NULL, 'L'},
        {"corpus-dir", required_argument, NULL, 'D'},
        {"allow-partial-corpus", no_argument, NULL, 'A'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *usage = "import-rally TRACK_DIR_OR_JSON [--challenge|--test-procedure NAME] "
                        "[--track-params K:V,...|FILE.json] [--build-flavor F] "
                        "[--serverless-operator] [--distribution-version V] [--name NAME] "
                        "[--corpus-dir DIR] [--allow-partial-corpus] [-o OUT.yaml] "
                        "[--list]";
    bf_rally_opts_t ro = {0};
    size_t corpus_missing = 0;
    ro.corpus_missing = &corpus_missing;
    const char *out_path = NULL;
    optind = 0;
    opterr = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "C:N:o:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'C': ro.challenge = optarg; break;
        case 'N': ro.name = optarg; break;
        case 'P': ro.track_params = optarg; break;
        case 'F': ro.build_flavor = optarg; break;
        case 'S': ro.serverless_operator = 1; break;
        case 'V': ro.distribution_version = optarg; break;
        case 'L': ro.list = 1; break;
        case 'D': ro.corpus_dir = optarg; break;
        case 'A': ro.allow_partial_corpus = 1; break;
        case 'o': out_path = optarg; break;
        case 'h':
            printf("usage: bulkfleet-coordinator %s\n"
                   "  prints (or writes with -o) a scenario from a Rally track or an OpenSearch "
                   "Benchmark\n  workload: its first bulk task's corpus, bulk-size, clients and "
                   "index body, its\n  searches; the header notes say what was not imported "
                   "(docs/import.md)\n"
                   "  --challenge NAME        the challenge (--test-procedure: OpenSearch "
                   "Benchmark's word);\n                          default: the track's default "
                   "one (--list shows them)\n"
                   "  --track-params K:V,...  the track's parameters, or a FILE.json of them, as "
                   "Rally's\n                          --track-params (--workload-params)\n"
                   "  --corpus-dir DIR        where the downloaded corpus files are (also looked "
                   "for: the\n                          track's folder, ~/.rally/benchmarks/data/"
                   "<corpus>,\n                          ~/.benchmark/... and "
                   "~/.osb/benchmarks/data/<corpus>,\n                          each tool's "
                   "local.dataset.cache)\n"
                   "  --allow-partial-corpus  accept a corpus file shorter than the track's "
                   "document-count\n                          (a prefix made on purpose)\n"
                   "  --build-flavor F, --serverless-operator, --distribution-version V\n"
                   "                          what the track's templates see of the cluster, "
                   "as in Rally\n"
                   "  --name NAME             the scenario's name (default: the track's folder)\n"
                   "  -o, --output OUT.yaml   write the scenario there (default: stdout)\n"
                   "  --list                  the challenges with their task counts, nothing "
                   "imported\n",
                   usage);
            return BF_EXIT_OK;
        default: bf_error("usage: bulkfleet-coordinator %s", usage); return BF_EXIT_INPUT;
        }
    }
    if (optind != argc - 1) {
        bf_error("usage: bulkfleet-coordinator %s", usage);
        return BF_EXIT_INPUT;
    }
    char *yaml = NULL;
    bf_diag_t diag = {0};
    int rc = bf_import_rally(argv[optind], &ro, &yaml, &diag);
    if (rc != BF_OK) {
        bf_error("%s", diag.msg[0] ? diag.msg : bf_strerror(rc));
        return rc == BF_E_IO ? BF_EXIT_ENV : BF_EXIT_INPUT;
    }
    if (ro.list) {
        fputs(yaml, stdout);
        free(yaml);
        return BF_EXIT_OK;
    }
    /* the result must load (paths are absolute, so from anywhere) */
    bf_load_opts_t lo = {.base_dir = ".", .env_warn = 1}; /* an unset ${VAR}: a warning */
    bf_scenario_t *check = NULL;
    bf_diag_t cd = {0};
    int code = BF_EXIT_OK;
    if (corpus_missing)
        bf_warn("the scenario is not checked here: %zu corpus file%s not downloaded yet (see "
                "above); validate checks it once %s there",
                corpus_missing, corpus_missing > 1 ? "s are" : " is",
                corpus_missing > 1 ? "they are" : "it is");
    else if (bf_scenario_load_text(yaml, strlen(yaml),
                                   out_path ? out_path : "(the converted track)", &lo, &check,
                                   &cd) != BF_OK) {
        bf_error("the converted track does not validate; fix it before running it: %s", cd.msg);
        code = BF_EXIT_INPUT;
    }
    for (size_t i = 0; check && i < bf_scenario_warning_count(check); i++)
        bf_warn("%s", bf_scenario_warning(check, i));
    bf_scenario_destroy(&check);
    if (out_path) {
        FILE *f = fopen(out_path, "wb");
        int bad = f == NULL || fputs(yaml, f) == EOF;
        if (f && fclose(f) != 0)
            bad = 1;
        if (bad) {
            bf_error("cannot write %s: %s", out_path, strerror(errno));
            free(yaml);
            return BF_EXIT_ENV;
        }
        if (code == BF_EXIT_OK && corpus_missing)
            bf_info("wrote %s; download the corpus (above), then check it with: "
                    "bulkfleet-coordinator validate %s",
                    out_path, out_path);
        else if (code == BF_EXIT_OK)
            bf_info("wrote %s; check it with: bulkfleet-coordinator validate %s", out_path,
                    out_path);
    } else {
        fputs(yaml, stdout);
    }
    free(yaml);
    return code;
}
