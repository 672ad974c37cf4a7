/* bf_bulkresp.c — placeholder until the parser lands. */
#include "bf_bulkresp.h"

#include "bf_error.h"

#include <string.h>

int bf_bulkresp_parse(const char *body, size_t len, uint32_t ndocs, bf_bulk_counts_t *counts,
                      uint8_t *item_class, char *first_error, size_t first_error_size)
{
    memset(counts, 0, sizeof *counts);
    return BF_E_PARSE;
}
