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

/* keygen --help says "any file name: it is the key's name", but only *.pub
 * files were read: a key saved as agents/agentA was ignored without a word. Every regular file
 * holding a key counts (name without a .pub ending); every other entry is reported with why. */
typedef struct skips {
    char text[2048];
    int nkeys;
    char names[4][32];
} skips;

static void scan_key(void *ctx, const uint8_t *key, const char *name)
{
    skips *s = ctx;
    (void)key;
    if (s->nkeys < 4)
        snprintf(s->names[s->nkeys], sizeof s->names[0], "%s", name);
    s->nkeys++;
}

static void scan_skip(void *ctx, const char *file, const char *why)
{
    skips *s = ctx;
    size_t used = strlen(s->text);
    snprintf(s->text + used, sizeof s->text - used, "[%s: %s]", file, why);
}

static void write_text(const char *dir, const char *file, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_allow_any_file_name(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/bf-allow-test.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    bf_diag_t d = {0};
    assert_int_equal(bf_keys_generate(dir, "agentB", &d), 0); /* agentB.pub, agentB.key */
    char sec[41], pub[41];
    assert_int_equal(bf_keys_load_secret(dir, "agentB", sec, pub, &d), 0);
    char line[64];
    snprintf(line, sizeof line, "%s\n", pub);
    write_text(dir, "agentA", line); /* a key saved without .pub */
    write_text(dir, "agentB", line); /* the name agentB.pub took: skipped */
    write_text(dir, "notes.txt", "agent A is on host 3\n");
    write_text(dir, "agentC.key", line); /* a secret key copied here by mistake */
    char sub[1100];
    snprintf(sub, sizeof sub, "%s/old", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    skips s;
    memset(&s, 0, sizeof s);
    assert_int_equal(bf_keys_scan_allowed(dir, scan_key, scan_skip, &s), 2);
    print_message("keys %s, %s; skipped %s\n", s.names[0], s.names[1], s.text);
    assert_string_equal(s.names[0], "agentA");
    assert_string_equal(s.names[1], "agentB");
    assert_non_null(strstr(s.text, "[agentB.pub: another file already names key 'agentB']"));
    /* the secret half of the pair agentB.key + agentB.pub is no mistake; a lone one is */
    assert_null(strstr(s.text, "[agentB.key"));
    assert_non_null(strstr(s.text, "[agentC.key: a secret key file"));
    assert_non_null(strstr(s.text, "[notes.txt: not one 40-character Z85 public key line"));
    assert_non_null(strstr(s.text, "[old: not a regular file]"));
    /* the handshake's check admits the key under its file's name */
    uint8_t bin[32];
    zmq_z85_decode(bin, pub);
    char who[64];
    assert_true(bf_keys_allowed(dir, bin, who, sizeof who));
    assert_string_equal(who, "agentA");
    const char *files[] = {"agentA",     "agentB",     "agentB.pub",
                           "agentB.key", "agentC.key", "notes.txt"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(sub);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_host),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_allow_any_file_name),
        cmocka_unit_test(test_routetable_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
