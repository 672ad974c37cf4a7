#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_comments.py — product comments stand on their own.

    scripts/check_comments.py [--root DIR] [FILE...]

A comment in a product C file or header (common/, agent/, coordinator/, resultlib/) must not
lean on what a clone does not have: issue or pull-request numbers ("#37", "issue 41"), review
codes ("nu3 F4.4"), the design and style guides kept outside the repository ("DESIGN §3",
"STYLE 12", "STYLE §4") or their reference notes ("reference/es-api.md"). git log keeps the
history; docs/ (docs/internals/ for the internals) keeps what the code relies on. Only comments
are read: string literals and code are not. With FILEs, those files are checked instead (the
self-test's way). Exit 0 when none is found, 1 naming each (file:line: the text, what to do), 2
on a usage error.
"""
import argparse
import os
import re
import sys

FOLDERS = ["common", "agent", "coordinator", "resultlib"]

# (pattern, what it is)
RULES = [
    (re.compile(r"(?<![\w&#])#\d+\b"), "an issue or pull-request number"),
    (re.compile(r"\b(?:issue|issues|PR|pull request)\s*#?\d+", re.I), "an issue number"),
    (re.compile(r"\b[a-z]{1,4}\d+\s+F\d+(?:\.\d+)+\b"), "a review code"),
    (re.compile(r"\bDESIGN\s*§"), "a section of the design guide outside the repository"),
    (re.compile(r"\bSTYLE\s*(?:§\s*)?\d+"), "a rule of the style guide outside the repository"),
    (re.compile(r"\breference/[\w.-]+\.md\b"), "a reference note outside the repository"),
]

UPSTREAM = re.compile(r"[\w.-]+/[\w.-]+(?:\s+(?:PR|issue|pull request))?\s*$", re.I)


def comments(text):
    """(line, comment text) of every /* */ and // comment, string and char literals skipped."""
    out = []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in "\"'":
            q = c
            i += 1
            while i < n and text[i] != q and text[i] != "\n":
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            body = text[i + 2 : j]
            for k, part in enumerate(body.split("\n")):
                out.append((line + k, part))
            line += body.count("\n")
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i + 2 : j]))
            i = j
        else:
            i += 1
    return out


def product_files(root):
    for top in FOLDERS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".c", ".h")) and not f.endswith(".pb-c.c") and not f.endswith(".pb-c.h"):
                    yield os.path.join(d, f)


def check(path, shown):
    bad = 0
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    for line, body in comments(text):
        for rx, what in RULES:
            m = rx.search(body)
            # a public upstream thread is a citation anyone can follow:
            # "elastic/elasticsearch PR #137072", "opensearch-project/k-NN#3350"
            if m and UPSTREAM.search(body[: m.start()]):
                m = None
            if m:
                print(f"{shown}:{line}: comment cites {what} ('{m.group(0)}'): say what it stood "
                      "for in the comment itself, or point at a page under docs/; the commit "
                      "message keeps the number")
                bad += 1
                break
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    paths = a.files or list(product_files(root))
    bad = 0
    for p in paths:
        if not os.path.isfile(p):
            print(f"check_comments: {p}: no such file", file=sys.stderr)
            return 2
        bad += check(p, os.path.relpath(p, root) if not a.files else p)
    if bad:
        print(f"check_comments: {bad} comment(s) cite what a clone does not have")
        return 1
    print(f"check_comments: ok, {len(paths)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
