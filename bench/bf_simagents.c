/* SPDX-License-Identifier: MIT */
/* bf_simagents.c — many simulated agents in one process, speaking the real fleet protocol.
 *
 * For bench/coordinator-scale.sh (docs/internals/budgets.md: "the coordinator aggregates 200
 * agents' samples at 1/s using < 5% of one core"). Each simulated agent has its own control and
 * data DEALER (routing id PREFIX-i, CURVE with the given keys), says Hello on both, answers Ping,
 * Prepare (Ready), Start (Ack) and Stop (Ack), and while "running" sends one Sample per second with
 * realistic counters and two histograms of a few dozen buckets, packed by bf_sample_pack like
 * the real agent, then a final Sample and Done. Samples are kept until acknowledged and resent
 * after a Welcome that asks for them. No HTTP load is generated.
 *
 *   bf_simagents --coordinator tcp://127.0.0.1:7100 --agents 200 (--keys DIR | --insecure)
 *                [--prefix sim] [--cells 1]
 *
 * Prints "load-start EPOCH" when the first Start arrives, "load-end EPOCH" when the last final
 * sample is sent, and at exit "samples sent N acked M unacked K"; exits 0 when every sample was
 * acknowledged.
 */
#include "bf_clock.h"
#include "bf_hist.h"
#include "bf_keys.h"
#include "bf_mem.h"
#include "bf_sample.h"
#include "bf_wire.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

typedef struct pend {
    uint64_t seq;
    uint8_t *data;
    size_t len;
} pend;

typedef struct sim {
    char id[64];
    void *ctrl, *data;
    int welcomed, running, finished_cells;
    char cell[128];
    uint64_t prepare_cmd, start_cmd;
    uint64_t start_us;
    int32_t next_second, load_s;
    uint64_t seq;
    pend *unacked;
    size_t nunacked, cap;
    uint64_t rng;
} sim;

static volatile int stop_flag;
static uint64_t sent_total, acked_total;

static void on_signal(int sig) { stop_flag = sig; }

static uint64_t rnd(sim *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

static void send_env(void *sock, Bf__Envelope *env)
{
    bf_wire_send(sock, NULL, 0, env, ZMQ_DONTWAIT);
}

static void hello(sim *s, int data)
{
    Bf__Hello h = BF__HELLO__INIT;
    h.agent_id = s->id;
    h.hostname = (char *)"simhost";
    h.cores = 2;
    h.threads = 1;
    h.version = (char *)"sim";
    h.wall_us = bf_clock_wall_us();
    h.cell_id = s->nunacked ? s->cell : (char *)"";
    h.last_seq = s->seq;
    h.data_socket = data;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    send_env(data ? s->data : s->ctrl, &env);
}

static void ack_cmd(sim *s, uint64_t cmd, const char *cell)
{
    Bf__Ack k = BF__ACK__INIT;
    k.command_id = cmd;
    k.cell_id = (char *)cell;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_ACK;
    env.ack = &k;
    send_env(s->ctrl, &env);
}

static void sample(sim *s, int32_t second, int final, bf_hist_t *svc, bf_hist_t *lat)
{
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    if (!final) {
        /* one second of a busy agent: ~5k docs in ~10 requests of 500, a few 429s */
        c.docs_ok = 5000 + rnd(s) % 500;
        c.docs_rejected = rnd(s) % 20;
        c.docs_sent = c.docs_ok + c.docs_rejected;
        c.req_ok = 10;
        c.req_partial = c.docs_rejected ? 1 : 0;
        c.bytes_payload = c.docs_sent * 200;
        c.bytes_wire = c.bytes_payload / 5;
        c.inflight = 2;
        c.cpu_user_ms = 300 + rnd(s) % 100;
        c.cpu_sys_ms = 50;
        c.processing_us = 100000;
        c.connections_opened = second == 0 ? 2 : 0;
        bf_hist_reset(svc);
        bf_hist_reset(lat);
        for (int i = 0; i < 40; i++) {
            uint64_t v = 2000 + rnd(s) % 200000; /* 2..200 ms spread over many buckets */
            bf_hist_record(svc, v);
            bf_hist_record(lat, v + rnd(s) % 1000);
        }
    }
    Bf__Sample smp;
    Bf__Hist hs, hl;
    bf_sample_pack(&smp, &hs, &hl, s->cell, ++s->seq, second, &c, final ? NULL : svc,
                   final ? NULL : lat);
    smp.final = final;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_SAMPLE;
    env.sample = &smp;
    size_t n = bf__envelope__get_packed_size(&env);
    uint8_t *buf = bf_malloc(n);
    bf__envelope__pack(&env, buf);
    bf_sample_pack_cleanup(&smp);
    if (s->nunacked == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->unacked = bf_realloc(s->unacked, s->cap * sizeof *s->unacked);
    }
    s->unacked[s->nunacked++] = (pend){s->seq, buf, n};
    zmq_send(s->data, buf, n, ZMQ_DONTWAIT);
    sent_total++;
}

static void done(sim *s)
{
    Bf__Done d = BF__DONE__INIT;
    d.command_id = s->start_cmd;
    d.cell_id = s->cell;
    d.last_seq = s->seq;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_DONE;
    env.done = &d;
    send_env(s->ctrl, &env);
}

static void on_ctrl(sim *s, const Bf__Envelope *env, int *load_started)
{
    switch (env->body_case) {
    case BF__ENVELOPE__BODY_WELCOME:
        s->welcomed = 1;
        if (env->welcome->resend_samples)
            for (size_t i = 0; i < s->nunacked; i++)
                zmq_send(s->data, s->unacked[i].data, s->unacked[i].len, ZMQ_DONTWAIT);
        break;
    case BF__ENVELOPE__BODY_REJECT:
        fprintf(stderr, "%s rejected: %s\n", s->id, env->reject->reason);
        stop_flag = 3;
        break;
    case BF__ENVELOPE__BODY_PREPARE: {
        const Bf__Prepare *p = env->prepare;
        if (p->command_id != s->prepare_cmd) {
            s->prepare_cmd = p->command_id;
            snprintf(s->cell, sizeof s->cell, "%s", p->cell_id);
            s->seq = 0;
            s->load_s = (int32_t)((p->warmup_ms + p->duration_ms + 999) / 1000);
        }
        Bf__Ready r = BF__READY__INIT;
        r.command_id = p->command_id;
        r.cell_id = s->cell;
        Bf__Envelope out;
        bf_wire_init(&out);
        out.body_case = BF__ENVELOPE__BODY_READY;
        out.ready = &r;
        send_env(s->ctrl, &out);
        break;
    }
    case BF__ENVELOPE__BODY_START:
        if (env->start->command_id != s->start_cmd) {
            s->start_cmd = env->start->command_id;
            s->start_us = bf_clock_mono_us() + (uint64_t)env->start->start_in_ms * 1000u -
                          (uint64_t)env->start->late_ms * 1000u;
            s->next_second = 0;
            s->running = 1;
            if (!*load_started) {
                *load_started = 1;
                printf("load-start %.3f\n", (double)bf_clock_wall_us() / 1e6);
                fflush(stdout);
            }
        }
        ack_cmd(s, env->start->command_id, env->start->cell_id);
        break;
    case BF__ENVELOPE__BODY_STOP:
        if (s->running && strcmp(env->stop->cell_id, s->cell) == 0)
            s->load_s = s->next_second; /* the final goes out at the next tick */
        ack_cmd(s, env->stop->command_id, env->stop->cell_id);
        break;
    case BF__ENVELOPE__BODY_PING:
        bf_wire_send_pong(s->ctrl, NULL, 0, env->ping, ZMQ_DONTWAIT);
        break;
    default:
        break;
    }
}

static void on_data(sim *s, const Bf__Envelope *env)
{
    if (env->body_case != BF__ENVELOPE__BODY_SAMPLE_ACK || strcmp(env->sample_ack->cell_id, s->cell))
        return;
    size_t k = 0;
    for (size_t i = 0; i < s->nunacked; i++) {
        if (s->unacked[i].seq <= env->sample_ack->seq) {
            free(s->unacked[i].data);
            acked_total++;
        } else {
            s->unacked[k++] = s->unacked[i];
        }
    }
    s->nunacked = k;
}

static void *dealer(void *zctx, const char *id, const char *ep, const char *keys_dir,
                    const char *sec, const char *pub, const char *srv)
{
    void *d = zmq_socket(zctx, ZMQ_DEALER);
    bf_wire_socket_setup(d, 0, 0);
    zmq_setsockopt(d, ZMQ_ROUTING_ID, id, strlen(id));
    if (keys_dir) {
        zmq_setsockopt(d, ZMQ_CURVE_SERVERKEY, srv, 41);
        zmq_setsockopt(d, ZMQ_CURVE_PUBLICKEY, pub, 41);
        zmq_setsockopt(d, ZMQ_CURVE_SECRETKEY, sec, 41);
    }
    zmq_connect(d, ep);
    return d;
}

int main(int argc, char **argv)
{
    const char *endpoint = NULL, *keys = NULL, *prefix = "sim";
    int insecure = 0, nagents = 200, cells = 1;
    static const struct option longopts[] = {
        {"coordinator", required_argument, NULL, 'c'}, {"agents", required_argument, NULL, 'n'},
        {"keys", required_argument, NULL, 'k'},        {"insecure", no_argument, NULL, 'I'},
        {"prefix", required_argument, NULL, 'p'},      {"cells", required_argument, NULL, 'C'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 'c': endpoint = optarg; break;
        case 'n': nagents = (int)strtol(optarg, NULL, 10); break;
        case 'k': keys = optarg; break;
        case 'I': insecure = 1; break;
        case 'p': prefix = optarg; break;
        case 'C': cells = (int)strtol(optarg, NULL, 10); break;
        default: return 64;
        }
    }
    if (endpoint == NULL || (!insecure && !keys) || nagents < 1 || nagents > 2000) {
        fprintf(stderr, "usage: bf_simagents --coordinator tcp://HOST:PORT --agents N "
                        "(--keys DIR | --insecure) [--prefix P] [--cells N]\n");
        return 64;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    char sec[41] = "", pub[41] = "", srv[41] = "";
    if (!insecure) {
        bf_diag_t d = {0};
        if (bf_keys_load_secret(keys, "agent", sec, pub, &d) != 0 ||
            bf_keys_load_public(keys, "coordinator", srv, &d) != 0) {
            fprintf(stderr, "bf_simagents: %s\n", d.msg);
            return 64;
        }
    }
    const char *colon = strrchr(endpoint, ':');
    char data_ep[256];
    snprintf(data_ep, sizeof data_ep, "%.*s:%ld", (int)(colon - endpoint), endpoint,
             strtol(colon + 1, NULL, 10) + 1);
    void *zctx = zmq_ctx_new();
    zmq_ctx_set(zctx, ZMQ_MAX_SOCKETS, 4 * nagents + 64);
    sim *sims = bf_calloc((size_t)nagents, sizeof *sims);
    zmq_pollitem_t *items = bf_calloc(2 * (size_t)nagents, sizeof *items);
    for (int i = 0; i < nagents; i++) {
        sim *s = &sims[i];
        snprintf(s->id, sizeof s->id, "%s-%03d", prefix, i + 1);
        s->rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
        s->ctrl = dealer(zctx, s->id, endpoint, insecure ? NULL : keys, sec, pub, srv);
        s->data = dealer(zctx, s->id, data_ep, insecure ? NULL : keys, sec, pub, srv);
        items[2 * i] = (zmq_pollitem_t){s->ctrl, 0, ZMQ_POLLIN, 0};
        items[2 * i + 1] = (zmq_pollitem_t){s->data, 0, ZMQ_POLLIN, 0};
        hello(s, 0);
        hello(s, 1);
    }
    bf_hist_t *svc = bf_hist_new(), *lat = bf_hist_new();
    int load_started = 0, load_ended = 0;
    uint64_t last_hello = bf_clock_mono_us();
    uint64_t deadline_us = bf_clock_mono_us() + 900u * 1000000u; /* bounded: never runs on */
    while (!stop_flag) {
        if (bf_clock_mono_us() > deadline_us) {
            fprintf(stderr, "bf_simagents: 900 s deadline reached; giving up\n");
            stop_flag = 4;
            break;
        }
        zmq_poll(items, 2 * nagents, 50);
        for (int i = 0; i < 2 * nagents; i++) {
            if (!(items[i].revents & ZMQ_POLLIN))
                continue;
            for (int k = 0; k < 32; k++) {
                Bf__Envelope *env = NULL;
                int rc = bf_wire_recv(items[i].socket, NULL, NULL, &env, ZMQ_DONTWAIT);
                if (rc == BF_E_IO)
                    break;
                if (rc != 0)
                    continue;
                if (i % 2 == 0)
                    on_ctrl(&sims[i / 2], env, &load_started);
                else
                    on_data(&sims[i / 2], env);
                bf__envelope__free_unpacked(env, NULL);
            }
        }
        uint64_t now = bf_clock_mono_us();
        int finished = 0, unwelcomed = 0;
        for (int i = 0; i < nagents; i++) {
            sim *s = &sims[i];
            unwelcomed += !s->welcomed;
            /* a second is sealed 150 ms after it ended, as in the real agent */
            while (s->running &&
                   now >= s->start_us + (uint64_t)(s->next_second + 1) * 1000000u + 150000u) {
                if (s->next_second >= s->load_s) {
                    sample(s, -1, 1, svc, lat);
                    done(s);
                    s->running = 0;
                    s->finished_cells++;
                    break;
                }
                sample(s, s->next_second++, 0, svc, lat);
            }
            finished += s->finished_cells >= cells && s->nunacked == 0;
        }
        /* a Hello is queued by the DEALER until its connection is up, so one is enough unless
         * the coordinator restarted; a short interval here only raced the Welcome under load
         * (a second Hello arriving after Prepare looks like an agent that lost its cell) */
        if (unwelcomed && now - last_hello > 10000000u) {
            for (int i = 0; i < nagents; i++)
                if (!sims[i].welcomed) {
                    hello(&sims[i], 0);
                    hello(&sims[i], 1);
                }
            last_hello = now;
        }
        int all_sent = 1;
        for (int i = 0; i < nagents && all_sent; i++)
            all_sent = sims[i].finished_cells >= cells;
        if (all_sent && !load_ended) {
            load_ended = 1;
            printf("load-end %.3f\n", (double)bf_clock_wall_us() / 1e6);
            fflush(stdout);
        }
        if (finished == nagents)
            break;
    }
    uint64_t unacked = 0;
    for (int i = 0; i < nagents; i++) {
        unacked += sims[i].nunacked;
        for (size_t k = 0; k < sims[i].nunacked; k++)
            free(sims[i].unacked[k].data);
        free(sims[i].unacked);
        zmq_close(sims[i].ctrl);
        zmq_close(sims[i].data);
    }
    printf("samples sent %llu acked %llu unacked %llu\n", (unsigned long long)sent_total,
           (unsigned long long)acked_total, (unsigned long long)unacked);
    bf_hist_destroy(&svc);
    bf_hist_destroy(&lat);
    free(sims);
    free(items);
    zmq_ctx_term(zctx);
    return unacked == 0 && stop_flag == 0 ? 0 : 1;
}
