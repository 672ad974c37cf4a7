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
#include "bf_stats.h"

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
    in->shard_gb = BF_SIZE_SHARD_GB;
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

/* an interval [lo, hi] around x: none (both 0) or lo <= x <= hi, all > 0 */
static int interval_ok(double lo, double x, double hi)
{
    return (lo == 0 && hi == 0) || (lo > 0 && lo <= x * (1 + 1e-9) && x <= hi * (1 + 1e-9));
}

static int check_inputs(const bf_size_in_t *in, bf_diag_t *diag)
{
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
    if (!(in->shard_gb > 0))
        return bf_diag_set(diag, BF_E_INVAL,
                           "--shard-gb: the target primary shard size (GB) "
                           "must be > 0; Elastic advises 10 to 50");
    if (in->doc_bytes < 0 || in->measured_doc_bytes < 0)
        return bf_diag_set(diag, BF_E_INVAL,
                           "--doc-bytes and --measured-doc-bytes: bytes per "
                           "document, > 0");
    if (!interval_ok(in->docs_s_per_node_lo, in->docs_s_per_node, in->docs_s_per_node_hi) ||
        !interval_ok(in->raw_to_disk_lo, in->raw_to_disk, in->raw_to_disk_hi))
        return bf_diag_set(diag, BF_E_INVAL,
                           "the interval of docs/s per node (%g-%g) or of the "
                           "raw-to-disk factor (%g-%g) does not hold its figure (%g, %g)",
                           in->docs_s_per_node_lo, in->docs_s_per_node_hi, in->raw_to_disk_lo,
                           in->raw_to_disk_hi, in->docs_s_per_node, in->raw_to_disk);
    return BF_OK;
}

/* the bytes factor: sized / measured bytes per document, 1 when not asked; refused without the
 * measured bytes or beyond the bound */
static int bytes_factor(const bf_size_in_t *in, double *f, bf_diag_t *diag)
{
    *f = 1.0;
    if (!(in->doc_bytes > 0) || !(in->peak_docs_s > 0))
        return BF_OK;
    if (!(in->measured_doc_bytes > 0))
        return bf_diag_set(diag, BF_E_INVAL,
                           "--doc-bytes %.0f: the bytes per document the rate was measured with "
                           "are not known (a results directory written before they were "
                           "measured, or --docs-per-node): give --measured-doc-bytes N",
                           in->doc_bytes);
    double r = in->doc_bytes / in->measured_doc_bytes;
    if (r > BF_SIZE_BYTES_MAX_RATIO || r < 1.0 / BF_SIZE_BYTES_MAX_RATIO)
        return bf_diag_set(diag, BF_E_INVAL,
                           "--doc-bytes %.0f: documents %.2fx %s than the %.0f bytes the rate "
                           "was measured with; scaling docs/s by bytes (indexing cost taken to "
                           "grow in proportion to a document's bytes) is refused beyond %.0fx "
                           "either way: measure with documents of about %.0f bytes (find-max "
                           "with that document) and size from that",
                           in->doc_bytes, r > 1 ? r : 1 / r, r > 1 ? "larger" : "smaller",
                           in->measured_doc_bytes, BF_SIZE_BYTES_MAX_RATIO, in->doc_bytes);
    *f = r;
    return BF_OK;
}

static uint32_t ingest_nodes(const bf_size_in_t *in, const bf_size_out_t *out, double per_node)
{
    return roundup(in->peak_docs_s * out->copies_factor * out->bytes_factor / per_node) +
           (in->failover ? 1 : 0);
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

/* the storage nodes of the hot tier at another raw-to-disk factor */
static uint32_t storage_nodes_at(const bf_size_in_t *in, double raw_to_disk)
{
    bf_size_in_t t = *in;
    t.raw_to_disk = raw_to_disk;
    bf_size_tier_out_t o;
    tier(&t, &t.hot, &o);
    return o.nodes;
}

static void ranges(const bf_size_in_t *in, bf_size_out_t *out)
{
    out->storage_nodes_lo = out->storage_nodes_hi = out->hot.nodes;
    if (in->raw_to_disk_lo > 0) {
        out->storage_nodes_lo = storage_nodes_at(in, in->raw_to_disk_lo);
        out->storage_nodes_hi = storage_nodes_at(in, in->raw_to_disk_hi);
    }
    out->ingest_nodes_lo = out->ingest_nodes_hi = out->ingest_nodes;
    if (in->peak_docs_s > 0 && in->docs_s_per_node_lo > 0) {
        out->ingest_nodes_lo = ingest_nodes(in, out, in->docs_s_per_node_hi);
        out->ingest_nodes_hi = ingest_nodes(in, out, in->docs_s_per_node_lo);
    }
    out->hot_nodes_lo = max_u32(out->storage_nodes_lo, out->ingest_nodes_lo);
    out->hot_nodes_hi = max_u32(out->storage_nodes_hi, out->ingest_nodes_hi);
}

static void shard_plan(const bf_size_in_t *in, bf_size_out_t *out)
{
    out->primary_gb_day = in->daily_gb * in->raw_to_disk;
    out->primaries = max_u32(1, roundup(out->primary_gb_day / in->shard_gb));
    out->rollover_days = (double)out->primaries * in->shard_gb / out->primary_gb_day;
    out->index_gb = (double)out->primaries * in->shard_gb * ((double)in->replicas + 1.0);
    double bytes = in->doc_bytes > 0 ? in->doc_bytes : in->measured_doc_bytes;
    out->shard_docs = bytes > 0 ? in->shard_gb * 1e9 / (bytes * in->raw_to_disk) : 0;
    /* the index being written plus those rolled over within the hot days */
    double indices = ceil(in->hot.days / out->rollover_days - 1e-9) + 1.0;
    out->hot_shards = (uint32_t)(indices * (double)out->primaries * ((double)in->replicas + 1.0));
}

int bf_size_compute(const bf_size_in_t *in, bf_size_out_t *out, bf_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    int rc = check_inputs(in, diag);
    if (rc != BF_OK)
        return rc;
    rc = bytes_factor(in, &out->bytes_factor, diag);
    if (rc != BF_OK)
        return rc;
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
        out->ingest_exact =
            in->peak_docs_s * out->copies_factor * out->bytes_factor / in->docs_s_per_node;
        out->ingest_nodes = ingest_nodes(in, out, in->docs_s_per_node);
        if (out->ingest_nodes > out->hot.nodes) {
            out->hot_nodes = out->ingest_nodes;
            out->decides = "ingest";
        } else if (out->ingest_nodes == out->hot.nodes) {
            out->decides = "storage and ingest alike";
        }
    }
    ranges(in, out);
    shard_plan(in, out);
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

static void print_bytes(FILE *f, const bf_size_in_t *in, const bf_size_out_t *out)
{
    if (in->doc_bytes > 0)
        fprintf(f,
                "bytes factor          = %.0f bytes per document sized / %.0f bytes measured = "
                "%.2f (docs/s scaled by bytes: indexing cost taken to grow in proportion to a "
                "document's bytes; %s)\n",
                in->doc_bytes, in->measured_doc_bytes, out->bytes_factor,
                out->bytes_factor >= 1 ? "to larger documents this errs towards more nodes"
                                       : "to smaller documents this errs towards fewer nodes: "
                                         "the per-document cost does not shrink");
    else if (in->measured_doc_bytes > 0)
        fprintf(f,
                "documents             = sized as measured, %.0f bytes per document (action + "
                "source line); give --doc-bytes N for documents of another size\n",
                in->measured_doc_bytes);
    else
        fprintf(f, "documents             = bytes per document not known: sized for documents "
                   "like those the rate was measured with\n");
}

static void print_ingest(FILE *f, const bf_size_in_t *in, const bf_size_out_t *out)
{
    print_bytes(f, in, out);
    char bytes[64] = "";
    if (in->doc_bytes > 0)
        snprintf(bytes, sizeof bytes, " x %.2f bytes factor", out->bytes_factor);
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
                "ingest nodes          = ROUNDUP(%.0f docs/s x %.2f copies factor%s / %.0f "
                "docs/s per data node)%s = %u (%.2f before rounding)\n",
                in->peak_docs_s, out->copies_factor, bytes, in->docs_s_per_node,
                in->failover ? " + 1 failover" : "", out->ingest_nodes, out->ingest_exact);
    } else {
        fprintf(f,
                "ingest nodes          = ROUNDUP(%.0f docs/s%s / %.0f docs/s per data node, "
                "taken as measured at replicas %u)%s = %u (%.2f before rounding)\n",
                in->peak_docs_s, bytes, in->docs_s_per_node, in->replicas,
                in->failover ? " + 1 failover" : "", out->ingest_nodes, out->ingest_exact);
    }
}

static void print_range(FILE *f, const bf_size_in_t *in, const bf_size_out_t *out, int warm)
{
    int ingest = in->peak_docs_s > 0 && in->docs_s_per_node_lo > 0;
    int store = in->raw_to_disk_lo > 0;
    if (!ingest && !store) {
        if (in->peak_docs_s > 0)
            fprintf(f,
                    "%sdata nodes range: none stated: neither the docs/s per node nor the "
                    "raw-to-disk factor has an interval (a find-max row of fewer than 5 "
                    "seconds, --docs-per-node, --raw-to-disk)\n",
                    warm ? "hot " : "");
        return;
    }
    fprintf(f, "%sdata nodes range: %u to %u (", warm ? "hot " : "", out->hot_nodes_lo,
            out->hot_nodes_hi);
    if (ingest)
        fprintf(f,
                "ingest %u to %u at %.0f to %.0f docs/s per data node, the interval of the "
                "measured rate",
                out->ingest_nodes_lo, out->ingest_nodes_hi, in->docs_s_per_node_hi,
                in->docs_s_per_node_lo);
    if (store)
        fprintf(f, "%sstorage %u to %u at raw-to-disk %.3f to %.3f, the interval of its median",
                ingest ? "; " : "", out->storage_nodes_lo, out->storage_nodes_hi,
                in->raw_to_disk_lo, in->raw_to_disk_hi);
    fprintf(f, ")\n");
}

static void print_shards(FILE *f, const bf_size_in_t *in, const bf_size_out_t *out)
{
    fprintf(f, "shard plan (target %g GB per primary shard; Elastic advises 10 to 50 GB%s):\n",
            in->shard_gb,
            in->shard_gb < BF_SIZE_SHARD_GB_MIN || in->shard_gb > BF_SIZE_SHARD_GB_MAX
                ? ", which this is outside"
                : "");
    fprintf(f, "  primary data a day    = %g GB x %.3f raw-to-disk = %.1f GB\n", in->daily_gb,
            in->raw_to_disk, out->primary_gb_day);
    fprintf(f, "  primaries per index   = MAX(1, ROUNDUP(%.1f GB / %g GB)) = %u\n",
            out->primary_gb_day, in->shard_gb, out->primaries);
    fprintf(f,
            "  rollover              = max_primary_shard_size %ggb: every %.1f days, each index "
            "%u x %g GB = %.0f GB of primaries, %.0f GB with %u replica%s\n",
            in->shard_gb, out->rollover_days, out->primaries, in->shard_gb,
            (double)out->primaries * in->shard_gb, out->index_gb, in->replicas,
            in->replicas == 1 ? "" : "s");
    fprintf(f, "  daily volume on disk  = %.1f GB x (%u + 1) = %.1f GB with replicas\n",
            out->primary_gb_day, in->replicas, out->primary_gb_day * ((double)in->replicas + 1.0));
    if (out->rollover_days > in->hot.days)
        fprintf(f,
                "  an index holds more days than the %g days kept hot: add max_age %.0fd to "
                "the rollover (smaller shards) or keep whole indices longer\n",
                in->hot.days, in->hot.days);
    if (out->shard_docs > BF_SIZE_SHARD_DOCS)
        fprintf(f,
                "  a %g GB shard holds about %.0f million documents, more than the 200 million "
                "Elastic advises: add max_primary_shard_docs 200000000 to the rollover\n",
                in->shard_gb, out->shard_docs / 1e6);
    fprintf(f,
            "  hot tier shards       = %u (the index written and those rolled over within "
            "%g days, x primaries x (replicas + 1)), about %.0f per hot data node\n",
            out->hot_shards, in->hot.days,
            out->hot_nodes > 0 ? ceil((double)out->hot_shards / out->hot_nodes) : 0.0);
}

void bf_size_print(FILE *f, const bf_size_in_t *in, const bf_size_out_t *out)
{
    int warm = in->warm.days > 0;
    print_tier(f, warm ? " hot" : "", in, &in->hot, &out->hot);
    if (warm)
        print_tier(f, " warm", in, &in->warm, &out->warm);
    if (in->peak_docs_s > 0) {
        print_ingest(f, in, out);
        fprintf(f, "%sdata nodes: %u (%s decides: storage %u, ingest %u)\n", warm ? "hot " : "",
                out->hot_nodes, out->decides, out->hot.nodes, out->ingest_nodes);
    } else {
        fprintf(f, "%sdata nodes: %u\n", warm ? "hot " : "", out->hot_nodes);
    }
    print_range(f, in, out, warm);
    if (warm)
        fprintf(f, "warm data nodes: %u\n", out->warm.nodes);
    print_shards(f, in, out);
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
        "                      --find-max DIR it is read from DIR (this picks or checks it)\n"
        "  --doc-bytes N       bytes of one document sized (action + source line, as `plan`\n"
        "                      prints it); the rate is scaled by measured bytes / N, taking\n"
        "                      indexing cost to grow in proportion to bytes, and refused when\n"
        "                      the two differ more than 4x either way\n"
        "  --measured-doc-bytes N  the bytes per document the rate was measured with (read\n"
        "                      from --find-max DIR's rows; needed with --docs-per-node)\n"
        "  shards:\n"
        "  --shard-gb GB       target primary shard size (50, ILM's default rollover; Elastic\n"
        "                      advises 10 to 50): primaries per index, rollover every how\n"
        "                      many days, index size with replicas, shards in the hot tier\n"
        "  The node counts are also given as a range from the measurement's intervals: the\n"
        "  held find-max step's docs/s interval and the raw-to-disk median's interval.\n",
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
static int results_factor(const char *dir, double *factor, double *lo, double *hi, size_t *nrows)
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
    double level = 0;
    *lo = *hi = 0;
    if (n > 1 && bf_stats_median_ci(v, n, 0.95, lo, hi, &level) != BF_OK)
        *lo = *hi = 0;
    *nrows = n;
    free(v);
    return BF_EXIT_OK;
}

/* the replicas the held step of a combination ran at, from DIR/matrix.json through the row
 * codec (an older findmax.json has no "replicas"); -1 when not found */
/* the cell of a combination's (last) held step; NULL when none is named */
static const char *held_cell(json_t *combo)
{
    const char *held = NULL;
    json_t *steps = json_object_get(combo, "steps");
    for (size_t i = 0; i < json_array_size(steps); i++) {
        json_t *st = json_array_get(steps, i);
        const char *v = json_string_value(json_object_get(st, "verdict"));
        if (v != NULL && strcmp(v, "held") == 0)
            held = json_string_value(json_object_get(st, "cell"));
    }
    return held;
}

static int32_t held_row_replicas(json_t *combo, json_t *matrix)
{
    const char *held = held_cell(combo);
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

/* what matrix.json adds to a find-max result: the held step's docs/s interval (scaled to the
 * sustained rate) and the median bytes per document of the rows */
static void from_rows(bf_size_measured_t *m, json_t *combo, json_t *matrix)
{
    const char *held = combo != NULL ? held_cell(combo) : NULL;
    bf_strlcpy(m->held_cell, held ? held : "", sizeof m->held_cell);
    json_t *rows = json_object_get(matrix, "rows");
    size_t cap = json_array_size(rows) < MAX_FACTOR_ROWS ? json_array_size(rows) : MAX_FACTOR_ROWS;
    double *v = calloc(cap + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; v != NULL && i < cap; i++) {
        json_t *o = json_array_get(rows, i);
        double b = json_number_value(json_object_get(o, "bytes_payload_ok_all"));
        double d = json_number_value(json_object_get(o, "docs_ok_all"));
        if (b > 0 && d > 0)
            v[n++] = b / d;
        const char *cell = json_string_value(json_object_get(o, "cell"));
        if (held == NULL || cell == NULL || strcmp(cell, held) != 0)
            continue;
        double x = json_number_value(json_object_get(o, "docs_per_s"));
        double lo = json_number_value(json_object_get(o, "docs_per_s_ci_low"));
        double hi = json_number_value(json_object_get(o, "docs_per_s_ci_high"));
        if (x > 0 && lo > 0 && lo <= x && x <= hi) {
            m->ci_low = m->docs_s * lo / x;
            m->ci_high = m->docs_s * hi / x;
        }
    }
    if (n > 0) {
        qsort(v, n, sizeof *v, cmp_dbl);
        m->bytes_per_doc = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        m->bytes_rows = n;
    }
    free(v);
}

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
    size_t nd = 0, nfound = 0, unknown = 0, best = SIZE_MAX;
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
            best = i;
            const char *label =
                json_string_value(json_object_get(json_array_get(combos, i), "combination"));
            bf_strlcpy(m->combination, label ? label : "?", sizeof m->combination);
        }
    }
    m->replicas = target;
    if (rc == BF_OK) {
        if (matrix == NULL)
            matrix = json_load_file(path, 0, &err);
        from_rows(m, best < nc ? json_array_get(combos, best) : NULL, matrix);
    }
    free(rep);
    free(dps);
    json_decref(matrix);
    json_decref(j);
    return rc;
}

/* what the command line names besides the inputs */
typedef struct size_args {
    const char *results, *findmax;
    int have_factor;
} size_args_t;

/* one option into in / a; -1 after printing the error, 1 for --help */
static int size_opt(int ch, const char *arg, bf_size_in_t *in, size_args_t *a)
{
    double v;
    switch (ch) {
    case 'g': return parse_num("--daily-gb", arg, &in->daily_gb);
    case 'd': return parse_num("--days", arg, &in->hot.days);
    case 'm': return parse_num("--ram-gb", arg, &in->ram_gb);
    case 'r':
        if (parse_num("--replicas", arg, &v) || v != floor(v) || v > 1000) {
            bf_error("--replicas: a whole number 0..1000");
            return -1;
        }
        in->replicas = (uint32_t)v;
        return 0;
    case 'o': return parse_num("--ratio", arg, &in->hot.ram_data_ratio);
    case 'w': return parse_num("--warm-days", arg, &in->warm.days);
    case 'O': return parse_num("--warm-ratio", arg, &in->warm.ram_data_ratio);
    case 'f': in->failover = 1; return 0;
    case 'W': return parse_num("--watermark", arg, &in->watermark);
    case 'M': return parse_num("--margin", arg, &in->margin);
    case 'x': a->have_factor = 1; return parse_num("--raw-to-disk", arg, &in->raw_to_disk);
    case 'R': a->results = arg; return 0;
    case 'p': return parse_num("--peak-docs-s", arg, &in->peak_docs_s);
    case 'F': a->findmax = arg; return 0;
    case 'n': return parse_num("--docs-per-node", arg, &in->docs_s_per_node);
    case 'b': return parse_num("--doc-bytes", arg, &in->doc_bytes);
    case 'B': return parse_num("--measured-doc-bytes", arg, &in->measured_doc_bytes);
    case 's': return parse_num("--shard-gb", arg, &in->shard_gb);
    case 'P':
        if (parse_num("--measured-replicas", arg, &v) || v != floor(v) || v > 1000) {
            bf_error("--measured-replicas: a whole number 0..1000");
            return -1;
        }
        in->measured_replicas = (int32_t)v;
        return 0;
    case 'h': size_usage(stdout); return 1;
    default: size_usage(stderr); return -1;
    }
}

/* --find-max DIR into in: the rate per node, its interval and the bytes per document */
static int take_findmax(const char *dir, bf_size_in_t *in)
{
    bf_size_measured_t m;
    bf_diag_t fd = {0};
    int rc = bf_size_read_findmax(dir, in->measured_replicas, in->replicas, &m, &fd);
    if (rc != BF_OK) {
        bf_error("%s", fd.msg);
        return rc == BF_E_NOTFOUND ? BF_EXIT_ENV : BF_EXIT_INPUT;
    }
    in->measured_replicas = m.replicas;
    in->measured_data_nodes = (uint32_t)m.data_nodes;
    in->docs_s_per_node = m.docs_s / (double)m.data_nodes;
    printf("ingest per data node %.0f docs/s: max sustainable %.0f docs/s on %" PRId64
           " data node(s) at replicas %d in %s%s%s\n",
           in->docs_s_per_node, m.docs_s, m.data_nodes, (int)m.replicas, dir,
           m.ncombinations > 1 ? " (best of " : "", m.ncombinations > 1 ? "its combinations)" : "");
    if (m.ci_low > 0) {
        in->docs_s_per_node_lo = m.ci_low / (double)m.data_nodes;
        in->docs_s_per_node_hi = m.ci_high / (double)m.data_nodes;
        printf("its interval %.0f to %.0f docs/s per data node: the docs/s interval of the held "
               "step's row %s\n",
               in->docs_s_per_node_lo, in->docs_s_per_node_hi, m.held_cell);
    } else {
        printf("its interval: not known (%s)\n",
               m.held_cell[0] ? "the held step's row has none: fewer than 5 seconds, or written "
                                "before intervals were kept"
                              : "no held step named in findmax.json");
    }
    if (m.bytes_per_doc > 0 && in->measured_doc_bytes > 0) {
        printf("measured documents: %.0f bytes each as --measured-doc-bytes gives (%s measured "
               "%.0f)\n",
               in->measured_doc_bytes, dir, m.bytes_per_doc);
    } else if (m.bytes_per_doc > 0) {
        in->measured_doc_bytes = m.bytes_per_doc;
        printf("measured documents: %.0f bytes each (action + source line; median "
               "bytes_payload_ok_all / docs_ok_all of %zu rows)\n",
               m.bytes_per_doc, m.bytes_rows);
    } else if (in->measured_doc_bytes <= 0) {
        printf("measured documents: bytes per document not in %s/matrix.json (written before "
               "they were measured)\n",
               dir);
    }
    return BF_EXIT_OK;
}

int bf_size_cmd(int argc, char **argv)
{
    bf_size_in_t in;
    bf_size_defaults(&in);
    size_args_t a = {0};
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
        {"doc-bytes", required_argument, NULL, 'b'},
        {"measured-doc-bytes", required_argument, NULL, 'B'},
        {"shard-gb", required_argument, NULL, 's'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int r = size_opt(ch, optarg, &in, &a);
        if (r != 0)
            return r > 0 ? BF_EXIT_OK : BF_EXIT_INPUT;
    }
    if (optind != argc) {
        bf_error("unexpected argument '%s'", argv[optind]);
        size_usage(stderr);
        return BF_EXIT_INPUT;
    }
    if (a.results != NULL && a.have_factor) {
        bf_error("give --results or --raw-to-disk, not both");
        return BF_EXIT_INPUT;
    }
    if (a.results != NULL) {
        size_t n = 0;
        int rc =
            results_factor(a.results, &in.raw_to_disk, &in.raw_to_disk_lo, &in.raw_to_disk_hi, &n);
        if (rc != 0)
            return rc;
        printf("raw-to-disk factor %.3f: median store_bytes_per_payload_byte of %zu rows in %s",
               in.raw_to_disk, n, a.results);
        if (in.raw_to_disk_lo > 0)
            printf(" (interval of the median %.3f to %.3f)", in.raw_to_disk_lo, in.raw_to_disk_hi);
        printf("\n");
    }
    if (a.findmax != NULL) {
        int rc = take_findmax(a.findmax, &in);
        if (rc != 0)
            return rc;
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
