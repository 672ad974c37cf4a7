/* SPDX-License-Identifier: MIT */
/* test_zap.c — the ZAP handler admits exactly the allow-listed keys, names them, and sees a key
 * added while it runs (its allow-list is indexed, not read per handshake). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_error.h"
#include "bf_keys.h"
#include "bf_mem.h"
#include "bf_zap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

/* one ZAP request (RFC 27) for a CURVE client with public key z85; returns the status code
 * ("200"/"400") in status and the user id in user */
static void zap_ask(void *req, const char *z85, char *status, char *user, size_t user_size)
{
    uint8_t key[32];
    assert_non_null(zmq_z85_decode(key, z85));
    zmq_send(req, "1.0", 3, ZMQ_SNDMORE);
    zmq_send(req, "7", 1, ZMQ_SNDMORE);
    zmq_send(req, BF_ZAP_DOMAIN, strlen(BF_ZAP_DOMAIN), ZMQ_SNDMORE);
    zmq_send(req, "127.0.0.9", 9, ZMQ_SNDMORE);
    zmq_send(req, "", 0, ZMQ_SNDMORE);
    zmq_send(req, "CURVE", 5, ZMQ_SNDMORE);
    zmq_send(req, key, 32, 0);
    char frames[6][128];
    for (int i = 0; i < 6; i++) {
        int n = zmq_recv(req, frames[i], sizeof frames[i] - 1, 0);
        assert_true(n >= 0);
        frames[i][n < (int)sizeof frames[i] - 1 ? n : (int)sizeof frames[i] - 1] = '\0';
    }
    snprintf(status, 4, "%s", frames[2]);
    snprintf(user, user_size, "%s", frames[4]);
}

static void make_key(const char *dir, const char *name, char *pub_z85)
{
    bf_diag_t d = {0};
    char sec[41];
    assert_int_equal(bf_keys_generate(dir, name, &d), BF_OK);
    assert_int_equal(bf_keys_load_secret(dir, name, sec, pub_z85, &d), BF_OK);
}

static void test_allow_list_indexed_and_reloaded(void **state)
{
    (void)state;
    char tmpl[] = "bf-test-zap.XXXXXX"; /* in the working directory: the build folder under ctest */
    assert_non_null(mkdtemp(tmpl));
    char *allow = bf_asprintf("%s/agents", tmpl), *other = bf_asprintf("%s/keys", tmpl);
    char alpha[41], beta[41], gamma[41];
    make_key(allow, "alpha", alpha); /* alpha.key + alpha.pub in the allow-list */
    make_key(other, "beta", beta);   /* beta only elsewhere */
    make_key(other, "gamma", gamma);

    void *zctx = zmq_ctx_new();
    bf_zap_t *z = bf_zap_start(zctx, allow);
    assert_non_null(z);
    void *req = zmq_socket(zctx, ZMQ_REQ);
    assert_int_equal(zmq_connect(req, "inproc://zeromq.zap.01"), 0);
    char status[4], user[128];

    zap_ask(req, alpha, status, user, sizeof user);
    assert_string_equal(status, "200");
    assert_string_equal(user, "alpha");
    zap_ask(req, beta, status, user, sizeof user);
    assert_string_equal(status, "400");
    assert_int_equal(bf_zap_refused(z), 1);

    /* a key copied into the allow-list while running is admitted at its next handshake */
    char *src = bf_asprintf("%s/beta.pub", other), *dst = bf_asprintf("%s/beta.pub", allow);
    assert_int_equal(link(src, dst), 0);
    zap_ask(req, beta, status, user, sizeof user);
    assert_string_equal(status, "200");
    assert_string_equal(user, "beta");
    /* ... and one removed is refused again */
    assert_int_equal(unlink(dst), 0);
    zap_ask(req, beta, status, user, sizeof user);
    assert_string_equal(status, "400");
    zap_ask(req, gamma, status, user, sizeof user);
    assert_string_equal(status, "400");
    /* the admitted key still admitted after the reloads */
    zap_ask(req, alpha, status, user, sizeof user);
    assert_string_equal(status, "200");

    zmq_close(req);
    zmq_ctx_term(zctx);
    bf_zap_join(&z);
    assert_null(z);
    char *cmd = bf_asprintf("rm -rf '%s'", tmpl);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    free(src);
    free(dst);
    free(allow);
    free(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allow_list_indexed_and_reloaded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
