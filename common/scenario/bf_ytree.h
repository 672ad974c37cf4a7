/* SPDX-License-Identifier: MIT */
/* bf_ytree.h — a YAML document as a tree whose every node knows its file position
 * (bf_scenario_yaml.c, on libyaml).
 *
 * The scenario loader reads scenarios through it, and the loadgen importer reads loadgen
 * configurations: both report a mistake at "origin:line:col". Scalars keep their text after
 * ${VAR} resolution and whether they were quoted (YAML 1.2 core schema typing: bf_y_is_null,
 * bf_y_bool). Every node and string lives in the document's arena. Not thread-safe per document;
 * distinct documents are independent.
 */
#ifndef BF_YTREE_H
#define BF_YTREE_H

#include "bf_error.h"

#include <stddef.h>
#include <stdint.h>

#define BF_YAML_MAX_DEPTH 64       /* nesting deeper than this is refused (stack safety) */
#define BF_YAML_MAX_NODES 2000000u /* nodes in one document */

enum bf_ykind { BF_Y_SCALAR = 0, BF_Y_SEQ, BF_Y_MAP };

typedef struct bf_ynode bf_ynode_t;
struct bf_ynode {
    enum bf_ykind kind;
    uint32_t line, col; /* 1-based position of the node's first character */
    size_t start_char;  /* libyaml character index of the start (BOM excluded) */
    size_t end_char;    /* ... and of the end */
    /* scalars */
    char *value; /* after ${VAR} resolution; NUL-terminated */
    size_t len;
    int style;        /* yaml_scalar_style_t as parsed */
    int quoted;       /* written quoted or as a block, or tagged !!str: never typed */
    int env;          /* the value had ${...} substitutions */
    int secret;       /* redact in bf_scenario_redacted_text (set by the walker) */
    int url_userinfo; /* a URL: redact the password in user:password@ */
    /* collections */
    int flow;           /* written in flow style ([...] / {...}) */
    bf_ynode_t **items; /* sequence items; maps: key at 2i, value at 2i+1 */
    size_t n;           /* sequence items / map pairs */
};

typedef struct bf_yarena bf_yarena_t;

typedef struct bf_ydoc {
    const char *origin; /* file name for messages (borrowed) */
    const char *text;   /* the raw text (borrowed while loading) */
    size_t len;
    bf_ynode_t *root;
    bf_yarena_t *arena;    /* owns every node and string */
    const char *env_unset; /* value of an unset ${VAR} without default; NULL: an error */
    int env_warn;          /* unset ${VAR}: a stand-in and a warning (bf_load_opts_t) */
    char **unset_warnings; /* "line:col: VAR" of each stand-in (malloc'd) */
    size_t nunset;
    int in_url; /* resolving a scalar under a "hosts" key */
} bf_ydoc_t;

/* Parse one YAML document into a tree. 0, or BF_E_PARSE / BF_E_TOOBIG / BF_E_INVAL with diag
 * "origin:line:col: ...". Cleanup with bf_ydoc_cleanup in every case. */
int bf_ydoc_parse(bf_ydoc_t *doc, const char *text, size_t len, const char *origin,
                  bf_diag_t *diag);
void bf_ydoc_cleanup(bf_ydoc_t *doc);
/* Resolve ${VAR} and ${VAR:-default} in every scalar value ($${ is a literal ${). */
int bf_ydoc_resolve_env(bf_ydoc_t *doc, bf_diag_t *diag);
/* Emit the tree as YAML (caller frees). redact: secrets become "<redacted>". */
char *bf_ydoc_emit(const bf_ydoc_t *doc, int redact);
/* Map a byte offset inside scalar n's value to a file position. Exact when the value is the raw
 * text (plain or single-line quoted without escapes); otherwise the occurrence of `anchor`
 * (e.g. "$[[") preceding the offset is searched in the raw text; else the node start. */
void bf_ydoc_locate(const bf_ydoc_t *doc, const bf_ynode_t *n, size_t offset, const char *anchor,
                    uint32_t *line, uint32_t *col);
/* Arena string copy (lives as long as the doc). */
char *bf_ydoc_strdup(bf_ydoc_t *doc, const char *s, size_t len);

/* Scalar typing after YAML 1.2's core schema (plain scalars only; quoted are strings). */
int bf_y_is_null(const bf_ynode_t *n);
/* Returns 1 and sets *b for true/false/yes/no/on/off (any case), else 0. */
int bf_y_bool(const bf_ynode_t *n, int *b);
/* Map lookup by key; NULL if absent or n is not a map. */
const bf_ynode_t *bf_y_get(const bf_ynode_t *map, const char *key);
const char *bf_y_kind_name(const bf_ynode_t *n);

/* YAML node -> JSON value (caller decrefs): a map an object, a sequence an array, a plain
 * scalar typed by the core schema, a quoted one a string. */
struct json_t;
struct json_t *bf_y_to_json(const bf_ynode_t *n);
struct json_t *bf_y_scalar_to_json(const bf_ynode_t *n);

#endif
