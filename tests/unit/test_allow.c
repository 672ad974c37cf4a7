/* SPDX-License-Identifier: MIT */
/* test_allow.c — the agent's --allow-target rules and CURVE key files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_allow.h"
#include "bf_error.h"
#include "bf_keys.h"
#include "bf_routetable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

static void test_url_host(void **state)
{
    (void)state;
    char h[128];
    assert_int_equal(bf_allow_url_host("http://127.0.0.1:9200", h, sizeof h), 0);
    assert_string_equal(h, "127.0.0.1");
    assert_int_equal(bf_allow_url_host("https://user@es.example.org/path", h, sizeof h), 0);
    assert_string_equal(h, "es.example.org");
    assert_int_equal(bf_allow_url_host("http://[::1]:9200", h, sizeof h), 0);
    assert_string_equal(h, "::1");
    assert_int_equal(bf_allow_url_host("http://", h, sizeof h), -1);
}

static void test_match(void **state)
{
    (void)state;
    const char *rules[] = {"127.0.0.0/8", "es-prod.example.org", "fd00::/8", "192.168.7.9", NULL};
    assert_true(bf_allow_match(rules, "127.0.0.1"));
    assert_true(bf_allow_match(rules, "127.255.1.2"));
    assert_false(bf_allow_match(rules, "128.0.0.1"));
    assert_true(bf_allow_match(rules, "ES-PROD.example.org"));
    assert_false(bf_allow_match(rules, "es-prod.example.org.evil.com"));
    assert_true(bf_allow_match(rules, "fd12::1"));
    assert_false(bf_allow_match(rules, "fe80::1"));
    assert_true(bf_allow_match(rules, "192.168.7.9"));
    assert_false(bf_allow_match(rules, "192.168.7.10"));
    assert_true(bf_allow_match(NULL, "anything"));
    const char *bad[] = {"10.0.0.0/33", "10.0.0.0/x", NULL};
    assert_false(bf_allow_match(bad, "10.0.0.1"));
}

/* Node addresses learned from the cluster (routing_mode node) go through the same rules. */
static void test_routetable_nodes(void **state)
{
    (void)state;
    const char *nodes = "{\"nodes\":{"
                        "\"a\":{\"name\":\"n0\",\"http\":{\"publish_address\":\"127.0.0.1:9200\"}},"
                        "\"b\":{\"name\":\"n1\",\"http\":{\"publish_address\":\"10.9.0.5:9200\"}},"
                        "\"c\":{\"name\":\"n2\"}}}";
    bf_routetable_t *rt = NULL;
    assert_int_equal(bf_routetable_parse("{}", nodes, "http", NULL, 0, &rt, NULL), 0);
    const char *rules[] = {"127.0.0.0/8", NULL};
    assert_int_equal(bf_allow_routetable(rules, rt), 1);
    for (size_t i = 0; i < rt->nnodes; i++) {
        const bf_rt_node_t *n = &rt->nodes[i];
        if (strcmp(n->name, "n1") == 0)
            assert_int_equal(n->refused, 1); /* 10.9.0.5 is outside 127.0.0.0/8 */
        else
            assert_int_equal(n->refused, 0); /* allowed, or no address at all (never used) */
    }
    bf_routetable_destroy(&rt);
    assert_int_equal(bf_routetable_parse("{}", nodes, "http", NULL, 0, &rt, NULL), 0);
    assert_int_equal(bf_allow_routetable(NULL, rt), 0); /* no rules: all allowed */
    const char *byname[] = {"localhost", NULL};         /* a name does not match an address */
    assert_int_equal(bf_allow_routetable(byname, rt), 2);
    bf_routetable_destroy(&rt);
    /* https, nodes published by name: the rules check the address the bytes go to (the named
     * URL is pinned to it), not the name */
    const char *named = "{\"nodes\":{"
                        "\"a\":{\"name\":\"n0\",\"http\":{\"publish_address\":"
                        "\"localhost/127.0.0.1:9200\"}},"
                        "\"b\":{\"name\":\"n1\",\"http\":{\"publish_address\":"
                        "\"trusted.example/10.9.0.5:9200\"}}}}";
    assert_int_equal(bf_routetable_parse("{}", named, "https", NULL, 0, &rt, NULL), 0);
    const char *both[] = {"127.0.0.0/8", "trusted.example", NULL};
    assert_int_equal(bf_allow_routetable(both, rt), 1);
    for (size_t i = 0; i < rt->nnodes; i++)
        assert_int_equal(rt->nodes[i].refused, strcmp(rt->nodes[i].name, "n1") == 0);
    bf_routetable_destroy(&rt);
}

static void test_keys(void **state)
{
    (void)state;
    char dir[1024]; /* under TMPDIR: the build folder under ctest */
    snprintf(dir, sizeof dir, "%s/bf-keys-test.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    bf_diag_t d = {0};
    assert_int_equal(bf_keys_generate(dir, "agent", &d), 0);
    /* never overwrites a secret key */
    bf_diag_t d2 = {0};
    assert_int_equal(bf_keys_generate(dir, "agent", &d2), BF_E_INVAL);
    char sec[41], pub[41], pub2[41];
    assert_int_equal(bf_keys_load_secret(dir, "agent", sec, pub, &d), 0);
    assert_int_equal(bf_keys_load_public(dir, "agent", pub2, &d), 0);
    assert_string_equal(pub, pub2);
    uint8_t bin[32];
    zmq_z85_decode(bin, pub);
    char who[64];
    assert_true(bf_keys_allowed(dir, bin, who, sizeof who));
    assert_string_equal(who, "agent");
    bin[0] ^= 1;
    assert_false(bf_keys_allowed(dir, bin, NULL, 0));
    /* a secret key readable by others is refused with the fix in the message */
    char path[256];
    snprintf(path, sizeof path, "%s/agent.key", dir);
    chmod(path, 0644);
    bf_diag_t d3 = {0};
    assert_int_equal(bf_keys_load_secret(dir, "agent", sec, pub, &d3), BF_E_INVAL);
    assert_non_null(strstr(d3.msg, "chmod 600"));
    bf_diag_t d4 = {0};
    assert_int_equal(bf_keys_load_secret(dir, "missing", sec, pub, &d4), BF_E_NOTFOUND);
    unlink(path);
    snprintf(path, sizeof path, "%s/agent.pub", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_host),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_routetable_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
