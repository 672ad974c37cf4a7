/* SPDX-License-Identifier: MIT */
/* bf_sizing.c — seed 004's sizing formulas, and the `size` command around them.
 *
 * The computation is pure (bf_size_compute); the command only parses flags and reads the two
 * figures a results directory can give: the raw-to-disk factor (median of the rows'
 * store_bytes_per_payload_byte) and, from a find-max run, the sustained docs/s per data node.
 */
#include "bf_sizing.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_results.h"

#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void bf_size_defaults(bf_size_in_t *in)
{
    memset(in, 0, sizeof *in);
    in->replicas = 1;
    in->measured_replicas = -1;
    in->watermark = BF_SIZE_WATERMARK;
    in->margin = BF_SIZE_MARGIN;
    in->raw_to_disk = 1.0;
    in->hot.ram_data_ratio = BF_SIZE_HOT_RATIO;
    in->warm.ram_data_ratio = BF_SIZE_WARM_RATIO;
}

/* ROUNDUP of the seed's spreadsheet formula; 7500 / 64 / 30 must stay 3.90625 -> 4, and an
 * exact 3.0000000000004 from binary rounding must stay 3 */
static uint32_t roundup(double x)
{
    double c = ceil(x - 1e-9);
    return c < 0 ? 0 : (uint32_t)c;
}

static void tier(const bf_size_in_t *in, const bf_size_tier_in_t *t, bf_size_tier_out_t *o)
{
    memset(o, 0, sizeof *o);
    if (t->days <= 0)
        return;
    o->data_gb = in->daily_gb * t->days * (in->replicas + 1) * in->raw_to_disk;
    o->storage_gb = o->data_gb * (1.0 + in->watermark + in->margin);
    o->nodes_exact = o->storage_gb / in->ram_gb / t->ram_data_ratio;
    o->nodes = roundup(o->nodes_exact) + (in->failover ? 1 : 0);
}

double bf_size_copies(uint32_t replicas, uint32_t data_nodes)
{
    double c = (double)replicas + 1.0;
    return data_nodes > 0 && (double)data_nodes < c ? (double)data_nodes : c;
}

int bf_size_compute(const bf_size_in_t *in, bf_size_out_t *out, bf_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    if (!(in->daily_gb > 0))
        return bf_diag_set(diag, BF_E_INVAL, "--daily-gb: the raw data indexed per day must be "
                           "given and > 0 (GB)");
    if (!(in->hot.days > 0))
        return bf_diag_set(diag, BF_E_INVAL, "--days: the retention (days, > 0) must be given; "
                           "with a warm tier it is the days kept hot");
    if (!(in->ram_gb > 0))
        return bf_diag_set(diag, BF_E_INVAL, "--ram-gb: the RAM of one data node (GB, > 0) must "
                           "be given");
    if (!(in->hot.ram_data_ratio > 0) || (in->warm.days > 0 && !(in->warm.ram_data_ratio > 0)))
        return bf_diag_set(diag, BF_E_INVAL, "--ratio/--warm-ratio: the RAM:data ratio must be "
                           "> 0 (30 means 1 GB of RAM per 30 GB of data)");
    if (in->warm.days < 0 || in->watermark < 0 || in->margin < 0 || !(in->raw_to_disk > 0))
        return bf_diag_set(diag, BF_E_INVAL, "--warm-days, --watermark and --margin must be >= 0 "
                           "and the raw-to-disk factor > 0");
    if (in->peak_docs_s < 0 || (in->peak_docs_s > 0 && !(in->docs_s_per_node > 0)))
        return bf_diag_set(diag, BF_E_INVAL, "--peak-docs-s needs the docs/s one data node "
                           "sustains: --find-max DIR (a find-max results directory) or "
                           "--docs-per-node N");
    if (in->measured_replicas > 1000)
        return bf_diag_set(diag, BF_E_INVAL, "--measured-replicas: a whole number 0..1000");
    tier(in, &in->hot, &out->hot);
    tier(in, &in->warm, &out->warm);
    out->hot_nodes = out->hot.nodes;
    out->decides = "storage";
    out->copies_factor = 1.0;
    if (in->peak_docs_s > 0) {
        if (in->measured_replicas >= 0) {
            /* each document costs the sized cluster (replicas + 1) index operations; the
             * measured node did measured_copies per document */
            out->measured_copies =
                bf_size_copies((uint32_t)in->measured_replicas, in->measured_data_nodes);
            out->copies_factor = ((double)in->replicas + 1.0) / out->measured_copies;
        }
        out->ingest_exact = in->peak_docs_s * out->copies_factor / in->docs_s_per_node;
        out->ingest_nodes = roundup(out->ingest_exact) + (in->failover ? 1 : 0);
        if (out->ingest_nodes > out->hot.nodes) {
            out->hot_nodes = out->ingest_nodes;
            out->decides = "ingest";
        } else if (out->ingest_nodes == out->hot.nodes) {
            out->decides = "storage and ingest alike";
        }
    }
    return BF_OK;
}

static void print_tier(FILE *f, const char *label, const bf_size_in_t *in,
                       const bf_size_tier_in_t *t, const bf_size_tier_out_t *o)
{
    if (in->raw_to_disk != 1.0)
        fprintf(f, "total data%s (GB)    = %g GB x %g days x (%u + 1) x %.3f raw-to-disk = %.1f GB\n",
                label, in->daily_gb, t->days, in->replicas, in->raw_to_disk, o->data_gb);
    else
        fprintf(f, "total data%s (GB)    = %g GB x %g days x (%u + 1) = %.1f GB\n", label,
                in->daily_gb, t->days, in->replicas, o->data_gb);
    fprintf(f, "total storage%s (GB) = %.1f GB x (1 + %.2f watermark + %.2f margin) = %.1f GB\n",
            label, o->data_gb, in->watermark, in->margin, o->storage_gb);
    fprintf(f, "data nodes%s         = ROUNDUP(%.1f GB / %g GB RAM / %g RAM:data)%s = %u"
            " (%.2f before rounding)\n", label, o->storage_gb, in->ram_gb, t->ram_data_ratio,
            in->failover ? " + 1 failover" : "", o->nodes, o->nodes_exact);
}

void bf_size_print(FILE *f, const bf_size_in_t *in, const bf_size_out_t *out)
{
    int warm = in->warm.days > 0;
    print_tier(f, warm ? " hot" : "", in, &in->hot, &out->hot);
    if (warm)
        print_tier(f, " warm", in, &in->warm, &out->warm);
    if (in->peak_docs_s > 0) {
        if (in->measured_replicas >= 0) {
            double mc = out->measured_copies;
            fprintf(f,
                    "copies factor         = (%u + 1) copies sized / %.0f cop%s per document "
                    "measured (replicas %d",
                    in->replicas, mc, mc == 1.0 ? "y" : "ies", (int)in->measured_replicas);
            if (in->measured_data_nodes > 0)
                fprintf(f, " on %u data node%s", in->measured_data_nodes,
                        in->measured_data_nodes == 1 ? "" : "s");
            fprintf(f, ") = %.2f\n", out->copies_factor);
            fprintf(f,
                    "ingest nodes          = ROUNDUP(%.0f docs/s x %.2f copies factor / %.0f "
                    "docs/s per data node)%s = %u (%.2f before rounding)\n",
                    in->peak_docs_s, out->copies_factor, in->docs_s_per_node,
                    in->failover ? " + 1 failover" : "", out->ingest_nodes, out->ingest_exact);
        } else {
            fprintf(f,
                    "ingest nodes          = ROUNDUP(%.0f docs/s / %.0f docs/s per data node, "
                    "taken as measured at replicas %u)%s = %u (%.2f before rounding)\n",
                    in->peak_docs_s, in->docs_s_per_node, in->replicas,
                    in->failover ? " + 1 failover" : "", out->ingest_nodes, out->ingest_exact);
        }
        fprintf(f, "%sdata nodes: %u (%s decides: storage %u, ingest %u)\n", warm ? "hot " : "",
                out->hot_nodes, out->decides, out->hot.nodes, out->ingest_nodes);
    } else {
        fprintf(f, "%sdata nodes: %u\n", warm ? "hot " : "", out->hot_nodes);
    }
    if (warm)
        fprintf(f, "warm data nodes: %u\n", out->warm.nodes);
}

/* ---- the command ------------------------------------------------------------------------- */

static void size_usage(FILE *f)
{
    fputs(
        "usage: bulkfleet-coordinator size --daily-gb GB --days N --ram-gb GB [options]\n"
        "  storage (Elastic's sizing method for logs and metrics): data = daily GB x days x\n"
        "  (replicas + 1);\n"
        "  storage = data x (1 + watermark + margin); nodes = ROUNDUP(storage / RAM / ratio)\n"
        "  --daily-gb GB       raw data indexed per day\n"
        "  --days N            retention in days (with --warm-days: the days kept hot)\n"
        "  --ram-gb GB         RAM of one data node\n"
        "  --replicas N        replica shards (1)\n"
        "  --ratio R           hot RAM:data ratio, 30 = 1:30 (30)\n"
        "  --warm-days N       days in a warm tier (none)\n"
        "  --warm-ratio R      warm RAM:data ratio (160)\n"
        "  --failover          + 1 node per tier for hardware failure\n"
        "  --watermark F       disk watermark headroom (0.15)\n"
        "  --margin F          margin of error (0.10)\n"
        "  --raw-to-disk F     disk bytes per raw byte (1, the method's assumption)\n"
        "  --results DIR       take the raw-to-disk factor measured in DIR (median of the\n"
        "                      rows' store_bytes_per_payload_byte)\n"
        "  ingest:\n"
        "  --peak-docs-s N     required peak docs/s\n"
        "  --find-max DIR      a find-max results directory: max sustainable docs/s / data nodes\n"
        "  --docs-per-node N   or the sustained docs/s of one data node, given directly\n"
        "  --measured-replicas N  the replicas that rate was measured at: the peak is scaled\n"
        "                      by (replicas + 1) / the copies per document measured; with\n"
        "                      --find-max DIR it is read from DIR (this picks or checks it)\n",
        f);
}

static int parse_num(const char *opt, const char *s, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v) || v < 0) {
        bf_error("%s %s: expected a number >= 0", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static json_t *load_json(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (j == NULL)
        bf_error("%s: %s (line %d); give a results directory "
                 "written by `run` or `find-max`",
                 path, err.text, err.line);
    return j;
}

#define MAX_FACTOR_ROWS 100000

/* median store_bytes_per_payload_byte of DIR's rows; 0 and a message when there is none */
static int results_factor(const char *dir, double *factor, size_t *nrows)
{
    json_t *j = load_json(dir, "matrix.json");
    if (j == NULL)
        return BF_EXIT_ENV;
    json_t *rows = json_object_get(j, "rows");
    size_t n = 0, cap = json_array_size(rows);
    if (cap > MAX_FACTOR_ROWS)
        cap = MAX_FACTOR_ROWS;
    double *v = calloc(cap + 1, sizeof *v);
    for (size_t i = 0; v != NULL && i < cap; i++) {
        json_t *f = json_object_get(json_array_get(rows, i), "store_bytes_per_payload_byte");
        if (json_is_number(f) && json_number_value(f) > 0)
            v[n++] = json_number_value(f);
    }
    json_decref(j);
    if (n == 0) {
        free(v);
        bf_error("%s/matrix.json: no row has "
                 "store_bytes_per_payload_byte (a run before it was measured, or every cell "
                 "failed); give --raw-to-disk instead",
                 dir);
        return BF_EXIT_INPUT;
    }
    qsort(v, n, sizeof *v, cmp_dbl);
    *factor = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    *nrows = n;
    free(v);
    return BF_EXIT_OK;
}

/* the replicas the held step of a combination ran at, from DIR/matrix.json through the row
 * codec (an older findmax.json has no "replicas"); -1 when not found */
static int32_t held_row_replicas(json_t *combo, json_t *matrix)
{
    const char *held = NULL;
    json_t *steps = json_object_get(combo, "steps");
    for (size_t i = 0; i < json_array_size(steps); i++) {
        json_t *st = json_array_get(steps, i);
        const char *v = json_string_value(json_object_get(st, "verdict"));
        if (v != NULL && strcmp(v, "held") == 0)
            held = json_string_value(json_object_get(st, "cell"));
    }
    json_t *rows = json_object_get(matrix, "rows");
    int32_t r = -1;
    for (size_t i = 0; held != NULL && r < 0 && i < json_array_size(rows); i++) {
        json_t *o = json_array_get(rows, i);
        const char *cell = json_string_value(json_object_get(o, "cell"));
        if (cell == NULL || strcmp(cell, held) != 0)
            continue;
        bf_row_rec_t rec;
        if (bf_row_rec_decode(o, &rec, NULL) == BF_OK)
            r = rec.row.index_mismatch && rec.row.index_replicas >= 0
                    ? (int32_t)rec.row.index_replicas
                    : (int32_t)rec.cell.replicas;
        bf_row_rec_cleanup(&rec);
    }
    return r;
}

static void list_replicas(const int32_t *v, size_t n, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && o < size; i++)
        o += (size_t)snprintf(buf + o, size - o, "%s%d",
                              i == 0       ? ""
                              : i + 1 == n ? " and "
                                           : ", ",
                              (int)v[i]);
}

#define MAX_SIZE_COMBOS 4096

int bf_size_read_findmax(const char *dir, int32_t want_replicas, uint32_t sized_replicas,
                         bf_size_measured_t *m, bf_diag_t *diag)
{
    memset(m, 0, sizeof *m);
    m->replicas = -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/findmax.json", dir);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (j == NULL)
        return bf_diag_set(diag, BF_E_NOTFOUND,
                           "%s: %s (line %d); give a results directory "
                           "written by `find-max`",
                           path, err.text, err.line);
    snprintf(path, sizeof path, "%s/matrix.json", dir);
    json_t *matrix = NULL; /* read only for an older findmax.json without "replicas" */
    json_t *combos = json_object_get(j, "combinations");
    size_t nc =
        json_array_size(combos) < MAX_SIZE_COMBOS ? json_array_size(combos) : MAX_SIZE_COMBOS;
    int32_t *rep = calloc(nc + 1, sizeof *rep), distinct[16];
    double *dps = calloc(nc + 1, sizeof *dps);
    size_t nd = 0, nfound = 0, unknown = 0;
    int rc = BF_OK;
    for (size_t i = 0; rep != NULL && dps != NULL && i < nc; i++) {
        json_t *c = json_array_get(combos, i);
        json_t *v = json_object_get(c, "max_sustainable_docs_per_s");
        rep[i] = -1;
        if (!json_is_number(v) || !(json_number_value(v) > 0))
            continue;
        dps[i] = json_number_value(v);
        nfound++;
        json_t *r = json_object_get(c, "replicas");
        if (json_is_integer(r) && json_integer_value(r) >= 0 && json_integer_value(r) <= 1000) {
            rep[i] = (int32_t)json_integer_value(r);
        } else {
            if (matrix == NULL)
                matrix = json_load_file(path, 0, &err);
            rep[i] = held_row_replicas(c, matrix);
        }
        if (rep[i] < 0) {
            unknown++;
            continue;
        }
        size_t k = 0;
        while (k < nd && distinct[k] != rep[i])
            k++;
        if (k == nd && nd < sizeof distinct / sizeof *distinct)
            distinct[nd++] = rep[i];
    }
    json_t *dn = json_object_get(j, "data_nodes");
    m->data_nodes = json_is_integer(dn) ? json_integer_value(dn) : 0;
    char have[128];
    for (size_t a = 1; a < nd; a++) /* ascending, for the messages */
        for (size_t b = a; b > 0 && distinct[b] < distinct[b - 1]; b--) {
            int32_t t = distinct[b];
            distinct[b] = distinct[b - 1];
            distinct[b - 1] = t;
        }
    list_replicas(distinct, nd, have, sizeof have);
    int32_t target = -1;
    if (rep == NULL || dps == NULL) {
        rc = bf_diag_set(diag, BF_E_NOMEM, "%s/findmax.json: out of memory", dir);
    } else if (nfound == 0 || m->data_nodes <= 0) {
        rc = bf_diag_set(diag, BF_E_INVAL,
                         "%s/findmax.json: no sustained rate or no data node "
                         "count (the search found no rate that held); give --docs-per-node",
                         dir);
    } else if (want_replicas >= 0 && nd > 0) {
        for (size_t k = 0; k < nd; k++)
            if (distinct[k] == want_replicas)
                target = want_replicas;
        if (target < 0)
            rc = bf_diag_set(diag, BF_E_INVAL,
                             "%s/findmax.json measured at replicas %s, not "
                             "%d: drop --measured-replicas (or give one of %s)",
                             dir, have, (int)want_replicas, have);
    } else if (want_replicas >= 0) {
        target = want_replicas; /* the file does not say: the user does */
    } else if (unknown > 0 && nd == 0) {
        rc = bf_diag_set(diag, BF_E_INVAL,
                         "%s/findmax.json does not say which replicas the "
                         "search ran at (written by an older bulkfleet, and %s has no row of its "
                         "held step): give --measured-replicas N, the number_of_replicas of the "
                         "find-max index",
                         dir, path);
    } else if (nd == 1) {
        target = distinct[0];
    } else {
        for (size_t k = 0; k < nd; k++)
            if (distinct[k] == (int32_t)sized_replicas)
                target = distinct[k];
        if (target < 0)
            rc = bf_diag_set(diag, BF_E_INVAL,
                             "%s/findmax.json measured at replicas %s, none "
                             "at --replicas %u: give --measured-replicas (one of %s) to scale "
                             "from it, or size with --replicas one of %s",
                             dir, have, sized_replicas, have, have);
    }
    for (size_t i = 0; rc == BF_OK && i < nc; i++) {
        if (!(dps[i] > 0) || (rep[i] >= 0 && rep[i] != target))
            continue;
        if (rep[i] < 0 && want_replicas < 0)
            continue;
        m->ncombinations++;
        if (dps[i] > m->docs_s) {
            m->docs_s = dps[i];
            const char *label =
                json_string_value(json_object_get(json_array_get(combos, i), "combination"));
            bf_strlcpy(m->combination, label ? label : "?", sizeof m->combination);
        }
    }
    m->replicas = target;
    free(rep);
    free(dps);
    json_decref(matrix);
    json_decref(j);
    return rc;
}

int bf_size_cmd(int argc, char **argv)
{
    bf_size_in_t in;
    bf_size_defaults(&in);
    const char *results = NULL, *findmax = NULL;
    int have_factor = 0;
    static const struct option longopts[] = {
        {"daily-gb", required_argument, NULL, 'g'},
        {"days", required_argument, NULL, 'd'},
        {"ram-gb", required_argument, NULL, 'm'},
        {"replicas", required_argument, NULL, 'r'},
        {"ratio", required_argument, NULL, 'o'},
        {"warm-days", required_argument, NULL, 'w'},
        {"warm-ratio", required_argument, NULL, 'O'},
        {"failover", no_argument, NULL, 'f'},
        {"watermark", required_argument, NULL, 'W'},
        {"margin", required_argument, NULL, 'M'},
        {"raw-to-disk", required_argument, NULL, 'x'},
        {"results", required_argument, NULL, 'R'},
        {"peak-docs-s", required_argument, NULL, 'p'},
        {"find-max", required_argument, NULL, 'F'},
        {"docs-per-node", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {"measured-replicas", required_argument, NULL, 'P'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    double v;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'g': if (parse_num("--daily-gb", optarg, &in.daily_gb)) return BF_EXIT_INPUT; break;
        case 'd': if (parse_num("--days", optarg, &in.hot.days)) return BF_EXIT_INPUT; break;
        case 'm': if (parse_num("--ram-gb", optarg, &in.ram_gb)) return BF_EXIT_INPUT; break;
        case 'r':
            if (parse_num("--replicas", optarg, &v) || v != floor(v) || v > 1000) {
                bf_error("--replicas: a whole number 0..1000");
                return BF_EXIT_INPUT;
            }
            in.replicas = (uint32_t)v;
            break;
        case 'o':
            if (parse_num("--ratio", optarg, &in.hot.ram_data_ratio))
                return BF_EXIT_INPUT;
            break;
        case 'w': if (parse_num("--warm-days", optarg, &in.warm.days)) return BF_EXIT_INPUT; break;
        case 'O':
            if (parse_num("--warm-ratio", optarg, &in.warm.ram_data_ratio))
                return BF_EXIT_INPUT;
            break;
        case 'f': in.failover = 1; break;
        case 'W': if (parse_num("--watermark", optarg, &in.watermark)) return BF_EXIT_INPUT; break;
        case 'M': if (parse_num("--margin", optarg, &in.margin)) return BF_EXIT_INPUT; break;
        case 'x':
            if (parse_num("--raw-to-disk", optarg, &in.raw_to_disk)) return BF_EXIT_INPUT;
            have_factor = 1;
            break;
        case 'R': results = optarg; break;
        case 'p':
            if (parse_num("--peak-docs-s", optarg, &in.peak_docs_s))
                return BF_EXIT_INPUT;
            break;
        case 'F': findmax = optarg; break;
        case 'n':
            if (parse_num("--docs-per-node", optarg, &in.docs_s_per_node))
                return BF_EXIT_INPUT;
            break;
        case 'P':
            if (parse_num("--measured-replicas", optarg, &v) || v != floor(v) || v > 1000) {
                bf_error("--measured-replicas: a whole number 0..1000");
                return BF_EXIT_INPUT;
            }
            in.measured_replicas = (int32_t)v;
            break;
        case 'h': size_usage(stdout); return BF_EXIT_OK;
        default: size_usage(stderr); return BF_EXIT_INPUT;
        }
    }
    if (optind != argc) {
        bf_error("unexpected argument '%s'", argv[optind]);
        size_usage(stderr);
        return BF_EXIT_INPUT;
    }
    if (results != NULL && have_factor) {
        bf_error("give --results or --raw-to-disk, not both");
        return BF_EXIT_INPUT;
    }
    if (results != NULL) {
        size_t n = 0;
        int rc = results_factor(results, &in.raw_to_disk, &n);
        if (rc != 0)
            return rc;
        printf("raw-to-disk factor %.3f: median store_bytes_per_payload_byte of %zu rows in %s\n",
               in.raw_to_disk, n, results);
    }
    if (findmax != NULL) {
        bf_size_measured_t m;
        bf_diag_t fd = {0};
        int rc = bf_size_read_findmax(findmax, in.measured_replicas, in.replicas, &m, &fd);
        if (rc != BF_OK) {
            bf_error("%s", fd.msg);
            return rc == BF_E_NOTFOUND ? BF_EXIT_ENV : BF_EXIT_INPUT;
        }
        in.measured_replicas = m.replicas;
        in.measured_data_nodes = (uint32_t)m.data_nodes;
        in.docs_s_per_node = m.docs_s / (double)m.data_nodes;
        printf("ingest per data node %.0f docs/s: max sustainable %.0f docs/s on %" PRId64
               " data node(s) at replicas %d in %s%s%s\n",
               in.docs_s_per_node, m.docs_s, m.data_nodes, (int)m.replicas, findmax,
               m.ncombinations > 1 ? " (best of " : "",
               m.ncombinations > 1 ? "its combinations)" : "");
    }
    bf_diag_t d = {0};
    bf_size_out_t out;
    if (bf_size_compute(&in, &out, &d) != BF_OK) {
        bf_error("%s", d.msg);
        return BF_EXIT_INPUT;
    }
    bf_size_print(stdout, &in, &out);
    return BF_EXIT_OK;
}
