/* SPDX-License-Identifier: MIT */
/* bf_matrixfile.c — the one reader of a results directory's matrix.json.
 *
 * compare (bf_compare.c), the trend (bf_trend.c), the report, publish and --resume read the
 * matrix through here, so that the trend and compare need nothing of each other to read it.
 */
#include "bf_matrixfile.h"

#include "bf_mem.h"
#include "bf_stats.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int bf_matrixfile_read(const char *dir, json_t **out, bf_diag_t *diag)
{
    *out = NULL;
    char *path = bf_asprintf("%s/matrix.json", dir);
    struct stat st;
    if (stat(path, &st) != 0) {
        int rc = bf_diag_set(diag, BF_E_NOTFOUND,
                             "%s: no such file; is %s a results directory "
                             "(results/<name>-<time>/)?",
                             path, dir);
        free(path);
        return rc;
    }
    json_error_t e;
    json_t *m = json_load_file(path, 0, &e);
    if (!json_is_array(json_object_get(m, "rows"))) {
        int rc = bf_diag_set(diag, BF_E_PARSE, "%s:%d:%d: %s", path, e.line, e.column,
                             m ? "no \"rows\" array" : e.text);
        json_decref(m);
        free(path);
        return rc;
    }
    free(path);
    *out = m;
    return BF_OK;
}

json_t *bf_matrixfile_load(const char *dir, char *desc, size_t desc_size, bf_diag_t *diag)
{
    json_t *m = NULL;
    if (bf_matrixfile_read(dir, &m, diag) != BF_OK)
        return NULL;
    json_t *cl = json_object_get(m, "cluster");
    const char *name = json_string_value(json_object_get(m, "scenario"));
    long long nn = (long long)json_integer_value(json_object_get(cl, "nodes"));
    if (json_is_object(cl))
        snprintf(desc, desc_size, "%s on %s %s, %lld node%s", name ? name : "?",
                 json_string_value(json_object_get(cl, "distribution")) ?: "?",
                 json_string_value(json_object_get(cl, "version")) ?: "?", nn, nn == 1 ? "" : "s");
    else
        snprintf(desc, desc_size, "%s", name ? name : "?");
    return m;
}

int bf_matrixfile_test_opts(const json_t *m, double *alpha, double *band)
{
    const json_t *fo = json_object_get(m, "findings_options");
    const json_t *ja = json_object_get(fo, "alpha"), *jb = json_object_get(fo, "noise_band");
    double a = json_is_number(ja) ? json_number_value(ja) : BF_STATS_ALPHA;
    double b = json_is_number(jb) ? json_number_value(jb) : BF_STATS_BAND;
    if (!(a > 0 && a < 1)) /* not a level: the default */
        a = BF_STATS_ALPHA;
    if (!(b >= 0 && b < 1))
        b = BF_STATS_BAND;
    if (a < *alpha)
        *alpha = a;
    if (b > *band)
        *band = b;
    return json_is_number(ja) || json_is_number(jb);
}
