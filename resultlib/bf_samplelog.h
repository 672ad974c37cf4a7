/* SPDX-License-Identifier: MIT */
/* bf_samplelog.h — the raw samples' writer thread: a bounded queue drained to disk durably.
 *
 * The coordinator acknowledges an agent's sample only once it is on disk, so an agent keeps
 * every sample the coordinator could still lose (docs/internals/fleet-protocol.md). Written on
 * the thread that also answers the fleet, a results disk slower than the agents' dead-man
 * timeout (15 s) stopped their load: nothing was read or sent while a write waited. Here the
 * fleet's thread only queues each sample's line (bf_samplelog_push) and keeps listening; this
 * module's thread appends the queued lines in batches, flushes them and calls fdatasync(2), and
 * then publishes, per slot (an agent of the cell), the highest sequence number that is durable
 * (bf_samplelog_durable): the acknowledgement the caller may send. Lines of one slot are
 * pushed in sequence order and written in push order, so "durable up to seq" holds for every
 * smaller one. The queue is bounded by bytes: when it is full, push refuses the line and the
 * caller leaves the sample unacknowledged (the agent keeps it and sends it again), so a slow
 * disk holds the agents' samples back and loses none.
 *
 * Thread-safety: push, durable, pending, error and close are called from one thread (the
 * owner's); the writer thread is internal. */
#ifndef BF_SAMPLELOG_H
#define BF_SAMPLELOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* the queue's bound in bytes of lines waiting for the disk: some 30,000 samples (about
 * 2 kB each), 300 agents for 100 s */
#define BF_SAMPLELOG_MAX_BYTES (64u * 1024u * 1024u)

typedef struct bf_samplelog bf_samplelog_t;

/* bf_samplelog_new — start the writer thread appending to f (borrowed: it must stay open until
 * bf_samplelog_close returned; nothing else may write it meanwhile). nslots: the agents of the
 * cell, numbered 0..nslots-1. max_bytes: the queue's bound (0: BF_SAMPLELOG_MAX_BYTES).
 * Returns the writer (caller owns, end with bf_samplelog_close) or NULL when f is NULL or the
 * thread cannot start (logged). */
bf_samplelog_t *bf_samplelog_new(FILE *f, uint32_t nslots, size_t max_bytes);

/* bf_samplelog_push — queue one line (without its newline; the writer adds it) of slot's
 * sample seq. Takes ownership of line (a malloc'ed string, freed in every case). Returns 0;
 * BF_E_TOOBIG when the queue holds max_bytes already (the line is not queued: leave the sample
 * unacknowledged, it comes again); BF_E_IO when the writer failed earlier (bf_samplelog_error
 * says how; nothing more is written); BF_E_RANGE for a slot out of range. */
int bf_samplelog_push(bf_samplelog_t *w, uint32_t slot, uint64_t seq, char *line);

/* bf_samplelog_durable — the highest seq of slot written, flushed and fdatasync'ed (0: none
 * yet, or slot out of range). */
uint64_t bf_samplelog_durable(bf_samplelog_t *w, uint32_t slot);

/* bf_samplelog_pending — lines queued or being written, and their bytes (either may be
 * NULL). Returns the lines. */
size_t bf_samplelog_pending(bf_samplelog_t *w, size_t *bytes);

/* bf_samplelog_error — 0 while every write succeeded; BF_E_IO after the first failure, with
 * "<step>: <strerror>" (step: write, flush or fdatasync) copied into msg (msg_size bytes,
 * msg may be NULL). */
int bf_samplelog_error(bf_samplelog_t *w, char *msg, size_t msg_size);

/* bf_samplelog_close — stop the thread after it wrote what is queued (waiting for the disk:
 * call it once bf_samplelog_pending is 0 when the caller must keep doing something else
 * meanwhile), join it and free the writer; *w_p is set to NULL. NULL-safe. Returns 0 or
 * BF_E_IO when a write failed (lines not written are dropped: they were never durable, so
 * never acknowledged). f is left open. */
int bf_samplelog_close(bf_samplelog_t **w_p);

#endif
