/* SPDX-License-Identifier: MIT */
/* bf_keys.h — CURVE key files and the allow-list of agent public keys
 * (docs/internals/fleet-protocol.md, security).
 *
 * Files: NAME.key holds the secret key as one Z85 line (40 characters) and must not be
 * readable by group or others (0600); NAME.pub holds the public key as one Z85 line. An
 * allow-list is a directory of *.pub files. All functions are thread-safe (no shared state).
 */
#ifndef BF_KEYS_H
#define BF_KEYS_H

#include "bf_error.h"

#include <stddef.h>
#include <stdint.h>

#define BF_Z85_KEY_LEN 40

/* bf_keys_generate — create DIR (0700) if missing and write DIR/NAME.key (0600) and
 * DIR/NAME.pub. Refuses to overwrite an existing NAME.key (BF_E_INVAL). 0 or BF_E_IO with diag. */
int bf_keys_generate(const char *dir, const char *name, bf_diag_t *diag);

/* bf_keys_load_secret — read DIR/NAME.key; check its permissions (no group/other access, else
 * BF_E_INVAL "chmod 600 ..."); derive the public key. secret_z85 and public_z85 get 41 bytes
 * (NUL-terminated). 0, BF_E_NOTFOUND, BF_E_INVAL or BF_E_PARSE with diag. */
int bf_keys_load_secret(const char *dir, const char *name, char *secret_z85, char *public_z85,
                        bf_diag_t *diag);

/* bf_keys_load_public — read DIR/NAME.pub (41 bytes into public_z85). */
int bf_keys_load_public(const char *dir, const char *name, char *public_z85, bf_diag_t *diag);

/* bf_keys_allowed — 1 if the 32-byte public key `key` is one of the key files in allow_dir
 * (bf_keys_scan_allowed), else 0. name (may be NULL, size name_size) gets the key's name.
 * Reads the directory on every call so keys can be added while the coordinator runs. */
int bf_keys_allowed(const char *allow_dir, const uint8_t *key, char *name, size_t name_size);

/* bf_keys_scan_allowed — call fn(ctx, key, name) for every regular file in allow_dir (any
 * file name, in name order) holding one valid Z85 public key line; key is the 32-byte binary
 * key and name the file name without a ".pub" ending (both borrowed for the call): agents/agentA
 * and agents/agentA.pub both name key "agentA" (keygen --help says so). Every other entry is
 * skipped, and skip(ctx, file, why) (skip may be NULL) says why: not a regular file, a secret
 * key file (*.key) without its .pub beside it (the secret half of a pair is skipped silently),
 * unreadable, not a key line, a key name an earlier file took. Returns the
 * number of keys, or BF_E_NOTFOUND when the directory cannot be opened. Thread-safe (no
 * shared state). */
typedef void (*bf_keys_each_fn)(void *ctx, const uint8_t *key, const char *name);
typedef void (*bf_keys_skip_fn)(void *ctx, const char *file, const char *why);
int bf_keys_scan_allowed(const char *allow_dir, bf_keys_each_fn fn, bf_keys_skip_fn skip,
                         void *ctx);

/* bf_keys_each_allowed — bf_keys_scan_allowed without the skipped files: for callers that index
 * the allow-list once instead of reading it per handshake (bf_zap). */
int bf_keys_each_allowed(const char *allow_dir, bf_keys_each_fn fn, void *ctx);

/* bf_keys_fingerprint — a short, stable name of a public key for logs: "sha256:" and the first
 * 16 hex digits of SHA-256 over the 32 key bytes (as SSH names keys by a hash, never by the key
 * itself). out gets BF_KEY_FP_LEN + 1 bytes, NUL-terminated. Pure, thread-safe. */
#define BF_KEY_FP_LEN 23
void bf_keys_fingerprint(const uint8_t key[32], char out[BF_KEY_FP_LEN + 1]);

/* bf_keys_fingerprint_z85 — the same for a Z85 public key (40 characters); "" when it does not
 * decode. */
void bf_keys_fingerprint_z85(const char *public_z85, char out[BF_KEY_FP_LEN + 1]);

#endif
