#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_slowdisk.py — the slow-disk LD_PRELOAD shim (tests/support/bf_slowdisk.c).

Each case runs a small Python child under LD_PRELOAD=libbf_slowdisk.so and reads the shim's log
(BF_SLOWDISK_LOG: one line per slowed call): which calls are slowed (opens for writing, writes,
fsync, stdio flushes with output pending, renames under the directory; nothing outside it,
nothing that only reads), by how much (BF_SLOWDISK_MS, or the control file's number, read
again every 100 ms), that BF_SLOWDISK_OPS narrows them, that the calls still do their work
(contents, errno), and that the sleep is really taken (a lower bound on the elapsed time only:
a sleep is never shorter; no upper bound is asserted). BF_BUILD_DIR names the build.
"""

import os
import subprocess
import sys
import tempfile
import time

BUILD = os.environ.get("BF_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
SHIM = os.path.join(BUILD, "tests", "libbf_slowdisk.so")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(work, code, **env):
    """run code in a child under the shim (cwd work); returns (log lines as [op, ms, what], s)"""
    log = os.path.join(work, "log")
    if os.path.exists(log):
        os.unlink(log)
    e = {k: v for k, v in os.environ.items() if not k.startswith("BF_SLOWDISK_")}
    e.update(LD_PRELOAD=SHIM, BF_SLOWDISK_LOG=log)
    e.update({k: str(v) for k, v in env.items()})
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-c", code], cwd=work, env=e, capture_output=True,
                       text=True, timeout=60)
    took = time.monotonic() - t
    if p.returncode != 0:
        print(p.stdout + p.stderr)
    check(p.returncode == 0, "the child ran (exit 0)")
    out = []
    if os.path.exists(log):
        with open(log) as fh:
            for ln in fh:
                op, ms, _pid, what = ln.rstrip("\n").split(" ", 3)
                out.append([op, int(ms), what])
    return out, took


OS_CALLS = """
import os
fd = os.open("d/a", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
assert os.write(fd, b"hello") == 5
os.fsync(fd)
os.fdatasync(fd)
os.close(fd)
os.rename("d/a", "d/b")
assert open("d/b", "rb").read() == b"hello"          # reading: not slowed
fd = os.open("out", os.O_WRONLY | os.O_CREAT, 0o644)  # outside the directory: not slowed
os.write(fd, b"x"); os.fsync(fd); os.close(fd)
try:
    os.open("d/no/such", os.O_WRONLY | os.O_CREAT, 0o644)
    raise SystemExit("opened d/no/such")
except FileNotFoundError:
    pass                                              # the real errno comes through
dfd = os.open("d", os.O_RDONLY | os.O_DIRECTORY)
fd = os.open("c", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=dfd)   # openat(dirfd of d, ...)
os.write(fd, b"y"); os.close(fd)
os.fsync(dfd); os.close(dfd)
"""

STDIO = """
import ctypes
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
libc.fputs.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
libc.fflush.argtypes = [ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
f = libc.fopen(b"d/s.ndjson", b"w")
assert f
assert libc.fputs(b"line 1\\n", f) >= 0
assert libc.fflush(f) == 0            # output pending: slowed
assert libc.fflush(f) == 0            # nothing pending: not slowed
assert libc.fputs(b"line 2\\n", f) >= 0
assert libc.fclose(f) == 0            # flushes line 2: slowed
r = libc.fopen(b"d/s.ndjson", b"r")   # reading: not slowed
assert libc.fclose(r) == 0
assert open("d/s.ndjson").read() == "line 1\\nline 2\\n"
"""

CONTROL = """
import os, time
def put(v):
    with open("ctl.tmp", "w") as fh:
        fh.write(v)
    os.replace("ctl.tmp", "ctl")
    time.sleep(0.25)                  # past the shim's 100 ms cache
def one(name):
    fd = os.open("d/" + name, os.O_WRONLY | os.O_CREAT, 0o644); os.close(fd)
put("0\\n"); one("off")
put("120\\n"); one("on120")
put("not a number"); one("garbage")
os.unlink("ctl"); time.sleep(0.25); one("gone")
put("0"); one("off2")
"""


def main():
    if not os.path.exists(SHIM):
        print(f"FAIL {SHIM} is missing (cmake --build build --target bf_slowdisk)")
        return 1
    with tempfile.TemporaryDirectory(prefix="bf-slowdisk.", dir=os.environ.get("TMPDIR")) as work:
        os.mkdir(os.path.join(work, "d"))
        d = os.path.join(work, "d")

        log, _ = run(work, OS_CALLS)
        check(log == [], f"without BF_SLOWDISK_DIR nothing is slowed (log {log})")

        log, took = run(work, OS_CALLS, BF_SLOWDISK_DIR=d, BF_SLOWDISK_MS=150)
        ops = [x[0] for x in log]
        check(ops == ["open", "write", "fsync", "fsync", "rename", "open", "open", "write",
                      "fsync"],
              f"open for writing, write, fsync, fdatasync, rename, the open that fails (with "
              f"its ENOENT), openat(dirfd) and the directory's fsync under d are slowed, in "
              f"order; the reads and the file outside d are not (got {ops})")
        check(all(x[1] == 150 for x in log), "each by BF_SLOWDISK_MS (150 ms)")
        check(any(x[0] == "rename" and x[2] == "d/b" for x in log), "the rename names its target")
        check(took >= len(log) * 0.150, f"the sleeps were taken ({took:.2f} s >= "
                                        f"{len(log) * 0.15:.2f} s)")

        log, _ = run(work, OS_CALLS, BF_SLOWDISK_DIR="d", BF_SLOWDISK_MS=20)
        check(len(log) == 9, f"a relative BF_SLOWDISK_DIR is the working directory's d "
                             f"({len(log)} calls)")

        log, _ = run(work, OS_CALLS, BF_SLOWDISK_DIR=d, BF_SLOWDISK_MS=20, BF_SLOWDISK_OPS="fsync")
        check([x[0] for x in log] == ["fsync"] * 3, f"BF_SLOWDISK_OPS=fsync: only the 3 fsyncs "
                                                    f"(got {[x[0] for x in log]})")

        log, _ = run(work, STDIO, BF_SLOWDISK_DIR=d, BF_SLOWDISK_MS=30)
        check([x[0] for x in log] == ["open", "flush", "flush"],
              f"stdio: fopen(w), the fflush with output pending and the fclose that flushes; "
              f"not the empty fflush nor fopen(r) (got {[x[0] for x in log]})")

        log, _ = run(work, CONTROL, BF_SLOWDISK_DIR=d, BF_SLOWDISK_MS=40,
                     BF_SLOWDISK_CONTROL=os.path.join(work, "ctl"))
        got = [(x[1], os.path.basename(x[2])) for x in log]
        check(got == [(120, "on120"), (40, "garbage"), (40, "gone")],
              f"the control file switches the delay while the process runs: 0 off, 120 on; not "
              f"a number or gone: BF_SLOWDISK_MS (got {got})")
    print(f"test_slowdisk: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
