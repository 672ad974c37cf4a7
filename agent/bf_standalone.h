/* SPDX-License-Identifier: MIT */
/* bf_standalone.h — `bulkfleet-agent run SCENARIO`: cells on one host without a coordinator,
 * the single-host loadgen use case. Prints the same per-cell summary as the coordinator. */
#ifndef BF_STANDALONE_H
#define BF_STANDALONE_H

/* bf_standalone_main — argv[0] is "run"; --results DIR writes the coordinator's results
 * directory under DIR. Returns the exit code (enum bf_exit: 0, 1 cells failed, 2 bad
 * input, 3 environment, 130/143 interrupted). */
int bf_standalone_main(int argc, char **argv);

/* bf_standalone_render_main — argv[0] is "render": write --requests N (default 1) bulk bodies
 * of the cell (--cell, default the first) to stdout, back to back, exactly as the first worker
 * thread of a standalone run renders them. Returns 0, 1 (rendering failed), 2 bad input, 3
 * write error. */
int bf_standalone_render_main(int argc, char **argv);

/* Set by the signal handler: the running cell is aborted and the program exits. */
extern volatile int bf_standalone_stop_flag;

#endif
