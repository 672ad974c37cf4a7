/* SPDX-License-Identifier: MIT */
/* bf_vecfile.h — vector data set files (texmex .fvecs/.bvecs/.ivecs, big-ann .fbin/.u8bin/.i8bin,
 * HDF5 FILE#dataset) for `vector` variables with `file:` (docs/vectors.md), read a block of rows
 * at a time: never the whole file at once. */
#ifndef BF_VECFILE_H
#define BF_VECFILE_H

#include "bf_buf.h"
#include "bf_error.h"

#include <stddef.h>
#include <stdint.h>

/* raw bytes of rows read at once by bf_vecfile_check, and by a sending thread (bf_vars) */
#define BF_VECFILE_CHUNK_BYTES (4u << 20)
#define BF_VECFILE_WINDOW_BYTES (1u << 20)

typedef struct bf_vecfile bf_vecfile_t;

/* bf_vecfile_open — open the vector file `name` as written in the scenario (its extension names
 * the format: .fvecs, .bvecs, .ivecs: rows of an int32 dimension count and the values; .fbin,
 * .u8bin, .i8bin: a header of uint32 rows and uint32 dimensions, then the values; little-endian;
 * formats of http://corpus-texmex.irisa.fr/ and https://big-ann-benchmarks.com/; "FILE#dataset":
 * data set `dataset` of an HDF5 file, rows x dimensions of float32/float64 (read as float32),
 * int8 or uint8, HDF5 converting the byte order). The bytes come from `path`, a file on this
 * host read with pread / H5Fopen when asked (data NULL), or from data[0..len) (borrowed: must
 * outlive the handle; HDF5 opens it as a file image without a copy). Reads the header (texmex:
 * row 1's dimension count; the rows are the file's size over the row size; HDF5: the data set's
 * shape and type) and no row. want_dims 0 takes the file's; else the rows must have that many.
 * Returns 0 and *out (caller owns: bf_vecfile_close), or BF_E_INVAL / BF_E_IO with msg (size
 * bytes) naming the file: not a format read here, an unreadable file, a header that disagrees
 * with the file's size, dims other than the file's, an HDF5 data set the file does not have (the
 * message lists the ones it has), not 2-dimensional or of other values. Thread-safe for non-HDF5
 * files; HDF5 calls are serialized on one process-wide lock (Debian's libhdf5 is serial). */
int bf_vecfile_open(const char *name, const char *path, const unsigned char *data, size_t len,
                    uint32_t want_dims, bf_vecfile_t **out, char *msg, size_t size);

/* bf_vecfile_check — read every row, BF_VECFILE_CHUNK_BYTES at a time (memory: one such block),
 * and check it: a row cut short, a dimension count other than row 1's, a float that is not
 * finite. Renders the first rows read (up to 1000) as bf_vecfile_render would, their mean
 * rendered bytes into *mean_len (may be NULL). Returns 0, or BF_E_INVAL with msg naming the file
 * and the row ("row 7 (byte 312) is cut short: 43 of its 48 bytes"). Thread-safe as _open. */
int bf_vecfile_check(bf_vecfile_t *vf, int base64, int little, double *mean_len, char *msg,
                     size_t size);

/* bf_vecfile_rows / _dims / _integer / _row_bytes — rows (whole rows of the file), dimensions
 * of a row, 1 when the elements are integers (bvecs, ivecs, u8bin, i8bin, HDF5 int8 / uint8),
 * bytes one row takes in a bf_vecfile_read buffer. */
uint64_t bf_vecfile_rows(const bf_vecfile_t *vf);
uint32_t bf_vecfile_dims(const bf_vecfile_t *vf);
int bf_vecfile_integer(const bf_vecfile_t *vf);
size_t bf_vecfile_row_bytes(const bf_vecfile_t *vf);

/* bf_vecfile_chunk_rows — rows a block of bf_vecfile_check (bytes = BF_VECFILE_CHUNK_BYTES) or,
 * with window = 1, of a thread's bf_vecfile_read (BF_VECFILE_WINDOW_BYTES) holds; at least 1.
 * The environment variable BF_TEST_VECFILE_CHUNK_ROWS (tests only: rows not a multiple of it)
 * sets both. */
size_t bf_vecfile_chunk_rows(const bf_vecfile_t *vf, int window);

/* bf_vecfile_max_len — the most bytes bf_vecfile_render writes for one row (JSON floats in at
 * most 15 characters and a comma; base64 4 characters a 3 bytes). */
size_t bf_vecfile_max_len(const bf_vecfile_t *vf, int base64);

/* bf_vecfile_read — rows first, first + step, ..., n of them (each < bf_vecfile_rows; step >= 1),
 * into buf (n * bf_vecfile_row_bytes bytes, caller's), each checked as bf_vecfile_check does.
 * Contiguous rows (step 1) are one read; HDF5 reads the strided rows with one hyperslab
 * selection. Returns 0, or BF_E_INVAL with msg naming the file and the row (the file changed
 * after it was checked, or cannot be read there). Thread-safe (see bf_vecfile_open). */
int bf_vecfile_read(bf_vecfile_t *vf, uint64_t first, uint64_t step, size_t n, unsigned char *buf,
                    char *msg, size_t size);

/* bf_vecfile_render — append row `row` of a bf_vecfile_read buffer to b: a JSON array (floats in
 * the shortest of 6..9 significant digits that reads back as the same float32; integers as
 * written) or, with base64 = 1, RFC 4648 base64 of the values (float32 and int32 in little ?
 * little- : big-endian byte order; bytes as they are). raw: 4 * dims bytes of scratch (caller's).
 * Thread-safe (no shared state). */
void bf_vecfile_render(const bf_vecfile_t *vf, const unsigned char *row, int base64, int little,
                       unsigned char *raw, bf_buf_t *b);

/* bf_vecfile_close — free the handle (closes the file). NULL-safe. */
void bf_vecfile_close(bf_vecfile_t **vf_p);

#endif
