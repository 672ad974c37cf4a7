/* SPDX-License-Identifier: MIT */
/* bf_import_yaml.h — the scenario YAML writer both importers share.
 *
 * import-loadgen and import-rally write the scenario as text (so it can carry comments: the
 * origin and the notes) and quote every scalar they copy from their input through these
 * functions. The quoting follows YAML 1.2 (https://yaml.org/spec/1.2.2/, chapter 7: plain,
 * single- and double-quoted flow scalars); a JSON string is a valid YAML double-quoted scalar.
 * Pure text functions: no I/O, no global state; safe from any thread on distinct buffers.
 */
#ifndef BF_IMPORT_YAML_H
#define BF_IMPORT_YAML_H

#include "bf_buf.h"
#include "bf_error.h"

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

#endif
