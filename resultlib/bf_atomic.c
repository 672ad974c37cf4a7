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

int bf_atomic_open(bf_atomic_file_t *f, const char *path, bf_diag_t *diag)
{
    f->path = bf_strdup(path);
    f->tmp = bf_asprintf("%s.tmp.%ld", path, (long)getpid());
    f->err = 0;
    f->step = "create";
    f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f->fd < 0) {
        int e = errno;
        int rc = bf_diag_set(diag, BF_E_IO, "cannot write %s (create): %s", path, strerror(e));
        free(f->path);
        free(f->tmp);
        f->path = f->tmp = NULL;
        return rc;
    }
    return BF_OK;
}

int bf_atomic_append(bf_atomic_file_t *f, const void *data, size_t len)
{
    if (f->err)
        return BF_E_IO;
    const char *p = data;
    for (size_t off = 0; off < len;) {
        ssize_t w = write(f->fd, p + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            f->err = w < 0 ? errno : EIO;
            f->step = "write";
            return BF_E_IO;
        }
        off += (size_t)w;
    }
    return BF_OK;
}

static void release(bf_atomic_file_t *f)
{
    free(f->path);
    free(f->tmp);
    f->path = f->tmp = NULL;
}

void bf_atomic_abort(bf_atomic_file_t *f)
{
    if (f == NULL || f->tmp == NULL)
        return;
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    unlink(f->tmp);
    release(f);
}

int bf_atomic_commit(bf_atomic_file_t *f, bf_diag_t *diag)
{
    if (!f->err && fsync(f->fd) != 0) {
        f->err = errno;
        f->step = "fsync";
    }
    int crc = close(f->fd);
    f->fd = -1;
    if (!f->err && crc != 0) {
        f->err = errno;
        f->step = "close";
    }
    if (!f->err && rename(f->tmp, f->path) != 0) {
        f->err = errno;
        f->step = "rename";
    }
    if (f->err) {
        int rc = bf_diag_set(diag, BF_E_IO, "cannot write %s (%s): %s", f->path, f->step,
                             strerror(f->err));
        unlink(f->tmp);
        release(f);
        return rc;
    }
    /* the file is complete and in place; a failed directory fsync only weakens durability */
    int rc = BF_OK;
    if (sync_dir(f->path) != 0 && errno != EINVAL)
        rc = bf_diag_set(diag, BF_E_IO, "cannot write %s: fsync of its directory: %s", f->path,
                         strerror(errno));
    release(f);
    return rc;
}

int bf_atomic_write(const char *path, const char *data, size_t len, bf_diag_t *diag)
{
    bf_atomic_file_t f;
    int rc = bf_atomic_open(&f, path, diag);
    if (rc != BF_OK)
        return rc;
    bf_atomic_append(&f, data, len);
    return bf_atomic_commit(&f, diag);
}
