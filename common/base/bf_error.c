/* SPDX-License-Identifier: MIT */
/* bf_error.c — error codes to text, and the diagnostic record. */
#include "bf_error.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>

int bf_exit_of_signal(int sig)
{
    if (sig == SIGINT)
        return BF_EXIT_SIGINT;
    if (sig == SIGTERM)
        return BF_EXIT_SIGTERM;
    return 128 + sig;
}

const char *bf_strerror(int err)
{
    switch ((enum bf_err)err) {
    case BF_OK: return "ok";
    case BF_E_NOMEM: return "out of memory";
    case BF_E_INVAL: return "invalid input";
    case BF_E_IO: return "I/O error";
    case BF_E_RANGE: return "value out of range";
    case BF_E_PARSE: return "parse error";
    case BF_E_TOOBIG: return "input too large";
    case BF_E_NOTFOUND: return "not found";
    case BF_E_HTTP: return "unexpected HTTP status";
    case BF_E_TRANSPORT: return "transport error";
    case BF_E_PROTO: return "protocol error";
    case BF_E_TIMEOUT: return "timed out";
    case BF_E_STATE: return "invalid state";
    case BF_E_INTR: return "interrupted";
    }
    return "unknown error";
}

int bf_diag_set(bf_diag_t *d, int code, const char *fmt, ...)
{
    if (d == NULL || d->code != BF_OK)
        return code;
    d->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    return code;
}
