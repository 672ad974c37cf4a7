/* SPDX-License-Identifier: MIT */
/* bf_import_yaml.c — the scenario YAML writer both importers share (see bf_import_yaml.h). */
#include "bf_import_yaml.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void bf_yaml_put_scalar(bf_buf_t *b, const char *s)
{
    size_t n = strlen(s);
    int plain = n > 0 && n < 200;
    int printable = 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7F)
            printable = 0;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || c == '/' ||
              (c == ':' && i + 1 < n && s[i + 1] != ' ')))
            plain = 0;
    }
    if (plain && (s[0] == '-' || s[0] == '.' || s[0] == ':'))
        plain = 0;
    static const char *words[] = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"};
    for (size_t i = 0; plain && i < sizeof words / sizeof words[0]; i++)
        if (strcasecmp(s, words[i]) == 0)
            plain = 0;
    if (plain) {
        bf_buf_appendz(b, s);
        return;
    }
    if (printable && n > 0 && s[0] != ' ' && s[n - 1] != ' ') {
        bf_buf_appendz(b, "'");
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '\'')
                bf_buf_appendz(b, "''");
            else
                bf_buf_append(b, s + i, 1);
        }
        bf_buf_appendz(b, "'");
        return;
    }
    bf_buf_appendz(b, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': bf_buf_appendz(b, "\\\""); break;
        case '\\': bf_buf_appendz(b, "\\\\"); break;
        case '\n': bf_buf_appendz(b, "\\n"); break;
        case '\r': bf_buf_appendz(b, "\\r"); break;
        case '\t': bf_buf_appendz(b, "\\t"); break;
        default:
            if (c < 0x20 || c == 0x7F)
                bf_buf_appendf(b, "\\x%02x", c);
            else
                bf_buf_append(b, s + i, 1);
        }
    }
    bf_buf_appendz(b, "\"");
}

int bf_yaml_put_dq(bf_buf_t *b, const char *s, int escape_env)
{
    json_t *j = s ? json_string(s) : NULL; /* NULL when s is not UTF-8 */
    char *d = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    json_decref(j);
    if (d == NULL)
        return BF_E_INVAL;
    for (const char *p = d; *p; p++) {
        if (escape_env && p[0] == '$' && p[1] == '{')
            bf_buf_appendz(b, "$$");
        else
            bf_buf_append(b, p, 1);
    }
    free(d);
    return BF_OK;
}

void bf_yaml_put(bf_buf_t *b, const char *s, bf_yaml_quote q)
{
    switch (q) {
    case BF_YQ_RAW: bf_buf_appendz(b, s); break;
    case BF_YQ_SCALAR: bf_yaml_put_scalar(b, s); break;
    case BF_YQ_DQ: (void)bf_yaml_put_dq(b, s, 0); break;
    case BF_YQ_DQ_ENV: (void)bf_yaml_put_dq(b, s, 1); break;
    }
}

/* the formatted text appended to b, as bf_buf_appendf */
static void vput(bf_buf_t *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void vput(bf_buf_t *b, const char *fmt, va_list ap)
{
    (void)bf_buf_vappendf(b, fmt, ap);
}

void bf_yaml_comment(bf_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bf_buf_appendz(b, "# ");
    vput(b, fmt, ap);
    bf_buf_appendz(b, "\n");
    va_end(ap);
}

void bf_yaml_note(bf_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bf_buf_appendz(b, "#  - ");
    vput(b, fmt, ap);
    bf_buf_appendz(b, "\n");
    va_end(ap);
}

static void indent(bf_buf_t *b, int depth)
{
    for (int i = 0; i < depth; i++)
        bf_buf_appendz(b, "  ");
}

void bf_yaml_map(bf_buf_t *b, int depth, const char *key)
{
    indent(b, depth);
    bf_yaml_put_scalar(b, key);
    bf_buf_appendz(b, ":\n");
}

void bf_yaml_key(bf_buf_t *b, int depth, const char *key)
{
    indent(b, depth);
    bf_yaml_put_scalar(b, key);
    bf_buf_appendz(b, ": ");
}

void bf_yaml_kv(bf_buf_t *b, int depth, const char *key, const char *val, bf_yaml_quote q)
{
    bf_yaml_key(b, depth, key);
    bf_yaml_put(b, val, q);
    bf_buf_appendz(b, "\n");
}

void bf_yaml_kvf(bf_buf_t *b, int depth, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bf_yaml_key(b, depth, key);
    vput(b, fmt, ap);
    bf_buf_appendz(b, "\n");
    va_end(ap);
}

void bf_yaml_item(bf_buf_t *b, int depth, const char *val, bf_yaml_quote q)
{
    indent(b, depth);
    bf_buf_appendz(b, "- ");
    bf_yaml_put(b, val, q);
    bf_buf_appendz(b, "\n");
}

void bf_yaml_item_kvf(bf_buf_t *b, int depth, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    indent(b, depth);
    bf_buf_appendz(b, "- ");
    bf_yaml_put_scalar(b, key);
    bf_buf_appendz(b, ": ");
    vput(b, fmt, ap);
    bf_buf_appendz(b, "\n");
    va_end(ap);
}

void bf_yaml_put_list(bf_buf_t *b, const char *const *items, size_t n, bf_yaml_quote q)
{
    bf_buf_appendz(b, "[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            bf_buf_appendz(b, ", ");
        bf_yaml_put(b, items[i], q);
    }
    bf_buf_appendz(b, "]");
}

void bf_yaml_flow_open(bf_yaml_flow_t *f, bf_buf_t *b, int depth, const char *key)
{
    f->b = b;
    f->n = 0;
    indent(b, depth);
    if (key) {
        bf_yaml_put_scalar(b, key);
        bf_buf_appendz(b, ": {");
    } else {
        bf_buf_appendz(b, "- {");
    }
}

void bf_yaml_flow_key(bf_yaml_flow_t *f, const char *key)
{
    if (f->n++)
        bf_buf_appendz(f->b, ", ");
    bf_yaml_put_scalar(f->b, key);
    bf_buf_appendz(f->b, ": ");
}

void bf_yaml_flow_kv(bf_yaml_flow_t *f, const char *key, const char *val, bf_yaml_quote q)
{
    bf_yaml_flow_key(f, key);
    bf_yaml_put(f->b, val, q);
}

void bf_yaml_flow_kvf(bf_yaml_flow_t *f, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bf_yaml_flow_key(f, key);
    vput(f->b, fmt, ap);
    va_end(ap);
}

void bf_yaml_flow_close(bf_yaml_flow_t *f)
{
    bf_buf_appendz(f->b, "}\n");
}
