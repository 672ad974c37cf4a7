/* SPDX-License-Identifier: MIT */
/* test_file.c — bf_file_read: a whole file, an empty one, the cap, a missing file, a directory,
 * a FIFO nobody writes (refused at once, not waited on). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_error.h"
#include "bf_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static void write_file(const char *name, const char *text, size_t len)
{
    char p[512];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void test_whole_file(void **state)
{
    (void)state;
    write_file("a.txt", "one\ntwo\0three", 13);
    char p[512], *data = NULL;
    size_t len = 0;
    int err_no = 0;
    path_of(p, sizeof p, "a.txt");
    assert_int_equal(bf_file_read(p, 13, &data, &len, &err_no), BF_OK);
    assert_int_equal(len, 13);
    assert_memory_equal(data, "one\ntwo\0three", 13);
    assert_int_equal(data[13], '\0');
    free(data);
}

static void test_empty_file(void **state)
{
    (void)state;
    write_file("empty", "", 0);
    char p[512], *data = NULL;
    size_t len = 99;
    int err_no = 0;
    path_of(p, sizeof p, "empty");
    assert_int_equal(bf_file_read(p, 0, &data, &len, &err_no), BF_OK);
    assert_int_equal(len, 0);
    assert_non_null(data);
    assert_int_equal(data[0], '\0');
    free(data);
}

static void test_over_cap(void **state)
{
    (void)state;
    write_file("big", "0123456789", 10);
    char p[512], *data = (char *)"untouched";
    size_t len = 7;
    int err_no = 0;
    path_of(p, sizeof p, "big");
    assert_int_equal(bf_file_read(p, 9, &data, &len, &err_no), BF_E_TOOBIG);
    assert_string_equal(data, "untouched");
    assert_int_equal(len, 7);
}

static void test_missing_and_directory(void **state)
{
    (void)state;
    char p[512], *data = NULL;
    size_t len = 0;
    int err_no = 0;
    path_of(p, sizeof p, "no-such-file");
    assert_int_equal(bf_file_read(p, 100, &data, &len, &err_no), BF_E_NOTFOUND);
    assert_int_equal(err_no, ENOENT);
    assert_null(data);
    err_no = 0;
    assert_int_equal(bf_file_read(dir, 100, &data, &len, &err_no), BF_E_IO);
    assert_int_equal(err_no, EISDIR);
    assert_null(data);
}

static void test_fifo(void **state)
{
    (void)state;
    char p[512], *data = NULL;
    size_t len = 0;
    int err_no = 0;
    path_of(p, sizeof p, "fifo");
    assert_int_equal(mkfifo(p, 0600), 0);
    /* before, open() waited for a writer that never comes (the test would hang to its timeout),
     * and err_no was whatever errno held */
    assert_int_equal(bf_file_read(p, 100, &data, &len, &err_no), BF_E_IO);
    assert_int_equal(err_no, EINVAL);
    assert_null(data);
}

static int setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/bf-file.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    const char *names[] = {"a.txt", "empty", "big", "fifo"};
    char p[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        path_of(p, sizeof p, names[i]);
        unlink(p);
    }
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_file), cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_over_cap),   cmocka_unit_test(test_missing_and_directory),
        cmocka_unit_test(test_fifo),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
