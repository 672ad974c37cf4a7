/* SPDX-License-Identifier: MIT */
/* bf_shardof.c — `bulkfleet-agent shard-of`: document ids in, shard numbers out. */
#include "bf_shardof.h"

#include "bf_routing.h"
#include "bf_units.h"
#include "bf_log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest input line (an _id is at most 512 bytes in OpenSearch; routing has no cap there). */
#define BF_MAX_SHARDOF_LINE (1u << 20)

static void usage(FILE *f)
{
    fputs("usage: bulkfleet-agent shard-of --shards N [--routing-shards R] [--partition-size P]"
          " [--index-created V] ID [ROUTING]\n"
          "       bulkfleet-agent shard-of --shards N ... < lines of ID or ID<TAB>ROUTING\n"
          "prints the shard OpenSearch/Elasticsearch routes each document to (one per line).\n"
          "  --shards N          index.number_of_shards\n"
          "  --routing-shards R  routing_num_shards from the index metadata (default: the one\n"
          "                      OpenSearch derives from N)\n"
          "  --partition-size P  index.routing_partition_size (default 1; >1 needs ROUTING)\n"
          "  --index-created V   the index's index.version.created (a number) or the\n"
          "                      Elasticsearch release that created it (9.5.3): Elasticsearch\n"
          "                      9.4.0+ indices (index version 9064000+) route by the number of\n"
          "                      shards alone (default: the routing_num_shards formula)\n",
          f);
}

static int parse_count(const char *opt, const char *arg, uint32_t *out)
{
    uint64_t v;
    if (bf_units_parse_u64(arg, &v) != 0 || v > BF_ROUTING_MAX_SHARDS * 2ull) {
        bf_error("%s %s: expected a whole number up to %u", opt, arg, BF_ROUTING_MAX_SHARDS * 2);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* --index-created: a decimal index.version.created, or a dotted Elasticsearch release. Returns
 * the routing function (1 modulo, 0 legacy), or -1 after saying what is wrong. */
static int parse_created(const char *arg)
{
    uint64_t v;
    if (strchr(arg, '.') == NULL && bf_units_parse_u64(arg, &v) == 0)
        return bf_routing_es_modulo_created(v);
    int m = bf_routing_es_modulo_release(arg);
    if (m < 0)
        bf_error("--index-created %s: expected index.version.created (a number, e.g. 9111000) or "
                 "an Elasticsearch release (e.g. 9.5.3)",
                 arg);
    return m;
}

static int print_one(const bf_routing_index_t *ix, const char *id, size_t id_len,
                     const char *routing, size_t routing_len, const char *where)
{
    uint32_t shard;
    bf_diag_t d = {0};
    if (bf_routing_shard_utf8(ix, id, id_len, routing, routing_len, &shard, &d) != 0) {
        bf_error("%s: %s", where, d.msg);
        return BF_EXIT_INPUT;
    }
    if (printf("%u\n", shard) < 0)
        return BF_EXIT_ENV;
    return BF_EXIT_OK;
}

int bf_shardof_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"shards", required_argument, NULL, 's'},
        {"routing-shards", required_argument, NULL, 'r'},
        {"partition-size", required_argument, NULL, 'p'},
        {"index-created", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    uint32_t shards = 0, routing_shards = 0, partition = 0;
    int modulo = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (ch) {
        case 's':
            if (parse_count("--shards", optarg, &shards) != 0)
                return BF_EXIT_INPUT;
            break;
        case 'r':
            if (parse_count("--routing-shards", optarg, &routing_shards) != 0)
                return BF_EXIT_INPUT;
            break;
        case 'p':
            if (parse_count("--partition-size", optarg, &partition) != 0)
                return BF_EXIT_INPUT;
            break;
        case 'c':
            if ((modulo = parse_created(optarg)) < 0)
                return BF_EXIT_INPUT;
            break;
        case 'h': usage(stdout); return BF_EXIT_OK;
        default: usage(stderr); return BF_EXIT_INPUT;
        }
    }
    if (shards == 0) {
        bf_error("--shards N (N >= 1) is required");
        usage(stderr);
        return BF_EXIT_INPUT;
    }
    bf_routing_index_t ix;
    bf_diag_t d = {0};
    if (bf_routing_index_init(&ix, shards, routing_shards, partition, &d) != 0) {
        bf_error("%s", d.msg);
        return BF_EXIT_INPUT;
    }
    ix.modulo = modulo;
    int nargs = argc - optind;
    if (nargs > 2) {
        bf_error("expected ID [ROUTING], got %d arguments", nargs);
        return BF_EXIT_INPUT;
    }
    if (nargs >= 1) {
        const char *id = argv[optind];
        const char *routing = nargs == 2 ? argv[optind + 1] : NULL;
        int rc = print_one(&ix, id, strlen(id), routing, routing ? strlen(routing) : 0,
                           "argument");
        return rc != 0 ? rc : (fflush(stdout) != 0 ? 3 : 0);
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned long lineno = 0;
    int rc = BF_EXIT_OK;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        lineno++;
        size_t len = (size_t)n;
        if (len > BF_MAX_SHARDOF_LINE) {
            bf_error("stdin:%lu: line longer than %u bytes", lineno, BF_MAX_SHARDOF_LINE);
            rc = BF_EXIT_INPUT;
            break;
        }
        if (len > 0 && line[len - 1] == '\n')
            len--;
        if (len > 0 && line[len - 1] == '\r')
            len--;
        char *tab = memchr(line, '\t', len);
        char where[48];
        snprintf(where, sizeof where, "stdin:%lu", lineno);
        if (tab != NULL && memchr(tab + 1, '\t', len - (size_t)(tab + 1 - line)) != NULL) {
            bf_error("%s: more than one tab; expected ID or "
                     "ID<TAB>ROUTING",
                     where);
            rc = BF_EXIT_INPUT;
            break;
        }
        size_t id_len = tab ? (size_t)(tab - line) : len;
        rc = print_one(&ix, line, id_len, tab ? tab + 1 : NULL,
                       tab ? len - id_len - 1 : 0, where);
        if (rc != 0)
            break;
    }
    free(line);
    if (fflush(stdout) != 0 && rc == 0)
        rc = BF_EXIT_ENV;
    return rc;
}
