/* SPDX-License-Identifier: MIT */
/* bf_log.c — leveled logging to stderr. */
#include "bf_log.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
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

/* the length of the valid UTF-8 sequence at p (at most n bytes), 0 when it is not one:
 * overlong forms, surrogates and code points above U+10FFFF are not (RFC 3629 §4) */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t len = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : 2;
    if (p[0] < 0xC2 || p[0] > 0xF4 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] > 0x9F) ||
        (p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] > 0x8F))
        return 0;
    if (p[0] == 0xC2 && p[1] < 0xA0) /* C1 controls, U+0080..U+009F */
        return 0;
    return len;
}

size_t bf_log_escape(char *out, size_t size, const char *in)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)in;
    size_t n = strlen(in), o = 0;
    if (size == 0)
        return 0;
    for (size_t i = 0; i < n;) {
        char esc[5];
        size_t elen, keep = 0;
        if (p[i] >= 0x20 && p[i] < 0x7F) {
            keep = 1;
        } else if (p[i] >= 0x80) {
            keep = utf8_len(p + i, n - i);
        }
        if (keep) {
            if (o + keep >= size)
                break;
            memcpy(out + o, p + i, keep);
            o += keep;
            i += keep;
            continue;
        }
        esc[0] = '\\';
        if (p[i] == '\n' || p[i] == '\r' || p[i] == '\t') {
            esc[1] = p[i] == '\n' ? 'n' : p[i] == '\r' ? 'r' : 't';
            elen = 2;
        } else {
            esc[1] = 'x';
            esc[2] = hex[p[i] >> 4];
            esc[3] = hex[p[i] & 15];
            elen = 4;
        }
        if (o + elen >= size)
            break;
        memcpy(out + o, esc, elen);
        o += elen;
        i++;
    }
    out[o] = '\0';
    return o;
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
    /* what a message carries from outside (a peer's routing id, a cluster's reason, a file's
     * text) may hold terminal escapes or other control bytes: escaped, so the log stays text */
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof line)
        bf_log_escape(line + n, sizeof line - (size_t)n, msg);
    /* one fputs per line keeps lines from different threads whole (stdio locks the stream) */
    flockfile(stderr);
    fputs(line, stderr);
    fputc('\n', stderr);
    funlockfile(stderr);
}
