/* SPDX-License-Identifier: MIT */
/* bf_corpus.h — a corpus of real documents: decompressed, indexed by line, sliced per stream.
 *
 * A corpus file (document.corpus in a scenario) holds one document per line: either the JSON
 * source alone (format "source"), or an action-and-metadata line followed by the source line
 * (format "bulk": Rally's `includes-action-and-meta-data: true`, the _bulk NDJSON shape). The
 * file may be plain, gzip (RFC 1952, zlib), bzip2 (libbz2) or zstd (libzstd); the kind is told
 * by its first bytes (1f 8b, "BZh", 28 b5 2f fd), not by its name. Concatenated members /
 * streams are read as one.
 *
 * Opening decompresses the whole file into memory and indexes every document: offset and
 * length of its source line, its line number in the decompressed text (for messages), and
 * from a bulk-format action line its _id and routing (kept as ready-to-copy action-line
 * pieces). Lines that are empty (or only white space) are skipped. A line that cannot be a
 * document (a source not starting with '{' and ending with '}', a bulk action that is not
 * {"index"|"create":{...}}, a source line missing after an action) is not indexed: it is
 * counted, its line number kept (the first BF_CORPUS_BAD_KEEP), and it is never sent.
 * bf_corpus_check parses sources fully (jansson, duplicate keys refused as OpenSearch does).
 *
 * Slices (after Rally's corpus partitioning over clients): stream s of S reads documents
 * [floor(s*n/S), floor((s+1)*n/S)), so the fleet's streams read disjoint slices covering the
 * corpus once per pass.
 *
 * An opened corpus is immutable: any number of threads may read it at once.
 */
#ifndef BF_CORPUS_H
#define BF_CORPUS_H

#include "bf_buf.h"
#include "bf_error.h"

#include <stddef.h>
#include <stdint.h>

#define BF_MAX_CORPUS_BYTES ((size_t)4 << 30) /* decompressed text of one corpus */
#define BF_MAX_CORPUS_DOC_BYTES (64u << 20)   /* one source line */
#define BF_CORPUS_BAD_KEEP 10                 /* line numbers of bad lines kept for messages */

enum bf_corpus_format { BF_CORPUS_SOURCE = 0, BF_CORPUS_BULK };
enum bf_corpus_codec { BF_CORPUS_PLAIN = 0, BF_CORPUS_GZIP, BF_CORPUS_BZIP2, BF_CORPUS_ZSTD };

typedef struct bf_corpus bf_corpus_t;

/* One document as indexed. */
typedef struct bf_corpus_doc {
    uint64_t src_off;     /* source line in the text */
    uint32_t src_len;     /* without the '\n' */
    uint32_t line;        /* 1-based line number of the source line in the decompressed text */
    uint32_t meta_off;    /* bulk format: action-line pieces in the meta pool */
    uint16_t id_len;      /* ,"_id":"..." (0: none in the file) */
    uint16_t routing_len; /* ,"routing":"..." right after it (0: none) */
} bf_corpus_doc_t;

/* bf_corpus_open — decompress (by magic bytes) and index `len` bytes at `data` (borrowed;
 * copied as needed). `name` names the file in messages ("corpus/logs.json.gz").
 * Returns 0 and *out (caller owns: bf_corpus_destroy), or with diag set: BF_E_PARSE (corrupt
 * or truncated compressed data, with the codec and the library's message), BF_E_TOOBIG (more
 * than BF_MAX_CORPUS_BYTES decompressed, or a line over BF_MAX_CORPUS_DOC_BYTES), BF_E_INVAL
 * (no document at all). Thread-safe (no shared state). */
int bf_corpus_open(const char *name, const void *data, size_t len, enum bf_corpus_format format,
                   bf_corpus_t **out, bf_diag_t *diag);
/* bf_corpus_open_parts — one corpus of n files (document.corpus.path as a list): each
 * decompressed by its own magic bytes, their documents in file order (a file not ending in
 * '\n' is joined to the next on a line break). names[i] names file i in messages; datas[i] /
 * lens[i] are borrowed. Line numbers of the whole text map back to a file and its line with
 * bf_corpus_where. Same return codes as bf_corpus_open, the cap on the sum of the files. */
int bf_corpus_open_parts(const char *const *names, const void *const *datas, const size_t *lens,
                         size_t n, enum bf_corpus_format format, bf_corpus_t **out,
                         bf_diag_t *diag);
/* bf_corpus_open_files — the same from n files on this host (corpus.local_path as a list). */
int bf_corpus_open_files(const char *const *paths, size_t n, enum bf_corpus_format format,
                         bf_corpus_t **out, bf_diag_t *diag);
/* bf_corpus_doc_part — the file (0 .. bf_corpus_parts - 1) document i < bf_corpus_docs comes
 * from, in O(files). Thread-safe (reads only). */
size_t bf_corpus_doc_part(const bf_corpus_t *c, size_t i);
/* bf_corpus_where — the file (borrowed) and the line in it (*line_in_file) of line `line` of
 * the whole text (bf_corpus_doc_t.line, bf_corpus_bad_line). */
const char *bf_corpus_where(const bf_corpus_t *c, uint32_t line, uint32_t *line_in_file);
/* One file of a corpus (bf_corpus_part): its name (borrowed, valid while the corpus lives),
 * codec, bytes as read, bytes decompressed and documents indexed from it (bad lines excluded). */
typedef struct bf_corpus_part {
    const char *name;
    enum bf_corpus_codec codec;
    uint64_t file_bytes, text_bytes;
    size_t docs;
} bf_corpus_part_t;
/* bf_corpus_parts — the files the corpus was made of (1 for one file). */
size_t bf_corpus_parts(const bf_corpus_t *c);
/* bf_corpus_part — file i < bf_corpus_parts into *out (O(documents): for plan and messages).
 * BF_E_RANGE for another i. Thread-safe for reading. */
int bf_corpus_part(const bf_corpus_t *c, size_t i, bf_corpus_part_t *out);
/* bf_corpus_open_file — the same from a file on this host (corpus.local_path), read whole.
 * BF_E_NOTFOUND / BF_E_IO with the path and errno's text when it cannot be read. */
int bf_corpus_open_file(const char *path, enum bf_corpus_format format, bf_corpus_t **out,
                        bf_diag_t *diag);
void bf_corpus_destroy(bf_corpus_t **c_p);

/* bf_corpus_docs — documents indexed (bad lines excluded). */
size_t bf_corpus_docs(const bf_corpus_t *c);
/* bf_corpus_doc — document i < bf_corpus_docs (borrowed, valid while c lives). */
const bf_corpus_doc_t *bf_corpus_doc(const bf_corpus_t *c, size_t i);
/* bf_corpus_doc_array — all documents, [0, bf_corpus_docs) (borrowed; for loops that would
 * otherwise call bf_corpus_doc once a document). */
const bf_corpus_doc_t *bf_corpus_doc_array(const bf_corpus_t *c);
/* bf_corpus_lines_end_nl — 1 when every document's source line is followed by '\n' in the
 * text (no CR, trailing blanks or unterminated last line), so source + '\n' can be sent as
 * one piece without looking at the text (bf_tmpl_gather_corpus). */
int bf_corpus_lines_end_nl(const bf_corpus_t *c);
/* bf_corpus_text — the decompressed text (borrowed); a document's source is text + src_off. */
const char *bf_corpus_text(const bf_corpus_t *c);
/* bf_corpus_meta — the action-line pieces pool (borrowed). */
const char *bf_corpus_meta(const bf_corpus_t *c);
/* bf_corpus_name / _codec / _text_bytes — for messages and estimates. */
const char *bf_corpus_name(const bf_corpus_t *c);
enum bf_corpus_codec bf_corpus_codec(const bf_corpus_t *c);
const char *bf_corpus_codec_name(enum bf_corpus_codec k);
size_t bf_corpus_text_bytes(const bf_corpus_t *c);
/* bf_corpus_memory_bytes — bytes an opened corpus holds, for memory projections (plan): the
 * decompressed text, the document index (allocated capacity) and the action-line pool, plus
 * the one byte a document that an agent's slice check keeps (bf_run). Not counted: the file
 * as read or shipped (the caller knows its size). */
size_t bf_corpus_memory_bytes(const bf_corpus_t *c);
/* bf_corpus_interleave — rearranges the text for contiguous bulk bodies (the agent's fast path
 * when every document gets its action line from the corpus alone): the new text holds, for each
 * document of [from, to) in order, head + the file's ,"_id":".." and ,"routing":".." pieces (as
 * bf_corpus_doc_t's id_len / routing_len) + "}}\n" + its source line + "\n", so documents
 * [a, b) are one byte range (bf_corpus_bulk_range). The old text is freed (both are held while
 * the new one is built: the peak at Prepare); sources, line numbers and the index stay valid
 * for [from, to), documents outside it are no longer readable (their text is gone: only
 * [from, to) may be used afterwards). head (borrowed, copied) is the action line's start,
 * {"<action>":{"_index":"<name>" (bf_tmpl_corpus_bulk_head). Called again with the same
 * arguments it does nothing; with another head or a range inside [from, to) it rebuilds.
 * Returns 0 or BF_E_INVAL (a range outside the documents still readable). Not
 * thread-safe: call before any other thread reads the corpus. */
int bf_corpus_interleave(bf_corpus_t *c, size_t from, size_t to, const char *head, size_t head_len);
/* bf_corpus_interleave_bytes — the text bytes bf_corpus_interleave(c, from, to, head of
 * head_len bytes) builds (with its NUL), for memory projections (plan). */
size_t bf_corpus_interleave_bytes(const bf_corpus_t *c, size_t from, size_t to, size_t head_len);
/* bf_corpus_interleaved — 1 after bf_corpus_interleave. */
int bf_corpus_interleaved(const bf_corpus_t *c);
/* bf_corpus_bulk_range — documents [a, b) (a < b, inside the interleaved range) as bulk
 * NDJSON: the text bytes [*off, *off + *len). Interleaved corpus only. */
void bf_corpus_bulk_range(const bf_corpus_t *c, size_t a, size_t b, size_t *off, size_t *len);
/* bf_corpus_mean_doc_bytes — mean bytes of a source line plus its '\n' (0 if empty). */
size_t bf_corpus_mean_doc_bytes(const bf_corpus_t *c);
/* bf_corpus_has_ids — 1 when some bulk action line carries an _id. */
int bf_corpus_has_ids(const bf_corpus_t *c);

/* bf_corpus_bad_count — lines found unfit while indexing; bf_corpus_bad_line(c, i) the line
 * number of the i-th (i < min(count, BF_CORPUS_BAD_KEEP)) and bf_corpus_bad_why its reason
 * (borrowed static text). */
size_t bf_corpus_bad_count(const bf_corpus_t *c);
uint32_t bf_corpus_bad_line(const bf_corpus_t *c, size_t i);
const char *bf_corpus_bad_why(const bf_corpus_t *c, size_t i);

/* bf_corpus_slice — the documents [*from, *to) of stream `stream` of `streams` (see the file
 * comment). streams >= 1, stream < streams. */
void bf_corpus_slice(const bf_corpus_t *c, uint32_t stream, uint32_t streams, size_t *from,
                     size_t *to);

/* Called by bf_corpus_check for a source that is not a JSON object: document i, its line, and
 * jansson's reason. */
typedef void (*bf_corpus_bad_fn)(void *ctx, size_t i, uint32_t line, const char *why);
/* bf_corpus_check — parse the sources of documents [from, to) with jansson, every `step`-th
 * one (step 1 = all; a larger step samples a big corpus). Calls bad (may be NULL) for each
 * that is not a JSON object and, when keep != NULL, sets keep[i - from] to 1 for a good
 * document and 0 for a bad one (documents skipped by the step are marked good). Returns the
 * number of bad documents found. Thread-safe (reads only). */
size_t bf_corpus_check(const bf_corpus_t *c, size_t from, size_t to, size_t step,
                       bf_corpus_bad_fn bad, void *ctx, uint8_t *keep);

#endif
