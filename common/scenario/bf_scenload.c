/* SPDX-License-Identifier: MIT */
/* bf_scenload.c — load a scenario file and say every mistake in it (validate, plan, run).
 *
 * One place for the list, below both programs, so that a user who runs `run` or `plan` (or the
 * agent's standalone `run`) on a file with several mistakes sees the same full list `validate`
 * gives, not the first of them alone.
 */
#include "bf_scenload.h"

#include "bf_error.h"
#include "bf_log.h"

#include <stdio.h>
#include <string.h>

/* one mistake said; the loader's closing "... and N more mistakes" counts as N */
static void on_load_error(void *ctx, const char *msg)
{
    const char *more = strstr(msg, ": ... and ");
    unsigned long long n = 0;
    if (more && sscanf(more, ": ... and %llu more", &n) == 1)
        *(size_t *)ctx += (size_t)n;
    else
        ++*(size_t *)ctx;
    bf_error("%s", msg);
}

int bf_scenload_file(const char *path, const bf_load_opts_t *opts, bf_scenario_t **sc)
{
    size_t nerrors = 0;
    int keys_failed = 0;
    bf_load_opts_t o = {0};
    if (opts != NULL)
        o = *opts;
    o.on_error = on_load_error;
    o.on_error_ctx = &nerrors;
    o.keys_failed = &keys_failed;
    bf_diag_t diag = {0};
    int rc = bf_scenario_load_file(path, &o, sc, &diag);
    if (rc == BF_OK)
        return BF_OK;
    if (nerrors == 0) /* else each was said as it was found */
        bf_error("%s", diag.msg[0] ? diag.msg : bf_strerror(rc));
    if (nerrors > 1 && keys_failed)
        bf_error("%s is not a valid scenario (%zu mistakes above; the sections with a "
                 "mistake in their keys get their other checks once it is fixed)",
                 path, nerrors);
    else if (nerrors > 1)
        bf_error("%s is not a valid scenario (%zu mistakes above)", path, nerrors);
    else if (keys_failed)
        bf_error("%s is not a valid scenario (its section gets its other checks once this "
                 "is fixed)",
                 path);
    else
        bf_error("%s is not a valid scenario", path);
    return rc;
}
