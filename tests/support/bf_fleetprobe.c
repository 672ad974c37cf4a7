/* SPDX-License-Identifier: MIT */
/* bf_fleetprobe.c — a tiny fleet client for tests: says Hello with a chosen protocol major and
 * prints what the coordinator answers.
 *
 *   bf_fleetprobe --coordinator tcp://HOST:7100 [--keys DIR | --insecure] [--major N] [--id ID]
 *
 * Prints "REJECT <reason>" and exits 0 when refused, "WELCOME" and exits 1 when accepted,
 * "SILENCE" and exits 2 when nothing came back within 5 s (e.g. a key the ZAP handler refused).
 * Speaks the real protocol through bf_wire; only Envelope.major is forged.
 */
#include "bf_clock.h"
#include "bf_keys.h"
#include "bf_wire.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

int main(int argc, char **argv)
{
    const char *endpoint = NULL, *keys = NULL, *id = "probe";
    int insecure = 0;
    unsigned major = BF_PROTO_MAJOR;
    static const struct option longopts[] = {
        {"coordinator", required_argument, NULL, 'c'}, {"keys", required_argument, NULL, 'k'},
        {"insecure", no_argument, NULL, 'I'},           {"major", required_argument, NULL, 'm'},
        {"id", required_argument, NULL, 'i'},           {NULL, 0, NULL, 0},
    };
    int ch;
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 'c': endpoint = optarg; break;
        case 'k': keys = optarg; break;
        case 'I': insecure = 1; break;
        case 'm': major = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'i': id = optarg; break;
        default: return 64;
        }
    }
    if (endpoint == NULL || (!insecure && keys == NULL)) {
        fprintf(stderr, "usage: bf_fleetprobe --coordinator URL (--keys DIR | --insecure) "
                        "[--major N] [--id ID]\n");
        return 64;
    }
    void *ctx = zmq_ctx_new();
    void *s = zmq_socket(ctx, ZMQ_DEALER);
    bf_wire_socket_setup(s, 0, 0);
    zmq_setsockopt(s, ZMQ_ROUTING_ID, id, strlen(id));
    if (!insecure) {
        char sec[41], pub[41], srv[41];
        bf_diag_t d = {0};
        if (bf_keys_load_secret(keys, "agent", sec, pub, &d) != 0 ||
            bf_keys_load_public(keys, "coordinator", srv, &d) != 0) {
            fprintf(stderr, "bf_fleetprobe: %s\n", d.msg);
            return 64;
        }
        zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, srv, 41);
        zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, pub, 41);
        zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, sec, 41);
    }
    zmq_connect(s, endpoint);
    Bf__Hello h = BF__HELLO__INIT;
    h.agent_id = (char *)id;
    h.hostname = (char *)"probe";
    h.cores = 1;
    h.wall_us = bf_clock_wall_us();
    Bf__Envelope env;
    bf_wire_init(&env);
    env.major = major;
    env.body_case = BF__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    bf_wire_send(s, NULL, 0, &env, 0);
    int code = 2;
    zmq_pollitem_t it = {s, 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&it, 1, 5000) > 0) {
        Bf__Envelope *in = NULL;
        if (bf_wire_recv(s, NULL, NULL, &in, 0) == 0) {
            if (in->body_case == BF__ENVELOPE__BODY_REJECT) {
                printf("REJECT %s\n", in->reject->reason);
                code = 0;
            } else {
                printf("%s\n", in->body_case == BF__ENVELOPE__BODY_WELCOME ? "WELCOME"
                                                                          : bf_wire_body_name(in));
                code = 1;
            }
            bf__envelope__free_unpacked(in, NULL);
        }
    }
    if (code == 2)
        printf("SILENCE\n");
    zmq_close(s);
    zmq_ctx_term(ctx);
    return code;
}
