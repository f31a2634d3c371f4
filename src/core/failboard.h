/* failboard.h -- the failure board: how a launcher tells a job that a job it spawned died.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * MemPI's mpiexec creates one board per job: an anonymous shared mapping (memfd) that every
 * rank inherits, its descriptor number published in the job's key-value space under
 * MP_FAILBOARD_KEY.  The nested mpiexec that runs a job started by MPI_Comm_spawn gets its
 * parent job's board too (a hidden option) and, when one of its ranks fails, writes one
 * record: the failed job's id and the launcher's sentence naming the rank, its pid and its
 * signal or exit code.  The parent mpiexec writes the record itself when the nested launcher
 * dies before it could.  Its answer to a spawn names the new job (MP_FAILBOARD_JOBKEY), so
 * the parents waiting in MPI_Comm_spawn for children that died on the way learn it too.  Ranks of the parent job read the board from a progress hook
 * (core/procs.c) and mark every process of that job failed: the error handlers of the
 * communicators that reach them decide what follows (src/comm/dynamic.c).
 *
 * Records are appended: a writer reserves a slot with a fetch-and-add on `next`, fills it,
 * and publishes it by setting `ready` with release order; a reader takes the slots in order
 * and stops at the first one not yet ready.  Several writers (nested launchers of different
 * spawns) may append at once.  The board lives as long as a process maps it or holds the
 * descriptor, and has no name: nothing is left in /dev/shm whatever dies.
 */
#ifndef MP_FAILBOARD_H
#define MP_FAILBOARD_H

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define MP_FAILBOARD_KEY   "MEMPI_FAILFD"
#define MP_FAILBOARD_JOBKEY "mempi_jobid"           /* spawn_result: the new job's id */
#define MP_FAILBOARD_MAGIC 0x4d504642u          /* "MPFB" */
#define MP_FAILBOARD_RECS  63
#define MP_FAILBOARD_JOB   64
#define MP_FAILBOARD_TEXT  184

typedef struct mp_failrec {
    atomic_uint ready;
    char job[MP_FAILBOARD_JOB];
    char text[MP_FAILBOARD_TEXT];
} mp_failrec;

typedef struct mp_failboard {
    atomic_uint magic;
    atomic_uint next;                           /* slots reserved so far */
    char pad[248];
    mp_failrec rec[MP_FAILBOARD_RECS];
} mp_failboard;

/* Appends a record; a full board drops it (the job's error handlers then never hear of it). */
static inline void mp_failboard_post(mp_failboard *b, const char *job, const char *text)
{
    unsigned slot = atomic_fetch_add_explicit(&b->next, 1, memory_order_relaxed);
    if (slot >= MP_FAILBOARD_RECS)
        return;
    mp_failrec *r = &b->rec[slot];
    size_t nj = strnlen(job, sizeof r->job - 1), nt = strnlen(text, sizeof r->text - 1);
    memcpy(r->job, job, nj);
    r->job[nj] = '\0';
    memcpy(r->text, text, nt);
    r->text[nt] = '\0';
    atomic_store_explicit(&r->ready, 1, memory_order_release);
}

/* 1 if a record names job (its text in *text), else 0. */
static inline int mp_failboard_find(mp_failboard *b, const char *job, const char **text)
{
    unsigned n = atomic_load_explicit(&b->next, memory_order_acquire);
    for (unsigned i = 0; i < n && i < MP_FAILBOARD_RECS; i++)
        if (atomic_load_explicit(&b->rec[i].ready, memory_order_acquire) &&
            strcmp(b->rec[i].job, job) == 0) {
            *text = b->rec[i].text;
            return 1;
        }
    return 0;
}

#endif
