/* SPDX-License-Identifier: MIT */
/* bf_samplelog.c — the raw samples' writer thread: batches appended, flushed, fdatasync'ed.
 *
 * One mutex guards the queue, the byte count, the durable sequence numbers and the error; the
 * thread takes the whole queue at once (one fdatasync per batch, however many samples came
 * while the previous batch waited for the disk) and publishes the batch's sequence numbers
 * only after its fdatasync returned. */
#include "bf_samplelog.h"

#include "bf_error.h"
#include "bf_log.h"
#include "bf_mem.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct entry {
    struct entry *next;
    uint32_t slot;
    uint64_t seq;
    size_t len;
    char *line;
} entry;

struct bf_samplelog {
    FILE *f;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    entry *head, *tail;  /* queued, not yet taken by the thread */
    size_t lines, bytes; /* queued + the batch being written */
    size_t max_bytes;
    uint32_t nslots;
    uint64_t *durable; /* per slot */
    int stop;
    int err;          /* errno of the first failure, 0 while none */
    const char *step; /* what failed: "write", "flush", "fdatasync" */
};

static void free_list(entry *e)
{
    while (e) {
        entry *next = e->next;
        free(e->line);
        free(e);
        e = next;
    }
}

/* write one batch; 0, or the errno of the failure with *step set */
static int write_batch(FILE *f, const entry *e, const char **step)
{
    for (; e; e = e->next) {
        if (fwrite(e->line, 1, e->len, f) != e->len || fputc('\n', f) == EOF) {
            *step = "write";
            return errno ? errno : EIO;
        }
    }
    if (fflush(f) != 0) {
        *step = "flush";
        return errno ? errno : EIO;
    }
    if (fdatasync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS) {
        /* EINVAL/EROFS: a file that cannot be synchronised (a pipe, a special file): what
         * fflush gave the OS is all there is */
        *step = "fdatasync";
        return errno;
    }
    return 0;
}

static void *writer_main(void *arg)
{
    bf_samplelog_t *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->head == NULL && !w->stop)
            pthread_cond_wait(&w->wake, &w->lock);
        if (w->head == NULL)
            break; /* stopped with nothing left */
        entry *batch = w->head;
        w->head = w->tail = NULL;
        int failed = w->err != 0;
        pthread_mutex_unlock(&w->lock);
        const char *step = NULL;
        int e = failed ? 0 : write_batch(w->f, batch, &step);
        pthread_mutex_lock(&w->lock);
        if (e && !w->err) {
            w->err = e;
            w->step = step;
        }
        for (entry *b = batch; b; b = b->next) {
            if (!w->err && b->seq > w->durable[b->slot])
                w->durable[b->slot] = b->seq;
            w->lines--;
            w->bytes -= b->len + 1;
        }
        pthread_mutex_unlock(&w->lock);
        free_list(batch);
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

bf_samplelog_t *bf_samplelog_new(FILE *f, uint32_t nslots, size_t max_bytes)
{
    if (f == NULL)
        return NULL;
    bf_samplelog_t *w = bf_calloc(1, sizeof *w);
    w->f = f;
    w->nslots = nslots;
    w->durable = bf_calloc(nslots ? nslots : 1, sizeof *w->durable);
    w->max_bytes = max_bytes ? max_bytes : BF_SAMPLELOG_MAX_BYTES;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    int e = pthread_create(&w->thread, NULL, writer_main, w);
    if (e != 0) {
        bf_error("cannot start the samples' writer thread: %s", strerror(e));
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w->durable);
        free(w);
        return NULL;
    }
    return w;
}

int bf_samplelog_push(bf_samplelog_t *w, uint32_t slot, uint64_t seq, char *line)
{
    if (slot >= w->nslots) {
        free(line);
        return BF_E_RANGE;
    }
    size_t len = strlen(line);
    pthread_mutex_lock(&w->lock);
    int rc = BF_OK;
    if (w->err)
        rc = BF_E_IO;
    else if (w->bytes > 0 && w->bytes + len + 1 > w->max_bytes)
        rc = BF_E_TOOBIG; /* one line always fits an empty queue, however long */
    if (rc != BF_OK) {
        pthread_mutex_unlock(&w->lock);
        free(line);
        return rc;
    }
    entry *e = bf_malloc(sizeof *e);
    *e = (entry){.slot = slot, .seq = seq, .len = len, .line = line};
    if (w->tail)
        w->tail->next = e;
    else
        w->head = e;
    w->tail = e;
    w->lines++;
    w->bytes += len + 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    return BF_OK;
}

uint64_t bf_samplelog_durable(bf_samplelog_t *w, uint32_t slot)
{
    if (slot >= w->nslots)
        return 0;
    pthread_mutex_lock(&w->lock);
    uint64_t seq = w->durable[slot];
    pthread_mutex_unlock(&w->lock);
    return seq;
}

size_t bf_samplelog_pending(bf_samplelog_t *w, size_t *bytes)
{
    pthread_mutex_lock(&w->lock);
    size_t lines = w->lines;
    if (bytes)
        *bytes = w->bytes;
    pthread_mutex_unlock(&w->lock);
    return lines;
}

int bf_samplelog_error(bf_samplelog_t *w, char *msg, size_t msg_size)
{
    pthread_mutex_lock(&w->lock);
    int e = w->err;
    if (e && msg && msg_size)
        snprintf(msg, msg_size, "%s: %s", w->step, strerror(e));
    pthread_mutex_unlock(&w->lock);
    return e ? BF_E_IO : BF_OK;
}

int bf_samplelog_close(bf_samplelog_t **w_p)
{
    bf_samplelog_t *w = w_p ? *w_p : NULL;
    if (w == NULL)
        return BF_OK;
    *w_p = NULL;
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    int rc = w->err ? BF_E_IO : BF_OK;
    free_list(w->head);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w->durable);
    free(w);
    return rc;
}
