/* SPDX-License-Identifier: MIT */
/* bf_fleet.h — the coordinator's registry of agents and its two ROUTER sockets.
 *
 * Control ROUTER (default tcp://0.0.0.0:7100) and data ROUTER (7101); agents connect with DEALERs
 * whose routing id is the agent id and a nonce (docs/internals/fleet-protocol.md; see below). The
 * fleet answers Hello (Welcome, or Reject with a reason on a protocol major mismatch), Ping, and
 * tracks liveness: an agent silent for suspect_ms is suspect, for lost_ms lost, counting only the
 * time this coordinator listened: a stall of its own (a handler or the caller busy for longer than
 * BF_FLEET_STALL_MS, e.g. on a slow results disk, or the process stopped) is not the agent's
 * silence, since no Ping went out and nothing was read meanwhile (a 2 s fflush per
 * sample had an idle agent "lost: silent for 6001 ms"). Every other message goes to the
 * handler. A message from a peer that never said Hello (after a coordinator restart) is ignored,
 * not rejected: the agent says Hello again when it hears nothing, and a Reject would end it. The
 * clock offset of each agent comes from a fresh ping exchange after each Hello (BF_CLOCK_PINGS
 * Pings 20 ms apart, then every heartbeat): the midpoint of the round trip minus the agent's time
 * in the Pong, the round trip with the smallest delay winning (NTP's clock filter, RFC 5905 §10,
 * with the agent's receive and send times equal). A Hello's own timestamp is not used: it may have
 * waited in a queue before the coordinator listened.
 *
 * An agent id belongs to the peer that first brought it in (docs/internals/fleet-protocol.md):
 * agents connect with a routing id of their id and a random per-process nonce, which no other peer
 * knows, so ROUTER_HANDOVER can only hand a route back to the same process after a reconnect.
 * A Hello for a known id from a new route is a claim: refused (Reject to the claimant only, a
 * warning naming the id, both keys' fingerprints and both addresses) when it comes with another
 * key, or when the id's current connection is proven there (two agents configured with one
 * id); accepted when that connection is gone (a restarted agent: the route moves to it). With
 * the same key and the old route still taking messages the claim waits, unanswered: libzmq
 * reports a closed connection's route gone only some time after the close (on a loaded machine
 * after the restarted process's Hello), so the old connection is asked with a Ping and only
 * its Pong (a live process) refuses the claimant; the route going away, or the old agent being
 * lost while silent, accepts it (bf_fleet_poll decides, within ~10 ms of either). A Hello
 * naming an id from a route libzmq generated (a zero byte first: agents always set their own)
 * is ignored: it was queued on a connection that ROUTER_HANDOVER renamed when the same process
 * reconnected, so neither a claim nor a duplicate (it is counted with the strangers).
 * Not thread-safe: the coordinator's main thread owns it.
 */
#ifndef BF_FLEET_H
#define BF_FLEET_H

#include "bf_aws.h"
#include "bf_error.h"
#include "bf_strmap.h"
#include "bf_wire.h"
#include "bulkfleet.pb-c.h"

#include <stddef.h>
#include <stdint.h>

enum bf_agent_session { /* as the coordinator tracks it (docs/internals/fleet-protocol.md) */
                        BF_AS_CONNECTED = 0,
                        BF_AS_WELCOMED,
                        BF_AS_IDLE,
                        BF_AS_PREPARED,
                        BF_AS_RUNNING,
                        BF_AS_LOST,
};

typedef struct bf_fleet_agent {
    char id[128]; /* agent id (Hello.agent_id) */
    size_t id_len;
    char route[BF_MAX_ROUTE_BYTES]; /* routing id of its two connections: the id and the agent
                                       process's random nonce (bf_agent), so no other peer can
                                       present it and take the route over through
                                       ROUTER_HANDOVER; a restarted agent brings a new one */
    size_t route_len;
    char hostname[128];
    uint32_t cores;
    uint32_t threads;
    int has_data_route;
    int can_end_load; /* its Hello has the capability "end_load" (Stop.end_load_ms) */
    enum bf_agent_session session;
    uint64_t last_seen_us;   /* monotonic */
    uint64_t stalled_seen_us; /* bf_fleet_stalled_us() at last_seen_us */
    uint64_t welcomed_us;     /* monotonic time of the last Welcome sent (0: none yet) */
    int suspect;
    int64_t clock_offset_us; /* coordinator wall - agent wall: from the Ping/Pong round trip
                                with the smallest delay (NTP's offset with t2 = t3); 0 until one
                                came back (a Hello's own time may have waited in a queue) */
    uint64_t clock_rtt_us;   /* round trip of that estimate (0: none yet) */
    uint32_t ping_burst;     /* Pings still to send right after a Hello (BF_CLOCK_PINGS) */
    uint32_t clock_samples;  /* Pongs taken since the last Hello */
    char key_name[128];      /* allow-list key that admitted its first Hello ("" = insecure):
                                the id belongs to it; another key claiming it is refused */
    char key_fp[32];         /* that key's fingerprint (bf_keys_fingerprint; "" = insecure) */
    char peer[64];           /* IP address its last accepted Hello came from (Peer-Address) */
    char held_cell[128];     /* cell the agent said it still holds samples for */
    uint64_t held_last_seq;
    uint32_t held_state;     /* Bf__AgentState of its last Hello */
    char (*files)[65];       /* sha256 of dictionary files the agent has cached */
    size_t nfiles;           /* at most BF_MAX_AGENT_FILES */
    bf_strmap_t file_set;    /* the same hashes, for O(1) lookups (keys owned by the map) */
    unsigned files_warned;   /* Hellos that listed more files than the cap (warned once) */
    int draining;            /* stopping a cell this coordinator did not start (it said so in
                                its Hello): its requests may still reach the cluster */
    void *user;              /* the campaign's: index + 1 of its member in the running cell, or NULL */
    uint64_t aws_gen;        /* generation of the AWS credentials last shipped to it (0: none
                                since its last Hello; bf_fleet_aws_ship) */
} bf_fleet_agent_t;

#define BF_MAX_AGENT_FILES 1024 /* cached-file hashes remembered per agent */
/* Pings sent 20 ms apart after each Hello: the clock offset is the best of them (and of the
 * heartbeats' Pongs after) */
#define BF_CLOCK_PINGS 4

/* bf_fleet_agent_has_file — 1 if the agent reported (Hello) or acknowledged (Ready to a Prepare
 * that carried it) the dictionary file with this sha256, so a Prepare may omit its content. */
int bf_fleet_agent_has_file(const bf_fleet_agent_t *a, const char *sha256_hex);
/* bf_fleet_agent_add_file — remember that the agent holds this file (no-op when known). */
void bf_fleet_agent_add_file(bf_fleet_agent_t *a, const char *sha256_hex);

/* What the campaign tells the fleet about an agent's part in the current cell. */
enum bf_fleet_cell_event {
    BF_FC_READY,    /* it answered Prepare with Ready            -> PREPARED */
    BF_FC_STARTED,  /* a Start was sent to it                   -> RUNNING */
    BF_FC_RELEASED, /* Done, or the cell is over for it         -> IDLE, not draining */
    BF_FC_DRAINING, /* told to stop a cell of an earlier coordinator: draining until Done */
};

/* bf_fleet_agent_cell — the one way agent session state changes outside the fleet's own
 * Hello and liveness handling (docs/internals/style.md rule 18: the fleet owns it). A lost or not
 * yet welcomed agent keeps its state: only a Hello or a message brings it back. */
void bf_fleet_agent_cell(bf_fleet_agent_t *a, enum bf_fleet_cell_event ev);

typedef struct bf_fleet bf_fleet_t;

typedef struct bf_fleet_opts {
    const char *control_bind;  /* "tcp://127.0.0.1:7100" */
    const char *data_bind;     /* "tcp://127.0.0.1:7101" */
    uint32_t heartbeat_ms, suspect_ms, lost_ms, deadman_ms;
    const char *curve_secret_z85; /* coordinator secret key; NULL = plain TCP (--insecure) */
    const char *allow_dir;        /* directory of admitted agent *.pub keys (with CURVE) */
    uint32_t expected_agents;     /* agents the campaign waits for: sizes the descriptor check */
} bf_fleet_opts_t;

/* Descriptors one coordinator needs: 2 TCP connections per agent (control and data) plus
 * BF_FLEET_FD_RESERVE for libzmq's own (signalers, I/O threads, ZAP), cluster connections and
 * results files. */
#define BF_FLEET_FDS_PER_AGENT 2
#define BF_FLEET_FD_RESERVE 128

/* Handler for every message the fleet does not answer itself. `is_data`: it came on the data
 * socket. env is borrowed for the call. */
typedef void (*bf_fleet_handler_fn)(void *ctx, bf_fleet_agent_t *agent, const Bf__Envelope *env,
                                    int is_data);
/* Called when an agent becomes lost (once) or says hello again after being lost. */
typedef void (*bf_fleet_event_fn)(void *ctx, bf_fleet_agent_t *agent, int lost);

/* bf_fleet_new — bind the control and data ROUTERs (and start ZAP with CURVE). Raises the soft
 * RLIMIT_NOFILE towards the hard limit when opts->expected_agents needs more descriptors
 * (BF_FLEET_FDS_PER_AGENT each + BF_FLEET_FD_RESERVE). Returns NULL with diag set when a socket
 * cannot be bound or ZAP cannot start (BF_E_IO), CURVE is missing (BF_E_INVAL), or the hard
 * limit is below what expected_agents needs (BF_E_RANGE; the message names the number and how
 * to raise it). Caller owns the fleet: free with bf_fleet_destroy. Not thread-safe: one thread
 * owns the fleet and its sockets. */
bf_fleet_t *bf_fleet_new(const bf_fleet_opts_t *opts, bf_diag_t *diag);
void bf_fleet_destroy(bf_fleet_t **f_p);
void bf_fleet_set_handler(bf_fleet_t *f, bf_fleet_handler_fn fn, bf_fleet_event_fn ev, void *ctx);
/* bf_fleet_set_resend — what Welcome tells a reconnecting agent that holds samples:
 * resend them (1) or discard (0). Decided per agent by the callback; NULL = discard. */
typedef int (*bf_fleet_resend_fn)(void *ctx, const bf_fleet_agent_t *agent);
void bf_fleet_set_resend(bf_fleet_t *f, bf_fleet_resend_fn fn);

/* bf_fleet_poll — wait up to timeout_ms for messages, dispatch them all, update liveness.
 * The time since the previous call, a wait that overran timeout_ms and each handler call are
 * counted as a stall (bf_fleet_stalled_us) when longer than BF_FLEET_STALL_MS.
 * Returns 0 or BF_E_INTR when poll was interrupted by a signal. */
int bf_fleet_poll(bf_fleet_t *f, int timeout_ms);
/* A stretch longer than this in which the fleet did not listen is the coordinator's stall. */
#define BF_FLEET_STALL_MS 100
/* bf_fleet_stalled_us — µs this coordinator did not listen to its agents since bf_fleet_new:
 * the sum of its stalls (see bf_fleet_poll; monotonic clock), never decreasing; the difference
 * of two readings is the stall time between them. Not thread-safe (the fleet's thread). */
uint64_t bf_fleet_stalled_us(const bf_fleet_t *f);

size_t bf_fleet_count(const bf_fleet_t *f);
bf_fleet_agent_t *bf_fleet_agent(bf_fleet_t *f, size_t i);
/* bf_fleet_ready_count — agents welcomed, with a data route, not lost. */
size_t bf_fleet_ready_count(const bf_fleet_t *f);

/* bf_fleet_send — send env to an agent on control (is_data 0) or data. Returns 0 or BF_E_IO
 * (agent not connected). */
int bf_fleet_send(bf_fleet_t *f, const bf_fleet_agent_t *a, Bf__Envelope *env, int is_data);

/* bf_fleet_refused — CURVE handshakes refused by the ZAP handler so far. */
uint64_t bf_fleet_refused(bf_fleet_t *f);

/* bf_fleet_handshakes_failed — CURVE handshakes that failed before ZAP (a peer without keys or
 * with a wrong coordinator key), on both sockets, so far; each is logged with the peer's
 * address (bf_hswatch). Thread-safe counters. */
uint64_t bf_fleet_handshakes_failed(const bf_fleet_t *f);

/* bf_fleet_stats — messages that failed to unpack, and rejects sent. */
void bf_fleet_stats(const bf_fleet_t *f, uint64_t *bad_frames, uint64_t *rejects);

/* bf_fleet_claims_refused — Hellos refused because their agent id was taken (by another key,
 * or by an agent still connected). */
uint64_t bf_fleet_claims_refused(const bf_fleet_t *f);

/* bf_fleet_set_aws_ship — with target.auth.aws.ship: ship the coordinator's own AWS
 * credentials (bf_aws_ship_current on t, borrowed: must outlive f) to every agent in a Ping
 * whenever they differ from what that agent last got, so fresh temporary credentials reach the
 * agents within a heartbeat of being fetched. t NULL stops it. Same thread as bf_fleet_poll. */
void bf_fleet_set_aws_ship(bf_fleet_t *f, const bf_target_t *t);

/* bf_fleet_aws_ship — for a Prepare to agent a: fills *pb with the credentials to ship (its
 * strings point into *c, which the caller cleans up with bf_aws_creds_cleanup after sending)
 * and records them as a's. Returns 1 when filled; 0 when nothing is shipped (no
 * bf_fleet_set_aws_ship, or the coordinator has no credentials: warned, at most every 10 s;
 * *c is then empty). Same thread as bf_fleet_poll. */
int bf_fleet_aws_ship(bf_fleet_t *f, bf_fleet_agent_t *a, struct bf_aws_creds *c,
                      Bf__AwsCredentials *pb);

#endif
