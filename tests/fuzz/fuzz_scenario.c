/* SPDX-License-Identifier: MIT */
/* fuzz_scenario.c — libFuzzer target: any bytes as a scenario file.
 *
 * The loader must never crash, leak or hang; what it accepts must render valid JSON and survive
 * the resolved-text round trip (fuzz_common.h). Referenced files are served from memory: a
 * dictionary with quotes, a control character and invalid UTF-8, and a small JSON object for
 * .json paths.
 */
#include "fuzz_common.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The loader substitutes ${VAR} from the environment, so the environment is part of the input:
 * fix it, or a run is not repeatable (a CI machine's variables are not this machine's). The
 * values are the awkward ones a real environment holds: YAML indicators, quotes, a newline,
 * words YAML would type (true, null, 12), empty, and long. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static char long_value[5000];
    memset(long_value, 'v', sizeof long_value - 1);
    clearenv();
    setenv("HOME", "/root", 1);
    setenv("X", "x", 1);
    setenv("E", "", 1);
    setenv("T", "true", 1);
    setenv("N", "12", 1);
    setenv("Z", "null", 1);
    setenv("Q", "a\"b'c\\d", 1);
    setenv("C", "a: b # c", 1);
    setenv("L", "line1\nline2", 1);
    setenv("B", "[1, {x: 2}]", 1);
    setenv("D", "${X}", 1);
    setenv("S", " spaced ", 1);
    setenv("LONG", long_value, 1);
    return 0;
}

static int serve(void *ctx, const char *path, char **out, size_t *len)
{
    (void)ctx;
    size_t pl = strlen(path);
    const char *content;
    if (strstr(path, "missing"))
        return BF_E_NOTFOUND;
    if (pl >= 5 && strcmp(path + pl - 5, ".json") == 0)
        content = "{\"properties\": {\"a\": {\"type\": \"keyword\"}}, \"index_patterns\": [\"b*\"]}";
    else
        content = "alpha\nbe\"ta\\\n\x1b[1mgamma\r\n\xff\xfe\n12\n";
    *len = strlen(content);
    *out = bf_malloc(*len + 1);
    memcpy(*out, content, *len + 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bf_load_opts_t o = {.file_provider = serve, .cluster_nodes = 1};
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    if (bf_scenario_load_text((const char *)data, size, "fuzz.yaml", &o, &sc, &d) == 0) {
        check_rendering(sc);
        bf_scenario_destroy(&sc);
    } else if (d.msg[0] == '\0' || sc != NULL) {
        fuzz_fail("an error without a message, or a scenario with an error", d.msg);
    }
    return 0;
}
