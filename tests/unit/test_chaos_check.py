#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_chaos_check.py — unit tests of bench/chaos_check.py: a clean history passes,
and a history with each kind of violation fails with that invariant named; history_from reads
rows, samples, files and processes from a results directory."""

import copy
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.environ.get("BF_SOURCE_DIR",
                                               os.path.join(os.path.dirname(__file__), "..", "..")),
                                "bench"))
import chaos_check  # noqa: E402

ROW = {"type": "row", "docs_ok_all": 1000, "docs_unknown_all": 0, "docs_counted": 1000,
       "verified": True, "failed": False, "aborted": False, "degraded": False, "reason": ""}

CLEAN = {
    "seed": 7, "nfaults": 2, "duration": "40s",
    "cells": [{"id": "a", "index": "ia"}, {"id": "b", "index": "ib"}],
    "rows": {
        "a": dict(ROW),
        # an agent reset left 200 unknown, 150 of them indexed: not verified, nothing lost
        "b": dict(ROW, docs_ok_all=800, docs_unknown_all=200, docs_counted=950, verified=False,
                  reason="unverified: 200 documents of unknown outcome"),
    },
    "truth": {"ia": 1000, "ib": 950},
    "samples": {"a": [["local-1", 1], ["local-1", 2], ["local-2", 1]], "b": [["local-1", 1]]},
    "files": [{"path": "cells/a.ndjson", "bytes": 500, "lines": 4, "now_bytes": 500,
               "now_lines": 4, "now_complete": True}],
    "processes": [{"pid": 1234, "what": "agent local-1", "alive": False}],
    "faults": [{"t": 3.5, "kind": "kill_agent", "agent": "local-1"},
               {"t": 9.0, "kind": "mode", "mode": "reset", "for_s": 2}],
}


def violations(h):
    return chaos_check.check(h)


class CheckTest(unittest.TestCase):
    def test_clean_history_passes(self):
        self.assertEqual(violations(CLEAN), [])
        out = chaos_check.report(CLEAN, [])
        self.assertTrue(out.endswith("faults 2, invariant violations 0"), out)
        self.assertNotIn("reproduce", out)

    def bad(self, code, mutate):
        h = copy.deepcopy(CLEAN)
        mutate(h)
        v = violations(h)
        self.assertTrue(v, f"{code}: the history must fail")
        self.assertTrue(all(x.startswith(code + ":") for x in v), v)
        out = chaos_check.report(h, v)
        self.assertIn(f"{code} ", out)
        self.assertIn("VIOLATED", out)
        # a violation prints the seed and the schedule that reproduce it
        self.assertIn("bench/chaos.sh --seed 7 --faults 2 --duration 40s", out)
        self.assertIn('"kind": "kill_agent"', out)
        self.assertTrue(out.endswith(f"faults 2, invariant violations {len(v)}"), out)
        return v

    def test_i1_counted_twice(self):
        # the row says 1100 acknowledged, the target acknowledged 1000
        self.bad("I1", lambda h: h["rows"]["a"].update(docs_ok_all=1100, verified=False))

    def test_i2_silent_loss(self):
        # 950 acknowledged by the target, the row has 800 + 100 unknown: 50 vanished
        self.bad("I2", lambda h: h["rows"]["b"].update(docs_unknown_all=100))

    def test_i2_lost_agent_named_is_no_violation(self):
        h = copy.deepcopy(CLEAN)
        h["rows"]["b"].update(docs_unknown_all=0, degraded=True)
        self.assertEqual(violations(h), [])

    def test_i3_verified_but_count_differs(self):
        def m(h):
            h["rows"]["a"].update(docs_counted=1000)
            h["truth"]["ia"] = 1000
            h["rows"]["a"].update(docs_ok_all=1000)
            h["truth"]["ia"] = 1001  # the target holds one more: the count was not the truth
            h["rows"]["a"]["docs_unknown_all"] = 1
        self.bad("I3", m)

    def test_i3_verified_without_truth(self):
        self.bad("I3", lambda h: h["truth"].pop("ia"))

    def test_i4_file_gone(self):
        self.bad("I4", lambda h: h["files"][0].update(now_bytes=None, now_lines=None))

    def test_i4_file_truncated(self):
        self.bad("I4", lambda h: h["files"][0].update(now_bytes=300, now_lines=2))

    def test_i4_file_ends_in_half_line(self):
        self.bad("I4", lambda h: h["files"][0].update(now_bytes=520, now_lines=5,
                                                      now_complete=False))

    def test_i5_cell_without_row(self):
        self.bad("I5", lambda h: h["rows"].pop("b"))

    def test_i5_aborted(self):
        self.bad("I5", lambda h: h["rows"]["b"].update(aborted=True))

    def test_i5_failed_without_reason(self):
        self.bad("I5", lambda h: h["rows"]["b"].update(failed=True, reason=""))

    def test_i6_process_left(self):
        self.bad("I6", lambda h: h["processes"][0].update(alive=True))

    def test_i7_sample_twice(self):
        self.bad("I7", lambda h: h["samples"]["a"].append(["local-1", 2]))

    def test_main_exit_codes(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "h.json")
            with open(p, "w") as fh:
                json.dump(CLEAN, fh)
            self.assertEqual(chaos_check.main(["x", p]), 0)
            h = copy.deepcopy(CLEAN)
            h["processes"][0]["alive"] = True
            with open(p, "w") as fh:
                json.dump(h, fh)
            self.assertEqual(chaos_check.main(["x", p]), 1)
            with open(p, "w") as fh:
                fh.write("{not json")
            self.assertEqual(chaos_check.main(["x", p]), 2)


class HistoryFromTest(unittest.TestCase):
    def test_reads_results(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "cells"))
            a = os.path.join(d, "cells", "a.ndjson")
            with open(a, "w") as fh:
                fh.write(json.dumps(dict(ROW, cell="a")) + "\n")
                fh.write(json.dumps({"type": "sample", "agent": "local-1", "seq": 1}) + "\n")
                fh.write(json.dumps({"type": "sample", "agent": "local-1", "seq": 1}) + "\n")
                fh.write(json.dumps({"type": "sample", "agent": "local-1", "seq": 2}) + "\n")
            snap = chaos_check.snapshot(d)
            self.assertEqual([f["lines"] for f in snap], [4])
            # the file is cut in the middle of its last line afterwards
            with open(a, "r+") as fh:
                fh.truncate(snap[0]["bytes"] - 5)
            h = chaos_check.history_from(d, [{"id": "a", "index": "ia"}], {"ia": 1000}, snap,
                                         [{"pid": os.getpid(), "what": "this test"}], [])
            v = chaos_check.check(h)
            self.assertEqual(sorted(x[:2] for x in v), ["I4", "I6", "I7"], v)


if __name__ == "__main__":
    unittest.main()
