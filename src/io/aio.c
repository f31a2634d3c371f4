/* aio.c -- nonblocking independent file accesses, carried out by a per-process I/O thread.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_File_iread/iwrite (_at, _shared, _c) return at once with an active request while a
 * thread of the library moves the data, so the caller's computation and communication
 * overlap the file access.  Everything that needs MPI happens in an MPI call of the caller:
 * at initiation the checks, the position (explicit offset; the individual pointer, which
 * moves by the etypes requested now, as MPI 4.0 14.4.3 says; or a range fetched from the
 * shared pointer), packing a write's noncontiguous or external32 data, the walk of the view
 * into a list of file pieces, and the data-sieving plan; at completion -- a progress hook,
 * gated by the number of jobs outstanding, run by any MPI call that polls (MPI_Wait, MPI_Test,
 * a receive...) -- unpacking a read, making the error code of a failure, and completing the
 * request.  The I/O thread only runs the job's pieces through access.c's transfer functions
 * (pread, pwrite, byte-range locks: plain system calls), marks the job finished and wakes a
 * rank asleep in a wait.  So the thread never calls MPI, and MPI_THREAD_SINGLE programs are
 * served alike.  It starts with the first nonblocking access and takes jobs in the order they
 * were started (two nonblocking writes of one process reach the file in that order).
 *
 * MPI_Cancel succeeds for a job the thread has not taken yet: the request completes cancelled
 * and nothing is moved; a job under way completes normally (MPI 4.0 3.8.4 allows either).
 * MPI_File_close first waits for the file's outstanding jobs (a job has its pieces and holds
 * its datatype, so a new view does not concern it).
 * Buffered collective nonblocking accesses (iread_all ...) are coll.c's: their exchange needs
 * MPI; unbuffered ones (a group of one, a group on one host in automatic mode, buffering
 * disabled, atomic mode) come here, those of a group on one host moving large pieces
 * directly, as blocking ones do (access.c).
 */
#include "io/io_impl.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct job {
    struct job *qnext;                /* the thread's queue, under `lock` */
    struct job *pnext;                /* the list of jobs not completed (MPI calls only) */
    mp_request *req;
    mp_file *f;
    mp_io_xfer x;
    int write;
    MPI_Offset *pieces;               /* file offset and length of every piece, in order */
    size_t npieces;
    MPI_Offset lock_start;            /* the span's start; atomic mode: locked to the end */
    int atomic;
    MPI_Offset share_end;             /* a direct write: shares a lock up to here, or 0 */
    char *tmp;                        /* packed or converted copy, or NULL (in place) */
    mp_io_args a;                     /* a read's buffer, count and type (one reference) */
    atomic_int finished;              /* set (release) by the thread, or by a cancel */
    int cancelled, err;
} job;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static job *queue_head, *queue_tail;  /* under `lock` */
static job *running;                  /* the job the thread holds, under `lock` */
static int started;
static job *pending;                  /* every job not yet completed: MPI calls only */
static int npending;                  /* the progress hook's gate */

static void run(job *j)
{
    mp_io_xfer *x = &j->x;
    int err = MPI_SUCCESS;
    if (j->atomic && mp_io_lock(j->f, j->lock_start, 0, j->write, 1)) {
        x->fail_what = "lock";
        x->fail_off = j->lock_start;
        x->fail_errno = errno;
        err = MP_IO_XFER_FAILED;
    }
    MPI_Offset shared = j->share_end ? mp_io_share_lock(x, j->lock_start, j->share_end) : 0;
    size_t done = 0;
    for (size_t i = 0; !err && i < j->npieces; i++) {
        size_t len = (size_t)j->pieces[2 * i + 1];
        int rc = mp_io_move_piece(x, j->pieces[2 * i], len, done);
        if (rc == 1)
            break;                    /* the end of the file */
        err = rc;
        done += len;
    }
    if (j->write) {
        int ferr = mp_io_sieve_flush(x);
        err = err ? err : ferr;
    }
    if (shared)
        mp_io_lock(j->f, j->lock_start, shared, 0, 0);
    if (j->atomic)
        mp_io_lock(j->f, j->lock_start, 0, j->write, 0);
    j->err = err;
}

static void *io_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!queue_head)
            pthread_cond_wait(&wake, &lock);
        job *j = queue_head;
        queue_head = j->qnext;
        if (!queue_head)
            queue_tail = NULL;
        running = j;
        pthread_mutex_unlock(&lock);
        run(j);
        pthread_mutex_lock(&lock);
        running = NULL;
        atomic_store_explicit(&j->finished, 1, memory_order_release);
        mp_wake_local_sleepers();     /* a rank asleep in MPI_Wait polls again */
    }
    return NULL;
}

static void job_free(job *j)
{
    free(j->pieces);
    free(j->x.sbuf);
    free(j->tmp);
    mp_datatype_release(j->a.dt);
    free(j);
}

/* The progress hook: completes the finished jobs, in an MPI call. */
static int complete_jobs(void)
{
    int events = 0;
    for (job **p = &pending; *p;) {
        job *j = *p;
        if (!atomic_load_explicit(&j->finished, memory_order_acquire)) {
            p = &j->pnext;
            continue;
        }
        *p = j->pnext;
        npending--;
        events++;
        mp_request *r = j->req;
        int err = mp_io_xfer_error(&j->x, j->err);
        size_t native = 0;
        if (!err && !j->cancelled)
            err = mp_io_unstage(j->x.F, j->f, &j->a, j->tmp, j->x.moved, &native);
        mp_status_empty(&r->status);
        mp_status_set_bytes(&r->status, err ? 0 : (MPI_Count)native);
        mp_status_set_cancelled(&r->status, j->cancelled);
        r->status.MPI_ERROR = err;
        job_free(j);
        mp_request_complete(r);
    }
    return events;
}

/* The pieces of the access, walked in the caller's thread (the datatype layer is not the
 * I/O thread's to use). */
typedef struct plist { MPI_Offset *p; size_t n, cap; } plist;
static int collect(void *ctx, MPI_Offset off, size_t len, size_t done)
{
    plist *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->p = mp_realloc(l->p, 2 * l->cap * sizeof *l->p);
    }
    l->p[2 * l->n] = off;
    l->p[2 * l->n + 1] = (MPI_Offset)len;
    l->n++;
    return 0;
}

int mp_io_async(const char *F, mp_file *f, const mp_io_args *a, MPI_Offset pos, size_t bytes,
                mp_request **req)
{
    MPI_Offset esize = f->etype->size;
    job *j = mp_calloc(1, sizeof *j);
    j->f = f;
    j->write = a->write;
    mp_io_xfer *x = &j->x;
    x->F = F;
    x->f = f;
    x->write = a->write;
    x->lock = a->write && mp_io_write_locks(f);
    j->a = *a;
    mp_datatype_retain(a->dt);
    plist l = { 0 };
    int err = mp_io_stage(F, f, a, bytes, &x->mem, &j->tmp);
    if (!err)
        err = mp_io_pieces(f, pos * esize, bytes, collect, &l);
    j->pieces = l.p;
    j->npieces = l.n;
    MPI_Offset start = l.n ? l.p[0] : 0;
    j->atomic = f->atomic;
    j->lock_start = start;
    /* a collective access of a group on one host: large pieces direct (access.c) */
    int direct = !err && a->coll && mp_io_cb_local(f, a->write) &&
                 mp_io_direct_pieces(f, pos * esize, bytes);
    if (direct && a->write)
        j->share_end = mp_io_span_end(f, pos * esize, bytes);
    if (!err && !direct && mp_io_sieve_plan(x, pos * esize, bytes, start)) {
        x->sbuf = mp_malloc(x->scap);
        x->sbase = x->send;
    }
    if (err) {
        job_free(j);
        return err;
    }
    mp_request *r = mp_request_alloc(MP_REQ_FILE);
    r->comm = f->comm;
    r->owner = f;                     /* its errors go through f's handler (binding) */
    j->req = r;
    if (!started) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int e = pthread_create(&t, &attr, io_thread, NULL);
        pthread_attr_destroy(&attr);
        if (e) {
            mp_request_free(r);
            job_free(j);
            return mp_error_code(MPI_ERR_OTHER, "%s: cannot start the I/O thread for '%s': "
                                 "%s", F, f->name, strerror(e));
        }
        started = 1;
    }
    mp_progress_register_gated(complete_jobs, &npending);   /* once: it ignores repeats */
    j->pnext = pending;
    pending = j;
    npending++;
    pthread_mutex_lock(&lock);
    if (queue_tail)
        queue_tail->qnext = j;
    else
        queue_head = j;
    queue_tail = j;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    *req = r;
    return MPI_SUCCESS;
}

int mp_io_cancel(mp_request *r)
{
    job *j = pending;
    while (j && j->req != r)
        j = j->pnext;
    if (!j)
        return MPI_SUCCESS;           /* completed already */
    pthread_mutex_lock(&lock);
    for (job **q = &queue_head, *prev = NULL; *q; prev = *q, q = &(*q)->qnext)
        if (*q == j) {                /* not taken by the thread: cancelled */
            *q = j->qnext;
            if (queue_tail == j)
                queue_tail = prev;
            j->cancelled = 1;
            atomic_store_explicit(&j->finished, 1, memory_order_release);
            break;
        }
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

static int has_job(const mp_file *f)
{
    const job *j = pending;
    while (j && j->f != f)
        j = j->pnext;
    return j != NULL;
}

void mp_io_async_drain(const mp_file *f)
{
    mp_io_progress_while(has_job, f);
}

void mp_io_progress_while(int (*busy)(const mp_file *f), const mp_file *f)
{
    unsigned spins = 0;
    while (busy(f))
        if (!mp_progress())
            mp_idle(&spins);
}
