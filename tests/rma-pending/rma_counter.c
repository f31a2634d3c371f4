/* mempi-test: np=1,2,3,5 timeout=300 */
/* mempi-test: np=2,5 timeout=300 env=MEMPI_CMA=0 */
/* rma_counter.c -- shared counters hammered by every rank: fetch-and-add, compare-and-swap loops, and get/put under an exclusive lock.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Three counters, each on a different rank (0, P-1 and P/2), all starting at 0, all taken
 * at once by every rank T times:
 *   - fetch-and-add: MPI_Fetch_and_op(1, MPI_SUM) and a flush, ranks alternating between a
 *     lock_all epoch and one shared lock per ticket (both are shared, so they mix), on a
 *     long and on an int counter;
 *   - compare-and-swap: read with Fetch_and_op(MPI_NO_OP), then MPI_Compare_and_swap(old,
 *     old + 1) until it returns old;
 *   - mutex: MPI_Get, flush, MPI_Put of value + 1 under MPI_LOCK_EXCLUSIVE: only mutual
 *     exclusion of exclusive locks keeps this exact.
 * Each ticket is the counter's value before the increment.  Checked: every counter ends at
 * P*T exactly, and the tickets of all ranks together are 0 .. P*T-1, each once.  The
 * counters live in MPI_Win_allocate memory and, in a second pass, in MPI_Win_create memory.
 */
#include "rma_common.h"

static int me, np;
enum { T = 100, TM = 40 };

static void check_tickets(long *mine, int n, const char *what)
{
    long *all = NULL;
    if (me == 0) all = malloc(sizeof(long) * (size_t)n * np);
    CHECK_MPI(MPI_Gather(mine, n, MPI_LONG, all, n, MPI_LONG, 0, MPI_COMM_WORLD));
    if (me == 0) {
        char *seen = calloc((size_t)n * np, 1);
        for (long i = 0; i < (long)n * np; i++) {
            CHECK(all[i] >= 0 && all[i] < (long)n * np, "%s: ticket %ld out of range 0..%ld", what,
                  all[i], (long)n * np - 1);
            CHECK(!seen[all[i]], "%s: ticket %ld handed out twice (rank %ld got it)", what, all[i],
                  i / n);
            seen[all[i]] = 1;
        }
        free(seen);
        free(all);
    }
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
    long fop[T], ifop[T], cas[T], mtx[TM], one = 1;
    int ione = 1, iticket;
    MPI_Win win = w.win;

    /* fetch-and-add, long and int counters */
    if (me % 2 == 0) CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int i = 0; i < T; i++) {
        if (me % 2) CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, h_fop, 0, win));
        CHECK_MPI(MPI_Fetch_and_op(&one, &fop[i], MPI_LONG, h_fop, 0, MPI_SUM, win));
        CHECK_MPI(MPI_Fetch_and_op(&ione, &iticket, MPI_INT, h_fop, 3, MPI_SUM, win));
        if (me % 2) CHECK_MPI(MPI_Win_unlock(h_fop, win));
        else CHECK_MPI(MPI_Win_flush(h_fop, win));
        ifop[i] = iticket;
    }
    if (me % 2 == 0) CHECK_MPI(MPI_Win_unlock_all(win));

    /* compare-and-swap loop */
    CHECK_MPI(MPI_Win_lock_all(0, win));
    long retries = 0;
    for (int i = 0; i < T; i++) {
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
        cas[i] = old;
    }
    CHECK_MPI(MPI_Win_unlock_all(win));

    /* mutex: plain get and put under an exclusive lock */
    for (int i = 0; i < TM; i++) {
        long v = -1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, h_mtx, 0, win));
        CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, h_mtx, 2, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_flush(h_mtx, win));
        mtx[i] = v;
        v++;
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, h_mtx, 2, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_unlock(h_mtx, win));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    long f = read_counter(win, h_fop, MPI_LONG, 0), fi = read_counter(win, h_fop, MPI_INT, 3);
    long c = read_counter(win, h_cas, MPI_LONG, 1), m = read_counter(win, h_mtx, MPI_LONG, 2);
    CHECK(f == (long)T * np, "%s: fetch-and-add counter %ld, expected %ld", fn, f, (long)T * np);
    CHECK(fi == (long)T * np, "%s: int fetch-and-add counter %ld, expected %ld", fn, fi, (long)T * np);
    CHECK(c == (long)T * np, "%s: CAS counter %ld, expected %ld", fn, c, (long)T * np);
    CHECK(m == (long)TM * np, "%s: mutex counter %ld, expected %ld", fn, m, (long)TM * np);
    char what[64];
    snprintf(what, sizeof what, "%s fetch-and-add", fn);
    check_tickets(fop, T, what);
    snprintf(what, sizeof what, "%s int fetch-and-add", fn);
    check_tickets(ifop, T, what);
    snprintf(what, sizeof what, "%s compare-and-swap", fn);
    check_tickets(cas, T, what);
    snprintf(what, sizeof what, "%s exclusive-lock mutex", fn);
    check_tickets(mtx, TM, what);
    long all_retries = 0;
    CHECK_MPI(MPI_Reduce(&retries, &all_retries, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (me == 0)
        printf("rma_counter: %s: %d ranks x %d tickets each way, %ld CAS retries\n", fn, np, T,
               all_retries);
    rma_win_close(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    run(FL_ALLOCATE);
    run(FL_CREATE);
    MPI_Finalize();
    return 0;
}
