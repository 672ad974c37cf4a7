/* SPDX-License-Identifier: MIT */
/* bf_metrics.h — live metrics of a running campaign: a Prometheus /metrics endpoint
 * (--metrics-listen) and statsd over UDP (--statsd).
 *
 * The campaign loop (bf_cell_protocol.c) feeds every sample it takes (bf_metrics_sample), each
 * liveness loss (bf_metrics_agent_lost) and, once per new complete second and at each cell's
 * start and end, a snapshot of the cell (bf_metrics_publish). The module keeps the campaign
 * counters and the last BF_METRICS_WINDOW_S seconds of latency histograms, formats the
 * snapshot with bf_promtext and hands the text to libmicrohttpd's own thread, which answers
 * GET /metrics with the latest text (404 otherwise). statsd (github.com/statsd/statsd
 * docs/metric_types.md: `name:value|g` gauges, `name:value|c` counters sent as the increase
 * since the last publish) goes out on each publish, one datagram of at most
 * BF_STATSD_MAX_DATAGRAM bytes per batch of lines. Nothing here may slow the campaign: the HTTP
 * thread only copies a string under a mutex, and a statsd send that fails is counted, never
 * retried.
 *
 * Thread-safety: every function is for the campaign's (main) thread; the HTTP thread is
 * internal.
 */
#ifndef BF_METRICS_H
#define BF_METRICS_H

#include "bf_error.h"
#include "bf_promtext.h"
#include "bf_sample.h"

#include <stdint.h>

#define BF_METRICS_WINDOW_S 10         /* latency quantiles over the last 10 seconds */
#define BF_METRICS_MAX_TEXT (1u << 20) /* cap of one exposition text (1 MiB) */
#define BF_STATSD_MAX_DATAGRAM 1432    /* fits a 1500-byte MTU with IP and UDP headers */

typedef struct bf_metrics bf_metrics_t;

/* bf_metrics_parse_addr — parse "IPV4:PORT" (or "localhost:PORT") as given to --metrics-listen
 * or --statsd into a host (dst, cap bytes) and port (1..65535; 0 allowed when allow_zero: the
 * kernel picks one). Returns 0, or BF_E_INVAL with diag saying what was expected (opt names the
 * flag). Pure. */
int bf_metrics_parse_addr(const char *opt, const char *spec, int allow_zero, char *host, size_t cap,
                          uint16_t *port, bf_diag_t *diag);

/* bf_metrics_new — start what is asked: listen (NULL = no HTTP endpoint) serves GET /metrics
 * on that IPv4 address and port; statsd (NULL = none) sends to that UDP address. Returns a new
 * object (caller owns: bf_metrics_destroy), or NULL with diag set: BF_E_INVAL for a malformed
 * address, BF_E_IO when the port cannot be bound (in use) or the socket cannot be made. */
bf_metrics_t *bf_metrics_new(const char *listen, const char *statsd, bf_diag_t *diag);

/* bf_metrics_destroy — stop the HTTP thread, close the sockets, free; NULL-safe; clears
 * *m_p. */
void bf_metrics_destroy(bf_metrics_t **m_p);

/* bf_metrics_port — the TCP port the endpoint listens on (useful with port 0), 0 without one. */
uint16_t bf_metrics_port(const bf_metrics_t *m);

/* bf_metrics_cell_start — a new cell begins: forget the latency window of the last one. */
void bf_metrics_cell_start(bf_metrics_t *m);

/* bf_metrics_sample — count an agent's sample the campaign took (in order, written to disk):
 * its counters into the campaign totals, its histograms into the window slot of its second.
 * A final marker (second < 0) or a sample with a bad histogram adds only what it can (the
 * counters). s is borrowed. */
void bf_metrics_sample(bf_metrics_t *m, const Bf__Sample *s);

/* bf_metrics_agent_lost — one liveness loss of an agent. */
void bf_metrics_agent_lost(bf_metrics_t *m);

/* bf_metrics_publish — complete snap (borrowed, its counters, window and lost totals are
 * overwritten from what the module holds) and make it what GET /metrics answers; send it to
 * statsd. Returns 0, or the bf_buf error of formatting (then the previous text stays). */
int bf_metrics_publish(bf_metrics_t *m, bf_live_t *snap);

/* bf_metrics_statsd_format — the statsd lines of a snapshot into out (appended): gauges
 * bulkfleet.<name>:<v>|g and counters bulkfleet.<name>:<increase>|c, where the increase is
 * the snapshot's total minus prev's (prev NULL: the whole total). Pure; thread-safe. Returns 0
 * or a bf_buf error. */
int bf_metrics_statsd_format(const bf_live_t *snap, const bf_live_t *prev, bf_buf_t *out);

/* bf_metrics_statsd_dropped — statsd datagrams that could not be sent (counted, not retried). */
uint64_t bf_metrics_statsd_dropped(const bf_metrics_t *m);

#endif
