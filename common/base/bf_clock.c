/* SPDX-License-Identifier: MIT */
/* bf_clock.c — clocks. */
#include "bf_clock.h"

#include <sys/resource.h>
#include <time.h>

uint64_t bf_clock_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t bf_clock_wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void bf_clock_cpu_ms(uint64_t *user_ms, uint64_t *sys_ms)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *user_ms = (uint64_t)ru.ru_utime.tv_sec * 1000u + (uint64_t)ru.ru_utime.tv_usec / 1000u;
    *sys_ms = (uint64_t)ru.ru_stime.tv_sec * 1000u + (uint64_t)ru.ru_stime.tv_usec / 1000u;
}

void bf_clock_sleep_us(uint64_t us)
{
    struct timespec ts = {.tv_sec = (time_t)(us / 1000000u),
                          .tv_nsec = (long)(us % 1000000u) * 1000};
    nanosleep(&ts, NULL);
}

void bf_clock_utc_stamp(char *buf, unsigned long buf_size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, buf_size, "%Y%m%dT%H%M%SZ", &tm);
}
