/* SPDX-License-Identifier: MIT */
/* bf_zap.c — ZAP handler thread. */
#include "bf_zap.h"

#include "bf_keys.h"
#include "bf_log.h"
#include "bf_mem.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

struct bf_zap {
    void *sock;
    char *allow_dir;
    pthread_t thread;
    atomic_uint_fast64_t refused;
};

/* ZAP request frames (RFC 27): version, request id, domain, address, identity, mechanism,
 * credentials... */
#define ZAP_FRAMES_MAX 8

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
        if (n >= 7 && zmq_msg_size(&f[5]) == 5 && memcmp(zmq_msg_data(&f[5]), "CURVE", 5) == 0 &&
            zmq_msg_size(&f[6]) == 32) {
            /* allow_dir may list several directories separated by ':' */
            int ok = 0;
            const char *cur = z->allow_dir;
            char d[4096];
            while (!ok && bf_str_field(&cur, ':', d, sizeof d))
                ok = d[0] && bf_keys_allowed(d, zmq_msg_data(&f[6]), who, sizeof who);
            if (ok) {
                status = "200";
                text = "OK";
            } else {
                char z85[41];
                zmq_z85_encode(z85, zmq_msg_data(&f[6]), 32);
                char addr[64] = "";
                size_t al = zmq_msg_size(&f[3]) < sizeof addr - 1 ? zmq_msg_size(&f[3]) : sizeof addr - 1;
                memcpy(addr, zmq_msg_data(&f[3]), al);
                atomic_fetch_add(&z->refused, 1);
                bf_warn("refused an agent from %s: public key %s is not in %s; add its .pub file "
                        "there to admit it", addr, z85, z->allow_dir);
            }
        } else {
            text = "CURVE required";
            atomic_fetch_add(&z->refused, 1);
        }
        /* reply: version, request id, status code, status text, user id, metadata */
        zmq_send(z->sock, "1.0", 3, ZMQ_SNDMORE);
        zmq_send(z->sock, n >= 2 ? zmq_msg_data(&f[1]) : "", n >= 2 ? zmq_msg_size(&f[1]) : 0, ZMQ_SNDMORE);
        zmq_send(z->sock, status, 3, ZMQ_SNDMORE);
        zmq_send(z->sock, text, strlen(text), ZMQ_SNDMORE);
        zmq_send(z->sock, who, strlen(who), ZMQ_SNDMORE);
        zmq_send(z->sock, "", 0, 0);
        for (int i = 0; i < n; i++)
            zmq_msg_close(&f[i]);
    }
    zmq_close(z->sock);
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
