#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_funclen.py — unit tests of scripts/funclen.py: function bounds are
found past braces in strings, character literals, comments and preprocessor lines; initialisers
and struct bodies are not functions; a function over the limit fails the check with file:line,
name and length; a PENDING entry is reported but does not fail, and a stale one does."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.environ.get("BF_SOURCE_DIR",
                                               os.path.join(os.path.dirname(__file__), "..", "..")),
                                "scripts"))
import funclen  # noqa: E402

TRICKY = r'''/* SPDX */
#include <stdio.h>
#define OPEN {
#define MULTI(x) \
    do { x; } while (0)
static const int table[] = {1, 2, 3};
struct s {
    int a;
} one;
typedef enum { A, B } e_t;
static int f(int x)
{
    const char *s = "}}} { \" }";
    char c = '}';
    char d = '\'';
    /* } */
    // }
    return x + (c == '{');
}

__attribute__((unused)) static void
g(void) __attribute__((cold))
{
    if (1) {
        puts("{");
    }
}
int (*pick(int k))(int)
{
    return k ? f : f;
}
'''


def body(n):
    """A function named long_one whose lines, signature to closing brace, number n."""
    return "void long_one(void)\n{\n" + "    ;\n" * (n - 3) + "}\n"


class TestFunctions(unittest.TestCase):
    def test_bounds_past_literals_comments_and_macros(self):
        got = list(funclen.functions(TRICKY))
        self.assertEqual(got, [("f", 11, 19), ("g", 22, 27), ("pick", 28, 31)])

    def test_length_counts_signature_to_closing_brace(self):
        got = list(funclen.functions(body(201)))
        self.assertEqual(got, [("long_one", 1, 201)])


class TestCheck(unittest.TestCase):
    def tree(self, files):
        d = tempfile.mkdtemp(prefix="funclen.")
        for rel, text in files.items():
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        return d

    def run_main(self, argv, pending=None):
        saved = funclen.PENDING
        funclen.PENDING = pending or {}
        try:
            import io
            import contextlib
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = funclen.main(["funclen.py"] + argv)
            return rc, out.getvalue()
        finally:
            funclen.PENDING = saved

    def test_at_limit_passes_over_limit_fails(self):
        d = self.tree({"common/a.c": body(200), "tests/unit/t.c": body(900)})
        self.assertEqual(self.run_main([d]), (0, ""))
        d = self.tree({"common/a.c": "\n" + body(201)})
        rc, out = self.run_main([d])
        self.assertEqual(rc, 1)
        self.assertIn("common/a.c:2: long_one: 201 lines (limit 200)", out)

    def test_pending_reported_not_failed_and_stale_fails(self):
        d = self.tree({"agent/a.c": body(250)})
        rc, out = self.run_main([d], {"agent/a.c:long_one": "being split"})
        self.assertEqual(rc, 0)
        self.assertIn("agent/a.c:1: long_one: 250 lines (limit 200), pending: being split", out)
        rc, out = self.run_main(["--all", d], {"agent/a.c:long_one": "being split"})
        self.assertEqual(rc, 1)
        d = self.tree({"agent/a.c": body(100)})
        rc, out = self.run_main([d], {"agent/a.c:long_one": "being split"})
        self.assertEqual(rc, 1)
        self.assertIn("PENDING entry agent/a.c:long_one is within the limit now", out)


if __name__ == "__main__":
    unittest.main()
