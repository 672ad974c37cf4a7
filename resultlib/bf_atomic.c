/* SPDX-License-Identifier: MIT */
/* bf_atomic.c — temp + fsync + rename + directory fsync, every step checked. */
#include "bf_atomic.h"

#include "bf_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* fsync the directory holding path, so the rename survives a crash */
static int sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? bf_asprintf("%.*s", (int)(slash - path), path) : bf_strdup(".");
    int fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int bf_atomic_write(const char *path, const char *data, size_t len, bf_diag_t *diag)
{
    char *tmp = bf_asprintf("%s.tmp.%ld", path, (long)getpid());
    const char *step = "create";
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err = 0;
    if (fd < 0) {
        err = errno;
        goto error;
    }
    step = "write";
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            err = w < 0 ? errno : EIO;
            goto error;
        }
        off += (size_t)w;
    }
    step = "fsync";
    if (fsync(fd) != 0) {
        err = errno;
        goto error;
    }
    step = "close";
    int crc = close(fd);
    fd = -1;
    if (crc != 0) {
        err = errno;
        goto error;
    }
    step = "rename";
    if (rename(tmp, path) != 0) {
        err = errno;
        goto error;
    }
    free(tmp);
    /* the file is complete and in place; a failed directory fsync only weakens durability */
    if (sync_dir(path) != 0 && errno != EINVAL)
        return bf_diag_set(diag, BF_E_IO, "cannot write %s: fsync of its directory: %s", path,
                           strerror(errno));
    return BF_OK;

error:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    free(tmp);
    return bf_diag_set(diag, BF_E_IO, "cannot write %s (%s): %s", path, step, strerror(err));
}
