/* SPDX-License-Identifier: MIT */
/* bf_log.h — leveled logging to stderr, one line per call, thread-safe.
 *
 * The one channel for messages to the user: errors (what, where, what to do), warnings and
 * progress notes all leave through bf_log. Results go to stdout; usage texts and the live
 * progress line (\r-rewritten) are written directly, as is the out-of-memory abort of bf_mem
 * and a forked child's exec failure (where the log's lock cannot be used). The setters are
 * called once from main before any thread starts.
 *
 * Never log secrets: callers pass values through the scenario's redaction, not raw.
 */
#ifndef BF_LOG_H
#define BF_LOG_H

#include <stddef.h>

enum bf_log_level { BF_LOG_DEBUG = 0, BF_LOG_INFO = 1, BF_LOG_WARN = 2, BF_LOG_ERROR = 3 };

/* bf_log_set_level — messages below level are dropped. Default BF_LOG_INFO. */
void bf_log_set_level(enum bf_log_level level);
/* bf_log_set_prefix — program name printed before each line (borrowed, must outlive logging),
 * e.g. "bulkfleet-coordinator validate". Default "bulkfleet". */
void bf_log_set_prefix(const char *prefix);
/* bf_log_set_timestamps — 1 (default): each line starts with the UTC time, for the long-running
 * modes (campaign, agent); 0: "prefix: level: message" only, for one-shot commands whose
 * messages a user reads at once (validate, plan, report, ...). */
void bf_log_set_timestamps(int on);
/* bf_log — one line "[time ]prefix: level: message" on stderr, the message with
 * bf_log_escape applied (a message never breaks the line nor carries a terminal escape). */
void bf_log(enum bf_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* bf_log_escape — in (NUL-terminated) into out (size bytes, always terminated when size > 0;
 * cut at a whole character when it does not fit) with every byte a terminal could act on
 * written as text: newline, return and tab as \n \r \t, other C0 controls, DEL, C1 controls
 * (U+0080..U+009F) and bytes that are not valid UTF-8 (RFC 3629) as \xNN; printable ASCII and
 * valid UTF-8 kept. Returns the length written. Pure; thread-safe. */
size_t bf_log_escape(char *out, size_t size, const char *in);

#define bf_debug(...) bf_log(BF_LOG_DEBUG, __VA_ARGS__)
#define bf_info(...) bf_log(BF_LOG_INFO, __VA_ARGS__)
#define bf_warn(...) bf_log(BF_LOG_WARN, __VA_ARGS__)
#define bf_error(...) bf_log(BF_LOG_ERROR, __VA_ARGS__)

#endif
