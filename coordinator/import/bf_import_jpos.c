/* SPDX-License-Identifier: MIT */
/* bf_import_jpos.c — where a member of a JSON text is: file:line:column of every object key
 * and array element, for the Rally importer's messages (jansson keeps no positions).
 */
#include "bf_import_rally_int.h"

#include "bf_import_rally.h"

#include "bf_buf.h"
#include "bf_cluster.h"
#include "bf_corpus.h"
#include "bf_import_render.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_scenario.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void jp_locate(jposmap *m, size_t to, unsigned *line, unsigned *col)
{
    for (; m->at < to; m->at++) {
        unsigned char c = (unsigned char)m->text[m->at];
        if (c == '\n') {
            m->line++;
            m->col = 1;
        } else if ((c & 0xC0) != 0x80) {
            m->col++;
        }
    }
    *line = m->line;
    *col = m->col;
}

static void jp_record(jposmap *m, const char *path, size_t at)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 256;
        m->v = bf_realloc(m->v, m->cap * sizeof *m->v);
    }
    jpos *p = &m->v[m->n++];
    p->path = bf_strdup(path);
    jp_locate(m, at, &p->line, &p->col);
}

static void jp_ws(jposmap *m)
{
    while (m->i < m->len && strchr(" \t\r\n", m->text[m->i]) && m->text[m->i])
        m->i++;
}

/* a string at text[i] (the opening quote): its raw content into out (truncated), i after it */
static void jp_string(jposmap *m, char *out, size_t out_size)
{
    size_t n = 0;
    m->i++;
    while (m->i < m->len && m->text[m->i] != '"') {
        if (m->text[m->i] == '\\' && m->i + 1 < m->len)
            m->i++;
        if (n + 1 < out_size)
            out[n++] = m->text[m->i];
        m->i++;
    }
    m->i++;
    if (out_size)
        out[n] = '\0';
}

static void jp_value(jposmap *m, const char *path, int depth)
{
    jp_ws(m);
    if (m->i >= m->len)
        return;
    char c = m->text[m->i];
    char sub[1024];
    if (c == '{' || c == '[') {
        m->i++;
        for (size_t k = 0;; k++) {
            jp_ws(m);
            if (m->i >= m->len || m->text[m->i] == '}' || m->text[m->i] == ']') {
                m->i++;
                return;
            }
            if (m->text[m->i] == ',') {
                m->i++;
                jp_ws(m);
            }
            size_t at = m->i;
            if (c == '{') {
                char key[256];
                jp_string(m, key, sizeof key);
                snprintf(sub, sizeof sub, "%s/%s", path, key);
                jp_ws(m);
                if (m->i < m->len && m->text[m->i] == ':')
                    m->i++;
            } else {
                snprintf(sub, sizeof sub, "%s/%zu", path, k);
            }
            if (depth < MAX_POS_DEPTH)
                jp_record(m, sub, at);
            jp_value(m, sub, depth + 1);
        }
    }
    if (c == '"') {
        char skip[1];
        jp_string(m, skip, 0);
        return;
    }
    while (m->i < m->len && !strchr(",}] \t\r\n", m->text[m->i]))
        m->i++;
}

void bf__jp_build(jposmap *m, const char *text, size_t len)
{
    memset(m, 0, sizeof *m);
    m->text = text;
    m->len = len;
    m->line = m->col = 1;
    jp_value(m, "", 0);
    m->text = NULL; /* borrowed only while building */
}

void bf__jp_cleanup(jposmap *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].path);
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* "file:line:column" of the member at path (else of its closest recorded parent, else the
 * file alone) into buf */
const char *bf__jp_where(const jposmap *m, const char *file, const char *path, char *buf,
                         size_t size)
{
    char p[1024];
    bf_strlcpy(p, path, sizeof p);
    for (;;) {
        for (size_t i = 0; m && i < m->n; i++)
            if (strcmp(m->v[i].path, p) == 0) {
                snprintf(buf, size, "%s:%u:%u", file, m->v[i].line, m->v[i].col);
                return buf;
            }
        char *slash = strrchr(p, '/');
        if (slash == NULL || slash == p)
            break;
        *slash = '\0';
    }
    snprintf(buf, size, "%s", file);
    return buf;
}
