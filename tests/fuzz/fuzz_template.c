/* SPDX-License-Identifier: MIT */
/* fuzz_template.c — libFuzzer target: any bytes as the document template (source_file).
 *
 * A fixed scenario declares one variable of most types (numbers, strings from a hostile
 * dictionary, literals, uuid, times, random arrays) and takes its source from the fuzzer's
 * bytes. The compiler and the JSON check must never crash; a template they accept must render
 * valid JSON for another seed and survive the resolved-text round trip (fuzz_common.h).
 */
#include "fuzz_common.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *SCENARIO =
    "name: fuzz\n"
    "target: {hosts: [http://127.0.0.1:9200]}\n"
    "index: {name: 'f-{shards}', count: 2}\n"
    "variables:\n"
    "  - {name: n, type: sequence}\n"
    "  - {name: r, type: range, from: -5, to: 5}\n"
    "  - {name: s, type: file, path: dict.txt}\n"
    "  - {name: l, type: list, data: [1, 2.5, true, null]}\n"
    "  - {name: w, type: list, data: [a, \"b c\", \"d\\\"e\"]}\n"
    "  - {name: u, type: uuid}\n"
    "  - {name: x, type: sortable_id, scope: request}\n"
    "  - {name: t, type: now_local}\n"
    "  - {name: f, type: now_with_format, format: \"%Y \\\"%m\\\"\"}\n"
    "  - {name: a, type: random_array, variable_key: s, size: 3, variable_type: string, "
    "square_bracket: true}\n"
    "  - {name: b, type: random_array, variable_key: l, size: 2}\n"
    "document: {action: create, id: '$[[u]]', routing: 'r$[[n]]', source_file: source.json}\n"
    "matrix: {shards: [1, 2]}\n";

static const uint8_t *g_data;
static size_t g_size;

static int serve(void *ctx, const char *path, char **out, size_t *len)
{
    (void)ctx;
    if (strcmp(path, "source.json") == 0) {
        *len = g_size;
        *out = bf_malloc(g_size + 1);
        memcpy(*out, g_data, g_size);
        return 0;
    }
    const char *dict = "plain\nq\"uote\nback\\slash\n\t\x1b\x7f\n\xc0\xaf\xed\xa0\x80\n{\"j\": 1}\n";
    *len = strlen(dict);
    *out = bf_malloc(*len + 1);
    memcpy(*out, dict, *len + 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_data = data;
    g_size = size;
    bf_load_opts_t o = {.file_provider = serve};
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    if (bf_scenario_load_text(SCENARIO, strlen(SCENARIO), "fuzz.yaml", &o, &sc, &d) == 0) {
        check_rendering(sc);
        bf_scenario_destroy(&sc);
    } else if (d.msg[0] == '\0') {
        fuzz_fail("an error without a message", NULL);
    }
    return 0;
}
