/* SPDX-License-Identifier: MIT */
/* bf_cmd_scenario.h — the scenario subcommands of bulkfleet-coordinator.
 *
 *   bulkfleet-coordinator validate FILE [--cluster-nodes N]
 *   bulkfleet-coordinator plan FILE [--agents N] [--cluster-nodes N]
 *   bulkfleet-coordinator import-loadgen LOADGEN.yml [-c N] [-d SECONDS] [-r QPS] [--compress]
 *                                        [--name NAME] [-o OUT.yaml]
 *
 * Each takes argv[0] = the subcommand name, prints to stdout (results) and stderr (errors,
 * warnings) and returns the process exit code (enum bf_exit): 0 ok, 2 bad input (usage,
 * invalid scenario), 3 environment (a file that cannot be read or written for reasons other
 * than not existing).
 * Nothing here touches a cluster. Not thread-safe (getopt).
 */
#ifndef BF_CMD_SCENARIO_H
#define BF_CMD_SCENARIO_H

/* validate: load the scenario (env resolved, files read, matrix expanded, template rendered and
 * checked) and print one summary line ("ok: NAME: N cells; axes: ...") plus warnings. */
int bf_cmd_validate(int argc, char **argv);

/* plan: the cells in run order with their axes, projected bulk body and per-agent memory, and
 * the estimated campaign duration: cells x repeat x (warmup + duration + ~5 s setup). */
int bf_cmd_plan(int argc, char **argv);

/* import-loadgen: print a scenario equivalent to an INFINI loadgen config (variables mapped,
 * body_repeat_times -> batch_size, url -> target.hosts and index, basic_auth -> auth with the
 * password replaced by ${ES_PASSWORD}, -compress -> request.compression, -c -> concurrency,
 * -d -> run.duration). See bf_import_loadgen.h for the mapping. */
int bf_cmd_import_loadgen(int argc, char **argv);

#endif
