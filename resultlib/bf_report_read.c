/* SPDX-License-Identifier: MIT */
/* bf_report_read.c — reading a results directory for the report: matrix.json's
 * rows and queries through the row codec, cells/<cell>[-r<rep>].ndjson ("row" and "second"
 * lines) and telemetry/<cell>[-r<rep>].ndjson ("info" and "tick" lines).
 */
#include "bf_report_int.h"

#include "bf_report.h"

#include "bf_atomic.h"
#include "bf_matrixfile.h"

#include "bf_findings.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_results.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

double bf__jnum(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void unknown_field(const char *key);

json_t *bf__qval(const bf_qrow_t *q, const char *key)
{
    json_t *v = bf_qrow_field_value(q, key);
    if (v == NULL)
        unknown_field(key);
    return v ? v : json_null();
}

double bf__qnum(const bf_qrow_t *q, const char *key)
{
    json_t *v = bf__qval(q, key);
    double d = json_is_number(v) ? json_number_value(v) : NAN;
    json_decref(v);
    return d;
}

/* ---- reading the directory ---------------------------------------------------------------- */

/* A row field by its matrix.json name, through the row codec: the value as the writers wrote
 * it (a new reference). A name the row table does not have is a programmer error (the report
 * drifted from the table), not a silent "-". */
/* field names the report asked for that the row or query table does not have (a report that
 * drifted from the table): counted and said, never shown as a quiet "-" (test_report checks
 * it stays 0) */
static unsigned unknown_fields;

static void unknown_field(const char *key)
{
    if (unknown_fields++ == 0)
        bf_error("report: no field \"%s\" in the results row table (bf_results.c): the report "
                 "reads a name the writers do not write",
                 key);
}

json_t *bf__rval(const rowinfo *r, const char *key)
{
    json_t *v = bf_row_field_value(&r->rec.row, key);
    if (v == NULL)
        unknown_field(key);
    return v ? v : json_null();
}

double bf__rnum(const rowinfo *r, const char *key)
{
    double d = NAN;
    if (bf_row_field_number(&r->rec.row, key, &d) != BF_OK)
        unknown_field(key);
    return d;
}

unsigned bf_report_unknown_fields(void)
{
    return unknown_fields;
}

int bf__report_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static FILE *open_capped(const char *path, char *note, size_t note_size)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    if ((uint64_t)st.st_size > BF_MAX_REPORT_FILE_BYTES) {
        snprintf(note, note_size, "%s is larger than %u MiB; not drawn", path,
                 BF_MAX_REPORT_FILE_BYTES >> 20);
        return NULL;
    }
    return fopen(path, "r");
}

static void load_cell_file(const char *dir, run *r)
{
    char *path = bf_asprintf("%s/cells/%s.ndjson", dir, r->stem);
    FILE *f = open_capped(path, r->note, sizeof r->note);
    free(path);
    r->docs_ok = json_array();
    r->query_ops = json_object();
    if (f == NULL)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int first = 1;
    while ((n = getline(&line, &cap, f)) > 0) {
        int is_row = first && strstr(line, "\"type\":\"row\"") != NULL;
        first = 0;
        if (!is_row && strstr(line, "\"type\":\"second\"") == NULL)
            continue; /* agent_second and raw sample lines */
        json_t *o = json_loads(line, 0, NULL);
        if (!json_is_object(o)) {
            json_decref(o);
            continue;
        }
        if (is_row) {
            r->warmup_s = (uint32_t)json_integer_value(json_object_get(o, "warmup_s"));
            r->duration_s = (uint32_t)json_integer_value(json_object_get(o, "duration_s"));
            r->repetition = (uint32_t)json_integer_value(json_object_get(o, "repetition"));
        } else {
            json_int_t s = json_integer_value(json_object_get(o, "second"));
            if (s >= 0 && s < 1000000) {
                while ((json_int_t)json_array_size(r->docs_ok) <= s)
                    json_array_append_new(r->docs_ok, json_integer(0));
                json_array_set(r->docs_ok, (size_t)s, json_object_get(o, "docs_ok"));
                const char *qn;
                json_t *qv;
                json_object_foreach(json_object_get(o, "query_ops"), qn, qv)
                {
                    json_t *a = json_object_get(r->query_ops, qn);
                    if (a == NULL) {
                        a = json_array();
                        json_object_set_new(r->query_ops, qn, a);
                    }
                    while ((json_int_t)json_array_size(a) <= s)
                        json_array_append_new(a, json_integer(0));
                    json_array_set(a, (size_t)s, qv);
                }
            }
        }
        json_decref(o);
    }
    free(line);
    fclose(f);
}

static void load_tele_file(const char *dir, run *r)
{
    char *path = bf_asprintf("%s/telemetry/%s.ndjson", dir, r->stem);
    FILE *f = open_capped(path, r->note, sizeof r->note);
    free(path);
    if (f == NULL)
        return;
    r->tele = json_object();
    json_t *nodes = json_object();
    json_object_set_new(r->tele, "file", json_sprintf("telemetry/%s.ndjson", r->stem));
    json_object_set_new(r->tele, "nodes", nodes);
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        json_t *o = json_loads(line, 0, NULL);
        const char *type = json_string_value(json_object_get(o, "type"));
        if (type && strcmp(type, "tick") == 0) {
            json_t *t = json_object_get(o, "t_ms");
            size_t i;
            json_t *nd;
            json_array_foreach(json_object_get(o, "nodes"), i, nd)
            {
                const char *name = json_string_value(json_object_get(nd, "name"));
                if (name == NULL)
                    continue;
                json_t *ns = json_object_get(nodes, name);
                if (ns == NULL) {
                    ns = json_pack("{s:[],s:[],s:[]}", "t_ms", "queue", "rejected_delta");
                    json_object_set_new(nodes, name, ns);
                }
                json_array_append(json_object_get(ns, "t_ms"), t ? t : json_null());
                json_array_append(json_object_get(ns, "queue"),
                                  json_object_get(nd, "queue") ?: json_null());
                json_array_append(json_object_get(ns, "rejected_delta"),
                                  json_object_get(nd, "rejected_delta") ?: json_null());
            }
        } else if (type && strcmp(type, "summary") == 0) {
            json_object_del(o, "type");
            json_object_set(r->tele, "summary", o);
        }
        json_decref(o);
    }
    free(line);
    fclose(f);
}

void bf__find_runs(const char *dir, rowinfo *ri)
{
    char *path = bf_asprintf("%s/cells/%s.ndjson", dir, ri->cell);
    int single = bf__report_file_exists(path);
    free(path);
    size_t want = single ? 1 : BF_MAX_REPORT_REPS;
    for (size_t k = 0; k < want; k++) {
        char stem[300];
        if (single)
            snprintf(stem, sizeof stem, "%s", ri->cell);
        else
            snprintf(stem, sizeof stem, "%s-r%zu", ri->cell, k + 1);
        if (!single) {
            char *p = bf_asprintf("%s/cells/%s.ndjson", dir, stem);
            int ok = bf__report_file_exists(p);
            free(p);
            if (!ok)
                break;
        }
        ri->runs = bf_realloc(ri->runs, (ri->nruns + 1) * sizeof *ri->runs);
        run *r = &ri->runs[ri->nruns++];
        memset(r, 0, sizeof *r);
        bf_strlcpy(r->stem, stem, sizeof r->stem);
        r->repetition = single ? 1 : (uint32_t)(k + 1);
        r->warmup_s = ri->rec.row.warmup_s;
        r->duration_s = ri->rec.row.duration_s;
        load_cell_file(dir, r);
        load_tele_file(dir, r);
    }
}
