/* ops.c -- put, get and the accumulates at the origin: checks, then one of three paths.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every operation is checked against the window first -- target rank, epoch, datatypes,
 * operation, range -- and fails with nothing done.  Then it walks the target side as runs:
 * contiguous byte ranges of the target's memory in the order of the packed stream (for the
 * accumulates, runs of whole elements; the padded pair types run one element at a time), and
 * moves each run by the target's path (rma.h):
 *
 *   direct   the memory is mapped here: memcpy, or the arithmetic under the target's
 *            accumulate lock;
 *   copy     single copy into or out of the target process (readv/writev), the arithmetic
 *            on a local copy of the run, all under the accumulate lock;
 *   message  one packet per run (runs are cut to a transport payload): PUT, ACC, GET, GACC,
 *            CAS; what comes back names a reply record that says where the data goes.
 * Direct and copy operations are complete when the call returns.  A message-path put or
 * accumulate has copied its data into the transport when the call returns (complete at the
 * origin); gets and fetching operations complete when their replies arrived.
 *
 * Threads.  A large contiguous put or get by the direct or copy path touches nothing but the
 * origin buffer and the target's memory once it is checked, so under MPI_THREAD_MULTIPLE it
 * runs with the big lock released (move_unlocked, mp_lock_step_out), and threads working on
 * other windows or communicators progress during it.  Accumulates keep the lock: they take the target's
 * accumulate lock, which ranks below the big lock (docs/protocol.md, "Threads").
 */
#include "rma/win.h"
#include <stdlib.h>
#include <string.h>

/* ---- checks ---------------------------------------------------------------------------- */

static int accessible(const mp_win *win, int r)
{
    switch (win->access) {
    case MP_EPOCH_FENCE:
    case MP_EPOCH_LOCK_ALL:
        return 1;
    case MP_EPOCH_LOCK:
        return win->t[r].lock_type != 0;
    case MP_EPOCH_START:
        return win->t[r].in_start;
    }
    return 0;
}

static int is_accumulate(int kind)
{
    return kind == MP_RMA_ACC || kind == MP_RMA_GET_ACC || kind == MP_RMA_FOP ||
           kind == MP_RMA_CAS;
}

/* Byte range [lo, hi) of (count, dt) placed at 0, over its data. */
static void data_span(MPI_Aint count, const mp_datatype *dt, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint first = dt->true_lb, last = dt->true_ub;
    MPI_Aint step = (count - 1) * dt->extent;
    *lo = step < 0 ? first + step : first;
    *hi = step < 0 ? last : last + step;
}

static int check(const char *F, mp_win *win, const mp_rma_args *a, size_t *bytes)
{
    int r = a->target;
    if (r < 0 || r >= win->comm->size)
        return mp_error_code(MPI_ERR_RANK, "%s: invalid target rank %d in a window of %d "
                             "processes", F, r, win->comm->size);
    if (!accessible(win, r))
        return mp_error_code(MPI_ERR_RMA_SYNC, "%s: target rank %d is not in an access epoch "
                             "of this process (MPI_Win_fence, MPI_Win_start, MPI_Win_lock or "
                             "MPI_Win_lock_all first)", F, r);
    size_t tbytes = mp_datatype_bytes(a->target_dt, a->target_count);
    *bytes = tbytes;
    int uses_origin = !(a->kind == MP_RMA_GET) && !(is_accumulate(a->kind) && a->op == MPI_NO_OP);
    if (a->kind == MP_RMA_GET || uses_origin) {
        size_t obytes = mp_datatype_bytes(a->origin_dt, a->origin_count);
        if (obytes != tbytes)
            return mp_error_code(MPI_ERR_TYPE, "%s: the origin data has %zu bytes and the "
                                 "target data %zu (the type signatures must match)", F,
                                 obytes, tbytes);
    }
    if (a->result_dt) {
        size_t rbytes = mp_datatype_bytes(a->result_dt, a->result_count);
        if (rbytes != tbytes)
            return mp_error_code(MPI_ERR_TYPE, "%s: the result buffer has %zu bytes and the "
                                 "target data %zu (the type signatures must match)", F,
                                 rbytes, tbytes);
    }
    if (is_accumulate(a->kind) && tbytes > 0) {   /* nothing to combine: no pairing to check */
        MPI_Datatype basic = a->target_dt->basic;
        if (basic == MPI_DATATYPE_NULL)
            return mp_error_code(MPI_ERR_TYPE, "%s: the target datatype is not made of one "
                                 "predefined datatype, as accumulate operations require", F);
        if (uses_origin && a->origin_dt->basic != basic)
            return mp_error_code(MPI_ERR_TYPE, "%s: origin and target datatypes are built "
                                 "from different predefined datatypes", F);
        if (a->kind == MP_RMA_ACC && a->op == MPI_NO_OP)
            return mp_error_code(MPI_ERR_OP, "%s: MPI_NO_OP is only for the fetching "
                                 "operations (MPI_Get_accumulate, MPI_Fetch_and_op)", F);
        if (!mp_op_is_builtin(a->op))
            return mp_error_code(MPI_ERR_OP, "%s: accumulate operations take predefined "
                                 "operations only (operation 0x%x is user-defined)", F,
                                 (unsigned)a->op);
        int err = mp_op_check(F, a->op, mp_datatype_get(basic));
        if (err)
            return err;
        if (a->kind == MP_RMA_CAS && mp_op_check(F, MPI_BAND, mp_datatype_get(basic)) &&
            mp_op_check(F, MPI_LAND, mp_datatype_get(basic)))
            return mp_error_code(MPI_ERR_TYPE, "%s: compare-and-swap takes integer, logical "
                                 "or byte datatypes only", F);
    }
    const mp_win_target *t = &win->t[r];
    if (tbytes > 0) {
        MPI_Aint lo, hi;
        data_span(a->target_count, a->target_dt, &lo, &hi);
        MPI_Aint at = a->disp * t->disp_unit;
        if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC)
            return mp_win_dyn_check(F, win, r, (uint64_t)(at + lo), (uint64_t)(at + hi));
        if (at + lo < 0 || at + hi > t->size)
            return mp_error_code(MPI_ERR_RMA_RANGE, "%s: displacement %ld (x disp_unit %ld) "
                                 "with %zu bytes of data reaches bytes [%ld, %ld) of a target "
                                 "window of %ld bytes", F, (long)a->disp, (long)t->disp_unit,
                                 tbytes, (long)(at + lo), (long)(at + hi), (long)t->size);
    }
    return MPI_SUCCESS;
}

/* ---- walking the target side ----------------------------------------------------------- */

typedef struct run_ctx {
    mp_win *win;
    mp_win_target *t;
    const mp_rma_args *a;
    MPI_Datatype basic;
    const char *packed;               /* the origin data as a packed stream, when needed */
    mp_rma_opstate *op;               /* message-path replies, or NULL */
    int err;
} run_ctx;

typedef void (*run_fn)(run_ctx *c, uint64_t addr, size_t off, size_t len);

/* Calls fn for every run of the target side: at most max_run bytes, cut at multiples of
 * elem; one element at a time when `per_element` (padded pair types). */
static void for_runs(run_ctx *c, uint64_t addr0, size_t bytes, size_t elem, size_t max_run,
                     int per_element, run_fn fn)
{
    const mp_rma_args *a = c->a;
    struct iovec iov[64];
    if (per_element) {
        for (size_t off = 0; off < bytes && !c->err; off += elem) {
            size_t covered;
            mp_segments((void *)(uintptr_t)addr0, a->target_count, a->target_dt, off, elem,
                        iov, 64, &covered);
            fn(c, (uint64_t)(uintptr_t)iov[0].iov_base, off, elem);
        }
        return;
    }
    max_run = max_run / elem * elem;
    size_t off = 0;
    while (off < bytes && !c->err) {
        size_t covered;
        int n = mp_segments((void *)(uintptr_t)addr0, a->target_count, a->target_dt, off,
                            bytes - off, iov, 64, &covered);
        for (int i = 0; i < n && !c->err; i++) {
            uint64_t at = (uint64_t)(uintptr_t)iov[i].iov_base;
            size_t left = iov[i].iov_len;
            while (left > 0 && !c->err) {
                size_t len = left < max_run ? left : max_run;
                fn(c, at, off, len);
                at += len;
                off += len;
                left -= len;
            }
        }
    }
}

static char *direct_ptr(const mp_win_target *t, uint64_t addr)
{
    return t->mapped + (addr - t->base);
}

/* The origin's bytes [off, off+len) as contiguous memory: in place when contiguous, else
 * packed into tmp. */
static const char *origin_bytes(const run_ctx *c, size_t off, size_t len, char *tmp)
{
    const mp_rma_args *a = c->a;
    if (c->packed)
        return c->packed + off;
    if (a->origin_dt->is_contig)
        return (const char *)a->origin + a->origin_dt->true_lb + off;
    mp_pack(a->origin, a->origin_count, a->origin_dt, off, tmp, len);
    return tmp;
}

/* ---- put and get ----------------------------------------------------------------------- */

/* Moves a contiguous put or get of `bytes` at target address addr0 by the direct or copy path
 * with the big lock released, if it may (mp_lock_step_out); returns 1 if it moved it. */
static int move_unlocked(run_ctx *c, uint64_t addr0, size_t bytes, int put)
{
    const mp_rma_args *a = c->a;
    const mp_win_target *t = c->t;
    const mp_transport *tp = t->path == MP_PATH_COPY ? mp_transport_of(t->world) : NULL;
    if (!mp_thread_multiple || t->path == MP_PATH_MSG || !a->origin_dt->is_contig ||
        !a->target_dt->is_contig || (tp && !tp->copy_unlocked))
        return 0;
    char *mine = (char *)(put ? a->origin : a->get_buf) + a->origin_dt->true_lb;
    uint64_t theirs = addr0 + (uint64_t)a->target_dt->true_lb;
    char *mapped = tp ? NULL : direct_ptr(t, theirs);
    int world = t->world, depth = mp_lock_step_out(bytes);
    if (!depth)
        return 0;
    struct iovec iov = { mine, bytes };
    int err = MPI_SUCCESS;
    if (mapped)
        memcpy(put ? mapped : mine, put ? mine : mapped, bytes);
    else
        err = put ? tp->write(world, theirs, &iov, 1) : tp->read(world, theirs, &iov, 1);
    mp_lock_step_in(depth, &mp_stat.unlocked_rma_copies);
    c->err = err;
    return 1;
}

static void put_copy(run_ctx *c, uint64_t addr, size_t off, size_t len)
{
    struct iovec local[64], remote = { (void *)(uintptr_t)addr, len };
    size_t covered;
    int n = mp_segments(c->a->origin, c->a->origin_count, c->a->origin_dt, off, len, local,
                        64, &covered);
    if (covered < len) {              /* more origin pieces than one call takes */
        char *tmp = mp_malloc(len);
        mp_pack(c->a->origin, c->a->origin_count, c->a->origin_dt, off, tmp, len);
        local[0] = (struct iovec){ tmp, len };
        c->err = mp_transport_of(c->t->world)->writev(c->t->world, local, 1, &remote, 1);
        free(tmp);
        return;
    }
    c->err = mp_transport_of(c->t->world)->writev(c->t->world, local, n, &remote, 1);
}

static void get_copy(run_ctx *c, uint64_t addr, size_t off, size_t len)
{
    struct iovec local[64], remote = { (void *)(uintptr_t)addr, len };
    size_t covered;
    int n = mp_segments(c->a->get_buf, c->a->origin_count, c->a->origin_dt, off, len, local, 64,
                        &covered);
    if (covered < len) {
        char *tmp = mp_malloc(len);
        local[0] = (struct iovec){ tmp, len };
        c->err = mp_transport_of(c->t->world)->readv(c->t->world, local, 1, &remote, 1);
        mp_unpack(c->a->get_buf, c->a->origin_count, c->a->origin_dt, off, tmp, len);
        free(tmp);
        return;
    }
    c->err = mp_transport_of(c->t->world)->readv(c->t->world, local, n, &remote, 1);
}

static void put_msg(run_ctx *c, uint64_t addr, size_t off, size_t len)
{
    char *tmp = c->a->origin_dt->is_contig ? NULL : mp_malloc(len);
    mp_hdr h;
    mp_rma_hdr(&h, MP_PKT_RMA_PUT, c->win);
    h.addr = addr;
    mp_rma_send(c->t->world, &h, origin_bytes(c, off, len, tmp), len);
    free(tmp);
    c->t->unflushed++;
}

/* A reply record for data that lands at stream offset `off` of (buf, count, dt). */
static uint64_t expect_data(run_ctx *c, void *buf, MPI_Aint count, mp_datatype *dt, size_t off,
                            size_t len)
{
    mp_rma_reply *r = mp_rma_reply_new(&c->t->data_due, c->op);
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    r->stream_off = off;
    r->bytes = len;
    c->t->data_due++;
    return (uint64_t)(uintptr_t)r;
}

static void get_msg(run_ctx *c, uint64_t addr, size_t off, size_t len)
{
    mp_hdr h;
    mp_rma_hdr(&h, MP_PKT_RMA_GET, c->win);
    h.addr = addr;
    h.size = len;
    h.cookie = expect_data(c, c->a->get_buf, c->a->origin_count, c->a->origin_dt, off, len);
    mp_rma_send(c->t->world, &h, NULL, 0);
}

/* ---- accumulates ----------------------------------------------------------------------- */

/* The old target data of a fetching operation goes to the result stream. */
static void save_result(run_ctx *c, const void *old, size_t off, size_t len)
{
    if (c->a->result_dt)
        mp_unpack(c->a->result, c->a->result_count, c->a->result_dt, off, old, len);
}

/* One run of target memory we can touch here (mapped, or a local copy of it). */
static void acc_local(run_ctx *c, char *mem, size_t off, size_t len)
{
    const mp_rma_args *a = c->a;
    if (a->kind == MP_RMA_CAS) {
        char old[64];
        mp_rma_cas(c->basic, mem, a->compare, a->origin, old);
        save_result(c, old, off, len);
        return;
    }
    if (c->a->result_dt) {
        char tmp[4096];
        char *old = len <= sizeof tmp ? tmp : mp_malloc(len);
        mp_rma_fetch_old(c->basic, mem, len, old);
        save_result(c, old, off, len);
        if (old != tmp)
            free(old);
    }
    mp_rma_apply(a->op, c->basic, mem, c->packed ? c->packed + off : NULL, len);
}

static void acc_direct(run_ctx *c, uint64_t addr, size_t off, size_t len)
{
    acc_local(c, direct_ptr(c->t, addr), off, len);
}

static void acc_copy(run_ctx *c, uint64_t addr, size_t off, size_t len)
{
    size_t span = mp_rma_span(c->basic, len);
    int world = c->t->world;
    mp_transport *tp = mp_transport_of(world);
    char *mem = mp_malloc(span);
    struct iovec local = { mem, span }, remote = { (void *)(uintptr_t)addr, span };
    c->err = tp->readv(world, &local, 1, &remote, 1);
    if (!c->err) {
        acc_local(c, mem, off, len);
        if (c->a->op != MPI_NO_OP)
            c->err = tp->writev(world, &local, 1, &remote, 1);
    }
    free(mem);
}

static void acc_msg(run_ctx *c, uint64_t addr, size_t off, size_t len)
{
    const mp_rma_args *a = c->a;
    mp_hdr h;
    int fetch = a->kind != MP_RMA_ACC;
    mp_rma_hdr(&h, a->kind == MP_RMA_CAS ? MP_PKT_RMA_CAS :
                   fetch ? MP_PKT_RMA_GACC : MP_PKT_RMA_ACC, c->win);
    h.addr = addr;
    h.tag = (int32_t)a->op;
    if (a->kind == MP_RMA_CAS) {
        char both[128];
        memcpy(both, a->compare, len);
        memcpy(both + len, a->origin, len);
        h.seq = (uint32_t)c->basic;
        h.cookie = expect_data(c, a->result, 1, a->result_dt, off, len);
        mp_rma_send(c->t->world, &h, both, 2 * len);
        return;
    }
    const char *data = c->packed ? c->packed + off : NULL;
    size_t data_len = a->op == MPI_NO_OP ? 0 : len;
    if (fetch) {
        h.seq = (uint32_t)c->basic;
        h.size = len;
        h.cookie = expect_data(c, a->result, a->result_count, a->result_dt, off, len);
    } else {
        h.size = (uint64_t)(uint32_t)c->basic;
        c->t->unflushed++;
    }
    mp_rma_send(c->t->world, &h, data, data_len);
}

/* ---- the entry ------------------------------------------------------------------------- */

static void hold(mp_rma_opstate *op, mp_datatype *dt, int i)
{
    if (dt && !dt->is_builtin) {
        mp_datatype_retain(dt);
        op->held[i] = dt;
    }
}

int mp_rma_op(const char *F, mp_win *win, const mp_rma_args *a, mp_request **req)
{
    if (req)
        *req = NULL;
    size_t bytes = 0;
    if (req && win->access != MP_EPOCH_LOCK && win->access != MP_EPOCH_LOCK_ALL)
        return mp_error_code(MPI_ERR_RMA_SYNC, "%s: request-based operations are only valid in "
                             "a passive-target epoch (MPI_Win_lock or MPI_Win_lock_all)", F);
    if (a->target != MPI_PROC_NULL) {
        int err = check(F, win, a, &bytes);
        if (err)
            return err;
    }
    mp_request *r = NULL;
    if (req) {
        r = mp_request_alloc(MP_REQ_RMA);
        r->comm = win->comm;
        *req = r;
    }
    if (a->target == MPI_PROC_NULL || bytes == 0) {
        if (r) {
            mp_status_empty(&r->status);
            mp_request_complete(r);
        }
        return MPI_SUCCESS;
    }
    mp_win_target *t = &win->t[a->target];
    win->fence_busy = win->access == MP_EPOCH_FENCE;
    run_ctx c = { win, t, a, MPI_DATATYPE_NULL, NULL, NULL, MPI_SUCCESS };
    uint64_t addr0 = t->base + (uint64_t)(a->disp * t->disp_unit);
    int msg = t->path == MP_PATH_MSG;
    size_t max_run = msg ? mp_rma_max_payload(t->world) : SIZE_MAX;
    mp_stat.rma_ops++;
    mp_stat.rma_bytes += bytes;
    if (msg && (a->kind != MP_RMA_PUT && a->kind != MP_RMA_ACC)) {
        c.op = mp_calloc(1, sizeof *c.op);
        c.op->parts = 1;              /* this call's own, dropped at the end */
        c.op->req = r;
        hold(c.op, a->kind == MP_RMA_GET ? a->origin_dt : a->result_dt, 0);
    }

    if (a->kind == MP_RMA_PUT || a->kind == MP_RMA_GET) {
        int put = a->kind == MP_RMA_PUT;
        if (move_unlocked(&c, addr0, bytes, put)) {
            /* moved */
        } else if (t->path == MP_PATH_DIRECT) {
            char *mem = direct_ptr(t, addr0);
            c.err = put ? mp_datatype_copy(a->origin, a->origin_count, a->origin_dt, mem,
                                           a->target_count, a->target_dt)
                        : mp_datatype_copy(mem, a->target_count, a->target_dt, a->get_buf,
                                           a->origin_count, a->origin_dt);
        } else {
            for_runs(&c, addr0, bytes, 1, max_run, 0,
                     msg ? (put ? put_msg : get_msg) : (put ? put_copy : get_copy));
        }
    } else {
        c.basic = a->target_dt->basic;
        mp_datatype *b = mp_datatype_get(c.basic);
        char *packed = NULL;
        if (a->op != MPI_NO_OP && a->kind != MP_RMA_CAS) {
            if (a->origin_dt->is_contig) {
                c.packed = (const char *)a->origin + a->origin_dt->true_lb;
            } else {
                packed = mp_malloc(bytes);
                mp_pack(a->origin, a->origin_count, a->origin_dt, 0, packed, bytes);
                c.packed = packed;
            }
        }
        int per_element = b->size != b->extent;
        if (msg) {
            for_runs(&c, addr0, bytes, (size_t)b->size, max_run, per_element, acc_msg);
        } else {
            mp_acc_lock(t->ctl);
            for_runs(&c, addr0, bytes, (size_t)b->size, max_run, per_element,
                     t->path == MP_PATH_DIRECT ? acc_direct : acc_copy);
            mp_acc_unlock(t->ctl);
        }
        free(packed);
    }
    if (c.op)
        mp_rma_op_part_done(c.op);    /* completes the request if no reply is due */
    else if (r) {
        mp_status_empty(&r->status);
        mp_request_complete(r);
    }
    return c.err;
}
