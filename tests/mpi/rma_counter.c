/* mempi-test: np=1,2,3,5 timeout=300 */
/* mempi-test: np=2,5 timeout=300 env=MEMPI_CMA=0 */
/* rma_counter.c -- shared counters hammered by every rank: fetch-and-add, compare-and-swap loops, and get/put under an exclusive lock.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Three counters, each on a different rank (0, P-1 and P/2), all starting at 0, taken at
 * once by every rank for a quarter second each (at least 40 times):
 *   - fetch-and-add: MPI_Fetch_and_op(1, MPI_SUM) and a flush, ranks alternating between a
 *     lock_all epoch and one shared lock per ticket (both are shared, so they mix), on a
 *     long and on an int counter;
 *   - compare-and-swap: read with Fetch_and_op(MPI_NO_OP), then MPI_Compare_and_swap(old,
 *     old + 1) until it returns old;
 *   - mutex: MPI_Get, flush, MPI_Put of value + 1 under MPI_LOCK_EXCLUSIVE: only mutual
 *     exclusion of exclusive locks keeps this exact.
 * Each ticket is the counter's value before the increment.  Checked: the tickets of all
 * ranks together are 0 .. N-1, each once, and every counter ends at N exactly.  The
 * counters live in MPI_Win_allocate memory and, in a second pass, in MPI_Win_create memory.
 */
#include "rma_common.h"

static int me, np;
/* Each phase takes tickets for PHASE seconds, at least TMIN and at most TMAX per rank: on a
 * fast implementation every rank then runs through several scheduler time slices, so ranks
 * really overlap (a fixed small count finishes within one slice and never contends). */
enum { TMIN = 40, TMAX = 200000 };
#define PHASE 0.25

static int more(int i, double t0)
{
    return i < TMIN || (i < TMAX && MPI_Wtime() - t0 < PHASE);
}

/* The tickets of all ranks (n each, varying) are 0 .. total-1, each once; returns total. */
static long check_tickets(const long *mine, int n, const char *what)
{
    int *counts = NULL, *displs = NULL;
    long total = 0, *all = NULL;
    if (me == 0) {
        counts = malloc(sizeof(int) * (size_t)np);
        displs = malloc(sizeof(int) * (size_t)np);
    }
    CHECK_MPI(MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (me == 0) {
        for (int r = 0; r < np; r++) { displs[r] = (int)total; total += counts[r]; }
        all = malloc(sizeof(long) * (size_t)total);
    }
    CHECK_MPI(MPI_Gatherv(mine, n, MPI_LONG, all, counts, displs, MPI_LONG, 0, MPI_COMM_WORLD));
    if (me == 0) {
        char *seen = calloc((size_t)total, 1);
        for (long i = 0; i < total; i++) {
            CHECK(all[i] >= 0 && all[i] < total, "%s: ticket %ld out of range 0..%ld", what,
                  all[i], total - 1);
            CHECK(!seen[all[i]], "%s: ticket %ld handed out twice", what, all[i]);
            seen[all[i]] = 1;
        }
        free(seen); free(all); free(counts); free(displs);
    }
    CHECK_MPI(MPI_Bcast(&total, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    return total;
}

static long read_counter(MPI_Win win, int host, MPI_Datatype dt, MPI_Aint disp)
{
    long v = 0;
    int iv = 0;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, host, 0, win));
    if (dt == MPI_INT) CHECK_MPI(MPI_Get(&iv, 1, MPI_INT, host, disp, 1, MPI_INT, win));
    else CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, host, disp, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_unlock(host, win));
    return dt == MPI_INT ? iv : v;
}

static void run(int flavor)
{
    /* long counters at displacements 0 (fetch-add), 1 (CAS), 2 (mutex); the int counter
     * fills the first bytes of displacement 3 (the unit is sizeof(long)) */
    rma_win w;
    rma_win_open(&w, flavor, 4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD);
    RMA_LOCAL_BEGIN(&w, me);
    memset(w.base, 0, 4 * sizeof(long));
    RMA_LOCAL_END(&w, me);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const char *fn = rma_flavor_name[flavor];
    const int h_fop = 0, h_cas = np - 1, h_mtx = np / 2;
    long *fop = malloc(sizeof(long) * TMAX), *ifop = malloc(sizeof(long) * TMAX);
    long *cas = malloc(sizeof(long) * TMAX), *mtx = malloc(sizeof(long) * TMAX), one = 1;
    int ione = 1, iticket, nf = 0, nc = 0, nm = 0;
    MPI_Win win = w.win;

    /* fetch-and-add, long and int counters */
    double t0 = MPI_Wtime();
    if (me % 2 == 0) CHECK_MPI(MPI_Win_lock_all(0, win));
    for (; more(nf, t0); nf++) {
        if (me % 2) CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, h_fop, 0, win));
        CHECK_MPI(MPI_Fetch_and_op(&one, &fop[nf], MPI_LONG, h_fop, 0, MPI_SUM, win));
        CHECK_MPI(MPI_Fetch_and_op(&ione, &iticket, MPI_INT, h_fop, 3, MPI_SUM, win));
        if (me % 2) CHECK_MPI(MPI_Win_unlock(h_fop, win));
        else CHECK_MPI(MPI_Win_flush(h_fop, win));
        ifop[nf] = iticket;
    }
    if (me % 2 == 0) CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* compare-and-swap loop */
    long retries = 0;
    t0 = MPI_Wtime();
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (; more(nc, t0); nc++) {
        long old = 0, seen = -1, next;
        CHECK_MPI(MPI_Fetch_and_op(NULL, &old, MPI_LONG, h_cas, 1, MPI_NO_OP, win));
        CHECK_MPI(MPI_Win_flush(h_cas, win));
        for (;;) {
            next = old + 1;
            CHECK_MPI(MPI_Compare_and_swap(&next, &old, &seen, MPI_LONG, h_cas, 1, win));
            CHECK_MPI(MPI_Win_flush(h_cas, win));
            if (seen == old) break;
            CHECK(seen > old, "%s: CAS counter went backwards: %ld after %ld", fn, seen, old);
            old = seen;
            retries++;
        }
        cas[nc] = old;
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* mutex: plain get and put under an exclusive lock */
    t0 = MPI_Wtime();
    for (; more(nm, t0); nm++) {
        long v = -1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, h_mtx, 0, win));
        CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, h_mtx, 2, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_flush(h_mtx, win));
        mtx[nm] = v;
        v++;
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, h_mtx, 2, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_unlock(h_mtx, win));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    char what[64];
    snprintf(what, sizeof what, "%s fetch-and-add", fn);
    long tf = check_tickets(fop, nf, what);
    snprintf(what, sizeof what, "%s int fetch-and-add", fn);
    check_tickets(ifop, nf, what);
    snprintf(what, sizeof what, "%s compare-and-swap", fn);
    long tc = check_tickets(cas, nc, what);
    snprintf(what, sizeof what, "%s exclusive-lock mutex", fn);
    long tm = check_tickets(mtx, nm, what);
    long f = read_counter(win, h_fop, MPI_LONG, 0), fi = read_counter(win, h_fop, MPI_INT, 3);
    long c = read_counter(win, h_cas, MPI_LONG, 1), m = read_counter(win, h_mtx, MPI_LONG, 2);
    CHECK(f == tf, "%s: fetch-and-add counter %ld, expected %ld", fn, f, tf);
    CHECK(fi == tf, "%s: int fetch-and-add counter %ld, expected %ld", fn, fi, tf);
    CHECK(c == tc, "%s: CAS counter %ld, expected %ld", fn, c, tc);
    CHECK(m == tm, "%s: mutex counter %ld, expected %ld", fn, m, tm);
    long all_retries = 0;
    CHECK_MPI(MPI_Reduce(&retries, &all_retries, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (me == 0)
        printf("rma_counter: %s: %d ranks, tickets: %ld fetch-and-add, %ld compare-and-swap "
               "(%ld retries), %ld exclusive-lock\n", fn, np, tf, tc, all_retries, tm);
    free(fop); free(ifop); free(cas); free(mtx);
    rma_win_close(&w);
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv, &me, &np);
    run(FL_ALLOCATE);
    run(FL_CREATE);
    MPI_Finalize();
    return 0;
}
