/* SPDX-License-Identifier: MIT */
/* bf_scenload.h — load a scenario file and say every mistake in it (validate, plan, run).
 *
 * The coordinator's validate, plan, run and find-max and the agent's standalone run, render and
 * selftest report the same list:
 * the loader's key pass first, then every check of the sections without a key mistake
 * (bf_load_opts_t.on_error, docs/scenario.md "What validate checks"), each mistake as
 * "file:line:column: message" on stderr, then one closing line with their number.
 */
#ifndef BF_SCENLOAD_H
#define BF_SCENLOAD_H

#include "bf_scenario.h"

/* bf_scenload_file — bf_scenario_load_file(path, opts) with every mistake said through
 * bf_error in file order (at most 100, then how many more) and a closing line
 * "PATH is not a valid scenario (N mistakes above...)"; opts may be NULL (run's defaults), its
 * on_error, on_error_ctx and keys_failed are replaced. A failure before the list (the file
 * cannot be read, a YAML syntax error) is said once. Returns BF_OK and the scenario in *sc
 * (caller owns, bf_scenario_destroy; its warnings not said), or the loader's error code
 * (BF_E_INVAL, BF_E_PARSE, BF_E_NOTFOUND, BF_E_TOOBIG, BF_E_IO) with *sc NULL. Not
 * thread-safe (bf_log's stderr; the count is local). */
int bf_scenload_file(const char *path, const bf_load_opts_t *opts, bf_scenario_t **sc);

#endif
