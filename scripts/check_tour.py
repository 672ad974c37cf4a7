#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_tour.py — docs/architecture.md names every source file of the product.

    scripts/check_tour.py [--root DIR]

Every .c file under common/, agent/, coordinator/ and resultlib/ (tests/, bench/ and the
generated proto/ code are not the product), and every header there without a .c of the same
name (a directory's shared internals, such as bf_worker_int.h), must be named in
docs/architecture.md: by its file name, or by its module name (bf_body for bf_body.c) as a word.
The tour is how a newcomer finds a file's job; a file missing from it is a file nobody is told
about. Exit 0 when every file is named, 1 naming each one that is not (with what to do), 2 on a
usage error.
"""
import argparse
import os
import re
import sys

FOLDERS = ["common", "agent", "coordinator", "resultlib"]
TOUR = "docs/architecture.md"


def sources(root):
    """The product's source files, relative to root, in a stable order."""
    out = []
    for top in FOLDERS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            names = set(files)
            for f in sorted(files):
                if f.endswith(".c") or (f.endswith(".h") and f[:-2] + ".c" not in names):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def named(text, path):
    """Whether the tour names path: its file name, or a .c's module name as a word."""
    base = os.path.basename(path)
    if base in text:
        return True
    if base.endswith(".c"):
        return re.search(r"(?<![\w.])" + re.escape(base[:-2]) + r"(?![\w])", text) is not None
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="the source tree (default: this script's)")
    a = ap.parse_args()
    try:
        with open(os.path.join(a.root, TOUR), encoding="utf-8") as fh:
            text = fh.read()
    except OSError as e:
        print(f"check_tour: cannot read {TOUR}: {e.strerror}", file=sys.stderr)
        return 2
    files = sources(a.root)
    missing = [f for f in files if not named(text, f)]
    for f in missing:
        print(f"check_tour: {f} is not named in {TOUR}: add it to the source tour's row of its "
              f"folder with its job in a few words")
    if missing:
        print(f"check_tour: FAIL, {len(missing)} of {len(files)} source files missing")
        return 1
    print(f"check_tour: ok, {len(files)} source files named in {TOUR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
