/* SPDX-License-Identifier: MIT */
/* bf_units.h — parse and format durations, sizes and counts ("30s", "512KiB", "10k").
 *
 * After wg/wrk src/units.c. All functions are pure and thread-safe.
 */
#ifndef BF_UNITS_H
#define BF_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* bf_units_parse_duration_ms — "250ms", "30s", "5m", "1h", "1h30m", or a bare number of
 * seconds ("60") into milliseconds. Returns 0, BF_E_PARSE (not a duration) or BF_E_RANGE. */
int bf_units_parse_duration_ms(const char *s, uint64_t *out_ms);

/* bf_units_suggest_duration — for text bf_units_parse_duration_ms refused, the spelling it
 * would take when the mistake is a usual one: spaces ("10 s"), capitals ("10S"), unit words
 * ("10 sec", "5 minutes", "2 hours", "250 millis"). Writes the suggestion (NUL-terminated) to
 * out (out_size bytes) and returns 1, or returns 0 when there is none. */
int bf_units_suggest_duration(const char *s, char *out, size_t out_size);
/* bf_units_parse_size — "512", "10KiB", "10KB", "4MiB", "1GiB", "2k" (binary multiples for
 * KiB/MiB/GiB and k/m/g written after a size; KB/MB/GB are decimal) into bytes.
 * Returns 0, BF_E_PARSE or BF_E_RANGE. */
int bf_units_parse_size(const char *s, uint64_t *out_bytes);
/* bf_units_parse_count — "5000", "10k" (x1000), "2M" (x1e6), "1.5k" into a count.
 * Returns 0, BF_E_PARSE or BF_E_RANGE. */
int bf_units_parse_count(const char *s, uint64_t *out);
/* bf_units_parse_u64 — strict decimal integer (no sign, no spaces). 0, BF_E_PARSE or BF_E_RANGE. */
int bf_units_parse_u64(const char *s, uint64_t *out);
/* bf_units_parse_double — strict finite decimal number. 0 or BF_E_PARSE. */
int bf_units_parse_double(const char *s, double *out);
/* bf_units_format_duration_ms — "1h02m03s" / "4.5s" / "250ms" into buf. Returns buf. */
char *bf_units_format_duration_ms(uint64_t ms, char *buf, size_t buf_size);
/* bf_units_format_bytes — "1.5 MiB" into buf. Returns buf. */
char *bf_units_format_bytes(uint64_t bytes, char *buf, size_t buf_size);

#endif
