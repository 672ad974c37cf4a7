/* SPDX-License-Identifier: MIT */
/* bf_file.c — one capped read of a whole regular file (bf_file.h). */
#include "bf_file.h"

#include "bf_error.h"
#include "bf_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int bf_file_read(const char *full, size_t cap, char **data, size_t *len, int *err_no)
{
    /* O_NONBLOCK: opening a FIFO nobody writes would wait forever; on a regular file it
     * changes nothing */
    int fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        *err_no = errno;
        return errno == ENOENT ? BF_E_NOTFOUND : BF_E_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *err_no = errno;
        close(fd);
        return BF_E_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        *err_no = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        close(fd);
        return BF_E_IO;
    }
    if ((uint64_t)st.st_size > cap) {
        close(fd);
        return BF_E_TOOBIG;
    }
    size_t size = (size_t)st.st_size, got = 0;
    char *buf = bf_malloc(size + 1);
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            *err_no = r < 0 ? errno : EIO;
            free(buf);
            close(fd);
            return BF_E_IO;
        }
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    *data = buf;
    *len = got;
    return BF_OK;
}
