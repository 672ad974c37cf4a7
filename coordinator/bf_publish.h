/* SPDX-License-Identifier: MIT */
/* bf_publish.h — `bulkfleet-coordinator publish RESULTS_DIR --metrics-store URL`: load a
 * finished (or older, or interrupted) results directory into a metrics store after the fact.
 *
 * The documents and their ids are the ones `run --metrics-store` sends (bf_mstore_docs.h), so
 * publishing a directory twice, or after a live run, leaves the counts unchanged. Unlike the
 * live run it waits for room in the buffer instead of dropping (nothing to keep pace with).
 */
#ifndef BF_PUBLISH_H
#define BF_PUBLISH_H

/* bf_publish_cmd — argv[0] is "publish". Options: --metrics-store URL (required; basic auth
 * as http://user:password@host), --ca-file PEM, --insecure-tls, --flush-wait DURATION (60s),
 * --print-templates (print the two index template bodies, one per line, and exit).
 * Returns the exit code: 0 every document indexed, 1 some dropped (said which and why),
 * 2 bad input (not a results directory, bad option), 3 the store never answered. */
int bf_publish_cmd(int argc, char **argv);

#endif
