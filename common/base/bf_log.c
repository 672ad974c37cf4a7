/* SPDX-License-Identifier: MIT */
/* bf_log.c — leveled logging to stderr. */
#include "bf_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static enum bf_log_level min_level = BF_LOG_INFO;
static const char *log_prefix = "bulkfleet";
static int log_timestamps = 1;

void bf_log_set_level(enum bf_log_level level)
{
    min_level = level;
}

void bf_log_set_prefix(const char *prefix)
{
    log_prefix = prefix;
}

void bf_log_set_timestamps(int on)
{
    log_timestamps = on;
}

void bf_log(enum bf_log_level level, const char *fmt, ...)
{
    static const char *names[] = {"debug", "info", "warning", "error"};
    if (level < min_level)
        return;
    char line[2048];
    int n = 0;
    if (log_timestamps) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        struct tm tm;
        gmtime_r(&ts.tv_sec, &tm);
        n = snprintf(line, sizeof line, "%02d:%02d:%02d.%03ld ", tm.tm_hour, tm.tm_min, tm.tm_sec,
                     ts.tv_nsec / 1000000);
    }
    n += snprintf(line + n, sizeof line - (size_t)n, "%s: %s: ", log_prefix, names[level]);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line)
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* one fputs per line keeps lines from different threads whole (stdio locks the stream) */
    flockfile(stderr);
    fputs(line, stderr);
    fputc('\n', stderr);
    funlockfile(stderr);
}
