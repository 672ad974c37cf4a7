/* SPDX-License-Identifier: MIT */
/* bf_fleet.c — agent registry, ROUTER sockets, Hello/Welcome/Reject and liveness. */
#include "bf_fleet.h"

#include "bf_clock.h"
#include "bf_error.h"
#include "bf_hswatch.h"
#include "bf_keys.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_strmap.h"
#include "bf_wire.h"
#include "bf_zap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zmq.h>

#define BF_MAX_AGENT_MSG_BYTES (4 << 20) /* cap of one message from an agent */
#define BF_FLEET_BAD_PEERS 1024          /* peers whose refused message is logged once each */
/* in place of a peer's address when libzmq could not read it (no Peer-Address: the
 * connection closed before its engine asked the kernel) */
#define BF_FLEET_NO_ADDRESS "an address libzmq could not read (the connection closed at once)"
/* period of the suspect/lost scan and of the Ping round; far below suspect_ms (3 s) */
#define BF_FLEET_SCAN_MS 100
/* a claim on a taken id whose holder speaks but does not answer the probe is refused after
 * this long (far above a round trip, below the agent's 10 s reopen) */
#define BF_FLEET_CLAIM_WAIT_MS 2000
#define BF_FLEET_CLAIM_PROBE_MS 10 /* how often a waiting claim asks libzmq about the holder */
/* listen backlog of the ROUTERs (connections waiting for accept) */
#define BF_FLEET_LISTEN_BACKLOG 4096

/* A Hello for a taken id, with the holder's key, from a new route while the holder's route
 * still takes messages. That alone proves nothing: libzmq drops a closed connection's route
 * only once its I/O thread has read the FIN and the ROUTER has processed the pipe's end, which
 * on a loaded machine comes after the restarted process's Hello (test_fleet's
 * test_restarted_agent_takes_its_id_back failed 1 run in 12: refused 50 ms after the close).
 * So the claim waits: the holder is asked with a Ping (probe_wall_us) and only its Pong
 * echoing that Ping, which a process that has ended cannot send, refuses the claimant as a
 * duplicate; the route reported gone (EHOSTUNREACH) or the holder lost grants it. A holder
 * that speaks for BF_FLEET_CLAIM_WAIT_MS without answering the probe keeps its id (refused as
 * before); a silent one (hung, or a cut link the kernel has not closed) loses it when lost. */
struct pending_claim {
    bf_fleet_agent_t *holder;
    char route[BF_MAX_ROUTE_BYTES]; /* the claimant's */
    size_t route_len;
    Bf__Envelope *hello[2]; /* its latest Hello per socket (0 control, 1 data), owned, or NULL */
    bf_wire_peer_t peer[2];
    uint64_t since_us;      /* monotonic: the first Hello of the claim */
    uint64_t probe_wall_us; /* wall_us of every probe Ping to the holder */
    uint64_t last_probe_us; /* monotonic: the latest probe */
    int proven;             /* the holder answered a probe: it is alive */
};

struct bf_fleet {
    bf_fleet_opts_t opts;
    void *zctx, *ctrl, *data;
    bf_hswatch_t *hswatch[2]; /* CURVE: failed handshakes of ctrl and data, with the peer */
    bf_zap_t *zap;
    bf_fleet_agent_t **agents;
    size_t nagents;
    bf_strmap_t by_id;    /* agent id -> agent */
    bf_strmap_t by_route; /* routing id -> agent: O(1) per message */
    bf_fleet_handler_fn handler;
    bf_fleet_event_fn event;
    bf_fleet_resend_fn resend;
    void *ctx;
    uint64_t bad_frames, rejects, strangers;
    uint64_t hijacks;             /* messages on an agent's route from a key other than its own */
    uint64_t claims_refused;      /* Hellos for a taken agent id (another key, or a duplicate) */
    uint64_t claim_window_us;     /* start of the current 10 s window of claim warnings */
    unsigned claim_logged;        /* claim warnings given in it (at most 5: a peer may flood) */
    struct pending_claim *claims; /* same-key claims waiting for their holder's proof of life */
    size_t nclaims;
    uint64_t bad_logged_us; /* when a malformed message was last logged (rate limit) */
    /* peers (address and why) whose refused message was logged: once per peer;
     * past BF_FLEET_BAD_PEERS of them, at most one line every 10 s */
    bf_strmap_t bad_peers;
    size_t bursting;        /* agents with Pings of the clock exchange still to send */
    uint64_t last_burst_us;
    uint64_t last_ping_us;
    uint64_t last_scan_us; /* last liveness scan over the agents */
    uint64_t stalled_us;   /* sum of this coordinator's stalls (bf_fleet_stalled_us) */
    uint64_t returned_us;  /* when bf_fleet_poll last returned (0: not yet) */
    uint64_t fd_limit;     /* soft RLIMIT_NOFILE after bf_fleet_new */
    const bf_target_t *aws_ship; /* bf_fleet_set_aws_ship, or NULL */
    uint64_t aws_warned_us;      /* when "no credentials to ship" was last said */
    int fd_warned;         /* the "too many agents for the descriptor limit" warning was given */
};

static uint64_t aws_current(bf_fleet_t *f, bf_aws_creds_t *c, Bf__AwsCredentials *pb);

static struct pending_claim *pending_of(bf_fleet_t *f, const bf_fleet_agent_t *holder)
{
    for (size_t i = 0; i < f->nclaims; i++)
        if (f->claims[i].holder == holder)
            return &f->claims[i];
    return NULL;
}

static void pending_drop(bf_fleet_t *f, struct pending_claim *pc)
{
    for (int k = 0; k < 2; k++)
        if (pc->hello[k])
            bf__envelope__free_unpacked(pc->hello[k], NULL);
    *pc = f->claims[--f->nclaims];
}

static uint64_t fds_needed(uint64_t agents)
{
    return agents * BF_FLEET_FDS_PER_AGENT + BF_FLEET_FD_RESERVE;
}

/* Make room for `agents` agents' connections: raise the soft descriptor limit up to the hard
 * one when needed. libzmq's accept() failing with EMFILE is silent (the agent only sees its
 * connection attempts time out), so the limit is checked here, up front. */
static int reserve_fds(bf_fleet_t *f, uint32_t agents, bf_diag_t *diag)
{
    struct rlimit rl;
    f->fd_limit = UINT64_MAX;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return BF_OK;
    uint64_t need = fds_needed(agents);
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? (rlim_t)need : rl.rlim_max;
        struct rlimit raised = {want, rl.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            rl.rlim_cur = want;
    }
    f->fd_limit = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
    if (f->fd_limit < need) {
        bf_diag_set(diag, BF_E_RANGE,
                    "%u agents need about %llu file descriptors (%d per agent + %d) "
                    "but this process may open only %llu (hard limit): raise it (ulimit -n %llu in "
                    "the shell, LimitNOFILE=%llu in a systemd unit, nofile in "
                    "/etc/security/limits.conf) or use fewer agents per coordinator",
                    agents, (unsigned long long)need, BF_FLEET_FDS_PER_AGENT, BF_FLEET_FD_RESERVE,
                    (unsigned long long)f->fd_limit, (unsigned long long)need,
                    (unsigned long long)need);
        return BF_E_RANGE;
    }
    return BF_OK;
}

static void *bind_router(bf_fleet_t *f, const char *ep, bf_diag_t *diag)
{
    void *s = zmq_socket(f->zctx, ZMQ_ROUTER);
    bf_wire_socket_setup(s, 1, 0);
    /* No ZMTP heartbeats on the coordinator's ROUTERs (ZMQ_HEARTBEAT_IVL/TIMEOUT): libzmq arms
     * and cancels a timer per heartbeat per connection, and poller_base_t::cancel_timer walks
     * every timer of the I/O thread (O(n), "we assume it is rarely used"), so their cost grew
     * with the square of the fleet (33 % of the coordinator's CPU at 1000 agents).
     * Liveness is the fleet's own Ping/Pong with its suspect/lost clock (O(1) per message); the
     * agents' DEALERs keep their heartbeats (answered by the engine without a timer here,
     * because they send no TTL) to notice a dead coordinator. A connection whose peer vanished
     * (cut link) is closed by the kernel instead: keepalive probes after 10 s idle, and
     * TCP_USER_TIMEOUT (ZMQ_TCP_MAXRT) for data left unacknowledged 10 s; a reconnecting
     * agent's new connection takes its routing id over (ROUTER_HANDOVER) before that anyway.
     * 1000 agents x a few messages per second stay far below these high-water marks. */
    int hwm = 10000, keepalive = 1, ka_idle_s = 10, ka_intvl_s = 2, ka_cnt = 3, maxrt_ms = 10000;
    /* agents send small messages (a Sample is a few KiB): a peer cannot make us buffer more */
    int64_t maxmsg = BF_MAX_AGENT_MSG_BYTES;
    zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
    zmq_setsockopt(s, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt(s, ZMQ_RCVHWM, &hwm, sizeof hwm);
    zmq_setsockopt(s, ZMQ_TCP_KEEPALIVE, &keepalive, sizeof keepalive);
    zmq_setsockopt(s, ZMQ_TCP_KEEPALIVE_IDLE, &ka_idle_s, sizeof ka_idle_s);
    zmq_setsockopt(s, ZMQ_TCP_KEEPALIVE_INTVL, &ka_intvl_s, sizeof ka_intvl_s);
    zmq_setsockopt(s, ZMQ_TCP_KEEPALIVE_CNT, &ka_cnt, sizeof ka_cnt);
    zmq_setsockopt(s, ZMQ_TCP_MAXRT, &maxrt_ms, sizeof maxrt_ms);
    /* a fleet connects at once (2 connections per agent): with libzmq's default listen backlog
     * of 100 the kernel drops the SYNs past it and each client waits out SYN retransmission
     * (1 s, 3 s, 7 s, ...), so 2000 agents took minutes to join; the kernel caps this at
     * net.core.somaxconn */
    int backlog = BF_FLEET_LISTEN_BACKLOG;
    zmq_setsockopt(s, ZMQ_BACKLOG, &backlog, sizeof backlog);
    if (f->opts.curve_secret_z85) {
        /* CURVE server; every client handshake goes through the ZAP allow-list (bf_zap) */
        int one = 1;
        zmq_setsockopt(s, ZMQ_ZAP_DOMAIN, BF_ZAP_DOMAIN, strlen(BF_ZAP_DOMAIN));
        zmq_setsockopt(s, ZMQ_CURVE_SERVER, &one, sizeof one);
        zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, f->opts.curve_secret_z85, BF_Z85_KEY_LEN + 1);
    }
    if (zmq_bind(s, ep) != 0) {
        bf_diag_set(diag, BF_E_IO,
                    "cannot bind %s: %s; is another coordinator running? choose another port "
                    "with --bind",
                    ep, zmq_strerror(errno));
        zmq_close(s);
        return NULL;
    }
    return s;
}

/* bf_keys_scan_allowed's skipped files, one warning each */
static void on_allow_skip(void *ctx, const char *file, const char *why)
{
    bf_warn("allow-list %s: skipped %s: %s", (const char *)ctx, file, why);
}

static void on_allow_key(void *ctx, const uint8_t *key, const char *name)
{
    (void)ctx;
    (void)key;
    (void)name;
}

/* At start: how many agent keys each allow-list directory holds, and every file skipped with
 * why (a key saved as agents/agentA was ignored without a word). bf_zap indexes the
 * same files. */
static void log_allow_list(const char *allow_dir)
{
    const char *cur = allow_dir ? allow_dir : "";
    char d[4096];
    int i = 0;
    while (i++ < 16 && bf_str_field(&cur, ':', d, sizeof d)) {
        if (d[0] == '\0')
            continue;
        int n = bf_keys_scan_allowed(d, on_allow_key, on_allow_skip, d);
        if (n < 0)
            bf_warn("allow-list %s: cannot open the directory: no agent is admitted from it", d);
        else
            bf_info("allow-list %s: %d agent key%s", d, n, n == 1 ? "" : "s");
    }
}

bf_fleet_t *bf_fleet_new(const bf_fleet_opts_t *opts, bf_diag_t *diag)
{
    bf_fleet_t *f = bf_calloc(1, sizeof *f);
    f->opts = *opts;
    if (!f->opts.heartbeat_ms)
        f->opts.heartbeat_ms = 1000;
    if (!f->opts.suspect_ms)
        f->opts.suspect_ms = 3000;
    if (!f->opts.lost_ms)
        f->opts.lost_ms = 10000;
    if (!f->opts.deadman_ms)
        f->opts.deadman_ms = 15000;
    bf_strmap_init(&f->by_id);
    bf_strmap_init(&f->by_route);
    bf_strmap_init(&f->bad_peers);
    if (reserve_fds(f, opts->expected_agents, diag) != BF_OK) {
        bf_fleet_destroy(&f);
        return NULL;
    }
    f->zctx = zmq_ctx_new();
    if (opts->curve_secret_z85) {
        if (!zmq_has("curve")) {
            bf_diag_set(diag, BF_E_INVAL,
                        "this libzmq has no CURVE support; use --insecure only on a trusted "
                        "network");
            bf_fleet_destroy(&f);
            return NULL;
        }
        log_allow_list(opts->allow_dir);
        f->zap = bf_zap_start(f->zctx, opts->allow_dir ? opts->allow_dir : "/nonexistent");
        if (f->zap == NULL) {
            bf_diag_set(diag, BF_E_IO,
                        "cannot start the ZAP handler (a thread and an inproc "
                        "socket): out of threads or file descriptors?");
            bf_fleet_destroy(&f);
            return NULL;
        }
    }
    f->ctrl = bind_router(f, opts->control_bind, diag);
    f->data = f->ctrl ? bind_router(f, opts->data_bind, diag) : NULL;
    if (f->data == NULL) {
        bf_fleet_destroy(&f);
        return NULL;
    }
    /* a peer without keys (or with a wrong coordinator key) never reaches ZAP: the CURVE
     * handshake fails first; a message over BF_MAX_AGENT_MSG_BYTES is dropped by libzmq with
     * its connection: only a socket monitor hears of either (bf_hswatch) */
    int curve = opts->curve_secret_z85 != NULL;
    f->hswatch[0] = bf_hswatch_start(f->zctx, f->ctrl, "control", curve, BF_MAX_AGENT_MSG_BYTES);
    f->hswatch[1] = bf_hswatch_start(f->zctx, f->data, "data", curve, BF_MAX_AGENT_MSG_BYTES);
    return f;
}

void bf_fleet_destroy(bf_fleet_t **f_p)
{
    if (f_p == NULL || *f_p == NULL)
        return;
    bf_fleet_t *f = *f_p;
    bf_hswatch_stop(f->hswatch[0], f->ctrl);
    bf_hswatch_stop(f->hswatch[1], f->data);
    if (f->ctrl)
        zmq_close(f->ctrl);
    if (f->data)
        zmq_close(f->data);
    if (f->zctx)
        zmq_ctx_term(f->zctx); /* ends the ZAP and watcher threads (ETERM) */
    bf_zap_join(&f->zap);
    bf_hswatch_join(&f->hswatch[0]);
    bf_hswatch_join(&f->hswatch[1]);
    for (size_t i = 0; i < f->nagents; i++) {
        free(f->agents[i]->files);
        bf_strmap_cleanup(&f->agents[i]->file_set);
        free(f->agents[i]);
    }
    free(f->agents);
    while (f->nclaims)
        pending_drop(f, &f->claims[0]);
    free(f->claims);
    bf_strmap_cleanup(&f->by_id);
    bf_strmap_cleanup(&f->by_route);
    bf_strmap_cleanup(&f->bad_peers);
    free(f);
    *f_p = NULL;
}

void bf_fleet_set_handler(bf_fleet_t *f, bf_fleet_handler_fn fn, bf_fleet_event_fn ev, void *ctx)
{
    f->handler = fn;
    f->event = ev;
    f->ctx = ctx;
}

void bf_fleet_set_resend(bf_fleet_t *f, bf_fleet_resend_fn fn)
{
    f->resend = fn;
}

size_t bf_fleet_count(const bf_fleet_t *f)
{
    return f->nagents;
}

bf_fleet_agent_t *bf_fleet_agent(bf_fleet_t *f, size_t i)
{
    return i < f->nagents ? f->agents[i] : NULL;
}

size_t bf_fleet_ready_count(const bf_fleet_t *f)
{
    size_t n = 0;
    for (size_t i = 0; i < f->nagents; i++) {
        const bf_fleet_agent_t *a = f->agents[i];
        n += a->session != BF_AS_LOST && a->session != BF_AS_CONNECTED && a->has_data_route;
    }
    return n;
}

uint64_t bf_fleet_refused(bf_fleet_t *f)
{
    return f->zap ? bf_zap_refused(f->zap) : 0;
}

uint64_t bf_fleet_handshakes_failed(const bf_fleet_t *f)
{
    return bf_hswatch_failed(f->hswatch[0]) + bf_hswatch_failed(f->hswatch[1]);
}

uint64_t bf_fleet_claims_refused(const bf_fleet_t *f)
{
    return f->claims_refused;
}

void bf_fleet_stats(const bf_fleet_t *f, uint64_t *bad_frames, uint64_t *rejects)
{
    *bad_frames = f->bad_frames;
    *rejects = f->rejects;
}

int bf_fleet_send(bf_fleet_t *f, const bf_fleet_agent_t *a, Bf__Envelope *env, int is_data)
{
    void *s = is_data ? f->data : f->ctrl;
    return bf_wire_send(s, a->route, a->route_len, env, ZMQ_DONTWAIT);
}

int bf_fleet_agent_has_file(const bf_fleet_agent_t *a, const char *sha256_hex)
{
    return bf_strmap_get(&a->file_set, sha256_hex, strlen(sha256_hex)) != NULL;
}

void bf_fleet_agent_add_file(bf_fleet_agent_t *a, const char *sha256_hex)
{
    /* the cap first: nothing past it is even looked at */
    if (a->nfiles >= BF_MAX_AGENT_FILES || strnlen(sha256_hex, 65) != 64 ||
        bf_fleet_agent_has_file(a, sha256_hex))
        return;
    if (a->files == NULL)
        a->files = bf_calloc(BF_MAX_AGENT_FILES, sizeof *a->files);
    bf_strlcpy(a->files[a->nfiles++], sha256_hex, sizeof a->files[0]);
    bf_strmap_put(&a->file_set, sha256_hex, 64, (void *)1);
}

/* forget the cached files (a Hello says afresh what the agent holds) */
static void agent_files_reset(bf_fleet_agent_t *a)
{
    a->nfiles = 0;
    bf_strmap_cleanup(&a->file_set);
    bf_strmap_init(&a->file_set);
}

void bf_fleet_agent_cell(bf_fleet_agent_t *a, enum bf_fleet_cell_event ev)
{
    if (ev == BF_FC_DRAINING) {
        a->draining = 1;
        return;
    }
    if (ev == BF_FC_RELEASED)
        a->draining = 0;
    if (a->session == BF_AS_LOST || a->session == BF_AS_CONNECTED)
        return;
    switch (ev) {
    case BF_FC_READY: a->session = BF_AS_PREPARED; break;
    case BF_FC_STARTED: a->session = BF_AS_RUNNING; break;
    case BF_FC_RELEASED: a->session = BF_AS_IDLE; break;
    case BF_FC_DRAINING: break;
    }
}

/* the agent of a routing id: a hash lookup, because it runs for every message (a scan over the
 * fleet here made the coordinator's cost per sample grow with the number of agents) */
static bf_fleet_agent_t *find(bf_fleet_t *f, const char *route, size_t route_len)
{
    return bf_strmap_get(&f->by_route, route, route_len);
}

static void reject(bf_fleet_t *f, void *sock, const char *route, size_t route_len, const char *reason)
{
    Bf__Reject r = BF__REJECT__INIT;
    r.reason = (char *)reason;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_REJECT;
    env.reject = &r;
    bf_wire_send(sock, route, route_len, &env, ZMQ_DONTWAIT);
    f->rejects++;
}

/* "key 'alpha' sha256:0123456789abcdef" or "no key" (insecure), for refusal messages */
static void key_words(const char *name, const char *fp, char *out, size_t out_size)
{
    if (name[0] || fp[0])
        snprintf(out, out_size, "key '%s' %s", name, fp[0] ? fp : "(no fingerprint)");
    else
        snprintf(out, out_size, "no key");
}

/* Whether the agent's current control connection is still there: a Ping to its route, which
 * ROUTER_MANDATORY refuses with EHOSTUNREACH once libzmq has dropped the connection (the
 * process ended: the kernel closed it). A lost agent counts as gone. */
static int route_alive(bf_fleet_t *f, const bf_fleet_agent_t *a, uint64_t wall_us)
{
    if (a->session == BF_AS_LOST || a->route_len == 0)
        return 0;
    Bf__Ping p = BF__PING__INIT;
    p.wall_us = wall_us;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_PING;
    env.ping = &p;
    if (bf_wire_send(f->ctrl, a->route, a->route_len, &env, ZMQ_DONTWAIT) == BF_OK)
        return 1;
    return errno != EHOSTUNREACH; /* EAGAIN: its pipe is full, so it is there */
}

/* A Hello from a route the fleet does not know: a new agent, a restarted one (its id known, its
 * old connection gone), or a claim on an id that is taken, which is refused: the Reject goes to
 * the claimant's route only, and the agent that holds the id goes on (its cell too). Returns
 * the agent the route now belongs to, or NULL when refused or waiting: a claim with the
 * holder's key while the holder's route still takes messages waits for the holder to prove
 * alive (struct pending_claim; *envp is then taken and set to NULL). decide: no waiting
 * (resolve_claims): the route taking messages refuses, gone grants. */
static bf_fleet_agent_t *claim(bf_fleet_t *f, void *sock, const char *route, size_t route_len,
                               Bf__Envelope **envp, const bf_wire_peer_t *peer, int is_data,
                               int decide)
{
    const Bf__Hello *h = (*envp)->hello;
    /* the id is the Hello's; a peer that sends none is named by its route (older agents and
     * test clients whose routing id is the id itself) */
    const char *id = h->agent_id && h->agent_id[0] ? h->agent_id : route;
    size_t id_len = h->agent_id && h->agent_id[0] ? strlen(h->agent_id) : route_len;
    if (id_len >= sizeof((bf_fleet_agent_t *)0)->id) {
        reject(f, sock, route, route_len, "agent id longer than 127 bytes");
        return NULL;
    }
    const char *addr = peer->address[0] ? peer->address : BF_FLEET_NO_ADDRESS;
    bf_fleet_agent_t *a = bf_strmap_get(&f->by_id, id, id_len);
    if (a != NULL) {
        /* the same key: compare fingerprints (a key file renamed while running keeps its
         * key); without one, the allow-list names */
        int same_key = a->key_fp[0] || peer->key_fp[0] ? strcmp(a->key_fp, peer->key_fp) == 0
                                                       : strcmp(a->key_name, peer->user_id) == 0;
        int alive = 0;
        if (same_key) {
            struct pending_claim *pc = pending_of(f, a);
            int mine = pc && pc->route_len == route_len && memcmp(pc->route, route, route_len) == 0;
            if (mine && !decide) {
                /* waiting for the holder (resolve_claims decides): keep the newest Hello */
                int k = is_data ? 1 : 0;
                if (pc->hello[k])
                    bf__envelope__free_unpacked(pc->hello[k], NULL);
                pc->hello[k] = *envp; /* taken: the caller does not free it */
                *envp = NULL;
                pc->peer[k] = *peer;
                return NULL;
            }
            uint64_t probe = bf_clock_wall_us();
            alive = route_alive(f, a, probe);
            if (alive && !decide && pc == NULL) {
                /* the holder must prove it is there (struct pending_claim) */
                f->claims = bf_realloc(f->claims, (f->nclaims + 1) * sizeof *f->claims);
                pc = &f->claims[f->nclaims++];
                memset(pc, 0, sizeof *pc);
                pc->holder = a;
                memcpy(pc->route, route, route_len);
                pc->route_len = route_len;
                pc->since_us = pc->last_probe_us = bf_clock_mono_us();
                pc->probe_wall_us = probe;
                pc->hello[is_data ? 1 : 0] = *envp;
                *envp = NULL;
                pc->peer[is_data ? 1 : 0] = *peer;
                bf_debug("agent %s: a Hello from a new connection (%s) while its current one "
                         "still takes messages; asking that one whether it is there",
                         a->id, addr);
                return NULL;
            }
            /* alive with another claim waiting: a third party, refused below */
        }
        if (!same_key || alive) {
            char mine[192], theirs[192], why[512];
            key_words(a->key_name, a->key_fp, mine, sizeof mine);
            key_words(peer->user_id, peer->key_fp, theirs, sizeof theirs);
            if (!same_key)
                snprintf(why, sizeof why,
                         "agent id '%.127s' belongs to another key; start this agent with its "
                         "own --id",
                         a->id);
            else
                snprintf(why, sizeof why,
                         "agent id '%.127s' is already connected (from %s, host %s); two agents "
                         "must not share an id: start this one with its own --id",
                         a->id, a->peer[0] ? a->peer : BF_FLEET_NO_ADDRESS, a->hostname);
            reject(f, sock, route, route_len, why);
            f->claims_refused++;
            /* at most 5 warnings per 10 s (a claimant retrying floods); the data socket's Hello
             * of the same claimant says the same: counted, not logged */
            uint64_t now = bf_clock_mono_us();
            if (now - f->claim_window_us > 10000000u) {
                f->claim_window_us = now;
                f->claim_logged = 0;
            }
            if (!is_data && f->claim_logged++ < 5)
                bf_warn("refused agent id %s from %s (%s, host %s): that id belongs to the agent "
                        "connected from %s (%s, host %s)%s; the agent holding it goes on%s "
                        "(%llu refused so far)",
                        a->id, addr, theirs, h->hostname ? h->hostname : "?",
                        a->peer[0] ? a->peer : BF_FLEET_NO_ADDRESS, mine, a->hostname,
                        same_key ? ", which is still there: two agents with one id" : "",
                        same_key ? "; give each agent its own --id (a stopped agent frees its "
                                   "id at once, a cut-off one when it is lost)"
                                 : "; give each agent its own --id and key",
                        (unsigned long long)f->claims_refused);
            return NULL;
        }
        /* a restarted agent: its old connection is gone, the id moves to the new route */
        bf_strmap_del(&f->by_route, a->route, a->route_len);
        a->has_data_route = 0; /* until the new process's data socket says Hello */
        bf_info("agent %s comes back as a new process from %s (its earlier connection is gone)",
                a->id, addr);
    } else {
        a = bf_calloc(1, sizeof *a);
        memcpy(a->id, id, id_len);
        a->id_len = id_len;
        bf_strlcpy(a->key_name, peer->user_id, sizeof a->key_name);
        bf_strlcpy(a->key_fp, peer->key_fp, sizeof a->key_fp);
        f->agents = bf_realloc(f->agents, (f->nagents + 1) * sizeof *f->agents);
        f->agents[f->nagents++] = a;
        bf_strmap_put(&f->by_id, a->id, a->id_len, a); /* id_len < 128: cannot fail */
        if (!f->fd_warned && fds_needed(f->nagents + 1) > f->fd_limit) {
            f->fd_warned = 1;
            bf_warn("%zu agents have joined and the descriptor limit is %llu (%d per agent + "
                    "%d): more agents cannot connect; raise ulimit -n (LimitNOFILE= in a "
                    "systemd unit) or pass --agents with the fleet's size",
                    f->nagents, (unsigned long long)f->fd_limit, BF_FLEET_FDS_PER_AGENT,
                    BF_FLEET_FD_RESERVE);
        }
    }
    memcpy(a->route, route, route_len);
    a->route_len = route_len;
    bf_strmap_put(&f->by_route, a->route, a->route_len, a); /* <= 256 bytes: cannot fail */
    if (peer->address[0])
        bf_strlcpy(a->peer, peer->address, sizeof a->peer);
    return a;
}

static void on_hello(bf_fleet_t *f, void *sock, bf_fleet_agent_t *a, const Bf__Hello *h,
                     int is_data)
{
    const char *route = a->route;
    size_t route_len = a->route_len;
    int was_lost = a->session == BF_AS_LOST;
    int is_new = a->session == BF_AS_CONNECTED; /* not yet welcomed */
    bf_strlcpy(a->hostname, h->hostname ? h->hostname : "", sizeof a->hostname);
    a->cores = h->cores ? h->cores : 1;
    a->threads = h->threads ? h->threads : a->cores;
    a->last_seen_us = bf_clock_mono_us();
    a->stalled_seen_us = f->stalled_us;
    a->suspect = 0;
    if (is_data) {
        a->has_data_route = 1;
    } else {
        /* a fresh ping exchange measures the clock (bf_fleet.h): not the Hello's own time,
         * which may have waited in a queue before we listened */
        a->clock_offset_us = 0;
        a->clock_rtt_us = 0;
        a->clock_samples = 0;
        if (a->ping_burst == 0)
            f->bursting++;
        a->ping_burst = BF_CLOCK_PINGS;
        a->aws_gen = 0; /* a restarted agent has no credentials: the next Ping ships them */
        bf_strlcpy(a->held_cell, h->cell_id ? h->cell_id : "", sizeof a->held_cell);
        a->can_end_load = 0;
        for (size_t i = 0; i < h->n_capabilities; i++)
            a->can_end_load |= h->capabilities[i] && strcmp(h->capabilities[i], "end_load") == 0;
        a->held_last_seq = h->last_seq;
        a->held_state = h->state;
        if (h->state != BF__AGENT_STATE__AGENT_RUNNING)
            a->draining = 0; /* nothing of an earlier cell in flight any more */
        /* what the agent has cached is what this Hello says: a restarted agent has nothing */
        agent_files_reset(a);
        /* bounded before any work: at most BF_MAX_AGENT_FILES of the hashes are looked at */
        size_t nf = h->n_cached_files < BF_MAX_AGENT_FILES ? h->n_cached_files : BF_MAX_AGENT_FILES;
        if (h->n_cached_files > BF_MAX_AGENT_FILES && a->files_warned++ == 0)
            bf_warn("agent %s lists %zu cached files, more than %d: only the first %d are "
                    "remembered",
                    a->id, h->n_cached_files, BF_MAX_AGENT_FILES, BF_MAX_AGENT_FILES);
        for (size_t i = 0; i < nf; i++)
            bf_fleet_agent_add_file(a, h->cached_files[i]);
        if (a->session == BF_AS_CONNECTED || a->session == BF_AS_LOST)
            a->session = BF_AS_IDLE;
        Bf__Welcome w = BF__WELCOME__INIT;
        w.heartbeat_ms = f->opts.heartbeat_ms;
        w.suspect_ms = f->opts.suspect_ms;
        w.lost_ms = f->opts.lost_ms;
        w.deadman_ms = f->opts.deadman_ms;
        w.clock_offset_us = a->clock_offset_us;
        w.resend_samples = f->resend ? f->resend(f->ctx, a) : 0;
        Bf__Envelope env;
        bf_wire_init(&env);
        env.body_case = BF__ENVELOPE__BODY_WELCOME;
        env.welcome = &w;
        bf_wire_send(sock, route, route_len, &env, ZMQ_DONTWAIT);
        /* An agent repeats its Hello every 1-8 s until a Welcome comes, and ZeroMQ queues each
         * one while the coordinator is not yet bound: an agent started 3 s before the
         * coordinator delivers three at once ("said hello again" twice at join). A
         * Hello within suspect_ms of our last Welcome cannot come from an agent that missed us
         * for suspect_ms (what makes it say hello again), so it was sent before that Welcome
         * arrived: the same join, answered again, said at debug level only. */
        uint64_t now_us = bf_clock_mono_us();
        int repeat = !is_new && !was_lost && a->welcomed_us &&
                     now_us - a->welcomed_us < (uint64_t)f->opts.suspect_ms * 1000u;
        a->welcomed_us = now_us;
        if (repeat)
            bf_debug("agent %s repeated its Hello (sent before our Welcome reached it, e.g. "
                     "queued while the coordinator was not yet listening): welcomed again",
                     a->id);
        else
            bf_info("agent %s (%s, %u cores, %u threads) %s", a->id, a->hostname, a->cores,
                    a->threads,
                    is_new     ? "joined"
                    : was_lost ? "is back"
                               : "said hello again");
        if (was_lost && f->event)
            f->event(f->ctx, a, 0);
    }
}

/* 1 when a refused message (rc: BF_E_RANGE too big, BF_E_PROTO not an envelope) from the
 * peer at address (libzmq's Peer-Address, "" when unknown) is the first of its kind from it,
 * so it is logged once per peer; past BF_FLEET_BAD_PEERS peers (a flood from many addresses),
 * 1 at most every 10 s. */
static int bad_peer_first(bf_fleet_t *f, const char *address, int rc)
{
    char key[80];
    int n = snprintf(key, sizeof key, "%d %s", rc, address);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof key ? (size_t)n : sizeof key - 1;
    if (bf_strmap_get(&f->bad_peers, key, len))
        return 0;
    if (bf_strmap_len(&f->bad_peers) < BF_FLEET_BAD_PEERS) {
        bf_strmap_put(&f->bad_peers, key, len, f); /* any non-NULL value: "logged" */
        return 1;
    }
    uint64_t now = bf_clock_mono_us();
    if (f->bad_logged_us != 0 && now - f->bad_logged_us <= 10000000u)
        return 0;
    f->bad_logged_us = now;
    return 1;
}

/* a stretch from t0 to t1 (µs) in which the fleet was expected to take allowed_us at most:
 * past that by more than BF_FLEET_STALL_MS, all of the excess is a stall of this coordinator */
static void note_stall(bf_fleet_t *f, uint64_t t0_us, uint64_t t1_us, uint64_t allowed_us)
{
    if (t1_us > t0_us && t1_us - t0_us > allowed_us + (uint64_t)BF_FLEET_STALL_MS * 1000u)
        f->stalled_us += t1_us - t0_us - allowed_us;
}

uint64_t bf_fleet_stalled_us(const bf_fleet_t *f)
{
    return f->stalled_us;
}

/* how long agent a has been silent while this coordinator listened (µs) */
static uint64_t silent_us(const bf_fleet_t *f, const bf_fleet_agent_t *a, uint64_t now)
{
    uint64_t silent = now > a->last_seen_us ? now - a->last_seen_us : 0;
    uint64_t stalled = f->stalled_us - a->stalled_seen_us;
    return silent > stalled ? silent - stalled : 0;
}

static void drain(bf_fleet_t *f, void *sock, int is_data)
{
    for (int k = 0; k < 1000; k++) {
        char route[BF_MAX_ROUTE_BYTES];
        size_t route_len = 0;
        Bf__Envelope *env = NULL;
        bf_wire_peer_t peer;
        int rc = bf_wire_recv_peer(sock, route, &route_len, &peer, &env, ZMQ_DONTWAIT);
        if (rc == BF_E_IO)
            return;
        if (rc == BF_E_PROTO || rc == BF_E_RANGE) {
            /* counted, answered, and logged at most every 10 s (a broken peer may flood) */
            const char *why = rc == BF_E_RANGE ? "Hello larger than 64 KiB"
                                               : "message is not a bulkfleet envelope";
            f->bad_frames++;
            if (bad_peer_first(f, peer.address, rc))
                bf_warn("refused a message from peer '%.*s' (%s) on the %s socket: %s (%llu "
                        "malformed so far; logged once per peer)",
                        (int)(route_len < 64 ? route_len : 64), route,
                        peer.address[0] ? peer.address : BF_FLEET_NO_ADDRESS,
                        is_data ? "data" : "control", why, (unsigned long long)f->bad_frames);
            if (route_len > 0)
                reject(f, sock, route, route_len, why);
            continue;
        }
        bf_diag_t vd = {0};
        if (bf_wire_check_version(env, &vd) != BF_OK) {
            bf_warn("refused a peer from %s: %s",
                    peer.address[0] ? peer.address : BF_FLEET_NO_ADDRESS, vd.msg);
            reject(f, sock, route, route_len, vd.msg);
            bf__envelope__free_unpacked(env, NULL);
            continue;
        }
        /* a route belongs to the key that brought its agent in; a message on it from another
         * key means someone presented the route itself (it carries a nonce only its agent
         * knows, so this is a defence in depth): ignored */
        bf_fleet_agent_t *owner = find(f, route, route_len);
        if (owner && strcmp(owner->key_name, peer.user_id) != 0) {
            if (f->hijacks++ % 100 == 0)
                bf_warn("ignored a %s on the route of agent %s from key '%s': that route belongs "
                        "to key '%s'",
                        bf_wire_body_name(env), owner->id, peer.user_id, owner->key_name);
            bf__envelope__free_unpacked(env, NULL);
            continue;
        }
        if (env->body_case == BF__ENVELOPE__BODY_HELLO && owner == NULL && route_len > 0 &&
            route[0] == 0 && env->hello->agent_id && env->hello->agent_id[0]) {
            /* A route libzmq made up (a zero byte, then a counter; agents always set their own
             * route): when an agent reconnects with the same route, ROUTER_HANDOVER gives the
             * route to the new connection and renames the old one's pipe so, and the Hellos the
             * agent said again while we were busy (a cell start that blocked > 10 s) still wait
             * on it. Claiming with them refused the agent as a duplicate of itself (a new user,
             * run --local-agents 2 on a loaded machine), or took its id away from its live
             * route; the agent's new connection says Hello by itself. */
            if (f->strangers++ % 100 == 0)
                bf_debug("ignored a Hello of agent %.127s queued on a connection it replaced",
                         env->hello->agent_id);
            bf__envelope__free_unpacked(env, NULL);
            continue;
        }
        if (env->body_case == BF__ENVELOPE__BODY_HELLO) {
            bf_fleet_agent_t *a =
                owner ? owner : claim(f, sock, route, route_len, &env, &peer, is_data, 0);
            if (a)
                on_hello(f, sock, a, env->hello, is_data);
            if (env == NULL)
                continue; /* kept by a claim that waits (struct pending_claim) */
        } else {
            bf_fleet_agent_t *a = find(f, route, route_len);
            if (a == NULL) {
                /* a peer that never said hello (we restarted): it says Hello by itself once it
                 * hears nothing from us; a Reject here would end a perfectly good agent */
                if (f->strangers++ % 100 == 0)
                    bf_debug("ignored a %s from an agent that has not said Hello",
                             bf_wire_body_name(env));
            } else {
                int was_lost = a->session == BF_AS_LOST;
                a->last_seen_us = bf_clock_mono_us();
                a->stalled_seen_us = f->stalled_us;
                a->suspect = 0;
                if (was_lost) {
                    a->session = BF_AS_IDLE;
                    if (f->event)
                        f->event(f->ctx, a, 0);
                }
                if (env->body_case == BF__ENVELOPE__BODY_PING && !is_data) {
                    bf_wire_send_pong(sock, route, route_len, env->ping, ZMQ_DONTWAIT);
                } else if (env->body_case == BF__ENVELOPE__BODY_PONG) {
                    struct pending_claim *pc = f->nclaims ? pending_of(f, a) : NULL;
                    if (pc && env->pong->echo_wall_us == pc->probe_wall_us)
                        pc->proven = 1; /* only a live process answers the probe */
                    /* clock offset = midpoint of the round trip - the agent's clock then */
                    uint64_t now_wall = bf_clock_wall_us(), sent = env->pong->echo_wall_us;
                    if (sent && sent <= now_wall && env->pong->wall_us) {
                        if (a->clock_rtt_us == 0 || now_wall - sent < a->clock_rtt_us) {
                            a->clock_rtt_us = now_wall - sent;
                            a->clock_offset_us = (int64_t)(sent + (now_wall - sent) / 2) -
                                                 (int64_t)env->pong->wall_us;
                        }
                        if (++a->clock_samples == BF_CLOCK_PINGS)
                            bf_info("agent %s: clock offset %+.1f ms (best round trip %.1f ms "
                                    "of %u)",
                                    a->id, (double)a->clock_offset_us / 1e3,
                                    (double)a->clock_rtt_us / 1e3, BF_CLOCK_PINGS);
                    }
                } else if (f->handler) {
                    uint64_t t0 = bf_clock_mono_us();
                    f->handler(f->ctx, a, env, is_data);
                    note_stall(f, t0, bf_clock_mono_us(), 0);
                }
            }
        }
        bf__envelope__free_unpacked(env, NULL);
    }
}

/* Decide the claims that wait for their holder (struct pending_claim): refused once the holder
 * answered the probe (or spoke for BF_FLEET_CLAIM_WAIT_MS without answering it), granted once
 * its route is gone or it is lost; each waiting Hello then goes through claim() again. */
static void resolve_claims(bf_fleet_t *f)
{
    uint64_t now = bf_clock_mono_us();
    for (size_t i = 0; i < f->nclaims;) {
        struct pending_claim *pc = &f->claims[i];
        bf_fleet_agent_t *holder = pc->holder;
        int waited = now - pc->since_us > (uint64_t)BF_FLEET_CLAIM_WAIT_MS * 1000u;
        int heard = holder->last_seen_us > pc->since_us;
        if (!pc->proven && !(waited && heard)) {
            if (now - pc->last_probe_us < (uint64_t)BF_FLEET_CLAIM_PROBE_MS * 1000u) {
                i++;
                continue;
            }
            pc->last_probe_us = now;
            if (route_alive(f, holder, pc->probe_wall_us)) {
                i++;
                continue;
            }
        }
        struct pending_claim d = *pc; /* its Hellos move to d */
        f->claims[i] = f->claims[--f->nclaims];
        for (int k = 0; k < 2; k++) {
            Bf__Envelope *env = d.hello[k];
            if (env == NULL)
                continue;
            void *sock = k ? f->data : f->ctrl;
            /* the data Hello after a granted control Hello finds its route taken by then */
            bf_fleet_agent_t *a = find(f, d.route, d.route_len);
            if (a == NULL)
                a = claim(f, sock, d.route, d.route_len, &env, &d.peer[k], k, 1);
            if (a)
                on_hello(f, sock, a, env->hello, k);
            bf__envelope__free_unpacked(env, NULL);
        }
    }
}

int bf_fleet_poll(bf_fleet_t *f, int timeout_ms)
{
    zmq_pollitem_t items[2] = {{f->ctrl, 0, ZMQ_POLLIN, 0}, {f->data, 0, ZMQ_POLLIN, 0}};
    /* the caller's time away from the fleet, and a wait that overran (the process stopped) */
    uint64_t t0 = bf_clock_mono_us();
    if (f->returned_us)
        note_stall(f, f->returned_us, t0, 0);
    int n = zmq_poll(items, 2, timeout_ms);
    note_stall(f, t0, bf_clock_mono_us(), timeout_ms > 0 ? (uint64_t)timeout_ms * 1000u : 0);
    f->returned_us = bf_clock_mono_us();
    if (n < 0)
        return errno == EINTR ? BF_E_INTR : BF_E_IO;
    if (items[1].revents & ZMQ_POLLIN)
        drain(f, f->data, 1);
    if (items[0].revents & ZMQ_POLLIN)
        drain(f, f->ctrl, 0);
    if (f->nclaims)
        resolve_claims(f);
    uint64_t now = bf_clock_mono_us();
    f->returned_us = now;
    /* the liveness scan is O(agents): run it at most every BF_FLEET_SCAN_MS, not on every
     * wake-up (with 1000 agents the poll wakes for nearly every sample) */
    if (now - f->last_scan_us < (uint64_t)BF_FLEET_SCAN_MS * 1000u)
        return BF_OK;
    f->last_scan_us = now;
    for (size_t i = 0; i < f->nagents; i++) {
        bf_fleet_agent_t *a = f->agents[i];
        if (a->session == BF_AS_LOST)
            continue;
        uint64_t silent_ms = silent_us(f, a, now) / 1000u;
        if (silent_ms > f->opts.lost_ms) {
            a->session = BF_AS_LOST;
            uint64_t stalled_ms = (f->stalled_us - a->stalled_seen_us) / 1000u;
            if (stalled_ms)
                bf_warn("agent %s (%s) lost: silent for %llu ms while this coordinator listened "
                        "(and %llu ms more while it was stalled: not counted)",
                        a->id, a->hostname, (unsigned long long)silent_ms,
                        (unsigned long long)stalled_ms);
            else
                bf_warn("agent %s (%s) lost: silent for %llu ms", a->id, a->hostname,
                        (unsigned long long)silent_ms);
            if (f->event)
                f->event(f->ctx, a, 1);
        } else if (silent_ms > f->opts.suspect_ms && !a->suspect) {
            a->suspect = 1;
            bf_warn("agent %s (%s) suspect: silent for %llu ms", a->id, a->hostname,
                    (unsigned long long)silent_ms);
        }
    }
    /* the ping exchange after a Hello: BF_CLOCK_PINGS Pings 20 ms apart (only agents that
     * said Hello are visited: f->bursting counts them) */
    if (f->bursting && now - f->last_burst_us > 20000u) {
        f->last_burst_us = now;
        Bf__Ping bp = BF__PING__INIT;
        Bf__Envelope benv;
        bf_wire_init(&benv);
        benv.body_case = BF__ENVELOPE__BODY_PING;
        benv.ping = &bp;
        for (size_t i = 0; i < f->nagents && f->bursting; i++) {
            bf_fleet_agent_t *a = f->agents[i];
            if (a->ping_burst == 0)
                continue;
            bp.wall_us = bf_clock_wall_us();
            bf_fleet_send(f, a, &benv, 0);
            if (--a->ping_burst == 0)
                f->bursting--;
        }
    }
    /* heartbeat: ping every agent when nothing else flows (cheap: one small message/s); with
     * target.auth.aws.ship the Ping of an agent whose credentials are older carries the new */
    if (now - f->last_ping_us > (uint64_t)f->opts.heartbeat_ms * 1000u) {
        f->last_ping_us = now;
        Bf__Ping p = BF__PING__INIT;
        p.wall_us = bf_clock_wall_us();
        Bf__Envelope env;
        bf_wire_init(&env);
        env.body_case = BF__ENVELOPE__BODY_PING;
        env.ping = &p;
        bf_aws_creds_t creds = {0};
        Bf__AwsCredentials pb = BF__AWS_CREDENTIALS__INIT;
        uint64_t gen = f->aws_ship ? aws_current(f, &creds, &pb) : 0;
        for (size_t i = 0; i < f->nagents; i++) {
            bf_fleet_agent_t *a = f->agents[i];
            if (a->session == BF_AS_LOST)
                continue;
            int ship = gen != 0 && a->aws_gen != gen && a->session >= BF_AS_WELCOMED;
            p.aws = ship ? &pb : NULL;
            if (bf_fleet_send(f, a, &env, 0) == BF_OK && ship)
                a->aws_gen = gen;
        }
        bf_aws_creds_cleanup(&creds);
    }
    return BF_OK;
}

/* The coordinator's credentials to ship into *c and *pb (pb's strings point into c) and their
 * generation; 0 (and a warning at most every 10 s) when it has none. */
static uint64_t aws_current(bf_fleet_t *f, bf_aws_creds_t *c, Bf__AwsCredentials *pb)
{
    uint64_t gen = 0;
    bf_diag_t d = {0};
    if (bf_aws_ship_current(f->aws_ship, c, &gen, &d) != BF_OK) {
        uint64_t now = bf_clock_mono_us();
        if (f->aws_warned_us == 0 || now - f->aws_warned_us > 10000000u) {
            f->aws_warned_us = now;
            bf_warn("target.auth.aws.ship: no credentials to ship to the agents: %s", d.msg);
        }
        bf_aws_creds_cleanup(c);
        return 0;
    }
    pb->key_id = c->key_id;
    pb->secret = c->secret;
    pb->token = c->token ? c->token : (char *)"";
    pb->expires_unix = (int64_t)c->expires;
    pb->source = c->source;
    return gen;
}

void bf_fleet_set_aws_ship(bf_fleet_t *f, const bf_target_t *t)
{
    f->aws_ship = t;
}

int bf_fleet_aws_ship(bf_fleet_t *f, bf_fleet_agent_t *a, bf_aws_creds_t *c, Bf__AwsCredentials *pb)
{
    memset(c, 0, sizeof *c);
    if (f->aws_ship == NULL)
        return 0;
    uint64_t gen = aws_current(f, c, pb);
    if (gen == 0)
        return 0;
    a->aws_gen = gen;
    return 1;
}
