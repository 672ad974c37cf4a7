/* SPDX-License-Identifier: MIT */
/* test_body.c — the agent's body sources (bf_body) without libcurl: which kind a cell gets;
 * rendered, streamed, gathered and routed bodies read in small steps are the bytes the template
 * renders whole for the same generator state; gzip around a kind decompresses to them; a retry
 * keeps the rejected documents; a corpus slice's end is said; a rewind reads the same again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_body.h"
#include "bf_bulkresp.h"
#include "bf_mem.h"
#include "bf_scenario.h"
#include "bf_template.h"

#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static const char *TEMPLATE_DOC =
    "{action: index, id: 'd-$[[s]]', source: '{\"n\": $[[s]], \"k\": \"$[[k]]\", \"t\": \"x\"}'}";

typedef struct fixture {
    char dir[1024], path[1200];
    bf_scenario_t *sc;
    bf_tmpl_t *t;
    const bf_cell_t *cell;
} fixture;

/* A scenario of `doc` (a corpus `text` written beside it when not NULL) and its template. */
static void load(fixture *f, const char *doc, const char *matrix, const char *text)
{
    snprintf(f->dir, sizeof f->dir, "%s/bf-test-body.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/c.json", f->dir);
    if (text) {
        FILE *fh = fopen(f->path, "w");
        fputs(text, fh);
        fclose(fh);
    }
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "name: t\ntarget: {hosts: [\"http://127.0.0.1:9\"]}\n"
             "variables: [{name: s, type: sequence, from: 10}, "
             "{name: k, type: list, data: [a, bb, 'c\"c']}]\n"
             "document: %s\nmatrix: %s\n",
             doc, matrix);
    bf_diag_t d = {0};
    bf_load_opts_t o = {.base_dir = f->dir};
    f->sc = NULL;
    if (bf_scenario_load_text(yaml, strlen(yaml), "t.yaml", &o, &f->sc, &d) != BF_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(bf_tmpl_compile(f->sc, &f->t, &d), BF_OK);
    f->cell = bf_scenario_cell(f->sc, 0);
}

static void unload(fixture *f)
{
    bf_tmpl_destroy(&f->t);
    bf_scenario_destroy(&f->sc);
    remove(f->path);
    rmdir(f->dir);
}

/* A worker thread's share of what bodies need. */
typedef struct env {
    bf_body_env_t e;
    bf_gen_t *gen;
    bf_corpus_cursor_t cursor;
    bf_buf_t scratch;
    struct libdeflate_compressor *gzc;
    unsigned turns;
} env;

static uint64_t count_turn(void *ctx)
{
    ((env *)ctx)->turns++;
    return 0;
}

static void env_init(env *v, const fixture *f, int gzip, int shared_render, uint32_t slice_docs)
{
    memset(v, 0, sizeof *v);
    v->gen = bf_gen_new(f->t, &(bf_partition_t){0, 1, 1});
    bf_buf_init(&v->scratch, BF_MAX_BODY_BYTES);
    v->gzc = gzip ? libdeflate_alloc_compressor(1) : NULL;
    const bf_corpus_t *c = bf_scenario_corpus(f->sc);
    v->cursor = (bf_corpus_cursor_t){.from = 0, .to = c ? bf_corpus_docs(c) : 0, .passes = 0};
    v->e = (bf_body_env_t){.cell = f->cell,
                           .tmpl = f->t,
                           .gen = v->gen,
                           .corpus = c,
                           .cursor = &v->cursor,
                           .shared_render = shared_render,
                           .slice_docs = slice_docs,
                           .scratch = &v->scratch,
                           .gzc = v->gzc,
                           .turn = count_turn,
                           .turn_ctx = v};
}

static void env_cleanup(env *v)
{
    bf_gen_destroy(&v->gen);
    bf_buf_cleanup(&v->scratch);
    if (v->gzc)
        libdeflate_free_compressor(v->gzc);
}

/* Reads the whole body in `step`-byte pieces into out (replacing it). */
static void read_all(bf_body_t *b, size_t step, bf_buf_t *out)
{
    char piece[4096];
    assert_true(step <= sizeof piece);
    bf_buf_reset(out);
    bf_body_start(b);
    size_t k;
    while ((k = bf_body_read(b, piece, step)) > 0) {
        assert_int_not_equal(k, BF_BODY_ABORT);
        bf_buf_append(out, piece, k);
    }
}

/* gunzip of one gzip member (zlib, not the compressor that made it). */
static void gunzip(const bf_buf_t *in, bf_buf_t *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
    bf_buf_reset(out);
    assert_int_equal(bf_buf_reserve(out, 8u << 20), BF_OK);
    z.next_in = (Bytef *)in->data;
    z.avail_in = (uInt)in->len;
    z.next_out = (Bytef *)out->data;
    z.avail_out = (uInt)(out->cap - 1);
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    out->len = z.total_out;
    inflateEnd(&z);
}

/* The reference: n documents rendered whole by the template from generator g. */
static void render_whole(const fixture *f, bf_gen_t *g, uint32_t n, bf_buf_t *out)
{
    bf_buf_reset(out);
    assert_int_equal(bf_tmpl_render_bulk(f->t, g, f->cell, n, out), BF_OK);
}

static void test_kind_for(void **state)
{
    (void)state;
    static const struct {
        int routed, one_buffer, corpus, contiguous, gzip;
        uint32_t retry_max;
        size_t room;
        uint32_t batch;
        enum bf_body_kind want;
    } rows[] = {
        {.routed = 1, .corpus = 1, .room = 100, .batch = 10, .want = BF_BODY_ROUTED},
        {.routed = 1, .room = 100, .batch = 10, .want = BF_BODY_ROUTED},
        {.corpus = 1, .batch = 10, .want = BF_BODY_GATHERED},
        {.corpus = 1, .gzip = 1, .contiguous = 1, .batch = 10, .want = BF_BODY_GATHERED},
        {.corpus = 1, .gzip = 1, .batch = 10, .want = BF_BODY_RENDERED},
        {.room = 100, .batch = 10, .want = BF_BODY_STREAMED},
        {.room = 100, .batch = 10, .gzip = 1, .want = BF_BODY_RENDERED},
        {.room = 100, .batch = 10, .retry_max = 3, .want = BF_BODY_RENDERED},
        {.room = 0, .batch = 10, .want = BF_BODY_RENDERED}, /* a template streaming refuses */
        /* a batch of worst-case documents over the body's cap */
        {.room = BF_MAX_BODY_BYTES / 10 + 1, .batch = 10, .want = BF_BODY_RENDERED},
        {.room = BF_MAX_BODY_BYTES / 10, .batch = 10, .want = BF_BODY_STREAMED},
        /* a signed body is one buffer: never gathered or streamed; routing is refused apart */
        {.one_buffer = 1, .corpus = 1, .batch = 10, .want = BF_BODY_RENDERED},
        {.one_buffer = 1,
         .corpus = 1,
         .contiguous = 1,
         .gzip = 1,
         .batch = 10,
         .want = BF_BODY_RENDERED},
        {.one_buffer = 1, .room = 100, .batch = 10, .want = BF_BODY_RENDERED},
        {.one_buffer = 1, .routed = 1, .batch = 10, .want = BF_BODY_ROUTED},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        enum bf_body_kind k =
            bf_body_kind_for(rows[i].routed, rows[i].one_buffer, rows[i].corpus, rows[i].contiguous,
                             rows[i].gzip, rows[i].retry_max, rows[i].room, rows[i].batch);
        if (k != rows[i].want)
            fail_msg("row %zu: %s, want %s", i, bf_body_kind_name(k),
                     bf_body_kind_name(rows[i].want));
    }
    assert_string_equal(bf_body_kind_name(BF_BODY_STREAMED), "streamed");
}

/* Rendered and streamed template bodies, each read in several step sizes over consecutive
 * requests, are the documents the template renders whole from a generator of the same
 * partition; a rendered body is built a slice at a time with a turn in between. */
static void test_template_kinds(void **state)
{
    (void)state;
    fixture f;
    load(&f, TEMPLATE_DOC, "{batch_size: 37}", NULL);
    bf_gen_t *ref = bf_gen_new(f.t, &(bf_partition_t){0, 1, 1});
    env vr, vs;
    env_init(&vr, &f, 0, 0, 5);
    env_init(&vs, &f, 0, 0, 5);
    bf_body_t r, s;
    bf_body_init(&r, BF_BODY_RENDERED, 0, &vr.e);
    bf_body_init(&s, BF_BODY_STREAMED, 0, &vs.e);
    bf_buf_t want, got;
    bf_buf_init(&want, 0);
    bf_buf_init(&got, 0);
    static const size_t steps[] = {1, 7, 100, 4096};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        render_whole(&f, ref, 37, &want);
        uint32_t n = 0;
        assert_int_equal(bf_body_build(&r, 37, &n), BF_OK);
        assert_int_equal(n, 37);
        assert_int_equal(r.payload_len, want.len);
        assert_int_equal(bf_body_wire_len(&r), want.len);
        assert_false(bf_body_chunked(&r));
        read_all(&r, steps[i], &got);
        assert_int_equal(got.len, want.len);
        assert_memory_equal(got.data, want.data, want.len);
        size_t whole_len = 0;
        const char *whole = bf_body_whole(&r, &whole_len);
        assert_non_null(whole);
        assert_int_equal(whole_len, want.len);
        assert_memory_equal(whole, want.data, want.len);
        assert_null(bf_body_whole(&s, &whole_len));

        assert_int_equal(bf_body_build(&s, 37, &n), BF_OK);
        assert_int_equal(n, 37);
        assert_true(bf_body_chunked(&s));
        assert_false(bf_body_stream_ended(&s));
        read_all(&s, steps[i] < 600 ? 600 : steps[i], &got); /* room for a whole document */
        assert_true(bf_body_stream_ended(&s));
        assert_int_equal(bf_body_wire_len(&s), want.len);
        assert_int_equal(got.len, want.len);
        assert_memory_equal(got.data, want.data, want.len);
        assert_true(s.frame_bytes > 5); /* the chunks' framing is counted apart */
    }
    assert_true(vr.turns >= 4 * 7); /* 37 documents in slices of 5: 7 turns a body */
    /* a streamed body spilled half way is the same bytes, read from its carry */
    render_whole(&f, ref, 37, &want);
    uint32_t n = 0;
    assert_int_equal(bf_body_build(&s, 37, &n), BF_OK);
    bf_body_start(&s);
    char head[700];
    size_t k = bf_body_read(&s, head, sizeof head);
    assert_true(k > 0 && k < want.len);
    assert_int_equal(bf_body_spill(&s), BF_OK);
    assert_true(bf_body_stream_ended(&s));
    bf_buf_reset(&got);
    bf_buf_append(&got, head, k);
    char rest[4096];
    while ((k = bf_body_read(&s, rest, sizeof rest)) > 0)
        bf_buf_append(&got, rest, k);
    assert_int_equal(got.len, want.len);
    assert_memory_equal(got.data, want.data, want.len);
    /* a server that refuses chunked bodies: the same body source goes on rendered */
    bf_body_set_kind(&s, BF_BODY_RENDERED, 0);
    render_whole(&f, ref, 37, &want);
    assert_int_equal(bf_body_build(&s, 37, &n), BF_OK);
    assert_false(bf_body_chunked(&s));
    assert_int_equal(bf_body_wire_len(&s), want.len);
    read_all(&s, 100, &got);
    assert_int_equal(got.len, want.len);
    assert_memory_equal(got.data, want.data, want.len);
    bf_body_cleanup(&r);
    bf_body_cleanup(&s);
    env_cleanup(&vr);
    env_cleanup(&vs);
    bf_gen_destroy(&ref);
    bf_buf_cleanup(&want);
    bf_buf_cleanup(&got);
    unload(&f);
}

/* gzip around a rendered body (the NDJSON in the connection's buffer, or in the thread's
 * scratch when there are no retries) decompresses to the rendered documents; a retry keeps
 * the rejected ones, compressed again; a rewind reads the same bytes again. */
static void test_gzip_and_retry(void **state)
{
    (void)state;
    fixture f;
    load(&f, TEMPLATE_DOC, "{batch_size: 20, compression: gzip}", NULL);
    for (int shared = 0; shared <= 1; shared++) {
        bf_gen_t *ref = bf_gen_new(f.t, &(bf_partition_t){0, 1, 1});
        env v;
        env_init(&v, &f, 1, shared, 8);
        bf_body_t b;
        bf_body_init(&b, BF_BODY_RENDERED, 1, &v.e);
        bf_buf_t want, wire, plain;
        bf_buf_init(&want, 0);
        bf_buf_init(&wire, 0);
        bf_buf_init(&plain, 0);
        render_whole(&f, ref, 20, &want);
        uint32_t n = 0;
        assert_int_equal(bf_body_build(&b, 20, &n), BF_OK);
        assert_int_equal(b.payload_len, want.len);
        read_all(&b, 13, &wire);
        assert_int_equal(bf_body_wire_len(&b), wire.len);
        assert_true(wire.len < want.len);
        gunzip(&wire, &plain);
        assert_int_equal(plain.len, want.len);
        assert_memory_equal(plain.data, want.data, want.len);
        size_t whole_len = 0; /* what a signature covers: the compressed bytes */
        const char *whole = bf_body_whole(&b, &whole_len);
        assert_non_null(whole);
        assert_int_equal(whole_len, wire.len);
        assert_memory_equal(whole, wire.data, wire.len);
        /* a rewind before the send goes on: the same bytes */
        bf_body_rewind(&b);
        bf_buf_t again;
        bf_buf_init(&again, 0);
        char piece[64];
        size_t k;
        while ((k = bf_body_read(&b, piece, sizeof piece)) > 0)
            bf_buf_append(&again, piece, k);
        assert_int_equal(again.len, wire.len);
        assert_memory_equal(again.data, wire.data, wire.len);
        bf_buf_cleanup(&again);
        if (!shared) {
            /* documents 1, 4 and 19 rejected: the retry is their two lines each */
            uint8_t cls[20] = {0};
            cls[1] = cls[4] = cls[19] = BF_ITEM_REJECTED;
            assert_int_equal(bf_body_keep_rejected(&b, cls, 20, NULL), 3);
            assert_int_equal(bf_body_ready(&b), BF_OK);
            read_all(&b, 4096, &wire);
            gunzip(&wire, &plain);
            bf_buf_t kept;
            bf_buf_init(&kept, 0);
            const char *p = want.data;
            for (int i = 0; i < 20; i++) {
                const char *e = strchr(strchr(p, '\n') + 1, '\n') + 1;
                if (cls[i])
                    bf_buf_append(&kept, p, (size_t)(e - p));
                p = e;
            }
            assert_int_equal(plain.len, kept.len);
            assert_memory_equal(plain.data, kept.data, kept.len);
            assert_int_equal(b.payload_len, kept.len);
            bf_buf_cleanup(&kept);
        }
        bf_body_cleanup(&b);
        env_cleanup(&v);
        bf_gen_destroy(&ref);
        bf_buf_cleanup(&want);
        bf_buf_cleanup(&wire);
        bf_buf_cleanup(&plain);
    }
    unload(&f);
}

/* Corpus bodies: gathered (pieces of the corpus) and rendered with gzip are the documents the
 * corpus renders into a buffer; a slice read `passes` times ends with fewer documents, says so,
 * and then gives none. A gathered retry is flattened first. */
static void test_corpus_kinds(void **state)
{
    (void)state;
    bf_buf_t text;
    bf_buf_init(&text, 0);
    for (int i = 0; i < 25; i++)
        bf_buf_appendf(&text, "{\"n\":%d,\"s\":\"line %d\"}\n", i, i);
    fixture f;
    load(&f, "{action: create, corpus: {path: c.json, passes: 1}}", "{batch_size: 10}", text.data);
    const bf_corpus_t *c = bf_scenario_corpus(f.sc);
    assert_non_null(c);
    for (int gzip = 0; gzip <= 1; gzip++) {
        env v, ref;
        env_init(&v, &f, gzip, 0, 3);
        env_init(&ref, &f, 0, 0, 3);
        v.cursor.passes = ref.cursor.passes = 1;
        bf_body_t b;
        bf_body_init(&b, gzip ? BF_BODY_RENDERED : BF_BODY_GATHERED, gzip, &v.e);
        bf_buf_t want, wire, plain;
        bf_buf_init(&want, 0);
        bf_buf_init(&wire, 0);
        bf_buf_init(&plain, 0);
        static const uint32_t counts[] = {10, 10, 5, 0};
        for (int r = 0; r < 4; r++) {
            uint32_t n = 99, m = 0;
            bf_buf_reset(&want);
            assert_int_equal(
                bf_tmpl_render_corpus(f.t, ref.gen, f.cell, c, &ref.cursor, 10, 1, &want, &m),
                BF_OK);
            assert_int_equal(bf_body_build(&b, 10, &n), BF_OK);
            assert_int_equal(n, counts[r]);
            assert_int_equal(m, counts[r]);
            assert_int_equal(v.e.corpus_end, r >= 2);
            if (n == 0)
                break;
            read_all(&b, 9, &wire);
            if (gzip)
                gunzip(&wire, &plain);
            const bf_buf_t *got = gzip ? &plain : &wire;
            assert_int_equal(got->len, want.len);
            assert_memory_equal(got->data, want.data, want.len);
            assert_int_equal(b.payload_len, want.len);
        }
        bf_body_cleanup(&b);
        env_cleanup(&v);
        env_cleanup(&ref);
        bf_buf_cleanup(&want);
        bf_buf_cleanup(&wire);
        bf_buf_cleanup(&plain);
    }
    /* a gathered body's retry: flattened, then the rejected documents */
    env v;
    env_init(&v, &f, 0, 0, 3);
    bf_body_t b;
    bf_body_init(&b, BF_BODY_GATHERED, 0, &v.e);
    uint32_t n = 0;
    assert_int_equal(bf_body_build(&b, 10, &n), BF_OK);
    assert_true(b.gathered);
    size_t whole_len = 0;
    assert_null(bf_body_whole(&b, &whole_len)); /* pieces of the corpus */
    uint8_t cls[10] = {0};
    cls[9] = BF_ITEM_REJECTED;
    uint32_t gshard[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    assert_int_equal(bf_body_keep_rejected(&b, cls, 10, gshard), 1);
    assert_false(b.gathered);
    assert_int_equal(gshard[0], 9);
    bf_buf_t got;
    bf_buf_init(&got, 0);
    read_all(&b, 5, &got);
    if (strstr(got.data, "{\"n\":9,") == NULL || strstr(got.data, "{\"n\":8,") != NULL ||
        strchr(got.data, '\n') == NULL ||
        strchr(strchr(got.data, '\n') + 1, '\n') + 1 != got.data + got.len)
        fail_msg("the retry is not document 9 alone: %s", got.data);
    bf_buf_cleanup(&got);
    bf_body_cleanup(&b);
    env_cleanup(&v);
    unload(&f);
    bf_buf_cleanup(&text);
}

/* Routed: the bulk is rendered into the thread's scratch; a part handed to a body is read as it
 * is (or compressed), and the body's old buffer goes back to the part, empty. */
static void test_routed(void **state)
{
    (void)state;
    fixture f;
    load(&f, TEMPLATE_DOC, "{batch_size: 12}", NULL);
    for (int gzip = 0; gzip <= 1; gzip++) {
        bf_gen_t *ref = bf_gen_new(f.t, &(bf_partition_t){0, 1, 1});
        env v;
        env_init(&v, &f, gzip, 0, 4);
        bf_body_t first, part_body;
        bf_body_init(&first, BF_BODY_ROUTED, gzip, &v.e);
        bf_body_init(&part_body, BF_BODY_ROUTED, gzip, &v.e);
        bf_buf_t want, wire, plain, part;
        bf_buf_init(&want, 0);
        bf_buf_init(&wire, 0);
        bf_buf_init(&plain, 0);
        bf_buf_init(&part, 0);
        render_whole(&f, ref, 12, &want);
        uint32_t n = 0;
        assert_int_equal(bf_body_build(&first, 12, &n), BF_OK);
        assert_int_equal(n, 12);
        assert_int_equal(v.scratch.len, want.len); /* rendered for the split */
        assert_memory_equal(v.scratch.data, want.data, want.len);
        /* a part: the first 4 documents (the split's work, here by hand) */
        const char *p = want.data;
        for (int i = 0; i < 8; i++)
            p = strchr(p, '\n') + 1;
        bf_buf_append(&part, want.data, (size_t)(p - want.data));
        size_t part_len = part.len;
        assert_int_equal(bf_body_take_part(&part_body, &part), BF_OK);
        assert_int_equal(part.len, 0);
        assert_int_equal(part_body.payload_len, part_len);
        read_all(&part_body, 11, &wire);
        if (gzip)
            gunzip(&wire, &plain);
        const bf_buf_t *got = gzip ? &plain : &wire;
        assert_int_equal(got->len, part_len);
        assert_memory_equal(got->data, want.data, part_len);
        bf_body_cleanup(&first);
        bf_body_cleanup(&part_body);
        env_cleanup(&v);
        bf_buf_cleanup(&want);
        bf_buf_cleanup(&wire);
        bf_buf_cleanup(&plain);
        bf_buf_cleanup(&part);
        bf_gen_destroy(&ref);
    }
    unload(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_for),       cmocka_unit_test(test_template_kinds),
        cmocka_unit_test(test_gzip_and_retry), cmocka_unit_test(test_corpus_kinds),
        cmocka_unit_test(test_routed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
