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
 * refused with the file and the row. The file is never read whole: bf_vecfile_check reads it a
 * block of rows at a time (BF_VECFILE_CHUNK_BYTES), a sending thread reads its next rows
 * (BF_VECFILE_WINDOW_BYTES) and renders each as it sends it (a JSON array or a base64 string).
 */
#include "bf_vecfile.h"

#include "bf_buf.h"
#include "bf_mem.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* the first non-finite float of a row of d float32 at p, or -1 */
static long first_bad(const unsigned char *p, uint32_t d)
{
    for (uint32_t i = 0; i < d; i++) {
        float f;
        uint32_t u = rd32(p + 4 * i);
        memcpy(&f, &u, 4);
        if (!isfinite(f))
            return (long)i;
    }
    return -1;
}

/* Debian's libhdf5 is the serial build: every HDF5 call of the process goes through this lock */
static pthread_mutex_t h5_lock = PTHREAD_MUTEX_INITIALIZER;

struct bf_vecfile {
    char file[1024]; /* the file, for messages (without #dataset) */
    char set[256];   /* HDF5: the data set; "" for the other formats */
    enum vf_elem e;
    size_t es;       /* bytes an element */
    int texmex;      /* rows start with their int32 dimension count */
    uint32_t d;      /* dimensions */
    uint64_t rows;   /* whole rows */
    uint64_t hdr;    /* byte of row 0 (8 for .fbin, 0 for texmex) */
    uint64_t stride; /* bytes a row in the file (texmex: 4 + d * es) and in a read buffer */
    uint64_t fsize;  /* the file's bytes */
    const unsigned char *data; /* the file's bytes (borrowed), or NULL: read fd */
    int fd;
    hid_t h5f, h5ds, h5mty; /* HDF5: the file, data set, element type read (-1: none) */
};

uint64_t bf_vecfile_rows(const bf_vecfile_t *vf)
{
    return vf->rows;
}

uint32_t bf_vecfile_dims(const bf_vecfile_t *vf)
{
    return vf->d;
}

int bf_vecfile_integer(const bf_vecfile_t *vf)
{
    return vf->e != VF_F32;
}

size_t bf_vecfile_row_bytes(const bf_vecfile_t *vf)
{
    return (size_t)vf->stride;
}

size_t bf_vecfile_chunk_rows(const bf_vecfile_t *vf, int window)
{
    const char *t = getenv("BF_TEST_VECFILE_CHUNK_ROWS");
    char *end = NULL;
    unsigned long long rows = t ? strtoull(t, &end, 10) : 0;
    if (t && end != t && *end == '\0' && rows > 0 && rows < ((size_t)1 << 30))
        return (size_t)rows;
    size_t n = (window ? BF_VECFILE_WINDOW_BYTES : BF_VECFILE_CHUNK_BYTES) / vf->stride;
    return n ? n : 1;
}

size_t bf_vecfile_max_len(const bf_vecfile_t *vf, int base64)
{
    size_t d = vf->d;
    if (base64)
        return 4 * ((d * (vf->e == VF_F32 || vf->e == VF_I32 ? 4 : 1) + 2) / 3);
    size_t el = vf->e == VF_F32 ? 15 : vf->e == VF_I32 ? 11 : vf->e == VF_I8 ? 4 : 3;
    return 2 + d * (el + 1);
}

void bf_vecfile_close(bf_vecfile_t **vf_p)
{
    if (vf_p == NULL || *vf_p == NULL)
        return;
    bf_vecfile_t *vf = *vf_p;
    if (vf->h5f >= 0 || vf->h5ds >= 0 || vf->h5mty >= 0) {
        pthread_mutex_lock(&h5_lock);
        if (vf->h5mty >= 0)
            H5Tclose(vf->h5mty);
        if (vf->h5ds >= 0)
            H5Dclose(vf->h5ds);
        if (vf->h5f >= 0)
            H5Fclose(vf->h5f);
        pthread_mutex_unlock(&h5_lock);
    }
    if (vf->fd >= 0)
        close(vf->fd);
    free(vf);
    *vf_p = NULL;
}

/* bytes [off, off + n) of the file into dst; 0, or -1 (short: the file changed, or an I/O error) */
static int read_at(const bf_vecfile_t *vf, uint64_t off, size_t n, unsigned char *dst)
{
    if (off > vf->fsize || n > vf->fsize - off)
        return -1;
    if (vf->data) {
        memcpy(dst, vf->data + off, n);
        return 0;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(vf->fd, dst + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* ---- HDF5 data sets (ann-benchmarks' train / test; OpenSearch Benchmark's vectorsearch) --------
 * From a path with H5Fopen, or from the file's bytes as a file image (H5LTopen_file_image, not
 * copied). The data set must be 2-dimensional (rows x dimensions) of float (32 or 64 bit, read as
 * float32), uint8 or int8; rows are read with a hyperslab selection (HDF5 converts to
 * little-endian float32 / bytes on the way), never the whole data set. */

/* the names of the file's top-level objects, ", "-separated, into b */
static herr_t h5_name(hid_t g, const char *name, const H5L_info_t *info, void *b)
{
    (void)g;
    (void)info;
    bf_buf_t *bb = b;
    bf_buf_appendf(bb, "%s%s", bb->len ? ", " : "", name);
    return 0;
}

/* called with h5_lock held */
static int open_hdf5(bf_vecfile_t *vf, const char *path, uint32_t want_dims, char *msg, size_t size)
{
    const char *name = vf->file, *set = vf->set;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are said here, with the file */
    unsigned char sig[8] = {0};
    if (vf->data) {
        if (vf->fsize >= 8)
            memcpy(sig, vf->data, 8);
    } else if (vf->fsize >= 8 && read_at(vf, 0, 8, sig) != 0) {
        snprintf(msg, size, "%s: cannot read it: %s", name, strerror(errno));
        return BF_E_IO;
    }
    if (memcmp(sig, "\x89HDF\r\n\x1a\n", 8) != 0) {
        snprintf(msg, size,
                 "%s: not an HDF5 file (no HDF5 signature at byte 0); a PATH#dataset names a "
                 "data set of an HDF5 file (ann-benchmarks' .hdf5)",
                 name);
        return BF_E_INVAL;
    }
    if (vf->data) {
        /* (HDF5 1.10 keeps a 72-byte block of this call for good with DONT_RELEASE: one per
         * file, named in tests/sanitize/lsan.supp) */
        vf->h5f = H5LTopen_file_image((void *)vf->data, (size_t)vf->fsize,
                                      H5LT_FILE_IMAGE_DONT_COPY | H5LT_FILE_IMAGE_DONT_RELEASE);
    } else {
        vf->h5f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    }
    if (vf->h5f < 0) {
        snprintf(msg, size, "%s: HDF5 cannot open it (%llu bytes: cut short?)", name,
                 (unsigned long long)vf->fsize);
        return BF_E_INVAL;
    }
    vf->h5ds = H5Lexists(vf->h5f, set, H5P_DEFAULT) > 0 ? H5Dopen2(vf->h5f, set, H5P_DEFAULT) : -1;
    if (vf->h5ds < 0) {
        bf_buf_t names;
        bf_buf_init(&names, 0);
        H5Literate(vf->h5f, H5_INDEX_NAME, H5_ITER_INC, NULL, h5_name, &names);
        snprintf(msg, size, "%s: no data set '%s' (the file has: %s)", name, set,
                 names.len ? names.data : "nothing");
        bf_buf_cleanup(&names);
        return BF_E_INVAL;
    }
    hid_t sp = H5Dget_space(vf->h5ds), ty = H5Dget_type(vf->h5ds);
    hsize_t dims[2] = {0, 0};
    int rank = H5Sget_simple_extent_ndims(sp);
    int rc = BF_OK;
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
    if (cls == H5T_FLOAT && (tsz == 4 || tsz == 8)) {
        vf->e = VF_F32;
        vf->h5mty = H5Tcopy(H5T_IEEE_F32LE);
    } else if (cls == H5T_INTEGER && tsz == 1) {
        int sgn = H5Tget_sign(ty) == H5T_SGN_2;
        vf->e = sgn ? VF_I8 : VF_U8;
        vf->h5mty = H5Tcopy(sgn ? H5T_STD_I8LE : H5T_STD_U8LE);
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
    vf->d = (uint32_t)dims[1];
    if (want_dims && want_dims != vf->d) {
        snprintf(msg, size, "%s: dims: %u, but the rows of data set '%s' have %u dimensions", name,
                 want_dims, set, vf->d);
        rc = BF_E_INVAL;
        goto out;
    }
    if (dims[0] == 0) {
        snprintf(msg, size, "%s: data set '%s' has no rows", name, set);
        rc = BF_E_INVAL;
        goto out;
    }
    vf->rows = dims[0];
    vf->es = vf->e == VF_F32 ? 4 : 1;
    vf->stride = (uint64_t)vf->d * vf->es;
out:
    H5Tclose(ty);
    H5Sclose(sp);
    return rc;
}

/* rows first, first + step, ... (n) of the data set into buf; called with h5_lock held */
static int read_hdf5(bf_vecfile_t *vf, uint64_t first, uint64_t step, size_t n, unsigned char *buf)
{
    hsize_t start[2] = {first, 0}, stride[2] = {step, 1}, cnt[2] = {n, vf->d};
    hid_t fsp = H5Dget_space(vf->h5ds);
    hid_t msp = H5Screate_simple(2, cnt, NULL);
    herr_t hr = H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, stride, cnt, NULL);
    if (hr >= 0)
        hr = H5Dread(vf->h5ds, vf->h5mty, msp, fsp, H5P_DEFAULT, buf);
    H5Sclose(msp);
    H5Sclose(fsp);
    return hr < 0 ? -1 : 0;
}

int bf_vecfile_open(const char *name, const char *path, const unsigned char *data, size_t len,
                    uint32_t want_dims, bf_vecfile_t **out, char *msg, size_t size)
{
    *out = NULL;
    bf_vecfile_t *vf = bf_calloc(1, sizeof *vf);
    vf->fd = -1;
    vf->h5f = vf->h5ds = vf->h5mty = -1;
    vf->data = data;
    vf->fsize = len;
    const char *hash = strchr(name, '#');
    snprintf(vf->file, sizeof vf->file, "%.*s", (int)(hash ? hash - name : (ptrdiff_t)strlen(name)),
             name);
    int rc = BF_OK;
    if (hash && hash[1] == '\0') {
        snprintf(msg, size, "%s: no data set after '#' (write PATH#train, e.g.)", name);
        rc = BF_E_INVAL;
        goto fail;
    }
    const char *dot = strrchr(vf->file, '.');
    const char *ext = dot ? dot + 1 : "";
    if (!hash) {
        if (strcmp(ext, "fvecs") == 0) {
            vf->e = VF_F32, vf->texmex = 1;
        } else if (strcmp(ext, "bvecs") == 0) {
            vf->e = VF_U8, vf->texmex = 1;
        } else if (strcmp(ext, "ivecs") == 0) {
            vf->e = VF_I32, vf->texmex = 1;
        } else if (strcmp(ext, "fbin") == 0) {
            vf->e = VF_F32;
        } else if (strcmp(ext, "u8bin") == 0) {
            vf->e = VF_U8;
        } else if (strcmp(ext, "i8bin") == 0) {
            vf->e = VF_I8;
        } else {
            snprintf(msg, size,
                     "%s: not a vector file format bulkfleet reads (by its extension: "
                     ".fvecs, .bvecs, .ivecs, .fbin, .u8bin, .i8bin; or FILE.hdf5#dataset)",
                     name);
            rc = BF_E_INVAL;
            goto fail;
        }
    }
    if (data == NULL) {
        vf->fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (vf->fd < 0 || fstat(vf->fd, &st) != 0) {
            snprintf(msg, size, "%s: cannot read it: %s", path, strerror(errno));
            rc = BF_E_IO;
            goto fail;
        }
        vf->fsize = (uint64_t)st.st_size;
    }
    if (hash) {
        snprintf(vf->set, sizeof vf->set, "%s", hash + 1);
        pthread_mutex_lock(&h5_lock);
        rc = open_hdf5(vf, path, want_dims, msg, size);
        pthread_mutex_unlock(&h5_lock);
        if (rc != BF_OK)
            goto fail;
        *out = vf;
        return BF_OK;
    }
    vf->es = vf->e == VF_F32 || vf->e == VF_I32 ? 4 : 1;
    unsigned char h[8];
    name = vf->file;
    if (vf->texmex) {
        if (vf->fsize < 4 || read_at(vf, 0, 4, h) != 0) {
            snprintf(msg, size, "%s: %llu bytes: not even one row's dimension count", name,
                     (unsigned long long)vf->fsize);
            rc = BF_E_INVAL;
            goto fail;
        }
        vf->d = rd32(h);
    } else {
        if (vf->fsize < 8 || read_at(vf, 0, 8, h) != 0) {
            snprintf(msg, size, "%s: %llu bytes: shorter than the 8-byte header (rows, dimensions)",
                     name, (unsigned long long)vf->fsize);
            rc = BF_E_INVAL;
            goto fail;
        }
        vf->d = rd32(h + 4);
        vf->hdr = 8;
    }
    if (vf->d == 0 || vf->d > 65536) {
        snprintf(msg, size, "%s: row 1 has %u dimensions (1-65536 expected): not a %s file?", name,
                 vf->d, ext);
        rc = BF_E_INVAL;
        goto fail;
    }
    vf->stride = (uint64_t)vf->d * vf->es + (vf->texmex ? 4 : 0);
    if (!vf->texmex) {
        uint64_t rows = rd32(h);
        uint64_t want = 8 + rows * vf->stride;
        if (want != vf->fsize) {
            uint64_t whole = (vf->fsize - 8) / vf->stride;
            snprintf(msg, size,
                     "%s: the header says %llu rows of %u dimensions (%llu bytes) but "
                     "the file has %llu bytes (%llu whole rows): %s at row %llu",
                     name, (unsigned long long)rows, vf->d, (unsigned long long)want,
                     (unsigned long long)vf->fsize, (unsigned long long)whole,
                     want > vf->fsize ? "truncated" : "extra bytes", (unsigned long long)whole + 1);
            rc = BF_E_INVAL;
            goto fail;
        }
    }
    if (want_dims && want_dims != vf->d) {
        snprintf(msg, size, "%s: dims: %u, but the file's rows have %u dimensions", name, want_dims,
                 vf->d);
        rc = BF_E_INVAL;
        goto fail;
    }
    vf->rows = (vf->fsize - vf->hdr) / vf->stride;
    if (vf->rows == 0 && vf->fsize == vf->hdr) {
        snprintf(msg, size, "%s: no rows", name);
        rc = BF_E_INVAL;
        goto fail;
    }
    *out = vf;
    return BF_OK;
fail:
    bf_vecfile_close(&vf);
    return rc;
}

/* rows [r0, r0 + n) of a read buffer (rows first + i * step) checked: 0, or BF_E_INVAL with msg */
static int check_rows(const bf_vecfile_t *vf, const unsigned char *buf, uint64_t first,
                      uint64_t step, size_t n, char *msg, size_t size)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = buf + i * vf->stride;
        uint64_t r = first + i * step;
        if (vf->texmex) {
            uint32_t rd = rd32(p);
            if (rd != vf->d) {
                snprintf(msg, size, "%s: row %llu (byte %llu) has %u dimensions, row 1 has %u",
                         vf->file, (unsigned long long)r + 1,
                         (unsigned long long)(vf->hdr + r * vf->stride), rd, vf->d);
                return BF_E_INVAL;
            }
            p += 4;
        }
        long bad = vf->e == VF_F32 ? first_bad(p, vf->d) : -1;
        if (bad >= 0) {
            if (vf->set[0])
                snprintf(msg, size,
                         "%s: data set '%s', row %llu, dimension %ld: not a finite number",
                         vf->file, vf->set, (unsigned long long)r + 1, bad + 1);
            else
                snprintf(msg, size, "%s: row %llu, dimension %ld: not a finite number", vf->file,
                         (unsigned long long)r + 1, bad + 1);
            return BF_E_INVAL;
        }
    }
    return BF_OK;
}

int bf_vecfile_read(bf_vecfile_t *vf, uint64_t first, uint64_t step, size_t n, unsigned char *buf,
                    char *msg, size_t size)
{
    if (step == 0)
        step = 1;
    if (n == 0)
        return BF_OK;
    if (first >= vf->rows || (n - 1) * step >= vf->rows - first) {
        snprintf(msg, size, "%s: row %llu is past the file's %llu rows", vf->file,
                 (unsigned long long)(first + (n - 1) * step) + 1, (unsigned long long)vf->rows);
        return BF_E_INVAL;
    }
    int bad = 0;
    errno = 0;
    if (vf->set[0]) {
        pthread_mutex_lock(&h5_lock);
        bad = read_hdf5(vf, first, step, n, buf);
        pthread_mutex_unlock(&h5_lock);
    } else if (step == 1) {
        bad = read_at(vf, vf->hdr + first * vf->stride, n * vf->stride, buf);
    } else {
        for (size_t i = 0; i < n && !bad; i++)
            bad = read_at(vf, vf->hdr + (first + i * step) * vf->stride, vf->stride,
                          buf + i * vf->stride);
    }
    if (bad) {
        if (vf->set[0])
            snprintf(msg, size,
                     "%s: data set '%s': rows %llu-%llu cannot be read (the file is cut short "
                     "or damaged there)",
                     vf->file, vf->set, (unsigned long long)first + 1,
                     (unsigned long long)(first + (n - 1) * step) + 1);
        else
            snprintf(msg, size,
                     "%s: rows %llu-%llu cannot be read (%s; the file changed since it was "
                     "checked?)",
                     vf->file, (unsigned long long)first + 1,
                     (unsigned long long)(first + (n - 1) * step) + 1,
                     errno ? strerror(errno) : "cut short");
        return BF_E_INVAL;
    }
    return check_rows(vf, buf, first, step, n, msg, size);
}

void bf_vecfile_render(const bf_vecfile_t *vf, const unsigned char *row, int base64, int little,
                       unsigned char *raw, bf_buf_t *b)
{
    uint32_t bad;
    render_row(b, row + (vf->texmex ? 4 : 0), vf->d, vf->e, base64, little, raw, &bad);
}

int bf_vecfile_check(bf_vecfile_t *vf, int base64, int little, double *mean_len, char *msg,
                     size_t size)
{
    size_t per = bf_vecfile_chunk_rows(vf, 0);
    unsigned char *buf = bf_malloc(per * vf->stride);
    unsigned char *raw = bf_malloc(4 * (size_t)vf->d);
    bf_buf_t b;
    bf_buf_init(&b, 0);
    uint64_t sampled = 0;
    int rc = BF_OK;
    for (uint64_t r0 = 0; r0 < vf->rows && rc == BF_OK; r0 += per) {
        size_t n = vf->rows - r0 < per ? (size_t)(vf->rows - r0) : per;
        rc = bf_vecfile_read(vf, r0, 1, n, buf, msg, size);
        for (size_t i = 0; rc == BF_OK && i < n && sampled < 1000; i++, sampled++)
            bf_vecfile_render(vf, buf + i * vf->stride, base64, little, raw, &b);
    }
    if (rc == BF_OK && !vf->set[0]) {
        /* bytes after the last whole row: the next row is cut short */
        uint64_t pos = vf->hdr + vf->rows * vf->stride, left = vf->fsize - pos;
        if (left > 0 && vf->texmex && left < 4) {
            snprintf(msg, size,
                     "%s: row %llu (byte %llu) is cut short: %llu bytes where its dimension "
                     "count (4 bytes) should be",
                     vf->file, (unsigned long long)vf->rows + 1, (unsigned long long)pos,
                     (unsigned long long)left);
            rc = BF_E_INVAL;
        } else if (left > 0 && vf->texmex) {
            unsigned char h[4];
            uint32_t rd = read_at(vf, pos, 4, h) == 0 ? rd32(h) : vf->d;
            if (rd != vf->d)
                snprintf(msg, size, "%s: row %llu (byte %llu) has %u dimensions, row 1 has %u",
                         vf->file, (unsigned long long)vf->rows + 1, (unsigned long long)pos, rd,
                         vf->d);
            else
                snprintf(msg, size, "%s: row %llu (byte %llu) is cut short: %llu of its %llu bytes",
                         vf->file, (unsigned long long)vf->rows + 1, (unsigned long long)pos,
                         (unsigned long long)left - 4, (unsigned long long)vf->stride - 4);
            rc = BF_E_INVAL;
        }
    }
    if (rc == BF_OK && mean_len)
        *mean_len = sampled ? (double)b.len / (double)sampled : 0;
    bf_buf_cleanup(&b);
    free(raw);
    free(buf);
    return rc;
}
