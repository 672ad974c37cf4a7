/* bf_agent.h — the agent's control thread: the fleet session with the coordinator.
 *
 * Owns both ZeroMQ sockets (control and data DEALERs; a socket is never shared between
 * threads) and at most one bf_run. The session is a state machine (STYLE §11):
 *
 *   state      event                      action                              next
 *   HELLO      Welcome                    -                                   IDLE
 *   HELLO      Reject                     log the reason, exit 3              -
 *   IDLE       Prepare(cell)              build run; Ready | Failed           PREPARED | IDLE
 *   PREPARED   Start(start_in_ms)         start workers at now + start_in_ms  RUNNING
 *   RUNNING    second sealed              Sample on data, kept until acked    RUNNING
 *   RUNNING    run over                   final Sample, Done                  IDLE
 *   RUNNING    Stop | fatal | dead-man    abort workers                       RUNNING (drains)
 *   any        repeated command id        repeat the earlier answer           same
 *   any        Ping                       Pong                                same
 */
#ifndef BF_AGENT_H
#define BF_AGENT_H

#include <stdint.h>

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
 * Returns the process exit code: 0 on a signal, 3 when rejected or unable to start. */
int bf_agent_main(const bf_agent_opts_t *opts);

/* bf_agent_stop_flag — set by the signal handler; the loop exits within 100 ms. */
extern volatile int bf_agent_stop_flag;

#endif
