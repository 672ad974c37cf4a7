/* SPDX-License-Identifier: MIT */
/* bf_vecfile.c — vector data set files for `vector` variables with `file:` (docs/vectors.md).
 *
 * Formats (all little-endian, as written by the data sets' own tools and by numpy's tofile on
 * x86):
 *   .fvecs / .bvecs / .ivecs (texmex, http://corpus-texmex.irisa.fr/): each row is an int32
 *       dimension count d, then d float32 / uint8 / int32 values;
 *   .fbin / .u8bin / .i8bin (big-ann-benchmarks, https://big-ann-benchmarks.com/): a header of
 *       uint32 rows n and uint32 dimensions d, then n * d float32 / uint8 / int8 values.
 * Every row is checked (a row cut short, a dimension count that differs from the first row's or
 * from `dims`, a header that disagrees with the file's size, a float that is not finite) and
 * refused with the file and the row. Each row is rendered once here, as the variable renders
 * it (a JSON array or a base64 string), so sending is a copy.
 */
#include "bf_vecfile.h"

#include "bf_buf.h"
#include "bf_mem.h"

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

int bf_vecfile_load(const char *name, const unsigned char *data, size_t len, uint32_t want_dims,
                    int base64, int little, size_t max_rendered, bf_vecfile_t *out, char *msg,
                    size_t size)
{
    memset(out, 0, sizeof *out);
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
