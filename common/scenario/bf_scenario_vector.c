/* SPDX-License-Identifier: MIT */
/* bf_scenario_vector.c — the loader's vector variables (docs/vectors.md): a generated vector's
 * keys (dims, element type, distribution, encoding, precision, pool) and a vector file's
 * (file, rows, passes; the file checked and opened through bf_vecfile.h). The other variable
 * types are built in bf_scenario_build.c. */
#include "bf_scenario_int.h"
#include "bf_mem.h"
#include "bf_vecfile.h"

#include <stdio.h>
#include <string.h>

/* A vector variable's file: (bf_vecfile.h): its rows rendered into v's values. */
static int build_vector_file(bf__load_t *L, bf_var_spec_t *v, const bf__kval_t *vv, const char *dp)
{
    static const int not_with_file[] = {BF__K_VAR_DISTRIBUTION, BF__K_VAR_PRECISION, BF__K_VAR_POOL,
                                        BF__K_VAR_ELEMENT_TYPE};
    int kept = BF_OK, rc = BF_OK; /* validate: every key the file makes useless, each said */
    for (size_t i = 0; rc == BF_OK && i < sizeof not_with_file / sizeof not_with_file[0]; i++)
        if (vv[not_with_file[i]].key)
            rc = bf__gather(L,
                            bf__err(L, vv[not_with_file[i]].key, BF_E_INVAL,
                                    "%s.%s: not used with file: (the file's rows are the vectors)",
                                    dp, bf__keys[not_with_file[i]].path + 12),
                            &kept);
    if (rc != BF_OK)
        return rc;
    const bf_ynode_t *fn = vv[BF__K_VAR_FILE].node;
    const char *path = vv[BF__K_VAR_FILE].s;
    /* an HDF5 data set is FILE#dataset: the file is what is read and shipped */
    char key[96], file[1024];
    snprintf(key, sizeof key, "%s.file", dp);
    snprintf(file, sizeof file, "%.*s", (int)strcspn(path, "#"), path);
    const char *text, *local;
    size_t len;
    rc = bf__ref_local(L, fn, key, "vector file", file, BF_MAX_CORPUS_SHIP_BYTES, &text, &len,
                       &local);
    if (rc != BF_OK)
        return bf__gather(L, rc, &kept) != BF_OK ? rc : kept;
    char msg[512];
    bf_vecfile_t *vf = NULL;
    rc = bf_vecfile_open(path, local, (const unsigned char *)text, len,
                         vv[BF__K_VAR_DIMS].set ? (uint32_t)vv[BF__K_VAR_DIMS].u : 0, &vf, msg,
                         sizeof msg);
    double mean = 0;
    if (rc == BF_OK)
        rc = bf_vecfile_check(vf, v->enc == BF_VEC_BASE64, v->little, &mean, msg, sizeof msg);
    if (rc != BF_OK) {
        bf_vecfile_close(&vf);
        rc = bf__err(L, fn, rc, "%s.file: %s", dp, msg);
        return bf__gather(L, rc, &kept) != BF_OK ? rc : kept;
    }
    if (kept == BF_OK && vv[BF__K_VAR_ROWS].set && vv[BF__K_VAR_ROWS].u > bf_vecfile_rows(vf))
        kept = bf__err(L, vv[BF__K_VAR_ROWS].node, BF_E_INVAL,
                       "%s.rows: %llu, but %s has %llu rows; give at most %llu or remove rows:", dp,
                       (unsigned long long)vv[BF__K_VAR_ROWS].u, path,
                       (unsigned long long)bf_vecfile_rows(vf),
                       (unsigned long long)bf_vecfile_rows(vf));
    if (kept != BF_OK) {
        bf_vecfile_close(&vf);
        return kept;
    }
    v->path = bf_strdup(path);
    v->vfile = vf;
    v->passes = (uint32_t)vv[BF__K_VAR_PASSES].u;
    v->nvalues = (size_t)bf_vecfile_rows(vf);
    if (vv[BF__K_VAR_ROWS].set) /* the first N rows only: every count of rows follows nvalues */
        v->nvalues = (size_t)vv[BF__K_VAR_ROWS].u;
    v->max_value_len = bf_vecfile_max_len(vf, v->enc == BF_VEC_BASE64);
    v->total_value_len = (size_t)(mean * (double)v->nvalues);
    v->dims = bf_vecfile_dims(vf);
    v->elem = bf_vecfile_integer(vf) ? BF_VEC_BYTE : BF_VEC_FLOAT;
    v->kind = v->enc == BF_VEC_BASE64 ? BF_VAR_KIND_STRING : BF_VAR_KIND_FRAGMENT;
    return BF_OK;
}

int bf__build_vector(bf__load_t *L, bf_var_spec_t *v, const bf__kval_t *vv, const bf_ynode_t *at,
                     const char *dp)
{
    if (vv[BF__K_VAR_PASSES].key && !vv[BF__K_VAR_FILE].set)
        return bf__err(L, vv[BF__K_VAR_PASSES].key, BF_E_INVAL,
                       "%s.passes: only a vector file has passes (its rows, each sent once a "
                       "pass); remove it or give file:",
                       dp);
    if (vv[BF__K_VAR_ROWS].key && !vv[BF__K_VAR_FILE].set)
        return bf__err(L, vv[BF__K_VAR_ROWS].key, BF_E_INVAL,
                       "%s.rows: only a vector file has rows (the first N of the file are used); "
                       "remove it or give file:",
                       dp);
    if (vv[BF__K_VAR_PASSES].key && v->scope == BF_VAR_SCOPE_REQUEST)
        return bf__err(L, vv[BF__K_VAR_PASSES].key, BF_E_INVAL,
                       "%s.passes: a vector file read in passes gives each document its own row; "
                       "remove scope: request",
                       dp);
    if (vv[BF__K_VAR_FILE].set) {
        v->enc = (uint8_t)vv[BF__K_VAR_ENCODING].e;
        v->little = vv[BF__K_VAR_BYTE_ORDER].e == 1;
        return build_vector_file(L, v, vv, dp);
    }
    if (!vv[BF__K_VAR_DIMS].set)
        return bf__err(L, at, BF_E_INVAL,
                       "%s: type vector needs dims: (the number of dimensions, as the mapping's "
                       "dims)",
                       dp);
    v->dims = (uint32_t)vv[BF__K_VAR_DIMS].u;
    v->elem = (uint8_t)vv[BF__K_VAR_ELEMENT_TYPE].e;
    v->dist = (uint8_t)vv[BF__K_VAR_DISTRIBUTION].e;
    v->enc = (uint8_t)vv[BF__K_VAR_ENCODING].e;
    v->little = vv[BF__K_VAR_BYTE_ORDER].e == 1;
    v->precision = (uint32_t)vv[BF__K_VAR_PRECISION].u;
    /* validate: each of these is said, not one per fix (they need nothing of each other);
     * a load stops at the first (rc) */
    int kept = BF_OK, rc = BF_OK;
    if (v->elem == BF_VEC_BIT && v->dims % 8 != 0)
        rc = bf__gather(L,
                        bf__err(L, vv[BF__K_VAR_DIMS].node, BF_E_INVAL,
                                "%s.dims: element_type bit needs dims a multiple of 8 (one byte "
                                "holds 8 dimensions), not %u",
                                dp, v->dims),
                        &kept);
    if (rc == BF_OK && v->elem != BF_VEC_FLOAT && v->dist == BF_VEC_UNIT)
        rc = bf__gather(L,
                        bf__err(L, vv[BF__K_VAR_DISTRIBUTION].node, BF_E_INVAL,
                                "%s.distribution: unit vectors are float; for element_type %s "
                                "use uniform or normal",
                                dp, v->elem == BF_VEC_BYTE ? "byte" : "bit"),
                        &kept);
    if (rc == BF_OK && v->elem == BF_VEC_BIT && v->dist == BF_VEC_NORMAL)
        rc = bf__gather(L,
                        bf__err(L, vv[BF__K_VAR_DISTRIBUTION].node, BF_E_INVAL,
                                "%s.distribution: bits are uniform (fair coin flips); remove "
                                "distribution: normal",
                                dp),
                        &kept);
    if (rc == BF_OK && vv[BF__K_VAR_PRECISION].key && v->elem != BF_VEC_FLOAT)
        rc = bf__gather(L,
                        bf__err(L, vv[BF__K_VAR_PRECISION].key, BF_E_INVAL,
                                "%s.precision: only float vectors have decimal digits; remove it",
                                dp),
                        &kept);
    if (rc == BF_OK && vv[BF__K_VAR_BYTE_ORDER].key &&
        (v->elem != BF_VEC_FLOAT || v->enc != BF_VEC_BASE64))
        rc = bf__gather(L,
                        bf__err(L, vv[BF__K_VAR_BYTE_ORDER].key, BF_E_INVAL,
                                "%s.byte_order: only float vectors in base64 have a byte order; "
                                "remove it",
                                dp),
                        &kept);
    if (rc != BF_OK)
        return rc;
    v->pool = (uint32_t)vv[BF__K_VAR_POOL].u;
    v->kind = v->enc == BF_VEC_BASE64 ? BF_VAR_KIND_STRING : BF_VAR_KIND_FRAGMENT;
    if (kept != BF_OK)
        return kept;
    if ((uint64_t)v->pool * bf_var_max_len(v, 0) > BF__MAX_VECTOR_POOL)
        return bf__err(L, vv[BF__K_VAR_POOL].node, BF_E_TOOBIG,
                       "%s.pool: %u vectors of up to %zu bytes are over %u MiB a thread; lower "
                       "pool",
                       dp, v->pool, bf_var_max_len(v, 0), BF__MAX_VECTOR_POOL >> 20);
    return BF_OK;
}
