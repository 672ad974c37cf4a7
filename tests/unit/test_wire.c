/* SPDX-License-Identifier: MIT */
/* test_wire.c — envelopes over real ZeroMQ sockets (inproc): round trip, version check,
 * garbage frames. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_error.h"
#include "bf_wire.h"

#include <string.h>
#include <zmq.h>

typedef struct pair {
    void *ctx, *router, *dealer;
} pair;

static int setup(void **state)
{
    static pair p;
    p.ctx = zmq_ctx_new();
    p.router = zmq_socket(p.ctx, ZMQ_ROUTER);
    p.dealer = zmq_socket(p.ctx, ZMQ_DEALER);
    bf_wire_socket_setup(p.router, 1, 0);
    bf_wire_socket_setup(p.dealer, 0, 0);
    zmq_setsockopt(p.dealer, ZMQ_ROUTING_ID, "agent-1", 7);
    assert_int_equal(zmq_bind(p.router, "inproc://wire-test"), 0);
    assert_int_equal(zmq_connect(p.dealer, "inproc://wire-test"), 0);
    *state = &p;
    return 0;
}

static int teardown(void **state)
{
    pair *p = *state;
    zmq_close(p->router);
    zmq_close(p->dealer);
    zmq_ctx_term(p->ctx);
    return 0;
}

static void test_round_trip(void **state)
{
    pair *p = *state;
    Bf__Hello h = BF__HELLO__INIT;
    h.agent_id = "agent-1";
    h.hostname = "host";
    h.cores = 8;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    assert_int_equal(bf_wire_send(p->dealer, NULL, 0, &env, 0), 0);
    char route[BF_MAX_ROUTE_BYTES];
    size_t route_len = 0;
    Bf__Envelope *got = NULL;
    assert_int_equal(bf_wire_recv(p->router, route, &route_len, &got, 0), 0);
    assert_int_equal(route_len, 7);
    assert_memory_equal(route, "agent-1", 7);
    assert_int_equal(got->body_case, BF__ENVELOPE__BODY_HELLO);
    assert_string_equal(got->hello->hostname, "host");
    assert_int_equal(got->hello->cores, 8);
    assert_int_equal(got->major, BF_PROTO_MAJOR);
    assert_int_equal(bf_wire_check_version(got, NULL), 0);
    assert_string_equal(bf_wire_body_name(got), "Hello");
    bf__envelope__free_unpacked(got, NULL);

    /* and back to the agent through its route */
    Bf__Welcome w = BF__WELCOME__INIT;
    w.heartbeat_ms = 1000;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_WELCOME;
    env.welcome = &w;
    assert_int_equal(bf_wire_send(p->router, "agent-1", 7, &env, 0), 0);
    assert_int_equal(bf_wire_recv(p->dealer, NULL, NULL, &got, 0), 0);
    assert_int_equal(got->welcome->heartbeat_ms, 1000);
    bf__envelope__free_unpacked(got, NULL);
}

static void test_major_mismatch(void **state)
{
    (void)state;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.major = BF_PROTO_MAJOR + 1;
    bf_diag_t d = {0};
    assert_int_equal(bf_wire_check_version(&env, &d), BF_E_PROTO);
    assert_int_equal(d.code, BF_E_PROTO);
    assert_non_null(strstr(d.msg, "protocol major 2"));
}

static void test_garbage_frame(void **state)
{
    pair *p = *state;
    const char junk[] = "\xff\xff\xff\xff not protobuf";
    assert_true(zmq_send(p->dealer, junk, sizeof junk, 0) >= 0);
    char route[BF_MAX_ROUTE_BYTES];
    size_t route_len = 0;
    Bf__Envelope *got = NULL;
    assert_int_equal(bf_wire_recv(p->router, route, &route_len, &got, 0), BF_E_PROTO);
    assert_null(got);
    /* the socket stays usable */
    Bf__Ping ping = BF__PING__INIT;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_PING;
    env.ping = &ping;
    assert_int_equal(bf_wire_send(p->dealer, NULL, 0, &env, 0), 0);
    assert_int_equal(bf_wire_recv(p->router, route, &route_len, &got, 0), 0);
    assert_int_equal(got->body_case, BF__ENVELOPE__BODY_PING);
    bf__envelope__free_unpacked(got, NULL);
}

static void test_unknown_route(void **state)
{
    pair *p = *state;
    Bf__Envelope env;
    bf_wire_init(&env);
    /* ROUTER_MANDATORY: sending to a peer that is not connected fails instead of dropping */
    assert_int_equal(bf_wire_send(p->router, "nobody", 6, &env, ZMQ_DONTWAIT), BF_E_IO);
}

/* the channel table of docs/internals/fleet-protocol.md, every body case listed: a new message kind
 * must be added here */
static void test_channel_table(void **state)
{
    (void)state;
    static const struct {
        Bf__Envelope__BodyCase body;
        int on_control, on_data;
    } cases[] = {
        {BF__ENVELOPE__BODY_HELLO, 1, 1},      {BF__ENVELOPE__BODY_WELCOME, 1, 0},
        {BF__ENVELOPE__BODY_REJECT, 1, 0},     {BF__ENVELOPE__BODY_PREPARE, 1, 0},
        {BF__ENVELOPE__BODY_READY, 1, 0},      {BF__ENVELOPE__BODY_FAILED, 1, 0},
        {BF__ENVELOPE__BODY_START, 1, 0},      {BF__ENVELOPE__BODY_SAMPLE, 0, 1},
        {BF__ENVELOPE__BODY_SAMPLE_ACK, 0, 1}, {BF__ENVELOPE__BODY_STOP, 1, 0},
        {BF__ENVELOPE__BODY_DONE, 1, 0},       {BF__ENVELOPE__BODY_PING, 1, 0},
        {BF__ENVELOPE__BODY_PONG, 1, 0},       {BF__ENVELOPE__BODY_ACK, 1, 0},
        {BF__ENVELOPE__BODY__NOT_SET, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(bf_wire_channel_ok(cases[i].body, 0), cases[i].on_control);
        assert_int_equal(bf_wire_channel_ok(cases[i].body, 1), cases[i].on_data);
    }
    assert_int_equal(bf_wire_channel_ok((Bf__Envelope__BodyCase)999, 0), 0);
}

/* a fleet endpoint from the command line is checked before anything is contacted,
 * and says what is wrong with it: every case of the rule, the port range at both ends. */
static void test_endpoint_check(void **state)
{
    (void)state;
    static const struct {
        const char *ep;
        int with_next;
        int ok;
        uint32_t port;
        const char *says; /* part of the message when refused */
    } cases[] = {
        {"tcp://127.0.0.1:7100", 1, 1, 7100, NULL},
        {"tcp://*:7100", 1, 1, 7100, NULL},
        {"tcp://coord.example:1", 1, 1, 1, NULL},
        {"tcp://[::1]:7100", 1, 1, 7100, NULL},
        {"tcp://127.0.0.1:65534", 1, 1, 65534, NULL},
        {"tcp://127.0.0.1:65535", 0, 1, 65535, NULL},
        {"tcp://127.0.0.1:65535", 1, 0, 0,
         "port 65535 is out of range: give one from 1 to 65534 "
         "(the data port is the next one)"},
        {"tcp://127.0.0.1:99999", 1, 0, 0, "port 99999 is out of range: give one from 1 to 65534"},
        {"tcp://127.0.0.1:99999", 0, 0, 0, "port 99999 is out of range: give one from 1 to 65535"},
        {"tcp://127.0.0.1:0", 0, 0, 0, "port 0 is out of range"},
        {"tcp://127.0.0.1:123456789012345678901", 0, 0, 0, "is out of range"},
        {"tcp://127.0.0.1:71oo", 1, 0, 0, "the port '71oo' is not a number"},
        {"tcp://127.0.0.1:", 1, 0, 0, "the port '' is not a number"},
        {"tcp://127.0.0.1:-5", 1, 0, 0, "the port '-5' is not a number"},
        {"tcp://127.0.0.1", 1, 0, 0, "(no :PORT)"},
        {"tcp://:7100", 1, 0, 0, "(no host before the port)"},
        {"tcp://[::1]", 1, 0, 0, "(no :PORT)"},
        {"127.0.0.1:7100", 1, 0, 0, "expected tcp://HOST:PORT"},
        {"udp://127.0.0.1:7100", 1, 0, 0, "only tcp:// is supported"},
        {"", 1, 0, 0, "expected tcp://HOST:PORT"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bf_diag_t d = {0};
        uint32_t port = 0;
        int rc = bf_wire_endpoint_check("--bind", cases[i].ep, cases[i].with_next, &port, &d);
        if (cases[i].ok) {
            if (rc != BF_OK)
                fail_msg("%s refused: %s", cases[i].ep, d.msg);
            assert_int_equal(port, cases[i].port);
            continue;
        }
        if (rc != BF_E_INVAL)
            fail_msg("%s (with_next %d) accepted", cases[i].ep, cases[i].with_next);
        if (strstr(d.msg, cases[i].says) == NULL || strncmp(d.msg, "--bind ", 7) != 0)
            fail_msg("%s: '%s' does not say '%s'", cases[i].ep, d.msg, cases[i].says);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_major_mismatch),
        cmocka_unit_test(test_garbage_frame), cmocka_unit_test(test_unknown_route),
        cmocka_unit_test(test_channel_table), cmocka_unit_test(test_endpoint_check),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
