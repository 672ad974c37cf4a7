/* SPDX-License-Identifier: MIT */
/* fuzz_common.h — shared helpers of the libFuzzer targets (header-only, test code).
 *
 * check_rendering() is the property both targets assert: a scenario the loader accepted renders
 * documents that are valid JSON (two lines per document) for any seed, not only the seed the
 * loader sampled with; and its resolved text loads again (no_env, files from the provider) into
 * the same cells. A violation aborts, so libFuzzer keeps the input.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "bf_mem.h"
#include "bf_scenario.h"
#include "bf_template.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fuzz_fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz property violated: %s\n%s\n", what, detail ? detail : "");
    abort();
}

static int fuzz_serve_from(void *ctx, const char *path, char **data, size_t *len)
{
    const bf_scenario_t *sc = ctx;
    for (size_t i = 0; i < bf_scenario_file_count(sc); i++) {
        const bf_scenario_file_t *f = bf_scenario_file(sc, i);
        if (strcmp(f->path, path) == 0) {
            *data = bf_malloc(f->len ? f->len : 1);
            memcpy(*data, f->data, f->len);
            *len = f->len;
            return 0;
        }
    }
    return BF_E_NOTFOUND;
}

static void check_rendering(const bf_scenario_t *sc)
{
    bf_tmpl_t *t = NULL;
    bf_diag_t d = {0};
    if (bf_tmpl_compile(sc, &t, &d) != 0)
        fuzz_fail("a loaded scenario does not compile", d.msg);
    bf_partition_t part = {3, 7, 0xF022ull};
    bf_gen_t *g = bf_gen_new(t, &part);
    bf_buf_t b;
    bf_buf_init(&b, 4u << 20);
    for (size_t c = 0; c < bf_scenario_cell_count(sc) && c < 3; c++) {
        bf_buf_reset(&b);
        const bf_cell_t *cell = bf_scenario_cell(sc, c);
        int rc = bf_tmpl_render_bulk(t, g, cell, 20, &b);
        if (rc == BF_E_TOOBIG || rc == BF_E_RANGE)
            continue;
        if (rc != 0)
            fuzz_fail("render failed", bf_strerror(rc));
        size_t lines = 0;
        char *p = b.data;
        while (p && p < b.data + b.len) {
            char *nl = memchr(p, '\n', (size_t)(b.data + b.len - p));
            if (nl == NULL)
                fuzz_fail("a rendered line does not end with a newline", p);
            json_error_t je;
            json_t *j = json_loadb(p, (size_t)(nl - p), 0, &je);
            if (j == NULL || !json_is_object(j)) {
                *nl = '\0';
                fuzz_fail("a rendered line is not a JSON object", p);
            }
            json_decref(j);
            lines++;
            p = nl + 1;
        }
        if (lines != 40)
            fuzz_fail("not two lines per document", b.data);
    }
    bf_buf_cleanup(&b);
    bf_gen_destroy(&g);
    bf_tmpl_destroy(&t);
    /* what agents load */
    const char *rt = bf_scenario_resolved_text(sc);
    bf_load_opts_t o = {.file_provider = fuzz_serve_from, .file_provider_ctx = (void *)sc,
                        .no_env = 1};
    bf_scenario_t *again = NULL;
    bf_diag_t d2 = {0};
    if (bf_scenario_load_text(rt, strlen(rt), "resolved", &o, &again, &d2) != 0)
        fuzz_fail("the resolved text does not load", d2.msg);
    if (bf_scenario_cell_count(again) != bf_scenario_cell_count(sc))
        fuzz_fail("the resolved text has other cells", rt);
    for (size_t c = 0; c < bf_scenario_cell_count(sc); c++) {
        const bf_cell_t *x = bf_scenario_cell(sc, c), *y = bf_scenario_cell(again, c);
        if (strcmp(x->id, y->id) != 0 || strcmp(x->settings_json, y->settings_json) != 0)
            fuzz_fail("the resolved text gives another cell", x->id);
    }
    if (strcmp(bf_scenario_resolved_text(again), rt) != 0)
        fuzz_fail("the resolved text is not stable", rt);
    bf_scenario_destroy(&again);
}

#endif
