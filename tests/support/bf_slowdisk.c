/* SPDX-License-Identifier: MIT */
/* bf_slowdisk.c — an LD_PRELOAD shim that makes one directory a slow disk.
 *
 * This kernel has no device mapper (dm-delay), cgroup v1 blkio does not throttle buffered
 * writes, and libfuse is not installed: so the chaos driver (bench/chaos.py) and the slow-disk
 * tests slow the results directory down inside the processes that write it. Loaded with
 * LD_PRELOAD=libbf_slowdisk.so, the calls that reach a disk on a path under BF_SLOWDISK_DIR
 * sleep first, then do their work unchanged (results, errno, short writes all the real ones):
 *
 *   open, open64, openat, openat64, creat, creat64   when they create or open for writing
 *   fopen, fopen64                                   with a mode that writes ("w", "a", "+")
 *   write, pwrite, pwrite64, writev                  on a descriptor opened under the directory
 *   fsync, fdatasync                                 on such a descriptor (the directory too)
 *   fflush, fclose                                   of such a stream with output pending
 *   rename, renameat                                 either name under the directory
 *
 * glibc's stdio writes through internal calls no preload can see, so a stream's writes are
 * slowed at fflush/fclose (where the coordinator's sample lines reach the kernel); a buffer
 * that fills between two flushes goes out unslowed.
 *
 * Environment (read once, at the first call):
 *   BF_SLOWDISK_DIR      the directory (absolute, or relative to the working directory then);
 *                        unset or empty: the shim does nothing
 *   BF_SLOWDISK_MS       the delay of each call in ms (default 0) while no control file is read
 *   BF_SLOWDISK_CONTROL  a file holding the delay in ms as a decimal number ("0": off), read
 *                        again at most every 100 ms so a driver switches the slowness on and
 *                        off while the process runs; missing or not a number: BF_SLOWDISK_MS
 *   BF_SLOWDISK_OPS      a comma list of the calls to slow (by their family names: open,
 *                        write, fsync, flush, rename; default all)
 *   BF_SLOWDISK_LOG      a file each slowed call appends one line to: "<op> <ms> <pid> <what>\n"
 *
 * Descriptors above 65535 are not followed (their writes are not slowed). Thread-safe: the
 * descriptor table is atomic, the control file's cache is under a mutex; a sleep is interrupted
 * by no signal (it resumes for the time left). Not a public API of bulkfleet: a test tool. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define SD_MAX_FD 65536
#define SD_REREAD_NS 100000000LL /* the control file is read at most every 100 ms */
#define SD_UNDER 1u              /* descriptor opened under the directory */
#define SD_WRITES 2u             /* ... for writing */

enum sd_op { OP_OPEN = 1, OP_WRITE = 2, OP_FSYNC = 4, OP_FLUSH = 8, OP_RENAME = 16 };

static _Atomic unsigned char fds[SD_MAX_FD];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static char dir[PATH_MAX], real_dir[PATH_MAX];
static size_t dir_len, real_dir_len;
static long env_ms;
static unsigned ops = ~0u;
static const char *ctl_path;
static long ctl_ms = -1;      /* the control file's last value, -1: none */
static long long ctl_read_ns; /* when it was read (CLOCK_MONOTONIC) */
static int log_fd = -1;

/* the next definition of a libc function (the real one), looked up once: real_<name>() */
#define REAL_FN(name)                                                                              \
    static __typeof__(&name) real_##name(void)                                                     \
    {                                                                                              \
        static _Atomic(__typeof__(&name)) p;                                                       \
        __typeof__(&name) f = atomic_load(&p);                                                     \
        if (f == NULL) {                                                                           \
            f = (__typeof__(&name))dlsym(RTLD_NEXT, #name);                                        \
            atomic_store(&p, f);                                                                   \
        }                                                                                          \
        return f;                                                                                  \
    }
#define REAL(name) real_##name()
REAL_FN(open)
REAL_FN(openat)
REAL_FN(openat64)
REAL_FN(fopen)
REAL_FN(fopen64)
REAL_FN(write)
REAL_FN(pwrite)
REAL_FN(pwrite64)
REAL_FN(writev)
REAL_FN(fsync)
REAL_FN(fdatasync)
REAL_FN(close)
REAL_FN(fflush)
REAL_FN(fclose)
REAL_FN(rename)
REAL_FN(renameat)

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long parse_ms(const char *s)
{
    char *end = NULL;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : -1;
    if (s == NULL || end == s || errno || v < 0)
        return -1;
    while (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t')
        end++;
    return *end ? -1 : v;
}

static size_t trim_dir(char *d)
{
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
        d[--n] = '\0';
    return n;
}

static void init(void)
{
    const char *d = getenv("BF_SLOWDISK_DIR");
    if (d == NULL || d[0] == '\0')
        return;
    if (d[0] == '/') {
        snprintf(dir, sizeof dir, "%s", d);
    } else {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd) == NULL)
            return;
        snprintf(dir, sizeof dir, "%s/%s", cwd, d);
    }
    dir_len = trim_dir(dir);
    if (realpath(dir, real_dir) != NULL)
        real_dir_len = trim_dir(real_dir);
    long ms = parse_ms(getenv("BF_SLOWDISK_MS"));
    env_ms = ms < 0 ? 0 : ms;
    ctl_path = getenv("BF_SLOWDISK_CONTROL");
    if (ctl_path && ctl_path[0] == '\0')
        ctl_path = NULL;
    const char *o = getenv("BF_SLOWDISK_OPS");
    if (o && o[0]) {
        static const struct {
            const char *name;
            unsigned bit;
        } names[] = {{"open", OP_OPEN},
                     {"write", OP_WRITE},
                     {"fsync", OP_FSYNC},
                     {"flush", OP_FLUSH},
                     {"rename", OP_RENAME}};
        ops = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            size_t n = strlen(names[i].name);
            for (const char *p = o; (p = strstr(p, names[i].name)) != NULL; p += n)
                if ((p == o || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
                    ops |= names[i].bit;
        }
    }
    const char *lg = getenv("BF_SLOWDISK_LOG");
    if (lg && lg[0])
        log_fd = REAL(open)(lg, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

static int active(void)
{
    pthread_once(&once, init);
    return dir_len > 0;
}

/* the delay now, in ms: the control file's (cached 100 ms), else BF_SLOWDISK_MS */
static long delay_ms(void)
{
    if (ctl_path == NULL)
        return env_ms;
    pthread_mutex_lock(&ctl_lock);
    long long t = now_ns();
    if (ctl_read_ns == 0 || t - ctl_read_ns >= SD_REREAD_NS) {
        ctl_read_ns = t;
        ctl_ms = -1;
        int fd = REAL(open)(ctl_path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            char buf[32];
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n > 0) {
                buf[n] = '\0';
                ctl_ms = parse_ms(buf);
            }
        }
    }
    long ms = ctl_ms >= 0 ? ctl_ms : env_ms;
    pthread_mutex_unlock(&ctl_lock);
    return ms;
}

static void slow(enum sd_op op, const char *name, const char *what)
{
    if (!(ops & op))
        return;
    long ms = delay_ms();
    if (ms <= 0)
        return;
    struct timespec left = {ms / 1000, (ms % 1000) * 1000000L};
    int e = errno;
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
    if (log_fd >= 0) {
        char line[PATH_MAX + 64];
        int n = snprintf(line, sizeof line, "%s %ld %ld %s\n", name, ms, (long)getpid(), what);
        if (n > 0)
            (void)!REAL(write)(log_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
    errno = e;
}

static int prefix_of(const char *d, size_t n, const char *p)
{
    return n > 0 && strncmp(p, d, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

/* 1 when path (relative to dirfd) names the directory or something under it */
static int under(int dirfd, const char *path)
{
    if (!active() || path == NULL)
        return 0;
    if (path[0] == '/')
        return prefix_of(dir, dir_len, path) || prefix_of(real_dir, real_dir_len, path);
    if (dirfd != AT_FDCWD)
        return dirfd >= 0 && dirfd < SD_MAX_FD && (atomic_load(&fds[dirfd]) & SD_UNDER);
    char cwd[PATH_MAX], full[2 * PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL)
        return 0;
    snprintf(full, sizeof full, "%s/%s", cwd, path);
    return prefix_of(dir, dir_len, full) || prefix_of(real_dir, real_dir_len, full);
}

static unsigned fd_flags(int fd)
{
    return fd >= 0 && fd < SD_MAX_FD && dir_len ? atomic_load(&fds[fd]) : 0;
}

static void track(int fd, int under_dir, int writes)
{
    if (fd >= 0 && fd < SD_MAX_FD)
        atomic_store(&fds[fd],
                     (unsigned char)(under_dir ? SD_UNDER | (writes ? SD_WRITES : 0) : 0));
}

static int writes_flags(int flags)
{
    return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC));
}

static int do_openat(int dirfd, const char *path, int flags, mode_t mode,
                     int (*real)(int, const char *, int, ...))
{
    int u = under(dirfd, path);
    if (u && writes_flags(flags))
        slow(OP_OPEN, "open", path);
    int fd = real(dirfd, path, flags, mode);
    int e = errno;
    track(fd, u, writes_flags(flags));
    errno = e;
    return fd;
}

#define MODE_ARG(flags, mode)                                                                      \
    mode_t mode = 0;                                                                               \
    if ((flags) & (O_CREAT | O_TMPFILE)) {                                                         \
        va_list ap;                                                                                \
        va_start(ap, flags);                                                                       \
        mode = (mode_t)va_arg(ap, int);                                                            \
        va_end(ap);                                                                                \
    }

int open(const char *path, int flags, ...);
int open(const char *path, int flags, ...)
{
    MODE_ARG(flags, mode);
    return do_openat(AT_FDCWD, path, flags, mode, REAL(openat));
}

int open64(const char *path, int flags, ...);
int open64(const char *path, int flags, ...)
{
    MODE_ARG(flags, mode);
    return do_openat(AT_FDCWD, path, flags, mode, REAL(openat64));
}

int openat(int dirfd, const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...)
{
    MODE_ARG(flags, mode);
    return do_openat(dirfd, path, flags, mode, REAL(openat));
}

int openat64(int dirfd, const char *path, int flags, ...);
int openat64(int dirfd, const char *path, int flags, ...)
{
    MODE_ARG(flags, mode);
    return do_openat(dirfd, path, flags, mode, REAL(openat64));
}

int creat(const char *path, mode_t mode);
int creat(const char *path, mode_t mode)
{
    return do_openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode, REAL(openat));
}

int creat64(const char *path, mode_t mode);
int creat64(const char *path, mode_t mode)
{
    return do_openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode, REAL(openat64));
}

static FILE *do_fopen(const char *path, const char *mode, FILE *(*real)(const char *, const char *))
{
    int u = under(AT_FDCWD, path);
    int w = mode && strpbrk(mode, "wa+") != NULL;
    if (u && w)
        slow(OP_OPEN, "open", path);
    FILE *f = real(path, mode);
    int e = errno;
    if (f)
        track(fileno(f), u, w);
    errno = e;
    return f;
}

FILE *fopen(const char *path, const char *mode)
{
    return do_fopen(path, mode, REAL(fopen));
}

FILE *fopen64(const char *path, const char *mode);
FILE *fopen64(const char *path, const char *mode)
{
    return do_fopen(path, mode, REAL(fopen64));
}

static void slow_fd(enum sd_op op, const char *name, int fd, unsigned need)
{
    if ((fd_flags(fd) & need) == need) {
        char what[32];
        snprintf(what, sizeof what, "fd %d", fd);
        slow(op, name, what);
    }
}

ssize_t write(int fd, const void *buf, size_t n)
{
    slow_fd(OP_WRITE, "write", fd, SD_UNDER | SD_WRITES);
    return REAL(write)(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    slow_fd(OP_WRITE, "write", fd, SD_UNDER | SD_WRITES);
    return REAL(pwrite)(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off);
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    slow_fd(OP_WRITE, "write", fd, SD_UNDER | SD_WRITES);
    return REAL(pwrite64)(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    slow_fd(OP_WRITE, "write", fd, SD_UNDER | SD_WRITES);
    return REAL(writev)(fd, iov, iovcnt);
}

int fsync(int fd)
{
    slow_fd(OP_FSYNC, "fsync", fd, SD_UNDER);
    return REAL(fsync)(fd);
}

int fdatasync(int fd)
{
    slow_fd(OP_FSYNC, "fsync", fd, SD_UNDER);
    return REAL(fdatasync)(fd);
}

int close(int fd)
{
    track(fd, 0, 0);
    return REAL(close)(fd);
}

/* a stream whose descriptor is under the directory, open for writing, with output pending */
static int pending(FILE *f)
{
    if (f == NULL || !dir_len ||
        (fd_flags(fileno(f)) & (SD_UNDER | SD_WRITES)) != (SD_UNDER | SD_WRITES))
        return 0;
#ifdef __GLIBC__
    return f->_IO_write_ptr > f->_IO_write_base;
#else
    return 1;
#endif
}

int fflush(FILE *f)
{
    if (pending(f))
        slow_fd(OP_FLUSH, "flush", fileno(f), SD_UNDER | SD_WRITES);
    return REAL(fflush)(f);
}

int fclose(FILE *f)
{
    if (f == NULL)
        return REAL(fclose)(f);
    int fd = fileno(f);
    if (pending(f))
        slow_fd(OP_FLUSH, "flush", fd, SD_UNDER | SD_WRITES);
    track(fd, 0, 0);
    return REAL(fclose)(f);
}

int rename(const char *from, const char *to)
{
    if (under(AT_FDCWD, from) || under(AT_FDCWD, to))
        slow(OP_RENAME, "rename", to);
    return REAL(rename)(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to)
{
    if (under(fromfd, from) || under(tofd, to))
        slow(OP_RENAME, "rename", to);
    return REAL(renameat)(fromfd, from, tofd, to);
}
