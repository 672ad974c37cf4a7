/* bf_agent.c — the agent's session with its coordinator (see bf_agent.h for the states). */
#include "bf_agent.h"

#include "bf_allow.h"
#include "bf_clock.h"
#include "bf_keys.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_run.h"
#include "bf_sample.h"
#include "bf_scenario.h"
#include "bf_wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

volatile int bf_agent_stop_flag = 0;

enum agent_state { ST_HELLO = 0, ST_IDLE, ST_PREPARED, ST_RUNNING };

typedef struct pending {  /* a packed Sample envelope kept until acknowledged */
    uint64_t seq;
    uint8_t *data;
    size_t len;
} pending;

typedef struct file_cache {  /* dictionary files shipped by content hash */
    char sha256[65];
    char *data;
    size_t len;
} file_cache;

typedef struct agent {
    const bf_agent_opts_t *opts;
    char secret_z85[41], public_z85[41], server_z85[41];
    char id[128];
    char hostname[128];
    uint32_t threads;
    void *zctx, *ctrl, *data;
    enum agent_state state;
    uint64_t last_heard_us, last_sent_us, last_hello_us;
    uint32_t heartbeat_ms, lost_ms, deadman_ms;

    /* current cell */
    bf_scenario_t *sc;
    const bf_cell_t *cell;
    bf_run_t *run;
    char cell_id[128];
    uint64_t prepare_cmd, start_cmd;
    Bf__Envelope *last_answer_env; /* not kept: we rebuild answers */
    int last_prepare_ok;
    char last_prepare_reason[1024];
    uint64_t seq;
    int aborted;
    char fatal_sent;
    uint64_t docs_ok_total, docs_sent_total;

    pending *unacked;
    size_t nunacked, capunacked;
    uint64_t acked;

    Bf__FileBlob **blobs; /* files of the current Prepare (borrowed from the unpacked env) */
    size_t nblobs;
    file_cache *cache;
    size_t ncache;
    int cells_done;
} agent;

/* ---- sending ------------------------------------------------------------------------------ */

static void send_ctrl(agent *a, Bf__Envelope *env)
{
    if (bf_wire_send(a->ctrl, NULL, 0, env, ZMQ_DONTWAIT) != BF_OK && errno != EAGAIN)
        bf_warn("control send failed: %s", zmq_strerror(errno));
    a->last_sent_us = bf_clock_mono_us();
}

static void send_hello(agent *a, void *sock, int data_socket)
{
    Bf__Hello h = BF__HELLO__INIT;
    h.agent_id = a->id;
    h.hostname = a->hostname;
    h.cores = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
    h.threads = a->threads;
    h.version = BF_VERSION;
    h.state = a->state == ST_RUNNING ? BF__AGENT_STATE__AGENT_RUNNING : BF__AGENT_STATE__AGENT_IDLE;
    h.wall_us = bf_clock_wall_us();
    h.cell_id = a->cell_id;
    h.last_seq = a->seq;
    h.data_socket = data_socket;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    bf_wire_send(sock, NULL, 0, &env, ZMQ_DONTWAIT);
    a->last_sent_us = a->last_hello_us = bf_clock_mono_us();
}

static void send_failed(agent *a, uint64_t cmd, const char *cell_id, const char *reason)
{
    Bf__Failed f = BF__FAILED__INIT;
    f.command_id = cmd;
    f.cell_id = (char *)cell_id;
    f.reason = (char *)reason;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_FAILED;
    env.failed = &f;
    send_ctrl(a, &env);
}

static void send_ready(agent *a, uint64_t cmd)
{
    Bf__Ready r = BF__READY__INIT;
    r.command_id = cmd;
    r.cell_id = a->cell_id;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_READY;
    env.ready = &r;
    send_ctrl(a, &env);
}

static void send_done(agent *a)
{
    Bf__Done d = BF__DONE__INIT;
    d.command_id = a->start_cmd;
    d.cell_id = a->cell_id;
    d.last_seq = a->seq;
    d.docs_ok = a->docs_ok_total;
    d.docs_sent = a->docs_sent_total;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_DONE;
    env.done = &d;
    send_ctrl(a, &env);
}

static void resend_unacked(agent *a)
{
    for (size_t i = 0; i < a->nunacked; i++)
        zmq_send(a->data, a->unacked[i].data, a->unacked[i].len, ZMQ_DONTWAIT);
}

/* Packs one Sample, keeps it until acknowledged, and sends it on the data socket. */
static void push_sample(agent *a, int32_t second, const bf_counters_t *c, const bf_hist_t *svc,
                        const bf_hist_t *lat, int final, const char *fatal)
{
    Bf__Sample s;
    Bf__Hist hs, hl;
    bf_sample_pack(&s, &hs, &hl, a->cell_id, ++a->seq, second, c, svc, lat);
    s.final = final;
    s.fatal = (char *)(fatal ? fatal : "");
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_SAMPLE;
    env.sample = &s;
    size_t n = bf__envelope__get_packed_size(&env);
    uint8_t *buf = bf_malloc(n);
    bf__envelope__pack(&env, buf);
    bf_sample_pack_cleanup(&s);
    if (a->nunacked == a->capunacked) {
        a->capunacked = a->capunacked ? a->capunacked * 2 : 64;
        a->unacked = bf_realloc(a->unacked, a->capunacked * sizeof *a->unacked);
    }
    a->unacked[a->nunacked++] = (pending){.seq = a->seq, .data = buf, .len = n};
    if (zmq_send(a->data, buf, n, ZMQ_DONTWAIT) < 0 && errno != EAGAIN)
        bf_warn("sample %llu not sent now (%s); kept for resend", (unsigned long long)a->seq,
                zmq_strerror(errno));
    a->docs_ok_total += c->docs_ok;
    a->docs_sent_total += c->docs_sent;
}

static void on_sample(void *ctx, int32_t second, const bf_counters_t *c, const bf_hist_t *svc,
                      const bf_hist_t *lat)
{
    push_sample(ctx, second, c, svc, lat, 0, NULL);
}

static void drop_acked(agent *a, uint64_t seq)
{
    size_t k = 0;
    for (size_t i = 0; i < a->nunacked; i++) {
        if (a->unacked[i].seq <= seq)
            free(a->unacked[i].data);
        else
            a->unacked[k++] = a->unacked[i];
    }
    a->nunacked = k;
    if (seq > a->acked)
        a->acked = seq;
}

static void drop_all_unacked(agent *a)
{
    for (size_t i = 0; i < a->nunacked; i++)
        free(a->unacked[i].data);
    a->nunacked = 0;
}

/* ---- cells -------------------------------------------------------------------------------- */

static int serve_file(void *ctx, const char *path, char **data, size_t *len)
{
    agent *a = ctx;
    for (size_t i = 0; i < a->nblobs; i++) {
        Bf__FileBlob *b = a->blobs[i];
        if (strcmp(b->path, path) != 0)
            continue;
        if (b->content.len > 0) {
            *data = bf_malloc(b->content.len + 1);
            memcpy(*data, b->content.data, b->content.len);
            (*data)[b->content.len] = '\0';
            *len = b->content.len;
            /* cache by content hash so the next Prepare can omit it */
            int cached = 0;
            for (size_t k = 0; k < a->ncache; k++)
                cached |= strcmp(a->cache[k].sha256, b->sha256) == 0;
            if (!cached) {
                a->cache = bf_realloc(a->cache, (a->ncache + 1) * sizeof *a->cache);
                file_cache *fc = &a->cache[a->ncache++];
                bf_strlcpy(fc->sha256, b->sha256, sizeof fc->sha256);
                fc->data = bf_malloc(b->content.len + 1);
                memcpy(fc->data, b->content.data, b->content.len);
                fc->len = b->content.len;
            }
            return BF_OK;
        }
        for (size_t k = 0; k < a->ncache; k++) {
            if (strcmp(a->cache[k].sha256, b->sha256) == 0) {
                *data = bf_malloc(a->cache[k].len + 1);
                memcpy(*data, a->cache[k].data, a->cache[k].len);
                (*data)[a->cache[k].len] = '\0';
                *len = a->cache[k].len;
                return BF_OK;
            }
        }
    }
    return BF_E_NOTFOUND;
}

static void end_cell(agent *a)
{
    bf_run_destroy(&a->run);
    bf_scenario_destroy(&a->sc);
    a->cell = NULL;
    a->state = ST_IDLE;
    a->cells_done++;
}

static void on_prepare(agent *a, const Bf__Prepare *p)
{
    if (p->command_id == a->prepare_cmd && a->prepare_cmd != 0) {
        /* a resend of the Prepare we already answered */
        if (a->last_prepare_ok)
            send_ready(a, p->command_id);
        else
            send_failed(a, p->command_id, p->cell_id, a->last_prepare_reason);
        return;
    }
    if (a->state == ST_RUNNING) {
        send_failed(a, p->command_id, p->cell_id, "agent is still running another cell");
        return;
    }
    if (a->state == ST_PREPARED)
        end_cell(a);
    a->prepare_cmd = p->command_id;
    bf_strlcpy(a->cell_id, p->cell_id, sizeof a->cell_id);
    a->seq = 0;
    a->aborted = 0;
    a->fatal_sent = 0;
    a->docs_ok_total = a->docs_sent_total = 0;
    drop_all_unacked(a);
    a->acked = 0;

    bf_diag_t diag = {0};
    a->blobs = p->files;
    a->nblobs = p->n_files;
    bf_load_opts_t lo = {.file_provider = serve_file, .file_provider_ctx = a, .no_env = 1};
    int rc = bf_scenario_load_text((const char *)p->scenario_yaml.data, p->scenario_yaml.len,
                                   p->scenario_origin, &lo, &a->sc, &diag);
    a->blobs = NULL;
    a->nblobs = 0;
    if (rc == BF_OK) {
        /* --allow-target: refuse a cell aimed at a host this agent may not load */
        const bf_target_t *t = bf_scenario_target(a->sc);
        for (size_t i = 0; i < t->nhosts && rc == BF_OK; i++) {
            char host[256];
            if (bf_allow_url_host(t->hosts[i], host, sizeof host) != 0 ||
                !bf_allow_match(a->opts->allow_targets, host))
                rc = bf_diag_set(&diag, BF_E_INVAL, "target %s is not in this agent's "
                                 "--allow-target list; refusing the cell", t->hosts[i]);
        }
    }
    if (rc == BF_OK) {
        a->cell = bf_scenario_find_cell(a->sc, p->cell_id);
        if (a->cell == NULL)
            rc = bf_diag_set(&diag, BF_E_NOTFOUND, "cell %s not in the scenario", p->cell_id);
    }
    if (rc == BF_OK) {
        bf_run_cfg_t rc_cfg = {
            .sc = a->sc,
            .cell = a->cell,
            .threads = a->threads,
            .concurrency = p->concurrency,
            .target_rate = p->target_rate,
            .stream_base = p->stream_base,
            .stream_count = p->stream_count,
            .seed = p->seed,
            .warmup_ms = p->warmup_ms,
            .duration_ms = p->duration_ms,
        };
        a->run = bf_run_new(&rc_cfg, &diag);
        if (a->run == NULL)
            rc = diag.code ? diag.code : BF_E_INVAL;
    }
    if (rc != BF_OK) {
        a->last_prepare_ok = 0;
        snprintf(a->last_prepare_reason, sizeof a->last_prepare_reason, "agent %s: %s", a->id,
                 diag.msg[0] ? diag.msg : bf_strerror(rc));
        bf_error("prepare %s failed: %s", p->cell_id, a->last_prepare_reason);
        bf_scenario_destroy(&a->sc);
        send_failed(a, p->command_id, p->cell_id, a->last_prepare_reason);
        return;
    }
    a->last_prepare_ok = 1;
    a->state = ST_PREPARED;
    bf_info("prepared cell %s: %u bulk requests in flight on %u threads", a->cell_id,
            p->concurrency, bf_run_threads(a->run));
    send_ready(a, p->command_id);
}

static void on_start(agent *a, const Bf__Start *s)
{
    if (s->command_id == a->start_cmd && a->start_cmd != 0)
        return; /* repeat: already started */
    if (a->state != ST_PREPARED || strcmp(s->cell_id, a->cell_id) != 0) {
        send_failed(a, s->command_id, s->cell_id, "Start without a matching Prepare");
        return;
    }
    a->start_cmd = s->command_id;
    uint64_t start = bf_clock_mono_us() + (uint64_t)s->start_in_ms * 1000u;
    if (bf_run_start(a->run, start) != BF_OK) {
        send_failed(a, s->command_id, s->cell_id, "could not start worker threads");
        end_cell(a);
        return;
    }
    a->state = ST_RUNNING;
    bf_info("cell %s starts in %u ms", a->cell_id, s->start_in_ms);
}

static void on_ctrl(agent *a, Bf__Envelope *env)
{
    char reason[256];
    if (bf_wire_check_version(env, reason, sizeof reason) != BF_OK) {
        bf_error("coordinator: %s", reason);
        return;
    }
    switch (env->body_case) {
    case BF__ENVELOPE__BODY_WELCOME:
        if (a->state == ST_HELLO)
            a->state = ST_IDLE;
        a->heartbeat_ms = env->welcome->heartbeat_ms ? env->welcome->heartbeat_ms : 1000;
        if (env->welcome->deadman_ms)
            a->deadman_ms = env->welcome->deadman_ms;
        if (env->welcome->resend_samples)
            resend_unacked(a);
        else if (a->state != ST_RUNNING)
            drop_all_unacked(a);
        bf_info("welcomed by the coordinator");
        break;
    case BF__ENVELOPE__BODY_REJECT:
        bf_error("the coordinator refused this agent: %s", env->reject->reason);
        bf_agent_stop_flag = 3;
        break;
    case BF__ENVELOPE__BODY_PREPARE:
        on_prepare(a, env->prepare);
        break;
    case BF__ENVELOPE__BODY_START:
        on_start(a, env->start);
        break;
    case BF__ENVELOPE__BODY_STOP:
        if (a->run && strcmp(env->stop->cell_id, a->cell_id) == 0) {
            bf_warn("coordinator stopped cell %s: %s", a->cell_id, env->stop->reason);
            bf_run_abort(a->run);
            a->aborted = 1;
            if (a->state == ST_PREPARED)
                end_cell(a);
        }
        break;
    case BF__ENVELOPE__BODY_PING: {
        Bf__Pong pong = BF__PONG__INIT;
        pong.wall_us = bf_clock_wall_us();
        pong.echo_wall_us = env->ping->wall_us;
        Bf__Envelope out;
        bf_wire_init(&out);
        out.body_case = BF__ENVELOPE__BODY_PONG;
        out.pong = &pong;
        send_ctrl(a, &out);
        break;
    }
    default:
        break;
    }
}

static void on_data(agent *a, Bf__Envelope *env)
{
    if (env->body_case == BF__ENVELOPE__BODY_SAMPLE_ACK &&
        strcmp(env->sample_ack->cell_id, a->cell_id) == 0)
        drop_acked(a, env->sample_ack->seq);
}

static void tick(agent *a)
{
    uint64_t now = bf_clock_mono_us();
    if (a->state == ST_RUNNING) {
        const char *fatal = bf_run_fatal(a->run);
        if (fatal[0] && !a->fatal_sent) {
            bf_error("%s", fatal);
            a->fatal_sent = 1;
            send_failed(a, a->start_cmd, a->cell_id, fatal);
        }
        if (!a->aborted && now - a->last_heard_us > (uint64_t)a->deadman_ms * 1000u) {
            bf_error("dead-man switch: nothing heard from the coordinator for %u ms; stopping "
                     "the load of cell %s and keeping its samples", a->deadman_ms, a->cell_id);
            bf_run_abort(a->run);
            a->aborted = 1;
        }
        if (bf_run_poll(a->run, on_sample, a)) {
            bf_counters_t zero;
            memset(&zero, 0, sizeof zero);
            push_sample(a, -1, &zero, NULL, NULL, 1, fatal[0] ? fatal : NULL);
            send_done(a);
            bf_info("cell %s done: %llu docs acknowledged", a->cell_id,
                    (unsigned long long)a->docs_ok_total);
            end_cell(a);
        }
    }
    /* heartbeats: any message counts; silence from the coordinator → say hello again */
    uint32_t hb = a->heartbeat_ms ? a->heartbeat_ms : 1000;
    if (now - a->last_sent_us > (uint64_t)hb * 1000u) {
        Bf__Ping ping = BF__PING__INIT;
        ping.wall_us = bf_clock_wall_us();
        Bf__Envelope env;
        bf_wire_init(&env);
        env.body_case = BF__ENVELOPE__BODY_PING;
        env.ping = &ping;
        send_ctrl(a, &env);
    }
    if ((a->state == ST_HELLO || now - a->last_heard_us > 3000000u) &&
        now - a->last_hello_us > 2000000u) {
        send_hello(a, a->ctrl, 0);
        send_hello(a, a->data, 1);
    }
}

static void *open_socket(agent *a, const char *endpoint, const char *what)
{
    void *s = zmq_socket(a->zctx, ZMQ_DEALER);
    bf_wire_socket_setup(s, 0, 0);
    zmq_setsockopt(s, ZMQ_ROUTING_ID, a->id, strlen(a->id));
    if (!a->opts->insecure) {
        /* CURVE client: pin the coordinator's public key */
        zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, a->server_z85, BF_Z85_KEY_LEN + 1);
        zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, a->public_z85, BF_Z85_KEY_LEN + 1);
        zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, a->secret_z85, BF_Z85_KEY_LEN + 1);
    }
    int ivl = 100, ivl_max = 5000;
    zmq_setsockopt(s, ZMQ_RECONNECT_IVL, &ivl, sizeof ivl);
    zmq_setsockopt(s, ZMQ_RECONNECT_IVL_MAX, &ivl_max, sizeof ivl_max);
    if (zmq_connect(s, endpoint) != 0) {
        bf_error("cannot connect the %s socket to %s: %s; give --coordinator tcp://HOST:PORT", what,
                 endpoint, zmq_strerror(errno));
        zmq_close(s);
        return NULL;
    }
    return s;
}

int bf_agent_main(const bf_agent_opts_t *opts)
{
    agent a;
    memset(&a, 0, sizeof a);
    a.opts = opts;
    gethostname(a.hostname, sizeof a.hostname - 1);
    if (opts->agent_id)
        bf_strlcpy(a.id, opts->agent_id, sizeof a.id);
    else
        snprintf(a.id, sizeof a.id, "%s-%ld", a.hostname, (long)getpid());
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    a.threads = opts->threads ? opts->threads : (uint32_t)(ncpu > 0 ? ncpu : 1);
    a.deadman_ms = opts->deadman_ms ? opts->deadman_ms : 15000;
    char data_ep[512];
    if (opts->data_endpoint) {
        bf_strlcpy(data_ep, opts->data_endpoint, sizeof data_ep);
    } else {
        const char *colon = strrchr(opts->control_endpoint, ':');
        long port = colon ? strtol(colon + 1, NULL, 10) : 0;
        if (colon == NULL || port <= 0 || port >= 65535) {
            bf_error("--coordinator %s: expected tcp://HOST:PORT", opts->control_endpoint);
            return 2;
        }
        snprintf(data_ep, sizeof data_ep, "%.*s:%ld", (int)(colon - opts->control_endpoint),
                 opts->control_endpoint, port + 1);
    }
    if (opts->insecure) {
        bf_warn("--insecure: plain TCP, no encryption and no authentication of the coordinator");
    } else {
        bf_diag_t kd = {0};
        if (opts->keys_dir == NULL) {
            bf_error("CURVE keys are required: give --keys DIR (with agent.key and "
                     "coordinator.pub; create them with `bulkfleet-agent keygen DIR`), or "
                     "--insecure on a trusted network");
            return 3;
        }
        if (bf_keys_load_secret(opts->keys_dir, "agent", a.secret_z85, a.public_z85, &kd) != BF_OK ||
            bf_keys_load_public(opts->keys_dir, "coordinator", a.server_z85, &kd) != BF_OK) {
            bf_error("%s", kd.msg);
            return 3;
        }
    }
    a.zctx = zmq_ctx_new();
    a.ctrl = open_socket(&a, opts->control_endpoint, "control");
    a.data = a.ctrl ? open_socket(&a, data_ep, "data") : NULL;
    if (a.data == NULL) {
        if (a.ctrl)
            zmq_close(a.ctrl);
        zmq_ctx_term(a.zctx);
        return 3;
    }
    bf_info("agent %s (%u threads) connecting to %s and %s", a.id, a.threads,
            opts->control_endpoint, data_ep);
    a.last_heard_us = bf_clock_mono_us();
    send_hello(&a, a.ctrl, 0);
    send_hello(&a, a.data, 1);

    while (!bf_agent_stop_flag) {
        zmq_pollitem_t items[2] = {{a.ctrl, 0, ZMQ_POLLIN, 0}, {a.data, 0, ZMQ_POLLIN, 0}};
        int n = zmq_poll(items, 2, 100);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2 && n > 0; i++) {
            if (!(items[i].revents & ZMQ_POLLIN))
                continue;
            for (int k = 0; k < 64; k++) {
                Bf__Envelope *env = NULL;
                int rc = bf_wire_recv(items[i].socket, NULL, NULL, &env, ZMQ_DONTWAIT);
                if (rc == BF_E_IO)
                    break;
                if (rc == BF_E_PROTO) {
                    bf_warn("ignored a message that is not a bulkfleet envelope");
                    continue;
                }
                a.last_heard_us = bf_clock_mono_us();
                if (i == 0)
                    on_ctrl(&a, env);
                else
                    on_data(&a, env);
                bf__envelope__free_unpacked(env, NULL);
            }
        }
        tick(&a);
        if (opts->exit_after_cells > 0 && a.cells_done >= opts->exit_after_cells && a.nunacked == 0)
            break;
    }
    int code = bf_agent_stop_flag == 3 ? 3 : 0;
    if (a.run) {
        bf_run_abort(a.run);
        end_cell(&a);
    }
    drop_all_unacked(&a);
    free(a.unacked);
    for (size_t i = 0; i < a.ncache; i++)
        free(a.cache[i].data);
    free(a.cache);
    zmq_close(a.ctrl);
    zmq_close(a.data);
    zmq_ctx_term(a.zctx);
    explicit_bzero(a.secret_z85, sizeof a.secret_z85);
    return code;
}
