/* SPDX-License-Identifier: MIT */
/* test_fleet.c — bf_fleet against a real DEALER on loopback: Hello/Welcome, Reject on a major
 * mismatch, liveness (suspect, lost, back), cached dictionary files, and the regression where a
 * restarted coordinator rejected (and so ended) agents that had not said Hello to it yet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_clock.h"
#include "bf_error.h"
#include "bf_fleet.h"
#include "bf_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

static const char SHA_A[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char SHA_B[] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

typedef struct fixture {
    bf_fleet_t *fleet;
    void *zctx, *ctrl, *data;
    void *extra; /* a test's second DEALER, closed by teardown (also after a failed assert) */
    char ctrl_ep[64], data_ep[64];
    int lost_events, back_events, handled;
    int stall_ms; /* the next handler call takes this long (a slow results disk), then 0 */
} fixture;

static void on_msg(void *ctx, bf_fleet_agent_t *a, const Bf__Envelope *env, int is_data)
{
    (void)a;
    (void)env;
    (void)is_data;
    fixture *fx = ctx;
    fx->handled++;
    if (fx->stall_ms) {
        usleep((useconds_t)fx->stall_ms * 1000u);
        fx->stall_ms = 0;
    }
}

static void on_event(void *ctx, bf_fleet_agent_t *a, int lost)
{
    (void)a;
    fixture *fx = ctx;
    if (lost)
        fx->lost_events++;
    else
        fx->back_events++;
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    for (int attempt = 0; attempt < 50 && fx->fleet == NULL; attempt++) {
        bf_diag_t diag = {0};
        int port = 20000 + (int)((getpid() * 7 + attempt * 131) % 30000);
        snprintf(fx->ctrl_ep, sizeof fx->ctrl_ep, "tcp://127.0.0.1:%d", port);
        snprintf(fx->data_ep, sizeof fx->data_ep, "tcp://127.0.0.1:%d", port + 1);
        bf_fleet_opts_t o = {.control_bind = fx->ctrl_ep,
                             .data_bind = fx->data_ep,
                             .heartbeat_ms = 100,
                             .suspect_ms = 400,
                             .lost_ms = 800};
        fx->fleet = bf_fleet_new(&o, &diag);
    }
    assert_non_null(fx->fleet);
    bf_fleet_set_handler(fx->fleet, on_msg, on_event, fx);
    fx->zctx = zmq_ctx_new();
    fx->ctrl = zmq_socket(fx->zctx, ZMQ_DEALER);
    fx->data = zmq_socket(fx->zctx, ZMQ_DEALER);
    bf_wire_socket_setup(fx->ctrl, 0, 0);
    bf_wire_socket_setup(fx->data, 0, 0);
    zmq_setsockopt(fx->ctrl, ZMQ_ROUTING_ID, "t1", 2);
    zmq_setsockopt(fx->data, ZMQ_ROUTING_ID, "t1", 2);
    assert_int_equal(zmq_connect(fx->ctrl, fx->ctrl_ep), 0);
    assert_int_equal(zmq_connect(fx->data, fx->data_ep), 0);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    int linger = 0;
    void *socks[] = {fx->ctrl, fx->data, fx->extra};
    for (size_t i = 0; i < sizeof socks / sizeof socks[0]; i++) {
        if (socks[i] != NULL) {
            zmq_setsockopt(socks[i], ZMQ_LINGER, &linger, sizeof linger);
            zmq_close(socks[i]);
        }
    }
    zmq_ctx_term(fx->zctx);
    bf_fleet_destroy(&fx->fleet);
    assert_null(fx->fleet);
    free(fx);
    return 0;
}

static void send_hello(void *sock, uint32_t major, int data, const char *const *files, size_t nfiles)
{
    Bf__Hello h = BF__HELLO__INIT;
    h.agent_id = (char *)"t1";
    h.hostname = (char *)"unit";
    h.cores = 4;
    h.wall_us = bf_clock_wall_us() - 2000000u; /* agent clock 2 s behind */
    h.data_socket = data;
    h.cached_files = (char **)files;
    h.n_cached_files = nfiles;
    h.state = BF__AGENT_STATE__AGENT_DRAINING;
    h.cell_id = (char *)"c1";
    h.last_seq = 7;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.major = major;
    env.body_case = BF__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    assert_int_equal(bf_wire_send(sock, NULL, 0, &env, 0), BF_OK);
}

static void send_ping(void *sock)
{
    Bf__Ping p = BF__PING__INIT;
    p.wall_us = bf_clock_wall_us();
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_PING;
    env.ping = &p;
    assert_int_equal(bf_wire_send(sock, NULL, 0, &env, 0), BF_OK);
}

/* Polls the fleet for ms and returns the first message of type `want` the DEALER got (or NULL).
 * Caller frees with bf__envelope__free_unpacked. */
static Bf__Envelope *pump(fixture *fx, int ms, Bf__Envelope__BodyCase want)
{
    uint64_t end = bf_clock_mono_us() + (uint64_t)ms * 1000u;
    Bf__Envelope *found = NULL;
    while (bf_clock_mono_us() < end) {
        bf_fleet_poll(fx->fleet, 10);
        Bf__Envelope *env = NULL;
        while (bf_wire_recv(fx->ctrl, NULL, NULL, &env, ZMQ_DONTWAIT) == BF_OK) {
            if (found == NULL && env->body_case == want)
                found = env;
            else
                bf__envelope__free_unpacked(env, NULL);
        }
        if (found)
            break;
    }
    return found;
}

static void test_hello_welcome_and_cached_files(void **state)
{
    fixture *fx = *state;
    const char *files[] = {SHA_A, "not-a-hash"};
    send_hello(fx->data, BF_PROTO_MAJOR, 1, NULL, 0);
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, files, 2);
    Bf__Envelope *w = pump(fx, 2000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    assert_int_equal(w->welcome->lost_ms, 800);
    /* the Hello's own time (2 s old here) is not taken for the clock: no estimate yet */
    assert_int_equal(w->welcome->clock_offset_us, 0);
    bf__envelope__free_unpacked(w, NULL);
    assert_int_equal(bf_fleet_count(fx->fleet), 1);
    /* the data socket's Hello travels on its own connection: it may arrive after the Welcome */
    uint64_t until = bf_clock_mono_us() + 2000000u;
    while (bf_fleet_ready_count(fx->fleet) < 1 && bf_clock_mono_us() < until)
        bf_fleet_poll(fx->fleet, 10);
    assert_int_equal(bf_fleet_ready_count(fx->fleet), 1);
    bf_fleet_agent_t *a = bf_fleet_agent(fx->fleet, 0);
    assert_string_equal(a->id, "t1");
    assert_int_equal(a->cores, 4);
    assert_string_equal(a->held_cell, "c1");
    assert_int_equal(a->held_state, BF__AGENT_STATE__AGENT_DRAINING);
    assert_true(bf_fleet_agent_has_file(a, SHA_A));
    assert_false(bf_fleet_agent_has_file(a, "not-a-hash")); /* not a sha256: ignored */
    bf_fleet_agent_add_file(a, SHA_B);
    bf_fleet_agent_add_file(a, SHA_B);
    assert_int_equal(a->nfiles, 2);
    /* a new Hello (a restarted agent) says what it has now: nothing */
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, NULL, 0);
    w = pump(fx, 2000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    bf__envelope__free_unpacked(w, NULL);
    assert_false(bf_fleet_agent_has_file(a, SHA_A));
    assert_int_equal(a->nfiles, 0);
}

/* Answers every Ping the DEALER got with a Pong whose clock is agent_skew_us off the real one,
 * for ms while the fleet polls. */
static void answer_pings(fixture *fx, int ms, int64_t agent_skew_us)
{
    uint64_t end = bf_clock_mono_us() + (uint64_t)ms * 1000u;
    while (bf_clock_mono_us() < end) {
        bf_fleet_poll(fx->fleet, 5);
        Bf__Envelope *env = NULL;
        while (bf_wire_recv(fx->ctrl, NULL, NULL, &env, ZMQ_DONTWAIT) == BF_OK) {
            if (env->body_case == BF__ENVELOPE__BODY_PING) {
                Bf__Pong pong = BF__PONG__INIT;
                pong.wall_us = (uint64_t)((int64_t)bf_clock_wall_us() + agent_skew_us);
                pong.echo_wall_us = env->ping->wall_us;
                Bf__Envelope out;
                bf_wire_init(&out);
                out.body_case = BF__ENVELOPE__BODY_PONG;
                out.pong = &pong;
                bf_wire_send(fx->ctrl, NULL, 0, &out, 0);
            }
            bf__envelope__free_unpacked(env, NULL);
        }
    }
}

/* The clock offset comes from the ping exchange after the Hello, not from the Hello: here the
 * Hello says the agent's clock is 2 s behind (it waited in a queue), the Pongs say 300 ms
 * ahead; the estimate follows the Pongs (it used to be the Hello's one-way +2 s until a Pong
 * with a smaller round trip than "none" came). */
static void test_clock_offset_from_ping_exchange(void **state)
{
    fixture *fx = *state;
    send_hello(fx->data, BF_PROTO_MAJOR, 1, NULL, 0);
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, NULL, 0);
    /* the burst is 4 Pings 20 ms apart: answered within 300 ms on an idle machine; a loaded
     * one (1 run in 40 beside a build) needs longer, and its round trips are long, so wait
     * for the burst and a round trip under 40 ms (the heartbeats' Pongs count too), at most
     * 3 s */
    uint64_t until = bf_clock_mono_us() + 3000000u;
    bf_fleet_agent_t *a = NULL;
    do {
        answer_pings(fx, 20, 300000);
        a = bf_fleet_agent(fx->fleet, 0);
    } while ((a == NULL || a->clock_samples < BF_CLOCK_PINGS || a->clock_rtt_us == 0 ||
              a->clock_rtt_us > 40000) &&
             bf_clock_mono_us() < until);
    assert_int_equal(bf_fleet_count(fx->fleet), 1);
    assert_true(a->clock_samples >= BF_CLOCK_PINGS); /* the burst came back */
    assert_true(a->clock_rtt_us > 0);
    /* the estimate is off by at most half its round trip (NTP's bound with t2 = t3) */
    int64_t err_us = a->clock_offset_us + 300000;
    printf("clock offset %+.1f ms, round trip %.1f ms\n", (double)a->clock_offset_us / 1e3,
           (double)a->clock_rtt_us / 1e3);
    assert_true(err_us <= (int64_t)a->clock_rtt_us / 2 + 1000 &&
                -err_us <= (int64_t)a->clock_rtt_us / 2 + 1000);
}

static uint64_t thread_cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Every message's work is bounded before any scan: a 4 MB Hello with 60,000 file hashes (one
 * peer's worth of junk) costs the coordinator's loop a few milliseconds, not a scan of the
 * remembered files per hash (it was 60,000 x 1024 comparisons). */
static void test_huge_hello_is_cheap(void **state)
{
    fixture *fx = *state;
    enum { N = 60000 };
    char(*hex)[65] = calloc(N, sizeof *hex);
    const char **files = calloc(N, sizeof *files);
    for (size_t i = 0; i < N; i++) {
        snprintf(hex[i], sizeof hex[i], "%064zx", i * 2654435761u + 1);
        files[i] = hex[i];
    }
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, files, N);
    uint64_t worst_us = 0, bad = 0, rejects = 0;
    uint64_t until = bf_clock_mono_us() + 5000000u;
    while (bad == 0 && bf_clock_mono_us() < until) {
        /* the poll's cost is CPU time of this thread: wall time on a loaded machine also
         * counts the time it waited for a core (186 ms seen in 1 run of 50 beside 3 busy
         * loops) */
        uint64_t t0 = thread_cpu_us();
        bf_fleet_poll(fx->fleet, 0);
        uint64_t dt = thread_cpu_us() - t0;
        bf_fleet_stats(fx->fleet, &bad, &rejects);
        if (bad && dt > worst_us)
            worst_us = dt; /* the poll that took the Hello in */
        usleep(1000);
    }
    /* refused by its size before anything was unpacked, counted, answered */
    assert_int_equal(bad, 1);
    assert_int_equal(rejects, 1);
    assert_int_equal(bf_fleet_count(fx->fleet), 0);
    printf("60000-hash Hello refused in %.1f ms of CPU\n", (double)worst_us / 1000.0);
    /* it cost 1535 ms when each hash was looked up in the remembered files, 27-53 ms on this
     * loaded machine when capped but unpacked; 25 ms leaves room for a loaded machine */
    assert_true(worst_us < 25000);
    /* the cap of remembered files holds for what a Hello within the size lists, too */
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, files, 900);
    until = bf_clock_mono_us() + 5000000u;
    while (bf_fleet_count(fx->fleet) < 1 && bf_clock_mono_us() < until)
        bf_fleet_poll(fx->fleet, 10);
    assert_int_equal(bf_fleet_count(fx->fleet), 1);
    bf_fleet_agent_t *a = bf_fleet_agent(fx->fleet, 0);
    assert_int_equal(a->nfiles, 900);
    assert_true(bf_fleet_agent_has_file(a, hex[0]));
    assert_true(bf_fleet_agent_has_file(a, hex[899]));
    assert_false(bf_fleet_agent_has_file(a, hex[900]));
    free(files);
    free(hex);
}

static void test_major_mismatch_rejected_with_reason(void **state)
{
    fixture *fx = *state;
    send_hello(fx->ctrl, BF_PROTO_MAJOR + 6, 0, NULL, 0);
    Bf__Envelope *r = pump(fx, 2000, BF__ENVELOPE__BODY_REJECT);
    assert_non_null(r);
    assert_non_null(strstr(r->reject->reason, "protocol major 7"));
    bf__envelope__free_unpacked(r, NULL);
    assert_int_equal(bf_fleet_count(fx->fleet), 0);
    uint64_t bad = 0, rejects = 0;
    bf_fleet_stats(fx->fleet, &bad, &rejects);
    assert_int_equal(rejects, 1);
}

/* a message of another protocol major that is not a Hello (an agent of
 * another release pinging a coordinator that restarted) was refused as "a peer from ?": the
 * address is read for it too. The coordinator's stderr is captured for the check. */
static void test_major_mismatch_logs_the_address(void **state)
{
    fixture *fx = *state;
    char path[] = "/tmp/bf-fleet-log.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    Bf__Ping p = BF__PING__INIT;
    p.wall_us = bf_clock_wall_us();
    Bf__Envelope env;
    bf_wire_init(&env);
    env.major = BF_PROTO_MAJOR + 6;
    env.body_case = BF__ENVELOPE__BODY_PING;
    env.ping = &p;
    assert_int_equal(bf_wire_send(fx->ctrl, NULL, 0, &env, 0), BF_OK);
    Bf__Envelope *r = pump(fx, 2000, BF__ENVELOPE__BODY_REJECT);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    assert_non_null(r);
    bf__envelope__free_unpacked(r, NULL);
    char log[4096];
    ssize_t n = pread(fd, log, sizeof log - 1, 0);
    close(fd);
    unlink(path);
    assert_true(n > 0);
    log[n] = '\0';
    print_message("%s", log);
    assert_non_null(strstr(log, "refused a peer from 127.0.0.1: protocol major 7"));
    assert_null(strstr(log, "from ?"));
}

/* a refused oversize Hello is logged once per peer, with its address. Over
 * 64 KiB and within the 4 MiB socket cap the fleet reads it, refuses it and logs it once
 * (twice sent: one line); over the cap libzmq drops the connection before the fleet sees a
 * byte, and the handshake watcher logs the address whose connections keep closing (3 peers
 * sending 5 MiB: one line). The coordinator's stderr is captured for the check. */
static int count_in(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_oversize_hello_logged_once_per_peer(void **state)
{
    fixture *fx = *state;
    char path[] = "/tmp/bf-fleet-log.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    /* within the cap: 2000 hashes, about 130 KiB */
    enum { N = 2000 };
    static char hex[N][65];
    const char *files[N];
    for (size_t i = 0; i < N; i++) {
        snprintf(hex[i], sizeof hex[i], "%064zx", i + 1);
        files[i] = hex[i];
    }
    uint64_t bad = 0, rejects = 0;
    /* twice from 127.0.0.1, twice from 127.0.0.2 (a second peer: before, one line every 10 s
     * for all peers named only the first) */
    fx->extra = zmq_socket(fx->zctx, ZMQ_DEALER);
    bf_wire_socket_setup(fx->extra, 0, 0);
    zmq_setsockopt(fx->extra, ZMQ_ROUTING_ID, "t2", 2);
    char src_ep[96];
    snprintf(src_ep, sizeof src_ep, "tcp://127.0.0.2:0;%s", fx->ctrl_ep + strlen("tcp://"));
    assert_int_equal(zmq_connect(fx->extra, src_ep), 0);
    for (int k = 1; k <= 4; k++) {
        send_hello(k <= 2 ? fx->ctrl : fx->extra, BF_PROTO_MAJOR, 0, files, N);
        uint64_t until = bf_clock_mono_us() + 3000000u;
        while (bad < (uint64_t)k && bf_clock_mono_us() < until) {
            bf_fleet_poll(fx->fleet, 10);
            bf_fleet_stats(fx->fleet, &bad, &rejects);
        }
    }
    assert_int_equal(bad, 4);
    /* over the cap: 5 MiB from 3 connections */
    size_t big = 5u << 20;
    char *blob = calloc(1, big);
    for (int k = 0; k < 3; k++) {
        void *d = zmq_socket(fx->zctx, ZMQ_DEALER);
        int linger = 0;
        zmq_setsockopt(d, ZMQ_LINGER, &linger, sizeof linger);
        assert_int_equal(zmq_connect(d, fx->ctrl_ep), 0);
        assert_int_equal(zmq_send(d, blob, big, 0), (int)big);
        uint64_t until = bf_clock_mono_us() + 300000u;
        while (bf_clock_mono_us() < until)
            bf_fleet_poll(fx->fleet, 10);
        zmq_close(d);
    }
    free(blob);
    char log[8192] = "";
    ssize_t n = 0;
    uint64_t until = bf_clock_mono_us() + 5000000u;
    while (bf_clock_mono_us() < until) {
        bf_fleet_poll(fx->fleet, 50);
        fflush(stderr);
        n = pread(fd, log, sizeof log - 1, 0);
        log[n > 0 ? n : 0] = '\0';
        if (strstr(log, "keep closing right after they open"))
            break;
    }
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    n = pread(fd, log, sizeof log - 1, 0);
    close(fd);
    unlink(path);
    assert_true(n > 0);
    log[n] = '\0';
    print_message("%s", log);
    /* the fleet never saw the 5 MiB messages */
    bf_fleet_stats(fx->fleet, &bad, &rejects);
    assert_int_equal(bad, 4);
    assert_int_equal(count_in(log, "Hello larger than 64 KiB"), 2);
    assert_non_null(
        strstr(log, "'t1' (127.0.0.1) on the control socket: Hello larger than 64 KiB"));
    assert_non_null(
        strstr(log, "'t2' (127.0.0.2) on the control socket: Hello larger than 64 KiB"));
    assert_int_equal(count_in(log, "keep closing right after they open"), 1);
    assert_non_null(strstr(log, "connections to the control socket from 127.0.0.1:"));
    assert_non_null(strstr(log, "larger than the 4 MiB cap"));
    assert_null(strstr(log, "from ?"));
}

/* a stranger's routing id reached the coordinator's log raw (ESC, BEL: a terminal
 * acts on them, grep calls the log binary). Every byte a peer chooses is escaped on its way to
 * the log; the log line itself stays one line of text. */
static void test_stranger_bytes_reach_the_log_escaped(void **state)
{
    fixture *fx = *state;
    char path[] = "/tmp/bf-fleet-log.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    static const char route[] = "\x1b]0;owned\x07\x1b[2J\r\nX\x7f\xc2\x9b\xff";
    void *s = zmq_socket(fx->zctx, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(s, ZMQ_ROUTING_ID, route, sizeof route - 1);
    assert_int_equal(zmq_connect(s, fx->ctrl_ep), 0);
    static const char junk[] = "\x1b[31mnot an envelope\x1b[0m\x00\x01";
    assert_int_equal(zmq_send(s, junk, sizeof junk, 0), (int)sizeof junk);
    uint64_t bad = 0, rejects = 0;
    uint64_t until = bf_clock_mono_us() + 3000000u;
    while (bad < 1 && bf_clock_mono_us() < until) {
        bf_fleet_poll(fx->fleet, 10);
        bf_fleet_stats(fx->fleet, &bad, &rejects);
    }
    zmq_close(s);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    char log[4096];
    ssize_t n = pread(fd, log, sizeof log - 1, 0);
    close(fd);
    unlink(path);
    assert_int_equal(bad, 1);
    assert_true(n > 0);
    log[n] = '\0';
    print_message("%s", log);
    for (ssize_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)log[i];
        if ((ch < 0x20 && ch != '\n') || ch == 0x7f || ch >= 0x80)
            fail_msg("byte 0x%02x at %zd of the log", ch, i);
    }
    assert_int_equal(count_in(log, "\n"), 1); /* one line: the peer's \r\n did not break it */
    assert_non_null(strstr(log, "'\\x1b]0;owned\\x07\\x1b[2J\\r\\nX\\x7f\\xc2\\x9b\\xff'"));
}

/* Regression: a coordinator that restarted answered the Pings of agents it did not know with a
 * Reject, and an agent exits on Reject; the whole fleet died with the coordinator. */
static void test_unknown_peer_is_not_rejected(void **state)
{
    fixture *fx = *state;
    send_ping(fx->ctrl);
    Bf__Envelope *r = pump(fx, 400, BF__ENVELOPE__BODY_REJECT);
    assert_null(r);
    assert_int_equal(bf_fleet_count(fx->fleet), 0);
    assert_int_equal(fx->handled, 0);
}

static void test_lost_then_back(void **state)
{
    fixture *fx = *state;
    send_hello(fx->data, BF_PROTO_MAJOR, 1, NULL, 0);
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, NULL, 0);
    Bf__Envelope *w = pump(fx, 2000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    bf__envelope__free_unpacked(w, NULL);
    bf_fleet_agent_t *a = bf_fleet_agent(fx->fleet, 0);
    /* silent (the DEALER does not answer the fleet's Pings): suspect, then lost */
    Bf__Envelope *none = pump(fx, 1200, BF__ENVELOPE__BODY__NOT_SET);
    assert_null(none);
    assert_int_equal(a->session, BF_AS_LOST);
    assert_int_equal(fx->lost_events, 1);
    assert_int_equal(bf_fleet_ready_count(fx->fleet), 0);
    /* any message brings it back */
    send_ping(fx->ctrl);
    Bf__Envelope *pong = pump(fx, 2000, BF__ENVELOPE__BODY_PONG);
    assert_non_null(pong);
    bf__envelope__free_unpacked(pong, NULL);
    assert_int_equal(fx->back_events, 1);
    assert_int_not_equal(a->session, BF_AS_LOST);
}

/* a DEALER on the fixture's control endpoint with this routing id */
static void *dealer(fixture *fx, const char *route)
{
    void *s = zmq_socket(fx->zctx, ZMQ_DEALER);
    bf_wire_socket_setup(s, 0, 0);
    zmq_setsockopt(s, ZMQ_ROUTING_ID, route, strlen(route));
    assert_int_equal(zmq_connect(s, fx->ctrl_ep), 0);
    return s;
}

/* Polls the fleet for ms, answering the fixture DEALER's Pings (so the agent stays alive), and
 * returns the first message of type `want` that `other` got (caller frees), or NULL. */
static Bf__Envelope *pump_other(fixture *fx, void *other, int ms, Bf__Envelope__BodyCase want)
{
    uint64_t end = bf_clock_mono_us() + (uint64_t)ms * 1000u;
    Bf__Envelope *found = NULL;
    while (found == NULL && bf_clock_mono_us() < end) {
        answer_pings(fx, 5, 0);
        Bf__Envelope *env = NULL;
        while (bf_wire_recv(other, NULL, NULL, &env, ZMQ_DONTWAIT) == BF_OK) {
            if (found == NULL && env->body_case == want)
                found = env;
            else
                bf__envelope__free_unpacked(env, NULL);
        }
    }
    return found;
}

static void send_hello_as(void *sock, const char *id)
{
    Bf__Hello h = BF__HELLO__INIT;
    h.agent_id = (char *)id;
    h.hostname = (char *)"unit-2";
    h.cores = 1;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    assert_int_equal(bf_wire_send(sock, NULL, 0, &env, 0), BF_OK);
}

/* Two agents configured with one id: the second one's Hello (its own route) gets a Reject that
 * says so, and the first keeps the id and its route. With routes equal to ids, libzmq's
 * ROUTER_HANDOVER gave the route to the second connection before its Hello was even read. */
static void test_second_agent_with_taken_id_is_refused(void **state)
{
    fixture *fx = *state;
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, NULL, 0);
    Bf__Envelope *w = pump(fx, 2000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    bf__envelope__free_unpacked(w, NULL);
    void *dup = fx->extra = dealer(fx, "t1/0123456789abcdef");
    send_hello_as(dup, "t1");
    Bf__Envelope *r = pump_other(fx, dup, 2000, BF__ENVELOPE__BODY_REJECT);
    assert_non_null(r);
    assert_non_null(strstr(r->reject->reason, "agent id 't1' is already connected"));
    assert_non_null(strstr(r->reject->reason, "its own --id"));
    bf__envelope__free_unpacked(r, NULL);
    assert_int_equal(bf_fleet_count(fx->fleet), 1);
    assert_int_equal(bf_fleet_claims_refused(fx->fleet), 1);
    bf_fleet_agent_t *a = bf_fleet_agent(fx->fleet, 0);
    assert_int_equal(a->route_len, 2);
    assert_memory_equal(a->route, "t1", 2);
    assert_string_equal(a->hostname, "unit"); /* not the claimant's */
    assert_int_not_equal(a->session, BF_AS_LOST);
    /* the first agent still hears the fleet on its route */
    Bf__Envelope *p = pump(fx, 2000, BF__ENVELOPE__BODY_PING);
    assert_non_null(p);
    bf__envelope__free_unpacked(p, NULL);
}

/* A restarted agent (same id, new process: a new route) gets its id back once its earlier
 * connection is gone, without waiting to be declared lost. */
static void test_restarted_agent_takes_its_id_back(void **state)
{
    fixture *fx = *state;
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, NULL, 0);
    Bf__Envelope *w = pump(fx, 2000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    bf__envelope__free_unpacked(w, NULL);
    bf_fleet_agent_t *a = bf_fleet_agent(fx->fleet, 0);
    int linger = 0;
    zmq_setsockopt(fx->ctrl, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(fx->ctrl);
    fx->ctrl = dealer(fx, "t1/fedcba9876543210");
    /* the new process starts within the lost time (800 ms here) */
    uint64_t t0 = bf_clock_mono_us();
    while (bf_clock_mono_us() - t0 < 50000u)
        bf_fleet_poll(fx->fleet, 5);
    send_hello_as(fx->ctrl, "t1");
    w = pump(fx, 2000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    bf__envelope__free_unpacked(w, NULL);
    assert_true(bf_clock_mono_us() - t0 < 800000u || a->session != BF_AS_LOST);
    assert_int_equal(bf_fleet_count(fx->fleet), 1);
    assert_int_equal(bf_fleet_claims_refused(fx->fleet), 0);
    assert_int_equal(a->route_len, strlen("t1/fedcba9876543210"));
    assert_memory_equal(a->route, "t1/fedcba9876543210", a->route_len);
    assert_string_equal(a->hostname, "unit-2");
}

/* Polls the fleet for ms without answering anything on the fixture's DEALER, and returns the
 * first message of type `want` that `sock` got (caller frees), or NULL. */
static Bf__Envelope *pump_silent(fixture *fx, void *sock, int ms, Bf__Envelope__BodyCase want)
{
    uint64_t end = bf_clock_mono_us() + (uint64_t)ms * 1000u;
    Bf__Envelope *found = NULL;
    while (found == NULL && bf_clock_mono_us() < end) {
        bf_fleet_poll(fx->fleet, 5);
        Bf__Envelope *env = NULL;
        while (bf_wire_recv(sock, NULL, NULL, &env, ZMQ_DONTWAIT) == BF_OK) {
            if (found == NULL && env->body_case == want)
                found = env;
            else
                bf__envelope__free_unpacked(env, NULL);
        }
    }
    return found;
}

/* The race behind the flaky test above, made certain: the restarted process's Hello arrives
 * while libzmq still delivers to the old connection (the old process has ended, but its close
 * has not reached the ROUTER yet). A route that takes messages is no proof of a live agent: the
 * claim waits, the old connection goes, the new process is welcomed. It used to be refused
 * at once as "two agents with one id", and a refused agent exits. */
static void test_claim_waits_while_old_connection_closes(void **state)
{
    fixture *fx = *state;
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, NULL, 0);
    Bf__Envelope *w = pump(fx, 2000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    bf__envelope__free_unpacked(w, NULL);
    void *fresh = fx->extra = dealer(fx, "t1/fedcba9876543210");
    send_hello_as(fresh, "t1");
    /* the old connection is still there and says nothing: no Reject (a loaded machine may
     * have let the holder be lost meanwhile: then the Welcome is there already) */
    uint64_t t0 = bf_clock_mono_us();
    while (bf_clock_mono_us() - t0 < 100000u)
        bf_fleet_poll(fx->fleet, 5);
    assert_int_equal(bf_fleet_claims_refused(fx->fleet), 0);
    int linger = 0;
    zmq_setsockopt(fx->ctrl, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(fx->ctrl);
    fx->ctrl = fresh;
    fx->extra = NULL;
    w = pump_silent(fx, fresh, 2000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    bf__envelope__free_unpacked(w, NULL);
    assert_int_equal(bf_fleet_count(fx->fleet), 1);
    assert_int_equal(bf_fleet_claims_refused(fx->fleet), 0);
    bf_fleet_agent_t *a = bf_fleet_agent(fx->fleet, 0);
    assert_memory_equal(a->route, "t1/fedcba9876543210", a->route_len);
}

/* A holder whose connection stays open but that never answers (a hung process, a cut link the
 * kernel has not closed yet) loses its id when it is lost (800 ms here), not before, and the
 * claimant that waited is welcomed then; a holder that answers keeps it (the test above). */
static void test_claim_on_silent_holder_is_granted_when_lost(void **state)
{
    fixture *fx = *state;
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, NULL, 0);
    Bf__Envelope *w = pump(fx, 2000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    bf__envelope__free_unpacked(w, NULL);
    bf_fleet_agent_t *a = bf_fleet_agent(fx->fleet, 0);
    void *fresh = fx->extra = dealer(fx, "t1/fedcba9876543210");
    send_hello_as(fresh, "t1");
    w = pump_silent(fx, fresh, 3000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    bf__envelope__free_unpacked(w, NULL);
    assert_int_equal(bf_fleet_claims_refused(fx->fleet), 0);
    assert_int_equal(fx->lost_events, 1); /* the old one was lost first */
    assert_memory_equal(a->route, "t1/fedcba9876543210", a->route_len);
    assert_string_equal(a->hostname, "unit-2");
}

/* An agent's reconnect (fresh sockets, the same route) while the coordinator was busy: libzmq's
 * ROUTER_HANDOVER gives the route to the new connection and renames the old one's pipe to a
 * generated routing id (a zero byte + 4 bytes), so the Hellos still queued on it arrive from a
 * route the fleet does not know, for an id whose holder (the same process, on its new
 * connection) is there. They were refused as "two agents with one id" (found by a new user on a
 * loaded machine: run --local-agents 2, cell starts that block the coordinator > 10 s); the
 * same process is never refused. */
static void test_reconnect_with_queued_hellos_is_not_a_duplicate(void **state)
{
    fixture *fx = *state;
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, NULL, 0);
    Bf__Envelope *w = pump(fx, 2000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    bf__envelope__free_unpacked(w, NULL);
    /* the coordinator is busy: the agent's Hellos wait in its pipe, unread */
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, NULL, 0);
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, NULL, 0);
    usleep(100000);
    /* the agent reopens its sockets with the same routing id and says Hello again */
    int linger = 0;
    zmq_setsockopt(fx->ctrl, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(fx->ctrl);
    fx->ctrl = dealer(fx, "t1");
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, NULL, 0);
    usleep(100000);
    w = pump(fx, 2000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    bf__envelope__free_unpacked(w, NULL);
    answer_pings(fx, 100, 0); /* every queued Hello is read by now */
    assert_int_equal(bf_fleet_claims_refused(fx->fleet), 0);
    assert_int_equal(bf_fleet_count(fx->fleet), 1);
    bf_fleet_agent_t *a = bf_fleet_agent(fx->fleet, 0);
    assert_int_equal(a->route_len, 2);
    assert_memory_equal(a->route, "t1", 2);
    assert_int_not_equal(a->session, BF_AS_LOST);
}

/* The coordinator's own stall is not its agents' silence: on a slow results disk
 * (a 2 s fflush per sample line) an idle agent was "lost: silent for 6001 ms" although it had
 * answered every Ping; none had gone out, and nothing was read, while the coordinator sat in
 * the write. Here the fleet is not polled for 2 s (the caller busy), then a handler takes 1.5 s
 * (lost_ms is 800): the agent stays; afterwards a real silence still makes it lost. */
static void test_own_stall_is_not_agent_silence(void **state)
{
    fixture *fx = *state;
    send_hello(fx->ctrl, BF_PROTO_MAJOR, 0, NULL, 0);
    Bf__Envelope *w = pump(fx, 2000, BF__ENVELOPE__BODY_WELCOME);
    assert_non_null(w);
    bf__envelope__free_unpacked(w, NULL);
    bf_fleet_agent_t *a = bf_fleet_agent(fx->fleet, 0);
    answer_pings(fx, 300, 0);
    assert_int_not_equal(a->session, BF_AS_LOST);
    /* the caller away from the fleet for 2 s: nothing polled, no Ping sent */
    usleep(2000000);
    answer_pings(fx, 300, 0);
    assert_int_equal(fx->lost_events, 0);
    assert_int_not_equal(a->session, BF_AS_LOST);
    assert_true(bf_fleet_stalled_us(fx->fleet) >= 1900000u);
    /* a handler that takes 1.5 s (writing a sample to a slow disk) */
    fx->stall_ms = 1500;
    Bf__SampleAck ack = BF__SAMPLE_ACK__INIT;
    ack.cell_id = (char *)"c1";
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_SAMPLE_ACK;
    env.sample_ack = &ack;
    assert_int_equal(bf_wire_send(fx->ctrl, NULL, 0, &env, 0), BF_OK);
    answer_pings(fx, 300, 0);
    assert_int_equal(fx->stall_ms, 0); /* the handler ran */
    assert_int_equal(fx->lost_events, 0);
    assert_int_not_equal(a->session, BF_AS_LOST);
    assert_true(bf_fleet_stalled_us(fx->fleet) >= 3300000u);
    /* a real silence while the fleet listens is still one */
    Bf__Envelope *none = pump(fx, 1500, BF__ENVELOPE__BODY__NOT_SET);
    assert_null(none);
    assert_int_equal(a->session, BF_AS_LOST);
    assert_int_equal(fx->lost_events, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hello_welcome_and_cached_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_hello_is_cheap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clock_offset_from_ping_exchange, setup, teardown),
        cmocka_unit_test_setup_teardown(test_major_mismatch_rejected_with_reason, setup, teardown),
        cmocka_unit_test_setup_teardown(test_major_mismatch_logs_the_address, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stranger_bytes_reach_the_log_escaped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oversize_hello_logged_once_per_peer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_peer_is_not_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lost_then_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_own_stall_is_not_agent_silence, setup, teardown),
        cmocka_unit_test_setup_teardown(test_second_agent_with_taken_id_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_restarted_agent_takes_its_id_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_claim_waits_while_old_connection_closes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_claim_on_silent_holder_is_granted_when_lost, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_reconnect_with_queued_hellos_is_not_a_duplicate, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
