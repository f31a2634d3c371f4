/* mempi-test: np=1,2,3,4,5,7,9 timeout=300 */
/* mempi-test: np=2,4,6,9 timeout=300 env=MEMPI_COLL_BARRIER=shm,MEMPI_COLL_BCAST=shm,MEMPI_COLL_REDUCE=shm,MEMPI_COLL_ALLREDUCE=shm,MEMPI_COLL_ALLGATHER=shm */
/* mempi-test: np=3,8 timeout=300 env=MEMPI_CMA=0,MEMPI_COLL_SHM_SLOT=16384,MEMPI_COLL_BARRIER=shm,MEMPI_COLL_BCAST=shm,MEMPI_COLL_REDUCE=shm,MEMPI_COLL_ALLREDUCE=shm,MEMPI_COLL_ALLGATHER=shm */
/* mempi-test: np=4,5,9 timeout=300 env=MEMPI_NODE_SIZE=2 */
/* mempi-test: np=7 timeout=300 env=MEMPI_NODE_SIZE=3,MEMPI_CMA=0 */
/* mempi-test: np=3,5 timeout=300 env=MEMPI_COLL_BCAST=scatter_allgather */
/* coll_shm.c -- shared-memory collectives on sub-communicators, overlapping communicators, reused context ids.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The shm algorithms share one slot per process among all communicators, so this test runs
 * them where a mix-up would show: communicators whose rank order is the reverse of the
 * processes' order on the node, halves, two overlapping communicators used alternately,
 * communicators created and freed again and again (their context ids come back), blocking
 * collectives issued while nonblocking ones on the same communicator are in flight, and a
 * long pseudo-random sequence of collectives over several communicators, and hundreds of
 * small collectives in a row (the ring of small cells wraps) mixed with big ones.  With simulated
 * nodes (MEMPI_NODE_SIZE) the node-aware algorithms run their node-local parts through shm.  Sizes run from 0 to
 * 6 MB; reductions use MPI_SUM and a non-commutative user op on a contiguous derived type
 * (which must fold in communicator rank order), allgather and bcast a strided type.
 */
#include <mpi.h>
#include "check.h"
#include "coll_forced.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize;
static MPI_Datatype vec, pair;
static MPI_Op affine;
#define HOLE (-7777)
#define P 1000003

static int val(int r, long i, int salt) { return (int)((r * 7919L + i * 31L + salt * 101L) % 100003L); }

static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++) {   /* apply a, then b */
        long m = (long)a[2 * k] * b[2 * k] % P;
        long c = ((long)a[2 * k + 1] * b[2 * k] + b[2 * k + 1]) % P;
        b[2 * k] = (int)m; b[2 * k + 1] = (int)c;
    }
}
static void aff(int r, long i, int salt, int *m, int *c) { *m = 2 + (r * 13 + (int)i + salt) % 97; *c = (r * 5 + (int)i * 3 + salt) % 89; }
/* fold over the communicator's ranks in order; `who` maps comm rank -> identity used in aff */
static void aff_fold(int n, const int *who, long i, int salt, int *m, int *c)
{
    long M = 1, C = 0;
    for (int r = 0; r < n; r++) {
        int mr, cr; aff(who[r], i, salt, &mr, &cr);
        C = (C * mr + cr) % P; M = M * mr % P;
    }
    *m = (int)M; *c = (int)C;
}

typedef struct tc { MPI_Comm comm; int rank, size; int *who; const char *name; } tc;

static tc make(MPI_Comm c, const char *name)
{
    tc t = { c, 0, 0, NULL, name };
    MPI_Comm_rank(c, &t.rank);
    MPI_Comm_size(c, &t.size);
    t.who = malloc(sizeof(int) * t.size);
    MPI_Allgather(&wrank, 1, MPI_INT, t.who, 1, MPI_INT, c);
    return t;
}

/* one round of every shm collective on t, n elements, salt varies the data */
static void round_on(tc *t, long n, int salt)
{
    int me = t->rank, sz = t->size, id = t->who[me];
    /* bcast, ints then strided type */
    int root = (salt + sz - 1) % sz;
    int *b = malloc(sizeof(int) * (3 * n + 1));
    for (long i = 0; i < n; i++) b[i] = me == root ? val(t->who[root], i, salt) : -1;
    CHECK_MPI(MPI_Bcast(b, (int)n, MPI_INT, root, t->comm));
    for (long i = 0; i < n; i++) if (b[i] != val(t->who[root], i, salt)) FAIL("%s bcast n=%ld i=%ld got %d", t->name, n, i, b[i]);
    long nv = n / 3;
    for (long i = 0; i < nv; i++) { b[3 * i] = me == root ? val(7, i, salt) : -1; b[3 * i + 1] = HOLE; b[3 * i + 2] = me == root ? -val(7, i, salt) : -1; }
    CHECK_MPI(MPI_Bcast(b, (int)nv, vec, root, t->comm));
    for (long i = 0; i < nv; i++) if (b[3 * i] != val(7, i, salt) || b[3 * i + 1] != HOLE || b[3 * i + 2] != -val(7, i, salt)) FAIL("%s bcast vec i=%ld", t->name, i);
    /* the same signature, contiguous on one side and strided on the other: on two ranks the
     * root writes half into a contiguous receiver and a strided one pulls everything; on
     * simulated nodes the two_stage bcast's flat stages cut the message in bytes, not in the
     * root's or a receiver's elements, so both sides must agree on the byte count */
    int vec_side = salt % 2;           /* 1: the root sends ints, the others receive vec */
    {
        for (long i = 0; i < nv; i++) {
            if (me == root && vec_side) { b[2 * i] = val(8, i, salt); b[2 * i + 1] = -val(8, i, salt); }
            else if (me == root) { b[3 * i] = val(8, i, salt); b[3 * i + 1] = HOLE; b[3 * i + 2] = -val(8, i, salt); }
            else if (vec_side) { b[3 * i] = -1; b[3 * i + 1] = HOLE; b[3 * i + 2] = -1; }
            else { b[2 * i] = -1; b[2 * i + 1] = -1; }
        }
        int as_vec = (me == root) != vec_side;
        if (as_vec) CHECK_MPI(MPI_Bcast(b, (int)nv, vec, root, t->comm));
        else CHECK_MPI(MPI_Bcast(b, (int)(2 * nv), MPI_INT, root, t->comm));
        if (me != root)
            for (long i = 0; i < nv; i++) {
                int a0 = as_vec ? b[3 * i] : b[2 * i], a1 = as_vec ? b[3 * i + 2] : b[2 * i + 1];
                if (a0 != val(8, i, salt) || a1 != -val(8, i, salt) || (as_vec && b[3 * i + 1] != HOLE))
                    FAIL("%s bcast mixed types (receiver %s) i=%ld", t->name, as_vec ? "vec" : "ints", i);
            }
    }
    free(b);

    /* allreduce sum, alternately in place */
    int *x = malloc(sizeof(int) * (n + 1)), *y = malloc(sizeof(int) * (n + 1));
    for (long i = 0; i < n; i++) { x[i] = val(id, i, salt); y[i] = HOLE; }
    if (salt % 2) CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, x, (int)n, MPI_INT, MPI_SUM, t->comm));
    else CHECK_MPI(MPI_Allreduce(x, y, (int)n, MPI_INT, MPI_SUM, t->comm));
    int *res = salt % 2 ? x : y;
    for (long i = 0; i < n; i++) {
        long s = 0; for (int r = 0; r < sz; r++) s += val(t->who[r], i, salt);
        if (res[i] != (int)s) FAIL("%s allreduce n=%ld i=%ld got %d want %ld", t->name, n, i, res[i], s);
    }
    free(x); free(y);

    /* non-commutative allreduce and reduce on the contiguous pair type */
    long np = n / 2;
    int *a = malloc(sizeof(int) * (2 * np + 2)), *o = malloc(sizeof(int) * (2 * np + 2));
    for (long i = 0; i < np; i++) aff(id, i, salt, &a[2 * i], &a[2 * i + 1]);
    CHECK_MPI(MPI_Allreduce(a, o, (int)np, pair, affine, t->comm));
    for (long i = 0; i < np; i++) {
        int m, c; aff_fold(sz, t->who, i, salt, &m, &c);
        if (o[2 * i] != m || o[2 * i + 1] != c) FAIL("%s allreduce affine n=%ld i=%ld", t->name, np, i);
    }
    int rroot = sz / 2;
    for (long i = 0; i < 2 * np; i++) o[i] = HOLE;
    if (me == rroot) CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, a, (int)np, pair, affine, rroot, t->comm));
    else CHECK_MPI(MPI_Reduce(a, o, (int)np, pair, affine, rroot, t->comm));
    if (me == rroot)
        for (long i = 0; i < np; i++) {
            int m, c; aff_fold(sz, t->who, i, salt, &m, &c);
            if (a[2 * i] != m || a[2 * i + 1] != c) FAIL("%s reduce affine n=%ld i=%ld", t->name, np, i);
        }
    else
        for (long i = 0; i < 2 * np; i++) if (o[i] != HOLE) FAIL("%s reduce wrote a non-root receive buffer", t->name);
    free(a); free(o);

    /* allgather of the strided type, alternately in place */
    long ng = n / (sz + 1) + (n > 0);
    int *mine = malloc(sizeof(int) * (3 * ng + 1)), *all = malloc(sizeof(int) * (3 * ng * sz + 1));
    for (long i = 0; i < ng; i++) { mine[3 * i] = val(id, i, salt); mine[3 * i + 1] = HOLE; mine[3 * i + 2] = ~val(id, i, salt); }
    for (long i = 0; i < 3 * ng * sz; i++) all[i] = (i % 3 == 1) ? HOLE : -1;
    if (salt % 2) {
        memcpy(all + 3 * ng * me, mine, sizeof(int) * 3 * ng);
        CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, (int)ng, vec, t->comm));
    } else {
        CHECK_MPI(MPI_Allgather(mine, (int)ng, vec, all, (int)ng, vec, t->comm));
    }
    for (int r = 0; r < sz; r++) for (long i = 0; i < ng; i++) {
        long k = 3 * (r * ng + i);
        if (all[k] != val(t->who[r], i, salt) || all[k + 1] != HOLE || all[k + 2] != ~val(t->who[r], i, salt)) FAIL("%s allgather ng=%ld r=%d i=%ld", t->name, ng, r, i);
    }
    /* contiguous ints sent, the strided type received (same signature): the single-copy
     * allgather publishes the send buffer itself and copies the own block meanwhile */
    int *flat = malloc(sizeof(int) * (2 * ng + 1));
    for (long i = 0; i < ng; i++) { flat[2 * i] = val(id, i, salt + 1); flat[2 * i + 1] = ~val(id, i, salt + 1); }
    for (long i = 0; i < 3 * ng * sz; i++) all[i] = (i % 3 == 1) ? HOLE : -1;
    CHECK_MPI(MPI_Allgather(flat, (int)(2 * ng), MPI_INT, all, (int)ng, vec, t->comm));
    for (int r = 0; r < sz; r++) for (long i = 0; i < ng; i++) {
        long k = 3 * (r * ng + i);
        if (all[k] != val(t->who[r], i, salt + 1) || all[k + 1] != HOLE || all[k + 2] != ~val(t->who[r], i, salt + 1)) FAIL("%s allgather int->vec ng=%ld r=%d i=%ld", t->name, ng, r, i);
    }
    for (long i = 0; i < ng; i++)
        if (flat[2 * i] != val(id, i, salt + 1) || flat[2 * i + 1] != ~val(id, i, salt + 1)) FAIL("%s allgather changed the send buffer", t->name);
    free(flat);
    free(mine); free(all);
    CHECK_MPI(MPI_Barrier(t->comm));
}

int main(int argc, char **argv)
{
    coll_forced_begin();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(affine_fn, 0, &affine);

    MPI_Comm rev, half, lo = MPI_COMM_NULL, hi = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &rev));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half));
    int k = wsize / 2;                 /* lo = 0..k, hi = k..n-1: rank k is in both */
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank <= k ? 0 : MPI_UNDEFINED, wrank, &lo));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank >= k ? 0 : MPI_UNDEFINED, -wrank, &hi));
    tc world = make(MPI_COMM_WORLD, "world"), trev = make(rev, "reversed"), thalf = make(half, "half");
    tc tlo = { MPI_COMM_NULL }, thi = { MPI_COMM_NULL };
    if (lo != MPI_COMM_NULL) tlo = make(lo, "low");
    if (hi != MPI_COMM_NULL) thi = make(hi, "high");

    static const long sizes[] = { 0, 1, 7, 1000, 20000, 300000 };
    for (int s = 0; s < 6; s++) {
        round_on(&world, sizes[s], s);
        round_on(&trev, sizes[s], s + 1);
        round_on(&thalf, sizes[s], s + 2);
        /* overlapping communicators, alternately; rank k takes part in both */
        if (tlo.comm != MPI_COMM_NULL) round_on(&tlo, sizes[s], s + 3);
        if (thi.comm != MPI_COMM_NULL) round_on(&thi, sizes[s], s + 4);
        if (tlo.comm != MPI_COMM_NULL) round_on(&tlo, sizes[s] / 2, s + 5);
    }
    round_on(&trev, 1500000, 9);       /* 6 MB once */

    /* context ids come back after MPI_Comm_free: a new communicator must not see old stamps */
    for (int it = 0; it < 40; it++) {
        MPI_Comm d;
        CHECK_MPI(MPI_Comm_dup(it % 2 ? rev : MPI_COMM_WORLD, &d));
        int v = val(wrank, it, 3), sum = 0;
        CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, d));
        long want = 0; for (int r = 0; r < wsize; r++) want += val(r, it, 3);
        if (sum != (int)want) FAIL("dup %d allreduce got %d want %ld", it, sum, want);
        if (it % 3 == 0) CHECK_MPI(MPI_Barrier(d));
        CHECK_MPI(MPI_Comm_free(&d));
    }

    /* blocking collectives while nonblocking ones on the same communicator are in flight */
    {
        int n = 5000, *x = malloc(sizeof(int) * n), *y = malloc(sizeof(int) * n), *z = malloc(sizeof(int) * n);
        for (int i = 0; i < n; i++) { x[i] = val(wrank, i, 1); z[i] = wrank == wsize - 1 ? i : -1; }
        MPI_Request rq[2];
        CHECK_MPI(MPI_Iallreduce(x, y, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
        CHECK_MPI(MPI_Ibcast(z, n, MPI_INT, 0, rev, &rq[1]));
        round_on(&world, 333, 5);
        round_on(&trev, 333, 6);
        CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < n; i++) {
            long s = 0; for (int r = 0; r < wsize; r++) s += val(r, i, 1);
            if (y[i] != (int)s) FAIL("iallreduce i=%d", i);
            if (z[i] != i) FAIL("ibcast (root: last world rank) i=%d got %d", i, z[i]);
        }
        free(x); free(y); free(z);
    }

    /* many small publications back to back (they share a ring of small cells, which wraps
     * several times here) mixed with big ones (the big cells count their own steps); the
     * root rotates, so writers run ahead of different readers */
    {
        int big = 5000, *b = malloc(sizeof(int) * big), small[40];
        for (int it = 0; it < 300; it++) {
            MPI_Comm c = it % 2 ? rev : MPI_COMM_WORLD;
            int root = it % wsize, m = it % 33, crank;
            MPI_Comm_rank(c, &crank);
            for (int i = 0; i < m; i++) small[i] = crank == root ? val(it, i, 2) : -1;
            CHECK_MPI(MPI_Bcast(small, m, MPI_INT, root, c));
            for (int i = 0; i < m; i++) if (small[i] != val(it, i, 2)) FAIL("small bcast it=%d i=%d got %d", it, i, small[i]);
            int v = val(wrank, it, 4), sum = -1;
            CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
            long want = 0; for (int r = 0; r < wsize; r++) want += val(r, it, 4);
            if (sum != (int)want) FAIL("small allreduce it=%d got %d want %ld", it, sum, want);
            if (it % 7 == 0) CHECK_MPI(MPI_Barrier(c));
            if (it % 16 == 5) {
                for (int i = 0; i < big; i++) b[i] = crank == root ? val(it, i, 6) : -1;
                CHECK_MPI(MPI_Bcast(b, big, MPI_INT, root, c));
                for (int i = 0; i < big; i++) if (b[i] != val(it, i, 6)) FAIL("big bcast it=%d i=%d", it, i);
            }
        }
        free(b);
    }

    /* a pseudo-random sequence over all communicators (the same on every rank) */
    unsigned seed = 12345;
    for (int it = 0; it < 150; it++) {
        seed = seed * 1103515245u + 12345u;
        int which = (seed >> 8) % 4;
        long n = (seed >> 12) % 3000;
        tc *t = which == 0 ? &world : which == 1 ? &trev : which == 2 ? &thalf : &tlo;
        if (t->comm == MPI_COMM_NULL) continue;
        round_on(t, n, it);
    }

    free(world.who); free(trev.who); free(thalf.who);
    if (tlo.comm != MPI_COMM_NULL) { free(tlo.who); MPI_Comm_free(&lo); }
    if (thi.comm != MPI_COMM_NULL) { free(thi.who); MPI_Comm_free(&hi); }
    MPI_Comm_free(&rev);
    MPI_Comm_free(&half);
    MPI_Op_free(&affine);
    MPI_Type_free(&vec);
    MPI_Type_free(&pair);
    coll_forced_end(NULL);
    MPI_Finalize();
    return 0;
}
