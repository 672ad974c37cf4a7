/* SPDX-License-Identifier: MIT */
/* bf_scenario_valid.c — the extra validators that rows of the key table name (BF__KEYS in
 * bf_scenario_int.h): non-empty strings, file names, variable names, host URLs (as libcurl
 * parses them) and filter_path patterns that keep what the agent counts.
 *
 * Each reports through the diagnostics collector (bf_scenario_diag.c) and reads nothing of the
 * loader, so the key table (bf_scenario_keys.c) does not depend on the loader.
 */
#include "bf_scenario_int.h"

#include <curl/curl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- validators (rows of the key table) ---------------------------------------------------- */

int bf__v_nonempty(bf__load_t *L, const bf_ynode_t *n, const char *path, bf__kval_t *v)
{
    if (v->s && v->s[0] == '\0')
        return bf__err(L, n, BF_E_INVAL, "%s: must not be empty", path);
    return BF_OK;
}

int bf__v_index_name(bf__load_t *L, const bf_ynode_t *n, const char *path, bf__kval_t *v)
{
    int rc = bf__v_nonempty(L, n, path, v);
    if (rc != BF_OK || v->s == NULL)
        return rc;
    /* the written text outside {axis} placeholders: each cell's name keeps it as it is, so a
     * mistake in it is every cell's and is said here, with the other key mistakes (the cells'
     * own names are checked when the matrix is expanded) */
    const char *bad = NULL, *fix = "";
    int depth = 0;
    for (const char *c = v->s; !bad && *c; c++) {
        if (*c == '{' || (*c == '}' && depth > 0)) {
            depth += *c == '{' ? 1 : -1;
            continue;
        }
        if (depth > 0)
            continue;
        if (c == v->s && strchr("-_+", *c))
            bad = "cannot start with '-', '_' or '+'", fix = "; start it with a letter or digit";
        else if (*c >= 'A' && *c <= 'Z')
            bad = "must be lowercase", fix = "; write it in lower case";
        else if (strchr("\\/*?\"<>| ,#:", *c) || (unsigned char)*c < 0x20)
            bad = "cannot contain \\ / * ? \" < > | space , # or :", fix = "; remove them";
    }
    if (bad)
        return bf__err(L, n, BF_E_INVAL, "%s: '%s' %s (OpenSearch index name rules)%s", path, v->s,
                       bad, fix);
    return BF_OK;
}

/* "0.05", "5%" or "5 %" as a share in [lo, hi] into v->d */
static int share(bf__load_t *L, const bf_ynode_t *n, const char *path, bf__kval_t *v, double lo,
                 double hi)
{
    char *end = NULL;
    double d = v->s ? strtod(v->s, &end) : NAN;
    while (end && *end == ' ')
        end++;
    if (end && *end == '%') {
        d /= 100.0;
        end++;
    }
    if (!v->s || end == v->s || !end || *end != '\0' || !(d >= lo && d <= hi))
        return bf__err(L, n, BF_E_INVAL,
                       "%s: expected a share from %g to %g, like %g or %g%%, got '%.40s'", path, lo,
                       hi, hi / 2, hi * 50, v->s ? v->s : "");
    v->d = d;
    return BF_OK;
}

int bf__v_alpha(bf__load_t *L, const bf_ynode_t *n, const char *path, bf__kval_t *v)
{
    return share(L, n, path, v, 0.001, 0.2);
}

int bf__v_band(bf__load_t *L, const bf_ynode_t *n, const char *path, bf__kval_t *v)
{
    return share(L, n, path, v, 0.0, 0.5);
}

int bf__v_repeat(bf__load_t *L, const bf_ynode_t *n, const char *path, bf__kval_t *v)
{
    const char *s = v->s ? v->s : "";
    v->u = 0;
    v->b = 0;
    if (strcmp(s, "auto") == 0) {
        v->b = 1;
        return BF_OK;
    }
    char *end = NULL;
    unsigned long long u = s[0] >= '0' && s[0] <= '9' ? strtoull(s, &end, 10) : 0;
    if (end == NULL || end == s || *end != '\0' || u < 1 || u > 1000)
        return bf__err(L, n, BF_E_INVAL,
                       "%s: expected a whole number from 1 to 1000 or auto, got '%.40s'", path, s);
    v->u = u;
    return BF_OK;
}

int bf__v_filename(bf__load_t *L, const bf_ynode_t *n, const char *path, bf__kval_t *v)
{
    const char *s = v->s;
    size_t len = strlen(s);
    if (len == 0 || len > 100)
        return bf__err(L, n, BF_E_INVAL,
                       "%s: must be 1 to 100 characters (it names the "
                       "results folder)",
                       path);
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.';
        if (!ok || (i == 0 && (c == '.' || c == '-')))
            return bf__err(L, n, BF_E_INVAL,
                           "%s: '%s' is not file-name safe; use letters, "
                           "digits, '-', '_' and '.' (not first)",
                           path, s);
    }
    return BF_OK;
}

int bf__v_varname(bf__load_t *L, const bf_ynode_t *n, const char *path, bf__kval_t *v)
{
    const char *s = v->s;
    size_t len = strlen(s);
    if (len == 0 || len > 128)
        return bf__err(L, n, BF_E_INVAL, "%s: a variable name has 1 to 128 characters", path);
    for (size_t i = 0; i < len; i++) {
        if (!bf__varname_char(s[i]))
            return bf__err(L, n, BF_E_INVAL,
                           "%s: '%s': use letters, digits, '_', '-' and '.' "
                           "in variable names",
                           path, s);
    }
    return BF_OK;
}

/* one host URL: BF_OK or its mistake in L->diag */
static int url_mistake(bf__load_t *L, bf_ynode_t *u, const char *path)
{
    const char *s = u->value;
    const char *rest = NULL;
    if (strncmp(s, "http://", 7) == 0)
        rest = s + 7;
    else if (strncmp(s, "https://", 8) == 0)
        rest = s + 8;
    if (rest == NULL || rest[0] == '\0' || rest[0] == '/' || rest[0] == ':')
        return bf__err(L, u, BF_E_INVAL,
                       "%s: '%s' is not a URL; write it like "
                       "http://127.0.0.1:9200 or https://host:9200",
                       path, s);
    if (strpbrk(s, "?# \t\r\n"))
        return bf__err(L, u, BF_E_INVAL,
                       "%s: '%s': a host URL has no query, fragment or "
                       "spaces",
                       path, s);
    u->url_userinfo = strchr(rest, '@') != NULL;
    /* what the agents' libcurl will parse: refuse here what it would refuse later, once
     * per request (e.g. http://[127.0.0.1], a bad port, a host with spaces) */
    CURLU *cu = curl_url();
    CURLUcode uc = cu ? curl_url_set(cu, CURLUPART_URL, s, 0) : CURLUE_OUT_OF_MEMORY;
    char *host = NULL;
    if (uc == CURLUE_OK)
        uc = curl_url_get(cu, CURLUPART_HOST, &host, 0);
    int empty_host = uc == CURLUE_OK && (host == NULL || host[0] == '\0');
    curl_free(host);
    curl_url_cleanup(cu);
    if (uc != CURLUE_OK || empty_host)
        return bf__err(L, u, BF_E_INVAL,
                       "%s: '%s' is not a URL libcurl can use (%s); write "
                       "it like http://127.0.0.1:9200, or http://[::1]:9200 for an IPv6 "
                       "address",
                       path, s, uc != CURLUE_OK ? curl_url_strerror(uc) : "no host");
    return BF_OK;
}

/* every host's mistake is said by validate (bf__collect), the first stops a load */
int bf__v_urls(bf__load_t *L, const bf_ynode_t *n, const char *path, bf__kval_t *v)
{
    const bf_ynode_t *list = n;
    size_t count = list->kind == BF_Y_SEQ ? list->n : 1;
    if (count == 0)
        return bf__err(L, n, BF_E_INVAL, "%s: give at least one URL like http://127.0.0.1:9200",
                       path);
    for (size_t i = 0; i < count; i++) {
        bf_ynode_t *u = list->kind == BF_Y_SEQ ? list->items[i] : (bf_ynode_t *)list;
        int rc = url_mistake(L, u, path);
        if (rc != BF_OK && !bf__collect(L, rc))
            return rc;
    }
    (void)v;
    return BF_OK;
}

/* filter_path patterns (comma-separated, '*' within a name, '**' for any depth, '-' to
 * exclude) must keep items.*.status, or the agent cannot count acknowledged documents. */
static int seg_match(const char *pat, size_t pl, const char *name)
{
    /* glob with '*' inside one path segment */
    size_t nl = strlen(name), p = 0, s = 0, star_p = (size_t)-1, star_s = 0;
    while (s < nl) {
        if (p < pl && pat[p] == '*') {
            star_p = p++;
            star_s = s;
        } else if (p < pl && pat[p] == name[s]) {
            p++;
            s++;
        } else if (star_p != (size_t)-1) {
            p = star_p + 1;
            s = ++star_s;
        } else {
            return 0;
        }
    }
    while (p < pl && pat[p] == '*')
        p++;
    return p == pl;
}

/* Does the pattern select path (an array of segments) or one of its ancestors? */
static int pattern_covers(const char *pat, size_t len, const char *const *path, size_t depth)
{
    if (len == 0)
        return depth == 0 ? 1 : 0;
    const char *dot = memchr(pat, '.', len);
    size_t sl = dot ? (size_t)(dot - pat) : len;
    const char *rest = dot ? dot + 1 : pat + len;
    size_t rl = dot ? len - sl - 1 : 0;
    if (depth == 0)
        return 1; /* the pattern selects below the target: that keeps it only if it matches
                     deeper, which we treat as covered */
    if (sl == 2 && pat[0] == '*' && pat[1] == '*') {
        for (size_t k = 0; k <= depth; k++)
            if (rl == 0 || pattern_covers(rest, rl, path + k, depth - k))
                return 1;
        return 0;
    }
    if (!seg_match(pat, sl, path[0]))
        return 0;
    if (!dot)
        return 1; /* selects this whole subtree */
    return pattern_covers(rest, rl, path + 1, depth - 1);
}

int bf__v_filter_path(bf__load_t *L, const bf_ynode_t *n, const char *path, bf__kval_t *v)
{
    if (n->kind != BF_Y_SCALAR || v->s == NULL)
        return BF_OK;
    int b;
    /* the same rule as the parser (BF__T_FILTER): only an unquoted true/false is the boolean */
    if (bf_y_bool(n, &b) && !n->quoted)
        return BF_OK;
    const char *s = v->s;
    static const char *actions[] = {"index", "create"};
    for (int a = 0; a < 2; a++) {
        const char *target[] = {"items", actions[a], "status"};
        int included = 0, excluded = 0;
        const char *p = s;
        while (*p) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            while (len && (*p == ' '))
                p++, len--;
            while (len && p[len - 1] == ' ')
                len--;
            if (len && p[0] == '-') {
                /* an exclusion removes what it matches and everything below */
                const char *e = p + 1;
                size_t el = len - 1;
                int depth_match = 0;
                for (size_t d = 1; d <= 3 && !depth_match; d++) {
                    /* exclusion matching exactly a prefix of the target */
                    size_t segs = 1;
                    for (size_t k = 0; k < el; k++)
                        segs += e[k] == '.';
                    if (segs == d && pattern_covers(e, el, target, d))
                        depth_match = 1;
                }
                if (depth_match)
                    excluded = 1;
            } else if (len && pattern_covers(p, len, target, 3)) {
                included = 1;
            }
            p = comma ? comma + 1 : p + strlen(p);
        }
        if (!included || excluded)
            return bf__err(L, n, BF_E_INVAL,
                           "%s: '%s' drops items.*.status, which the agent "
                           "needs to count acknowledged documents; add items.*.status (or write "
                           "filter_path: true for a good default)",
                           path, s);
    }
    return BF_OK;
}
