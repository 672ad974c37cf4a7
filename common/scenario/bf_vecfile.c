/* SPDX-License-Identifier: MIT */
/* bf_vecfile.c — vector data set files for `vector` variables with `file:` (docs/vectors.md).
 *
 * Formats (all little-endian, as written by the data sets' own tools and by numpy's tofile on
 * x86):
 *   .fvecs / .bvecs / .ivecs (texmex, http://corpus-texmex.irisa.fr/): each row is an int32
 *       dimension count d, then d float32 / uint8 / int32 values;
 *   .fbin / .u8bin / .i8bin (big-ann-benchmarks, https://big-ann-benchmarks.com/): a header of
 *       uint32 rows n and uint32 dimensions d, then n * d float32 / uint8 / int8 values;
 *   FILE#dataset: a 2-dimensional data set of an HDF5 file (ann-benchmarks' train / test,
 *       https://github.com/erikbern/ann-benchmarks), read with Debian's libhdf5.
 * Every row is checked (a row cut short, a dimension count that differs from the first row's or
 * from `dims`, a header that disagrees with the file's size, a float that is not finite) and
 * refused with the file and the row. Each row is rendered once here, as the variable renders
 * it (a JSON array or a base64 string), so sending is a copy.
 */
#include "bf_vecfile.h"

#include "bf_buf.h"
#include "bf_mem.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum vf_elem { VF_F32, VF_U8, VF_I8, VF_I32 };

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_append(bf_buf_t *b, const unsigned char *src, size_t n)
{
    char q[4];
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t x = (uint32_t)src[i] << 16 | (uint32_t)src[i + 1] << 8 | src[i + 2];
        q[0] = b64[x >> 18];
        q[1] = b64[(x >> 12) & 63];
        q[2] = b64[(x >> 6) & 63];
        q[3] = b64[x & 63];
        bf_buf_append(b, q, 4);
    }
    if (i < n) {
        uint32_t x = (uint32_t)src[i] << 16 | (i + 1 < n ? (uint32_t)src[i + 1] << 8 : 0);
        q[0] = b64[x >> 18];
        q[1] = b64[(x >> 12) & 63];
        q[2] = i + 1 < n ? b64[(x >> 6) & 63] : '=';
        q[3] = '=';
        bf_buf_append(b, q, 4);
    }
}

/* the shortest of %.6g .. %.9g that reads back as f (%.9g always does) */
static int fmt_f32(char *dst, size_t size, float f)
{
    int n = 0;
    for (int prec = 6; prec <= 9; prec++) {
        n = snprintf(dst, size, "%.*g", prec, (double)f);
        if (strtof(dst, NULL) == f)
            break;
    }
    return n;
}

/* One row (d values of kind e at p) rendered into b; 0, or -1 with the bad dimension in *bad. */
static int render_row(bf_buf_t *b, const unsigned char *p, uint32_t d, enum vf_elem e, int base64,
                      int little, unsigned char *raw, uint32_t *bad)
{
    size_t es = e == VF_F32 || e == VF_I32 ? 4 : 1;
    for (uint32_t i = 0; i < d && e == VF_F32; i++) {
        float f;
        uint32_t u = rd32(p + 4 * i);
        memcpy(&f, &u, 4);
        if (!isfinite(f)) {
            *bad = i;
            return -1;
        }
    }
    if (base64) {
        if (e == VF_F32 || e == VF_I32) {
            for (uint32_t i = 0; i < d; i++) {
                uint32_t u = rd32(p + 4 * i);
                for (int k = 0; k < 4; k++)
                    raw[4 * i + k] = (unsigned char)(little ? u >> (8 * k) : u >> (24 - 8 * k));
            }
            b64_append(b, raw, 4 * (size_t)d);
        } else {
            b64_append(b, p, (size_t)d * es);
        }
        return 0;
    }
    bf_buf_append(b, "[", 1);
    char num[32];
    for (uint32_t i = 0; i < d; i++) {
        int n;
        if (e == VF_F32) {
            float f;
            uint32_t u = rd32(p + 4 * i);
            memcpy(&f, &u, 4);
            n = fmt_f32(num, sizeof num, f);
        } else if (e == VF_I32) {
            n = snprintf(num, sizeof num, "%d", (int)(int32_t)rd32(p + 4 * i));
        } else if (e == VF_U8) {
            n = snprintf(num, sizeof num, "%u", (unsigned)p[i]);
        } else {
            n = snprintf(num, sizeof num, "%d", (int)(int8_t)p[i]);
        }
        if (i)
            bf_buf_append(b, ",", 1);
        bf_buf_append(b, num, (size_t)n);
    }
    bf_buf_append(b, "]", 1);
    return 0;
}

/* ---- HDF5 data sets (ann-benchmarks' train / test; OpenSearch Benchmark's vectorsearch) --------
 * The file's bytes are opened as an HDF5 file image (H5LTopen_file_image, not copied), the data
 * set must be 2-dimensional (rows x dimensions) of float (32 or 64 bit, read as float32),
 * uint8 or int8, and is read a block of rows at a time (HDF5 converts to little-endian float32
 * / bytes on the way), each row rendered as a .fbin / .u8bin / .i8bin row is. */
#define H5_BLOCK_BYTES (4u << 20) /* rows read at once: about this many bytes */

/* the names of the file's top-level objects, ", "-separated, into b */
static herr_t h5_name(hid_t g, const char *name, const H5L_info_t *info, void *b)
{
    (void)g;
    (void)info;
    bf_buf_t *bb = b;
    bf_buf_appendf(bb, "%s%s", bb->len ? ", " : "", name);
    return 0;
}

static int load_hdf5(const char *name, const char *set, const unsigned char *data, size_t len,
                     uint32_t want_dims, int base64, int little, size_t max_rendered,
                     bf_vecfile_t *out, char *msg, size_t size)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are said here, with the file */
    if (len < 8 || memcmp(data, "\x89HDF\r\n\x1a\n", 8) != 0) {
        snprintf(msg, size,
                 "%s: not an HDF5 file (no HDF5 signature at byte 0); a PATH#dataset names a "
                 "data set of an HDF5 file (ann-benchmarks' .hdf5)",
                 name);
        return BF_E_INVAL;
    }
    /* (HDF5 1.10 keeps a 72-byte block of this call for good with DONT_RELEASE: one per file,
     * named in tests/sanitize/lsan.supp) */
    hid_t f = H5LTopen_file_image((void *)data, len,
                                  H5LT_FILE_IMAGE_DONT_COPY | H5LT_FILE_IMAGE_DONT_RELEASE);
    if (f < 0) {
        snprintf(msg, size, "%s: HDF5 cannot open it (%zu bytes: cut short?)", name, len);
        return BF_E_INVAL;
    }
    int rc = BF_OK;
    hid_t ds = H5Lexists(f, set, H5P_DEFAULT) > 0 ? H5Dopen2(f, set, H5P_DEFAULT) : -1;
    hid_t sp = -1, ty = -1, mty = -1, msp = -1, fsp = -1;
    bf_buf_t vals;
    bf_buf_init(&vals, 0);
    size_t *off = NULL;
    unsigned char *blk = NULL, *raw = NULL;
    if (ds < 0) {
        bf_buf_t names;
        bf_buf_init(&names, 0);
        H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, NULL, h5_name, &names);
        snprintf(msg, size, "%s: no data set '%s' (the file has: %s)", name, set,
                 names.len ? names.data : "nothing");
        bf_buf_cleanup(&names);
        rc = BF_E_INVAL;
        goto out;
    }
    sp = H5Dget_space(ds);
    ty = H5Dget_type(ds);
    hsize_t dims[2] = {0, 0};
    int rank = H5Sget_simple_extent_ndims(sp);
    if (rank != 2 || H5Sget_simple_extent_dims(sp, dims, NULL) != 2) {
        snprintf(msg, size,
                 "%s: data set '%s' has %d dimensions; vectors are a 2-dimensional data set "
                 "(rows x dimensions)",
                 name, set, rank);
        rc = BF_E_INVAL;
        goto out;
    }
    H5T_class_t cls = H5Tget_class(ty);
    size_t tsz = H5Tget_size(ty);
    enum vf_elem e;
    if (cls == H5T_FLOAT && (tsz == 4 || tsz == 8)) {
        e = VF_F32;
        mty = H5Tcopy(H5T_IEEE_F32LE);
    } else if (cls == H5T_INTEGER && tsz == 1) {
        int sgn = H5Tget_sign(ty) == H5T_SGN_2;
        e = sgn ? VF_I8 : VF_U8;
        mty = H5Tcopy(sgn ? H5T_STD_I8LE : H5T_STD_U8LE);
    } else {
        snprintf(msg, size,
                 "%s: data set '%s' holds %zu-byte %s; bulkfleet reads float (32 or 64 bit), "
                 "int8 and uint8 vectors",
                 name, set, tsz,
                 cls == H5T_INTEGER ? "integers"
                 : cls == H5T_FLOAT ? "floats"
                                    : "values");
        rc = BF_E_INVAL;
        goto out;
    }
    if (dims[1] == 0 || dims[1] > 65536) {
        snprintf(msg, size, "%s: data set '%s' has rows of %llu dimensions (1-65536 expected)",
                 name, set, (unsigned long long)dims[1]);
        rc = BF_E_INVAL;
        goto out;
    }
    uint32_t d = (uint32_t)dims[1];
    if (want_dims && want_dims != d) {
        snprintf(msg, size, "%s: dims: %u, but the rows of data set '%s' have %u dimensions", name,
                 want_dims, set, d);
        rc = BF_E_INVAL;
        goto out;
    }
    if (dims[0] == 0) {
        snprintf(msg, size, "%s: data set '%s' has no rows", name, set);
        rc = BF_E_INVAL;
        goto out;
    }
    if ((double)dims[0] * (double)d > (double)max_rendered) {
        snprintf(msg, size,
                 "%s: data set '%s' has %llu rows of %u dimensions: rendered they would be over "
                 "%zu MiB (the vectors are kept rendered in memory); use a slice of it",
                 name, set, (unsigned long long)dims[0], d, max_rendered >> 20);
        rc = BF_E_TOOBIG;
        goto out;
    }
    size_t es = e == VF_F32 ? 4 : 1;
    hsize_t per = H5_BLOCK_BYTES / ((hsize_t)d * es);
    if (per == 0)
        per = 1;
    blk = bf_malloc((size_t)per * d * es);
    raw = bf_malloc(4 * (size_t)d);
    off = bf_malloc(((size_t)dims[0] + 1) * sizeof *off);
    size_t max_len = 0;
    for (hsize_t r0 = 0; r0 < dims[0] && rc == BF_OK; r0 += per) {
        hsize_t cnt[2] = {dims[0] - r0 < per ? dims[0] - r0 : per, d};
        hsize_t start[2] = {r0, 0};
        fsp = H5Dget_space(ds);
        msp = H5Screate_simple(2, cnt, NULL);
        herr_t hr = H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, cnt, NULL);
        if (hr >= 0)
            hr = H5Dread(ds, mty, msp, fsp, H5P_DEFAULT, blk);
        H5Sclose(msp);
        H5Sclose(fsp);
        msp = fsp = -1;
        if (hr < 0) {
            snprintf(msg, size,
                     "%s: data set '%s': rows %llu-%llu cannot be read (the file is cut short "
                     "or damaged there)",
                     name, set, (unsigned long long)r0 + 1, (unsigned long long)(r0 + cnt[0]));
            rc = BF_E_INVAL;
            break;
        }
        for (hsize_t i = 0; i < cnt[0]; i++) {
            size_t n = (size_t)(r0 + i);
            off[n] = vals.len;
            uint32_t bad = 0;
            if (render_row(&vals, blk + (size_t)i * d * es, d, e, base64, little, raw, &bad) != 0) {
                snprintf(msg, size, "%s: data set '%s', row %zu, dimension %u: not a finite number",
                         name, set, n + 1, bad + 1);
                rc = BF_E_INVAL;
                break;
            }
            if (vals.len - off[n] > max_len)
                max_len = vals.len - off[n];
            if (vals.len > max_rendered) {
                snprintf(msg, size,
                         "%s: rendered, the first %zu rows of data set '%s' are over %zu MiB (the "
                         "vectors are kept rendered in memory); use a smaller file or a slice",
                         name, n + 1, set, max_rendered >> 20);
                rc = BF_E_TOOBIG;
                break;
            }
        }
    }
    if (rc == BF_OK) {
        off[dims[0]] = vals.len;
        out->values = bf_buf_steal(&vals);
        out->value_off = off;
        off = NULL;
        out->rows = (size_t)dims[0];
        out->dims = d;
        out->max_len = max_len;
        out->integer = e != VF_F32;
    }
out:
    free(off);
    free(blk);
    free(raw);
    bf_buf_cleanup(&vals);
    if (mty >= 0)
        H5Tclose(mty);
    if (ty >= 0)
        H5Tclose(ty);
    if (sp >= 0)
        H5Sclose(sp);
    if (ds >= 0)
        H5Dclose(ds);
    H5Fclose(f);
    return rc;
}

int bf_vecfile_load(const char *name, const unsigned char *data, size_t len, uint32_t want_dims,
                    int base64, int little, size_t max_rendered, bf_vecfile_t *out, char *msg,
                    size_t size)
{
    memset(out, 0, sizeof *out);
    const char *hash = strchr(name, '#');
    if (hash) {
        /* PATH#dataset: an HDF5 file's data set (ann-benchmarks' train / test) */
        char file[1024];
        snprintf(file, sizeof file, "%.*s", (int)(hash - name), name);
        if (hash[1] == '\0') {
            snprintf(msg, size, "%s: no data set after '#' (write PATH#train, e.g.)", name);
            return BF_E_INVAL;
        }
        return load_hdf5(file, hash + 1, data, len, want_dims, base64, little, max_rendered, out,
                         msg, size);
    }
    const char *dot = strrchr(name, '.');
    const char *ext = dot ? dot + 1 : "";
    enum vf_elem e;
    int texmex;
    if (strcmp(ext, "fvecs") == 0) {
        e = VF_F32, texmex = 1;
    } else if (strcmp(ext, "bvecs") == 0) {
        e = VF_U8, texmex = 1;
    } else if (strcmp(ext, "ivecs") == 0) {
        e = VF_I32, texmex = 1;
    } else if (strcmp(ext, "fbin") == 0) {
        e = VF_F32, texmex = 0;
    } else if (strcmp(ext, "u8bin") == 0) {
        e = VF_U8, texmex = 0;
    } else if (strcmp(ext, "i8bin") == 0) {
        e = VF_I8, texmex = 0;
    } else {
        snprintf(msg, size,
                 "%s: not a vector file format bulkfleet reads (by its extension: "
                 ".fvecs, .bvecs, .ivecs, .fbin, .u8bin, .i8bin)",
                 name);
        return BF_E_INVAL;
    }
    size_t es = e == VF_F32 || e == VF_I32 ? 4 : 1;
    uint64_t rows = 0;
    uint32_t d = 0;
    size_t pos = 0;
    if (texmex) {
        if (len < 4) {
            snprintf(msg, size, "%s: %zu bytes: not even one row's dimension count", name, len);
            return BF_E_INVAL;
        }
        d = rd32(data);
    } else {
        if (len < 8) {
            snprintf(msg, size, "%s: %zu bytes: shorter than the 8-byte header (rows, dimensions)",
                     name, len);
            return BF_E_INVAL;
        }
        rows = rd32(data);
        d = rd32(data + 4);
        uint64_t want = 8 + rows * d * es;
        if (want != len) {
            uint64_t whole = d ? (len - 8) / ((uint64_t)d * es) : 0;
            snprintf(msg, size,
                     "%s: the header says %llu rows of %u dimensions (%llu bytes) but "
                     "the file has %zu bytes (%llu whole rows): %s at row %llu",
                     name, (unsigned long long)rows, d, (unsigned long long)want, len,
                     (unsigned long long)whole, want > len ? "truncated" : "extra bytes",
                     (unsigned long long)whole + 1);
            return BF_E_INVAL;
        }
        pos = 8;
    }
    if (d == 0 || d > 65536) {
        snprintf(msg, size, "%s: row 1 has %u dimensions (1-65536 expected): not a %s file?", name,
                 d, ext);
        return BF_E_INVAL;
    }
    if (want_dims && want_dims != d) {
        snprintf(msg, size, "%s: dims: %u, but the file's rows have %u dimensions", name, want_dims,
                 d);
        return BF_E_INVAL;
    }
    bf_buf_t vals;
    bf_buf_init(&vals, 0);
    size_t cap = 1024, n = 0;
    size_t *off = bf_malloc(cap * sizeof *off);
    unsigned char *raw = bf_malloc(4 * (size_t)d);
    int rc = BF_OK;
    size_t max_len = 0;
    while (pos < len) {
        uint64_t row = n + 1;
        const unsigned char *p = data + pos;
        if (texmex) {
            if (len - pos < 4) {
                snprintf(msg, size,
                         "%s: row %llu (byte %zu) is cut short: %zu bytes where its "
                         "dimension count (4 bytes) should be",
                         name, (unsigned long long)row, pos, len - pos);
                rc = BF_E_INVAL;
                break;
            }
            uint32_t rd = rd32(p);
            if (rd != d) {
                snprintf(msg, size, "%s: row %llu (byte %zu) has %u dimensions, row 1 has %u", name,
                         (unsigned long long)row, pos, rd, d);
                rc = BF_E_INVAL;
                break;
            }
            if (len - pos - 4 < (size_t)d * es) {
                snprintf(msg, size, "%s: row %llu (byte %zu) is cut short: %zu of its %zu bytes",
                         name, (unsigned long long)row, pos, len - pos - 4, (size_t)d * es);
                rc = BF_E_INVAL;
                break;
            }
            p += 4;
            pos += 4;
        }
        if (n + 2 > cap) {
            cap *= 2;
            off = bf_realloc(off, cap * sizeof *off);
        }
        off[n] = vals.len;
        uint32_t bad = 0;
        if (render_row(&vals, p, d, e, base64, little, raw, &bad) != 0) {
            snprintf(msg, size, "%s: row %llu, dimension %u: not a finite number", name,
                     (unsigned long long)row, bad + 1);
            rc = BF_E_INVAL;
            break;
        }
        if (vals.len - off[n] > max_len)
            max_len = vals.len - off[n];
        n++;
        pos += (size_t)d * es;
        if (vals.len > max_rendered) {
            snprintf(msg, size,
                     "%s: rendered, its first %zu rows are over %zu MiB (the vectors "
                     "are kept rendered in memory); use a smaller file or a slice of it",
                     name, n, max_rendered >> 20);
            rc = BF_E_TOOBIG;
            break;
        }
    }
    free(raw);
    if (rc == BF_OK && n == 0) {
        snprintf(msg, size, "%s: no rows", name);
        rc = BF_E_INVAL;
    }
    if (rc != BF_OK) {
        free(off);
        bf_buf_cleanup(&vals);
        return rc;
    }
    off[n] = vals.len;
    out->values = bf_buf_steal(&vals);
    out->value_off = off;
    out->rows = n;
    out->dims = d;
    out->max_len = max_len;
    out->integer = e != VF_F32;
    return BF_OK;
}
