/* SPDX-License-Identifier: MIT */
/* bf_scenario_diag.c — the scenario loader's diagnostics collector: every mistake as
 * "file:line:column: message", collected in file order when the caller wants them all
 * (validate), warnings kept with the scenario, and the strings the model keeps.
 *
 * The loader (bf_scenario.c), the key validators (bf_scenario_valid.c) and the matrix expansion
 * (bf_scenario_matrix.c) report through here, so none of them calls back into the loader.
 */
#include "bf_scenario_int.h"

#include "bf_mem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ------------------------------------------------------------------------------ */

int bf__err(bf__load_t *L, const bf_ynode_t *n, int code, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n)
        return bf_diag_set(L->diag, code, "%s:%u:%u: %s", L->origin, n->line, n->col, msg);
    return bf_diag_set(L->diag, code, "%s: %s", L->origin, msg);
}

/* "origin:LINE:COL: ..." -> LINE * 2^20 + COL, for sorting (0 when there is no position) */
static uint64_t msg_position(const bf__load_t *L, const char *msg)
{
    size_t ol = strlen(L->origin);
    if (strncmp(msg, L->origin, ol) != 0 || msg[ol] != ':')
        return 0;
    char *end = NULL;
    unsigned long line = strtoul(msg + ol + 1, &end, 10);
    if (end == NULL || *end != ':')
        return 0;
    unsigned long col = strtoul(end + 1, NULL, 10);
    return ((uint64_t)line << 20) + (col & 0xFFFFFu);
}

int bf__collect(bf__load_t *L, int rc)
{
    if (rc == BF_OK || L->opts == NULL || L->opts->on_error == NULL)
        return 0;
    if (L->diag->msg[0] == '\0' && L->nerrors > 0) /* its check group kept it (bf__gather) */
        return 1;
    if (L->nerrors < BF__MAX_COLLECTED) {
        L->errors = bf_realloc(L->errors, (L->nerrors + 1) * sizeof *L->errors);
        L->errors[L->nerrors].code = rc;
        L->errors[L->nerrors].msg = bf_strdup(L->diag->msg);
        L->errors[L->nerrors].pos = msg_position(L, L->diag->msg);
    }
    L->nerrors++;
    L->diag->code = BF_OK;
    L->diag->msg[0] = '\0';
    return 1;
}

int bf__gather(bf__load_t *L, int rc, int *first)
{
    if (rc == BF_OK || !bf__collect(L, rc))
        return rc;
    if (*first == BF_OK)
        *first = rc;
    return BF_OK;
}

int bf__report_collected(bf__load_t *L)
{
    size_t n = L->nerrors < BF__MAX_COLLECTED ? L->nerrors : BF__MAX_COLLECTED;
    /* a stable order for equal positions: insertion sort by position (n is small) */
    for (size_t i = 1; i < n; i++) {
        bf__collected_t e = L->errors[i];
        size_t j = i;
        while (j > 0 && L->errors[j - 1].pos > e.pos) {
            L->errors[j] = L->errors[j - 1];
            j--;
        }
        L->errors[j] = e;
    }
    for (size_t i = 0; i < n; i++)
        L->opts->on_error(L->opts->on_error_ctx, L->errors[i].msg);
    if (L->nerrors > n) {
        char more[128];
        snprintf(more, sizeof more, "%s: ... and %zu more mistakes", L->origin, L->nerrors - n);
        L->opts->on_error(L->opts->on_error_ctx, more);
    }
    return bf_diag_set(L->diag, L->errors[0].code, "%s", L->errors[0].msg);
}

void bf__warn(bf__load_t *L, const bf_ynode_t *n, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    bf_scenario_t *sc = L->sc;
    sc->warnings = bf_realloc(sc->warnings, (sc->nwarnings + 1) * sizeof *sc->warnings);
    sc->warnings[sc->nwarnings++] = n ? bf_asprintf("%s:%u:%u: %s", L->origin, n->line, n->col, msg)
                                      : bf_asprintf("%s: %s", L->origin, msg);
}

const char *bf__keep(bf_scenario_t *sc, const char *s)
{
    if (sc->nstrings == sc->cap_strings) {
        sc->cap_strings = sc->cap_strings ? sc->cap_strings * 2 : 32;
        sc->strings = bf_realloc(sc->strings, sc->cap_strings * sizeof *sc->strings);
    }
    sc->strings[sc->nstrings] = bf_strdup(s);
    return sc->strings[sc->nstrings++];
}
