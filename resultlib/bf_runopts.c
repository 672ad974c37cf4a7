/* SPDX-License-Identifier: MIT */
/* bf_runopts.c — record and reconcile a campaign's --cells/--warmup/--duration for --resume.
 *
 * The record is a small JSON object (jansson) in the results directory; the reconciliation is
 * one rule per option: absent now = the record's, present = must be the record's.
 */
#include "bf_runopts.h"

#include "bf_mem.h"
#include "bf_units.h"

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *bf_runopts_json(const bf_runopts_t *o)
{
    json_t *j = json_object();
    json_object_set_new(j, "cells", o->cells ? json_string(o->cells) : json_null());
    json_object_set_new(j, "warmup_ms",
                        o->has_warmup ? json_integer((json_int_t)o->warmup_ms) : json_null());
    json_object_set_new(j, "first_warmup_ms",
                        o->has_first_warmup ? json_integer((json_int_t)o->first_warmup_ms)
                                            : json_null());
    json_object_set_new(j, "duration_ms",
                        o->has_duration ? json_integer((json_int_t)o->duration_ms) : json_null());
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return s;
}

static int get_ms(json_t *j, const char *key, int *has, uint64_t *ms)
{
    json_t *v = json_object_get(j, key);
    *has = 0;
    *ms = 0;
    if (v == NULL || json_is_null(v))
        return BF_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return BF_E_PARSE;
    *has = 1;
    *ms = (uint64_t)json_integer_value(v);
    return BF_OK;
}

int bf_runopts_parse(const char *text, size_t len, const char *origin, bf_runopts_t *out,
                     bf_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    json_error_t err;
    json_t *j = json_loadb(text, len, 0, &err);
    if (!json_is_object(j)) {
        json_decref(j);
        return bf_diag_set(diag, BF_E_PARSE,
                           "%s: not a JSON object (%s); it records the "
                           "campaign's --cells, --warmup and --duration",
                           origin, j ? "another JSON value" : err.text);
    }
    json_t *cells = json_object_get(j, "cells");
    const char *bad = NULL;
    if (cells && !json_is_null(cells) && !json_is_string(cells))
        bad = "cells";
    else if (get_ms(j, "warmup_ms", &out->has_warmup, &out->warmup_ms) != BF_OK)
        bad = "warmup_ms";
    else if (get_ms(j, "first_warmup_ms", &out->has_first_warmup, &out->first_warmup_ms) != BF_OK)
        bad = "first_warmup_ms";
    else if (get_ms(j, "duration_ms", &out->has_duration, &out->duration_ms) != BF_OK)
        bad = "duration_ms";
    if (bad) {
        json_decref(j);
        memset(out, 0, sizeof *out);
        return bf_diag_set(diag, BF_E_PARSE, "%s: \"%s\" is neither null nor a %s", origin, bad,
                           strcmp(bad, "cells") == 0 ? "string" : "whole number of ms");
    }
    if (json_is_string(cells))
        out->cells = bf_strdup(json_string_value(cells));
    json_decref(j);
    return BF_OK;
}

void bf_runopts_cleanup(bf_runopts_t *o)
{
    if (o == NULL)
        return;
    free((char *)o->cells);
    o->cells = NULL;
}

/* a --cells list without spaces, into buf */
static const char *squeeze(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    for (; s && *s && n + 1 < size; s++)
        if (*s != ' ' && *s != '\t')
            buf[n++] = *s;
    buf[n] = '\0';
    return buf;
}

int bf_runopts_resume(const bf_runopts_t *recorded, const bf_runopts_t *given, bf_runopts_t *use,
                      bf_diag_t *diag)
{
    *use = *recorded;
    if (given->cells) {
        char a[4096], b[4096];
        if (recorded->cells == NULL)
            return bf_diag_set(diag, BF_E_INVAL,
                               "--resume: this campaign ran every cell (no "
                               "--cells), not --cells %s; resume without --cells, or start a "
                               "new campaign for those cells",
                               given->cells);
        if (strcmp(squeeze(recorded->cells, a, sizeof a), squeeze(given->cells, b, sizeof b)))
            return bf_diag_set(diag, BF_E_INVAL,
                               "--resume: this campaign ran --cells %s, not "
                               "--cells %s; resume without --cells to use the campaign's, or "
                               "start a new campaign",
                               recorded->cells, given->cells);
    }
    static const struct {
        const char *opt;
        size_t has_off, ms_off;
    } ms[] = {
        {"--warmup", offsetof(bf_runopts_t, has_warmup), offsetof(bf_runopts_t, warmup_ms)},
        {"--first-warmup", offsetof(bf_runopts_t, has_first_warmup),
         offsetof(bf_runopts_t, first_warmup_ms)},
        {"--duration", offsetof(bf_runopts_t, has_duration), offsetof(bf_runopts_t, duration_ms)},
    };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        int g_has = *(const int *)((const char *)given + ms[i].has_off);
        int r_has = *(const int *)((const char *)recorded + ms[i].has_off);
        uint64_t g_ms = *(const uint64_t *)((const char *)given + ms[i].ms_off);
        uint64_t r_ms = *(const uint64_t *)((const char *)recorded + ms[i].ms_off);
        if (!g_has || (r_has && g_ms == r_ms))
            continue;
        char gv[32], rv[32];
        bf_units_format_duration_ms(g_ms, gv, sizeof gv);
        if (!r_has)
            return bf_diag_set(diag, BF_E_INVAL,
                               "--resume: this campaign ran without %s (the "
                               "scenario's value), not %s %s; resume without %s, or start a "
                               "new campaign",
                               ms[i].opt, ms[i].opt, gv, ms[i].opt);
        bf_units_format_duration_ms(r_ms, rv, sizeof rv);
        return bf_diag_set(diag, BF_E_INVAL,
                           "--resume: this campaign ran %s %s, not %s %s: its "
                           "finished rows were measured that way; resume without %s to use "
                           "the campaign's %s, or start a new campaign",
                           ms[i].opt, rv, ms[i].opt, gv, ms[i].opt, rv);
    }
    return BF_OK;
}

char *bf_runopts_describe(const bf_runopts_t *o, char *buf, size_t buf_size)
{
    char v[32];
    if (!o->cells && !o->has_warmup && !o->has_first_warmup && !o->has_duration) {
        snprintf(buf, buf_size, "no --cells, --warmup, --first-warmup or --duration");
        return buf;
    }
    size_t n = 0;
    buf[0] = '\0';
    if (o->cells)
        n += (size_t)snprintf(buf + n, n < buf_size ? buf_size - n : 0, "--cells %s", o->cells);
    const struct {
        int has;
        const char *opt;
        uint64_t ms;
    } ms[] = {{o->has_warmup, "--warmup", o->warmup_ms},
              {o->has_first_warmup, "--first-warmup", o->first_warmup_ms},
              {o->has_duration, "--duration", o->duration_ms}};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        if (ms[i].has && n < buf_size)
            n += (size_t)snprintf(buf + n, buf_size - n, "%s%s %s", n ? " " : "", ms[i].opt,
                                  bf_units_format_duration_ms(ms[i].ms, v, sizeof v));
    return buf;
}
