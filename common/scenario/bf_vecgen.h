/* SPDX-License-Identifier: MIT */
/* bf_vecgen.h — the arithmetic of drawn `vector` values (docs/vectors.md): normal draws,
 * quantizing to k / 10^precision, and writing the elements as JSON decimals or as base64 of
 * float32. bf_vars renders a vector variable with these; they are public so tests can pin each
 * step on chosen inputs.
 *
 * A float element is k / 10^p for an integer k (|k| <= 16 * 10^p < 2^24) and a precision p in
 * 1..6: in JSON the decimal text of k / 10^p with exactly p fraction digits, in base64 the
 * float32 float32(k) / float32(10^p) — both operands exact in float32, so the quotient is the
 * float32 nearest k / 10^p, the same float32 a JSON parser reads from the text.
 */
#ifndef BF_VECGEN_H
#define BF_VECGEN_H

#include <stddef.h>
#include <stdint.h>

#include "bf_vars.h"

/* The largest |element| a float vector holds (distribution normal is clamped to it). */
#define BF_VEC_MAX_ABS 16

/* bf_vec_normal_fill — n standard normal draws N(0, 1) into out, from r's stream.
 * Method: the ziggurat of Marsaglia & Tsang (J. Stat. Softw. 5(8), 2000) with 256 layers, in
 * Doornik's form ("An Improved Ziggurat Method to Generate Normal Random Samples", 2005): one
 * 64-bit draw a value in about 99 % of cases — its low 8 bits pick the layer and its top 53 bits
 * the signed position in it — the rest a wedge test with exp or the tail by Marsaglia's
 * 1964 method. Never NaN or infinite: |value| < 40. The layer table is computed once per process
 * from R = 3.6541528853610088 and V = 0.00492867323399 (libm exp, log, sqrt).
 * Thread-safe for distinct r. */
void bf_vec_normal_fill(bf_rng_t *r, double *out, size_t n);

/* bf_vec_quantize — k[i] = x[i] * mult clamped to [-lim, lim] and rounded to the nearest
 * integer, halves away from zero, for i < n. NaN gives 0; lim <= 2^30. Thread-safe. */
void bf_vec_quantize(const double *x, size_t n, double mult, double lim, int32_t *k);

/* bf_vec_json_max — the most bytes bf_vec_write_json writes for n elements of precision prec
 * ("[", then each "-16." prec digits ",", the last "," a "]"). */
size_t bf_vec_json_max(size_t n, unsigned prec);

/* bf_vec_write_json — the JSON array of k[i] / 10^prec, i < n (n >= 1; prec 1..6;
 * |k[i]| <= 16 * 10^prec), each with exactly prec fraction digits ("[0.012345,-1.000000]"):
 * no exponent, no "-0" (k = 0 is "0.000000"). dst has room for bf_vec_json_max(n, prec).
 * Returns the bytes written (no NUL). Thread-safe. */
size_t bf_vec_write_json(char *dst, const int32_t *k, size_t n, unsigned prec);

/* bf_vec_write_base64_f32 — RFC 4648 section 4 base64 (with '=' padding) of the float32 values
 * float32(k[i]) / float32(10^prec), i < n, 4 bytes each, little-endian if little else
 * big-endian (|k[i]| < 2^24; prec 1..6). dst has room for 4 * ceil(4n / 3) bytes. Returns the
 * bytes written (no NUL). Thread-safe. */
size_t bf_vec_write_base64_f32(char *dst, const int32_t *k, size_t n, unsigned prec, int little);

/* bf_vec_base64 — RFC 4648 section 4 base64 of src[0..n) with '=' padding into dst (room for
 * 4 * ceil(n / 3)). Returns the bytes written (no NUL). Thread-safe. */
size_t bf_vec_base64(char *dst, const uint8_t *src, size_t n);

#endif
