/* SPDX-License-Identifier: MIT */
/* bf_clock.h — monotonic and wall clocks in microseconds, and process CPU time.
 * All functions are thread-safe. */
#ifndef BF_CLOCK_H
#define BF_CLOCK_H

#include <stdint.h>

/* bf_clock_mono_us — CLOCK_MONOTONIC in microseconds (arbitrary origin, never jumps). */
uint64_t bf_clock_mono_us(void);
/* bf_clock_wall_us — CLOCK_REALTIME in microseconds since the Unix epoch. */
uint64_t bf_clock_wall_us(void);
/* bf_clock_cpu_ms — this process's CPU time so far (getrusage), user and system, in ms. */
void bf_clock_cpu_ms(uint64_t *user_ms, uint64_t *sys_ms);
/* bf_clock_sleep_us — sleep at least us microseconds (restarts after signals only if
 * the process is not being stopped: returns early on EINTR). */
void bf_clock_sleep_us(uint64_t us);
/* bf_clock_utc_stamp — "YYYYMMDDTHHMMSSZ" of now into buf (>= 17 bytes). */
void bf_clock_utc_stamp(char *buf, unsigned long buf_size);

#endif
