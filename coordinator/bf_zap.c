/* SPDX-License-Identifier: MIT */
/* bf_zap.c — ZAP handler thread. */
#include "bf_zap.h"

#include "bf_keys.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_strmap.h"
#include "bf_clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zmq.h>

#define BF_ZAP_MAX_DIRS 16         /* directories in one ':'-separated allow list */
#define BF_ZAP_MISS_RELOAD_MS 1000 /* an unknown key reloads the list at most this often */

/* The allow-list indexed once (32-byte key -> name), not read per handshake: reading every
 * .pub file for every CURVE handshake made a fleet of N keyed agents cost O(N^2) file reads to
 * join. Reloaded when a directory's mtime changes (a key file added, removed or renamed) and,
 * at most once a second, when an unknown key knocks (a key file edited in place). */
typedef struct allow_index {
    bf_strmap_t by_key; /* values: names, owned by `names` */
    char **names;
    size_t nnames;
    struct timespec mtime[BF_ZAP_MAX_DIRS];
    uint64_t loaded_us;
    int loaded;
} allow_index;

struct bf_zap {
    void *sock;
    char *allow_dir;
    allow_index idx;
    pthread_t thread;
    atomic_uint_fast64_t refused;
};

/* ZAP request frames (RFC 27): version, request id, domain, address, identity, mechanism,
 * credentials... */
#define ZAP_FRAMES_MAX 8

static void index_clear(allow_index *x)
{
    bf_strmap_cleanup(&x->by_key);
    for (size_t i = 0; i < x->nnames; i++)
        free(x->names[i]);
    free(x->names);
    x->names = NULL;
    x->nnames = 0;
    x->loaded = 0;
}

static void index_add(void *ctx, const uint8_t *key, const char *name)
{
    allow_index *x = ctx;
    if (bf_strmap_get(&x->by_key, (const char *)key, 32))
        return; /* the same key in two files: the first directory, first file wins */
    x->names = bf_realloc(x->names, (x->nnames + 1) * sizeof *x->names);
    x->names[x->nnames] = bf_strdup(name);
    bf_strmap_put(&x->by_key, (const char *)key, 32, x->names[x->nnames]);
    x->nnames++;
}

/* mtimes of the allow-list directories; returns 1 when they differ from the snapshot */
static int dirs_changed(const char *allow_dir, struct timespec *snap, int update)
{
    int changed = 0, i = 0;
    const char *cur = allow_dir;
    char d[4096];
    while (i < BF_ZAP_MAX_DIRS && bf_str_field(&cur, ':', d, sizeof d)) {
        struct stat st;
        struct timespec t = {0, 0};
        if (d[0] && stat(d, &st) == 0)
            t = st.st_mtim;
        changed |= t.tv_sec != snap[i].tv_sec || t.tv_nsec != snap[i].tv_nsec;
        if (update)
            snap[i] = t;
        i++;
    }
    return changed;
}

static void index_load(bf_zap_t *z)
{
    index_clear(&z->idx);
    dirs_changed(z->allow_dir, z->idx.mtime, 1);
    const char *cur = z->allow_dir;
    char d[4096];
    int i = 0;
    while (i++ < BF_ZAP_MAX_DIRS && bf_str_field(&cur, ':', d, sizeof d))
        if (d[0])
            bf_keys_each_allowed(d, index_add, &z->idx);
    z->idx.loaded = 1;
    z->idx.loaded_us = bf_clock_mono_us();
}

/* the name of an admitted key, or NULL; O(1) plus one stat per directory */
static const char *lookup_key(bf_zap_t *z, const uint8_t *key)
{
    if (!z->idx.loaded || dirs_changed(z->allow_dir, z->idx.mtime, 0))
        index_load(z);
    const char *name = bf_strmap_get(&z->idx.by_key, (const char *)key, 32);
    if (name == NULL && bf_clock_mono_us() - z->idx.loaded_us > BF_ZAP_MISS_RELOAD_MS * 1000u) {
        index_load(z);
        name = bf_strmap_get(&z->idx.by_key, (const char *)key, 32);
    }
    return name;
}

static void *run(void *arg)
{
    bf_zap_t *z = arg;
    for (;;) {
        zmq_msg_t f[ZAP_FRAMES_MAX];
        int n = 0, more = 1, failed = 0;
        while (more) {
            zmq_msg_t m;
            zmq_msg_init(&m);
            if (zmq_msg_recv(&m, z->sock, 0) < 0) {
                zmq_msg_close(&m);
                failed = 1;
                break;
            }
            more = zmq_msg_more(&m);
            if (n < ZAP_FRAMES_MAX)
                f[n++] = m;
            else
                zmq_msg_close(&m);
        }
        if (failed) {
            for (int i = 0; i < n; i++)
                zmq_msg_close(&f[i]);
            if (errno == ETERM)
                break;
            continue;
        }
        const char *status = "400", *text = "key not in the allow-list";
        char who[128] = "";
        /* metadata of an admitted peer (RFC 27; ZMTP 3.0 property format: name length (1
         * byte), name, value length (4 bytes, network order), value): libzmq attaches it to
         * every message of the connection (zmq_msg_gets "Key-Fingerprint"), so the fleet can
         * name which key claims an agent id */
        uint8_t meta[64];
        size_t meta_len = 0;
        if (n >= 7 && zmq_msg_size(&f[5]) == 5 && memcmp(zmq_msg_data(&f[5]), "CURVE", 5) == 0 &&
            zmq_msg_size(&f[6]) == 32) {
            /* allow_dir may list several directories separated by ':' */
            const char *name = lookup_key(z, zmq_msg_data(&f[6]));
            if (name != NULL) {
                bf_strlcpy(who, name, sizeof who);
                status = "200";
                text = "OK";
                char fp[BF_KEY_FP_LEN + 1];
                bf_keys_fingerprint(zmq_msg_data(&f[6]), fp);
                static const char prop[] = "Key-Fingerprint";
                size_t pl = sizeof prop - 1, vl = strlen(fp);
                meta[meta_len++] = (uint8_t)pl;
                memcpy(meta + meta_len, prop, pl);
                meta_len += pl;
                meta[meta_len++] = 0;
                meta[meta_len++] = 0;
                meta[meta_len++] = 0;
                meta[meta_len++] = (uint8_t)vl;
                memcpy(meta + meta_len, fp, vl);
                meta_len += vl;
            } else {
                char z85[41];
                zmq_z85_encode(z85, zmq_msg_data(&f[6]), 32);
                char addr[64] = "";
                size_t al = zmq_msg_size(&f[3]) < sizeof addr - 1 ? zmq_msg_size(&f[3]) : sizeof addr - 1;
                memcpy(addr, zmq_msg_data(&f[3]), al);
                atomic_fetch_add(&z->refused, 1);
                char fp[BF_KEY_FP_LEN + 1];
                bf_keys_fingerprint(zmq_msg_data(&f[6]), fp);
                bf_warn("refused an agent from %s: public key %s (%s) is not in %s; add its .pub "
                        "file there to admit it",
                        addr, z85, fp, z->allow_dir);
            }
        } else {
            text = "CURVE required";
            uint64_t k = atomic_fetch_add(&z->refused, 1);
            /* a keyless agent: say who, at most every 100th time (a peer retrying floods) */
            if (k % 100 == 0 && n >= 6) {
                char addr[64] = "", mech[16] = "";
                size_t al =
                    zmq_msg_size(&f[3]) < sizeof addr - 1 ? zmq_msg_size(&f[3]) : sizeof addr - 1;
                size_t ml =
                    zmq_msg_size(&f[5]) < sizeof mech - 1 ? zmq_msg_size(&f[5]) : sizeof mech - 1;
                memcpy(addr, zmq_msg_data(&f[3]), al);
                memcpy(mech, zmq_msg_data(&f[5]), ml);
                bf_warn("refused an agent from %s: it connected without CURVE keys (mechanism %s); "
                        "start it with --keys DIR holding coordinator.pub and its own key in the "
                        "allow-list (%llu refused so far)",
                        addr[0] ? addr : "?", mech[0] ? mech : "?", (unsigned long long)k + 1);
            }
        }
        /* reply: version, request id, status code, status text, user id, metadata */
        zmq_send(z->sock, "1.0", 3, ZMQ_SNDMORE);
        zmq_send(z->sock, n >= 2 ? zmq_msg_data(&f[1]) : "", n >= 2 ? zmq_msg_size(&f[1]) : 0, ZMQ_SNDMORE);
        zmq_send(z->sock, status, 3, ZMQ_SNDMORE);
        zmq_send(z->sock, text, strlen(text), ZMQ_SNDMORE);
        zmq_send(z->sock, who, strlen(who), ZMQ_SNDMORE);
        zmq_send(z->sock, meta, meta_len, 0);
        for (int i = 0; i < n; i++)
            zmq_msg_close(&f[i]);
    }
    zmq_close(z->sock);
    index_clear(&z->idx);
    return NULL;
}

bf_zap_t *bf_zap_start(void *zctx, const char *allow_dir)
{
    bf_zap_t *z = bf_calloc(1, sizeof *z);
    z->allow_dir = bf_strdup(allow_dir);
    z->sock = zmq_socket(zctx, ZMQ_REP);
    int linger = 0;
    zmq_setsockopt(z->sock, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_bind(z->sock, "inproc://zeromq.zap.01") != 0) {
        bf_error("cannot bind the ZAP handler: %s", zmq_strerror(errno));
        zmq_close(z->sock);
        free(z->allow_dir);
        free(z);
        return NULL;
    }
    if (pthread_create(&z->thread, NULL, run, z) != 0) {
        zmq_close(z->sock);
        free(z->allow_dir);
        free(z);
        return NULL;
    }
    return z;
}

void bf_zap_join(bf_zap_t **z_p)
{
    if (z_p == NULL || *z_p == NULL)
        return;
    bf_zap_t *z = *z_p;
    pthread_join(z->thread, NULL);
    free(z->allow_dir);
    free(z);
    *z_p = NULL;
}

uint64_t bf_zap_refused(bf_zap_t *z)
{
    return atomic_load(&z->refused);
}
