/* SPDX-License-Identifier: MIT */
/* bf_local.h — start and stop agent processes on this host (`run --local-agents N`). */
#ifndef BF_LOCAL_H
#define BF_LOCAL_H

#include <stdint.h>
#include <sys/types.h>

/* bf_local_agent_path — the bulkfleet-agent next to this executable (installed layout) or in
 * the build tree (../agent/). Returns a malloc'd path or NULL when not found. */
char *bf_local_agent_path(void);

/* bf_local_spawn — start `n` agents connecting to control_endpoint with the given threads
 * (0 = default), ids "local-1".."local-n", with --keys keys_dir (CURVE) or --insecure when
 * keys_dir is NULL. pids[] receives the process ids. Each agent runs in a process group of
 * its own (a terminal's Ctrl-C reaches only the coordinator, which stops the cell so the
 * agents' last seconds reach the results) and gets SIGTERM when the coordinator dies
 * (prctl PR_SET_PDEATHSIG). Returns 0 or BF_E_IO (errors logged). */
int bf_local_spawn(const char *agent_path, const char *control_endpoint, uint32_t n,
                   uint32_t threads, const char *keys_dir, pid_t *pids);

/* bf_local_stop — SIGTERM each live pid, wait up to 5 s, then SIGKILL; reaps them all. */
void bf_local_stop(pid_t *pids, uint32_t n);

#endif
