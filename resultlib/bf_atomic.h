/* SPDX-License-Identifier: MIT */
/* bf_atomic.h — the one way a results file is written: complete or not at all.
 *
 * bf_atomic_write puts the data in a temporary file beside the target (same directory, so the
 * rename cannot cross file systems), checks every write, fsyncs it, renames it over the target
 * and fsyncs the directory, so after a crash, a full disk or a read-only remount the target is
 * either the old complete file or the new complete file (POSIX rename(2) atomicity; fsync(2)
 * of the directory makes the rename durable, as in SQLite's and PostgreSQL's durable writes).
 * Used by every writer of the results directory (bf_results, bf_report). Thread-safe (no shared
 * state; two writers of the same path race only on which complete file wins).
 */
#ifndef BF_ATOMIC_H
#define BF_ATOMIC_H

#include "bf_error.h"

#include <stddef.h>

/* bf_atomic_write — write data[0..len) to path atomically (see above). On failure the
 * temporary file is removed, the target is untouched, and diag (may be NULL) says which file
 * and why ("cannot write DIR/matrix.csv: No space left on device"). Returns 0 or BF_E_IO. */
int bf_atomic_write(const char *path, const char *data, size_t len, bf_diag_t *diag);

/* A results file written in pieces, with the same guarantee: for files too large to build in
 * memory first (a cell's per-second series of every agent and every raw sample: agents x
 * seconds lines). bf_atomic_open creates the temporary file; bf_atomic_append writes to it
 * (the first failure is kept and later appends do nothing); bf_atomic_commit fsyncs, renames
 * and fsyncs the directory, or on any earlier failure removes the temporary file and reports
 * it; bf_atomic_abort removes it. Embedded struct, one owner; every opened file must end in
 * commit or abort. */
typedef struct bf_atomic_file {
    char *path;       /* owned */
    char *tmp;        /* owned */
    int fd;           /* -1 once closed */
    int err;          /* errno of the first failure, 0 if none */
    const char *step; /* "create", "write", ... of the first failure */
} bf_atomic_file_t;

/* bf_atomic_open — start writing path. Returns 0 or BF_E_IO (diag says which file and why;
 * nothing to clean up then). */
int bf_atomic_open(bf_atomic_file_t *f, const char *path, bf_diag_t *diag);
/* bf_atomic_append — write data[0..len) at the end. Returns 0 or BF_E_IO (also kept for
 * commit). */
int bf_atomic_append(bf_atomic_file_t *f, const void *data, size_t len);
/* bf_atomic_commit — finish: fsync + rename + directory fsync. Returns 0, or BF_E_IO with diag
 * naming the file and the step that failed (the target is then untouched). Frees f's memory. */
int bf_atomic_commit(bf_atomic_file_t *f, bf_diag_t *diag);
/* bf_atomic_abort — drop the temporary file; the target is untouched. NULL-safe. */
void bf_atomic_abort(bf_atomic_file_t *f);

#endif
