/* SPDX-License-Identifier: MIT */
/* bf_import_yaml.c — the scenario YAML writer both importers share (see bf_import_yaml.h). */
#include "bf_import_yaml.h"

#include <jansson.h>
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
