/* SPDX-License-Identifier: MIT */
/* bf_agent.c — the agent's session with its coordinator (see bf_agent.h for the states).
 *
 * One control thread: it polls both DEALERs every 100 ms at most, feeds each message to the
 * state machines as an event, and runs the timers (heartbeat, suspect, dead-man, back-off,
 * sample retransmission) in tick(). Worker threads never touch a socket: bf_run_poll hands
 * sealed seconds to this thread. A Prepare is built (scenario, corpus parsed and laid out) on
 * a thread of its own while this one keeps answering the fleet (build_live).
 */
#include "bf_agent.h"
#include "bf_aws.h"

#include "bf_allow.h"
#include "bf_clock.h"
#include "bf_keys.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_run.h"
#include "bf_sample.h"
#include "bf_scenario.h"
#include "bf_sha256.h"
#include "bf_units.h"
#include "bf_wire.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <zmq.h>

volatile int bf_agent_stop_flag = 0;

#define BACKOFF_MIN_MS 1000u
#define BACKOFF_MAX_MS 8000u
#define RETRANSMIT_MS 3000u  /* an unacked sample is sent again after this long */
#define SUSPECT_MS 3000u     /* until Welcome says otherwise */
#define LOST_MS 10000u

enum link_state { LINK_HELLO = 0, LINK_UP };
enum cell_state { CELL_IDLE = 0, CELL_PREPARED, CELL_RUNNING, CELL_DRAINING };

static const char *const link_names[] = {"HELLO", "UP"};
static const char *const cell_names[] = {"IDLE", "PREPARED", "RUNNING", "DRAINING"};

typedef struct pending {  /* a packed Sample envelope kept until acknowledged */
    uint64_t seq;
    uint8_t *data;
    size_t len;
    uint64_t sent_us;     /* last time it went out (monotonic) */
} pending;

typedef struct deferred { /* a message that came while a Prepare was being built */
    Bf__Envelope *env;    /* unpacked, owned */
    int is_data;
} deferred;

typedef struct file_cache {  /* dictionary files shipped by content hash */
    char sha256[65];
    char *data;
    size_t len;
} file_cache;

/* A file that comes in chunks (FileBlob.chunk_sha256), while it is not whole: the chunks that
 * arrived intact are kept, so a transfer cut off (the coordinator restarted, a message lost)
 * goes on with the missing ones only. */
typedef struct partial_file {
    char sha256[65];
    char path[256]; /* for messages */
    uint64_t size;  /* bytes */
    uint32_t chunk_bytes, nchunks, nhave;
    char (*hex)[65]; /* per chunk */
    uint8_t *st;     /* per chunk: 0 missing, 1 asked for, 2 here */
    char *data;      /* size bytes */
    uint64_t t0_us;  /* first chunk asked for */
    int wanted;      /* a file of the held Prepare (only those are fetched) */
} partial_file;

#define FETCH_WINDOW 4 /* chunks asked for at a time */

typedef struct agent {
    const bf_agent_opts_t *opts;
    char secret_z85[41], public_z85[41], server_z85[41];
    char id[128];
    char route[160]; /* routing id of both DEALERs: id + "/" + this process's random nonce */
    char hostname[128];
    char data_ep[512];
    uint32_t threads;
    void *zctx, *ctrl, *data;
    void *mon;              /* PAIR: CURVE handshake failures of the control socket */
    unsigned mon_n;
    uint64_t refusals;

    enum link_state link;
    enum cell_state cell_st;
    uint64_t last_heard_us, last_sent_us, last_hello_us;
    uint64_t last_nag_us; /* last "no answer from the coordinator" warning */
    int welcomed_once;    /* a coordinator has welcomed this agent: its silence, while idle, is
                           * the end of a campaign, not a misconfiguration */
    int bad_endpoint;     /* zmq_connect refused the endpoint's syntax */
    uint32_t backoff_ms;
    uint32_t heartbeat_ms, suspect_ms, lost_ms, deadman_ms;
    int64_t clock_offset_us;

    /* current cell (or the last one, while its samples are unacknowledged) */
    bf_scenario_t *sc;
    const bf_cell_t *cell;
    bf_cell_t step_cell;  /* a find-max step: its base cell with the step's id and batch */
    char step_id[128];
    bf_run_t *run;
    char cell_id[128];
    uint64_t prepare_cmd, start_cmd, stop_cmd;
    int last_prepare_ok;
    char last_prepare_reason[1024];
    uint64_t seq;
    int fatal_sent;
    uint64_t docs_ok_total, docs_sent_total;

    pending *unacked;
    size_t nunacked, capunacked;
    uint64_t acked, overflowed;

    Bf__FileBlob **blobs; /* files of the current Prepare (borrowed from the unpacked env) */
    size_t nblobs;
    int blob_error;
    file_cache *cache;
    size_t ncache;
    partial_file *partials;
    size_t npartials;
    uint8_t *held; /* a Prepare waiting for file chunks (packed), or NULL */
    size_t held_len;
    uint64_t held_cmd;
    char held_cell[128];
    int cells_done;
    deferred *deferred; /* taken while a long step ran (run_live), handled after it */
    size_t ndeferred, capdeferred;
} agent;

static void set_link(agent *a, enum link_state next, const char *why)
{
    if (a->link != next)
        bf_debug("link %s -> %s (%s)", link_names[a->link], link_names[next], why);
    a->link = next;
}

static void set_cell(agent *a, enum cell_state next, const char *why)
{
    if (a->cell_st != next)
        bf_debug("cell %s: %s -> %s (%s)", a->cell_id, cell_names[a->cell_st], cell_names[next], why);
    a->cell_st = next;
}

/* ---- sending ------------------------------------------------------------------------------ */

static void send_ctrl(agent *a, Bf__Envelope *env)
{
    if (bf_wire_send(a->ctrl, NULL, 0, env, ZMQ_DONTWAIT) != BF_OK && errno != EAGAIN)
        bf_warn("control send failed: %s", zmq_strerror(errno));
    a->last_sent_us = bf_clock_mono_us();
}

static void send_hello(agent *a, void *sock, int data_socket)
{
    static const uint32_t states[] = {
        [CELL_IDLE] = BF__AGENT_STATE__AGENT_IDLE,
        [CELL_PREPARED] = BF__AGENT_STATE__AGENT_PREPARED,
        [CELL_RUNNING] = BF__AGENT_STATE__AGENT_RUNNING,
        [CELL_DRAINING] = BF__AGENT_STATE__AGENT_DRAINING,
    };
    Bf__Hello h = BF__HELLO__INIT;
    char *cached[64];
    h.agent_id = a->id;
    h.hostname = a->hostname;
    h.cores = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
    h.threads = a->threads;
    h.version = BF_VERSION;
    char *caps[] = {"end_load"}; /* Stop.end_load_ms: the load ends early, not aborted */
    h.capabilities = caps;
    h.n_capabilities = 1;
    /* idle with unacknowledged samples is DRAINING too: the coordinator decides their fate */
    h.state = a->cell_st == CELL_IDLE && a->nunacked ? BF__AGENT_STATE__AGENT_DRAINING
                                                       : states[a->cell_st];
    h.wall_us = bf_clock_wall_us();
    h.cell_id = a->cell_st != CELL_IDLE || a->nunacked ? a->cell_id : "";
    h.last_seq = a->seq;
    h.data_socket = data_socket;
    if (!data_socket) {
        for (size_t i = 0; i < a->ncache && h.n_cached_files < 64; i++)
            cached[h.n_cached_files++] = a->cache[i].sha256;
        h.cached_files = cached;
    }
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

static void send_ack(agent *a, uint64_t cmd, const char *cell_id)
{
    Bf__Ack k = BF__ACK__INIT;
    k.command_id = cmd;
    k.cell_id = (char *)cell_id;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_ACK;
    env.ack = &k;
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

/* Sends every unacknowledged sample again, oldest first (go-back-N: the coordinator takes
 * only the next seq it expects, so a gap is filled by this and nothing is written twice). */
static void resend_unacked(agent *a)
{
    uint64_t now = bf_clock_mono_us();
    for (size_t i = 0; i < a->nunacked; i++) {
        if (zmq_send(a->data, a->unacked[i].data, a->unacked[i].len, ZMQ_DONTWAIT) < 0)
            break;
        a->unacked[i].sent_us = now;
    }
}

/* Packs one Sample, keeps it until acknowledged, and sends it on the data socket. */
static void push_sample(agent *a, int32_t second, const bf_counters_t *c, const bf_hist_t *svc,
                        const bf_hist_t *lat, int final, const char *fatal)
{
    Bf__Sample s;
    Bf__Hist hs, hl;
    bf_sample_pack(&s, &hs, &hl, a->cell_id, ++a->seq, second, c, svc, lat);
    bf_run_pack_queries(a->run, &s); /* search clients' queries of this second, if any */
    bf_run_pack_errors(a->run, &s);
    s.final = final;
    s.corpus_done = final && a->run && bf_run_corpus_done(a->run);
    s.corpus_end_ms = s.corpus_done ? bf_run_corpus_end_ms(a->run) : 0;
    s.fatal = (char *)(fatal ? fatal : "");
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_SAMPLE;
    env.sample = &s;
    size_t n = bf__envelope__get_packed_size(&env);
    uint8_t *buf = bf_malloc(n);
    bf__envelope__pack(&env, buf);
    bf_run_pack_queries_cleanup(&s);
    bf_run_pack_errors_cleanup(&s);
    bf_sample_pack_cleanup(&s);
    if (a->nunacked == BF_MAX_UNACKED_SAMPLES) {
        /* never silently: the coordinator sees the gap as missing seconds, the log says why */
        a->overflowed++;
        bf_error("cell %s: %d unacknowledged samples queued; dropping the oldest (seq %llu, %llu "
                 "dropped so far)", a->cell_id, BF_MAX_UNACKED_SAMPLES,
                 (unsigned long long)a->unacked[0].seq, (unsigned long long)a->overflowed);
        free(a->unacked[0].data);
        memmove(a->unacked, a->unacked + 1, (a->nunacked - 1) * sizeof *a->unacked);
        a->nunacked--;
    }
    if (a->nunacked == a->capunacked) {
        a->capunacked = a->capunacked ? a->capunacked * 2 : 64;
        a->unacked = bf_realloc(a->unacked, a->capunacked * sizeof *a->unacked);
    }
    a->unacked[a->nunacked++] = (pending){.seq = a->seq, .data = buf, .len = n,
                                          .sent_us = bf_clock_mono_us()};
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

static void drop_all_unacked(agent *a, const char *why)
{
    if (a->nunacked)
        bf_warn("cell %s: discarding %zu unacknowledged samples (%s)", a->cell_id, a->nunacked, why);
    for (size_t i = 0; i < a->nunacked; i++)
        free(a->unacked[i].data);
    a->nunacked = 0;
}

/* ---- dictionary files by content hash ----------------------------------------------------- */

static const file_cache *cache_find(const agent *a, const char *sha)
{
    for (size_t k = 0; k < a->ncache; k++)
        if (strcmp(a->cache[k].sha256, sha) == 0)
            return &a->cache[k];
    return NULL;
}

/* The cached file of the Prepare's blob named `path` (cached now when it came inline), or NULL
 * with *rc. */
static const file_cache *blob_file(agent *a, const char *path, int *rc)
{
    for (size_t i = 0; i < a->nblobs; i++) {
        Bf__FileBlob *b = a->blobs[i];
        if (strcmp(b->path, path) != 0)
            continue;
        const file_cache *fc = cache_find(a, b->sha256);
        if (fc == NULL && b->content.len > 0) {
            char got[65];
            bf_sha256_hex(b->content.data, b->content.len, got);
            if (strcmp(got, b->sha256) != 0) {
                a->blob_error = 1;
                *rc = BF_E_INVAL;
                return NULL;
            }
            a->cache = bf_realloc(a->cache, (a->ncache + 1) * sizeof *a->cache);
            file_cache *nc = &a->cache[a->ncache++];
            bf_strlcpy(nc->sha256, b->sha256, sizeof nc->sha256);
            nc->data = bf_malloc(b->content.len + 1);
            memcpy(nc->data, b->content.data, b->content.len);
            nc->len = b->content.len;
            fc = nc;
        }
        if (fc == NULL) {
            a->blob_error = 1;
            *rc = BF_E_NOTFOUND;
        }
        return fc;
    }
    *rc = BF_E_NOTFOUND;
    return NULL;
}

static int serve_file(void *ctx, const char *path, char **data, size_t *len)
{
    int rc = BF_OK;
    const file_cache *fc = blob_file(ctx, path, &rc);
    if (fc == NULL)
        return rc;
    *data = bf_malloc(fc->len + 1);
    memcpy(*data, fc->data, fc->len);
    (*data)[fc->len] = '\0';
    *len = fc->len;
    return BF_OK;
}

/* A vector file lent, not copied: the cache keeps it while the agent runs (files are never
 * dropped from it), longer than any scenario loaded from it. */
static int view_file(void *ctx, const char *path, const char **data, size_t *len)
{
    int rc = BF_OK;
    const file_cache *fc = blob_file(ctx, path, &rc);
    if (fc == NULL)
        return rc;
    *data = fc->data;
    *len = fc->len;
    return BF_OK;
}

static void send_ping(agent *a)
{
    Bf__Ping ping = BF__PING__INIT;
    ping.wall_us = bf_clock_wall_us();
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_PING;
    env.ping = &ping;
    send_ctrl(a, &env);
}

/* The fleet's liveness while a long step runs on another thread (run_live: a Prepare built, a
 * large file's hash checked): every message that comes is kept for after the step (in order:
 * the session's state machines see it as if it came then) and counts as
 * hearing the coordinator; a Ping without credentials is answered now (a late Pong would spoil
 * the coordinator's clock estimate), and a Ping goes out every heartbeat while the link is up,
 * so neither side takes the other for silent. Waits up to timeout_ms. Touches only the
 * sockets, the link's clocks and the deferred list: nothing the step uses. */
static void keepalive(agent *a, int timeout_ms)
{
    zmq_pollitem_t items[2] = {{a->ctrl, 0, ZMQ_POLLIN, 0}, {a->data, 0, ZMQ_POLLIN, 0}};
    int n = zmq_poll(items, 2, timeout_ms);
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
            a->last_heard_us = bf_clock_mono_us();
            if (i == 0 && env->body_case == BF__ENVELOPE__BODY_PING && env->ping->aws == NULL &&
                bf_wire_check_version(env, NULL) == BF_OK) {
                bf_wire_send_pong(a->ctrl, NULL, 0, env->ping, ZMQ_DONTWAIT);
                a->last_sent_us = bf_clock_mono_us();
                bf__envelope__free_unpacked(env, NULL);
                continue;
            }
            if (a->ndeferred == a->capdeferred) {
                a->capdeferred = a->capdeferred ? a->capdeferred * 2 : 16;
                a->deferred = bf_realloc(a->deferred, a->capdeferred * sizeof *a->deferred);
            }
            a->deferred[a->ndeferred++] = (deferred){.env = env, .is_data = i};
        }
    }
    uint64_t now = bf_clock_mono_us();
    if (a->link == LINK_UP && now - a->last_sent_us > (uint64_t)a->heartbeat_ms * 1000u)
        send_ping(a);
}

typedef struct live_job {
    void (*fn)(void *arg);
    void *arg;
    atomic_int done;
} live_job;

static void *live_main(void *arg)
{
    live_job *j = arg;
    j->fn(j->arg);
    atomic_store(&j->done, 1);
    return NULL;
}

/* fn(arg) on a thread of its own while this one keeps the link (keepalive); returns when fn
 * did. fn must touch nothing keepalive does (the sockets, the link's clocks, the deferred
 * list). Without a thread to spare, fn runs here (silent meanwhile, as before). */
static void run_live(agent *a, void (*fn)(void *arg), void *arg)
{
    live_job j = {.fn = fn, .arg = arg};
    atomic_init(&j.done, 0);
    pthread_t t;
    if (pthread_create(&t, NULL, live_main, &j) != 0) {
        fn(arg);
        return;
    }
    while (!atomic_load(&j.done))
        keepalive(a, 20);
    pthread_join(t, NULL);
}

typedef struct hash_job {
    const void *data;
    size_t len;
    char hex[65];
} hash_job;

static void hash_main(void *arg)
{
    hash_job *h = arg;
    bf_sha256_hex(h->data, h->len, h->hex);
}

/* ---- files in chunks ---------------------------------------------------------------------- */

static void partial_free(partial_file *pf)
{
    free(pf->hex);
    free(pf->st);
    free(pf->data);
    memset(pf, 0, sizeof *pf);
}

static void partial_drop(agent *a, size_t i)
{
    partial_free(&a->partials[i]);
    a->partials[i] = a->partials[--a->npartials];
}

static partial_file *partial_find(agent *a, const char *sha)
{
    for (size_t i = 0; i < a->npartials; i++)
        if (strcmp(a->partials[i].sha256, sha) == 0)
            return &a->partials[i];
    return NULL;
}

/* Checks the chunk list of blob b and finds or starts its partial file. NULL with why set
 * when the list cannot be right. */
static partial_file *partial_for(agent *a, const Bf__FileBlob *b, char *why, size_t why_size)
{
    uint64_t n = b->chunk_bytes ? (b->size + b->chunk_bytes - 1) / b->chunk_bytes : 0;
    if (b->size == 0 || b->size > BF_MAX_CORPUS_SHIP_BYTES || b->chunk_bytes < BF_FILE_CHUNK_MIN ||
        b->chunk_bytes > BF_FILE_CHUNK_MAX || n != b->n_chunk_sha256 || strlen(b->sha256) != 64) {
        snprintf(why, why_size,
                 "file %s: a chunk list that cannot be right (%llu bytes, "
                 "chunks of %u, %zu hashes)",
                 b->path, (unsigned long long)b->size, b->chunk_bytes, b->n_chunk_sha256);
        return NULL;
    }
    for (size_t k = 0; k < b->n_chunk_sha256; k++)
        if (strlen(b->chunk_sha256[k]) != 64) {
            snprintf(why, why_size, "file %s: chunk %zu has no SHA-256", b->path, k);
            return NULL;
        }
    partial_file *pf = partial_find(a, b->sha256);
    if (pf && (pf->chunk_bytes != b->chunk_bytes || pf->size != b->size)) {
        /* the coordinator cuts it otherwise now (another --file-chunk-size): start over */
        partial_drop(a, (size_t)(pf - a->partials));
        pf = NULL;
    }
    if (pf != NULL)
        return pf;
    a->partials = bf_realloc(a->partials, (a->npartials + 1) * sizeof *a->partials);
    pf = &a->partials[a->npartials++];
    memset(pf, 0, sizeof *pf);
    bf_strlcpy(pf->sha256, b->sha256, sizeof pf->sha256);
    bf_strlcpy(pf->path, b->path, sizeof pf->path);
    pf->size = b->size;
    pf->chunk_bytes = b->chunk_bytes;
    pf->nchunks = (uint32_t)n;
    pf->hex = bf_calloc(n, sizeof *pf->hex);
    for (size_t k = 0; k < n; k++)
        bf_strlcpy(pf->hex[k], b->chunk_sha256[k], sizeof pf->hex[k]);
    pf->st = bf_calloc(n, 1);
    pf->data = bf_malloc(b->size + 1);
    return pf;
}

/* Asks for missing chunks, FETCH_WINDOW at a time over all partial files. */
static void fetch_pump(agent *a)
{
    uint32_t asked = 0;
    for (size_t i = 0; i < a->npartials; i++)
        for (uint32_t k = 0; k < a->partials[i].nchunks; k++)
            asked += a->partials[i].st[k] == 1;
    for (size_t i = 0; i < a->npartials && asked < FETCH_WINDOW; i++) {
        partial_file *pf = &a->partials[i];
        for (uint32_t k = 0; pf->wanted && k < pf->nchunks && asked < FETCH_WINDOW; k++) {
            if (pf->st[k] != 0)
                continue;
            Bf__FetchChunk f = BF__FETCH_CHUNK__INIT;
            f.sha256 = pf->sha256;
            f.index = k;
            Bf__Envelope env;
            bf_wire_init(&env);
            env.body_case = BF__ENVELOPE__BODY_FETCH_CHUNK;
            env.fetch_chunk = &f;
            send_ctrl(a, &env);
            if (pf->t0_us == 0)
                pf->t0_us = bf_clock_mono_us();
            pf->st[k] = 1;
            asked++;
        }
    }
}

/* 1 when every chunked file of Prepare p is in the cache; else starts (or, for a resent
 * Prepare, restarts) fetching what is missing and returns 0. -1 with why: a bad chunk list. */
static int files_whole(agent *a, const Bf__Prepare *p, char *why, size_t why_size)
{
    int whole = 1, fresh = a->held == NULL || a->held_cmd != p->command_id;
    for (size_t i = 0; i < a->npartials; i++)
        a->partials[i].wanted = 0;
    for (size_t i = 0; i < p->n_files; i++) {
        const Bf__FileBlob *b = p->files[i];
        if (b->n_chunk_sha256 == 0 || cache_find(a, b->sha256) != NULL)
            continue;
        partial_file *pf = partial_for(a, b, why, why_size);
        if (pf == NULL)
            return -1;
        pf->wanted = 1;
        if (fresh) {
            char b1[32], b2[32];
            bf_info("file %s (%s): fetching %u of %u chunks of %s%s", pf->path,
                    bf_units_format_bytes(pf->size, b1, sizeof b1), pf->nchunks - pf->nhave,
                    pf->nchunks, bf_units_format_bytes(pf->chunk_bytes, b2, sizeof b2),
                    pf->nhave ? " (the others are kept from an earlier transfer)" : "");
        }
        /* anything asked for and not come (lost, or a coordinator restarted) is asked again */
        for (uint32_t k = 0; k < pf->nchunks; k++)
            if (pf->st[k] == 1)
                pf->st[k] = 0;
        whole = 0;
    }
    /* chunks of files this Prepare does not want (another campaign's) are of no more use:
     * their memory goes (a coordinator that restarts asks for the same file, which stays) */
    for (size_t i = a->npartials; i-- > 0;)
        if (!a->partials[i].wanted)
            partial_drop(a, i);
    return whole;
}

static void on_prepare(agent *a, const Bf__Prepare *p);

/* The held Prepare, once its files are whole: answered as if it came now. */
static void release_held(agent *a)
{
    Bf__Prepare *p = bf__prepare__unpack(NULL, a->held_len, a->held);
    free(a->held);
    a->held = NULL;
    a->held_len = 0;
    if (p == NULL) {
        bf_error("a held Prepare could not be read back; waiting for the coordinator's resend");
        return;
    }
    on_prepare(a, p);
    bf__prepare__free_unpacked(p, NULL);
}

static void on_file_chunk(agent *a, const Bf__FileChunk *c)
{
    partial_file *pf = partial_find(a, c->sha256);
    if (pf == NULL || c->index >= pf->nchunks || pf->st[c->index] == 2)
        return; /* a duplicate (asked twice), or a file already whole */
    size_t off = (size_t)c->index * pf->chunk_bytes;
    size_t want = pf->size - off < pf->chunk_bytes ? (size_t)(pf->size - off) : pf->chunk_bytes;
    char got[65] = "";
    if (c->content.len == want)
        bf_sha256_hex(c->content.data, c->content.len, got);
    if (c->content.len != want || strcmp(got, pf->hex[c->index]) != 0) {
        bf_warn("file %s: chunk %u arrived damaged (%zu bytes, want %zu, or another hash); "
                "asking for it again",
                pf->path, c->index, c->content.len, want);
        pf->st[c->index] = 0;
        fetch_pump(a);
        return;
    }
    memcpy(pf->data + off, c->content.data, want);
    pf->st[c->index] = 2;
    pf->nhave++;
    if (pf->nhave == pf->nchunks) {
        /* the whole file's hash: a second or more for a large corpus on a loaded host, so
         * the link is kept meanwhile */
        hash_job h = {.data = pf->data, .len = pf->size};
        run_live(a, hash_main, &h);
        if (strcmp(h.hex, pf->sha256) != 0) {
            /* every chunk matched its hash but the file does not: the coordinator's list is
             * wrong; nothing to fetch again that would help */
            char why[512];
            snprintf(why, sizeof why,
                     "agent %s: file %s: its chunks match their hashes but the "
                     "whole file does not match %.12s...",
                     a->id, pf->path, pf->sha256);
            bf_error("%s", why);
            partial_drop(a, (size_t)(pf - a->partials));
            if (a->held) {
                send_failed(a, a->held_cmd, a->held_cell, why);
                free(a->held);
                a->held = NULL;
            }
            return;
        }
        char b1[32];
        bf_info("file %s: %u chunks (%s) here in %.1f s, checked", pf->path, pf->nchunks,
                bf_units_format_bytes(pf->size, b1, sizeof b1),
                (double)(bf_clock_mono_us() - pf->t0_us) / 1e6);
        a->cache = bf_realloc(a->cache, (a->ncache + 1) * sizeof *a->cache);
        file_cache *nc = &a->cache[a->ncache++];
        bf_strlcpy(nc->sha256, pf->sha256, sizeof nc->sha256);
        nc->data = pf->data; /* the cache takes the buffer */
        nc->len = pf->size;
        pf->data = NULL;
        partial_drop(a, (size_t)(pf - a->partials));
        if (a->held) {
            release_held(a); /* answered now, or held again for its other files */
            return;
        }
    }
    fetch_pump(a);
}

/* ---- the cell state machine --------------------------------------------------------------- */

static void drop_run(agent *a)
{
    bf_run_destroy(&a->run);
    bf_scenario_destroy(&a->sc);
    a->cell = NULL;
}

/* Builds the run of a Prepare; 0, or an error with the reason in a->last_prepare_reason. */
static int build_cell(agent *a, const Bf__Prepare *p)
{
    bf_diag_t diag = {0};
    if (p->aws) /* target.auth.aws.ship: sign with the coordinator's credentials */
        bf_aws_ship_receive(p->aws->key_id, p->aws->secret, p->aws->token, p->aws->expires_unix,
                            p->aws->source);
    a->blobs = p->files;
    a->nblobs = p->n_files;
    a->blob_error = 0;
    bf_load_opts_t lo = {
        .file_provider = serve_file, .file_view = view_file, .file_provider_ctx = a, .no_env = 1};
    int rc = bf_scenario_load_text((const char *)p->scenario_yaml.data, p->scenario_yaml.len,
                                   p->scenario_origin, &lo, &a->sc, &diag);
    a->blobs = NULL;
    a->nblobs = 0;
    if (rc != BF_OK && a->blob_error)
        rc = bf_diag_set(&diag, BF_E_NOTFOUND, "a dictionary file of the Prepare is neither "
                         "shipped intact nor cached here (%s)", diag.msg);
    if (rc == BF_OK && bf_scenario_target(a->sc)->tls_insecure)
        bf_warn("cell %s: target.tls.insecure: true: the cluster's certificate is not verified",
                p->cell_id);
    if (rc == BF_OK) {
        /* --allow-target: refuse a cell aimed at a host this agent may not load */
        /* the cluster's hosts and every named host set (targets:) a cell may send to */
        const bf_target_t *t = bf_scenario_target(a->sc);
        for (size_t n = 0; t != NULL && rc == BF_OK;
             t = bf_scenario_named_target(a->sc, n++, NULL)) {
            for (size_t i = 0; i < t->nhosts && rc == BF_OK; i++) {
                char host[256];
                if (bf_allow_url_host(t->hosts[i], host, sizeof host) != 0 ||
                    !bf_allow_match(a->opts->allow_targets, host))
                    rc = bf_diag_set(&diag, BF_E_INVAL,
                                     "target host %s is not in this agent's "
                                     "--allow-target list; refusing the cell",
                                     host);
            }
        }
    }
    if (rc == BF_OK && p->base_cell_id != NULL && p->base_cell_id[0]) {
        /* a find-max step: the scenario's cell with the step's id and batch size */
        const bf_cell_t *base = bf_scenario_find_cell(a->sc, p->base_cell_id);
        if (base == NULL || p->batch_size == 0 || strlen(p->cell_id) >= sizeof a->step_id) {
            rc = bf_diag_set(&diag, BF_E_NOTFOUND, "find-max step %s: base cell %s not in the "
                             "scenario, or no batch size", p->cell_id, p->base_cell_id);
        } else {
            bf_strlcpy(a->step_id, p->cell_id, sizeof a->step_id);
            a->step_cell = *base;
            a->step_cell.id = a->step_id;
            a->step_cell.batch_size = p->batch_size;
            a->cell = &a->step_cell;
        }
    } else if (rc == BF_OK) {
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
            .conn_base = p->conn_base,
            .search_base = p->search_base,
            .seed = p->seed,
            .warmup_ms = p->warmup_ms,
            .duration_ms = p->duration_ms,
            .search_clients = p->search_clients,
            .search_rate = p->search_rate,
            .allow_targets = a->opts->allow_targets,
            .corpus_edit = bf_scenario_corpus_edit(a->sc), /* loaded for this Prepare alone */
        };
        a->run = bf_run_new(&rc_cfg, &diag);
        if (a->run == NULL)
            rc = diag.code ? diag.code : BF_E_INVAL;
    }
    if (rc != BF_OK) {
        snprintf(a->last_prepare_reason, sizeof a->last_prepare_reason, "agent %s: %s", a->id,
                 diag.msg[0] ? diag.msg : bf_strerror(rc));
        drop_run(a);
    }
    return rc;
}

typedef struct build_job {
    agent *a;
    const Bf__Prepare *p;
    int rc;
} build_job;

static void build_main(void *arg)
{
    build_job *j = arg;
    j->rc = build_cell(j->a, j->p);
}

/* build_cell on a thread of its own while this one keeps the fleet's liveness (run_live):
 * a large corpus takes seconds to parse and lay out, and an agent silent that long was taken
 * for lost ("suspect: silent for 3059 ms", then lost, while it prepared). */
static int build_live(agent *a, const Bf__Prepare *p)
{
    build_job j = {.a = a, .p = p};
    run_live(a, build_main, &j);
    return j.rc;
}

static void on_ctrl(agent *a, Bf__Envelope *env);
static void on_data(agent *a, Bf__Envelope *env);

/* The messages keepalive kept, handled in the order they came (a Prepare among them may build
 * and keep more: they are appended and handled in turn). */
static void run_deferred(agent *a)
{
    for (size_t i = 0; i < a->ndeferred; i++) {
        deferred d = a->deferred[i];
        if (d.is_data)
            on_data(a, d.env);
        else
            on_ctrl(a, d.env);
        bf__envelope__free_unpacked(d.env, NULL);
    }
    a->ndeferred = 0;
}

static void on_prepare(agent *a, const Bf__Prepare *p)
{
    if (p->command_id == a->prepare_cmd && a->prepare_cmd != 0 &&
        strcmp(p->cell_id, a->cell_id) == 0) {
        /* a resend of the Prepare we already answered: repeat the answer */
        if (a->last_prepare_ok)
            send_ready(a, p->command_id);
        else
            send_failed(a, p->command_id, p->cell_id, a->last_prepare_reason);
        return;
    }
    switch (a->cell_st) {
    case CELL_RUNNING:
    case CELL_DRAINING: {
        /* busy, not failed: a coordinator restarted mid-cell waits and asks again */
        Bf__Failed f = BF__FAILED__INIT;
        f.command_id = p->command_id;
        f.cell_id = p->cell_id;
        f.reason = (char *)"agent is still running another cell";
        f.busy = 1;
        Bf__Envelope env;
        bf_wire_init(&env);
        env.body_case = BF__ENVELOPE__BODY_FAILED;
        env.failed = &f;
        send_ctrl(a, &env);
        return;
    }
    case CELL_PREPARED:
        drop_run(a); /* the coordinator moved on: the new cell replaces the prepared one */
        set_cell(a, CELL_IDLE, "a new Prepare");
        break;
    case CELL_IDLE:
        break;
    }
    /* files in chunks: the Prepare is answered once they are whole (kept here meanwhile) */
    char why[512];
    int whole = files_whole(a, p, why, sizeof why);
    if (whole < 0) {
        bf_error("prepare %s: %s", p->cell_id, why);
        send_failed(a, p->command_id, p->cell_id, why);
        return;
    }
    if (whole == 0) {
        if (a->held == NULL || a->held_cmd != p->command_id) {
            free(a->held);
            a->held_len = bf__prepare__get_packed_size(p);
            a->held = bf_malloc(a->held_len ? a->held_len : 1);
            bf__prepare__pack(p, a->held);
            a->held_cmd = p->command_id;
            bf_strlcpy(a->held_cell, p->cell_id, sizeof a->held_cell);
        }
        fetch_pump(a);
        return;
    }
    /* samples of an earlier cell the coordinator has not asked for are of no use now */
    drop_all_unacked(a, "a new cell was prepared");
    a->prepare_cmd = p->command_id;
    a->start_cmd = a->stop_cmd = 0;
    bf_strlcpy(a->cell_id, p->cell_id, sizeof a->cell_id);
    a->seq = a->acked = 0;
    a->fatal_sent = 0;
    a->docs_ok_total = a->docs_sent_total = 0;
    if (build_live(a, p) != BF_OK) {
        a->last_prepare_ok = 0;
        bf_error("prepare %s failed: %s", p->cell_id, a->last_prepare_reason);
        set_cell(a, CELL_IDLE, "prepare failed");
        send_failed(a, p->command_id, p->cell_id, a->last_prepare_reason);
        return;
    }
    a->last_prepare_ok = 1;
    set_cell(a, CELL_PREPARED, "Prepare");
    bf_info("prepared cell %s: %u bulk requests in flight on %u threads", a->cell_id,
            p->concurrency, bf_run_threads(a->run));
    send_ready(a, p->command_id);
}

static void on_start(agent *a, const Bf__Start *s)
{
    int same_cell = strcmp(s->cell_id, a->cell_id) == 0;
    if (s->command_id == a->start_cmd && a->start_cmd != 0 && same_cell) {
        send_ack(a, s->command_id, s->cell_id); /* repeat: already started */
        return;
    }
    switch (a->cell_st) {
    case CELL_PREPARED:
        if (same_cell)
            break;
        /* fall through */
    case CELL_IDLE:
    case CELL_RUNNING:
    case CELL_DRAINING:
        send_failed(a, s->command_id, s->cell_id, "Start without a matching Prepare");
        return;
    }
    a->start_cmd = s->command_id;
    /* t = 0 is the coordinator's moment, whether this Start is the first or a late resend */
    uint64_t now = bf_clock_mono_us();
    uint64_t start = now + (uint64_t)s->start_in_ms * 1000u;
    if (s->late_ms && (uint64_t)s->late_ms * 1000u < now)
        start = now - (uint64_t)s->late_ms * 1000u;
    if (bf_run_start(a->run, start) != BF_OK) {
        send_failed(a, s->command_id, s->cell_id, "could not start worker threads");
        drop_run(a);
        set_cell(a, CELL_IDLE, "start failed");
        return;
    }
    set_cell(a, CELL_RUNNING, "Start");
    send_ack(a, s->command_id, s->cell_id);
    if (s->late_ms)
        bf_warn("cell %s started %u ms late (Start was resent)", a->cell_id, s->late_ms);
    else
        bf_info("cell %s starts in %u ms", a->cell_id, s->start_in_ms);
}

static void on_stop(agent *a, const Bf__Stop *s)
{
    if (strcmp(s->cell_id, a->cell_id) != 0 || (s->command_id == a->stop_cmd && a->stop_cmd)) {
        send_ack(a, s->command_id, s->cell_id); /* not ours, or a repeat: nothing to do */
        return;
    }
    a->stop_cmd = s->command_id;
    switch (a->cell_st) {
    case CELL_PREPARED:
        drop_run(a);
        set_cell(a, CELL_IDLE, "Stop");
        break;
    case CELL_RUNNING:
        if (s->end_load_ms) { /* not an abort: the load ends then, in-flight requests finish */
            bf_info("cell %s: the load ends %u ms after its start: %s", a->cell_id, s->end_load_ms,
                    s->reason);
            bf_run_end_load(a->run, s->end_load_ms);
            break;
        }
        bf_warn("coordinator stopped cell %s: %s", a->cell_id, s->reason);
        bf_run_abort(a->run);
        set_cell(a, CELL_DRAINING, "Stop");
        break;
    case CELL_IDLE:
    case CELL_DRAINING:
        break;
    }
    send_ack(a, s->command_id, s->cell_id);
}

static void end_cell(agent *a)
{
    const char *fatal = bf_run_fatal(a->run);
    bf_counters_t zero;
    memset(&zero, 0, sizeof zero);
    push_sample(a, -1, &zero, NULL, NULL, 1, fatal[0] ? fatal : NULL);
    send_done(a);
    bf_info("cell %s done: %llu docs acknowledged", a->cell_id,
            (unsigned long long)a->docs_ok_total);
    drop_run(a);
    set_cell(a, CELL_IDLE, "run over");
    a->cells_done++;
}

/* Timers of the cell: fatal errors, the dead-man switch, sealed seconds, the end of the run. */
static void cell_tick(agent *a, uint64_t now)
{
    switch (a->cell_st) {
    case CELL_IDLE:
    case CELL_PREPARED:
        return;
    case CELL_RUNNING: {
        const char *fatal = bf_run_fatal(a->run);
        if (fatal[0] && !a->fatal_sent) {
            bf_error("%s", fatal);
            a->fatal_sent = 1;
            send_failed(a, a->start_cmd, a->cell_id, fatal);
            bf_run_abort(a->run);
            set_cell(a, CELL_DRAINING, "fatal");
        } else if (now - a->last_heard_us > (uint64_t)a->deadman_ms * 1000u) {
            bf_error("dead-man switch: nothing heard from the coordinator for %u ms; stopping "
                     "the load of cell %s and keeping its samples", a->deadman_ms, a->cell_id);
            bf_run_abort(a->run);
            set_cell(a, CELL_DRAINING, "dead-man");
        }
        break;
    }
    case CELL_DRAINING:
        break;
    }
    if (bf_run_poll(a->run, on_sample, a))
        end_cell(a);
}

/* ---- the link state machine --------------------------------------------------------------- */

static void *open_socket(agent *a, const char *endpoint, const char *what)
{
    void *s = zmq_socket(a->zctx, ZMQ_DEALER);
    bf_wire_socket_setup(s, 0, 0);
    zmq_setsockopt(s, ZMQ_ROUTING_ID, a->route, strlen(a->route));
    if (!a->opts->insecure) {
        /* CURVE client: pin the coordinator's public key */
        zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, a->server_z85, BF_Z85_KEY_LEN + 1);
        zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, a->public_z85, BF_Z85_KEY_LEN + 1);
        zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, a->secret_z85, BF_Z85_KEY_LEN + 1);
    }
    /* transport: retry connects quickly and bounded (a SYN lost in a cut link must not wait for
     * the kernel's minutes), and let ZMTP heartbeats close a connection whose peer went quiet */
    int ivl = 250, ivl_max = 2000, connect_timeout = 2000, hb_ivl = 1000, hb_timeout = 5000;
    zmq_setsockopt(s, ZMQ_RECONNECT_IVL, &ivl, sizeof ivl);
    zmq_setsockopt(s, ZMQ_RECONNECT_IVL_MAX, &ivl_max, sizeof ivl_max);
    zmq_setsockopt(s, ZMQ_CONNECT_TIMEOUT, &connect_timeout, sizeof connect_timeout);
    zmq_setsockopt(s, ZMQ_HEARTBEAT_IVL, &hb_ivl, sizeof hb_ivl);
    zmq_setsockopt(s, ZMQ_HEARTBEAT_TIMEOUT, &hb_timeout, sizeof hb_timeout);
    if (zmq_connect(s, endpoint) != 0) {
        a->bad_endpoint = errno == EINVAL || errno == EPROTONOSUPPORT;
        bf_error("cannot connect the %s socket to %s: %s; give --coordinator tcp://HOST:PORT", what,
                 endpoint, zmq_strerror(errno));
        zmq_close(s);
        return NULL;
    }
    return s;
}

/* Watches the control socket's CURVE handshakes, so a refused key or a wrong pinned
 * coordinator key is said in the log instead of looking like a coordinator that is down. */
static void watch_handshakes(agent *a)
{
    if (a->mon)
        zmq_close(a->mon);
    a->mon = NULL;
    if (a->opts->insecure)
        return;
    char ep[64];
    snprintf(ep, sizeof ep, "inproc://bf-agent-handshake-%u", ++a->mon_n);
    if (zmq_socket_monitor(a->ctrl, ep, ZMQ_EVENT_HANDSHAKE_FAILED_AUTH |
                                            ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                                            ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) != 0)
        return;
    a->mon = zmq_socket(a->zctx, ZMQ_PAIR);
    int linger = 0;
    zmq_setsockopt(a->mon, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(a->mon, ep) != 0) {
        zmq_close(a->mon);
        a->mon = NULL;
    }
}

static void on_handshake_event(agent *a)
{
    uint8_t ev[6];
    char addr[256];
    int n = zmq_recv(a->mon, ev, sizeof ev, ZMQ_DONTWAIT);
    int m = zmq_recv(a->mon, addr, sizeof addr - 1, ZMQ_DONTWAIT);
    if (n < 6 || m < 0)
        return;
    addr[m < (int)sizeof addr - 1 ? m : (int)sizeof addr - 1] = '\0';
    uint16_t event;
    uint32_t value;
    memcpy(&event, ev, sizeof event);
    memcpy(&value, ev + 2, sizeof value);
    if (a->refusals++ % 10 != 0) /* it retries every few seconds: say it, not flood it */
        return;
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
        bf_error("the coordinator at %s refused this agent's key (ZAP status %u): copy %s/agent.pub "
                 "into the coordinator's allow-list directory", addr, value, a->opts->keys_dir);
    else
        bf_error("CURVE handshake with %s failed: is %s/coordinator.pub the key of this "
                 "coordinator?", addr, a->opts->keys_dir);
}

/* Paranoid Pirate: after a long silence, start over with fresh sockets (and connections). */
static int reopen_sockets(agent *a)
{
    if (a->mon)
        zmq_close(a->mon);
    a->mon = NULL;
    if (a->ctrl)
        zmq_close(a->ctrl);
    if (a->data)
        zmq_close(a->data);
    a->data = NULL;
    a->ctrl = open_socket(a, a->opts->control_endpoint, "control");
    if (a->ctrl) {
        watch_handshakes(a);
        a->data = open_socket(a, a->data_ep, "data");
    }
    return a->data ? BF_OK : BF_E_IO;
}

static void on_welcome(agent *a, const Bf__Welcome *w)
{
    a->heartbeat_ms = w->heartbeat_ms ? w->heartbeat_ms : 1000;
    a->suspect_ms = w->suspect_ms ? w->suspect_ms : SUSPECT_MS;
    a->lost_ms = w->lost_ms ? w->lost_ms : LOST_MS;
    if (w->deadman_ms && !a->opts->deadman_ms)
        a->deadman_ms = w->deadman_ms;
    a->clock_offset_us = w->clock_offset_us;
    switch (a->link) {
    case LINK_HELLO:
        set_link(a, LINK_UP, "Welcome");
        a->backoff_ms = BACKOFF_MIN_MS;
        if (w->resend_samples) {
            if (a->nunacked)
                bf_info("resending %zu samples of cell %s from seq %llu", a->nunacked, a->cell_id,
                        (unsigned long long)a->unacked[0].seq);
            resend_unacked(a);
        } else if (a->cell_st == CELL_IDLE) {
            drop_all_unacked(a, "the coordinator does not want them");
        }
        a->welcomed_once = 1;
        bf_info("welcomed by the coordinator (clock offset %+lld us)",
                (long long)a->clock_offset_us);
        break;
    case LINK_UP:
        if (w->resend_samples)
            resend_unacked(a);
        break;
    }
}

/* no cell prepared or running and every sample acknowledged: nothing depends on the link */
static int idle_quiet(const agent *a)
{
    return a->cell_st == CELL_IDLE && a->nunacked == 0;
}

static void link_tick(agent *a, uint64_t now)
{
    uint64_t silent_us = now - a->last_heard_us;
    switch (a->link) {
    case LINK_UP:
        if (silent_us > (uint64_t)a->suspect_ms * 1000u) {
            /* idle with nothing unacknowledged, a quiet coordinator is between campaigns (or
             * busy between cells): nothing is at stake, so no warning */
            if (idle_quiet(a))
                bf_info("nothing heard from the coordinator for %llu ms while idle (between "
                        "cells or campaigns); saying hello again",
                        (unsigned long long)(silent_us / 1000u));
            else
                bf_warn("nothing heard from the coordinator for %llu ms; saying hello again",
                        (unsigned long long)(silent_us / 1000u));
            set_link(a, LINK_HELLO, "silence");
            a->backoff_ms = BACKOFF_MIN_MS;
            a->last_hello_us = now; /* first hello after one back-off step */
            break;
        }
        if (now - a->last_sent_us > (uint64_t)a->heartbeat_ms * 1000u)
            send_ping(a);
        /* go-back-N: an unacked sample older than RETRANSMIT_MS → everything from the last ack */
        if (a->nunacked && now - a->unacked[0].sent_us > RETRANSMIT_MS * 1000u)
            resend_unacked(a);
        break;
    case LINK_HELLO:
        if (now - a->last_nag_us > 30000000u && silent_us > 10000000u) {
            /* say why nothing happens: the usual causes, once every 30 s; an idle agent that
             * was welcomed before is only waiting for the next campaign (debug) */
            a->last_nag_us = now;
            bf_log(idle_quiet(a) && a->welcomed_once ? BF_LOG_DEBUG : BF_LOG_WARN,
                   "no answer from the coordinator at %s for %llu s; check --coordinator, that "
                   "the coordinator is running and reachable (ports %s and the next one), and "
                   "with CURVE that this agent's agent.pub is in its allow-list and "
                   "coordinator.pub is the coordinator's",
                   a->opts->control_endpoint, (unsigned long long)(silent_us / 1000000u),
                   strrchr(a->opts->control_endpoint, ':')
                       ? strrchr(a->opts->control_endpoint, ':') + 1
                       : "?");
        }
        if (now - a->last_hello_us < (uint64_t)a->backoff_ms * 1000u)
            break;
        if (silent_us > (uint64_t)a->lost_ms * 1000u) {
            bf_log(idle_quiet(a) ? BF_LOG_DEBUG : BF_LOG_INFO,
                   "reconnecting to %s with fresh sockets (next try in %u ms)",
                   a->opts->control_endpoint,
                   a->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : a->backoff_ms * 2);
            if (reopen_sockets(a) != BF_OK) {
                bf_agent_stop_flag = BF_EXIT_ENV;
                return;
            }
        }
        send_hello(a, a->ctrl, 0);
        send_hello(a, a->data, 1);
        a->backoff_ms = a->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : a->backoff_ms * 2;
        break;
    }
}

/* ---- events from the coordinator ---------------------------------------------------------- */

static void on_ctrl(agent *a, Bf__Envelope *env)
{
    bf_diag_t vd = {0};
    if (bf_wire_check_version(env, &vd) != BF_OK) {
        bf_error("coordinator: %s", vd.msg);
        return;
    }
    switch (env->body_case) {
    case BF__ENVELOPE__BODY_WELCOME:
        on_welcome(a, env->welcome);
        break;
    case BF__ENVELOPE__BODY_REJECT:
        bf_error("the coordinator refused this agent: %s", env->reject->reason);
        bf_agent_stop_flag = BF_EXIT_ENV;
        break;
    case BF__ENVELOPE__BODY_PREPARE:
        on_prepare(a, env->prepare);
        break;
    case BF__ENVELOPE__BODY_FILE_CHUNK: on_file_chunk(a, env->file_chunk); break;
    case BF__ENVELOPE__BODY_START:
        on_start(a, env->start);
        break;
    case BF__ENVELOPE__BODY_STOP:
        on_stop(a, env->stop);
        break;
    case BF__ENVELOPE__BODY_PING: {
        if (env->ping->aws) /* fresh credentials the coordinator fetched (aws.ship) */
            bf_aws_ship_receive(env->ping->aws->key_id, env->ping->aws->secret,
                                env->ping->aws->token, env->ping->aws->expires_unix,
                                env->ping->aws->source);
        bf_wire_send_pong(a->ctrl, NULL, 0, env->ping, ZMQ_DONTWAIT);
        a->last_sent_us = bf_clock_mono_us();
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
    /* The routing id carries a nonce no other peer knows: the coordinator's ROUTER_HANDOVER
     * gives a route to whoever presents it, so a route that is only the id (which anyone can
     * type) could be taken over by another process claiming the id. Reconnects of this
     * process keep it; a restarted agent brings a new one (the coordinator checks that the
     * old connection is gone before it moves the id, bf_fleet.h). */
    uint64_t nonce = 0;
    if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
        nonce = bf_clock_wall_us() ^ ((uint64_t)getpid() << 32) ^ bf_clock_mono_us();
    snprintf(a.route, sizeof a.route, "%s/%016llx", a.id, (unsigned long long)nonce);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    a.threads = opts->threads ? opts->threads : (uint32_t)(ncpu > 0 ? ncpu : 1);
    a.deadman_ms = opts->deadman_ms ? opts->deadman_ms : 15000;
    a.heartbeat_ms = 1000;
    a.suspect_ms = SUSPECT_MS;
    a.lost_ms = LOST_MS;
    a.backoff_ms = BACKOFF_MIN_MS;
    {
        /* both endpoints are checked before anything connects (bf_wire_endpoint_check) */
        bf_diag_t ed = {0};
        uint32_t port = 0;
        if (bf_wire_endpoint_check("--coordinator", opts->control_endpoint,
                                   opts->data_endpoint == NULL, &port, &ed) != BF_OK ||
            (opts->data_endpoint &&
             bf_wire_endpoint_check("--data", opts->data_endpoint, 0, NULL, &ed) != BF_OK)) {
            bf_error("%s", ed.msg);
            return BF_EXIT_INPUT;
        }
        if (opts->data_endpoint) {
            bf_strlcpy(a.data_ep, opts->data_endpoint, sizeof a.data_ep);
        } else {
            const char *colon = strrchr(opts->control_endpoint, ':');
            snprintf(a.data_ep, sizeof a.data_ep, "%.*s:%u", (int)(colon - opts->control_endpoint),
                     opts->control_endpoint, port + 1);
        }
    }
    if (opts->insecure) {
        bf_warn("--insecure: plain TCP, no encryption and no authentication of the coordinator");
    } else {
        bf_diag_t kd = {0};
        if (opts->keys_dir == NULL) {
            bf_error("CURVE keys are required: give --keys DIR (with agent.key and "
                     "coordinator.pub; create them with `bulkfleet-agent keygen DIR`), or "
                     "--insecure on a trusted network");
            return BF_EXIT_ENV;
        }
        if (bf_keys_load_secret(opts->keys_dir, "agent", a.secret_z85, a.public_z85, &kd) != BF_OK ||
            bf_keys_load_public(opts->keys_dir, "coordinator", a.server_z85, &kd) != BF_OK) {
            bf_error("%s", kd.msg);
            return BF_EXIT_ENV;
        }
    }
    a.zctx = zmq_ctx_new();
    if (reopen_sockets(&a) != BF_OK) {
        if (a.mon)
            zmq_close(a.mon);
        if (a.ctrl)
            zmq_close(a.ctrl);
        zmq_ctx_term(a.zctx);
        explicit_bzero(a.secret_z85, sizeof a.secret_z85);
        return a.bad_endpoint ? BF_EXIT_INPUT : BF_EXIT_ENV; /* a malformed URL is bad input */
    }
    char fp[BF_KEY_FP_LEN + 1] = "no key";
    if (!opts->insecure)
        bf_keys_fingerprint_z85(a.public_z85, fp);
    bf_info("agent %s (%u threads, %s) connecting to %s and %s", a.id, a.threads, fp,
            opts->control_endpoint, a.data_ep);
    a.last_heard_us = bf_clock_mono_us();
    send_hello(&a, a.ctrl, 0);
    send_hello(&a, a.data, 1);

    while (!bf_agent_stop_flag) {
        zmq_pollitem_t items[3] = {{a.ctrl, 0, ZMQ_POLLIN, 0}, {a.data, 0, ZMQ_POLLIN, 0},
                                   {a.mon, 0, ZMQ_POLLIN, 0}};
        int n = zmq_poll(items, a.mon ? 3 : 2, 100);
        if (n < 0 && errno != EINTR)
            break;
        if (a.mon && (items[2].revents & ZMQ_POLLIN))
            on_handshake_event(&a);
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
                run_deferred(&a);
            }
        }
        uint64_t now = bf_clock_mono_us();
        cell_tick(&a, now);
        link_tick(&a, now);
        if (opts->exit_after_cells > 0 && a.cells_done >= opts->exit_after_cells && a.nunacked == 0)
            break;
    }
    int code = bf_agent_stop_flag == BF_EXIT_ENV ? BF_EXIT_ENV : BF_EXIT_OK;
    if (a.run) {
        bf_run_abort(a.run);
        drop_run(&a);
    }
    for (size_t i = 0; i < a.nunacked; i++)
        free(a.unacked[i].data);
    free(a.unacked);
    for (size_t i = 0; i < a.ncache; i++)
        free(a.cache[i].data);
    free(a.cache);
    for (size_t i = 0; i < a.npartials; i++)
        partial_free(&a.partials[i]);
    free(a.partials);
    free(a.held);
    for (size_t i = 0; i < a.ndeferred; i++)
        bf__envelope__free_unpacked(a.deferred[i].env, NULL);
    free(a.deferred);
    if (a.mon)
        zmq_close(a.mon);
    zmq_close(a.ctrl);
    zmq_close(a.data);
    zmq_ctx_term(a.zctx);
    explicit_bzero(a.secret_z85, sizeof a.secret_z85);
    return code;
}
