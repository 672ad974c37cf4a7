/* SPDX-License-Identifier: MIT */
/* test_render_golden.c — the rendered bytes are pinned: for many templates (every variable
 * type, inside and outside JSON strings, both scopes, escaping, several indices, id / routing /
 * pipeline, update / upsert / delete, the bench and example scenarios), seeds and streams,
 * bodies rendered whole and in pieces under a fixed clock (bf__vars_fake_clock, stepped
 * between render calls across second, DST and year boundaries and fractions with and without
 * trailing zeros), the SHA-256 of everything rendered must equal the one recorded in
 * tests/fixtures/render_golden.txt. The file was written by the renderer before the streamed
 * render and its optimizations, so a faster renderer passes only if it writes exactly the same
 * bytes.
 *
 * BF_GOLDEN_WRITE=PATH writes the table to PATH instead of checking (to record a deliberate
 * change of the rendered documents; say why in the commit). On a mismatch the case's output
 * is written to $TMPDIR/render_golden-<case>.ndjson for a diff against an older build. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_buf.h"
#include "bf_scenario.h"
#include "bf_sha256.h"
#include "bf_template.h"
#include "bf_vars.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FIXDIR BF_SOURCE_DIR "/tests/fixtures/scenarios"
#define GOLDEN BF_SOURCE_DIR "/tests/fixtures/render_golden.txt"

#define HEAD "name: g\ntarget: {hosts: [http://127.0.0.1:9200]}\n"

typedef struct tcase {
    const char *name;
    const char *text; /* a scenario's text, or NULL: load `file` */
    const char *file;
} tcase;

static const tcase CASES[] = {
    {"all-types",
     HEAD "variables:\n"
          "  - {name: f, type: file, path: dict/lines.log}\n"
          "  - {name: l, type: list, data: [a, 'b c', 'q\"uote', 'back\\\\slash']}\n"
          "  - {name: n, type: list, data: [1, 22, 333, true, null]}\n"
          "  - {name: s, type: sequence, from: -5, to: 1000000}\n"
          "  - {name: r, type: range, from: -100, to: 99999}\n"
          "  - {name: big, type: range, from: 0, to: 9223372036854775807}\n"
          "  - {name: u, type: uuid}\n"
          "  - {name: x, type: sortable_id}\n"
          "  - {name: nl, type: now_local}\n"
          "  - {name: nu, type: now_utc}\n"
          "  - {name: lite, type: now_utc_lite}\n"
          "  - {name: ux, type: now_unix}\n"
          "  - {name: ums, type: now_unix_ms}\n"
          "  - {name: uus, type: now_unix_us}\n"
          "  - {name: uns, type: now_unix_ns}\n"
          "  - {name: wf, type: now_with_format, format: \"%Y-%m-%dT%H:%M:%S%z %a\"}\n"
          "  - {name: an, type: random_array, variable_key: r, size: 3, square_bracket: true}\n"
          "  - {name: as, type: random_array, variable_key: l, size: 2, variable_type: string, "
          "square_bracket: true}\n"
          "document:\n"
          "  source: >-\n"
          "    {\"f\":\"$[[f]]\",\"fb\":$[[f]],\"l\":\"$[[l]]\",\"lb\":$[[l]],\"n\":$[[n]],"
          "\"ns\":\"$[[n]]\",\"s\":$[[s]],\"r\":$[[r]],\"rs\":\"r=$[[r]]\",\"big\":$[[big]],"
          "\"u\":\"$[[u]]\",\"ub\":$[[u]],\"x\":\"$[[x]]\",\"nl\":\"$[[nl]]\",\"nu\":\"$[[nu]]\","
          "\"nub\":$[[nu]],\"lite\":\"$[[lite]]\",\"ux\":$[[ux]],\"ums\":$[[ums]],"
          "\"uus\":$[[uus]],\"uns\":$[[uns]],\"wf\":\"$[[wf]]\",\"an\":$[[an]],"
          "\"ans\":\"$[[an]]\",\"as\":$[[as]],\"ass\":\"in $[[as]] str\",\"again\":\"$[[r]]\"}\n",
     NULL},
    {"scopes-indices",
     HEAD "index: {name: 'logs-{i}', count: 3}\n"
          "variables:\n"
          "  - {name: batch, type: sequence, scope: request}\n"
          "  - {name: rid, type: sortable_id, scope: request}\n"
          "  - {name: seq, type: sequence, from: 7}\n"
          "  - {name: u, type: uuid, scope: request}\n"
          "  - {name: r, type: range, from: 1, to: 6}\n"
          "document:\n"
          "  id: 'doc-$[[seq]]'\n"
          "  routing: '$[[r]]'\n"
          "  pipeline: 'pipe \"$[[batch]]\"'\n"
          "  source: '{\"b\":$[[batch]],\"rid\":\"$[[rid]]\",\"u\":\"$[[u]]\",\"r\":$[[r]],"
          "\"r2\":$[[r]]}'\n",
     NULL},
    {"hostile",
     HEAD "variables:\n"
          "  - {name: m, type: file, path: dict/nasty.log}\n"
          "  - {name: arr, type: random_array, variable_key: m, size: 2, variable_type: string}\n"
          "document:\n"
          "  id: 'id \"\\\\ $[[m]]'\n"
          "  source: |\n"
          "    {\n"
          "      \"m\": \"$[[m]]\",\n"
          "      \"bare\": $[[m]],\n"
          "      \"arr\": [$[[arr]]],\n"
          "      \"arr_s\": \"$[[arr]]\",\n"
          "      \"lit\": \"tab\\t and \\\"q\\\" $ [[ not ]]\"\n"
          "    }\n",
     NULL},
    {"update-upsert",
     HEAD "variables:\n"
          "  - {name: k, type: range, from: 1, to: 500}\n"
          "  - {name: v, type: uuid}\n"
          "document:\n"
          "  action: update\n"
          "  update: upsert\n"
          "  retry_on_conflict: 3\n"
          "  id: 'k$[[k]]'\n"
          "  source: '{\"v\":\"$[[v]]\",\"k\":$[[k]]}'\n",
     NULL},
    {"update-doc",
     HEAD "variables:\n"
          "  - {name: k, type: range, from: 1, to: 50}\n"
          "document:\n"
          "  action: update\n"
          "  id: '$[[k]]'\n"
          "  source: '{\"k\":$[[k]]}'\n",
     NULL},
    {"delete",
     HEAD "variables:\n"
          "  - {name: k, type: sequence}\n"
          "document:\n"
          "  action: delete\n"
          "  id: '$[[k]]'\n",
     NULL},
    {"literal-only", HEAD "document:\n  action: create\n  source: '{\"a\":1,\"b\":\"two\"}'\n",
     NULL},
    {"sink-nginx", NULL, BF_SOURCE_DIR "/bench/scenarios/sink-nginx.yaml"},
    {"quickstart", NULL, BF_SOURCE_DIR "/examples/quickstart.yaml"},
    {"nginx-logs", NULL, BF_SOURCE_DIR "/examples/nginx-logs.yaml"},
    {"vectors",
     HEAD "variables:\n"
          "  - {name: id, type: sequence}\n"
          "  - {name: u, type: vector, dims: 5}\n"
          "  - {name: n, type: vector, dims: 4, distribution: normal, precision: 3}\n"
          "  - {name: e, type: vector, dims: 6, distribution: unit}\n"
          "  - {name: be, type: vector, dims: 3, distribution: unit, encoding: base64}\n"
          "  - {name: le, type: vector, dims: 2, encoding: base64, byte_order: little}\n"
          "  - {name: by, type: vector, dims: 7, element_type: byte, distribution: normal}\n"
          "  - {name: bb, type: vector, dims: 5, element_type: byte, encoding: base64}\n"
          "  - {name: bt, type: vector, dims: 16, element_type: bit}\n"
          "  - {name: rq, type: vector, dims: 2, scope: request}\n"
          "document:\n"
          "  id: '$[[id]]'\n"
          "  source: >-\n"
          "    {\"u\":$[[u]],\"n\":$[[n]],\"e\":$[[e]],\"be\":$[[be]],\"bes\":\"$[[be]]\",\n"
          "    \"le\":$[[le]],\"by\":$[[by]],\"bb\":$[[bb]],\"bt\":$[[bt]],\"rq\":$[[rq]],\n"
          "    \"us\":\"$[[u]]\"}\n",
     NULL},
};
#define NCASES (sizeof CASES / sizeof CASES[0])

/* the fixed clock of each render call, in turn */
static const struct timespec CLOCKS[] = {
    {1700000000, 123456789}, {1700000000, 123456789}, {1700000000, 500000000},
    {1700000001, 0},         {1700000059, 999999999}, {1704067199, 999000000}, /* year's end */
    {1704067200, 1000},      {1711846799, 10},        {1711846800, 7},         /* CET -> CEST */
    {951782400, 42},         {4102444800, 100},       {1700003600, 120000000},
};
#define NCLOCKS (sizeof CLOCKS / sizeof CLOCKS[0])

/* documents per render call, in turn; every third call continues the last request */
static const uint32_t SIZES[] = {1, 7, 250, 2, 400, 33, 1000, 5};
#define NSIZES (sizeof SIZES / sizeof SIZES[0])
#define CALLS 16

static const uint64_t SEEDS[] = {1, 42, 0xDEADBEEFCAFEull};
static const bf_partition_t PARTS[] = {{0, 1, 0}, {3, 8, 0}};

/* Renders case c with seed s and partition p under the fixed clocks; out gets every byte. */
static void render_case(const tcase *c, uint64_t seed, bf_partition_t part, bf_buf_t *out)
{
    bf_diag_t d = {0};
    bf_load_opts_t o = {.base_dir = FIXDIR};
    bf_scenario_t *sc = NULL;
    int rc = c->text ? bf_scenario_load_text(c->text, strlen(c->text), c->name, &o, &sc, &d)
                     : bf_scenario_load_file(c->file, NULL, &sc, &d);
    if (rc != 0)
        fail_msg("%s: load: %s", c->name, d.msg);
    bf_tmpl_t *t = NULL;
    if (bf_tmpl_compile(sc, &t, &d) != 0)
        fail_msg("%s: compile: %s", c->name, d.msg);
    part.seed = seed;
    bf_gen_t *g = bf_gen_new(t, &part);
    const bf_cell_t *cell = bf_scenario_cell(sc, 0);
    for (int k = 0; k < CALLS; k++) {
        bf__vars_fake_clock(&CLOCKS[k % NCLOCKS]);
        uint32_t n = SIZES[k % NSIZES];
        rc = k % 3 == 2 ? bf_tmpl_render_bulk_more(t, g, cell, n, out)
                        : bf_tmpl_render_bulk(t, g, cell, n, out);
        if (rc != 0)
            fail_msg("%s: render call %d: %d", c->name, k, rc);
    }
    bf__vars_fake_clock(NULL);
    bf_gen_destroy(&g);
    bf_tmpl_destroy(&t);
    bf_scenario_destroy(&sc);
}

static void test_golden(void **state)
{
    (void)state;
    /* local time: a fixed POSIX zone with DST, no tzdata needed */
    setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
    setenv("ES_PASSWORD", "unused", 0); /* examples/nginx-logs.yaml's target */
    tzset();
    const char *write_to = getenv("BF_GOLDEN_WRITE");
    char want[NCASES * 6][160];
    size_t nwant = 0;
    if (!write_to) {
        FILE *f = fopen(GOLDEN, "r");
        assert_non_null(f);
        char line[256];
        while (fgets(line, sizeof line, f) && nwant < NCASES * 6) {
            if (line[0] == '#' || line[0] == '\n')
                continue;
            line[strcspn(line, "\n")] = '\0';
            snprintf(want[nwant++], sizeof want[0], "%s", line);
        }
        fclose(f);
    }
    FILE *w = write_to ? fopen(write_to, "w") : NULL;
    if (write_to) {
        assert_non_null(w);
        fprintf(w, "# tests/unit/test_render_golden.c: case seed stream/streams bytes sha256\n");
    }
    bf_buf_t out;
    bf_buf_init(&out, 0);
    size_t got = 0, bad = 0;
    for (size_t c = 0; c < NCASES; c++)
        for (size_t s = 0; s < sizeof SEEDS / sizeof SEEDS[0]; s++)
            for (size_t p = 0; p < sizeof PARTS / sizeof PARTS[0]; p++) {
                bf_buf_reset(&out);
                render_case(&CASES[c], SEEDS[s], PARTS[p], &out);
                char hex[65], row[160];
                bf_sha256_hex(out.data, out.len, hex);
                snprintf(row, sizeof row, "%s %llu %u/%u %zu %s", CASES[c].name,
                         (unsigned long long)SEEDS[s], PARTS[p].stream_index, PARTS[p].stream_count,
                         out.len, hex);
                if (w) {
                    fprintf(w, "%s\n", row);
                    continue;
                }
                if (got >= nwant || strcmp(row, want[got]) != 0) {
                    char path[512];
                    snprintf(path, sizeof path, "%s/render_golden-%s-%zu-%zu.ndjson",
                             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", CASES[c].name, s, p);
                    FILE *o = fopen(path, "w");
                    if (o) {
                        fwrite(out.data, 1, out.len, o);
                        fclose(o);
                    }
                    print_error("rendered: %s\nrecorded: %s\n(output in %s)\n", row,
                                got < nwant ? want[got] : "(none)", path);
                    bad++;
                }
                got++;
            }
    bf_buf_cleanup(&out);
    if (w) {
        fclose(w);
        return;
    }
    assert_int_equal(got, nwant);
    assert_int_equal(bad, 0);
}

/* ---- bodies rendered as libcurl reads them (bf_tmpl_stream_*) ------------------------------- */

#define SBODIES 3 /* bodies in a row from one generator */
#define SDOCS 300 /* documents a body */
#define SSLICE 97 /* the agent's old way: a body built this many documents a render call */

static bf_scenario_t *load_case(const tcase *c, bf_tmpl_t **t)
{
    bf_diag_t d = {0};
    bf_load_opts_t o = {.base_dir = FIXDIR};
    bf_scenario_t *sc = NULL;
    int rc = c->text ? bf_scenario_load_text(c->text, strlen(c->text), c->name, &o, &sc, &d)
                     : bf_scenario_load_file(c->file, NULL, &sc, &d);
    if (rc != 0)
        fail_msg("%s: load: %s", c->name, d.msg);
    if (bf_tmpl_compile(sc, t, &d) != 0)
        fail_msg("%s: compile: %s", c->name, d.msg);
    return sc;
}

/* The bodies as the agent built them before: whole, SSLICE documents a render call. */
static void render_old(const bf_tmpl_t *t, const bf_cell_t *cell, bf_partition_t part,
                       bf_buf_t *body)
{
    bf_gen_t *g = bf_gen_new(t, &part);
    for (int b = 0; b < SBODIES; b++)
        for (uint32_t done = 0; done < SDOCS; done += SSLICE) {
            uint32_t n = SDOCS - done < SSLICE ? SDOCS - done : SSLICE;
            int rc = done == 0 ? bf_tmpl_render_bulk(t, g, cell, n, &body[b])
                               : bf_tmpl_render_bulk_more(t, g, cell, n, &body[b]);
            assert_int_equal(rc, 0);
        }
    bf_gen_destroy(&g);
}

/* The same bodies read through a stream `cap` bytes a call (a varying cap when cap is 0), the
 * first body spilled once `spill_at` bytes were read (0: before the first read; -1: never). */
static void render_streamed(const bf_tmpl_t *t, const bf_cell_t *cell, bf_partition_t part,
                            size_t cap, long spill_at, bf_buf_t *body)
{
    bf_gen_t *g = bf_gen_new(t, &part);
    assert_true(bf_tmpl_stream_room(t, g, cell) > 0);
    bf_tmpl_stream_t st;
    bf_tmpl_stream_init(&st);
    char *buf = malloc(262144 + 64);
    assert_non_null(buf);
    static const size_t VARY[] = {1, 4096, 7, 65536, 33, 1000, 262144, 2};
    for (int b = 0; b < SBODIES; b++) {
        bf_tmpl_stream_begin(&st, t, g, cell, SDOCS);
        size_t got = 0;
        for (unsigned k = 0;; k++) {
            size_t c = cap ? cap : VARY[k % (sizeof VARY / sizeof VARY[0])];
            if (b == 0 && spill_at >= 0 && body[b].len >= (size_t)spill_at && st.done < SDOCS)
                assert_int_equal(bf_tmpl_stream_spill(&st), 0);
            memset(buf, 'X', c + 64);
            assert_int_equal(bf_tmpl_stream_read(&st, buf, c, &got), 0);
            assert_true(got <= c);
            assert_int_equal(buf[c], 'X'); /* nothing written past cap */
            if (got == 0)
                break;
            assert_int_equal(bf_buf_append(&body[b], buf, got), 0);
        }
        assert_int_equal(st.done, SDOCS);
        assert_int_equal(bf_tmpl_stream_total(&st), body[b].len);
        assert_int_equal(bf_tmpl_stream_read(&st, buf, 4096, &got), 0); /* still the end */
        assert_int_equal(got, 0);
    }
    free(buf);
    bf_tmpl_stream_cleanup(&st);
    bf_gen_destroy(&g);
}

static void test_stream_as_sent(void **state)
{
    (void)state;
    setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
    setenv("ES_PASSWORD", "unused", 0);
    tzset();
    static const size_t CAPS[] = {1, 7, 4096, 65536, 262144, 0};
    bf_partition_t part = {3, 8, 42};
    /* one clock for every render call: the call boundaries differ (the stream's are libcurl's
     * buffers), and under a clock that moves a time value is the reading of its call */
    bf__vars_fake_clock(&CLOCKS[0]);
    for (size_t c = 0; c < NCASES; c++) {
        bf_tmpl_t *t = NULL;
        bf_scenario_t *sc = load_case(&CASES[c], &t);
        const bf_cell_t *cell = bf_scenario_cell(sc, 0);
        bf_buf_t old[SBODIES], got[SBODIES];
        for (int b = 0; b < SBODIES; b++)
            bf_buf_init(&old[b], 0);
        render_old(t, cell, part, old);
        for (size_t k = 0; k < sizeof CAPS / sizeof CAPS[0] + 2; k++) {
            size_t cap = k < sizeof CAPS / sizeof CAPS[0] ? CAPS[k] : 4096;
            /* the last two: spilled before any byte was read, and in the middle of a body */
            size_t ncaps = sizeof CAPS / sizeof CAPS[0];
            long spill = k < ncaps ? -1 : k == ncaps ? 0 : (long)(old[0].len / 3);
            for (int b = 0; b < SBODIES; b++)
                bf_buf_init(&got[b], 0);
            render_streamed(t, cell, part, cap, spill, got);
            for (int b = 0; b < SBODIES; b++) {
                if (got[b].len != old[b].len || memcmp(got[b].data, old[b].data, old[b].len) != 0)
                    fail_msg("%s: body %d read %zu bytes a call (spill at %ld): %zu bytes, "
                             "differs from the body built whole (%zu bytes)",
                             CASES[c].name, b, cap, spill, got[b].len, old[b].len);
                bf_buf_cleanup(&got[b]);
            }
        }
        for (int b = 0; b < SBODIES; b++)
            bf_buf_cleanup(&old[b]);
        bf_tmpl_destroy(&t);
        bf_scenario_destroy(&sc);
    }
    bf__vars_fake_clock(NULL);
}

/* A sequence with wrap: false may end in the middle of a body: such bodies are built whole. */
static void test_stream_refuses_unwrapped(void **state)
{
    (void)state;
    static const char *text =
        HEAD "variables:\n  - {name: s, type: sequence, to: 10, wrap: false}\n"
             "document:\n  source: '{\"s\":$[[s]]}'\n";
    bf_diag_t d = {0};
    bf_load_opts_t o = {.base_dir = FIXDIR};
    bf_scenario_t *sc = NULL;
    assert_int_equal(bf_scenario_load_text(text, strlen(text), "nowrap", &o, &sc, &d), 0);
    bf_tmpl_t *t = NULL;
    assert_int_equal(bf_tmpl_compile(sc, &t, &d), 0);
    bf_partition_t part = {0, 1, 1};
    bf_gen_t *g = bf_gen_new(t, &part);
    assert_int_equal(bf_tmpl_stream_room(t, g, bf_scenario_cell(sc, 0)), 0);
    bf_gen_destroy(&g);
    bf_tmpl_destroy(&t);
    bf_scenario_destroy(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_stream_as_sent),
        cmocka_unit_test(test_stream_refuses_unwrapped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
