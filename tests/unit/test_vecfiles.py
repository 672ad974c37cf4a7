#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_vecfiles.py — `vector` variables with `file:` (docs/vectors.md) against files written
here by Python (struct, the byte layout numpy's tofile writes on x86): .fvecs, .bvecs, .fbin,
.u8bin. `bulkfleet-agent render` must send every row in file order (one stream: row i is the
i-th document, a `sequence` from 0 its id, the rows again after the last), each JSON float
reading back as the float32 in the file and the base64 text equal to Python's base64 of the
big- and little-endian float32 bytes. Malformed files (a row cut short, a row whose dimension
count differs, a .fbin header that disagrees with the file's size, `dims` other than the
file's, a NaN) are refused by `validate` with exit 2, naming the file and row. HDF5 data sets
(FILE#dataset) written by h5py (Debian's python3-h5py): float32, big-endian float64, uint8 and
int8 rows read exactly; a missing data set (the message lists the file's), a 1-dimensional or
integer-id one, a NaN, other dims, a file cut in half and a file that is not HDF5 refused.
Files are read a block of rows at a time: the same files again with blocks of 3 rows
(BF_TEST_VECFILE_CHUNK_ROWS; 7 rows are not a multiple of it) read the same rows, and a bad row
past the first block is refused at its row.
"""
import base64
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

BUILD = os.environ["BF_BUILD_DIR"]
AGENT = os.path.join(BUILD, "agent", "bulkfleet-agent")
COORD = os.path.join(BUILD, "coordinator", "bulkfleet-coordinator")
D = 12
N = 7
rnd = random.Random(39)
rows = [[struct.unpack("<f", struct.pack("<f", rnd.gauss(0, 1)))[0] for _ in range(D)]
        for _ in range(N)]
brows = [[rnd.randrange(256) for _ in range(D)] for _ in range(N)]
tmp = tempfile.mkdtemp(dir=os.environ.get("TMPDIR"))
ENV = dict(os.environ)
ENV.pop("BF_TEST_VECFILE_CHUNK_ROWS", None)


def write(name, data):
    with open(os.path.join(tmp, name), "wb") as f:
        f.write(data)


fvecs = b"".join(struct.pack(f"<i{D}f", D, *r) for r in rows)
write("a.fvecs", fvecs)
write("a.fbin", struct.pack("<II", N, D) + b"".join(struct.pack(f"<{D}f", *r) for r in rows))
write("a.bvecs", b"".join(struct.pack(f"<i{D}B", D, *r) for r in brows))
write("a.u8bin", struct.pack("<II", N, D) + bytes(x for r in brows for x in r))

SCEN = """name: vf
target: {hosts: ["http://127.0.0.1:9200"]}
variables:
  - {name: row, type: sequence}
%s
document:
  id: '$[[row]]'
  source: '{"v":$[[v]]}'
matrix: {batch_size: [%d]}
"""


def render(var, docs):
    path = os.path.join(tmp, "s.yaml")
    with open(path, "w") as f:
        f.write(SCEN % ("  - " + var, docs))
    out = subprocess.run([AGENT, "render", path, "--requests", "1"], capture_output=True,
                         text=True, timeout=60, env=ENV)
    assert out.returncode == 0, (var, out.stderr)
    lines = out.stdout.splitlines()
    assert len(lines) == 2 * docs, len(lines)
    return [(json.loads(lines[i])["index"]["_id"], json.loads(lines[i + 1])["v"])
            for i in range(0, len(lines), 2)]


def strtof(text):
    return struct.unpack("<f", struct.pack("<f", float(text)))[0]


# JSON floats: every element reads back as the file's float32; rows in order, then again
for fmt in ("fvecs", "fbin"):
    got = render(f"{{name: v, type: vector, file: a.{fmt}}}", N + 3)
    for k, (doc_id, v) in enumerate(got):
        assert doc_id == str(k), (doc_id, k)
        want = rows[k % N]
        assert [strtof(repr(x)) for x in v] == want, (fmt, k, v, want)
    print(f"{fmt}: {N + 3} documents, rows 0..{N - 1} then 0..2, every float32 as in the file")
# rows: 4 uses the first 4 rows only, over and over
got = render("{name: v, type: vector, file: a.fvecs, rows: 4}", N + 3)
for k, (doc_id, v) in enumerate(got):
    assert doc_id == str(k) and [strtof(repr(x)) for x in v] == rows[k % 4], (k, v)
print(f"rows: 4: {N + 3} documents, rows 0..3 then 0..3 again")
# base64 in both byte orders
for order, code in (("big", ">"), ("little", "<")):
    extra = ", byte_order: little" if order == "little" else ""
    got = render(f"{{name: v, type: vector, file: a.fvecs, encoding: base64{extra}}}", N)
    for k, (_, v) in enumerate(got):
        assert v == base64.b64encode(struct.pack(f"{code}{D}f", *rows[k])).decode(), (order, k)
    print(f"fvecs base64 {order}-endian: equal to Python's base64 of struct.pack('{code}{D}f')")
# byte files: JSON integers, base64 the raw bytes
for fmt in ("bvecs", "u8bin"):
    got = render(f"{{name: v, type: vector, file: a.{fmt}}}", N)
    assert [v for _, v in got] == brows, fmt
    got = render(f"{{name: v, type: vector, file: a.{fmt}, encoding: base64}}", N)
    assert [v for _, v in got] == [base64.b64encode(bytes(r)).decode() for r in brows], fmt
    print(f"{fmt}: integers as written; base64 of the bytes")


def refused(name, data, want, var_extra=""):
    fname = name.split("#")[0]  # an HDF5 FILE#dataset: the file is FILE
    write(fname, data)
    path = os.path.join(tmp, "bad.yaml")
    with open(path, "w") as f:
        f.write(SCEN % (f"  - {{name: v, type: vector, file: {name}{var_extra}}}", 5))
    out = subprocess.run([COORD, "validate", path], capture_output=True, text=True, timeout=60,
                         env=ENV)
    assert out.returncode == 2, (name, out.returncode, out.stdout, out.stderr)
    msg = out.stdout + out.stderr
    assert fname in msg and want in msg, (name, want, msg)
    assert "bad.yaml:5:" in msg, msg  # the variable's line
    print(f"refused: {msg.strip().splitlines()[0][:160]}")


refused("cut.fvecs", fvecs[:-5], "row 7")
refused("cut.fvecs", fvecs[:-5], "cut short")
odd = bytearray(fvecs)
struct.pack_into("<i", odd, 3 * (4 + 4 * D), D - 1)
refused("dims.fvecs", bytes(odd), "row 4 (byte 156) has 11 dimensions, row 1 has 12")
refused("hdr.fbin", struct.pack("<II", N + 1, D) + fvecs[: 4 * D * N], "the header says 8 rows")
refused("a2.fvecs", fvecs, "dims: 16, but the file's rows have 12", ", dims: 16")
nan = bytearray(fvecs)
struct.pack_into("<f", nan, 2 * (4 + 4 * D) + 4 + 4 * 5, float("nan"))
refused("nan.fvecs", bytes(nan), "row 3, dimension 6: not a finite number")
refused("x.hdf5#train", fvecs, "not an HDF5 file")
refused("a.fvecs", fvecs, "rows: 8, but a.fvecs has 7 rows", ", rows: 8")
with open(os.path.join(tmp, "bad.yaml"), "w") as f:
    f.write(SCEN % ("  - {name: v, type: vector, file: a.fvecs, rows: 0}", 5))
out = subprocess.run([COORD, "validate", os.path.join(tmp, "bad.yaml")], capture_output=True,
                     text=True, timeout=60, env=ENV)
assert out.returncode == 2 and "bad.yaml:5:50: variables[1].rows: expected a whole number from 1" \
    in out.stderr, (out.returncode, out.stderr)


# ---- HDF5 (ann-benchmarks' layout: train / test data sets), written by h5py -------------------
# h5py is Debian's python3-h5py, for Debian's python3: the interpreter that has it writes them
H5PY = None
for exe in (sys.executable, "/usr/bin/python3"):
    if subprocess.run([exe, "-c", "import h5py, numpy"], capture_output=True).returncode == 0:
        H5PY = exe
        break
assert H5PY, "h5py is not installed: install python3-h5py (scripts/install-deps.sh does)"
H5W = """
import h5py, numpy, sys, json
rows, brows = json.loads(sys.argv[2])
with h5py.File(sys.argv[1] + "/a.hdf5", "w") as f:
    f["train"] = numpy.array(rows, dtype="<f4")
    f["test"] = numpy.array(rows[:3], dtype=">f8")      # float64, big-endian: read as float32
    f["u8"] = numpy.array(brows, dtype="u1")
    f["i8"] = numpy.array(brows, dtype="u1").astype("i1")
    f["neighbors"] = numpy.zeros((3, 10), dtype="<i4")   # ids: not vectors
    f["flat"] = numpy.zeros(12, dtype="<f4")
    bad = numpy.array(rows, dtype="<f4")
    bad[2, 5] = numpy.nan
    f["nan"] = bad
"""
out = subprocess.run([H5PY, "-c", H5W, tmp, json.dumps([rows, brows])], capture_output=True,
                     text=True, timeout=60)
assert out.returncode == 0, out.stderr
got = render("{name: v, type: vector, file: a.hdf5#train}", N + 2)
for k, (doc_id, v) in enumerate(got):
    assert doc_id == str(k) and [strtof(repr(x)) for x in v] == rows[k % N], ("hdf5", k, v)
got = render("{name: v, type: vector, file: a.hdf5#test}", 3)
assert [[strtof(repr(x)) for x in v] for _, v in got] == rows[:3], got
got = render("{name: v, type: vector, file: a.hdf5#train, encoding: base64}", N)
assert [v for _, v in got] == [base64.b64encode(struct.pack(f">{D}f", *r)).decode() for r in rows]
got = render("{name: v, type: vector, file: a.hdf5#u8}", N)
assert [v for _, v in got] == brows, got
got = render("{name: v, type: vector, file: a.hdf5#i8}", N)
assert [v for _, v in got] == [[x - 256 if x > 127 else x for x in r] for r in brows], got
print("hdf5: train (float32), test (big-endian float64 as float32), u8, i8 read exactly; base64")
with open(os.path.join(tmp, "a.hdf5"), "rb") as f:
    h5 = f.read()
refused("a.hdf5#nope", h5, "no data set 'nope' (the file has: flat, i8, nan, neighbors, test, train, u8)")
refused("a.hdf5#flat", h5, "data set 'flat' has 1 dimensions")
refused("a.hdf5#neighbors", h5, "data set 'neighbors' holds 4-byte integers")
refused("a.hdf5#nan", h5, "data set 'nan', row 3, dimension 6: not a finite number")
refused("a.hdf5#train", h5, "dims: 16, but the rows of data set 'train' have 12", ", dims: 16")
refused("cut.hdf5#train", h5[: len(h5) // 2], "cut.hdf5")
# blocks of 3 rows: rows 0-2, 3-5, 6 (and again), the same values; bad rows in the 2nd/3rd block
ENV["BF_TEST_VECFILE_CHUNK_ROWS"] = "3"
for var, want in (("a.fvecs", rows), ("a.fbin", rows), ("a.hdf5#train", rows), ("a.bvecs", brows)):
    got = render(f"{{name: v, type: vector, file: {var}}}", 2 * N + 1)
    for k, (doc_id, v) in enumerate(got):
        assert doc_id == str(k), (var, doc_id, k)
        w = want[k % N]
        assert ([strtof(repr(x)) for x in v] if var != "a.bvecs" else v) == w, (var, k, v, w)
refused("cut.fvecs", fvecs[:-5], "row 7 (byte 312) is cut short: 43 of its 48 bytes")
refused("dims.fvecs", bytes(odd), "row 4 (byte 156) has 11 dimensions, row 1 has 12")
refused("nan.fvecs", bytes(nan), "row 3, dimension 6: not a finite number")
refused("a.hdf5#nan", h5, "data set 'nan', row 3, dimension 6: not a finite number")
print("blocks of 3 rows: fvecs, fbin, hdf5, bvecs rows read the same over 2 passes; bad rows "
      "refused at their row")
print("PASS: vector files written by Python read exactly; malformed ones refused with file and row")
