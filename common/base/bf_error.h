/* SPDX-License-Identifier: MIT */
/* bf_error.h — the one error vocabulary of bulkfleet.
 *
 * Functions return 0 (BF_OK) or a negative bf_err code. User-facing detail (file:line:column,
 * host, cell, what to do) travels in a bf_diag_t filled by the function that found the problem.
 */
#ifndef BF_ERROR_H
#define BF_ERROR_H

#include <stddef.h>

enum bf_err {
    BF_OK = 0,
    BF_E_NOMEM = -1,     /* allocation failed (bf_malloc aborts instead; kept for libraries) */
    BF_E_INVAL = -2,     /* invalid argument or input: see the diag */
    BF_E_IO = -3,        /* file or socket I/O failed: see errno and the diag */
    BF_E_RANGE = -4,     /* value outside its allowed bounds */
    BF_E_PARSE = -5,     /* could not parse input (YAML, JSON, protobuf, units) */
    BF_E_TOOBIG = -6,    /* input larger than its BF_MAX_... cap */
    BF_E_NOTFOUND = -7,  /* file, variable, key or cell not found */
    BF_E_HTTP = -8,      /* an HTTP request got an unexpected status */
    BF_E_TRANSPORT = -9, /* connect refused, reset, or timeout */
    BF_E_PROTO = -10,    /* fleet protocol violation or version mismatch */
    BF_E_TIMEOUT = -11,  /* a deadline passed */
    BF_E_STATE = -12,    /* call not valid in the current state */
    BF_E_INTR = -13,     /* interrupted by a signal (Ctrl-C, SIGTERM) */
};

/* Process exit codes of both programs (docs/internals/measurement.md), the only values main()
 * returns. 130 and 143 follow the shell's 128 + signal number convention (POSIX XCU 2.8.2). */
enum bf_exit {
    BF_EXIT_OK = 0,        /* every cell ok (or the command did what it was asked) */
    BF_EXIT_FAILED = 1,    /* some cells failed, were degraded, unverified or flagged */
    BF_EXIT_INPUT = 2,     /* bad input: usage, scenario file, results directory */
    BF_EXIT_ENV = 3,       /* environment: cluster unreachable, too few agents, I/O, keys */
    BF_EXIT_SIGINT = 130,  /* interrupted by SIGINT (Ctrl-C): 128 + 2 */
    BF_EXIT_SIGTERM = 143, /* terminated by SIGTERM: 128 + 15 */
};

/* bf_exit_of_signal — the exit code for a run stopped by signal `sig`: BF_EXIT_SIGINT,
 * BF_EXIT_SIGTERM, else 128 + sig. Async-signal-safe (a pure function), thread-safe. */
int bf_exit_of_signal(int sig);

/* bf_strerror — a short English text for an error code.
 * Returns a static string, never NULL; thread-safe. */
const char *bf_strerror(int err);

/* Diagnostic: the user-facing message of the first error found.
 * Embedded struct; no cleanup needed. Not thread-safe (one per caller). */
#define BF_DIAG_MAX 1024
typedef struct bf_diag {
    int code;              /* bf_err of the first error, BF_OK if none */
    char msg[BF_DIAG_MAX]; /* "file:line:col: what is wrong; what to do" */
} bf_diag_t;

/* bf_diag_set — record an error (printf-style message) unless one is already recorded.
 * Returns `code` so callers can write `return bf_diag_set(d, BF_E_INVAL, ...)`. d may be NULL. */
int bf_diag_set(bf_diag_t *d, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
