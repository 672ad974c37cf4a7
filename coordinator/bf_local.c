/* SPDX-License-Identifier: MIT */
/* bf_local.c — local agent processes. */
#include "bf_local.h"

#include "bf_clock.h"
#include "bf_error.h"
#include "bf_log.h"
#include "bf_mem.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

char *bf_local_agent_path(void)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    char *dir = dirname(self);
    const char *cands[] = {"/bulkfleet-agent", "/../agent/bulkfleet-agent"};
    for (size_t i = 0; i < 2; i++) {
        char *p = bf_asprintf("%s%s", dir, cands[i]);
        if (access(p, X_OK) == 0)
            return p;
        free(p);
    }
    return NULL;
}

int bf_local_spawn(const char *agent_path, const char *control_endpoint, uint32_t n,
                   uint32_t threads, const char *keys_dir, pid_t *pids)
{
    pid_t parent = getpid();
    for (uint32_t i = 0; i < n; i++) {
        char id[32], th[16];
        snprintf(id, sizeof id, "local-%u", i + 1);
        snprintf(th, sizeof th, "%u", threads);
        pid_t pid = fork();
        if (pid < 0) {
            bf_error("cannot start a local agent: %s", strerror(errno));
            return BF_E_IO;
        }
        if (pid == 0) {
            /* a process group of its own: Ctrl-C at the terminal reaches the coordinator only,
             * which stops the cell and keeps the agents' last seconds (they would die with the
             * signal otherwise); and it dies with the coordinator (kill -9 leaves nothing
             * loading the cluster) */
            setpgid(0, 0);
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (getppid() != parent)
                _exit(0); /* the coordinator died before prctl took effect */
            char *argv[14];
            int k = 0;
            argv[k++] = (char *)agent_path;
            argv[k++] = "--coordinator";
            argv[k++] = (char *)control_endpoint;
            argv[k++] = "--quiet"; /* the coordinator reports progress; agents only warn */
            argv[k++] = "--id";
            argv[k++] = id;
            if (keys_dir) {
                argv[k++] = "--keys";
                argv[k++] = (char *)keys_dir;
            } else {
                argv[k++] = "--insecure";
            }
            if (threads) {
                argv[k++] = "--threads";
                argv[k++] = th;
            }
            argv[k] = NULL;
            execv(agent_path, argv);
            fprintf(stderr, "bulkfleet-coordinator: cannot run %s: %s\n", agent_path, strerror(errno));
            _exit(127); /* the shell's "command not found", only seen by waitpid */
        }
        pids[i] = pid;
    }
    return BF_OK;
}

void bf_local_stop(pid_t *pids, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (pids[i] > 0)
            kill(pids[i], SIGTERM);
    uint64_t deadline = bf_clock_mono_us() + 5000000u;
    uint32_t left = n;
    while (left > 0 && bf_clock_mono_us() < deadline) {
        left = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (pids[i] <= 0)
                continue;
            if (waitpid(pids[i], NULL, WNOHANG) == pids[i])
                pids[i] = 0;
            else
                left++;
        }
        if (left)
            bf_clock_sleep_us(50000);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (pids[i] > 0) {
            bf_warn("local agent %d did not stop in 5 s; killing it", (int)pids[i]);
            kill(pids[i], SIGKILL);
            waitpid(pids[i], NULL, 0);
            pids[i] = 0;
        }
    }
}
