/* SPDX-License-Identifier: MIT */
/* test_agent.c — the agent's session (bf_agent_main) driven by envelopes from real ROUTER
 * sockets on loopback, as the coordinator's fleet is in test_fleet: Hello on both sockets with
 * the agent's id and state; after Welcome, Pings keep the link; a Prepare whose scenario cannot
 * be loaded is answered Failed with the reason, and the same command id again gets the same
 * answer; a Reject ends the agent with exit 3, the stop flag with exit 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_agent.h"
#include "bf_clock.h"
#include "bf_error.h"
#include "bf_wire.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

typedef struct fixture {
    void *zctx, *ctrl, *data;
    char ctrl_ep[64];
    bf_agent_opts_t opts;
    pthread_t thread;
    int rc;      /* bf_agent_main's exit code */
    int running; /* the thread is started and not joined */
    unsigned char route[256];
    size_t route_len;
} fixture;

static void *agent_thread(void *arg)
{
    fixture *fx = arg;
    fx->rc = bf_agent_main(&fx->opts);
    return NULL;
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    fx->zctx = zmq_ctx_new();
    int bound = 0;
    for (int attempt = 0; attempt < 50 && !bound; attempt++) {
        int port = 20000 + (int)((getpid() * 11 + attempt * 137) % 30000);
        char data_ep[64];
        snprintf(fx->ctrl_ep, sizeof fx->ctrl_ep, "tcp://127.0.0.1:%d", port);
        snprintf(data_ep, sizeof data_ep, "tcp://127.0.0.1:%d", port + 1);
        fx->ctrl = zmq_socket(fx->zctx, ZMQ_ROUTER);
        fx->data = zmq_socket(fx->zctx, ZMQ_ROUTER);
        bf_wire_socket_setup(fx->ctrl, 1, 0);
        bf_wire_socket_setup(fx->data, 1, 0);
        bound = zmq_bind(fx->ctrl, fx->ctrl_ep) == 0 && zmq_bind(fx->data, data_ep) == 0;
        if (!bound) {
            zmq_close(fx->ctrl);
            zmq_close(fx->data);
        }
    }
    assert_true(bound);
    fx->opts = (bf_agent_opts_t){
        .control_endpoint = fx->ctrl_ep, .agent_id = "u1", .threads = 1, .insecure = 1};
    bf_agent_stop_flag = 0;
    assert_int_equal(pthread_create(&fx->thread, NULL, agent_thread, fx), 0);
    fx->running = 1;
    *state = fx;
    return 0;
}

/* Waits up to ms for the thread to end; 1 when it did (fx->rc is its exit code). */
static int ended(fixture *fx, int ms)
{
    for (int waited = 0; waited < ms; waited += 10) {
        if (pthread_tryjoin_np(fx->thread, NULL) == 0) {
            fx->running = 0;
            return 1;
        }
        usleep(10000);
    }
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    if (fx->running) {
        bf_agent_stop_flag = 1;
        pthread_join(fx->thread, NULL);
    }
    int linger = 0;
    zmq_setsockopt(fx->ctrl, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(fx->data, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(fx->ctrl);
    zmq_close(fx->data);
    zmq_ctx_term(fx->zctx);
    free(fx);
    return 0;
}

/* The first message of type `want` on sock within ms (others are dropped), its route kept in
 * fx; NULL when none came. Caller frees with bf__envelope__free_unpacked. */
static Bf__Envelope *expect(fixture *fx, void *sock, int ms, Bf__Envelope__BodyCase want)
{
    uint64_t end = bf_clock_mono_us() + (uint64_t)ms * 1000u;
    while (bf_clock_mono_us() < end) {
        zmq_pollitem_t it = {sock, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, 50) <= 0)
            continue;
        Bf__Envelope *env = NULL;
        size_t len = sizeof fx->route;
        unsigned char route[256];
        if (bf_wire_recv(sock, route, &len, &env, 0) != BF_OK || env == NULL)
            continue;
        if (env->body_case == want) {
            memcpy(fx->route, route, len);
            fx->route_len = len;
            return env;
        }
        bf__envelope__free_unpacked(env, NULL);
    }
    return NULL;
}

static void send_env(fixture *fx, Bf__Envelope *env)
{
    assert_int_equal(bf_wire_send(fx->ctrl, fx->route, fx->route_len, env, 0), BF_OK);
}

static void send_welcome(fixture *fx)
{
    Bf__Welcome w = BF__WELCOME__INIT;
    w.heartbeat_ms = 100;
    w.suspect_ms = 3000;
    w.lost_ms = 10000;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_WELCOME;
    env.welcome = &w;
    send_env(fx, &env);
}

static void send_prepare(fixture *fx, uint64_t id, const char *yaml)
{
    Bf__Prepare p = BF__PREPARE__INIT;
    p.command_id = id;
    p.cell_id = (char *)"c1";
    p.scenario_yaml.data = (uint8_t *)yaml;
    p.scenario_yaml.len = strlen(yaml);
    p.scenario_origin = (char *)"unit.yaml";
    p.concurrency = 1;
    p.stream_count = 1;
    p.agent_count = 1;
    p.warmup_ms = 0;
    p.duration_ms = 1000;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_PREPARE;
    env.prepare = &p;
    send_env(fx, &env);
}

/* Hello on both sockets, Welcome, then the link is kept with Pings. */
static void hello_welcome(fixture *fx)
{
    Bf__Envelope *d = expect(fx, fx->data, 5000, BF__ENVELOPE__BODY_HELLO);
    assert_non_null(d);
    assert_true(d->hello->data_socket);
    bf__envelope__free_unpacked(d, NULL);
    Bf__Envelope *h = expect(fx, fx->ctrl, 5000, BF__ENVELOPE__BODY_HELLO);
    assert_non_null(h);
    assert_string_equal(h->hello->agent_id, "u1");
    assert_int_equal(h->hello->state, BF__AGENT_STATE__AGENT_IDLE);
    assert_int_equal(h->hello->threads, 1);
    assert_false(h->hello->data_socket);
    assert_int_equal(h->major, BF_PROTO_MAJOR);
    bf__envelope__free_unpacked(h, NULL);
    send_welcome(fx);
    Bf__Envelope *p = expect(fx, fx->ctrl, 3000, BF__ENVELOPE__BODY_PING);
    assert_non_null(p);
    bf__envelope__free_unpacked(p, NULL);
}

static void test_prepare_failed_then_reject(void **state)
{
    fixture *fx = *state;
    hello_welcome(fx);
    /* a scenario that cannot be loaded: Failed, naming where */
    send_prepare(fx, 7, "name: [unclosed\n");
    Bf__Envelope *f = expect(fx, fx->ctrl, 5000, BF__ENVELOPE__BODY_FAILED);
    assert_non_null(f);
    assert_int_equal(f->failed->command_id, 7);
    assert_string_equal(f->failed->cell_id, "c1");
    assert_non_null(strstr(f->failed->reason, "unit.yaml"));
    assert_false(f->failed->busy);
    char reason[512];
    snprintf(reason, sizeof reason, "%s", f->failed->reason);
    bf__envelope__free_unpacked(f, NULL);
    /* the same command id again: the same answer, nothing done twice */
    send_prepare(fx, 7, "name: [unclosed\n");
    f = expect(fx, fx->ctrl, 5000, BF__ENVELOPE__BODY_FAILED);
    assert_non_null(f);
    assert_int_equal(f->failed->command_id, 7);
    assert_string_equal(f->failed->reason, reason);
    bf__envelope__free_unpacked(f, NULL);
    /* a Reject ends the agent: exit 3 */
    Bf__Reject r = BF__REJECT__INIT;
    r.reason = (char *)"unit test: go away";
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_REJECT;
    env.reject = &r;
    send_env(fx, &env);
    assert_true(ended(fx, 5000));
    assert_int_equal(fx->rc, BF_EXIT_ENV);
}

static void test_stop_flag(void **state)
{
    fixture *fx = *state;
    hello_welcome(fx);
    bf_agent_stop_flag = 1;
    assert_true(ended(fx, 3000));
    assert_int_equal(fx->rc, BF_EXIT_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_prepare_failed_then_reject, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_flag, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
