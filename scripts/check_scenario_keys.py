#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_scenario_keys.py — the loader's key table and docs/scenario.md list the same keys.

Reads every X(ID, "path", ...) row of BF__KEYS in common/scenario/bf_scenario_int.h (the one table the
loader walks, docs/internals/style.md rule 10) and the first column of every "| key | ..." table in docs/scenario.md
(rows under "## variables" name variables[].<key>). Fails, naming each key, when a table key is
documented nowhere (a section counts as documented when one of its keys is) or when the docs
describe a key the loader does not know (a typo, or a key that was removed). Keys written with
a <placeholder> (matrix.settings.<path>) are patterns, not checked.

usage: check_scenario_keys.py [SOURCE_DIR]   exit 0 ok, 1 mismatch, 2 cannot read the files
"""
import os
import re
import sys


def table_keys(path):
    keys = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            m = re.match(r'\s*X\(\s*[A-Z0-9_]+\s*,\s*"([^"]+)"', line)
            if m:
                keys[m.group(1)] = lineno
    return keys


def doc_keys(path):
    keys = {}
    section = ""
    in_key_table = False
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if line.startswith("## "):
                section = line[3:].strip()
            if not line.startswith("|"):
                in_key_table = False
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells and cells[0] == "key":
                in_key_table = True
                continue
            if not in_key_table or set(cells[0]) <= set("-: "):
                continue
            m = re.search(r"`([^`]+)`", cells[0])
            if not m:
                continue
            key = m.group(1)
            if section == "variables" and "." not in key and not key.startswith("variables"):
                key = "variables[]." + key
            keys.setdefault(key, lineno)
    return keys


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    table_path = os.path.join(src, "common", "scenario", "bf_scenario_int.h")
    docs_path = os.path.join(src, "docs", "scenario.md")
    try:
        table = table_keys(table_path)
        docs = doc_keys(docs_path)
    except OSError as e:
        print(f"check_scenario_keys: {e}", file=sys.stderr)
        return 2
    if not table:
        print(f"check_scenario_keys: {table_path}: no X(ID, \"path\", ...) rows found; did the "
              "BF__KEYS table change shape? update this script", file=sys.stderr)
        return 2
    bad = 0
    for key, lineno in sorted(table.items(), key=lambda kv: kv[1]):
        if key in docs:
            continue
        if any(d.startswith(key + ".") or d.startswith(key + "[]") for d in docs):
            continue  # a section: its keys are documented
        print(f"common/scenario/bf_scenario_int.h:{lineno}: scenario key '{key}' is not in "
              "docs/scenario.md: add a row for it to the key table of its section")
        bad += 1
    for key, lineno in sorted(docs.items(), key=lambda kv: kv[1]):
        if "<" in key or key in table:
            continue
        print(f"docs/scenario.md:{lineno}: '{key}' is documented as a scenario key but the "
              "loader's table (common/scenario/bf_scenario_int.h BF__KEYS) has no such key: fix the "
              "name or remove the row")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
