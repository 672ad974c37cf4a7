#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""funclen.py — no C function outside tests/ is longer than a reader can hold (200 lines), and
no product C file longer than one job needs (1,500 lines).

docs/internals/style.md rule 19: a function over ~200 lines is a set of named steps. This reads every
*.c file of the source folders (common agent coordinator resultlib bench; tests/ is not
checked), finds each function definition and counts its lines from the line that names it to
the line of its closing brace, both counted. It fails naming every function over the limit as
file:line: name: N lines (limit 200), longest first.

The parser is ours, not a compiler's (so lint needs only python3): it blanks comments, string
and character literals and preprocessor lines (with their continuations) before it counts
braces, so a "{" in a string, a '}' literal or a #define cannot move a function's end. A
definition is a top-level "{" whose text before it ends with ")" (optionally followed by
__attribute__((...))) and is not an initialiser (no "=" in it) nor a struct/union/enum body.
Over the whole tree it finds the same functions and lengths as universal-ctags
--fields=+ne (1354 functions when it was written).

PENDING lists functions known to be over the limit while their split is under way: they are printed but do not fail the check. A PENDING entry whose function is now
within the limit, or no longer exists, fails the check so the list cannot go stale: delete
the entry. The list is to be empty when #27 is done.

Files: every *.c file of the product folders (common agent coordinator resultlib; not bench/
nor tests/) over FILE_LIMIT lines fails as file: N lines (limit 1500): a file that long holds
more than one job (docs/architecture.md names each file's); split it by job, as
bf_scenario_*.c and bf_findings_*.c are.

usage: funclen.py [--all] [--limit N] [SOURCE_DIR]
  --all      list every function over the limit, PENDING ones included, and fail on any
  --limit N  the limit in lines (default 200)
exit 0 ok, 1 a function over the limit (or a stale PENDING entry), 2 cannot read the files
"""
import os
import re
import sys

DIRS = ("common", "agent", "coordinator", "resultlib", "bench")
LIMIT = 200
PRODUCT_DIRS = ("common", "agent", "coordinator", "resultlib")
FILE_LIMIT = 1500

# "file:function" -> why it is allowed for now; see the docstring.
PENDING = {
}

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case"}


def block_comment(text, i, out):
    """Blank the /* comment */ that starts at i into out (newlines kept); return its end."""
    j = text.find("*/", i + 2)
    j = len(text) if j < 0 else j + 2
    out.append(re.sub(r"[^\n]", " ", text[i:j]))
    return j


def blank(text):
    """Return text with comments, string/char literals and preprocessor lines replaced by
    spaces (newlines kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if at_line_start and c == "#":
            # a preprocessor line, with backslash continuations
            while i < n:
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                if text[i] == "\n":
                    break
                # a comment starting on a directive line may run past it
                if text.startswith("/*", i):
                    i = block_comment(text, i, out)
                    continue
                out.append(" ")
                i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if text.startswith("/*", i):
            i = block_comment(text, i, out)
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if c == "\n":
            at_line_start = True
        out.append(c)
        i += 1
    return "".join(out)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def functions(text):
    """Yield (name, first_line, last_line) for each function definition in C source text."""
    code = blank(text)
    depth = 0
    stmt_start = 0  # where the current top-level declaration began
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c == "{":
            if depth == 0:
                head = code[stmt_start:i]
                fn = definition_name(head)
                close = matching_brace(code, i)
                if fn is not None:
                    name, name_off = fn
                    yield name, line_of(code, stmt_start + name_off), line_of(code, close)
                i = close + 1
                # a struct body is followed by its declarators up to ";"
                if fn is None:
                    continue
                stmt_start = i
                continue
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == ";" and depth == 0:
            stmt_start = i + 1
        i += 1


def matching_brace(code, open_pos):
    depth = 0
    for j in range(open_pos, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def definition_name(head):
    """The function name and its offset in head when head (the text of one top-level
    declaration up to its "{") is a function definition's signature, else None."""
    h = head.rstrip()
    # trailing attributes: ... ) __attribute__((...))
    while True:
        k = h.rfind("__attribute__")
        if k < 0 or not re.fullmatch(r"__attribute__\s*\(\(.*\)\)", h[k:], re.S):
            break
        if open_paren(h[k:]) != h[k:].index("("):
            break
        h = h[:k].rstrip()
    if "=" in h or not h.endswith(")"):
        return None
    return declarator_name(h)


def open_paren(text):
    """The offset of the "(" that matches the ")" text ends with, or -1."""
    depth = 0
    for j in range(len(text) - 1, -1, -1):
        if text[j] == ")":
            depth += 1
        elif text[j] == "(":
            depth -= 1
            if depth == 0:
                return j
    return -1


def declarator_name(h):
    """(name, offset) of the function declared by h, text ending with its parameter list."""
    j = open_paren(h)
    if j < 0:
        return None
    before = h[:j].rstrip()
    if before.endswith(")"):
        # a function returning a function pointer: int (*name(params))(params)
        k = open_paren(before)
        inner = declarator_name(before[k + 1 : -1].lstrip("* \t\n"))
        if inner is None:
            return None
        off = before.index(inner[0], k)
        return inner[0], off
    if re.search(r"\b(struct|union|enum)\s*\w*\s*$", before):
        return None
    m = re.search(r"([A-Za-z_]\w*)\s*$", before)
    if not m or m.group(1) in KEYWORDS:
        return None
    return m.group(1), m.start(1)


def scan(src, limit):
    """Every (length, file, line, name) over limit in the source folders of src."""
    over = []
    seen = set()
    for d in DIRS:
        root = os.path.join(src, d)
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for fname in sorted(filenames):
                if not fname.endswith(".c"):
                    continue
                path = os.path.join(dirpath, fname)
                rel = os.path.relpath(path, src)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for name, first, last in functions(text):
                    seen.add(rel + ":" + name)
                    length = last - first + 1
                    if length > limit:
                        over.append((length, rel, first, name))
    over.sort(key=lambda r: (-r[0], r[1], r[2]))
    return over, seen


def main(argv):
    args = argv[1:]
    show_all = False
    limit = LIMIT
    src = None
    while args:
        a = args.pop(0)
        if a == "--all":
            show_all = True
        elif a == "--limit" and args:
            limit = int(args.pop(0))
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            src = a
    if src is None:
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    try:
        over, seen = scan(src, limit)
    except OSError as e:
        print("funclen: cannot read the sources: %s" % e)
        return 2
    bad = 0
    over_keys = set()
    for length, rel, line, name in over:
        key = rel + ":" + name
        over_keys.add(key)
        if key in PENDING and not show_all:
            print("%s:%d: %s: %d lines (limit %d), pending: %s"
                  % (rel, line, name, length, limit, PENDING[key]))
            continue
        print("%s:%d: %s: %d lines (limit %d): split it into named steps (static functions,"
              " a header comment each)" % (rel, line, name, length, limit))
        bad = 1
    for d in PRODUCT_DIRS:
        for root, _, files in sorted(os.walk(os.path.join(src, d))):
            for f in sorted(files):
                if not f.endswith(".c"):
                    continue
                path = os.path.join(root, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    n = sum(1 for _ in fh)
                if n > FILE_LIMIT:
                    print("%s: %d lines (limit %d): split it by job (a file each, named in"
                          " docs/architecture.md)" % (os.path.relpath(path, src), n, FILE_LIMIT))
                    bad = 1
    if not show_all:
        for key, why in sorted(PENDING.items()):
            if key not in over_keys:
                state = "is within the limit now" if key in seen else "is not found"
                print("scripts/funclen.py: PENDING entry %s %s: delete the entry" % (key, state))
                bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
