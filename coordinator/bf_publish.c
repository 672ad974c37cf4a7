/* SPDX-License-Identifier: MIT */
/* bf_publish.c — `publish`: every cell of a results directory into a metrics store. */
#include "bf_publish.h"

#include "bf_error.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_mstore_docs.h"
#include "bf_mstore.h"
#include "bf_units.h"

#include <dirent.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BF_PUBLISH_MAX_PEM_BYTES (1u << 20)

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* cells/<name>.ndjson of dir, sorted; *n names (caller frees each and the array) */
static char **cell_names(const char *dir, size_t *n)
{
    char *cd = bf_asprintf("%s/cells", dir);
    DIR *d = opendir(cd);
    free(cd);
    *n = 0;
    if (d == NULL)
        return NULL;
    size_t cap = 16;
    char **v = bf_calloc(cap, sizeof *v);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 7 || strcmp(e->d_name + len - 7, ".ndjson") != 0 || e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            cap *= 2;
            v = bf_realloc(v, cap * sizeof *v);
        }
        v[(*n)++] = bf_strndup(e->d_name, len - 7);
    }
    closedir(d);
    qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

static int read_pem(const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return BF_E_IO;
    *data = bf_malloc(BF_PUBLISH_MAX_PEM_BYTES + 1);
    *len = fread(*data, 1, BF_PUBLISH_MAX_PEM_BYTES + 1, f);
    fclose(f);
    if (*len > BF_PUBLISH_MAX_PEM_BYTES)
        return BF_E_TOOBIG;
    return BF_OK;
}

typedef struct pubctx {
    bf_mstore_t *mstore;
    uint64_t wait_ms;
} pubctx;

static int emit_wait(void *ctx, const char *index, const char *id, const char *source)
{
    pubctx *p = ctx;
    bf_mstore_add_wait(p->mstore, index, id, source, p->wait_ms); /* a timeout is counted */
    return 0;
}

static void usage(FILE *f)
{
    fputs("usage: bulkfleet-coordinator publish RESULTS_DIR --metrics-store URL [--ca-file PEM]\n"
          "           [--insecure-tls] [--flush-wait DURATION]\n"
          "       bulkfleet-coordinator publish --print-templates\n"
          "  loads a results directory into an Elasticsearch/OpenSearch metrics store\n"
          "  (bulkfleet-samples-YYYY.MM, bulkfleet-results); ids from campaign, cell and\n"
          "  second, so publishing again leaves the counts unchanged. Basic auth:\n"
          "  http://user:password@host:9200\n",
          f);
}

int bf_publish_cmd(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"metrics-store", required_argument, NULL, 'm'},
        {"ca-file", required_argument, NULL, 'c'},
        {"insecure-tls", no_argument, NULL, 'k'},
        {"flush-wait", required_argument, NULL, 'w'},
        {"print-templates", no_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *url = NULL, *ca = NULL;
    int insecure = 0, print = 0, ch;
    uint64_t wait_ms = 60000;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'm': url = optarg; break;
        case 'c': ca = optarg; break;
        case 'k': insecure = 1; break;
        case 'p': print = 1; break;
        case 'w':
            if (bf_units_parse_duration_ms(optarg, &wait_ms) != BF_OK) {
                bf_error("--flush-wait %s: expected a duration like 60s", optarg);
                return BF_EXIT_INPUT;
            }
            break;
        case 'h': usage(stdout); return BF_EXIT_OK;
        default: usage(stderr); return BF_EXIT_INPUT;
        }
    }
    if (print) {
        for (int results = 0; results < 2; results++) {
            char *t = bf_mstore_docs_template(results);
            printf("%s\n", t);
            free(t);
        }
        return BF_EXIT_OK;
    }
    if (optind != argc - 1 || url == NULL) {
        bf_error(url ? "expected one RESULTS_DIR" : "--metrics-store URL is required");
        usage(stderr);
        return BF_EXIT_INPUT;
    }
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
        bf_error("--metrics-store %s: expected an http:// or https:// URL", url);
        return BF_EXIT_INPUT;
    }
    const char *dir = argv[optind];
    size_t ncells = 0;
    char **names = cell_names(dir, &ncells);
    if (names == NULL || ncells == 0) {
        bf_error("%s: no cells/<cell>.ndjson: not a bulkfleet results directory (or no cell "
                 "finished); give the directory `run` printed as \"results: DIR\"",
                 dir);
        free(names);
        return BF_EXIT_INPUT;
    }
    char campaign[256];
    bf_mstore_docs_campaign(dir, campaign, sizeof campaign);
    char *mp = bf_asprintf("%s/matrix.json", dir);
    json_t *m = json_load_file(mp, 0, NULL);
    free(mp);
    const char *sn = json_string_value(json_object_get(m, "scenario"));
    char *scenario = bf_strdup(sn ? sn : campaign);
    json_decref(m);

    bf_target_t t;
    memset(&t, 0, sizeof t);
    size_t len = strlen(url);
    while (len > 0 && url[len - 1] == '/')
        len--;
    char *host = bf_strndup(url, len);
    t.hosts = &host;
    t.nhosts = 1;
    t.tls_insecure = insecure;
    t.names = &bf_conn_names_publish;
    char *pem = NULL;
    int code = BF_EXIT_OK;
    if (ca) {
        size_t plen = 0;
        int rc = read_pem(ca, &pem, &plen);
        if (rc != BF_OK || memmem(pem, plen, "-----BEGIN ", 11) == NULL) {
            bf_error("--ca-file %s: %s", ca,
                     rc == BF_E_IO       ? "cannot be read"
                     : rc == BF_E_TOOBIG ? "larger than 1 MiB"
                                         : "not a PEM file");
            code = BF_EXIT_INPUT;
            goto out;
        }
        t.ca_pem.data = pem;
        t.ca_pem.len = plen;
    }
    {
        bf_mstore_t *mstore = bf_mstore_new(&t, 0, wait_ms);
        pubctx p = {mstore, wait_ms};
        bf_mstore_docs_counts_t counts;
        memset(&counts, 0, sizeof counts);
        for (size_t i = 0; i < ncells; i++) {
            bf_diag_t d = {0};
            if (bf_mstore_docs_cell(dir, campaign, scenario, names[i], emit_wait, &p, &counts,
                                    &d) != BF_OK)
                bf_warn("%s; skipped", d.msg);
        }
        uint64_t nmatrix = 0;
        bf_diag_t md = {0};
        if (bf_mstore_docs_matrix(dir, campaign, scenario, emit_wait, &p, &nmatrix, &md) != BF_OK)
            bf_warn("%s; its matrix rows are not stored", md.msg);
        bf_mstore_stats_t s;
        bf_mstore_close(&mstore, &s);
        uint64_t total =
            counts.rows + counts.seconds + counts.agent_seconds + counts.nodes + nmatrix;
        uint64_t dropped = bf_mstore_dropped(&s);
        char *shown = bf_url_redact_userinfo(host);
        printf("published %s (campaign %s) to %s: %llu rows, %llu seconds, %llu agent seconds, "
               "%llu node samples, %llu matrix rows = %llu documents; %llu indexed, %llu dropped\n",
               dir, campaign, shown ? shown : host, (unsigned long long)counts.rows,
               (unsigned long long)counts.seconds, (unsigned long long)counts.agent_seconds,
               (unsigned long long)counts.nodes, (unsigned long long)nmatrix,
               (unsigned long long)total, (unsigned long long)s.indexed,
               (unsigned long long)dropped);
        free(shown);
        if (dropped || s.indexed != total) {
            bf_error("metrics store: %llu documents not stored (%llu waited too long for room, "
                     "%llu refused, %llu unsent after --flush-wait): %s; publishing again "
                     "sends them (the others are overwritten, not doubled)",
                     (unsigned long long)(total - s.indexed), (unsigned long long)s.dropped_full,
                     (unsigned long long)s.dropped_refused, (unsigned long long)s.dropped_unsent,
                     s.last_error[0] ? s.last_error : "-");
            code = s.indexed == 0 ? BF_EXIT_ENV : BF_EXIT_FAILED;
        }
    }
out:
    for (size_t i = 0; i < ncells; i++)
        free(names[i]);
    free(names);
    free(scenario);
    free(host);
    free(pem);
    return code;
}
