/* SPDX-License-Identifier: MIT */
/* test_corpus.c — corpus files: each codec read back byte for byte, bad lines kept out with
 * their line numbers, bulk-format ids, slices disjoint and covering, the corpus fast path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_corpus.h"
#include "bf_mem.h"
#include "bf_scenario.h"
#include "bf_template.h"

#include <bzlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/* N source lines {"n":i,"s":"..."} joined by '\n'. Caller frees. */
static char *make_docs(unsigned n, size_t *len)
{
    bf_buf_t b;
    bf_buf_init(&b, 0);
    for (unsigned i = 0; i < n; i++)
        bf_buf_appendf(&b, "{\"n\":%u,\"s\":\"line %u \\\"q\\\"\"}\n", i, i);
    *len = b.len;
    return bf_buf_steal(&b);
}

static unsigned char *gz(const char *in, size_t n, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, n) + 64;
    unsigned char *out = bf_malloc(cap);
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *out_len = z.total_out;
    deflateEnd(&z);
    return out;
}

static void open_ok(const void *data, size_t len, enum bf_corpus_format f, bf_corpus_t **c)
{
    bf_diag_t d = {0};
    int rc = bf_corpus_open("t.json", data, len, f, c, &d);
    if (rc != BF_OK)
        fail_msg("%s", d.msg);
}

static void check_docs(const bf_corpus_t *c, unsigned n)
{
    assert_int_equal(bf_corpus_docs(c), n);
    for (unsigned i = 0; i < n; i += 97) {
        const bf_corpus_doc_t *d = bf_corpus_doc(c, i);
        char want[64];
        int k = snprintf(want, sizeof want, "{\"n\":%u,", i);
        assert_true(d->src_len > (uint32_t)k);
        assert_memory_equal(bf_corpus_text(c) + d->src_off, want, (size_t)k);
        assert_int_equal(d->line, i + 1);
    }
}

static void test_codecs(void **state)
{
    (void)state;
    size_t len;
    char *text = make_docs(5000, &len);
    bf_corpus_t *c = NULL;
    open_ok(text, len, BF_CORPUS_SOURCE, &c);
    assert_int_equal(bf_corpus_codec(c), BF_CORPUS_PLAIN);
    check_docs(c, 5000);
    bf_corpus_destroy(&c);

    size_t zlen;
    unsigned char *z = gz(text, len, &zlen);
    open_ok(z, zlen, BF_CORPUS_SOURCE, &c);
    assert_int_equal(bf_corpus_codec(c), BF_CORPUS_GZIP);
    assert_int_equal(bf_corpus_text_bytes(c), len);
    check_docs(c, 5000);
    bf_corpus_destroy(&c);
    /* two gzip members one after the other read as one text */
    unsigned char *two = bf_malloc(2 * zlen);
    memcpy(two, z, zlen);
    memcpy(two + zlen, z, zlen);
    open_ok(two, 2 * zlen, BF_CORPUS_SOURCE, &c);
    assert_int_equal(bf_corpus_docs(c), 10000);
    bf_corpus_destroy(&c);
    /* truncated: an error naming the codec, never a short corpus */
    bf_diag_t d = {0};
    assert_int_equal(bf_corpus_open("t.json.gz", z, zlen / 2, BF_CORPUS_SOURCE, &c, &d),
                     BF_E_PARSE);
    assert_null(c);
    assert_non_null(strstr(d.msg, "gzip data is truncated"));
    free(two);
    free(z);

    unsigned blen = (unsigned)(len + len / 100 + 700);
    char *bz = bf_malloc(blen);
    assert_int_equal(BZ2_bzBuffToBuffCompress(bz, &blen, text, (unsigned)len, 9, 0, 0), BZ_OK);
    open_ok(bz, blen, BF_CORPUS_SOURCE, &c);
    assert_int_equal(bf_corpus_codec(c), BF_CORPUS_BZIP2);
    check_docs(c, 5000);
    bf_corpus_destroy(&c);
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_corpus_open("t.json.bz2", bz, blen - 10, BF_CORPUS_SOURCE, &c, &d),
                     BF_E_PARSE);
    assert_non_null(strstr(d.msg, "bzip2"));
    free(bz);

    size_t zcap = ZSTD_compressBound(len);
    char *zs = bf_malloc(zcap);
    size_t zslen = ZSTD_compress(zs, zcap, text, len, 3);
    assert_false(ZSTD_isError(zslen));
    open_ok(zs, zslen, BF_CORPUS_SOURCE, &c);
    assert_int_equal(bf_corpus_codec(c), BF_CORPUS_ZSTD);
    check_docs(c, 5000);
    bf_corpus_destroy(&c);
    memset(&d, 0, sizeof d);
    assert_int_equal(bf_corpus_open("t.json.zst", zs, zslen - 7, BF_CORPUS_SOURCE, &c, &d),
                     BF_E_PARSE);
    assert_non_null(strstr(d.msg, "zstd"));
    free(zs);
    free(text);
}

static void test_bad_lines(void **state)
{
    (void)state;
    const char *t = "{\"a\":1}\n"
                    "\n"                  /* blank: skipped, not bad */
                    "[1,2]\n"             /* line 3: not an object */
                    "  {\"b\":2}  \r\n"   /* CRLF and spaces: fine */
                    "{\"c\": broken}\n"   /* line 5: looks like one; jansson says no */
                    "{\"d\":1,\"d\":2}\n" /* line 6: duplicate keys (OpenSearch refuses) */
                    "plain text\n";       /* line 7 */
    bf_corpus_t *c = NULL;
    open_ok(t, strlen(t), BF_CORPUS_SOURCE, &c);
    assert_int_equal(bf_corpus_docs(c), 4);
    assert_int_equal(bf_corpus_bad_count(c), 2);
    assert_int_equal(bf_corpus_bad_line(c, 0), 3);
    assert_int_equal(bf_corpus_bad_line(c, 1), 7);
    const bf_corpus_doc_t *d = bf_corpus_doc(c, 1);
    assert_int_equal(d->src_len, 7);
    assert_memory_equal(bf_corpus_text(c) + d->src_off, "{\"b\":2}", 7);
    uint8_t keep[4];
    assert_int_equal(bf_corpus_check(c, 0, 4, 1, NULL, NULL, keep), 2);
    assert_int_equal(keep[0], 1);
    assert_int_equal(keep[1], 1);
    assert_int_equal(keep[2], 0);
    assert_int_equal(keep[3], 0);
    assert_int_equal(bf_corpus_doc(c, 2)->line, 5);
    bf_corpus_destroy(&c);
    bf_diag_t dg = {0};
    assert_int_equal(bf_corpus_open("e.json", "\n[]\n", 4, BF_CORPUS_SOURCE, &c, &dg), BF_E_INVAL);
    assert_non_null(strstr(dg.msg, "no document"));
}

static void test_bulk_format(void **state)
{
    (void)state;
    const char *t = "{\"index\":{\"_index\":\"x\",\"_id\":\"a\\\"1\"}}\n{\"v\":1}\n"
                    "{\"create\":{\"_id\":7,\"routing\":\"r\"}}\n{\"v\":2}\n"
                    "{\"index\":{}}\n{\"v\":3}\n"
                    "{\"delete\":{\"_id\":\"z\"}}\n" /* line 7: not a load */
                    "{\"index\":{}}\n";              /* line 8: no source after it */
    bf_corpus_t *c = NULL;
    open_ok(t, strlen(t), BF_CORPUS_BULK, &c);
    assert_int_equal(bf_corpus_docs(c), 3);
    assert_true(bf_corpus_has_ids(c));
    const char *meta = bf_corpus_meta(c);
    const bf_corpus_doc_t *d0 = bf_corpus_doc(c, 0), *d1 = bf_corpus_doc(c, 1),
                          *d2 = bf_corpus_doc(c, 2);
    assert_int_equal(d0->id_len, strlen(",\"_id\":\"a\\\"1\""));
    assert_memory_equal(meta + d0->meta_off, ",\"_id\":\"a\\\"1\"", d0->id_len);
    assert_memory_equal(meta + d1->meta_off, ",\"_id\":\"7\",\"routing\":\"r\"",
                        d1->id_len + d1->routing_len);
    assert_int_equal(d2->id_len + d2->routing_len, 0);
    assert_int_equal(d1->line, 4);
    assert_int_equal(bf_corpus_bad_count(c), 2);
    assert_int_equal(bf_corpus_bad_line(c, 0), 7);
    assert_int_equal(bf_corpus_bad_line(c, 1), 8);
    bf_corpus_destroy(&c);
}

/* A corpus of several files (document.corpus.path as a list): each decompressed by its own
 * magic, documents in file order, a file without a final '\n' joined on a line break, and a
 * bad line reported at its own file and line. */
static void test_parts(void **state)
{
    (void)state;
    const char *a = "{\"f\":\"a\",\"n\":0}\n{\"f\":\"a\",\"n\":1}"; /* no final '\n' */
    const char *b = "{\"f\":\"b\",\"n\":2}\nnot json\n{\"f\":\"b\",\"n\":3}\n";
    size_t zl;
    unsigned char *bz = gz(b, strlen(b), &zl);
    const char *names[] = {"a.json", "b.json.gz", "c.json"};
    const void *datas[] = {a, bz, "{\"f\":\"c\",\"n\":4}\n"};
    size_t lens[] = {strlen(a), zl, strlen("{\"f\":\"c\",\"n\":4}\n")};
    bf_corpus_t *c = NULL;
    bf_diag_t d = {0};
    if (bf_corpus_open_parts(names, datas, lens, 3, BF_CORPUS_SOURCE, &c, &d) != BF_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(bf_corpus_docs(c), 5);
    for (unsigned i = 0; i < 5; i++) {
        const bf_corpus_doc_t *doc = bf_corpus_doc(c, i);
        char want[32];
        snprintf(want, sizeof want, "\"n\":%u}", i);
        assert_memory_equal(bf_corpus_text(c) + doc->src_off + doc->src_len - strlen(want), want,
                            strlen(want));
    }
    assert_int_equal(bf_corpus_bad_count(c), 1);
    uint32_t fl = 0;
    assert_string_equal(bf_corpus_where(c, bf_corpus_bad_line(c, 0), &fl), "b.json.gz");
    assert_int_equal(fl, 2);
    assert_string_equal(bf_corpus_where(c, bf_corpus_doc(c, 4)->line, &fl), "c.json");
    assert_int_equal(fl, 1);
    assert_string_equal(bf_corpus_where(c, bf_corpus_doc(c, 1)->line, &fl), "a.json");
    assert_int_equal(fl, 2);
    /* each file's codec, sizes and documents (plan's corpus lines) */
    assert_int_equal(bf_corpus_parts(c), 3);
    bf_corpus_part_t pt;
    assert_int_equal(bf_corpus_part(c, 0, &pt), BF_OK);
    assert_string_equal(pt.name, "a.json");
    assert_int_equal(pt.codec, BF_CORPUS_PLAIN);
    assert_int_equal(pt.docs, 2);
    assert_int_equal(pt.file_bytes, strlen(a));
    assert_int_equal(pt.text_bytes, strlen(a));
    assert_int_equal(bf_corpus_part(c, 1, &pt), BF_OK);
    assert_string_equal(pt.name, "b.json.gz");
    assert_int_equal(pt.codec, BF_CORPUS_GZIP);
    assert_int_equal(pt.docs, 2); /* the bad line is not a document */
    assert_int_equal(pt.file_bytes, zl);
    assert_int_equal(pt.text_bytes, strlen(b));
    assert_int_equal(bf_corpus_part(c, 2, &pt), BF_OK);
    assert_int_equal(pt.docs, 1);
    assert_int_equal(bf_corpus_part(c, 3, &pt), BF_E_RANGE);
    bf_corpus_destroy(&c);
    free(bz);
}

static void test_slices(void **state)
{
    (void)state;
    size_t len;
    char *text = make_docs(1003, &len);
    bf_corpus_t *c = NULL;
    open_ok(text, len, BF_CORPUS_SOURCE, &c);
    for (uint32_t streams = 1; streams <= 9; streams++) {
        size_t next = 0;
        for (uint32_t s = 0; s < streams; s++) {
            size_t f, t;
            bf_corpus_slice(c, s, streams, &f, &t);
            assert_int_equal(f, next); /* disjoint, in order, no gap */
            assert_true(t - f == 1003 / streams || t - f == 1003 / streams + 1);
            next = t;
        }
        assert_int_equal(next, 1003);
    }
    bf_corpus_destroy(&c);
    free(text);
}

/* The fast path: a scenario with document.corpus renders the file's lines unchanged, the
 * template's id in the action line, and stops after `passes`. */
static void test_render_corpus(void **state)
{
    (void)state;
    char dir[1024]; /* under TMPDIR: the build folder under ctest */
    snprintf(dir, sizeof dir, "%s/bf-test-corpus.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    char path[1200], yaml[512];
    snprintf(path, sizeof path, "%s/c.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n", f);
    fclose(f);
    snprintf(yaml, sizeof yaml,
             "name: t\ntarget: {hosts: [\"http://127.0.0.1:9\"]}\n"
             "variables: [{name: s, type: sequence, from: 10}]\n"
             "document: {action: create, id: '$[[s]]', corpus: {path: c.json, passes: 2}}\n"
             "matrix: {batch_size: 4}\n");
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    bf_load_opts_t o = {.base_dir = dir};
    if (bf_scenario_load_text(yaml, strlen(yaml), "t.yaml", &o, &sc, &d) != BF_OK)
        fail_msg("%s", d.msg);
    const bf_corpus_t *c = bf_scenario_corpus(sc);
    assert_non_null(c);
    bf_tmpl_t *t = NULL;
    assert_int_equal(bf_tmpl_compile(sc, &t, &d), BF_OK);
    bf_partition_t part = {0, 1, 1};
    bf_gen_t *g = bf_gen_new(t, &part);
    bf_corpus_cursor_t cur = {.from = 0, .to = 3, .passes = 2};
    bf_buf_t out;
    bf_buf_init(&out, 0);
    uint32_t got = 0;
    const bf_cell_t *cell = bf_scenario_cell(sc, 0);
    assert_int_equal(bf_tmpl_render_corpus(t, g, cell, c, &cur, 4, 1, &out, &got), BF_OK);
    assert_int_equal(got, 4);
    assert_string_equal(out.data, "{\"create\":{\"_index\":\"t\",\"_id\":\"10\"}}\n{\"a\":1}\n"
                                  "{\"create\":{\"_index\":\"t\",\"_id\":\"11\"}}\n{\"a\":2}\n"
                                  "{\"create\":{\"_index\":\"t\",\"_id\":\"12\"}}\n{\"a\":3}\n"
                                  "{\"create\":{\"_index\":\"t\",\"_id\":\"13\"}}\n{\"a\":1}\n");
    bf_buf_reset(&out);
    assert_int_equal(bf_tmpl_render_corpus(t, g, cell, c, &cur, 4, 1, &out, &got), BF_OK);
    assert_int_equal(got, 2); /* the second pass ends: 6 documents in all */
    assert_int_equal(bf_tmpl_render_corpus(t, g, cell, c, &cur, 4, 1, &out, &got), BF_OK);
    assert_int_equal(got, 0);
    bf_buf_cleanup(&out);
    bf_gen_destroy(&g);
    bf_tmpl_destroy(&t);
    bf_scenario_destroy(&sc);
    remove(path);
    rmdir(dir);
}

/* Renders `rounds` requests of `batch` documents (the cursor reads the corpus `passes` times,
 * 0 = loop) from the corpus `text` under document `doc`
 * (YAML flow) twice, copied (bf_tmpl_render_corpus) and gathered (bf_tmpl_gather_corpus), and
 * checks they are the same bytes: the gather read whole and in 7-byte steps (libcurl's reads
 * end anywhere). Returns the documents rendered. */
static uint32_t gather_matches(const char *text, const char *doc, const char *matrix,
                               uint32_t batch, int rounds, uint32_t passes)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/bf-test-gather.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    char path[1200], yaml[1024];
    snprintf(path, sizeof path, "%s/c.json", dir);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    snprintf(yaml, sizeof yaml,
             "name: t\ntarget: {hosts: [\"http://127.0.0.1:9\"]}\n"
             "variables: [{name: s, type: sequence, from: 10}]\n"
             "document: %s\nmatrix: %s\n",
             doc, matrix);
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    bf_load_opts_t o = {.base_dir = dir};
    if (bf_scenario_load_text(yaml, strlen(yaml), "t.yaml", &o, &sc, &d) != BF_OK)
        fail_msg("%s", d.msg);
    const bf_corpus_t *c = bf_scenario_corpus(sc);
    bf_tmpl_t *t = NULL;
    assert_int_equal(bf_tmpl_compile(sc, &t, &d), BF_OK);
    bf_partition_t part = {0, 1, 1};
    bf_gen_t *g1 = bf_gen_new(t, &part), *g2 = bf_gen_new(t, &part);
    bf_corpus_cursor_t c1 = {.from = 0, .to = bf_corpus_docs(c), .passes = passes}, c2 = c1;
    bf_buf_t out, flat, steps;
    bf_buf_init(&out, 0);
    bf_buf_init(&flat, 0);
    bf_buf_init(&steps, 0);
    bf_gather_t gat;
    bf_gather_init(&gat, 0);
    const bf_cell_t *cell = bf_scenario_cell(sc, 0);
    uint32_t total = 0;
    for (int r = 0; r < rounds; r++) {
        bf_buf_reset(&out);
        bf_gather_reset(&gat);
        uint32_t got1 = 0, got2 = 0;
        /* a request built in two slices, as the agent does */
        for (int half = 0; half < 2; half++) {
            uint32_t n = half ? batch - batch / 2 : batch / 2, a = 0, b = 0;
            assert_int_equal(bf_tmpl_render_corpus(t, g1, cell, c, &c1, n, half == 0, &out, &a),
                             BF_OK);
            assert_int_equal(bf_tmpl_gather_corpus(t, g2, cell, c, &c2, n, half == 0, &gat, &b),
                             BF_OK);
            assert_int_equal(a, b);
            got1 += a;
            got2 += b;
        }
        assert_int_equal(got1, got2);
        total += got1;
        assert_int_equal(gat.bytes, out.len);
        assert_int_equal(bf_gather_flatten(&gat, &flat), BF_OK);
        assert_int_equal(flat.len, out.len);
        assert_memory_equal(flat.data, out.data, out.len);
        bf_buf_reset(&steps);
        bf_gather_pos_t pos = {0, 0};
        char step[7];
        size_t k;
        while ((k = bf_gather_read(&gat, &pos, step, sizeof step)) > 0)
            bf_buf_append(&steps, step, k);
        assert_int_equal(steps.len, out.len);
        assert_memory_equal(steps.data, out.data, out.len);
    }
    bf_gather_cleanup(&gat);
    bf_buf_cleanup(&out);
    bf_buf_cleanup(&flat);
    bf_buf_cleanup(&steps);
    bf_gen_destroy(&g1);
    bf_gen_destroy(&g2);
    bf_tmpl_destroy(&t);
    bf_scenario_destroy(&sc);
    remove(path);
    rmdir(dir);
    return total;
}

/* The gathered body (the agent's plain corpus path) is byte for byte the copied one: the
 * constant action line, an overlaid id, the file's ids and routing, several indices, a last
 * line without '\n', CRLF line ends, and a bad line skipped. */
static void test_gather_corpus(void **state)
{
    (void)state;
    const char *plain = "{\"a\":1}\n{\"a\":2}\n[3]\n{\"a\":4}\n{\"a\":5}"; /* no final '\n' */
    assert_int_equal(gather_matches(plain, "{action: create, corpus: {path: c.json}}",
                                    "{batch_size: 5}", 5, 4, 0),
                     20);
    assert_int_equal(gather_matches(plain, "{action: index, id: '$[[s]]', corpus: {path: c.json}}",
                                    "{batch_size: 3}", 3, 5, 0),
                     15);
    assert_int_equal(gather_matches("{\"a\":1}\r\n{\"b\":2}\r\n",
                                    "{action: index, corpus: {path: c.json}}", "{batch_size: 4}", 4,
                                    2, 0),
                     8);
    const char *bulk = "{\"index\":{\"_id\":\"a1\",\"routing\":\"r\"}}\n{\"v\":1}\n"
                       "{\"index\":{}}\n{\"v\":2}\n{\"index\":{\"_id\":\"a3\"}}\n{\"v\":3}\n";
    assert_int_equal(gather_matches(bulk, "{action: index, corpus: {path: c.json, format: bulk}}",
                                    "{batch_size: 4}", 4, 3, 0),
                     12);
    assert_int_equal(gather_matches(plain, "{action: create, corpus: {path: c.json, passes: 1}}",
                                    "{batch_size: 3, indices: 2}", 3, 3, 1),
                     4);
}

/* One scenario with its corpus written to a temporary folder (removed by scenario_free). */
typedef struct loaded {
    char dir[1024], path[1200];
    bf_scenario_t *sc;
} loaded;

static void scenario_with(loaded *L, const char *text, const char *doc, const char *matrix)
{
    snprintf(L->dir, sizeof L->dir, "%s/bf-test-contig.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(L->dir));
    snprintf(L->path, sizeof L->path, "%s/c.json", L->dir);
    FILE *f = fopen(L->path, "w");
    fputs(text, f);
    fclose(f);
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "name: t\ntarget: {hosts: [\"http://127.0.0.1:9\"]}\n"
             "variables: [{name: s, type: sequence, from: 10}]\n"
             "document: %s\nmatrix: %s\n",
             doc, matrix);
    bf_diag_t d = {0};
    bf_load_opts_t o = {.base_dir = L->dir};
    L->sc = NULL;
    if (bf_scenario_load_text(yaml, strlen(yaml), "t.yaml", &o, &L->sc, &d) != BF_OK)
        fail_msg("%s", d.msg);
}

static void scenario_free(loaded *L)
{
    bf_scenario_destroy(&L->sc);
    remove(L->path);
    rmdir(L->dir);
}

/* Contiguous bodies (bf_corpus_interleave + bf_tmpl_take_corpus) against copied ones
 * (bf_tmpl_render_corpus on a second, untouched load of the same corpus): `rounds` requests of
 * `batch` documents of the slice [from, to) (the corpus interleaved over [ifrom, ito), the
 * agent's part), documents that bf_corpus_check refuses skipped by both (keep[], as bf_run
 * does). Every request must be the same bytes, read whole and in 7-byte steps, with the same
 * counts and cursor (pos, passes). Returns the documents sent; *max_pieces gets the most
 * pieces one request had. */
static uint32_t contig_matches(const char *text, const char *doc, const char *matrix,
                               uint32_t batch, int rounds, uint32_t passes, size_t from, size_t to,
                               size_t ifrom, size_t ito, size_t *max_pieces)
{
    loaded A, B;
    scenario_with(&A, text, doc, matrix);
    scenario_with(&B, text, doc, matrix);
    const bf_corpus_t *ca = bf_scenario_corpus(A.sc);
    bf_corpus_t *cb = bf_scenario_corpus_edit(B.sc);
    size_t n = bf_corpus_docs(ca);
    if (to > n)
        to = n;
    if (ito > n)
        ito = n;
    bf_diag_t d = {0};
    bf_tmpl_t *t = NULL;
    assert_int_equal(bf_tmpl_compile(A.sc, &t, &d), BF_OK);
    const bf_cell_t *cell = bf_scenario_cell(A.sc, 0);
    bf_buf_t head;
    bf_buf_init(&head, 0);
    assert_int_equal(bf_tmpl_corpus_bulk_head(t, cell, &head), 1);
    size_t want_bytes = bf_corpus_interleave_bytes(cb, ifrom, ito, head.len);
    assert_int_equal(bf_corpus_interleave(cb, ifrom, ito, head.data, head.len), BF_OK);
    assert_true(bf_corpus_interleaved(cb));
    assert_int_equal(bf_corpus_text_bytes(cb) + 1, want_bytes);
    assert_true(bf_corpus_lines_end_nl(cb));
    /* the same again is nothing; a range wider than what is left is refused */
    assert_int_equal(bf_corpus_interleave(cb, ifrom, ito, head.data, head.len), BF_OK);
    if (ito < n)
        assert_int_equal(bf_corpus_interleave(cb, ifrom, ito + 1, head.data, head.len), BF_E_INVAL);
    /* refused at Prepare: both loads judge the same sources */
    uint8_t *ka = bf_malloc(to - from + 1), *kb = bf_malloc(to - from + 1);
    size_t bad_a = bf_corpus_check(ca, from, to, 1, NULL, NULL, ka);
    size_t bad_b = bf_corpus_check(cb, from, to, 1, NULL, NULL, kb);
    assert_int_equal(bad_a, bad_b);
    assert_memory_equal(ka, kb, to - from);
    bf_partition_t part = {0, 1, 1};
    bf_gen_t *g = bf_gen_new(t, &part);
    bf_corpus_cursor_t c1 = {.from = from, .to = to, .passes = passes, .keep = ka};
    c1.pos = from;
    bf_corpus_cursor_t c2 = c1;
    c2.keep = bad_b ? kb : NULL;
    bf_buf_t out, flat, steps;
    bf_buf_init(&out, 0);
    bf_buf_init(&flat, 0);
    bf_buf_init(&steps, 0);
    bf_gather_t gat;
    bf_gather_init(&gat, 0);
    uint32_t total = 0;
    *max_pieces = 0;
    for (int r = 0; r < rounds; r++) {
        bf_buf_reset(&out);
        bf_gather_reset(&gat);
        uint32_t a = 0, b = 0;
        assert_int_equal(bf_tmpl_render_corpus(t, g, cell, ca, &c1, batch, 1, &out, &a), BF_OK);
        assert_int_equal(bf_tmpl_take_corpus(cb, &c2, batch, &gat, &b), BF_OK);
        assert_int_equal(a, b);
        assert_int_equal(c1.pos, c2.pos);
        assert_int_equal(c1.passes_done, c2.passes_done);
        total += a;
        if (gat.n > *max_pieces)
            *max_pieces = gat.n;
        assert_int_equal(gat.bytes, out.len);
        assert_int_equal(bf_gather_flatten(&gat, &flat), BF_OK);
        assert_int_equal(flat.len, out.len);
        assert_memory_equal(flat.data, out.data, out.len);
        bf_buf_reset(&steps);
        bf_gather_pos_t pos = {0, 0};
        char step[7];
        size_t k;
        while ((k = bf_gather_read(&gat, &pos, step, sizeof step)) > 0)
            bf_buf_append(&steps, step, k);
        assert_int_equal(steps.len, out.len);
        assert_memory_equal(steps.data, out.data, out.len);
    }
    free(ka);
    free(kb);
    bf_gather_cleanup(&gat);
    bf_buf_cleanup(&out);
    bf_buf_cleanup(&flat);
    bf_buf_cleanup(&steps);
    bf_buf_cleanup(&head);
    bf_gen_destroy(&g);
    bf_tmpl_destroy(&t);
    scenario_free(&A);
    scenario_free(&B);
    return total;
}

/* Contiguous corpus bodies are byte for byte the copied ones: one piece a request (two at the
 * slice's wrap), across passes and the end-of-corpus rule, lines refused at load (a bad line
 * the index leaves out, a source bf_corpus_check refuses), CRLF, no final newline, the file's
 * ids and routing, a slice inside the agent's part. */
static void test_contiguous_corpus(void **state)
{
    (void)state;
    size_t pieces = 0;
    size_t len = 0;
    char *ten = make_docs(10, &len);
    /* 10 documents, batch 4, loop: 0-3, 4-7, 8 9 | 0 1 (two pieces), ... */
    assert_int_equal(contig_matches(ten, "{action: create, corpus: {path: c.json}}",
                                    "{batch_size: 4}", 4, 7, 0, 0, 10, 0, 10, &pieces),
                     28);
    assert_int_equal(pieces, 2);
    /* passes: 2 reads of 10 in requests of 4: 4 4 4 4 4, then nothing */
    assert_int_equal(contig_matches(ten, "{action: index, corpus: {path: c.json, passes: 2}}",
                                    "{batch_size: 4}", 4, 7, 2, 0, 10, 0, 10, &pieces),
                     20);
    /* a slice [3, 8) inside the agent's part [2, 9), batch larger than the slice: wraps twice */
    assert_int_equal(contig_matches(ten, "{action: create, corpus: {path: c.json, passes: 3}}",
                                    "{batch_size: 12}", 12, 3, 3, 3, 8, 2, 9, &pieces),
                     15);
    assert_int_equal(pieces, 3);
    free(ten);
    /* a line refused by the index ([3]), one refused by jansson ({"a":}), no final '\n' */
    const char *bad = "{\"a\":1}\n{\"a\":2}\n[3]\n{\"a\":}\n{\"a\":4}\n{\"a\":5}";
    assert_int_equal(contig_matches(bad, "{action: create, corpus: {path: c.json}}",
                                    "{batch_size: 3}", 3, 6, 0, 0, 99, 0, 99, &pieces),
                     18);
    assert_int_equal(contig_matches(bad, "{action: create, corpus: {path: c.json, passes: 1}}",
                                    "{batch_size: 7}", 7, 2, 1, 0, 99, 0, 99, &pieces),
                     4);
    /* CRLF and trailing blanks: the file's line ends are not sent */
    assert_int_equal(contig_matches("{\"a\":1}\r\n{\"b\":2} \r\n\r\n{\"c\":3}\r\n",
                                    "{action: index, corpus: {path: c.json}}", "{batch_size: 2}", 2,
                                    5, 0, 0, 99, 0, 99, &pieces),
                     10);
    /* bulk format: the file's _id and routing in the action lines */
    const char *bulk = "{\"index\":{\"_id\":\"a1\",\"routing\":\"r\"}}\n{\"v\":1}\n"
                       "{\"index\":{}}\n{\"v\":2}\n{\"create\":{\"_id\":\"a\\\"3\"}}\n{\"v\":3}\n";
    assert_int_equal(contig_matches(bulk, "{action: create, corpus: {path: c.json, format: bulk}}",
                                    "{batch_size: 2}", 2, 5, 0, 0, 99, 0, 99, &pieces),
                     10);
    /* not contiguous: an overlaid id, or two indices */
    loaded L;
    scenario_with(&L, "{\"a\":1}\n", "{action: create, id: '$[[s]]', corpus: {path: c.json}}",
                  "{batch_size: 2}");
    bf_tmpl_t *t = NULL;
    bf_diag_t d = {0};
    bf_buf_t head;
    bf_buf_init(&head, 0);
    assert_int_equal(bf_tmpl_compile(L.sc, &t, &d), BF_OK);
    assert_int_equal(bf_tmpl_corpus_bulk_head(t, bf_scenario_cell(L.sc, 0), &head), 0);
    bf_tmpl_destroy(&t);
    scenario_free(&L);
    scenario_with(&L, "{\"a\":1}\n", "{action: create, corpus: {path: c.json}}",
                  "{batch_size: 2, indices: 2}");
    assert_int_equal(bf_tmpl_compile(L.sc, &t, &d), BF_OK);
    assert_int_equal(bf_tmpl_corpus_bulk_head(t, bf_scenario_cell(L.sc, 0), &head), 0);
    bf_tmpl_destroy(&t);
    scenario_free(&L);
    bf_buf_cleanup(&head);
}

static void test_scenario_errors(void **state)
{
    (void)state;
    struct {
        const char *doc;
        const char *want;
    } cases[] = {
        {"{source: '{}', corpus: {path: x.json}}", "not both"},
        {"{corpus: {passes: 1}}", "exactly one of them"},
        {"{corpus: {path: a.json, local_path: /a.json}}", "exactly one of them"},
        {"{corpus: {local_path: rel/a.json}}", "is relative"},
        {"{corpus: {local_path: /a.json, passes: 0}}", "'loop' or a whole number"},
        {"{corpus: {local_path: /a.json, passes: lots}}", "'loop' or a whole number"},
        {"{corpus: {local_path: /a.json, format: ndjson}}", "format"},
        {"{corpus: {path: /nonexistent/bf-corpus.json}}", "cannot read corpus"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml,
                 "name: t\ntarget: {hosts: [\"http://127.0.0.1:9\"]}\n"
                 "document: %s\n",
                 cases[i].doc);
        bf_scenario_t *sc = NULL;
        bf_diag_t d = {0};
        int rc = bf_scenario_load_text(yaml, strlen(yaml), "t.yaml", NULL, &sc, &d);
        if (rc == BF_OK || strstr(d.msg, cases[i].want) == NULL)
            fail_msg("case %zu (%s): rc %d, '%s'", i, cases[i].doc, rc, d.msg);
        assert_non_null(strstr(d.msg, "t.yaml:"));
    }
}

/* validate's sampling of a big corpus is said in words ("parsed one in 2", not "every
 * 2-th"), and a corpus of several files is named by all of its files, not by the first with
 * the total of all */
static void test_sampled_corpus_named(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/bf-test-corpus.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    size_t len;
    char *docs = make_docs(BF_CORPUS_SAMPLE_DOCS / 2 + 1, &len);
    for (int k = 0; k < 2; k++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%c.json", dir, 'a' + k);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        assert_int_equal(fwrite(docs, 1, len, f), len);
        fclose(f);
    }
    free(docs);
    const char *yaml = "name: t\ntarget: {hosts: [\"http://127.0.0.1:9\"]}\n"
                       "document: {corpus: {path: [a.json, b.json]}}\n";
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    bf_load_opts_t o = {.base_dir = dir};
    if (bf_scenario_load_text(yaml, strlen(yaml), "t.yaml", &o, &sc, &d) != BF_OK)
        fail_msg("%s", d.msg);
    char want[160];
    snprintf(want, sizeof want,
             "the 2 files of document.corpus (a.json, b.json): %u documents; "
             "validate parsed one in 2 (%u of them)",
             2 * (BF_CORPUS_SAMPLE_DOCS / 2 + 1), BF_CORPUS_SAMPLE_DOCS / 2 + 1);
    int seen = 0;
    for (size_t i = 0; i < bf_scenario_warning_count(sc); i++)
        seen |= strstr(bf_scenario_warning(sc, i), want) != NULL;
    if (!seen)
        fail_msg("'%s' not among the %zu warnings (first: %s)", want, bf_scenario_warning_count(sc),
                 bf_scenario_warning_count(sc) ? bf_scenario_warning(sc, 0) : "none");
    bf_scenario_destroy(&sc);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* document.corpus.indices: by_file: each file's documents go to its own index, named by
 * index.names (a Rally track's target-index per documents file: http_logs' days each went
 * round-robin over 7 generated names before), copied and gathered alike; the counts must
 * match */
static void test_corpus_by_file(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/bf-test-byfile.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    const char *files[] = {"{\"d\":1,\"n\":0}\n{\"d\":1,\"n\":1}\n{\"d\":1,\"n\":2}\n",
                           "{\"d\":2,\"n\":3}\n", "{\"d\":3,\"n\":4}\n{\"d\":3,\"n\":5}\n"};
    for (int k = 0; k < 3; k++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/day%d.json", dir, k + 1);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(files[k], f);
        fclose(f);
    }
    const char *yaml = "name: t\ntarget: {hosts: [\"http://127.0.0.1:9\"]}\n"
                       "index: {name: logs-181998, names: [logs-181998, logs-191998, "
                       "logs-201998]}\n"
                       "document: {corpus: {path: [day1.json, day2.json, day3.json], "
                       "indices: by_file}}\n";
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    bf_load_opts_t o = {.base_dir = dir};
    if (bf_scenario_load_text(yaml, strlen(yaml), "t.yaml", &o, &sc, &d) != BF_OK)
        fail_msg("%s", d.msg);
    const bf_cell_t *cell = bf_scenario_cell(sc, 0);
    assert_int_equal(cell->indices, 3);
    assert_string_equal(cell->index_names[1], "logs-191998");
    const bf_corpus_t *c = bf_scenario_corpus(sc);
    bf_tmpl_t *t = NULL;
    assert_int_equal(bf_tmpl_compile(sc, &t, &d), BF_OK);
    bf_partition_t part = {0, 1, 1};
    for (int gather = 0; gather < 2; gather++) {
        bf_gen_t *g = bf_gen_new(t, &part);
        bf_corpus_cursor_t cur = {.from = 0, .to = 6, .passes = 1};
        bf_buf_t out;
        bf_buf_init(&out, 0);
        uint32_t got = 0;
        if (gather) {
            bf_gather_t gt;
            bf_gather_init(&gt, 0);
            assert_int_equal(bf_tmpl_gather_corpus(t, g, cell, c, &cur, 6, 1, &gt, &got), BF_OK);
            assert_int_equal(bf_gather_flatten(&gt, &out), BF_OK);
            bf_gather_cleanup(&gt);
        } else {
            assert_int_equal(bf_tmpl_render_corpus(t, g, cell, c, &cur, 6, 1, &out, &got), BF_OK);
        }
        assert_int_equal(got, 6);
        assert_string_equal(out.data,
                            "{\"index\":{\"_index\":\"logs-181998\"}}\n{\"d\":1,\"n\":0}\n"
                            "{\"index\":{\"_index\":\"logs-181998\"}}\n{\"d\":1,\"n\":1}\n"
                            "{\"index\":{\"_index\":\"logs-181998\"}}\n{\"d\":1,\"n\":2}\n"
                            "{\"index\":{\"_index\":\"logs-191998\"}}\n{\"d\":2,\"n\":3}\n"
                            "{\"index\":{\"_index\":\"logs-201998\"}}\n{\"d\":3,\"n\":4}\n"
                            "{\"index\":{\"_index\":\"logs-201998\"}}\n{\"d\":3,\"n\":5}\n");
        bf_buf_cleanup(&out);
        bf_gen_destroy(&g);
    }
    bf_tmpl_destroy(&t);
    bf_scenario_destroy(&sc);
    /* the counts must match, each name once, index.count is their number */
    static const struct {
        const char *index, *corpus, *want;
    } bad[] = {
        {"{name: a, names: [a, b]}", "{path: [day1.json, day2.json, day3.json], indices: by_file}",
         "the corpus has 3 files and the cell 2 indices"},
        {"{name: a, count: 2}", "{path: [day1.json, day2.json, day3.json], indices: by_file}",
         "the corpus has 3 files and the cell 2 indices"},
        {"{name: a, names: [a, b, a]}", "{path: [day1.json, day2.json, day3.json]}",
         "index.names: 'a' is named twice"},
        {"{name: a, count: 2, names: [a, b, c]}", "{path: day1.json}",
         "index.count: 2, but index.names names 3 indices"},
        {"{name: 'a-{shards}', names: [a, b]}", "{path: day1.json}",
         "index.name: placeholders with index.names"},
        {"{name: a, names: [a, B]}", "{path: day1.json}", "index.names: 'B' must be lowercase"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char y[1024];
        snprintf(y, sizeof y,
                 "name: t\ntarget: {hosts: [\"http://127.0.0.1:9\"]}\nindex: %s\n"
                 "document: {corpus: %s}\n",
                 bad[i].index, bad[i].corpus);
        sc = NULL;
        memset(&d, 0, sizeof d);
        int rc = bf_scenario_load_text(y, strlen(y), "t.yaml", &o, &sc, &d);
        if (rc == BF_OK || strstr(d.msg, bad[i].want) == NULL)
            fail_msg("case %zu: rc %d, '%s' not in '%s'", i, rc, bad[i].want, d.msg);
        bf_scenario_destroy(&sc);
    }
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codecs),
        cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_bulk_format),
        cmocka_unit_test(test_slices),
        cmocka_unit_test(test_render_corpus),
        cmocka_unit_test(test_scenario_errors),
        cmocka_unit_test(test_gather_corpus),
        cmocka_unit_test(test_parts),
        cmocka_unit_test(test_contiguous_corpus),
        cmocka_unit_test(test_sampled_corpus_named),
        cmocka_unit_test(test_corpus_by_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
