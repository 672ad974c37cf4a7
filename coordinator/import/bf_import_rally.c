/* SPDX-License-Identifier: MIT */
/* bf_import_rally.c — a Rally track / OpenSearch Benchmark workload as a bulkfleet scenario.
 *
 * The track format is Rally's (docs/track.rst of elastic/rally: indices, corpora, operations,
 * challenges / schedule; OpenSearch Benchmark keeps it as workload.json). A file with a Jinja2
 * construct is rendered first, as Rally renders every track file (bf_import_render.c, through
 * render_track.py); plain JSON is read as it is. The steps here read the track; the track's
 * vocabulary and checks are in bf_import_rally_track.c, the schedule's tasks in
 * bf_import_rally_tasks.c, the command in bf_import_rally_cmd.c.
 */
#include "bf_import_rally.h"
#include "bf_import_rally_int.h"

#include "bf_buf.h"
#include "bf_cluster.h"
#include "bf_corpus.h"
#include "bf_import_render.h"
#include "bf_import_yaml.h"
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

#define PASSES_ONCE_DURATION_S 86400 /* a corpus read once: the cell ends when it is read */

static void add_value(values *vs, double v)
{
    for (size_t i = 0; i < vs->n; i++)
        if (vs->v[i] == v)
            return;
    if (vs->n < MAX_VALUES)
        vs->v[vs->n++] = v;
}

/* 1 when text holds a Jinja construct ({{ ... }}, {% ... %}, {# ... #}) */
static int has_jinja(const char *text, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++)
        if (text[i] == '{' && (text[i + 1] == '{' || text[i + 1] == '%' || text[i + 1] == '#'))
            return 1;
    return 0;
}

/* One import's files: the track, and its rendering by Jinja2 once one of them needs it (Rally
 * renders every file; a file without a construct renders to itself). */
typedef struct track_src {
    const char *track_file;         /* absolute */
    const bf_render_opts_t *render; /* the tools' globals and the track parameters */
    json_t *bundle;                 /* bf_import_render's answer, or NULL before it is needed */
} track_src;

/* the rendered text of `file` (the track, or a file it names as `rel`) into *text / *len
 * (borrowed from the bundle); renders the track the first time */
static int rendered_text(track_src *src, const char *file, const char *rel, const char **text,
                         size_t *len, bf_diag_t *diag)
{
    if (src->bundle == NULL) {
        int rc = bf_import_render(src->track_file, src->render, &src->bundle, diag);
        if (rc != BF_OK)
            return rc;
    }
    json_t *t = strcmp(file, src->track_file) == 0
                    ? json_object_get(src->bundle, "track")
                    : json_object_get(json_object_get(src->bundle, "files"), rel ? rel : "");
    if (!json_is_string(t))
        return bf_diag_set(diag, BF_E_NOTFOUND,
                           "%s: the track renderer did not render this file (it renders the "
                           "files the track's indices and templates name)",
                           file);
    *text = json_string_value(t);
    *len = json_string_length(t);
    return BF_OK;
}

/* file as JSON (rendered with Jinja2 when it needs it: the whole track then); *label is the
 * name positions are given in ("FILE" or "FILE (rendered)"; caller frees). rel: the name the
 * track gives the file (NULL for the track itself). */
static int load_json_at(track_src *src, const char *file, const char *rel, json_t **out,
                        jposmap *pos, char **label, bf_diag_t *diag)
{
    char *text = NULL;
    size_t len = 0;
    int rc = bf__rally_read_file(file, &text, &len, diag);
    if (rc != BF_OK)
        return rc;
    const char *use = text;
    size_t use_len = len;
    int rendered = 0;
    if (src && (has_jinja(text, len) || src->bundle != NULL ||
                (src->render && src->render->params && rel == NULL))) {
        rc = rendered_text(src, file, rel, &use, &use_len, diag);
        rendered = 1;
    }
    if (rc == BF_OK) {
        char *lab = rendered ? bf_asprintf("%s (rendered)", file) : bf_strdup(file);
        json_error_t je;
        *out = json_loadb(use, use_len, JSON_REJECT_DUPLICATES, &je);
        if (*out == NULL && strstr(je.text, "duplicate object key")) {
            /* Rally reads tracks with Python's json, which keeps a key's last value
             * (elser-ingest-speedtest's rendered pipeline repeats "field"): so does this
             * import, and it says where */
            json_error_t je2;
            *out = json_loadb(use, use_len, 0, &je2);
            if (*out)
                bf_warn("%s:%d:%d: %s; Rally keeps the key's last value, and so does this "
                        "import (remove the first to silence this)",
                        lab, je.line, je.column, je.text);
        }
        if (*out == NULL)
            rc = bf_diag_set(diag, BF_E_PARSE, "%s:%d:%d: not JSON: %s", lab, je.line, je.column,
                             je.text);
        else if (pos)
            bf__jp_build(pos, use, use_len);
        if (label && rc == BF_OK)
            *label = lab;
        else
            free(lab);
    }
    free(text);
    return rc;
}

/* ---- bf_import_rally's steps ----------------------------------------------------------------
 * One import's state: the track and what the steps read from it, in the order they run
 * (rally_open, rally_params, rally_list or rally_schedule, rally_bulk_tasks, rally_corpora,
 * rally_index, rally_account, rally_write); rally_cleanup frees it whatever step failed. */
typedef struct rally {
    const bf_rally_opts_t *opts;
    bf_diag_t *diag;
    char *file, *dir; /* the track (or workload) file and its folder, absolute */
    const char *base; /* the folder's name: the scenario's and index's default name */
    json_t *track, *tasks, *task_paths, *body, *settings;
    bf_buf_t y, notes;   /* the scenario, and the header's notes */
    bf_buf_t other_bulk; /* types of indexing tasks that are not "bulk" */
    jposmap pos;
    bf_render_opts_t ro;
    track_src tsrc;
    task_acc acc;
    char *label; /* the track's name in positions: "FILE" or "FILE (rendered)" */
    track_ck ck;
    /* the schedule */
    json_t *schedule, *challenges;
    const char *ckey, *one_key; /* "challenges"/"challenge" or OSB's test_procedure(s) */
    const char *chosen;         /* the challenge's name, or NULL for the track's schedule */
    char sched_path[64];
    /* the bulk tasks */
    values batch, clients, rate;
    double warmup_s, period_s; /* the first bulk task's that has one, else -1 */
    json_t *first_bulk;        /* its corpora and indices name the documents files */
    json_t *bulk_blocks;       /* the parallel blocks holding a bulk task ("/.../schedule/5") */
    size_t nbulk;
    /* the corpora */
    json_t *files, *targets;
    json_t *file_targets; /* the target index of each file, in the order of files */
    int by_file;          /* each file into its own index: index.names, corpus.indices by_file */
    uint64_t ship_bytes;
    int bulk_format;        /* 1 action-and-meta-data lines, 0 sources, -1 none yet */
    size_t missing;         /* corpus files not downloaded yet */
    size_t npartial;        /* corpus files shorter than their document-count (allowed) */
    const char *only_index; /* the track's one index: a documents entry's default target */
    /* the index */
    size_t ntargets;
    const char *target;
    double shards, replicas;
    /* a vector bulk task (bf_import_vector.h): documents from a template, no corpus */
    bf_vimport_ctx_t vctx;
    bf_vimport_t vec;
    json_t *vtemplate; /* the data stream's composable template body, or NULL */
    const char *vtemplate_name;
} rally_t;

static void rally_cleanup(rally_t *R)
{
    json_decref(R->files);
    json_decref(R->file_targets);
    json_decref(R->targets);
    bf_buf_cleanup(&R->y);
    bf_buf_cleanup(&R->notes);
    bf_buf_cleanup(&R->other_bulk);
    json_decref(R->track);
    json_decref(R->tasks);
    json_decref(R->task_paths);
    json_decref(R->bulk_blocks);
    bf__jp_cleanup(&R->pos);
    json_decref(R->acc.queries);
    json_decref(R->acc.skipped);
    bf_buf_cleanup(&R->acc.notes);
    bf_buf_cleanup(&R->acc.vars);
    json_decref(R->tsrc.bundle);
    free(R->label);
    json_decref(R->body);
    json_decref(R->settings);
    bf_vimport_cleanup(&R->vec);
    json_decref(R->vtemplate);
    free(R->file);
    free(R->dir);
}

/* The track file of path (a folder's track.json, else its OpenSearch Benchmark
 * workload.json; or the file itself) and its folder, then the track loaded (rendered with
 * Jinja2 when it needs it). */
static int rally_open(rally_t *R, const char *path)
{
    char real[PATH_MAX];
    if (realpath(path, real) == NULL)
        return bf_diag_set(R->diag, errno == ENOENT ? BF_E_NOTFOUND : BF_E_IO,
                           "import-rally: %s: "
                           "%s",
                           path, strerror(errno));
    struct stat st;
    if (stat(real, &st) == 0 && S_ISDIR(st.st_mode)) {
        R->dir = bf_strdup(real);
        R->file = bf_asprintf("%s/track.json", real);
        if (!bf__file_exists(R->file)) {
            free(R->file);
            R->file = bf_asprintf("%s/workload.json", real); /* OpenSearch Benchmark */
        }
    } else {
        R->file = bf_strdup(real);
        R->dir = bf_strdup(real);
        *strrchr(R->dir, '/') = '\0';
    }
    R->base = strrchr(R->dir, '/') ? strrchr(R->dir, '/') + 1 : R->dir;
    R->tsrc = (track_src){.track_file = R->file, .render = &R->ro, .bundle = NULL};
    R->ck = (track_ck){.file = R->file, .pos = &R->pos, .notes = &R->notes};
    int rc = load_json_at(&R->tsrc, R->file, NULL, &R->track, &R->pos, &R->label, R->diag);
    if (rc == BF_OK)
        R->ck.file = R->label;
    return rc;
}

/* the names of a JSON array of strings, ", "-separated, appended to b */
static void append_names(bf_buf_t *b, json_t *names)
{
    size_t ui;
    json_t *uv;
    json_array_foreach(names, ui, uv)
        bf_buf_appendf(b, "%s%s", ui ? ", " : "", json_string_value(uv));
}

/* The track parameters of a rendered track: one that no template reads is refused, as Rally
 * does (a typo would be another benchmark); the ones it reads are a header note. */
static int rally_params(rally_t *R)
{
    if (R->tsrc.bundle == NULL)
        return BF_OK;
    json_t *unused = json_object_get(R->tsrc.bundle, "unused");
    if (json_array_size(unused) > 0) {
        bf_buf_t u, known;
        bf_buf_init(&u, 0);
        bf_buf_init(&known, 0);
        append_names(&u, unused);
        append_names(&known, json_object_get(R->tsrc.bundle, "params"));
        int rc = bf_diag_set(R->diag, BF_E_INVAL,
                             "%s: --track-params: %s %s not read by any template of this track "
                             "(as Rally, import-rally refuses them: a misspelt parameter would "
                             "silently be another benchmark); the track reads: %s",
                             R->file, u.data, json_array_size(unused) > 1 ? "are" : "is",
                             known.len ? known.data : "none");
        bf_buf_cleanup(&u);
        bf_buf_cleanup(&known);
        return rc;
    }
    json_t *pr = json_object_get(R->tsrc.bundle, "params");
    if (json_array_size(pr) > 0) {
        bf_buf_t names;
        bf_buf_init(&names, 0);
        append_names(&names, pr);
        bf_yaml_note(&R->notes,
                     "rendered with Jinja2 as Rally does; the track's parameters "
                     "(--track-params k:v,... to set them): %s%s%s",
                     names.data ? names.data : "", R->opts->track_params ? "; given: " : "",
                     R->opts->track_params ? R->opts->track_params : "");
        bf_buf_cleanup(&names);
    }
    return BF_OK;
}

/* --list: every challenge (or test procedure) with its task count, the default marked; the
 * track's own schedule when it has no challenge. Caller frees. */
static char *rally_list(const rally_t *R)
{
    json_t *track = R->track;
    bf_buf_t l;
    bf_buf_init(&l, 0);
    size_t li;
    json_t *lc;
    json_t *all = json_is_array(R->challenges) ? json_incref(R->challenges) : json_array();
    if (json_is_object(json_object_get(track, R->one_key)))
        json_array_append(all, json_object_get(track, R->one_key));
    json_array_foreach(all, li, lc)
    {
        json_t *lt = json_array(), *lp = json_array();
        bf__collect_tasks(json_object_get(lc, "schedule"), lt, "", lp);
        bf_buf_appendf(&l, "%s\t%zu tasks%s%s%s\n",
                       bf__str_of(lc, "name") ? bf__str_of(lc, "name") : "?", json_array_size(lt),
                       json_is_true(json_object_get(lc, "default")) ? "\tdefault" : "",
                       bf__str_of(lc, "description") ? "\t" : "",
                       bf__str_of(lc, "description") ? bf__str_of(lc, "description") : "");
        json_decref(lt);
        json_decref(lp);
    }
    if (json_array_size(all) == 0 && json_is_array(json_object_get(track, "schedule"))) {
        json_t *lt = json_array(), *lp = json_array();
        bf__collect_tasks(json_object_get(track, "schedule"), lt, "", lp);
        bf_buf_appendf(&l, "(the track's schedule)\t%zu tasks\tdefault\n", json_array_size(lt));
        json_decref(lt);
        json_decref(lp);
    }
    json_decref(all);
    char *text = bf_buf_steal(&l);
    return text ? text : bf_strdup("");
}

/* Where the challenges are: "challenges" / "challenge", or OpenSearch Benchmark's
 * "test_procedures" / "test_procedure". */
static void rally_challenges(rally_t *R)
{
    R->schedule = json_object_get(R->track, "schedule");
    R->ckey = json_object_get(R->track, "challenges") ? "challenges" : "test_procedures";
    R->challenges = json_object_get(R->track, R->ckey);
    R->one_key = json_object_get(R->track, "challenge") ? "challenge" : "test_procedure";
    snprintf(R->sched_path, sizeof R->sched_path, "/schedule");
}

/* The schedule: the --challenge named (an error when there is none of that name), else the
 * default challenge, else the first; a single challenge object; else the track's own. Its
 * tasks are collected in order with their JSON paths. */
static int rally_schedule(rally_t *R)
{
    const char *challenge = R->opts->challenge;
    json_t *challenges = R->challenges;
    if (json_is_array(challenges) && json_array_size(challenges) > 0) {
        json_t *ch = NULL, *c;
        size_t i, chi = 0;
        json_array_foreach(challenges, i, c)
        {
            const char *cn = bf__str_of(c, "name");
            if (challenge ? cn && strcmp(cn, challenge) == 0
                          : json_is_true(json_object_get(c, "default"))) {
                ch = c;
                chi = i;
                break;
            }
        }
        if (ch == NULL && challenge)
            return bf_diag_set(R->diag, BF_E_INVAL,
                               "%s: no %s named '%s'; the track has %zu (import-rally --list "
                               "names them)",
                               R->file, R->ckey[0] == 'c' ? "challenge" : "test procedure",
                               challenge, json_array_size(challenges));
        if (ch == NULL)
            ch = json_array_get(challenges, 0);
        R->chosen = bf__str_of(ch, "name");
        R->schedule = json_object_get(ch, "schedule");
        snprintf(R->sched_path, sizeof R->sched_path, "/%s/%zu/schedule", R->ckey, chi);
    } else if (json_is_object(json_object_get(R->track, R->one_key))) {
        json_t *ch = json_object_get(R->track, R->one_key);
        R->chosen = bf__str_of(ch, "name");
        R->schedule = json_object_get(ch, "schedule");
        snprintf(R->sched_path, sizeof R->sched_path, "/%s/schedule", R->one_key);
    }
    if (!json_is_array(R->schedule))
        return bf_diag_set(R->diag, BF_E_INVAL,
                           "%s: no schedule (neither \"schedule\" nor a challenge with one: "
                           "\"challenges\", \"challenge\", or OpenSearch Benchmark's "
                           "\"test_procedures\", \"test_procedure\")",
                           R->file);
    bf__collect_tasks(R->schedule, R->tasks, R->sched_path, R->task_paths);
    return BF_OK;
}

/* One bulk task t (its operation op at opath, the task at tpath; `what` names it in
 * messages): its keys checked against Rally's reference (a misspelling is an error), its
 * bulk-size (required) a batch_size value, clients a concurrency value, target-throughput
 * (bulk requests/s, the task's or else the operation's) x bulk-size a target_rate value; the
 * first warmup-time-period and time-period found are the run's. */
static int rally_bulk_task(rally_t *R, json_t *t, json_t *op, const char *opath, const char *tpath,
                           const char *what)
{
    track_ck *ck = &R->ck;
    bf_diag_t *diag = R->diag;
    double v;
    int rc = bf__check_keys(ck, t, tpath ? tpath : "", BF__TASK_KEYS, what, diag);
    if (rc == BF_OK && json_is_object(op))
        rc = bf__check_keys(ck, op, opath, BF__BULK_KEYS, what, diag);
    if (rc != BF_OK)
        return rc;
    /* op NULL: a vector task's, whose operation rally_vector_task checked */
    int have =
        op ? bf__check_num(ck, op, opath, "bulk-size", 1, 1, " (documents)", what, &v, diag) : 2;
    if (have < 0)
        return have;
    if (have == 0) {
        char where[1200];
        bf__jp_where(&R->pos, R->file, opath, where, sizeof where);
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s: %s has no \"bulk-size\" (documents per bulk request, which "
                           "Rally requires); add one, e.g. \"bulk-size\": 1000",
                           where, what);
    }
    if (have == 1)
        add_value(&R->batch, v);
    /* ingest-percentage: Rally indexes that share of each client's slice of the corpus
     * (docs/internals/rally-metrics.md); a scenario reads whole passes, so a share below 100
     * is named, never silently replaced by the whole corpus */
    double pct = 100;
    int gp =
        op ? bf__check_num(ck, op, opath, "ingest-percentage", 0, 0, " (percent)", what, &pct, diag)
           : 0;
    if (gp < 0)
        return gp;
    if (gp == 1 && (pct <= 0 || pct > 100)) {
        char sub[1200], where[1300];
        snprintf(sub, sizeof sub, "%s/ingest-percentage", opath);
        bf__jp_where(&R->pos, R->file, sub, where, sizeof where);
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s: %s: \"ingest-percentage\" is %g; Rally takes a share of the "
                           "corpus above 0 and at most 100",
                           where, what, pct);
    }
    if (gp == 1 && pct < 100) {
        bf_warn("%s: %s indexes %g%% of its corpus in Rally (ingest-percentage); the scenario "
                "reads all of it (named in its notes)",
                R->file, what, pct);
        bf_yaml_note(&R->notes,
                     "not imported: ingest-percentage %g of %s (Rally indexes %g%% of "
                     "each client's share of the corpus; the scenario reads all of it: "
                     "its cells index more documents than Rally's task)",
                     pct, what, pct);
    }
    double cl = 1, tp = 0, wu = -1, tpd = -1, ru = 0;
    const char *tpk = tpath ? tpath : "";
    /* in file order of Rally's reference, the first wrong one reported */
    struct {
        const char *key, *unit;
        double min, *v;
        int whole;
    } nums[] = {{"clients", "", 1, &cl, 1},
                {"warmup-time-period", " (seconds)", 0, &wu, 0},
                {"time-period", " (seconds)", 0, &tpd, 0},
                {"target-throughput", " (bulk requests per second)", 0, &tp, 0},
                {"ramp-up-time-period", " (seconds)", 0, &ru, 0}};
    int got[5];
    for (size_t g = 0; g < 5; g++) {
        got[g] = bf__check_num(ck, t, tpk, nums[g].key, nums[g].min, nums[g].whole, nums[g].unit,
                               what, nums[g].v, diag);
        if (got[g] < 0)
            return got[g];
    }
    add_value(&R->clients, cl);
    if (got[3] == 0 && op) {
        int og = bf__check_num(ck, op, opath, "target-throughput", 0, 0,
                               " (bulk requests per second)", what, &tp, diag);
        if (og < 0)
            return og;
        got[3] = og;
    }
    if (got[3] > 0)
        add_value(&R->rate, tp * (R->batch.n ? R->batch.v[R->batch.n - 1] : 1));
    else
        add_value(&R->rate, 0);
    if (R->warmup_s < 0 && got[1] > 0)
        R->warmup_s = wu;
    if (R->period_s < 0 && got[2] > 0)
        R->period_s = tpd;
    if (R->first_bulk == NULL)
        R->first_bulk = op;
    if (json_object_get(t, "iterations") || json_object_get(t, "warmup-iterations"))
        bf_yaml_note(&R->notes, "iterations are not imported: a cell runs for a time, "
                                "or reads its corpus once");
    return BF_OK;
}

/* A vector bulk task (bf_vimport_bulk_kind): Rally's bulk with a vector param-source is a bulk
 * task (its param-source's keys known), OpenSearch Benchmark's bulk-vector-data-set takes its
 * bulk_size and the task's clients; the first one's documents are the scenario's. */
static int rally_vector_task(rally_t *R, json_t *t, json_t *op, const char *type,
                             const char *const *vkeys, const char *opath, const char *tpath,
                             const char *what)
{
    const char *known[64];
    size_t n = 0;
    for (size_t i = 0; BF__BULK_KEYS[i] && n < 40; i++)
        known[n++] = BF__BULK_KEYS[i];
    for (size_t i = 0; vkeys && vkeys[i] && n < 60; i++)
        known[n++] = vkeys[i];
    known[n++] = "include-in-results_publishing"; /* OpenSearch Benchmark's */
    known[n] = NULL;
    int rc;
    if (strcmp(type, "bulk") == 0) {
        rc = bf__check_keys(&R->ck, op, opath, known, what, R->diag);
        double v = 0;
        int have = rc == BF_OK ? bf__check_num(&R->ck, op, opath, "bulk-size", 1, 1, " (documents)",
                                               what, &v, R->diag)
                               : rc;
        if (have < 0)
            return have;
        add_value(&R->batch, have ? v : 1000); /* the param-sources' default */
        rc = rally_bulk_task(R, t, NULL, opath, tpath, what);
        R->first_bulk = op;
    } else {
        rc = bf__check_keys(&R->ck, t, tpath ? tpath : "", BF__TASK_KEYS, what, R->diag);
        if (rc == BF_OK)
            rc = bf__check_keys(&R->ck, op, opath, known, what, R->diag);
        double cl = 1;
        if (rc == BF_OK && bf__check_num(&R->ck, t, tpath ? tpath : "", "clients", 1, 1, "", what,
                                         &cl, R->diag) < 0)
            rc = R->diag->code;
        if (rc == BF_OK) {
            add_value(&R->clients, cl);
            add_value(&R->rate, 0);
            if (R->first_bulk == NULL)
                R->first_bulk = op;
        }
    }
    if (rc != BF_OK || R->vec.active)
        return rc;
    rc = bf_vimport_bulk(&R->vctx, op, type, what, &R->vec, R->diag);
    if (rc == BF_OK && R->vec.index)
        R->vctx.loaded_index = R->vec.index;
    if (rc == BF_OK && R->vec.bulk_size > 0)
        add_value(&R->batch, R->vec.bulk_size);
    R->missing += R->vec.missing;
    return rc;
}

/* A later bulk task of other documents than the first bulk task's (cohere_vector's and
 * openai_vector's parallel-documents-indexing of their own corpus; OpenSearch Benchmark's
 * train-test, which loads train_index, then target_index with a trained model): one scenario
 * loads the first bulk task's documents, so it is named as not imported (1), not folded into
 * their cells' axes. The keys naming a task's documents: Rally's corpora and indices, a vector
 * data set's index and file. */
static int other_documents(rally_t *R, json_t *t, json_t *op, const char *type, int vk)
{
    if (R->first_bulk == NULL || (vk && !R->vec.active) || (!vk && R->vec.active))
        return 0;
    static const char *const RK[] = {"corpora", "indices", NULL};
    static const char *const VK[] = {"index", "data_set_path", "data_set_corpus", NULL};
    const char *const *keys = vk ? VK : RK;
    const char *differs = NULL;
    for (size_t k = 0; keys[k] && !differs; k++) {
        json_t *a = json_object_get(op, keys[k]), *b = json_object_get(R->first_bulk, keys[k]);
        /* json_equal(NULL, NULL) is 0: both absent are the same documents */
        if ((a || b) && !json_equal(a, b))
            differs = keys[k];
    }
    if (differs == NULL)
        return 0;
    const char *tn = bf__str_of(t, "name") ? bf__str_of(t, "name") : bf__str_of(op, "name");
    char *mine = json_dumps(json_object_get(op, differs), JSON_COMPACT | JSON_ENCODE_ANY);
    char *first =
        json_dumps(json_object_get(R->first_bulk, differs), JSON_COMPACT | JSON_ENCODE_ANY);
    char *why = bf_asprintf("%s (%s: %s %s, the first bulk task's %s; the scenario loads "
                            "the first bulk task's documents)",
                            tn ? tn : "?", type, differs, mine ? mine : "all of the track's",
                            first ? first : "all of the track's");
    json_array_append_new(R->acc.skipped, json_string(why));
    R->acc.total++;
    free(why);
    free(mine);
    free(first);
    return 1;
}

/* Every task of the schedule: its operation resolved by name ("operations"; a name without a
 * definition is one of Rally's built-in operations, whose name is its type), each bulk task
 * read by rally_bulk_task, every other accounted (account_task); a schedule without a bulk
 * task is an error. */
static int rally_bulk_tasks(rally_t *R)
{
    json_t *ops = json_object_get(R->track, "operations");
    R->acc.dir = R->dir;
    size_t fl = strlen(R->file);
    R->acc.pyname =
        fl >= 13 && strcmp(R->file + fl - 13, "workload.json") == 0 ? "workload.py" : "track.py";
    R->vctx = (bf_vimport_ctx_t){.dir = R->dir,
                                 .pyname = R->acc.pyname,
                                 .track = R->track,
                                 .vars = &R->acc.vars,
                                 .find_corpus = bf__find_corpus,
                                 .corpus_dir = R->opts->corpus_dir};
    R->acc.vctx = &R->vctx;
    size_t i;
    json_t *t;
    json_array_foreach(R->tasks, i, t)
    {
        const char *tpath = json_string_value(json_array_get(R->task_paths, i));
        char opath[1100];
        snprintf(opath, sizeof opath, "%s/operation", tpath ? tpath : "");
        json_t *op = json_object_get(t, "operation");
        if (json_is_string(op)) {
            const char *on = json_string_value(op);
            json_t *found = NULL, *o;
            size_t k;
            json_array_foreach(ops, k, o)
            {
                const char *n2 = bf__str_of(o, "name");
                if (n2 && strcmp(n2, on) == 0) {
                    found = o;
                    snprintf(opath, sizeof opath, "/operations/%zu", k);
                }
            }
            if (found == NULL) {
                bf__account_task(&R->acc, t, NULL, on, tpath);
                continue;
            }
            op = found;
        }
        const char *type = bf__str_of(op, "operation-type");
        const char *const *vkeys = NULL;
        int vk = bf_vimport_bulk_kind(&R->vctx, op, type, &vkeys);
        if (type == NULL || (strcmp(type, "bulk") != 0 && !vk)) {
            bf__account_task(&R->acc, t, op, type ? type : "?", tpath);
            /* indexing of another kind, named if no bulk task is found */
            if (type && (strstr(type, "bulk") || strstr(type, "ingest")) &&
                !strstr(R->other_bulk.data ? R->other_bulk.data : "", type))
                bf_buf_appendf(&R->other_bulk, "%s'%s'", R->other_bulk.len ? ", " : "", type);
            continue;
        }
        if (other_documents(R, t, op, type, vk))
            continue;
        R->acc.bulk++;
        R->acc.total++;
        R->nbulk++;
        const char *par = tpath ? strstr(tpath, "/parallel/") : NULL;
        if (par)
            json_array_append_new(R->bulk_blocks, json_stringn(tpath, (size_t)(par - tpath)));
        /* named for messages: the operation's name, else the task's, else its place */
        char what[400];
        const char *opn = bf__str_of(op, "name") ? bf__str_of(op, "name") : bf__str_of(t, "name");
        if (opn)
            snprintf(what, sizeof what, "bulk task '%s'", opn);
        else
            snprintf(what, sizeof what, "bulk task %zu of the schedule", i + 1);
        int rc = vk ? rally_vector_task(R, t, op, type, vkeys, opath, tpath, what)
                    : rally_bulk_task(R, t, op, opath, tpath, what);
        if (rc != BF_OK)
            return rc;
    }
    if (R->nbulk == 0)
        return bf_diag_set(R->diag, BF_E_INVAL,
                           "%s: the %s%s%s schedule has no bulk task "
                           "(operation-type \"bulk\"); bulkfleet imports bulk indexing%s%s%s",
                           R->file, R->chosen ? "challenge '" : "",
                           R->chosen ? R->chosen : "track's", R->chosen ? "'" : "",
                           R->other_bulk.len ? "; its indexing tasks are operation-type " : "",
                           R->other_bulk.len ? R->other_bulk.data : "",
                           R->other_bulk.len ? ", which bulkfleet does not send (it sends "
                                               "bulk bodies from a corpus file or a template)"
                                             : "");
    return BF_OK;
}

/* The track's "document-count" of documents entry e (corpus cn, entry k of corpus i; its
 * file src found at cf, bulk format or not) against the file: Rally reads the file by that
 * count, so another count (a truncated download, or another file's) is an error that says
 * both. */
static int rally_document_count(rally_t *R, json_t *e, size_t i, size_t k, const char *cn,
                                const char *src, const char *cf, int bulk)
{
    json_t *dc = json_object_get(e, "document-count");
    if (dc == NULL)
        return BF_OK;
    char dpath[200], where[1200];
    snprintf(dpath, sizeof dpath, "/corpora/%zu/documents/%zu", i, k);
    char *dwhat = bf_asprintf("corpus '%s', file '%s'", cn ? cn : "?", src);
    double want = 0;
    int g = bf__check_num(&R->ck, e, dpath, "document-count", 0, 1, " (documents)", dwhat, &want,
                          R->diag);
    free(dwhat);
    if (g < 0)
        return g;
    bf_corpus_t *cc = NULL;
    bf_diag_t cd = {0};
    if (bf_corpus_open_file(cf, bulk ? BF_CORPUS_BULK : BF_CORPUS_SOURCE, &cc, &cd) != BF_OK)
        return bf_diag_set(R->diag, cd.code ? cd.code : BF_E_PARSE, "%s", cd.msg);
    size_t have = bf_corpus_docs(cc) + bf_corpus_bad_count(cc);
    bf_corpus_destroy(&cc);
    if ((double)have < want && R->opts->allow_partial_corpus) {
        /* a prefix of the file, made on purpose (a small run of a big track) */
        if (R->npartial++ == 0) /* once; each file is in the notes */
            bf_warn("%s: corpus '%s': '%s' holds %zu of the track's "
                    "\"document-count\" %.0f documents (--allow-partial-corpus: "
                    "the scenario reads the %zu; every such file is named in "
                    "the scenario's notes)",
                    R->file, cn ? cn : "?", cf, have, want, have);
        bf_yaml_note(&R->notes,
                     "corpus file %s holds %zu of the track's "
                     "document-count %.0f (--allow-partial-corpus)",
                     cf, have, want);
    } else if ((double)have != want) {
        char dcp[260];
        snprintf(dcp, sizeof dcp, "%s/document-count", dpath);
        bf__jp_where(&R->pos, R->file, dcp, where, sizeof where);
        return bf_diag_set(R->diag, BF_E_INVAL,
                           "%s: corpus '%s': \"document-count\" is %.0f but '%s' "
                           "holds %zu documents: download the file again (a "
                           "truncated download?), or write \"document-count\": "
                           "%zu%s",
                           where, cn ? cn : "?", want, cf, have, have,
                           (double)have < want ? " (or, for a prefix you made on purpose, "
                                                 "import with --allow-partial-corpus)"
                                               : "");
    }
    return BF_OK;
}

/* One documents entry e of corpus c (entry k of corpus i): its file looked for where users
 * keep corpora (beside the track, Rally's and OpenSearch Benchmark's data directories,
 * --corpus-dir), one format for all files; a file not downloaded yet is a warning and a note
 * (validate refuses it later), a downloaded one is checked by rally_document_count. The file
 * and its target index are added. */
static int rally_corpus_file(rally_t *R, json_t *c, json_t *e, size_t i, size_t k)
{
    const char *cn = bf__str_of(c, "name");
    const char *src = bf__str_of(e, "source-file");
    const char *target = bf__str_of(e, "target-index") ? bf__str_of(e, "target-index")
                                                       : bf__str_of(c, "target-index");
    if (target == NULL)
        target = R->only_index;
    json_t *want_indices = json_object_get(R->first_bulk, "indices");
    if (want_indices && !bf__name_listed(want_indices, target ? target : ""))
        return BF_OK;
    if (src == NULL)
        return bf_diag_set(R->diag, BF_E_INVAL,
                           "%s: corpus '%s', documents entry %zu has no source-file", R->file,
                           cn ? cn : "?", k + 1);
    json_t *fmt = json_object_get(e, "includes-action-and-meta-data");
    if (fmt == NULL)
        fmt = json_object_get(c, "includes-action-and-meta-data");
    int bf = json_is_true(fmt);
    if (R->bulk_format >= 0 && bf != R->bulk_format)
        return bf_diag_set(R->diag, BF_E_INVAL,
                           "%s: corpus '%s': '%s' %s action-and-meta-data lines and an "
                           "earlier file does not; one scenario corpus has one format "
                           "(import the files separately with --challenge, or make them "
                           "alike)",
                           R->file, cn ? cn : "?", src, bf ? "includes" : "has no");
    R->bulk_format = bf;
    const char *corpus_dir = R->opts->corpus_dir;
    char *cf = bf__find_corpus(R->dir, cn ? cn : "", src, corpus_dir);
    if (cf == NULL) {
        const char *url =
            bf__str_of(e, "base-url") ? bf__str_of(e, "base-url") : bf__str_of(c, "base-url");
        cf = bf_asprintf("%s/%s", R->dir, src);
        /* the file's own address, as Rally downloads it: <base-url>/<source-file> */
        size_t ul = url ? strlen(url) : 0;
        while (ul > 0 && url[ul - 1] == '/')
            ul--;
        char *get =
            url ? bf_asprintf(": curl -fL -o '%s' %.*s/%s", cf, (int)ul, url, src) : bf_strdup("");
        bf_buf_t looked;
        bf_buf_init(&looked, 0);
        char *caches[MAX_CACHES];
        size_t nc = bf__corpus_caches(caches);
        for (size_t ci = 0; ci < nc; ci++) {
            bf_buf_appendf(&looked, ", %s/%s", caches[ci], cn ? cn : "?");
            free(caches[ci]);
        }
        bf_warn("%s: corpus '%s': '%s' is not downloaded yet (looked in %s%s%s%s, each "
                "also without its compression suffix); the scenario names %s: download "
                "it there before validate / run%s",
                R->file, cn ? cn : "?", src, R->dir, looked.len ? looked.data : "",
                corpus_dir ? ", " : "", corpus_dir ? corpus_dir : "", cf, get);
        bf_buf_cleanup(&looked);
        bf_yaml_note(&R->notes, "corpus file not downloaded yet: %s (validate and run need it)%s",
                     cf, get);
        free(get);
        R->missing++;
    } else {
        struct stat cst;
        stat(cf, &cst);
        R->ship_bytes += (uint64_t)cst.st_size;
        int rc = rally_document_count(R, e, i, k, cn, src, cf, bf);
        if (rc != BF_OK) {
            free(cf);
            return rc;
        }
    }
    json_array_append_new(R->files, json_string(cf));
    json_array_append_new(R->file_targets, json_string(target ? target : ""));
    free(cf);
    if (target && !bf__name_listed(R->targets, target))
        json_array_append_new(R->targets, json_string(target));
    return BF_OK;
}

/* The corpora: every documents file of the corpora the (first) bulk operation names (all of
 * the track's when it names none), only those whose target is in its "indices" when it has
 * that filter; Rally's corpus-level properties are defaults for its documents. None at all
 * is an error. */
static int rally_corpora(rally_t *R)
{
    if (R->vec.active) { /* the documents are the vector task's template */
        if (R->vec.index)
            json_array_append_new(R->targets, json_string(R->vec.index));
        return BF_OK;
    }
    json_t *want_corpora = json_object_get(R->first_bulk, "corpora");
    json_t *want_indices = json_object_get(R->first_bulk, "indices");
    json_t *corpora = json_object_get(R->track, "corpora"), *c;
    size_t i;
    /* Rally (and OpenSearch Benchmark) derive a documents entry's target-index when the track
     * defines exactly one index (neural_search's corpora name none) */
    json_t *track_indices = json_object_get(R->track, "indices");
    R->only_index = json_array_size(track_indices) == 1
                        ? bf__str_of(json_array_get(track_indices, 0), "name")
                        : NULL;
    json_array_foreach(corpora, i, c)
    {
        const char *cn = bf__str_of(c, "name");
        if (!json_is_null(want_corpora) && want_corpora != NULL &&
            !bf__name_listed(want_corpora, cn ? cn : ""))
            continue;
        json_t *dd = json_object_get(c, "documents"), *e;
        size_t k;
        json_array_foreach(dd, k, e)
        {
            int rc = rally_corpus_file(R, c, e, i, k);
            if (rc != BF_OK)
                return rc;
        }
    }
    if (json_array_size(R->files) == 0) {
        char *wc = want_corpora ? json_dumps(want_corpora, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        char *wi = want_indices ? json_dumps(want_indices, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        int empty = (wc && strstr(wc, "\"\"")) || (wi && strstr(wi, "\"\""));
        const char *ps = bf__str_of(R->first_bulk, "param-source");
        int rc = bf_diag_set(R->diag, BF_E_INVAL,
                             "%s: the bulk operation's corpora have no documents file%s (the "
                             "operation names corpora %s, indices %s; see the track's "
                             "\"corpora\" and the operation's \"corpora\" / \"indices\")%s",
                             R->file, want_indices ? " for its indices" : "", wc ? wc : "(all)",
                             wi ? wi : "(any)",
                             empty ? "; an empty name is a track parameter without a default: "
                                     "give the track's parameters with --track-params "
                                     "FILE.json (a workload's params/*.json)"
                             : ps  ? "; the bulk operation takes its documents from the "
                                     "param-source of the track's own Python (track.py), which "
                                     "bulkfleet does not run: write a corpus file, or a template "
                                     "(docs/scenario.md)"
                                   : "");
        free(wc);
        free(wi);
        return rc;
    }
    return BF_OK;
}

/* A note naming the track's indices no imported bulk task writes (nyc_taxis' 4 lookup
 * indices). */
static void rally_other_indices(rally_t *R, json_t *indices)
{
    bf_buf_t other;
    bf_buf_init(&other, 0);
    size_t nother = 0, i;
    json_t *c;
    json_array_foreach(indices, i, c)
    {
        const char *in = bf__str_of(c, "name");
        if (in == NULL || (R->target && strcmp(in, R->target) == 0) ||
            bf__name_listed(R->targets, in))
            continue;
        bf_buf_appendf(&other, "%s%s", nother++ ? ", " : "", in);
    }
    bf_buf_t mine;
    bf_buf_init(&mine, 0);
    if (json_array_size(R->targets))
        append_names(&mine, R->targets);
    else
        bf_buf_appendz(&mine, R->target ? R->target : "its index");
    if (nother)
        bf_yaml_note(&R->notes,
                     "not imported: the track's other %zu ind%s (%s): the imported "
                     "bulk task does not write %s; the scenario creates and loads %s "
                     "only (import another challenge, or write a scenario per index)",
                     nother, nother == 1 ? "ex" : "ices", other.data, nother == 1 ? "it" : "them",
                     mine.data);
    bf_buf_cleanup(&mine);
    bf_buf_cleanup(&other);
}

/* The data stream a vector task writes (Rally's random_vector): the track's composable template
 * whose index-pattern matches it (else its first), rendered, as index.template; its settings'
 * shard and replica counts become the shards / replicas axes. */
static int rally_vector_template(rally_t *R)
{
    json_t *cts = json_object_get(R->track, "composable-templates"), *c, *hit = NULL;
    size_t i;
    json_array_foreach(cts, i, c)
    {
        const char *pat = bf__str_of(c, "index-pattern");
        size_t pl = pat ? strlen(pat) : 0;
        if (hit == NULL || (pat && R->target && pl > 0 && pat[pl - 1] == '*' &&
                            strncmp(pat, R->target, pl - 1) == 0))
            hit = c;
    }
    const char *tf = bf__str_of(hit, "template");
    if (tf == NULL)
        return BF_OK; /* the note on data streams says what to write */
    char *tp = bf_asprintf("%s/%s", R->dir, tf);
    int rc = load_json_at(&R->tsrc, tp, tf, &R->vtemplate, NULL, NULL, R->diag);
    free(tp);
    if (rc != BF_OK)
        return rc;
    R->vtemplate_name = bf__str_of(hit, "name");
    json_t *tmpl = json_object_get(R->vtemplate, "template");
    json_t *st = json_object_get(tmpl, "settings");
    if (json_is_object(st))
        json_object_set_new(tmpl, "settings", bf__split_settings(st, &R->shards, &R->replicas));
    bf_yaml_note(&R->notes,
                 "the vector task writes the data stream %s: created from the track's "
                 "composable template %s (%s) as index.template; its shard and replica counts "
                 "are the shards / replicas axes",
                 R->target ? R->target : "?", R->vtemplate_name ? R->vtemplate_name : "?", tf);
    return BF_OK;
}

/* The index and its body: the bulk task's first target (else the track's first index), its
 * body file's settings (shards and replicas become matrix axes) and mappings; notes for data
 * streams and for a bulk task that writes several indices (index.count, round-robin). */
static int rally_index(rally_t *R)
{
    R->shards = 1;
    R->replicas = 0;
    R->ntargets = json_array_size(R->targets);
    R->target = R->ntargets ? json_string_value(json_array_get(R->targets, 0)) : NULL;
    json_t *indices = json_object_get(R->track, "indices"), *ix = NULL, *c;
    size_t i;
    json_array_foreach(indices, i, c)
    {
        const char *in = bf__str_of(c, "name");
        if (R->target == NULL || (in && strcmp(in, R->target) == 0)) {
            ix = c;
            break;
        }
    }
    if (R->target == NULL)
        R->target = bf__str_of(ix, "name");
    if (R->vec.data_stream && ix == NULL) {
        int rc = rally_vector_template(R);
        if (rc != BF_OK)
            return rc;
    }
    if (R->target == NULL && json_object_get(R->track, "data-streams") && !R->vtemplate)
        bf_yaml_note(&R->notes, "the track writes to data streams; set index.template "
                                "with data_stream: {} (docs/scenario.md) to do the same");
    const char *body_file = bf__str_of(ix, "body");
    if (body_file) {
        char *bp = bf_asprintf("%s/%s", R->dir, body_file);
        int rc = load_json_at(&R->tsrc, bp, body_file, &R->body, NULL, NULL, R->diag);
        free(bp);
        if (rc != BF_OK)
            return rc;
        R->settings =
            bf__split_settings(json_object_get(R->body, "settings"), &R->shards, &R->replicas);
    }
    rally_other_indices(R, indices);
    /* several targets: each file into its own index, as Rally does, when every file has its
     * own (http_logs' seven days); else round-robin over index.count names, said */
    R->by_file = R->ntargets > 1 && json_array_size(R->file_targets) == R->ntargets;
    if (R->by_file) {
        bf_buf_t names;
        bf_buf_init(&names, 0);
        append_names(&names, R->file_targets);
        bf_yaml_note(&R->notes,
                     "the bulk task writes %zu indices, one per corpus file (%s): here too, with "
                     "their names (index.names) and each file's documents in its own index "
                     "(document.corpus.indices: by_file), all created with the body of %s; each "
                     "client reads a contiguous slice of the files one after the other, where "
                     "Rally gives each client a slice of every file (so Rally's clients write "
                     "one index at a time, bulkfleet's may write several at once)",
                     R->ntargets, names.data ? names.data : "", R->target);
        bf_buf_cleanup(&names);
        size_t ti;
        json_t *tv;
        json_array_foreach(indices, ti, tv)
        {
            const char *in = bf__str_of(tv, "name");
            if (in && bf__name_listed(R->targets, in) && bf__str_of(tv, "body") && body_file &&
                strcmp(bf__str_of(tv, "body"), body_file) != 0)
                bf_yaml_note(&R->notes,
                             "index %s has its own body in the track (%s); here it is "
                             "created with %s's (%s)",
                             in, bf__str_of(tv, "body"), R->target, body_file);
        }
    } else if (R->ntargets > 1) {
        bf_buf_t names;
        bf_buf_init(&names, 0);
        append_names(&names, R->targets);
        bf_yaml_note(&R->notes,
                     "the bulk task writes %zu indices (%s); several files write one of them, so "
                     "here index.count: %zu indices named %s-0 .. %s-%zu with the body of %s, and "
                     "every file's documents go round-robin over all of them",
                     R->ntargets, names.data ? names.data : "", R->ntargets, R->target, R->target,
                     R->ntargets - 1, R->target);
        bf_buf_cleanup(&names);
    }
    return BF_OK;
}

/* Every task accounted for: the mapped ones' notes, the searches imported, each task not
 * imported named in the notes, and one line with the counts on stderr (a warning when some
 * were left out). */
static void rally_account(rally_t *R)
{
    if (R->vec.notes.len)
        bf_buf_appendz(&R->notes, R->vec.notes.data);
    task_acc *acc = &R->acc;
    if (acc->notes.len)
        bf_buf_appendz(&R->notes, acc->notes.data);
    size_t qi;
    json_t *q;
    json_array_foreach(acc->queries, qi, q)
    {
        const char *blk = bf__str_of(q, "block");
        if (blk && *blk && bf__name_listed(R->bulk_blocks, blk))
            acc->beside++;
        else
            acc->after++;
    }
    const char *rate = acc->all_rated && acc->rate_sum > 0
                           ? "target_rate: the sum of their target-throughputs, each query's "
                             "weight its target-throughput x 10, so each runs at its own rate"
                           : "weight 1 each, closed loop: not every search has a "
                             "target-throughput";
    if (acc->searches && acc->after == 0)
        bf_yaml_note(&R->notes,
                     "%zu search task%s imported as search.queries: Rally runs %s in a "
                     "parallel block with the bulk task, so here %s one mix beside the load "
                     "in each cell (%s; clients: the sum of the tasks' clients)",
                     acc->searches, acc->searches > 1 ? "s" : "", acc->searches > 1 ? "them" : "it",
                     acc->searches > 1 ? "they are" : "it is", rate);
    else if (acc->searches)
        bf_yaml_note(&R->notes,
                     "%zu search task%s imported as search.queries: Rally runs %s after "
                     "the load, one task after the other; here the load cells have no search "
                     "client (search_clients: 0) and one search-only cell after them "
                     "(concurrency: 0, the index the load left: search.recreate false) runs "
                     "them as one mix (%s; clients: the sum of the tasks' clients) for "
                     "search.duration%s",
                     acc->searches, acc->searches > 1 ? "s" : "", acc->searches > 1 ? "them" : "it",
                     rate,
                     acc->beside ? "; the ones in Rally's parallel block with the bulk task "
                                   "run there too, not beside the load"
                                 : "");
    size_t nskip = json_array_size(acc->skipped);
    bf_buf_t sk;
    bf_buf_init(&sk, 0);
    size_t si;
    json_t *sv;
    json_array_foreach(acc->skipped, si, sv)
    {
        bf_buf_appendf(&sk, "%s%s", si ? ", " : "", json_string_value(sv));
        bf_yaml_note(&R->notes, "not imported: task %s", json_string_value(sv));
    }
    char line[160];
    snprintf(line, sizeof line,
             "%zu tasks: %zu bulk, %zu search%s imported, %zu mapped to what each cell does",
             acc->total, acc->bulk, acc->searches, acc->searches == 1 ? "" : "es", acc->mapped);
    const char *chosen = R->chosen;
    if (nskip)
        bf_warn("%s: %s; %zu not imported: %s", chosen ? chosen : "schedule", line, nskip, sk.data);
    else
        bf_info("%s: %s; none left out", chosen ? chosen : "schedule", line);
    bf_yaml_note(&R->notes, "%s; %zu not imported", line, nskip);
    bf_buf_cleanup(&sk);
}

/* a target_rate axis is written: some bulk task has a target-throughput */
/* run.order when searches read the index the load left */
#define ORDER_SEQUENTIAL                                                                           \
    "sequential   # the load, then the searches on the index it left (also with run.repeat)"

static int rally_rated(const rally_t *R)
{
    return R->rate.n > 1 || (R->rate.n == 1 && R->rate.v[0] > 0);
}

/* The scenario's head (origin, notes), name, target and index (settings, mappings). */
static void rally_write_index(rally_t *R)
{
    bf_buf_t *y = &R->y;
    const char *chosen = R->chosen;
    const char *ixname = R->target ? R->target : R->base;
    /* the one place the production-name caution is said for the track's own name:
     * index.imported_name keeps validate and plan from repeating it (docs/scenario.md "index") */
    if (bf_cluster_production_like(ixname))
        bf_yaml_note(&R->notes,
                     "index.name %s is the track's own and looks like a production index "
                     "name: a run creates it, deletes only an index bulkfleet created and "
                     "refuses (exit 3, nothing deleted) an existing %s it did not create; "
                     "index.imported_name marks it as the track's, so validate and plan do not "
                     "warn about it (they do once index.name is changed)",
                     ixname, ixname);
    bf_yaml_comment(y, "Imported from %s by bulkfleet-coordinator import-rally%s%s%s.", R->file,
                    chosen ? " (challenge " : "", chosen ? chosen : "", chosen ? ")" : "");
    if (rally_rated(R))
        bf_yaml_comment(y, "Rally's target-throughput counts bulk requests/s; target_rate here "
                           "is docs/s (x bulk-size).");
    if (R->notes.len) {
        bf_yaml_comment(y, "Notes:");
        bf_buf_appendz(y, R->notes.data);
    }
    bf_yaml_kv(y, 0, "name", R->opts->name ? R->opts->name : R->base, BF_YQ_RAW);
    bf_yaml_map(y, 0, "target");
    bf_yaml_kv(y, 1, "hosts", "[\"${BF_TARGET:-http://127.0.0.1:9200}\"]", BF_YQ_RAW);
    bf_yaml_map(y, 0, "index");
    bf_yaml_kv(y, 1, "name", ixname, BF_YQ_RAW);
    bf_yaml_kv(y, 1, "imported_name", ixname, BF_YQ_RAW);
    bf_yaml_kv(y, 1, "recreate", "true", BF_YQ_RAW);
    if (R->by_file) {
        size_t nf = json_array_size(R->file_targets);
        const char **names = bf_calloc(nf + 1, sizeof *names);
        for (size_t f = 0; f < nf; f++)
            names[f] = json_string_value(json_array_get(R->file_targets, f));
        bf_yaml_key(y, 1, "names");
        bf_yaml_put_list(y, names, nf, BF_YQ_RAW);
        bf_buf_appendz(y, "\n");
        free(names);
    } else if (R->ntargets > 1) {
        bf_yaml_kvf(y, 1, "count", "%zu", R->ntargets);
    }
    if (R->settings && json_object_size(R->settings)) {
        bf_yaml_key(y, 1, "settings");
        bf__emit_json(y, R->settings);
        bf_buf_appendz(y, "\n");
    }
    if (R->vtemplate) {
        bf_yaml_map(y, 1, "template");
        bf_yaml_kv(y, 2, "name", R->vtemplate_name ? R->vtemplate_name : "bulkfleet-vectors",
                   BF_YQ_RAW);
        bf_yaml_key(y, 2, "body");
        bf__emit_json(y, R->vtemplate);
        bf_buf_appendz(y, "\n");
    }
    if (R->acc.force_merge)
        bf_yaml_kvf(y, 1, "force_merge", "%u   # the track's force-merge task, after each load",
                    R->acc.force_merge);
    json_t *mappings = json_object_get(R->body, "mappings");
    if (json_is_object(mappings) && json_object_size(mappings)) {
        bf_yaml_key(y, 1, "mappings");
        bf__emit_json(y, mappings);
        bf_buf_appendz(y, "\n");
    }
}

/* document: of a vector task (its template, id and routing) and run: (warmup, and the
 * time-period, else 60 s: its Rally task counts iterations, or reads a data set once, where a
 * cell runs for a time). */
static void rally_write_vector_run(rally_t *R)
{
    bf_buf_t *y = &R->y;
    bf_yaml_map(y, 0, "document");
    bf_yaml_kv(y, 1, "action", R->vec.action, BF_YQ_RAW);
    if (R->vec.id)
        bf_yaml_kv(y, 1, "id", R->vec.id, BF_YQ_DQ_ENV);
    if (R->vec.routing)
        bf_yaml_kv(y, 1, "routing", R->vec.routing, BF_YQ_DQ_ENV);
    bf_yaml_kv(y, 1, "source", R->vec.source, BF_YQ_DQ_ENV);
    bf_yaml_map(y, 0, "run");
    bf_yaml_kvf(y, 1, "warmup", "%.0fs", R->warmup_s > 0 ? R->warmup_s : 0);
    if (R->vec.once && R->period_s <= 0)
        bf_yaml_kvf(y, 1, "duration", "%ds%s", PASSES_ONCE_DURATION_S,
                    "   # the data set is sent once (passes: 1); the cell ends when it is "
                    "sent (this is only a bound)");
    else
        bf_yaml_kvf(y, 1, "duration", "%.0fs%s", R->period_s > 0 ? R->period_s : 60.0,
                    R->period_s > 0 ? ""
                                    : "   # the task counts iterations or reads its data set "
                                      "once; a cell runs for a time");
    if (R->acc.searches && R->acc.after)
        bf_yaml_kv(y, 1, "order", ORDER_SEQUENTIAL, BF_YQ_RAW);
}

/* document: (the corpus files: local_path past what the coordinator ships, its format, read
 * once or in a loop for a time-period) and run: (warmup, and a duration: the time-period, a
 * corpus read once, or the searches' longest time-period, else 60 s, when searches keep the
 * cell running). */
static void rally_write_run(rally_t *R)
{
    bf_buf_t *y = &R->y;
    int local = R->ship_bytes > BF_MAX_CORPUS_SHIP_BYTES;
    if (R->acc.vars.len) { /* what the searches written from the track's Python draw */
        bf_yaml_map(y, 0, "variables");
        bf_buf_appendz(y, R->acc.vars.data);
    }
    if (R->vec.active) {
        rally_write_vector_run(R);
        return;
    }
    bf_yaml_map(y, 0, "document");
    bf_yaml_kv(y, 1, "action", "index", BF_YQ_RAW);
    bf_yaml_map(y, 1, "corpus");
    /* double-quoted (JSON escapes are YAML's too): a path may hold spaces, '#' or ': ' */
    const char *pkey = local ? "local_path" : "path";
    size_t nfiles = json_array_size(R->files);
    if (nfiles == 1)
        bf_yaml_kv(y, 2, pkey, json_string_value(json_array_get(R->files, 0)), BF_YQ_DQ);
    else
        bf_yaml_map(y, 2, pkey);
    for (size_t f = 0; nfiles > 1 && f < nfiles; f++)
        bf_yaml_item(y, 3, json_string_value(json_array_get(R->files, f)), BF_YQ_DQ);
    double period_s = R->period_s;
    bf_yaml_kv(y, 2, "format", R->bulk_format == 1 ? "bulk" : "source", BF_YQ_RAW);
    bf_yaml_kv(y, 2, "passes", period_s > 0 ? "loop" : "1", BF_YQ_RAW);
    if (R->by_file)
        bf_yaml_kv(y, 2, "indices", "by_file   # each file into its own index (index.names)",
                   BF_YQ_RAW);
    const task_acc *acc = &R->acc;
    /* a corpus read once is read whole: the cell ends when it is read, the duration only
     * bounds it (searches beside the load end with it, as the bulk task ends Rally's block) */
    double dur = period_s > 0 ? period_s : (double)PASSES_ONCE_DURATION_S;
    bf_yaml_map(y, 0, "run");
    bf_yaml_kvf(y, 1, "warmup", "%.0fs", R->warmup_s > 0 ? R->warmup_s : 0);
    bf_yaml_kvf(y, 1, "duration", "%.0fs%s", dur,
                period_s > 0 ? ""
                             : "   # no time-period: the corpus is read once, whole; the cell "
                               "ends when it is read (this is only a bound)");
    if (acc->searches && acc->after)
        /* the search-only cell reads the index the load cell left: rounds would shuffle it
         * before the load once run.repeat is raised */
        bf_yaml_kv(y, 1, "order", ORDER_SEQUENTIAL, BF_YQ_RAW);
}

/* search: (clients, target_rate, the queries with paging) and matrix: (shards, replicas,
 * batch_size, concurrency, target_rate axes). */
static void rally_write_search_matrix(rally_t *R)
{
    bf_buf_t *y = &R->y;
    const task_acc *acc = &R->acc;
    if (acc->searches) {
        bf_yaml_map(y, 0, "search");
        bf_yaml_kvf(y, 1, "clients", "%.0f", acc->sum_clients >= 1 ? acc->sum_clients : 1);
        if (acc->all_rated && acc->rate_sum > 0)
            bf_yaml_kvf(y, 1, "target_rate", "%.0f", acc->rate_sum < 1 ? 1 : acc->rate_sum);
        if (acc->after) {
            bf_yaml_kvf(y, 1, "warmup",
                        "%.0fs   # the search-only cell's (run.warmup is the load's)",
                        acc->search_warmup > 0 ? acc->search_warmup : 10);
            bf_yaml_kvf(y, 1, "duration", "%.0fs   # %s",
                        acc->search_period > 0 ? acc->search_period : 60,
                        acc->search_period > 0 ? "the searches' longest time-period"
                                               : "Rally's searches count iterations; "
                                                 "bulkfleet measures for a time");
        }
        bf_yaml_map(y, 1, "queries");
        size_t qi;
        json_t *q;
        json_array_foreach(acc->queries, qi, q)
        {
            bf_yaml_item_kvf(y, 2, "name", "%s   # Rally %s", bf__str_of(q, "name"),
                             bf__str_of(q, "type"));
            bf_yaml_kv(y, 3, "path", bf__str_of(q, "path"), BF_YQ_DQ_ENV);
            bf_yaml_kv(y, 3, "body", bf__str_of(q, "body"), BF_YQ_DQ_ENV);
            if (acc->all_rated && acc->rate_sum > 0) {
                /* its share of the mix is its own target-throughput's share of their sum */
                double w = json_real_value(json_object_get(q, "rate")) * 10;
                bf_yaml_kvf(y, 3, "weight", "%.0f   # target-throughput %g x 10",
                            w < 1         ? 1
                            : w > 1000000 ? 1000000
                                          : w,
                            json_real_value(json_object_get(q, "rate")));
            }
            if (json_object_get(q, "depth"))
                bf_yaml_kvf(y, 3, "paging", "{by: search_after, size: %.0f, depth: %.0f, pit: %s}",
                            json_real_value(json_object_get(q, "page_size")),
                            json_real_value(json_object_get(q, "depth")),
                            json_is_true(json_object_get(q, "pit")) ? "true" : "false");
        }
    }
    bf_yaml_map(y, 0, "matrix");
    bf_yaml_kvf(y, 1, "shards", "[%.0f]", R->shards);
    bf_yaml_kvf(y, 1, "replicas", "[%.0f]", R->replicas);
    bf__emit_axis(y, "batch_size", &R->batch, 1);
    bf__emit_axis(y, "concurrency", &R->clients, 1);
    if (rally_rated(R))
        bf__emit_axis(y, "target_rate", &R->rate, 1);
    if (acc->searches && acc->after) {
        /* Rally's order: the load, then the searches on the index it left */
        bf_yaml_kv(y, 1, "search_clients", "[0]   # the load alone, as Rally's bulk task",
                   BF_YQ_RAW);
        bf_yaml_kv(y, 1, "include", "  # then the searches, on the index the load left", BF_YQ_RAW);
        bf_yaml_flow_t f;
        bf_yaml_flow_open(&f, y, 2, NULL);
        bf_yaml_flow_kvf(&f, "shards", "%.0f", R->shards);
        bf_yaml_flow_kvf(&f, "replicas", "%.0f", R->replicas);
        bf_yaml_flow_kv(&f, "concurrency", "0", BF_YQ_RAW);
        bf_yaml_flow_kvf(&f, "search_clients", "%.0f",
                         acc->sum_clients >= 1 ? acc->sum_clients : 1);
        bf_yaml_flow_close(&f);
    }
}

int bf_import_rally(const char *path, const bf_rally_opts_t *opts, char **yaml, bf_diag_t *diag)
{
    static const bf_rally_opts_t none = {0};
    if (opts == NULL)
        opts = &none;
    *yaml = NULL;
    rally_t *R = bf_calloc(1, sizeof *R);
    R->opts = opts;
    R->diag = diag;
    R->tasks = json_array();
    R->task_paths = json_array();
    R->bulk_blocks = json_array();
    R->files = json_array();
    R->file_targets = json_array();
    R->targets = json_array();
    bf_buf_init(&R->y, 0);
    bf_buf_init(&R->notes, 0);
    bf_buf_init(&R->other_bulk, 0);
    R->ro = (bf_render_opts_t){.params = opts->track_params,
                               .build_flavor = opts->build_flavor,
                               .serverless_operator = opts->serverless_operator,
                               .distribution_version = opts->distribution_version};
    R->acc = (task_acc){.queries = json_array(), .skipped = json_array(), .all_rated = 1};
    bf_buf_init(&R->acc.notes, 0);
    bf_buf_init(&R->acc.vars, 0);
    R->warmup_s = -1;
    R->period_s = -1;
    R->bulk_format = -1;
    int rc = rally_open(R, path);
    if (rc == BF_OK)
        rc = rally_params(R);
    if (rc == BF_OK && !json_is_object(R->track))
        rc = bf_diag_set(diag, BF_E_INVAL, "%s: a track is a JSON object", R->file);
    if (rc == BF_OK) {
        rally_challenges(R);
        if (opts->list) {
            *yaml = rally_list(R);
            goto out;
        }
        rc = rally_schedule(R);
    }
    if (rc == BF_OK)
        rc = rally_bulk_tasks(R);
    if (rc == BF_OK)
        rc = rally_corpora(R);
    if (rc == BF_OK)
        rc = rally_index(R);
    if (rc == BF_OK) {
        rally_account(R);
        rally_write_index(R);
        rally_write_run(R);
        rally_write_search_matrix(R);
        *yaml = bf_buf_steal(&R->y);
        if (opts->corpus_missing)
            *opts->corpus_missing = R->missing;
    }
out:
    rally_cleanup(R);
    free(R);
    return rc;
}
