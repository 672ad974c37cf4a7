#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs_scenario — every complete scenario in docs/scenario.md (a ```yaml block with both `name:`
# and `document:` at the top level) passes `bulkfleet-coordinator validate`, so the reference
# never shows a file the program refuses. The blocks run in a folder holding the files they
# name (the example dictionaries and mappings, and a CA certificate made here).
source "$(dirname "$0")/lib.sh"

D="$TMP/docs"
mkdir -p "$D/certs"
cp -r "$SRC/examples/dict" "$SRC/examples/mappings" "$SRC/examples/corpus" "$D/"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=docs test CA" \
    -keyout "$D/certs/key.pem" -out "$D/certs/es-ca.pem" 2>/dev/null || fail "openssl"
cp "$D/certs/es-ca.pem" "$D/certs/ca.pem"
cp "$SRC/examples/dict/nginx.log" "$D/nginx.log"   # the import example keeps loadgen's layout
n=$(python3 - "$SRC/docs/scenario.md" "$D" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
n = 0
for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", text, re.S)):
    if re.search(r"^name:", block, re.M) and re.search(r"^document:", block, re.M):
        open(f"{sys.argv[2]}/snippet-{i:02d}.yaml", "w").write(block)
        n += 1
print(n)
PY
)
[ "$n" -ge 5 ] || fail "only $n complete scenarios found in docs/scenario.md"
for f in "$D"/snippet-*.yaml; do
    # the secrets the examples take from the environment
    ES_API_KEY=test-key ES_PASSWORD=test-password BF_TARGET=http://127.0.0.1:9 \
        "$COORD" validate "$f" > "$TMP/out" 2>&1 ||
        { cat "$f" "$TMP/out" >&2; fail "docs/scenario.md: $(basename "$f") does not validate"; }
    pass "$(basename "$f"): $(tail -1 "$TMP/out")"
done
