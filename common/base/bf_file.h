/* SPDX-License-Identifier: MIT */
/* bf_file.h — one capped read of a whole regular file, for every module that reads one whole
 * (scenario files, dictionaries, templates). */
#ifndef BF_FILE_H
#define BF_FILE_H

#include <stddef.h>

/* bf_file_read — reads the regular file at `full` (a path, opened O_CLOEXEC) whole, when it is
 * at most `cap` bytes.
 *
 * On BF_OK: *data is the content plus a terminating NUL (malloc'd: the caller frees it) and *len
 * its length in bytes (without the NUL). Otherwise *data and *len are untouched and:
 *   BF_E_NOTFOUND — no such file (*err_no = ENOENT);
 *   BF_E_IO       — cannot open, not a regular file (a directory: *err_no = EISDIR; a FIFO,
 *                   device or socket: EINVAL, at once: a FIFO is never waited on), or a read
 *                   failed or ended early (*err_no = errno, or EIO when the file shrank);
 *   BF_E_TOOBIG   — larger than cap bytes (*err_no untouched): nothing is read.
 * The caller words the message (its key, its limit, what to do). Reentrant: no shared state;
 * out of memory aborts (bf_malloc). */
int bf_file_read(const char *full, size_t cap, char **data, size_t *len, int *err_no);

#endif
