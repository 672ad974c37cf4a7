/* SPDX-License-Identifier: MIT */
/* bf_url.c — strings of URLs: what a message may show of one. */
#include "bf_url.h"

#include "bf_mem.h"

#include <string.h>

char *bf_url_redact_userinfo(const char *url)
{
    const char *s = strstr(url, "://");
    if (s == NULL)
        return NULL;
    s += 3;
    const char *at = strchr(s, '@'), *slash = strchr(s, '/');
    if (at == NULL || (slash && slash < at))
        return NULL;
    const char *colon = memchr(s, ':', (size_t)(at - s));
    if (colon == NULL)
        return NULL;
    return bf_asprintf("%.*s<redacted>%s", (int)(colon + 1 - url), url, at);
}
