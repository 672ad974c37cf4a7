/* SPDX-License-Identifier: MIT */
/* bf_cell_protocol.h — the per-cell run: each agent's part in the current cell as one state table.
 *
 * The run of a cell (bf_cell_protocol.c) is Prepare → all Ready → Start with a barrier → samples
 * (taken, written by the samples' writer thread, acknowledged once on disk) → a final sample
 * from every member (or lost) → the row. What
 * happens to one member is decided here, by a pure function over (state, event), so the
 * callbacks that receive messages stay thin and the table is tested case by case
 * (tests/unit/test_cell_protocol.c), as the agent's session is in agent/bf_agent.h:
 *
 *   state      event       next       actions
 *   PREPARING  READY       READY      -
 *   PREPARING  FAILED      FAILED     -
 *   PREPARING  LOST        LOST       mark lost (the campaign prepares the cell again)
 *   PREPARING  FORGOT      PREPARING  - (a Hello that crossed the Prepare; it is resent)
 *   PREPARING  DEADLINE    LOST       mark lost, warn
 *   READY      FAILED      FAILED     -
 *   READY      SAMPLE      RUNNING    -
 *   READY      FINAL       FINISHED   check early stop
 *   READY      LOST|FORGOT|DEADLINE   LOST  mark lost (+ warn for FORGOT, DEADLINE)
 *   RUNNING    FAILED      FAILED     -
 *   RUNNING    SAMPLE      RUNNING    -
 *   RUNNING    FINAL       FINISHED   check early stop
 *   RUNNING    LOST        LOST       mark lost
 *   RUNNING    FORGOT      LOST       mark lost, warn
 *   RUNNING    DEADLINE    LOST       mark lost, warn
 *   FAILED     FINAL       FINISHED   -
 *   FAILED     LOST        LOST       mark lost
 *   FAILED     DEADLINE    LOST       mark lost, warn
 *   LOST       BACK        RETURNED   - (its seconds stay lost; the samples it holds are wanted)
 *   RETURNED   SAMPLE      RETURNED   -
 *   RETURNED   FINAL       FINISHED   -
 *   RETURNED   LOST        LOST       mark lost
 *   RETURNED   FORGOT      LOST       -
 *   RETURNED   DEADLINE    LOST       mark lost, warn
 *   any other pair: no change, no action (FINISHED absorbs everything)
 *
 * Events: READY/FAILED answer the cell's Prepare; SAMPLE/FINAL are samples taken in order
 * (FINAL has final set); LOST/BACK come from the fleet's liveness; FORGOT is a Hello that no
 * longer holds the cell (a restarted agent process); DEADLINE is the end of the time the
 * cell may take. "Mark lost" marks the member's seconds from its last one on as lost (the cell
 * is degraded); "check early stop" degrades the cell when the member ended its load before the
 * end on its own (dead-man switch). Pure functions: thread-safe.
 */
#ifndef BF_CELL_PROTOCOL_H
#define BF_CELL_PROTOCOL_H

#include "bf_fleet.h"

#include <stdint.h>

enum bf_member_state {
    BF_MEMBER_PREPARING = 0, /* Prepare sent, no answer yet */
    BF_MEMBER_READY,         /* Ready: the scenario loaded there */
    BF_MEMBER_RUNNING,       /* samples coming in */
    BF_MEMBER_FAILED,        /* answered Failed (the cell fails; waiting for its final sample) */
    BF_MEMBER_LOST,          /* lost or gone; not waited for */
    BF_MEMBER_RETURNED,      /* lost, then back while the cell runs: waiting for its final sample */
    BF_MEMBER_FINISHED,      /* its final sample is taken (on disk once the writer drained) */
    BF_MEMBER_COUNT
};

enum bf_member_event {
    BF_ME_READY = 0,
    BF_ME_FAILED,
    BF_ME_SAMPLE,
    BF_ME_FINAL,
    BF_ME_LOST,
    BF_ME_BACK,
    BF_ME_FORGOT,
    BF_ME_DEADLINE,
    BF_ME_COUNT
};

#define BF_MA_MARK_LOST 1u   /* bf_cellagg_mark_lost from the member's next second */
#define BF_MA_CHECK_EARLY 2u /* a final sample: degrade the cell if it stopped early */
#define BF_MA_WARN 4u        /* say why it is lost (forgot the cell, or out of time) */

typedef struct bf_member_step {
    enum bf_member_state next;
    unsigned actions; /* BF_MA_* */
} bf_member_step_t;

/* bf_member_step — the table above: the next state and the actions for (state, event).
 * Out-of-range values give no change and no action. */
bf_member_step_t bf_member_step(enum bf_member_state state, enum bf_member_event ev);
/* bf_member_state_name / bf_member_event_name — "PREPARING", "READY", ... (static strings). */
const char *bf_member_state_name(enum bf_member_state state);
const char *bf_member_event_name(enum bf_member_event ev);
/* bf_member_done — 1 when the cell no longer waits for this member (FINISHED or LOST). */
int bf_member_done(enum bf_member_state state);
/* bf_member_lost — 1 when the member's seconds are lost (LOST or RETURNED). */
int bf_member_lost(enum bf_member_state state);

/* One agent's part in the current cell. */
typedef struct bf_member {
    bf_fleet_agent_t *agent; /* borrowed from the fleet */
    uint32_t index;          /* its index in the cell's aggregate */
    enum bf_member_state state;
    int start_acked, stop_acked; /* commands delivered (resent until acknowledged) */
    int busy_seen;               /* answered busy (draining an earlier cell): said once */
    uint64_t last_seq;           /* samples are taken in order only: every seq <= this was taken
                                    (aggregated, queued for the disk) */
    uint64_t acked_seq;          /* every seq <= this is on disk and acknowledged */
    int32_t last_second;
    uint64_t last_command_us;
} bf_member_t;

#endif
