/* SPDX-License-Identifier: MIT */
/* test_atomic.c — bf_atomic_write: the file is complete or untouched, the error names it.
 * (A full file system mid-campaign is tested with a real tmpfs by integration_diskfull.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_atomic.h"
#include "bf_mem.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    char *buf = bf_calloc(1, 4096);
    size_t n = fread(buf, 1, 4095, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static size_t entries(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void test_replaces_whole_file(void **state)
{
    (void)state;
    char dir[1024]; /* under TMPDIR: the build folder under ctest */
    snprintf(dir, sizeof dir, "%s/bf-atomic.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    char *path = bf_asprintf("%s/matrix.csv", dir);
    bf_diag_t d = {0};
    assert_int_equal(bf_atomic_write(path, "old\n", 4, &d), 0);
    assert_int_equal(bf_atomic_write(path, "new,longer\n", 11, &d), 0);
    char *got = slurp(path);
    assert_string_equal(got, "new,longer\n");
    assert_int_equal(entries(dir), 1); /* no temporary file left */
    free(got);
    unlink(path);
    rmdir(dir);
    free(path);
}

static void test_failure_names_the_file_and_keeps_nothing(void **state)
{
    (void)state;
    bf_diag_t d = {0};
    assert_int_equal(bf_atomic_write("/nonexistent-bf-dir/cells/x.ndjson", "x", 1, &d), BF_E_IO);
    assert_non_null(strstr(d.msg, "/nonexistent-bf-dir/cells/x.ndjson"));
    assert_non_null(strstr(d.msg, "No such file or directory"));
    /* NULL diag is allowed */
    assert_int_equal(bf_atomic_write("/nonexistent-bf-dir/y", "y", 1, NULL), BF_E_IO);
}

/* the streaming writer (cell files): pieces land in order, abort leaves the old file alone */
static void test_streamed_pieces_and_abort(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/bf-atomic.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    char *path = bf_asprintf("%s/cell.ndjson", dir);
    bf_diag_t d = {0};
    bf_atomic_file_t f;
    assert_int_equal(bf_atomic_open(&f, path, &d), 0);
    assert_int_equal(bf_atomic_append(&f, "a\n", 2), 0);
    assert_int_equal(bf_atomic_append(&f, "", 0), 0);
    assert_int_equal(bf_atomic_append(&f, "bc\n", 3), 0);
    assert_null(slurp(path)); /* nothing at the target before commit */
    assert_int_equal(bf_atomic_commit(&f, &d), 0);
    char *got = slurp(path);
    assert_string_equal(got, "a\nbc\n");
    free(got);
    assert_int_equal(bf_atomic_open(&f, path, &d), 0);
    assert_int_equal(bf_atomic_append(&f, "partial", 7), 0);
    bf_atomic_abort(&f);
    got = slurp(path);
    assert_string_equal(got, "a\nbc\n"); /* untouched */
    free(got);
    assert_int_equal(entries(dir), 1); /* no temporary file left */
    assert_int_equal(bf_atomic_open(&f, "/nonexistent-bf-dir/z", &d), BF_E_IO);
    assert_non_null(strstr(d.msg, "/nonexistent-bf-dir/z"));
    unlink(path);
    rmdir(dir);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replaces_whole_file),
        cmocka_unit_test(test_failure_names_the_file_and_keeps_nothing),
        cmocka_unit_test(test_streamed_pieces_and_abort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
