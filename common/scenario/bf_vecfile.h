/* SPDX-License-Identifier: MIT */
/* bf_vecfile.h — vector data set files (texmex .fvecs/.bvecs/.ivecs, big-ann .fbin/.u8bin/.i8bin)
 * for `vector` variables with `file:` (docs/vectors.md). */
#ifndef BF_VECFILE_H
#define BF_VECFILE_H

#include "bf_error.h"

#include <stddef.h>
#include <stdint.h>

/* The rows of one file, each rendered as the variable writes it. Owned by the caller (free
 * values and value_off). */
typedef struct bf_vecfile {
    char *values;      /* row i is values[value_off[i] .. value_off[i + 1]) */
    size_t *value_off; /* rows + 1 offsets */
    size_t rows;
    uint32_t dims;
    size_t max_len; /* longest rendered row in bytes */
    int integer;    /* 1: the elements are integers (bvecs, ivecs, u8bin, i8bin) */
} bf_vecfile_t;

/* bf_vecfile_load — parse data[0..len), the file `name` (its extension names the format:
 * .fvecs, .bvecs, .ivecs: rows of an int32 dimension count and the values; .fbin, .u8bin,
 * .i8bin: a header of uint32 rows and uint32 dimensions, then the values; little-endian; formats
 * of http://corpus-texmex.irisa.fr/ and https://big-ann-benchmarks.com/), and render every row:
 * a JSON array (floats in the shortest of 6..9 significant digits that reads back as the same
 * float32; integers as written) or, with base64 = 1, RFC 4648 base64 of the values (float32 and
 * int32 in `little` ? little- : big-endian byte order; bytes as they are). A name
 * "FILE#dataset" reads data set `dataset` of the HDF5 file whose bytes data is (rows x
 * dimensions of float32/float64, read as float32, or of int8/uint8; HDF5 converts the byte
 * order; read a block of rows at a time from the file image, which libhdf5 does not copy): an
 * error names the data sets the file has when `dataset` is not one of them. want_dims 0 takes the
 * file's; else the rows must have that many. max_rendered bounds the rendered bytes.
 * Returns 0 and *out, or BF_E_INVAL / BF_E_TOOBIG with msg (size bytes) naming the file and the
 * row: a row cut short, a dimension count that differs from row 1's or from want_dims, a
 * header that disagrees with the file's size, a float that is not finite. Thread-safe, except for
 * HDF5 names (Debian's serial libhdf5 is not thread-safe: load one at a time). */
int bf_vecfile_load(const char *name, const unsigned char *data, size_t len, uint32_t want_dims,
                    int base64, int little, size_t max_rendered, bf_vecfile_t *out, char *msg,
                    size_t size);

#endif
