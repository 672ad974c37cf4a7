/* SPDX-License-Identifier: MIT */
/* bf_allow.h — the agent's --allow-target list: which cluster hosts a Prepare may aim it at,
 * so a stolen coordinator key cannot point the fleet anywhere (docs/internals/fleet-protocol.md,
 * security). Pure functions; thread-safe.
 */
#ifndef BF_ALLOW_H
#define BF_ALLOW_H

#include <stddef.h>

/* bf_allow_url_host — the host part of "scheme://host[:port][/path]" (IPv6 without brackets)
 * into host (size host_size). Returns 0, or -1 when url has no host. */
int bf_allow_url_host(const char *url, char *host, size_t host_size);

/* bf_allow_match — 1 if host matches one rule: an exact host name (case-insensitive), an IP
 * address, or an IPv4/IPv6 CIDR "10.0.0.0/8". rules is NULL-terminated; NULL rules = allow all. */
int bf_allow_match(const char *const *rules, const char *host);

/* bf_allow_routetable — routing_mode node|shard: mark every node of rt whose HTTP address is
 * not allowed by rules (refused = 1), so it is never loaded directly (its documents go to
 * target.hosts, which the agent checked already). Returns the number of nodes refused; NULL
 * rules refuse none. rt is changed (the run owns it until it publishes it). */
struct bf_routetable;
size_t bf_allow_routetable(const char *const *rules, struct bf_routetable *rt);

#endif
