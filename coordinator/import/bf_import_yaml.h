/* SPDX-License-Identifier: MIT */
/* bf_import_yaml.h — the scenario YAML writer both importers share.
 *
 * import-loadgen and import-rally write the scenario as text (so it can carry comments: the
 * origin and the notes) through these functions: comments and notes, "key: value" lines at an
 * indentation depth (two spaces a level: nested maps), block list items, flow maps and flow
 * lists, and every scalar copied from their input quoted as the caller asks. The quoting follows
 * YAML 1.2 (https://yaml.org/spec/1.2.2/, chapter 7: plain, single- and double-quoted flow
 * scalars); a JSON string is a valid YAML double-quoted scalar. Pure text functions: no I/O, no
 * global state; safe from any thread on distinct buffers.
 */
#ifndef BF_IMPORT_YAML_H
#define BF_IMPORT_YAML_H

#include "bf_buf.h"
#include "bf_error.h"

#include <stddef.h>

/* bf_yaml_put_scalar — append the NUL-terminated string s to b as one YAML scalar: plain when
 * it is unambiguous (1..199 characters of [A-Za-z0-9_./-] and ':' not followed by a space, not
 * starting with '-', '.' or ':', not a YAML 1.1 boolean or null word), else single-quoted when
 * printable without leading or trailing space, else double-quoted (\" \\ \n \r \t, other
 * control bytes as \xHH). s is copied, never kept; the caller owns b and s. s must not be NULL.
 * Returns nothing: b grows as bf_buf_append does. Thread-safe for distinct b. */
void bf_yaml_put_scalar(bf_buf_t *b, const char *s);

/* bf_yaml_put_dq — append s to b as a YAML double-quoted scalar written as a JSON string
 * (jansson's escapes, non-ASCII kept as UTF-8). escape_env non-zero writes every "${" as "$${",
 * so the scenario loader's environment expansion leaves the text as it was. s is copied, never
 * kept; the caller owns b and s. Returns BF_OK, or BF_E_INVAL with nothing appended when s is
 * NULL or not valid UTF-8. Thread-safe for distinct b. */
int bf_yaml_put_dq(bf_buf_t *b, const char *s, int escape_env);

/* How a value is written. */
typedef enum bf_yaml_quote {
    BF_YQ_RAW,    /* as given: a number, a keyword, or text the caller already made YAML */
    BF_YQ_SCALAR, /* bf_yaml_put_scalar: plain, single- or double-quoted as the text needs */
    BF_YQ_DQ,     /* bf_yaml_put_dq(s, 0): a JSON string */
    BF_YQ_DQ_ENV, /* bf_yaml_put_dq(s, 1): a JSON string with every "${" written "$${" */
} bf_yaml_quote;

/* bf_yaml_put — append the value s to b quoted as q says (BF_YQ_DQ*: nothing is appended when s
 * is not valid UTF-8, as bf_yaml_put_dq). s must not be NULL; it is copied, never kept.
 * Thread-safe for distinct b. */
void bf_yaml_put(bf_buf_t *b, const char *s, bf_yaml_quote q);

/* bf_yaml_comment — append "# " and the printf-formatted text, then a newline: a comment line
 * of the scenario's head. The text must hold no newline. Thread-safe for distinct b. */
void bf_yaml_comment(bf_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* bf_yaml_note — append "#  - " and the printf-formatted text, then a newline: one item of the
 * head's "# Notes:" list. The text must hold no newline. Thread-safe for distinct b. */
void bf_yaml_note(bf_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* bf_yaml_map — append "key:" and a newline at depth (2 x depth spaces): a nested map's
 * opening line, its entries follow at depth + 1. key is written through bf_yaml_put_scalar.
 * Thread-safe for distinct b. */
void bf_yaml_map(bf_buf_t *b, int depth, const char *key);

/* bf_yaml_key — append "key: " at depth, without the value or the newline: for a value the
 * caller writes itself (a JSON document, a flow list), ending the line with "\n". key is
 * written through bf_yaml_put_scalar. Thread-safe for distinct b. */
void bf_yaml_key(bf_buf_t *b, int depth, const char *key);

/* bf_yaml_kv — append "key: value" and a newline at depth, the value quoted as q says.
 * val must not be NULL. Thread-safe for distinct b. */
void bf_yaml_kv(bf_buf_t *b, int depth, const char *key, const char *val, bf_yaml_quote q);

/* bf_yaml_kvf — append "key: " at depth, the printf-formatted value as is (a number, a word, a
 * flow collection, with or without a trailing "   # comment"), and a newline.
 * Thread-safe for distinct b. */
void bf_yaml_kvf(bf_buf_t *b, int depth, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* bf_yaml_item — append "- value" and a newline at depth: one item of a block list, the value
 * quoted as q says. Thread-safe for distinct b. */
void bf_yaml_item(bf_buf_t *b, int depth, const char *val, bf_yaml_quote q);

/* bf_yaml_item_kvf — append "- key: " at depth, the printf-formatted value as is, and a
 * newline: the first line of a block list item that is a map; its other entries follow with
 * bf_yaml_kv* at depth + 1. Thread-safe for distinct b. */
void bf_yaml_item_kvf(bf_buf_t *b, int depth, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* bf_yaml_put_list — append the n values as a flow list, "[a, b]", each quoted as q says
 * (n 0: "[]"). No newline. items must not hold NULL. Thread-safe for distinct b. */
void bf_yaml_put_list(bf_buf_t *b, const char *const *items, size_t n, bf_yaml_quote q);

/* A flow map being written: "{k: v, k: v}" on one line. Plain state the caller keeps on its
 * stack; b is borrowed for the map's lifetime. */
typedef struct bf_yaml_flow {
    bf_buf_t *b;
    size_t n; /* entries written */
} bf_yaml_flow_t;

/* bf_yaml_flow_open — start a flow map at depth: "key: {" when key is not NULL, "- {" (a block
 * list item) when it is. Thread-safe for distinct b. */
void bf_yaml_flow_open(bf_yaml_flow_t *f, bf_buf_t *b, int depth, const char *key);

/* bf_yaml_flow_key — append the separator and "key: " of the next entry, for a value the caller
 * writes itself (bf_yaml_put_list). */
void bf_yaml_flow_key(bf_yaml_flow_t *f, const char *key);

/* bf_yaml_flow_kv — append the next entry, "key: value", the value quoted as q says. */
void bf_yaml_flow_kv(bf_yaml_flow_t *f, const char *key, const char *val, bf_yaml_quote q);

/* bf_yaml_flow_kvf — append the next entry, "key: " and the printf-formatted value as is. */
void bf_yaml_flow_kvf(bf_yaml_flow_t *f, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* bf_yaml_flow_close — end the map: "}" and a newline. */
void bf_yaml_flow_close(bf_yaml_flow_t *f);

#endif
