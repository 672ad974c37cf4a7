/* SPDX-License-Identifier: MIT */
/* bf_import_dsl.h — INFINI loadgen's DSL (loadgen.dsl, `loadgen -run`): recognised, and turned
 * into loadgen's YAML form for bf_import_loadgen (docs/internals/loadgen-compat.md).
 * Directory-internal (bf__import_ prefix). Pure functions of their input; thread-safe.
 */
#ifndef BF_IMPORT_DSL_H
#define BF_IMPORT_DSL_H

#include "bf_buf.h"
#include "bf_error.h"

#include <stddef.h>

/* bf__import_dsl_detect — 1 when text (len bytes; origin its file name, may be NULL) is
 * loadgen's DSL rather than its YAML (by the file's suffix, else by its first lines), else 0. */
int bf__import_dsl_detect(const char *text, size_t len, const char *origin);

/* bf__import_dsl_to_yaml — the DSL as loadgen's YAML form, appended to out. Returns 0, or
 * BF_E_PARSE / BF_E_INVAL with diag "origin:line: what is wrong" (origin names the DSL file). */
int bf__import_dsl_to_yaml(const char *text, size_t len, const char *origin, bf_buf_t *out,
                           bf_diag_t *diag);

#endif
