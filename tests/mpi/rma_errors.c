/* mempi-test: np=1,2,3,5 timeout=180 */
/* mempi-test: np=2,3 timeout=180 env=MEMPI_CMA=0 */
/* rma_errors.c -- bad input to the one-sided functions: the right error class, a message naming the function (and the value), and a window that still works.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Windows use MPI_ERRORS_RETURN (MPI_COMM_WORLD and MPI_COMM_SELF too, for errors raised on
 * them).  Each erroneous call must fail with the expected class, and its MPI_Error_string
 * must contain the function's name (and, for a bad rank or displacement, the value given);
 * every departure is listed and the run fails at the end.
 * After each group the window is used correctly (a put, flush and get of a fresh value under
 * an exclusive lock) and a rejected operation must have left the target memory unchanged.
 *   - rank: Put, Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap, Rput to
 *     rank P or a negative rank; MPI_Win_lock and MPI_Win_flush of rank P: MPI_ERR_RANK.
 *   - range (window sizes differ by rank, so the origin must use the target's size): a put
 *     one past the end, a get and a get_accumulate crossing it, an accumulate whose target
 *     vector type runs past it, fetch-and-op and compare-and-swap past it, an Rget crossing
 *     it, a put to unattached memory of a dynamic window: MPI_ERR_RMA_RANGE; a negative
 *     displacement on a window that is not dynamic: MPI_ERR_RMA_RANGE or MPI_ERR_DISP.
 *   - synchronization: put, get, fetch-and-op, every flush and MPI_Win_sync outside an
 *     epoch; unlock, unlock_all, complete, wait, test that match nothing; a second lock of
 *     the same rank; lock, unlock and fence inside lock_all; unlock of another rank than
 *     the one locked; Rput in a fence epoch (request-based operations are for passive
 *     target only); a put to a rank outside the start group: MPI_ERR_RMA_SYNC.
 *   - a lock or lock_all on a window created with no_locks=true: MPI_ERR_RMA_SYNC (the
 *     window then still works with fence).
 *   - MPI_Win_shared_query of rank P or -7 (negative, and no constant in either ABI):
 *     MPI_ERR_RANK; of a window that is not shared: MPI_ERR_RMA_FLAVOR under MPICH 4.0.2
 *     (MPI 4.0); on MemPI (MPI 4.1) its own rank's memory, and MPI_ERR_RANK for rank P.
 *   - op and type that do not combine: MPI_LAND on double, MPI_BAND on float, MPI_MAXLOC on
 *     int, MPI_NO_OP in MPI_Accumulate, a user-defined op: MPI_ERR_OP; Compare_and_swap on
 *     double: MPI_ERR_TYPE; an int origin with a long target: MPI_ERR_TYPE or MPI_ERR_OP.
 *   - MPI_Win_free inside a lock_all, lock, fence (with a pending put) or exposure epoch:
 *     MPI_ERR_RMA_SYNC, and the window is not freed.
 *   - creation: negative size (MPI_ERR_SIZE), displacement unit 0 (MPI_ERR_DISP or
 *     MPI_ERR_ARG), attach/detach on a window that is not dynamic (MPI_ERR_RMA_FLAVOR); lock
 *     type 99 (MPI_ERR_LOCKTYPE), fence assert bits that name no assertion (MPI_ERR_ASSERT),
 *     MPI_WIN_NULL (MPI_ERR_WIN).
 *
 * MPICH 4.0.2 differs, and under MPICH this program only checks what MPICH does:
 * it does not check target ranges (an out-of-range put writes past the window; skipped); it
 * does not check op/type pairs at the origin (the target aborts on the bad pair; skipped,
 * except NO_OP and user ops, which it rejects); an unlock of a rank other than the locked
 * one trips an assertion (skipped); it grants locks on no_locks windows and accepts Rput in
 * a fence epoch (success accepted); it reports a bad lock type and bad fence assertions as
 * MPI_ERR_ARG (accepted for MPICH).
 */
#include "rma_common.h"
#include <limits.h>

static int me, np, mpich, failures;
static char msg_buf[64];

/* A wrong outcome is listed and counted, and the program goes on, so one run shows every
 * departure; the count fails the run at the end.  Only a window freed when it should not
 * have been ends the run at once (nothing after it could use the window). */
static void expect(int rc, int cls, int alt, const char *fn, long value, const char *what, int line)
{
    int c = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
    if (rc == MPI_SUCCESS && !strcmp(fn, "MPI_Win_free"))
        check_fail(__FILE__, line, "%s: succeeded: the window was freed inside an epoch", what);
    if (rc == MPI_SUCCESS || (c != cls && c != alt)) {
        fprintf(stderr, "rank %d: %s:%d: %s: expected error class %d%s, got code %d (class %d)\n",
                me, __FILE__, line, what, cls, alt >= 0 ? " (or the alternative)" : "", rc, c);
        failures++;
        return;
    }
    const char *s = check_error_string(rc);
    if (!strstr(s, fn)) {
        fprintf(stderr, "rank %d: %s:%d: %s: the error string does not name %s: \"%s\"\n", me,
                __FILE__, line, what, fn, s);
        failures++;
    }
    if (value != LONG_MIN) {
        snprintf(msg_buf, sizeof msg_buf, "%ld", value);
        if (!strstr(s, msg_buf)) {
            fprintf(stderr, "rank %d: %s:%d: %s: the error string does not give the value %ld: "
                    "\"%s\"\n", me, __FILE__, line, what, value, s);
            failures++;
        }
    }
}
#define NOVAL LONG_MIN
#define EXPECT(call, cls, fn) expect((call), (cls), -1, (fn), NOVAL, #call, __LINE__)
#define EXPECT2(call, cls, alt, fn) expect((call), (cls), (alt), (fn), NOVAL, #call, __LINE__)
#define EXPECTV(call, cls, fn, v) expect((call), (cls), -1, (fn), (v), #call, __LINE__)

static long wsize(int r) { return 16 + r; }       /* longs in rank r's window */
static long init_val(int r, long i) { return r * 1000L + i; }
static long round_no;

/* A correct put, flush and get under an exclusive lock; slot 0 of the right neighbour. */
static void still_works(MPI_Win win, const char *after)
{
    int t = (me + 1) % np;
    long v = ++round_no * 100 + me, got = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, t, 0, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, t, 0, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
    CHECK(got == v, "after %s: the window no longer works (read back %ld, put %ld)", after, got, v);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* Slots 1.. of the own window still hold their initial values (rejected operations wrote nothing). */
static void untouched(MPI_Win win, const long *mem, const char *after)
{
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    for (long i = 1; i < wsize(me); i++)
        CHECK(mem[i] == init_val(me, i), "after %s: element %ld of rank %d changed to %ld", after,
              i, me, mem[i]);
    CHECK_MPI(MPI_Win_unlock(me, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void bad_rank(MPI_Win win)
{
    long v = 1, r = 0, c = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Win_lock_all(0, win));
    EXPECTV(MPI_Put(&v, 1, MPI_LONG, np, 1, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Put", np);
    EXPECTV(MPI_Get(&r, 1, MPI_LONG, -5, 1, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Get", -5);
    EXPECTV(MPI_Accumulate(&v, 1, MPI_LONG, np + 3, 1, 1, MPI_LONG, MPI_SUM, win), MPI_ERR_RANK,
            "MPI_Accumulate", np + 3);
    EXPECTV(MPI_Get_accumulate(&v, 1, MPI_LONG, &r, 1, MPI_LONG, np, 1, 1, MPI_LONG, MPI_SUM, win),
            MPI_ERR_RANK, "MPI_Get_accumulate", np);
    EXPECTV(MPI_Fetch_and_op(&v, &r, MPI_LONG, np, 1, MPI_SUM, win), MPI_ERR_RANK, "MPI_Fetch_and_op", np);
    EXPECTV(MPI_Compare_and_swap(&v, &c, &r, MPI_LONG, np, 1, win), MPI_ERR_RANK,
            "MPI_Compare_and_swap", np);
    EXPECTV(MPI_Rput(&v, 1, MPI_LONG, np, 1, 1, MPI_LONG, win, &req), MPI_ERR_RANK, "MPI_Rput", np);
    EXPECTV(MPI_Win_flush(np, win), MPI_ERR_RANK, "MPI_Win_flush", np);
    CHECK_MPI(MPI_Win_unlock_all(win));
    EXPECTV(MPI_Win_lock(MPI_LOCK_SHARED, np, 0, win), MPI_ERR_RANK, "MPI_Win_lock", np);
    still_works(win, "bad ranks");
}

static void bad_range(MPI_Win win)
{
    if (mpich) return;
    int t = (me + 1) % np;
    long end = wsize(t), v[2] = {1, 2}, r[2] = {0, 0}, c = 0;
    MPI_Datatype spread;
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Type_vector(2, 1, 20, MPI_LONG, &spread));     /* extent 21 longs > any window */
    CHECK_MPI(MPI_Type_commit(&spread));
    CHECK_MPI(MPI_Win_lock_all(0, win));
    EXPECTV(MPI_Put(v, 1, MPI_LONG, t, end, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE, "MPI_Put", end);
    EXPECTV(MPI_Get(r, 2, MPI_LONG, t, end - 1, 2, MPI_LONG, win), MPI_ERR_RMA_RANGE, "MPI_Get", end - 1);
    EXPECT(MPI_Accumulate(v, 2, MPI_LONG, t, 1, 1, spread, MPI_SUM, win), MPI_ERR_RMA_RANGE,
           "MPI_Accumulate");
    EXPECT(MPI_Get_accumulate(v, 2, MPI_LONG, r, 2, MPI_LONG, t, end - 1, 2, MPI_LONG, MPI_SUM, win),
           MPI_ERR_RMA_RANGE, "MPI_Get_accumulate");
    EXPECT(MPI_Fetch_and_op(v, r, MPI_LONG, t, end, MPI_SUM, win), MPI_ERR_RMA_RANGE, "MPI_Fetch_and_op");
    EXPECT(MPI_Compare_and_swap(v, &c, r, MPI_LONG, t, end + 5, win), MPI_ERR_RMA_RANGE,
           "MPI_Compare_and_swap");
    EXPECT(MPI_Rget(r, 2, MPI_LONG, t, end - 1, 2, MPI_LONG, win, &req), MPI_ERR_RMA_RANGE, "MPI_Rget");
    EXPECT2(MPI_Put(v, 1, MPI_LONG, t, -1, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE, MPI_ERR_DISP, "MPI_Put");
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Type_free(&spread));
    still_works(win, "out-of-range accesses");

    /* dynamic window: memory just past the attached region is not attached */
    MPI_Win dyn;
    long *region = calloc(8, sizeof(long));
    MPI_Aint a, *addr = malloc(sizeof(MPI_Aint) * (size_t)np);
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
    CHECK_MPI(MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_attach(dyn, region, 4 * sizeof(long)));
    CHECK_MPI(MPI_Get_address(region, &a));
    CHECK_MPI(MPI_Allgather(&a, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock_all(0, dyn));
    EXPECT(MPI_Put(v, 1, MPI_LONG, t, MPI_Aint_add(addr[t], 4 * sizeof(long)), 1, MPI_LONG, dyn),
           MPI_ERR_RMA_RANGE, "MPI_Put");
    EXPECT(MPI_Get(r, 2, MPI_LONG, t, MPI_Aint_add(addr[t], 3 * sizeof(long)), 2, MPI_LONG, dyn),
           MPI_ERR_RMA_RANGE, "MPI_Get");
    CHECK_MPI(MPI_Put(v, 1, MPI_LONG, t, MPI_Aint_add(addr[t], 3 * sizeof(long)), 1, MPI_LONG, dyn));
    CHECK_MPI(MPI_Win_unlock_all(dyn));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, dyn));
    CHECK(region[3] == 1, "dynamic window: the put into attached memory left %ld", region[3]);
    if (region[4] != 0) {
        fprintf(stderr, "rank %d: %s:%d: dynamic window: a put wrote unattached memory (%ld)\n",
                me, __FILE__, __LINE__, region[4]);
        failures++;
    }
    CHECK_MPI(MPI_Win_unlock(me, dyn));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_detach(dyn, region));
    CHECK_MPI(MPI_Win_free(&dyn));
    free(region);
    free(addr);
}

static void bad_sync(MPI_Win win)
{
    int t = (me + 1) % np, flag = 0;
    long v = 1, r = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    EXPECT(MPI_Put(&v, 1, MPI_LONG, t, 1, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "MPI_Put");
    EXPECT(MPI_Get(&r, 1, MPI_LONG, t, 1, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "MPI_Get");
    EXPECT(MPI_Fetch_and_op(&v, &r, MPI_LONG, t, 1, MPI_SUM, win), MPI_ERR_RMA_SYNC, "MPI_Fetch_and_op");
    EXPECT(MPI_Win_flush(t, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush");
    EXPECT(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_all");
    EXPECT(MPI_Win_flush_local(t, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_local");
    EXPECT(MPI_Win_flush_local_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_local_all");
    EXPECT(MPI_Win_sync(win), MPI_ERR_RMA_SYNC, "MPI_Win_sync");
    EXPECT(MPI_Win_unlock(t, win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock");
    EXPECT(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all");
    EXPECT(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "MPI_Win_complete");
    EXPECT(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "MPI_Win_wait");
    EXPECT(MPI_Win_test(win, &flag), MPI_ERR_RMA_SYNC, "MPI_Win_test");

    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock");
    if (np > 1 && !mpich)
        EXPECT(MPI_Win_unlock(me, win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock");
    CHECK_MPI(MPI_Win_unlock(t, win));

    CHECK_MPI(MPI_Win_lock_all(0, win));
    EXPECT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock");
    EXPECT(MPI_Win_unlock(t, win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock");
    EXPECT(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_fence");
    CHECK_MPI(MPI_Win_unlock_all(win));
    still_works(win, "calls outside or across epochs");

    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    int rc = MPI_Rput(&v, 1, MPI_LONG, t, 1, 1, MPI_LONG, win, &req);
    if (rc == MPI_SUCCESS) CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (!mpich || rc != MPI_SUCCESS)
        expect(rc, MPI_ERR_RMA_SYNC, -1, "MPI_Rput", NOVAL, "MPI_Rput in a fence epoch", __LINE__);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    if (rc == MPI_SUCCESS) {     /* the put was done: restore the element */
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
        long orig = init_val(t, 1);
        CHECK_MPI(MPI_Put(&orig, 1, MPI_LONG, t, 1, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_unlock(t, win));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (np >= 3) {   /* a put to a rank outside the start group */
        MPI_Group g, in, out;
        int left = (me + np - 1) % np, other = (me + 2) % np;
        CHECK_MPI(MPI_Win_get_group(win, &g));
        CHECK_MPI(MPI_Group_incl(g, 1, &left, &in));
        CHECK_MPI(MPI_Group_incl(g, 1, &t, &out));
        CHECK_MPI(MPI_Win_post(in, 0, win));
        CHECK_MPI(MPI_Win_start(out, 0, win));
        EXPECT(MPI_Put(&v, 1, MPI_LONG, other, 1, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "MPI_Put");
        CHECK_MPI(MPI_Win_complete(win));
        CHECK_MPI(MPI_Win_wait(win));
        MPI_Group_free(&g); MPI_Group_free(&in); MPI_Group_free(&out);
    }
    still_works(win, "a request-based operation in a fence epoch and a put outside the start group");
}

static void no_locks(void)
{
    MPI_Info info;
    MPI_Win win;
    long *mem, v = 40 + me, got = -1;
    int t = (me + 1) % np;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "no_locks", "true"));
    CHECK_MPI(MPI_Win_allocate(4 * sizeof(long), sizeof(long), info, MPI_COMM_WORLD, &mem, &win));
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int rc = MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    if (mpich && rc == MPI_SUCCESS) CHECK_MPI(MPI_Win_unlock(t, win));
    else expect(rc, MPI_ERR_RMA_SYNC, -1, "MPI_Win_lock", NOVAL, "MPI_Win_lock on a no_locks window", __LINE__);
    rc = MPI_Win_lock_all(0, win);
    if (mpich && rc == MPI_SUCCESS) CHECK_MPI(MPI_Win_unlock_all(win));
    else expect(rc, MPI_ERR_RMA_SYNC, -1, "MPI_Win_lock_all", NOVAL, "MPI_Win_lock_all on a no_locks "
                "window", __LINE__);
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, t, 2, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, t, 2, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(got == v, "no_locks window after a refused lock: read back %ld, put %ld", got, v);
    CHECK_MPI(MPI_Win_free(&win));
}

static void bad_shared_query(MPI_Win not_shared)
{
    MPI_Comm node;
    MPI_Win win;
    long *base, *q;
    MPI_Aint sz;
    int du;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nn;
    CHECK_MPI(MPI_Comm_size(node, &nn));
    CHECK_MPI(MPI_Win_allocate_shared(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, node, &base, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    EXPECTV(MPI_Win_shared_query(win, nn, &sz, &du, &q), MPI_ERR_RANK, "MPI_Win_shared_query", nn);
    EXPECTV(MPI_Win_shared_query(win, -7, &sz, &du, &q), MPI_ERR_RANK, "MPI_Win_shared_query", -7);
    if (mpich) {   /* MPICH 4.0.2 follows MPI 4.0 */
        EXPECT(MPI_Win_shared_query(not_shared, 0, &sz, &du, &q), MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query");
    } else {       /* MPI 4.1: its own memory is reachable, a bad rank is still an error */
        CHECK_MPI(MPI_Win_shared_query(not_shared, me, &sz, &du, &q));
        CHECK(sz == wsize(me) * (MPI_Aint)sizeof(long) && du == sizeof(long) && q != NULL,
              "shared query of a not-shared window at its own rank: size %ld unit %d",
              (long)sz, du);
        EXPECTV(MPI_Win_shared_query(not_shared, np, &sz, &du, &q), MPI_ERR_RANK,
                "MPI_Win_shared_query", np);
    }
    CHECK_MPI(MPI_Win_shared_query(win, nn - 1, &sz, &du, &q));
    CHECK(sz == 8 * sizeof(long) && du == sizeof(long), "shared query after errors: size %ld unit %d",
          (long)sz, du);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Comm_free(&node));
    still_works(not_shared, "bad shared queries");
}

static void user_op_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in; (void)inout; (void)len; (void)dt;
}

static void bad_op(MPI_Win win, const long *mem)
{
    int t = (me + 1) % np, iv = 1;
    double d = 1, dr = 0;
    float f = 1, fr = 0;
    long v = 1, r = 0;
    MPI_Op user;
    CHECK_MPI(MPI_Op_create(user_op_fn, 1, &user));
    CHECK_MPI(MPI_Win_lock_all(0, win));
    if (!mpich) {
        EXPECT(MPI_Accumulate(&d, 1, MPI_DOUBLE, t, 1, 1, MPI_DOUBLE, MPI_LAND, win), MPI_ERR_OP,
               "MPI_Accumulate");
        EXPECT(MPI_Fetch_and_op(&f, &fr, MPI_FLOAT, t, 2, MPI_BAND, win), MPI_ERR_OP, "MPI_Fetch_and_op");
        EXPECT(MPI_Accumulate(&iv, 1, MPI_INT, t, 3, 1, MPI_INT, MPI_MAXLOC, win), MPI_ERR_OP,
               "MPI_Accumulate");
        EXPECT(MPI_Get_accumulate(&d, 1, MPI_DOUBLE, &dr, 1, MPI_DOUBLE, t, 4, 1, MPI_DOUBLE, MPI_BXOR,
                                  win), MPI_ERR_OP, "MPI_Get_accumulate");
        EXPECT2(MPI_Accumulate(&iv, 1, MPI_INT, t, 5, 1, MPI_LONG, MPI_SUM, win), MPI_ERR_TYPE,
                MPI_ERR_OP, "MPI_Accumulate");
    }
    EXPECT(MPI_Accumulate(&v, 1, MPI_LONG, t, 6, 1, MPI_LONG, MPI_NO_OP, win), MPI_ERR_OP, "MPI_Accumulate");
    EXPECT(MPI_Accumulate(&v, 1, MPI_LONG, t, 7, 1, MPI_LONG, user, win), MPI_ERR_OP, "MPI_Accumulate");
    EXPECT(MPI_Compare_and_swap(&d, &d, &dr, MPI_DOUBLE, t, 8, win), MPI_ERR_TYPE, "MPI_Compare_and_swap");
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Op_free(&user));
    (void)r;
    untouched(win, mem, "rejected op/type pairs");
    still_works(win, "op/type pairs that do not combine");
}

static void bad_free(MPI_Win *win)
{
    int t = (me + 1) % np;
    long v = init_val(t, 9);
    MPI_Group g;
    CHECK_MPI(MPI_Win_lock_all(0, *win));
    EXPECT(MPI_Win_free(win), MPI_ERR_RMA_SYNC, "MPI_Win_free");
    CHECK(*win != MPI_WIN_NULL, "a refused MPI_Win_free set the handle to MPI_WIN_NULL");
    CHECK_MPI(MPI_Win_unlock_all(*win));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, *win));
    EXPECT(MPI_Win_free(win), MPI_ERR_RMA_SYNC, "MPI_Win_free");
    CHECK_MPI(MPI_Win_unlock(t, *win));
    CHECK_MPI(MPI_Win_fence(0, *win));
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, t, 9, 1, MPI_LONG, *win));    /* writes the value it holds */
    EXPECT(MPI_Win_free(win), MPI_ERR_RMA_SYNC, "MPI_Win_free");
    CHECK_MPI(MPI_Win_fence(0, *win));
    CHECK_MPI(MPI_Win_get_group(*win, &g));
    CHECK_MPI(MPI_Win_post(g, 0, *win));
    EXPECT(MPI_Win_free(win), MPI_ERR_RMA_SYNC, "MPI_Win_free");
    CHECK_MPI(MPI_Win_start(g, 0, *win));
    CHECK_MPI(MPI_Win_complete(*win));
    CHECK_MPI(MPI_Win_wait(*win));
    CHECK_MPI(MPI_Group_free(&g));
    still_works(*win, "MPI_Win_free inside epochs");
}

static void bad_creation(MPI_Win win)
{
    MPI_Win w2 = MPI_WIN_NULL;
    long buf[4], *b2;
    EXPECT(MPI_Win_create(buf, -8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &w2), MPI_ERR_SIZE, "MPI_Win_create");
    EXPECT2(MPI_Win_create(buf, 8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &w2), MPI_ERR_DISP, MPI_ERR_ARG,
            "MPI_Win_create");
    EXPECT(MPI_Win_allocate(-1, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &b2, &w2), MPI_ERR_SIZE,
           "MPI_Win_allocate");
    EXPECT(MPI_Win_attach(win, buf, sizeof buf), MPI_ERR_RMA_FLAVOR, "MPI_Win_attach");
    EXPECT(MPI_Win_detach(win, buf), MPI_ERR_RMA_FLAVOR, "MPI_Win_detach");
    EXPECT2(MPI_Win_lock(99, 0, 0, win), MPI_ERR_LOCKTYPE, mpich ? MPI_ERR_ARG : -1, "MPI_Win_lock");
    EXPECT2(MPI_Win_fence(0x40000000, win), MPI_ERR_ASSERT, mpich ? MPI_ERR_ARG : -1, "MPI_Win_fence");
    EXPECT(MPI_Put(buf, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_WIN_NULL), MPI_ERR_WIN, "MPI_Put");
    still_works(win, "bad creation arguments");
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv, &me, &np);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    mpich = rma_lib() == RMA_MPICH;
    long *mem;
    MPI_Win win;
    MPI_Aint bytes = wsize(me) * (MPI_Aint)sizeof(long);
    if (mpich) bytes = (bytes + 15) / 16 * 16;         /* rma_common.h: MPICH's allocate */
    CHECK_MPI(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    for (long i = 0; i < wsize(me); i++) mem[i] = init_val(me, i);
    CHECK_MPI(MPI_Win_unlock(me, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    bad_rank(win);
    untouched(win, mem, "bad ranks");
    bad_range(win);
    untouched(win, mem, "out-of-range accesses");
    bad_sync(win);
    untouched(win, mem, "synchronization errors");
    no_locks();
    bad_shared_query(win);
    bad_op(win, mem);
    bad_free(&win);
    untouched(win, mem, "MPI_Win_free inside epochs");
    bad_creation(win);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set MPI_WIN_NULL");
    int all = 0;
    CHECK_MPI(MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(all == 0, "%d expectations failed on all ranks together (%d here, listed above)", all,
          failures);
    if (me == 0)
        printf("rma_errors: every bad call failed with its class and a message naming it, on %d "
               "ranks%s\n", np, mpich ? " (MPICH: checks it does not make skipped)" : "");
    MPI_Finalize();
    return 0;
}
