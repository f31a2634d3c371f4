/* mempi-test: np=1,2,3,5 timeout=600 */
/* mempi-test: np=2,5 timeout=600 env=MEMPI_CMA=0 */
/* rma_sync.c -- every synchronization mode with every RMA operation, on every window flavor.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * For each window flavor (create, allocate, allocate_shared, create_dynamic), region length K
 * (3 and 1500 elements of long long with every mode; 30001 -- 240 KB, past any eager limit --
 * with one mode of each kind: fence, PSCW, lock_all, flush_local) and synchronization
 * mode, every rank r issues one operation to target (r+1) % P, into the
 * region [r*K, r*K+K) of that target's window, and the same operation to MPI_PROC_NULL
 * (valid in every epoch, no effect).  The modes: fence with assert 0; fence with
 * NOPRECEDE|NOSTORE(|NOPUT) and NOSTORE|NOSUCCEED; post/start/complete/wait; post and start
 * with NOCHECK after a barrier and MPI_Win_test polled to completion; lock exclusive; lock
 * shared; lock_all; and within passive epochs flush, flush_all, flush_local (lock_all with
 * NOCHECK) and flush_local_all.  The operations: Put, Get, Accumulate and Get_accumulate
 * (MPI_SUM), Fetch_and_op (SUM, NO_OP and REPLACE on three elements), Compare_and_swap (one
 * that matches, one that does not), and Rput, Rget, Raccumulate, Rget_accumulate, which the
 * standard allows only in passive target epochs.  Half of the combinations use the _c
 * (large-count) form of the call.
 *
 * Checked: the fetched values at the origin once the mode guarantees local completion (after
 * the request's wait, flush_local, or the end of the epoch); that the origin buffer may be
 * overwritten after local completion without changing what arrives; in flush modes, that a
 * get issued after the flush sees the completed update; and, after a barrier, that the
 * target's whole window holds exactly the model: the updated region, every other region and
 * a guard untouched.  The window owner reads and re-initialises its memory inside an
 * exclusive lock of its own window, which is correct in either memory model.
 *
 * MPICH 4.0.2 with UCX 1.13's shared-memory transports (posix, sysv) loses whole gets of
 * 512 KB and more at 3 ranks on 2 cores (the buffer never changes, even 100 ms after the
 * flush); the largest size stays below that.
 */
#include "rma_common.h"

#define GUARD 5
typedef long long elem;
#define ELEM MPI_LONG_LONG

static int me, np;

enum { M_FENCE0, M_FENCE, M_PSCW, M_PSCW_TEST, M_LOCK_EXCL, M_LOCK_SHARED, M_LOCK_ALL, M_FLUSH,
       M_FLUSH_ALL, M_FLUSH_LOCAL, M_FLUSH_LOCAL_ALL, M_COUNT };
static const char *const mode_name[M_COUNT] = {
    "fence(0)", "fence(asserts)", "pscw", "pscw+nocheck+test", "lock exclusive", "lock shared",
    "lock_all", "flush", "flush_all", "flush_local", "flush_local_all"};
enum { O_PUT, O_GET, O_ACC, O_GACC, O_FOP, O_CAS, O_RPUT, O_RGET, O_RACC, O_RGACC, O_COUNT };
static const char *const op_name[O_COUNT] = {
    "Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op", "Compare_and_swap", "Rput",
    "Rget", "Raccumulate", "Rget_accumulate"};

static int passive(int m) { return m >= M_LOCK_EXCL; }
static int is_req(int o) { return o >= O_RPUT; }
static int base_op(int o) { return is_req(o) ? o - O_RPUT : o; }   /* Rput -> Put, ... */

static elem init_val(int t, long i) { return (elem)t * 100000000LL + (elem)i * 10 + 7; }
static elem data_val(int r, int m, int o, long k)
{
    return (elem)(r + 1) * 1000000000000LL + (elem)(m * 16 + o) * 100000000LL + (elem)k * 3 + 1;
}

/* The target's value at element k of origin r's region after operation o. */
static elem model_target(int o, int t, int r, int m, long K, long k)
{
    elem i = init_val(t, r * K + k), d = data_val(r, m, o, k);
    switch (base_op(o)) {
    case O_PUT: return d;
    case O_ACC: case O_GACC: return i + d;
    case O_FOP: return k == 0 ? i + d : k == 2 ? d : i;
    case O_CAS: return k == 0 ? d : i;
    default: return i;
    }
}

/* Elements of the result buffer the operation fills. */
static long fetched(int o, long K)
{
    switch (base_op(o)) {
    case O_GET: case O_GACC: return K;
    case O_FOP: return 3;
    case O_CAS: return 2;
    default: return 0;
    }
}

static void issue(int o, int use_c, const rma_win *w, int t, long off, long K, elem *obuf,
                  elem *rbuf, elem *cmp, MPI_Request *req)
{
    MPI_Aint d = t == MPI_PROC_NULL ? 0 : rma_disp(w, t, off * (MPI_Aint)sizeof(elem));
    MPI_Aint d1 = t == MPI_PROC_NULL ? 0 : rma_disp(w, t, (off + 1) * (MPI_Aint)sizeof(elem));
    MPI_Aint d2 = t == MPI_PROC_NULL ? 0 : rma_disp(w, t, (off + 2) * (MPI_Aint)sizeof(elem));
    MPI_Win win = w->win;
    MPI_Count c = K;
    switch (o) {
    case O_PUT:
        if (use_c) CHECK_MPI(MPI_Put_c(obuf, c, ELEM, t, d, c, ELEM, win));
        else CHECK_MPI(MPI_Put(obuf, (int)K, ELEM, t, d, (int)K, ELEM, win));
        break;
    case O_GET:
        if (use_c) CHECK_MPI(MPI_Get_c(rbuf, c, ELEM, t, d, c, ELEM, win));
        else CHECK_MPI(MPI_Get(rbuf, (int)K, ELEM, t, d, (int)K, ELEM, win));
        break;
    case O_ACC:
        if (use_c) CHECK_MPI(MPI_Accumulate_c(obuf, c, ELEM, t, d, c, ELEM, MPI_SUM, win));
        else CHECK_MPI(MPI_Accumulate(obuf, (int)K, ELEM, t, d, (int)K, ELEM, MPI_SUM, win));
        break;
    case O_GACC:
        if (use_c) CHECK_MPI(MPI_Get_accumulate_c(obuf, c, ELEM, rbuf, c, ELEM, t, d, c, ELEM,
                                                  MPI_SUM, win));
        else CHECK_MPI(MPI_Get_accumulate(obuf, (int)K, ELEM, rbuf, (int)K, ELEM, t, d, (int)K,
                                          ELEM, MPI_SUM, win));
        break;
    case O_FOP:
        CHECK_MPI(MPI_Fetch_and_op(&obuf[0], &rbuf[0], ELEM, t, d, MPI_SUM, win));
        CHECK_MPI(MPI_Fetch_and_op(NULL, &rbuf[1], ELEM, t, d1, MPI_NO_OP, win));
        CHECK_MPI(MPI_Fetch_and_op(&obuf[2], &rbuf[2], ELEM, t, d2, MPI_REPLACE, win));
        break;
    case O_CAS:
        CHECK_MPI(MPI_Compare_and_swap(&obuf[0], &cmp[0], &rbuf[0], ELEM, t, d, win));
        CHECK_MPI(MPI_Compare_and_swap(&obuf[1], &cmp[1], &rbuf[1], ELEM, t, d1, win));
        break;
    case O_RPUT:
        if (use_c) CHECK_MPI(MPI_Rput_c(obuf, c, ELEM, t, d, c, ELEM, win, req));
        else CHECK_MPI(MPI_Rput(obuf, (int)K, ELEM, t, d, (int)K, ELEM, win, req));
        break;
    case O_RGET:
        if (use_c) CHECK_MPI(MPI_Rget_c(rbuf, c, ELEM, t, d, c, ELEM, win, req));
        else CHECK_MPI(MPI_Rget(rbuf, (int)K, ELEM, t, d, (int)K, ELEM, win, req));
        break;
    case O_RACC:
        if (use_c) CHECK_MPI(MPI_Raccumulate_c(obuf, c, ELEM, t, d, c, ELEM, MPI_SUM, win, req));
        else CHECK_MPI(MPI_Raccumulate(obuf, (int)K, ELEM, t, d, (int)K, ELEM, MPI_SUM, win, req));
        break;
    case O_RGACC:
        if (use_c) CHECK_MPI(MPI_Rget_accumulate_c(obuf, c, ELEM, rbuf, c, ELEM, t, d, c, ELEM,
                                                   MPI_SUM, win, req));
        else CHECK_MPI(MPI_Rget_accumulate(obuf, (int)K, ELEM, rbuf, (int)K, ELEM, t, d, (int)K,
                                           ELEM, MPI_SUM, win, req));
        break;
    }
}

/* Completes a request locally, by MPI_Wait or by polling MPI_Test. */
static void complete_req(MPI_Request *req, int poll)
{
    MPI_Status st;
    if (!poll) {
        CHECK_MPI(MPI_Wait(req, &st));
    } else {
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Test(req, &flag, &st));
    }
    CHECK(*req == MPI_REQUEST_NULL, "completed RMA request not freed");
}

typedef struct combo {
    int fl, m, o, use_c;
    long K;
    char what[128];     /* "Put_c, allocate window, K=3, flush" for messages */
} combo;

static void check_fetched(const combo *cb, const elem *rbuf, const elem *nbuf, int t)
{
    long n = fetched(cb->o, cb->K);
    for (long k = 0; k < n; k++)
        CHECK(rbuf[k] == init_val(t, me * cb->K + k), "%s: fetched[%ld] = %lld, expected %lld",
              cb->what, k, rbuf[k], init_val(t, me * cb->K + k));
    for (long k = 0; k < cb->K; k++)
        CHECK(nbuf[k] == -1, "%s: the operation on MPI_PROC_NULL wrote its result buffer",
              cb->what);
}

/* Origin-side part of a flush mode: a get after the flush sees the completed update. */
static void read_back(const combo *cb, const rma_win *w, int t, elem *chk)
{
    long K = cb->K;
    CHECK_MPI(MPI_Get(chk, (int)K, ELEM, t, rma_disp(w, t, me * K * (MPI_Aint)sizeof(elem)),
                      (int)K, ELEM, w->win));
    CHECK_MPI(MPI_Win_flush(t, w->win));
    for (long k = 0; k < K; k++) {
        elem want = model_target(cb->o, t, me, cb->m, K, k);
        CHECK(chk[k] == want, "%s: read back after the flush: element %ld = %lld, expected %lld",
              cb->what, k, chk[k], want);
    }
}

static void run_combo(const combo *cb, rma_win *w, MPI_Group in, MPI_Group out, elem *obuf,
                      elem *rbuf, elem *nbuf, elem *cmp, elem *chk)
{
    const int m = cb->m, o = cb->o, tgt = (me + 1) % np;
    const long K = cb->K, off = me * K;
    MPI_Request req = MPI_REQUEST_NULL, nreq = MPI_REQUEST_NULL;
    for (long k = 0; k < K; k++) {
        obuf[k] = data_val(me, m, o, k);
        rbuf[k] = nbuf[k] = -1;
    }
    cmp[0] = init_val(tgt, off);
    cmp[1] = init_val(tgt, off + 1) + 1;

    switch (m) {
    case M_FENCE0: CHECK_MPI(MPI_Win_fence(0, w->win)); break;
    case M_FENCE:
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE
                                | (o == O_GET ? MPI_MODE_NOPUT : 0), w->win));
        break;
    case M_PSCW:
        CHECK_MPI(MPI_Win_post(in, o == O_GET ? MPI_MODE_NOPUT : 0, w->win));
        CHECK_MPI(MPI_Win_start(out, 0, w->win));
        break;
    case M_PSCW_TEST:
        CHECK_MPI(MPI_Win_post(in, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE, w->win));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Win_start(out, MPI_MODE_NOCHECK, w->win));
        break;
    case M_LOCK_EXCL: case M_FLUSH_LOCAL_ALL:
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tgt, 0, w->win));
        break;
    case M_LOCK_SHARED: case M_FLUSH_ALL:
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, tgt, 0, w->win));
        break;
    case M_LOCK_ALL: case M_FLUSH: CHECK_MPI(MPI_Win_lock_all(0, w->win)); break;
    case M_FLUSH_LOCAL: CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win)); break;
    }

    issue(o, cb->use_c, w, tgt, off, K, obuf, rbuf, cmp, &req);
    issue(o, cb->use_c, w, MPI_PROC_NULL, 0, K, obuf, nbuf, cmp, &nreq);
    int local_done = 0;
    if (m == M_FLUSH_LOCAL || m == M_FLUSH_LOCAL_ALL) {
        if (m == M_FLUSH_LOCAL) CHECK_MPI(MPI_Win_flush_local(tgt, w->win));
        else CHECK_MPI(MPI_Win_flush_local_all(w->win));
        local_done = 1;       /* a request still has to be waited for; it completes locally */
    }
    if (is_req(o)) {
        complete_req(&req, m % 2);
        complete_req(&nreq, 0);
        local_done = 1;
    }
    if (local_done) {
        check_fetched(cb, rbuf, nbuf, tgt);
        for (long k = 0; k < K; k++)
            obuf[k] = -5;     /* the origin buffer is free again */
    }

    switch (m) {
    case M_FENCE0: CHECK_MPI(MPI_Win_fence(0, w->win)); break;
    case M_FENCE: CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, w->win)); break;
    case M_PSCW:
        CHECK_MPI(MPI_Win_complete(w->win));
        CHECK_MPI(MPI_Win_wait(w->win));
        break;
    case M_PSCW_TEST: {
        CHECK_MPI(MPI_Win_complete(w->win));
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Win_test(w->win, &flag));
        break;
    }
    case M_LOCK_EXCL: case M_LOCK_SHARED: CHECK_MPI(MPI_Win_unlock(tgt, w->win)); break;
    case M_LOCK_ALL: CHECK_MPI(MPI_Win_unlock_all(w->win)); break;
    case M_FLUSH: case M_FLUSH_LOCAL:
        CHECK_MPI(MPI_Win_flush(tgt, w->win));
        read_back(cb, w, tgt, chk);
        CHECK_MPI(MPI_Win_unlock_all(w->win));
        break;
    case M_FLUSH_ALL: case M_FLUSH_LOCAL_ALL:
        CHECK_MPI(MPI_Win_flush_all(w->win));
        read_back(cb, w, tgt, chk);
        CHECK_MPI(MPI_Win_unlock(tgt, w->win));
        break;
    }
    if (!local_done)
        check_fetched(cb, rbuf, nbuf, tgt);

    /* The owner checks its whole window against the model, then re-initialises it. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const int src = (me + np - 1) % np;
    elem *mem = (elem *)w->base;
    long n = np * K + GUARD;
    RMA_LOCAL_BEGIN(w, me);
    for (long i = 0; i < n; i++) {
        long r = i / K;
        elem want = r == src ? model_target(o, me, src, m, K, i - r * K) : init_val(me, i);
        CHECK(mem[i] == want, "%s: target %d: element %ld (region of rank %ld) = %lld, "
              "expected %lld", cb->what, me, i, r, mem[i], want);
        mem[i] = init_val(me, i);
    }
    RMA_LOCAL_END(w, me);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv, &me, &np);

    MPI_Group world, in, out;
    int from = (me + np - 1) % np, to = (me + 1) % np;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_MPI(MPI_Group_incl(world, 1, &from, &in));
    CHECK_MPI(MPI_Group_incl(world, 1, &to, &out));

    static const long Ks[] = {3, 1500, 30001};
    long Kmax = Ks[sizeof Ks / sizeof *Ks - 1];
    elem *obuf = malloc(sizeof(elem) * Kmax), *rbuf = malloc(sizeof(elem) * Kmax);
    elem *nbuf = malloc(sizeof(elem) * Kmax), *chk = malloc(sizeof(elem) * Kmax);
    elem cmp[2];
    CHECK(obuf && rbuf && nbuf && chk, "out of memory");
    long combos = 0;
    for (int fl = 0; fl < FL_COUNT; fl++) {
        for (size_t ki = 0; ki < sizeof Ks / sizeof *Ks; ki++) {
            long K = Ks[ki], n = np * K + GUARD;
            rma_win w;
            /* disp_unit 1 on created windows, the element size elsewhere */
            if (!rma_win_open(&w, fl, n * (MPI_Aint)sizeof(elem), fl == FL_CREATE ? 1 : (int)sizeof(elem),
                              MPI_INFO_NULL, MPI_COMM_WORLD))
                continue;
            RMA_LOCAL_BEGIN(&w, me);
            for (long i = 0; i < n; i++)
                ((elem *)w.base)[i] = init_val(me, i);
            RMA_LOCAL_END(&w, me);
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            for (int m = 0; m < M_COUNT; m++)
                for (int o = 0; o < O_COUNT; o++) {
                    if (is_req(o) && !passive(m))
                        continue;    /* request-based operations: passive target epochs only */
                    if (K == Ks[2] && m != M_FENCE && m != M_PSCW && m != M_LOCK_ALL
                        && m != M_FLUSH_LOCAL)
                        continue;    /* the largest size: one mode of each kind */
                    combo cb = {fl, m, o, (fl + m + o) % 2 && o != O_FOP && o != O_CAS, K, ""};
                    snprintf(cb.what, sizeof cb.what, "%s%s, %s window, K=%ld, %s", op_name[o],
                             cb.use_c ? "_c" : "", rma_flavor_name[fl], K, mode_name[m]);
                    run_combo(&cb, &w, in, out, obuf, rbuf, nbuf, cmp, chk);
                    combos++;
                }
            rma_win_close(&w);
        }
    }
    free(obuf); free(rbuf); free(nbuf); free(chk);
    MPI_Group_free(&in); MPI_Group_free(&out); MPI_Group_free(&world);
    if (me == 0)
        printf("rma_sync: %ld combinations of flavor, size, mode and operation passed on %d ranks\n",
               combos, np);
    MPI_Finalize();
    return 0;
}
