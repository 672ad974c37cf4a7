#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""deps.py — the file-level dependency graph of bulkfleet's non-test C code, and its two rules.

    scripts/deps.py [--objects BUILD_DIR] [--dot FILE] [--list] [--root DIR]

A node is a file (common/scenario/bf_scenario.c, common/es/bf_es.h, agent/main.c). An arrow A -> B
means A needs B, from two sources:

  include  A (a .c or a .h) has `#include "B"`, B a header of this tree (not a system one);
  call     A's .c names a function or global that B's .c defines with external linkage (found
           in the sources with comments and strings removed; with --objects, also from `nm` on
           the object files of BUILD_DIR: which .o defines a symbol another .o leaves undefined).

Includes run from a file to a header and headers include only headers, so a loop through a
.c file is a loop of calls between .c files (a reads b and b reads a: neither can be read or
changed alone), and a loop of includes is one between headers.

It fails (exit 1) on
  1. a cycle: a set of files each reachable from the others (Tarjan's strongly connected
     components); it prints every arrow inside the set with why (include, or the names called),
     so the shared part can be moved to a file below all of them;
  2. an arrow upward (and an include of the generated protobuf headers below common/wire): the layers are common/base < common/scenario < common/es < common/wire
     < resultlib < agent, coordinator (a layer's files use their own layer and the layers to
     their left; agent/ and coordinator/ are the two programs and use nothing of each other:
     what both need lives below them). common/ is four libraries, one a subfolder, and a file
     directly in common/ belongs to none of them (a problem too); other folders are one layer
     with their subfolders (coordinator/import/ is the coordinator's).

Exit 0 when both hold, 1 when one fails, 2 on a usage error. scripts/lint.sh runs the source
mode; the unit test unit.deps runs it with --objects on the build tree, so the linker's view
is checked too. Folders proto/ (generated), tests/, bench/ are not part of the graph.
"""
import argparse
import os
import re
import subprocess
import sys

LAYERS = ["common/base", "common/scenario", "common/es", "common/wire", "resultlib", "agent",
          "coordinator"]
# agent and coordinator share a rank: neither may use the other
RANK = {"common/base": 0, "common/scenario": 1, "common/es": 2, "common/wire": 3, "resultlib": 4,
        "agent": 5, "coordinator": 5}
# the top folders of the graph; a folder split into layers names them as folder/subfolder
TOPS = ["common", "resultlib", "agent", "coordinator"]
SPLIT = {"common"}
PICTURE = "common/{base < scenario < es < wire} < resultlib < agent, coordinator"
# the generated protobuf code (proto/, built from proto/bulkfleet.proto) is the wire format: the
# lowest layer whose files may include its headers
PROTO_LAYER = "common/wire"

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module_of(path):
    """A node's name: the file relative to the tree ('common/scenario/bf_scenario.c')."""
    return os.path.relpath(os.path.join(SRC, path), SRC)


def layer_of(mod):
    """A node's layer: its top folder, or folder/subfolder for a folder split into layers
    ('common/es/bf_es.c' -> 'common/es', 'coordinator/import/x.c' -> 'coordinator'); None for
    a file of a split folder that sits in no layer (common/bf_x.c, common/misc/bf_y.c)."""
    parts = mod.split("/")
    if parts[0] in SPLIT:
        layer = "/".join(parts[:2]) if len(parts) > 2 else None
        return layer if layer in RANK else None
    return parts[0] if parts[0] in RANK else None


def strip_c(text):
    """Remove comments, string and character literals (keeps line structure)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" ")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


DEFINE_RE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)((?:[^\n]*\\\n)*[^\n]*)", re.M)
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TAG_RE = re.compile(r"\b(?:enum|struct|union)\s+\w+")
IDENT_RE = re.compile(r"\b[A-Za-z_]\w*\b")
# a definition at file scope: a line starting in column 0 (not static), ending in NAME( ... ) {
FUNC_DEF_RE = re.compile(r"^(?!static\b)(?![ \t#}])[^;{}()=\n]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{",
                         re.M)
# a global variable definition: column 0, not static/extern/typedef, ends in = or ;
VAR_DEF_RE = re.compile(
    r"^(?!static\b|extern\b|typedef\b|struct\s+\w+\s*\{|enum\b|union\b)(?![ \t#}])"
    r"[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*\s*(?:=|;)", re.M)


KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "do", "else", "case", "goto",
            "__attribute__", "defined", "_Static_assert", "static_assert"}


def sources():
    """Every non-test C file of the layer folders, relative to the tree."""
    files = []
    for d in TOPS:
        full = os.path.join(SRC, d)
        if not os.path.isdir(full):
            continue
        for root, dirs, fs in os.walk(full):
            dirs.sort()
            rel = os.path.relpath(root, SRC)
            for f in sorted(fs):
                if f.endswith((".c", ".h")):
                    files.append(rel + "/" + f)
    return files


def source_graph(files):
    """Arrows from includes and from names used; returns {(a, b): set(reasons)}."""
    by_header = {}
    for f in files:
        if f.endswith(".h"):
            by_header.setdefault(os.path.basename(f), []).append(f)
    text = {}
    for f in files:
        with open(os.path.join(SRC, f), encoding="utf-8", errors="replace") as fh:
            text[f] = fh.read()
    edges = {}

    def add(a, b, why):
        if a != b:
            edges.setdefault((a, b), set()).add(why)

    defines = {}  # symbol -> module
    stripped = {}
    macros = {}  # macro name -> identifiers of its body (X-macro tables name functions)
    for f in files:
        s = strip_c(text[f])
        stripped[f] = s
        for m in DEFINE_RE.finditer(s):
            macros.setdefault(m.group(1), set()).update(IDENT_RE.findall(m.group(2)))
        for inc in INCLUDE_RE.findall(text[f]):
            name = os.path.basename(inc)
            targets = by_header.get(name, [])
            if len(targets) > 1:  # same header name in two folders: prefer the including folder
                same = [t for t in targets if t.split("/")[0] == f.split("/")[0]]
                targets = same or targets
            for t in targets[:1]:
                add(module_of(f), module_of(t), "include " + name)
        if f.endswith(".c"):
            for m in FUNC_DEF_RE.finditer(s):
                if m.group(1) != "main":  # each program's own entry point
                    defines.setdefault(m.group(1), module_of(f))
            for m in VAR_DEF_RE.finditer(s):
                defines.setdefault(m.group(1), module_of(f))
    for f in files:
        if not f.endswith(".c"):
            continue
        me = module_of(f)
        # a tag (enum bf_compare_format) is a type, not the function of the same name
        names = set(IDENT_RE.findall(TAG_RE.sub(" ", stripped[f])))
        todo = [n for n in names if n in macros]
        while todo:  # what the macros it uses expand to, transitively
            for n in macros[todo.pop()]:
                if n not in names:
                    names.add(n)
                    if n in macros:
                        todo.append(n)
        for name in names:
            owner = defines.get(name) if name not in KEYWORDS else None
            if owner and owner != me:
                add(me, owner, "call " + name)
    return edges


def proto_includes(files):
    """Files below PROTO_LAYER that include a generated protobuf header: [(file, header)]."""
    out = []
    for f in files:
        layer = layer_of(module_of(f))
        if layer is None or RANK[layer] >= RANK[PROTO_LAYER]:
            continue
        with open(os.path.join(SRC, f), encoding="utf-8", errors="replace") as fh:
            for inc in INCLUDE_RE.findall(fh.read()):
                if inc.endswith(".pb-c.h"):
                    out.append((f, inc))
    return out


def object_graph(build):
    """Arrows from nm: the .o using a symbol -> the .o defining it."""
    objs = []
    for root, _dirs, fs in os.walk(build):
        for f in fs:
            if not f.endswith(".c.o"):
                continue
            p = os.path.join(root, f)
            rel = os.path.relpath(p, build).split(os.sep)
            # <folder>/CMakeFiles/<target>.dir/[<subfolder>/]<file>.c.o, <folder> under a layer
            # (an object whose source is gone, left by an earlier build, is not part of it)
            if "CMakeFiles" not in rel or rel[0] not in TOPS:
                continue
            i = rel.index("CMakeFiles")
            srcrel = "/".join(rel[:i] + rel[i + 2:])[:-2]  # 'x.c.o' -> 'x.c'
            if i + 2 < len(rel) and os.path.isfile(os.path.join(SRC, srcrel)):
                objs.append((srcrel, p))
    if not objs:
        print(f"deps: no object files of {', '.join(TOPS)} under {build}: build first "
              "(cmake --build BUILD_DIR) or leave out --objects", file=sys.stderr)
        sys.exit(2)
    defs, uses = {}, {}
    for src, p in objs:
        out = subprocess.run(["nm", "-P", p], capture_output=True, text=True, check=True).stdout
        mod = module_of(src)
        for line in out.splitlines():
            parts = line.split()
            if len(parts) < 2:
                continue
            sym, typ = parts[0], parts[1]
            if sym == "main":  # each program's own entry point, not an arrow between them
                continue
            if typ == "U":
                uses.setdefault(mod, set()).add(sym)
            elif typ in "TDBRCWVG":
                defs.setdefault(sym, set()).add(mod)
    edges = {}
    for mod, syms in uses.items():
        for s in syms:
            for owner in defs.get(s, ()):
                if owner != mod:
                    edges.setdefault((mod, owner), set()).add("nm " + s)
    return edges


def sccs(nodes, adj):
    """Tarjan's strongly connected components (iterative); returns those with more than one."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(adj.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(adj.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def short(reasons, n=4):
    r = sorted(reasons)
    return ", ".join(r[:n]) + (f" (+{len(r) - n} more)" if len(r) > n else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--objects", metavar="BUILD_DIR",
                    help="also read the object files of this build tree with nm")
    ap.add_argument("--dot", metavar="FILE", help="write the module graph as Graphviz dot")
    ap.add_argument("--list", action="store_true", help="print every arrow")
    ap.add_argument("--root", metavar="DIR", help="the source tree (default: this script's)")
    a = ap.parse_args()
    global SRC
    if a.root:
        SRC = os.path.abspath(a.root)

    files = sources()
    edges = source_graph(files)
    if a.objects:
        for k, v in object_graph(a.objects).items():
            edges.setdefault(k, set()).update(v)
    nodes = {module_of(f) for f in files}
    adj = {}
    for (x, y) in edges:
        adj.setdefault(x, set()).add(y)
        nodes.update((x, y))

    if a.list:
        for (x, y) in sorted(edges):
            print(f"{x} -> {y}: {short(edges[(x, y)])}")
    if a.dot:
        with open(a.dot, "w", encoding="utf-8") as fh:
            fh.write("digraph bulkfleet {\n  rankdir=BT;\n")
            for (x, y) in sorted(edges):
                fh.write(f'  "{x}" -> "{y}";\n')
            fh.write("}\n")

    problems = 0
    for mod in sorted(nodes):
        if layer_of(mod) is None:
            problems += 1
            print(f"deps: {mod} is in no layer: a file of common/ goes into one of its four "
                  f"libraries (base, scenario, es, wire), the lowest whose files it needs")
    for f, inc in proto_includes(files):
        problems += 1
        print(f"deps: {f} includes {inc}, the generated wire code, below {PROTO_LAYER}: keep "
              f"the protobuf form in {PROTO_LAYER} (as bf_sample.c packs the error table)")
    for comp in sccs(nodes, adj):
        problems += 1
        print(f"deps: cycle between {len(comp)} files: {' <-> '.join(comp)}")
        cs = set(comp)
        for (x, y) in sorted(edges):
            if x in cs and y in cs:
                print(f"    {x} -> {y}: {short(edges[(x, y)])}")
        print("    untie it: move what they share into a module below all of them")
    for (x, y) in sorted(edges):
        lx, ly = layer_of(x), layer_of(y)
        if lx is None or ly is None:
            continue
        if RANK[ly] > RANK[lx] or (RANK[ly] == RANK[lx] and lx != ly):
            problems += 1
            print(f"deps: {x} ({lx}) -> {y} ({ly}) runs upward ({short(edges[(x, y)])}): "
                  f"layers are {PICTURE}; move the shared part down to a layer below both")
    mode = "sources and object files" if a.objects else "sources"
    if problems:
        print(f"deps: FAIL, {problems} problem(s) in {len(nodes)} files, {len(edges)} arrows "
              f"({mode})")
        return 1
    print(f"deps: ok, {len(nodes)} files, {len(edges)} arrows, no cycle, no arrow upward or "
          f"between the programs ({mode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
