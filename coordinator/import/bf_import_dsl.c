/* SPDX-License-Identifier: MIT */
/* bf_import_dsl.c — INFINI loadgen's DSL (loadgen.dsl, `loadgen -run`) turned into loadgen's
 * YAML form, which bf_import_loadgen then imports (bf_import_dsl.h). */
#include "bf_import_dsl.h"

#include "bf_mem.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- loadgen's DSL (loadgen.dsl, -run): converted to the YAML form, then imported -------- */

static int is_method_line(const char *l, size_t n)
{
    static const char *const m[] = {"GET ",  "POST ",  "PUT ",    "DELETE ",
                                    "HEAD ", "PATCH ", "OPTIONS "};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (n > strlen(m[i]) && strncmp(l, m[i], strlen(m[i])) == 0)
            return 1;
    return 0;
}

/* 1 when text is loadgen's DSL: the origin ends in .dsl, or the first line that is neither blank
 * nor a # comment is "METHOD URL" (loadgen.yml starts with a key). */
int bf__import_dsl_detect(const char *text, size_t len, const char *origin)
{
    size_t ol = origin ? strlen(origin) : 0;
    if (ol > 4 && strcmp(origin + ol - 4, ".dsl") == 0)
        return 1;
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        size_t k = 0;
        while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r'))
            k++;
        if (k < n && p[k] != '#')
            return is_method_line(p + k, n - k);
        p = nl ? nl + 1 : end;
    }
    return 0;
}

/* Appends one line of a DSL directive without its // comment (outside strings); tracks the
 * bracket depth and whether a string is open across calls in *depth. */
static void dsl_directive_line(bf_buf_t *b, const char *l, size_t n, int *depth)
{
    char q = 0;
    for (size_t i = 0; i < n; i++) {
        char c = l[i];
        if (q) {
            bf_buf_append(b, &c, 1);
            if (c == '\\' && i + 1 < n)
                bf_buf_append(b, &l[++i], 1);
            else if (c == q)
                q = 0;
            continue;
        }
        if (c == '/' && i + 1 < n && l[i + 1] == '/')
            break;
        if (c == '"' || c == '\'')
            q = c;
        else if (c == '{' || c == '[')
            (*depth)++;
        else if (c == '}' || c == ']')
            (*depth)--;
        bf_buf_append(b, &c, 1);
    }
    bf_buf_appendz(b, " ");
}

typedef struct dsl_req {
    char *method, *url;
    bf_buf_t body, req, extra; /* extra: "    assert: ...\n" lines */
    size_t line;
} dsl_req;

/* loadgen's DSL -> the loadgen YAML form the importer reads: "# key: {...}" comment blocks
 * (JSON5: unquoted keys, // comments, trailing commas, all valid YAML flow once the comments
 * are gone) before the first request are the config's sections (env, runner, variables); after
 * a "METHOD URL" line and its body lines, "# request: {...}" merges into that request and
 * "# assert:" / "# register:" go beside it; "# 200" and "# {...}" lines after a request are
 * loadgen's expected answer (an assert). Returns 0 or BF_E_INVAL with diag naming
 * origin:line. */
int bf__import_dsl_to_yaml(const char *text, size_t len, const char *origin, bf_buf_t *out,
                           bf_diag_t *diag)
{
    dsl_req *rq = NULL;
    size_t nrq = 0;
    bf_buf_t top;
    bf_buf_init(&top, 0);
    int rc = BF_OK, in_body = 0;
    size_t lineno = 0;
    for (const char *p = text, *end = text + len; p < end && rc == BF_OK;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *l = p;
        p = nl ? nl + 1 : end;
        lineno++;
        while (n && (l[n - 1] == '\r' || l[n - 1] == ' ' || l[n - 1] == '\t'))
            n--;
        if (n == 0) {
            in_body = 0;
            continue;
        }
        if (l[0] == '#') {
            in_body = 0;
            size_t k = 1;
            while (k < n && (l[k] == ' ' || l[k] == '\t'))
                k++;
            size_t ks = k;
            while (k < n && (l[k] == '_' || l[k] == '.' || (l[k] >= 'a' && l[k] <= 'z') ||
                             (l[k] >= 'A' && l[k] <= 'Z') || (l[k] >= '0' && l[k] <= '9')))
                k++;
            dsl_req *cur = nrq ? &rq[nrq - 1] : NULL;
            if (k > ks && k < n && l[k] == ':' && !(l[ks] >= '0' && l[ks] <= '9')) {
                /* a directive: its value runs until the brackets close */
                char key[64];
                size_t kl = k - ks < sizeof key - 1 ? k - ks : sizeof key - 1;
                memcpy(key, l + ks, kl);
                key[kl] = '\0';
                bf_buf_t val;
                bf_buf_init(&val, 0);
                int depth = 0;
                size_t first = lineno;
                dsl_directive_line(&val, l + k + 1, n - k - 1, &depth);
                while (depth > 0 && p < end) {
                    nl = memchr(p, '\n', (size_t)(end - p));
                    n = nl ? (size_t)(nl - p) : (size_t)(end - p);
                    l = p;
                    p = nl ? nl + 1 : end;
                    lineno++;
                    if (n == 0 || l[0] != '#') {
                        depth = -1;
                        break;
                    }
                    dsl_directive_line(&val, l + 1, n - 1, &depth);
                }
                while (val.len && (val.data[val.len - 1] == ' ' || val.data[val.len - 1] == ','))
                    val.data[--val.len] = '\0'; /* JSON5's comma between the sections */
                if (depth != 0) {
                    rc = bf_diag_set(diag, BF_E_INVAL,
                                     "%s:%zu: the '# %s:' block does not close its brackets "
                                     "before line %zu (every line of it starts with '#')",
                                     origin, first, key, lineno);
                } else if (cur == NULL || !strcmp(key, "env") || !strcmp(key, "runner") ||
                           !strcmp(key, "variables")) {
                    bf_buf_appendf(&top, "%s: %s\n", key, val.data ? val.data : "");
                } else if (!strcmp(key, "request")) {
                    const char *v = val.data ? val.data : "";
                    while (*v == ' ')
                        v++;
                    size_t vl = strlen(v);
                    while (vl && v[vl - 1] == ' ')
                        vl--;
                    if (vl < 2 || v[0] != '{' || v[vl - 1] != '}')
                        rc = bf_diag_set(diag, BF_E_INVAL,
                                         "%s:%zu: '# request:' needs a {...} "
                                         "object",
                                         origin, first);
                    else
                        bf_buf_appendf(&cur->req, ", %.*s", (int)(vl - 2), v + 1);
                } else {
                    bf_buf_appendf(&cur->extra, "    %s: %s\n", key, val.data ? val.data : "");
                }
                bf_buf_cleanup(&val);
            } else if (cur && ks < n && ((l[ks] >= '0' && l[ks] <= '9') || l[ks] == '{')) {
                /* "# 200" / "# {...}": the answer loadgen expects */
                if (!strstr(cur->extra.data ? cur->extra.data : "", "assert:")) {
                    json_t *a = json_stringn(l + ks, n - ks);
                    char *as = json_dumps(a, JSON_ENCODE_ANY);
                    bf_buf_appendf(&cur->extra, "    assert: %s\n", as ? as : "\"\"");
                    free(as);
                    json_decref(a);
                }
            }
            continue; /* else a comment */
        }
        if (is_method_line(l, n)) {
            rq = bf_realloc(rq, (nrq + 1) * sizeof *rq);
            dsl_req *r = &rq[nrq++];
            memset(r, 0, sizeof *r);
            const char *sp = memchr(l, ' ', n);
            r->method = bf_strndup(l, (size_t)(sp - l));
            while (sp < l + n && *sp == ' ')
                sp++;
            r->url = bf_strndup(sp, (size_t)(l + n - sp));
            bf_buf_init(&r->body, 0);
            bf_buf_init(&r->req, 0);
            bf_buf_init(&r->extra, 0);
            r->line = lineno;
            in_body = 1;
            continue;
        }
        if (in_body && nrq) {
            bf_buf_append(&rq[nrq - 1].body, l, n);
            bf_buf_appendz(&rq[nrq - 1].body, "\n");
            continue;
        }
        rc = bf_diag_set(diag, BF_E_INVAL,
                         "%s:%zu: '%.*s' is neither a request line (METHOD "
                         "URL), a body line right after one, nor a # line",
                         origin, lineno, (int)(n > 60 ? 60 : n), l);
    }
    if (rc == BF_OK) {
        bf_buf_append(out, top.data ? top.data : "", top.len);
        bf_buf_appendz(out, "requests:\n");
        for (size_t i = 0; i < nrq; i++) {
            json_t *m = json_string(rq[i].method), *u = json_string(rq[i].url);
            json_t *b = rq[i].body.len ? json_stringn(rq[i].body.data, rq[i].body.len) : NULL;
            char *ms = json_dumps(m, JSON_ENCODE_ANY), *us = json_dumps(u, JSON_ENCODE_ANY);
            char *bs = b ? json_dumps(b, JSON_ENCODE_ANY) : NULL;
            bf_buf_appendf(out, "  - request: {method: %s, url: %s%s%s%s}\n", ms, us,
                           bs ? ", body: " : "", bs ? bs : "",
                           rq[i].req.data ? rq[i].req.data : "");
            bf_buf_append(out, rq[i].extra.data ? rq[i].extra.data : "", rq[i].extra.len);
            free(ms);
            free(us);
            free(bs);
            json_decref(m);
            json_decref(u);
            json_decref(b);
        }
    }
    for (size_t i = 0; i < nrq; i++) {
        free(rq[i].method);
        free(rq[i].url);
        bf_buf_cleanup(&rq[i].body);
        bf_buf_cleanup(&rq[i].req);
        bf_buf_cleanup(&rq[i].extra);
    }
    free(rq);
    bf_buf_cleanup(&top);
    return rc;
}
