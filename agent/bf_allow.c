/* SPDX-License-Identifier: MIT */
/* bf_allow.c — target allow-list. */
#include "bf_allow.h"

#include "bf_mem.h"
#include "bf_routetable.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int bf_allow_url_host(const char *url, char *host, size_t host_size)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    const char *at = strpbrk(p, "@/");
    if (at && *at == '@')
        p = at + 1;
    size_t n;
    if (*p == '[') {
        const char *end = strchr(p, ']');
        if (end == NULL)
            return -1;
        p++;
        n = (size_t)(end - p);
    } else {
        n = strcspn(p, ":/?#");
    }
    if (n == 0 || n >= host_size)
        return -1;
    memcpy(host, p, n);
    host[n] = '\0';
    return 0;
}

/* prefix match of two addresses of len bytes over `bits` bits */
static int prefix_eq(const uint8_t *a, const uint8_t *b, int bits)
{
    int full = bits / 8, rest = bits % 8;
    if (memcmp(a, b, (size_t)full) != 0)
        return 0;
    if (rest == 0)
        return 1;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return (a[full] & mask) == (b[full] & mask);
}

static int match_rule(const char *rule, const char *host)
{
    if (strcasecmp(rule, host) == 0)
        return 1;
    const char *slash = strchr(rule, '/');
    char net[64];
    size_t n = slash ? (size_t)(slash - rule) : strlen(rule);
    if (n >= sizeof net)
        return 0;
    memcpy(net, rule, n);
    net[n] = '\0';
    uint8_t a[16], b[16];
    int af = strchr(net, ':') ? AF_INET6 : AF_INET;
    int maxbits = af == AF_INET ? 32 : 128;
    if (inet_pton(af, net, a) != 1 || inet_pton(af, host, b) != 1)
        return 0;
    int bits = maxbits;
    if (slash) {
        char *end;
        long v = strtol(slash + 1, &end, 10);
        if (*end != '\0' || v < 0 || v > maxbits)
            return 0;
        bits = (int)v;
    }
    return prefix_eq(a, b, bits);
}

int bf_allow_match(const char *const *rules, const char *host)
{
    if (rules == NULL)
        return 1;
    for (size_t i = 0; rules[i]; i++)
        if (match_rule(rules[i], host))
            return 1;
    return 0;
}

size_t bf_allow_routetable(const char *const *rules, struct bf_routetable *rt)
{
    size_t refused = 0;
    for (size_t i = 0; rules && i < rt->nnodes; i++) {
        bf_rt_node_t *n = &rt->nodes[i];
        char host[256], where[300];
        if (n->url == NULL)
            continue;
        /* the address the bytes go to (a named https URL is pinned to it) */
        snprintf(where, sizeof where, "x://%s", n->addr ? n->addr : "");
        if (bf_allow_url_host(n->addr ? where : n->url, host, sizeof host) != 0 ||
            !bf_allow_match(rules, host)) {
            n->refused = 1;
            refused++;
        }
    }
    return refused;
}
