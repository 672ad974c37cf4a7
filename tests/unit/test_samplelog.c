/* SPDX-License-Identifier: MIT */
/* test_samplelog.c — the samples' writer thread: lines on disk in order before their seq is
 * durable, a full queue refuses (and takes again once drained), a failed write is named and
 * nothing after it counts as durable. (A slow disk under a whole campaign:
 * integration_slowdisk_ack.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_error.h"
#include "bf_mem.h"
#include "bf_samplelog.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* wait (at most 10 s) until nothing is pending */
static void drained(bf_samplelog_t *w)
{
    for (int i = 0; i < 1000 && bf_samplelog_pending(w, NULL) > 0; i++)
        sleep_ms(10);
    assert_int_equal(bf_samplelog_pending(w, NULL), 0);
}

static void test_lines_in_order_then_durable(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    char *p = bf_asprintf("%s/bf-samplelog-XXXXXX", tmp ? tmp : "/tmp");
    int fd = mkstemp(p);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    bf_samplelog_t *w = bf_samplelog_new(f, 2, 0);
    assert_non_null(w);
    assert_int_equal(bf_samplelog_durable(w, 0), 0);
    for (uint64_t seq = 1; seq <= 50; seq++) {
        assert_int_equal(
            bf_samplelog_push(w, 0, seq, bf_asprintf("a%llu", (unsigned long long)seq)), BF_OK);
        if (seq <= 20)
            assert_int_equal(
                bf_samplelog_push(w, 1, seq, bf_asprintf("b%llu", (unsigned long long)seq)), BF_OK);
    }
    assert_int_equal(bf_samplelog_push(w, 2, 1, bf_strdup("no such slot")), BF_E_RANGE);
    drained(w);
    assert_int_equal(bf_samplelog_durable(w, 0), 50);
    assert_int_equal(bf_samplelog_durable(w, 1), 20);
    assert_int_equal(bf_samplelog_durable(w, 2), 0);
    assert_int_equal(bf_samplelog_error(w, NULL, 0), BF_OK);
    assert_int_equal(bf_samplelog_close(&w), BF_OK);
    assert_null(w);
    fclose(f);
    /* every line once, each slot's in order */
    FILE *r = fopen(p, "r");
    char line[64];
    uint64_t next_a = 1, next_b = 1;
    while (fgets(line, sizeof line, r)) {
        unsigned long long v = strtoull(line + 1, NULL, 10);
        if (line[0] == 'a')
            assert_int_equal(v, next_a++);
        else
            assert_int_equal(v, next_b++);
    }
    fclose(r);
    assert_int_equal(next_a, 51);
    assert_int_equal(next_b, 21);
    unlink(p);
    free(p);
}

/* the writer stuck in a write (a pipe nobody reads: the slow disk), the queue fills to its
 * bound and refuses; once the disk moves on, everything queued becomes durable and a refused
 * sample is taken again */
static void test_full_queue_refuses_then_takes(void **state)
{
    (void)state;
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    FILE *f = fdopen(pfd[1], "w");
    bf_samplelog_t *w = bf_samplelog_new(f, 1, 4096);
    /* 256 KiB: more than the pipe holds, so the writer blocks in it */
    size_t big = 256 * 1024;
    char *line = bf_malloc(big + 1);
    memset(line, 'x', big);
    line[big] = '\0';
    assert_int_equal(bf_samplelog_push(w, 0, 1, line), BF_OK); /* one line fits an empty queue */
    sleep_ms(100);
    assert_int_equal(bf_samplelog_push(w, 0, 2, bf_strdup("two")), BF_E_TOOBIG);
    assert_int_equal(bf_samplelog_durable(w, 0), 0);
    size_t bytes = 0;
    assert_int_equal(bf_samplelog_pending(w, &bytes), 1);
    assert_int_equal(bytes, big + 1);
    /* the disk moves on */
    char *buf = bf_malloc(65536);
    size_t got = 0;
    while (got < big + 1) {
        ssize_t n = read(pfd[0], buf, 65536);
        assert_true(n > 0);
        got += (size_t)n;
    }
    drained(w);
    assert_int_equal(bf_samplelog_durable(w, 0), 1); /* fdatasync on a pipe: EINVAL, accepted */
    assert_int_equal(bf_samplelog_push(w, 0, 2, bf_strdup("two")), BF_OK);
    ssize_t n = read(pfd[0], buf, 65536); /* blocks until the writer wrote it */
    assert_int_equal(n, 4);
    assert_memory_equal(buf, "two\n", 4);
    drained(w);
    assert_int_equal(bf_samplelog_durable(w, 0), 2);
    assert_int_equal(bf_samplelog_close(&w), BF_OK);
    fclose(f);
    close(pfd[0]);
    free(buf);
}

/* a write that fails (ENOSPC from /dev/full) is named; nothing is durable; later pushes fail */
static void test_failed_write_named(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (f == NULL)
        skip();
    bf_samplelog_t *w = bf_samplelog_new(f, 1, 0);
    assert_int_equal(bf_samplelog_push(w, 0, 1, bf_strdup("one")), BF_OK);
    drained(w);
    char msg[128];
    assert_int_equal(bf_samplelog_error(w, msg, sizeof msg), BF_E_IO);
    assert_string_equal(msg, "flush: No space left on device");
    assert_int_equal(bf_samplelog_durable(w, 0), 0);
    assert_int_equal(bf_samplelog_push(w, 0, 2, bf_strdup("two")), BF_E_IO);
    assert_int_equal(bf_samplelog_close(&w), BF_E_IO);
    fclose(f);
    assert_null(bf_samplelog_new(NULL, 1, 0));
    bf_samplelog_close(&w); /* NULL-safe */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_in_order_then_durable),
        cmocka_unit_test(test_full_queue_refuses_then_takes),
        cmocka_unit_test(test_failed_write_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
