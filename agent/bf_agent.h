/* SPDX-License-Identifier: MIT */
/* bf_agent.h — the agent's control thread: the fleet session with the coordinator.
 *
 * Owns both ZeroMQ sockets (control and data DEALERs; a socket is never shared between
 * threads) and at most one bf_run. The session is two small state machines (docs/internals/style.md
 * rule 11), written as a switch on (state, event) in bf_agent.c.
 *
 * The link with the coordinator:
 *
 *   state   event                         action                                   next
 *   HELLO   start | back-off timer        Hello on both sockets (state, cell, last  HELLO
 *                                         seq, cached files); back-off 1,2,4,8 s;
 *                                         silent > lost: fresh sockets first
 *   HELLO   Welcome                       resend unacked samples, or discard them  UP
 *   any     Reject                        log the reason, exit 3                   -
 *   UP      silence > suspect (3 s)       -                                        HELLO
 *   UP      nothing sent for heartbeat    Ping                                     UP
 *
 * The cell:
 *
 *   state     event                       action                                   next
 *   IDLE      Prepare(cell)               build run; Ready | Failed                PREPARED | IDLE
 *   PREPARED  Prepare(other cell)         drop the run, build the new one          PREPARED | IDLE
 *   PREPARED  Start(in, late)             workers start at now + in - late; Ack    RUNNING
 *   PREPARED  Stop                        drop the run; Ack                        IDLE
 *   RUNNING   second sealed               Sample on data, kept until acked         RUNNING
 *   RUNNING   Stop | fatal | dead-man     abort the workers; Ack (Stop)            DRAINING
 *   RUNNING   run over                    final Sample, Done                       IDLE
 *   DRAINING  run over                    final Sample, Done                       IDLE
 *   RUNNING+  Prepare                     Failed (busy: "still running")           same
 *   any       repeated command id         repeat the earlier answer (no-op)        same
 *   any       SampleAck(seq)              drop samples <= seq                      same
 *   any       unacked sample older 3 s    resend from the last ack (go-back-N)     same
 *
 * Building a Prepare's run (the scenario, a corpus parsed and laid out: seconds for a large
 * one) happens on a thread of its own while the control thread keeps the link: it answers
 * Pings, sends its own every heartbeat, and keeps every other message for after the build, so
 * the coordinator never takes a preparing agent for silent.
 *
 * Dead-man: nothing heard from the coordinator for deadman_ms (15 s) while RUNNING stops the
 * load; its samples stay queued (at most BF_MAX_UNACKED_SAMPLES, an overflow is logged as an
 * error) and are resent after the next Welcome that asks for them.
 */
#ifndef BF_AGENT_H
#define BF_AGENT_H

#include <stdint.h>

#define BF_MAX_UNACKED_SAMPLES 7200 /* two hours of seconds; older ones are dropped, loudly */

typedef struct bf_agent_opts {
    const char *control_endpoint;  /* tcp://HOST:7100 */
    const char *data_endpoint;     /* NULL: same host, port + 1 */
    const char *agent_id;          /* NULL: hostname-pid */
    uint32_t threads;              /* 0: one per core */
    uint32_t deadman_ms;           /* 0: 15000 */
    int insecure;                  /* plain TCP; otherwise keys_dir is required */
    const char *keys_dir;          /* CURVE: DIR/agent.key (0600) and DIR/coordinator.pub */
    const char *const *allow_targets; /* NULL-terminated list of HOST or CIDR; NULL = any */
    int exit_after_cells;          /* >0: exit after this many cells (tests) */
} bf_agent_opts_t;

/* bf_agent_main — run the session until SIGINT/SIGTERM or a Reject.
 * Returns the process exit code (enum bf_exit): 0 on a signal, 3 when rejected or unable to
 * start. */
int bf_agent_main(const bf_agent_opts_t *opts);

/* bf_agent_stop_flag — set by the signal handler; the loop exits within 100 ms. */
extern volatile int bf_agent_stop_flag;

#endif
