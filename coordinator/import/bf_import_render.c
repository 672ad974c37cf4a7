/* SPDX-License-Identifier: MIT */
/* bf_import_render.c — run coordinator/render_track.py (Jinja2) for import-rally. */
#include "bf_import_render.h"

#include "bf_buf.h"
#include "bf_clock.h"
#include "bf_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RENDER_TIMEOUT_MS 120000
#define MAX_RENDER_OUT (256u << 20) /* the rendered track and its files */
#define MAX_RENDER_ERR (64u << 10)

#ifndef BF_RENDERER_SRC
#define BF_RENDERER_SRC ""
#endif
#ifndef BF_RENDERER_INSTALLED
#define BF_RENDERER_INSTALLED "/usr/share/bulkfleet/render_track.py"
#endif

static int is_file(const char *p)
{
    struct stat st;
    return p && *p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

const char *bf_import_render_path(void)
{
    const char *env = getenv("BF_TRACK_RENDERER");
    if (env && *env)
        return is_file(env) ? env : NULL;
    if (is_file(BF_RENDERER_SRC))
        return BF_RENDERER_SRC;
    if (is_file(BF_RENDERER_INSTALLED))
        return BF_RENDERER_INSTALLED;
    return NULL;
}

/* the renderer's stderr without its trailing newline, at most one message */
static void trim(bf_buf_t *b)
{
    while (b->len && (b->data[b->len - 1] == '\n' || b->data[b->len - 1] == '\r'))
        b->data[--b->len] = '\0';
}

int bf_import_render(const char *track_file, const bf_render_opts_t *opts, json_t **out,
                     bf_diag_t *diag)
{
    *out = NULL;
    const char *renderer = bf_import_render_path();
    if (renderer == NULL)
        return bf_diag_set(diag, BF_E_NOTFOUND,
                           "import-rally: the track renderer render_track.py is not installed "
                           "(looked at $BF_TRACK_RENDERER, %s, %s): install bulkfleet with "
                           "cmake --install or its .deb, or set BF_TRACK_RENDERER",
                           *BF_RENDERER_SRC ? BF_RENDERER_SRC : "(no source tree)",
                           BF_RENDERER_INSTALLED);
    const char *argv[12];
    size_t n = 0;
    argv[n++] = "python3";
    argv[n++] = renderer;
    argv[n++] = track_file;
    if (opts && opts->params) {
        argv[n++] = "--params";
        argv[n++] = opts->params;
    }
    if (opts && opts->build_flavor) {
        argv[n++] = "--build-flavor";
        argv[n++] = opts->build_flavor;
    }
    if (opts && opts->serverless_operator)
        argv[n++] = "--serverless-operator";
    if (opts && opts->distribution_version) {
        argv[n++] = "--distribution-version";
        argv[n++] = opts->distribution_version;
    }
    argv[n] = NULL;
    int po[2], pe[2];
    if (pipe2(po, O_CLOEXEC) != 0)
        return bf_diag_set(diag, BF_E_IO, "import-rally: pipe: %s", strerror(errno));
    if (pipe2(pe, O_CLOEXEC) != 0) {
        close(po[0]);
        close(po[1]);
        return bf_diag_set(diag, BF_E_IO, "import-rally: pipe: %s", strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(po[0]);
        close(po[1]);
        close(pe[0]);
        close(pe[1]);
        return bf_diag_set(diag, BF_E_IO, "import-rally: fork: %s", strerror(e));
    }
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        execvp("python3", (char *const *)argv);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    bf_buf_t ob, eb;
    bf_buf_init(&ob, MAX_RENDER_OUT);
    bf_buf_init(&eb, MAX_RENDER_ERR);
    int too_big = 0, timed_out = 0;
    uint64_t deadline = bf_clock_mono_us() + (uint64_t)RENDER_TIMEOUT_MS * 1000u;
    struct pollfd fds[2] = {{.fd = po[0], .events = POLLIN}, {.fd = pe[0], .events = POLLIN}};
    int open_fds = 2;
    while (open_fds > 0) {
        uint64_t now = bf_clock_mono_us();
        if (now >= deadline) {
            timed_out = 1;
            break;
        }
        int r = poll(fds, 2, (int)((deadline - now) / 1000u) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        for (int k = 0; k < 2; k++) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char chunk[65536];
            ssize_t got = read(fds[k].fd, chunk, sizeof chunk);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                close(fds[k].fd);
                fds[k].fd = -1;
                open_fds--;
                continue;
            }
            bf_buf_t *b = k == 0 ? &ob : &eb;
            if (bf_buf_append(b, chunk, (size_t)got) != BF_OK && k == 0)
                too_big = 1;
        }
        if (too_big)
            break;
    }
    for (int k = 0; k < 2; k++)
        if (fds[k].fd >= 0)
            close(fds[k].fd);
    if (timed_out || too_big)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    trim(&eb);
    int rc = BF_OK;
    if (timed_out)
        rc = bf_diag_set(diag, BF_E_TIMEOUT,
                         "%s: rendering the track with Jinja2 took more than %d s (a template "
                         "that loops?); stopped",
                         track_file, RENDER_TIMEOUT_MS / 1000);
    else if (too_big)
        rc = bf_diag_set(diag, BF_E_TOOBIG, "%s: the rendered track is larger than %u MiB",
                         track_file, MAX_RENDER_OUT >> 20);
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        rc = bf_diag_set(diag, BF_E_NOTFOUND,
                         "import-rally renders tracks with Jinja2 through python3, which is not "
                         "installed: run scripts/install-deps.sh (python3, python3-jinja2)");
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
        rc = bf_diag_set(diag, BF_E_NOTFOUND, "%s",
                         eb.len ? eb.data : "python3-jinja2 is not installed");
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        rc = bf_diag_set(diag, BF_E_PARSE, "%s",
                         eb.len ? eb.data : "the track renderer failed without a message");
    if (rc == BF_OK) {
        json_error_t je;
        *out = json_loadb(ob.data ? ob.data : "", ob.len, 0, &je);
        if (*out == NULL || !json_is_string(json_object_get(*out, "track"))) {
            json_decref(*out);
            *out = NULL;
            rc = bf_diag_set(diag, BF_E_PARSE,
                             "%s: the track renderer %s answered something else than its JSON "
                             "(%s)",
                             track_file, renderer, je.text);
        }
    }
    bf_buf_cleanup(&ob);
    bf_buf_cleanup(&eb);
    return rc;
}
