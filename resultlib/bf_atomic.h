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

#endif
