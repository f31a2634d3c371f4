/* coll.c -- two-phase collective buffering for the _all accesses.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A collective read or write of many ranks' noncontiguous pieces becomes a few large
 * contiguous requests.  Every rank announces the file range its access spans (one allgather);
 * the union [lo, hi) is cut into one contiguous file domain per aggregator -- by default one
 * aggregator per node, the node's first rank (hint cb_nodes: how many) -- and each domain is
 * worked in windows of at most cb_buffer_size bytes (default 16 MiB), one round per window,
 * the same number of rounds on every rank.  In a round each rank sends every aggregator the
 * descriptors (offset, length) of its pieces inside that aggregator's window, and for a
 * write their data (alltoall of counts, alltoallv of descriptors, alltoallv of data: the
 * collective layer's node-aware paths carry them).  The aggregator of a write reads the
 * window's span first when the pieces leave holes in it (read-modify-write: other data in the
 * span must survive), copies the pieces in, and writes the span with one pwrite; the
 * aggregator of a read reads the span with one pread and sends each rank its pieces back.
 * Holes between domains are never touched.  When no two ranks' ranges overlap, every rank
 * accesses its own range independently instead (unless romio_cb_write / romio_cb_read =
 * enable): the exchange would only copy data no other request touches.  Atomic mode and the
 * hints romio_cb_write /
 * romio_cb_read = disable fall back to independent access (access.c), as does a group of one.
 */
#include "io/io_impl.h"
#include "coll/coll.h"
#include <stdlib.h>
#include <string.h>

typedef struct piece { int64_t off, len, mpos; } piece;
typedef struct plist { piece *p; size_t n, cap; } plist;

static void plist_add(plist *l, int64_t off, int64_t len, int64_t mpos)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->p = mp_realloc(l->p, l->cap * sizeof *l->p);
    }
    l->p[l->n++] = (piece){ off, len, mpos };
}

/* A collective read whose group is on one host and whose pieces average at least
 * DIRECT_PIECE bytes is done by every rank reading its own pieces where they lie, one pread
 * each, with no exchange and no sieving: the host's page cache serves every rank alike, so
 * the collective gains nothing from fewer, larger requests, while an aggregator would read
 * the union alone and copy every byte twice more (into the exchange and out of it); pread
 * from the page cache costs far more per byte than memcpy, so reading only one's own bytes,
 * all ranks at once, is the fastest.  Smaller pieces keep collective buffering: their
 * system calls would cost more than the exchange. */
enum { DIRECT_PIECE = 1024 };

int mp_io_cb_enabled(const mp_file *f, int write)
{
    if (f->comm->size < 2 || f->atomic)
        return 0;
    return (write ? f->hints.cb_write : f->hints.cb_read) != MP_IO_DISABLE;
}

/* The layout every rank derives alike from the allgathered ranges: file domain k is
 * [base + k * dom, base + (k + 1) * dom) cut to [lo, hi), where base is lo rounded down to
 * the striping unit (1 without the hint) and dom a multiple of it, so domain and window
 * boundaries fall on stripe boundaries and no stripe is written by two aggregators. */
typedef struct layout {
    int naggs, *agg;                  /* aggregator k's rank */
    int64_t lo, hi, base, dom, cb;
    int rounds;
} layout;

static void window(const layout *L, int k, int r, int64_t *wlo, int64_t *whi)
{
    int64_t dlo = L->base + (int64_t)k * L->dom, dhi = dlo + L->dom;
    if (dhi > L->hi)
        dhi = L->hi;
    *wlo = dlo + (int64_t)r * L->cb;
    *whi = *wlo + L->cb < dhi ? *wlo + L->cb : dhi;
    if (*wlo < L->lo)
        *wlo = L->lo;
}

typedef struct split_ctx { const layout *L; int r; plist *to; } split_ctx;

/* Cuts one of my pieces by the aggregators' windows of round r. */
static int split_piece(void *ctx, MPI_Offset off, size_t len, size_t done)
{
    split_ctx *s = ctx;
    const layout *L = s->L;
    int64_t end = off + (int64_t)len;
    int k0 = (int)((off - L->base) / L->dom), k1 = (int)((end - 1 - L->base) / L->dom);
    for (int k = k0; k <= k1 && k < L->naggs; k++) {
        int64_t wlo, whi;
        window(L, k, s->r, &wlo, &whi);
        int64_t a = off > wlo ? off : wlo, b = end < whi ? end : whi;
        if (a < b)
            plist_add(&s->to[k], a, b - a, (int64_t)done + (a - off));
    }
    return 0;
}

static int cmp_piece(const void *x, const void *y)
{
    const piece *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

/* pread of [off, off+len) into buf, zeros past the end of the file; or pwrite. */
static int span_io(const char *F, const mp_file *f, int write, char *buf, int64_t off,
                   int64_t len)
{
    size_t done;
    int e = mp_io_rw(f, write, buf, (size_t)len, off, &done);
    if (e)
        return mp_io_errno(F, f->name, write ? "cannot write (collective buffering)"
                                             : "cannot read (collective buffering)", e);
    if (!write)
        memset(buf + done, 0, (size_t)len - done);
    return MPI_SUCCESS;
}

typedef struct eof_ctx { MPI_Offset eof; size_t moved; } eof_ctx;
static int below_eof(void *ctx, MPI_Offset off, size_t len, size_t done)
{
    eof_ctx *e = ctx;
    if (off + (MPI_Offset)len <= e->eof) {
        e->moved = done + len;
        return 0;
    }
    if (off < e->eof)
        e->moved = done + (size_t)(e->eof - off);
    return 1;
}

/* Scratch buffer i of f (SCR_SPAN, SCR_SEND, SCR_RECV), at least n bytes.  The buffers
 * live from one access to the next: a buffer of megabytes allocated afresh is fresh memory
 * (malloc maps it, free unmaps it), and the first touch of every page is a page fault that
 * costs more than copying the data itself, on a virtual machine several times more.  Up to
 * cb_buffer_size bytes each are kept (scratch_trim); the file's close frees them. */
enum { SCR_SPAN, SCR_SEND, SCR_RECV };
static char *scratch(mp_file *f, int i, size_t n)
{
    if (f->cb_cap[i] < n) {
        free(f->cb_scratch[i]);
        f->cb_scratch[i] = mp_malloc(n);
        f->cb_cap[i] = n;
    }
    return f->cb_scratch[i];
}

static void scratch_trim(mp_file *f)
{
    for (int i = 0; i < 3; i++)
        if (f->cb_cap[i] > (size_t)f->hints.cb_buffer_size) {
            free(f->cb_scratch[i]);
            f->cb_scratch[i] = NULL;
            f->cb_cap[i] = 0;
        }
}

/* One round: exchange, aggregate, exchange back (reads).  Returns an MPI error code. */
static int round_trip(const char *F, mp_file *f, int write, const layout *L, int r,
                      MPI_Offset pos, size_t bytes, char *mem, int my_agg)
{
    mp_comm *c = f->comm;
    int n = c->size, err = MPI_SUCCESS;
    plist *to = mp_calloc((size_t)L->naggs, sizeof *to);
    if (bytes) {
        split_ctx s = { L, r, to };
        err = mp_io_pieces(f, pos, bytes, split_piece, &s);
    }
    MPI_Aint *cnt = mp_calloc((size_t)n * 8, sizeof *cnt);
    MPI_Aint *sc = cnt, *sd = cnt + n, *rc = cnt + 2 * n, *rd = cnt + 3 * n;
    MPI_Aint *sbc = cnt + 4 * n, *sbd = cnt + 5 * n, *rbc = cnt + 6 * n, *rbd = cnt + 7 * n;
    for (int k = 0; k < L->naggs; k++) {
        sc[L->agg[k]] = (MPI_Aint)to[k].n * 2;
        for (size_t i = 0; i < to[k].n; i++)
            sbc[L->agg[k]] += (MPI_Aint)to[k].p[i].len;
    }
    mp_datatype *aint = mp_datatype_get(MPI_AINT), *i64 = mp_datatype_get(MPI_INT64_T),
                *byte = mp_datatype_get(MPI_BYTE);
    /* counts of descriptors (and of bytes) each rank sends each aggregator */
    MPI_Aint *both_s = mp_malloc(sizeof(MPI_Aint) * 2 * (size_t)n), *both_r = mp_malloc(sizeof(MPI_Aint) * 2 * (size_t)n);
    for (int p = 0; p < n; p++) {
        both_s[2 * p] = sc[p];
        both_s[2 * p + 1] = sbc[p];
    }
    int cerr = mp_alltoall(both_s, 2, aint, both_r, 2, aint, c);
    MPI_Aint stot = 0, rtot = 0, sbtot = 0, rbtot = 0;
    for (int p = 0; p < n; p++) {
        rc[p] = both_r[2 * p];
        rbc[p] = both_r[2 * p + 1];
        sd[p] = stot, stot += sc[p];
        rd[p] = rtot, rtot += rc[p];
        sbd[p] = sbtot, sbtot += sbc[p];
        rbd[p] = rbtot, rbtot += rbc[p];
    }
    free(both_s);
    free(both_r);
    int64_t *sdesc = mp_malloc(sizeof(int64_t) * (size_t)(stot + 1));
    int64_t *rdesc = mp_malloc(sizeof(int64_t) * (size_t)(rtot + 1));
    char *sdata = scratch(f, SCR_SEND, (size_t)(write ? sbtot : rbtot) + 1);
    char *rdata = scratch(f, SCR_RECV, (size_t)(write ? rbtot : sbtot) + 1);
    for (int k = 0; k < L->naggs; k++) {
        int64_t *d = sdesc + sd[L->agg[k]];
        char *data = sdata + sbd[L->agg[k]];
        for (size_t i = 0; i < to[k].n; i++) {
            d[2 * i] = to[k].p[i].off;
            d[2 * i + 1] = to[k].p[i].len;
            if (write) {
                memcpy(data, mem + to[k].p[i].mpos, (size_t)to[k].p[i].len);
                data += to[k].p[i].len;
            }
        }
    }
    if (!cerr)
        cerr = mp_alltoallv(sdesc, sc, sd, i64, rdesc, rc, rd, i64, c);
    if (!cerr && write)
        cerr = mp_alltoallv(sdata, sbc, sbd, byte, rdata, rbc, rbd, byte, c);

    /* the aggregator's part: rtot / 2 pieces, with their data (writes) at rdata in order */
    if (!cerr && my_agg >= 0 && rtot > 0) {
        size_t np = (size_t)rtot / 2;
        piece *ps = mp_malloc(sizeof *ps * np);
        int64_t at = 0;
        for (size_t i = 0; i < np; i++) {
            ps[i] = (piece){ rdesc[2 * i], rdesc[2 * i + 1], at };
            at += rdesc[2 * i + 1];
        }
        qsort(ps, np, sizeof *ps, cmp_piece);
        int64_t wlo = ps[0].off, whi = wlo, holes = 0;
        for (size_t i = 0; i < np; i++) {
            if (ps[i].off > whi)
                holes = 1;
            if (ps[i].off + ps[i].len > whi)
                whi = ps[i].off + ps[i].len;
        }
        char *span = scratch(f, SCR_SPAN, (size_t)(whi - wlo));
        /* the span is locked like any write, so that a sieving independent writer's
         * read-modify-write of an overlapping block cannot undo it (access.c) */
        int locked = write && mp_io_write_locks(f) &&
                     mp_io_lock(f, wlo, whi - wlo, 1, 1) == 0;
        if (!write || holes)
            err = span_io(F, f, 0, span, wlo, whi - wlo);
        if (!err && write) {
            for (size_t i = 0; i < np; i++)
                memcpy(span + (ps[i].off - wlo), rdata + ps[i].mpos, (size_t)ps[i].len);
            err = span_io(F, f, 1, span, wlo, whi - wlo);
        }
        if (locked)
            mp_io_lock(f, wlo, whi - wlo, 1, 0);
        if (!err && !write) {
            /* rdata (sized sbtot: what I send back) gets the pieces in arrival order */
            for (size_t i = 0; i < np; i++)
                memcpy(sdata + ps[i].mpos, span + (ps[i].off - wlo), (size_t)ps[i].len);
        }
        free(ps);
    }
    if (!cerr && !write)
        cerr = mp_alltoallv(sdata, rbc, rbd, byte, rdata, sbc, sbd, byte, c);
    if (!cerr && !write) {
        const char *data = rdata;
        for (int k = 0; k < L->naggs; k++) {
            data = rdata + sbd[L->agg[k]];
            for (size_t i = 0; i < to[k].n; i++) {
                memcpy(mem + to[k].p[i].mpos, data, (size_t)to[k].p[i].len);
                data += to[k].p[i].len;
            }
        }
    }
    for (int k = 0; k < L->naggs; k++)
        free(to[k].p);
    free(to);
    free(cnt);
    free(sdesc);
    free(rdesc);
    return cerr ? cerr : err;
}

static int cmp_range(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* Whether two of the n ranges [r[2i], r[2i+1]) overlap (empty ones, lo >= hi, never do). */
static int ranges_overlap(const int64_t *r, int n)
{
    int64_t *s = mp_malloc(sizeof *s * 2 * (size_t)n);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (r[2 * i] < r[2 * i + 1]) {
            s[2 * m] = r[2 * i];
            s[2 * m + 1] = r[2 * i + 1];
            m++;
        }
    qsort(s, (size_t)m, 2 * sizeof *s, cmp_range);
    int overlap = 0;
    for (int i = 1; i < m && !overlap; i++)
        overlap = s[2 * i] < s[2 * i - 1];
    free(s);
    return overlap;
}

int mp_io_two_phase(const char *F, mp_file *f, int write, MPI_Offset pos, size_t bytes,
                    char *mem, size_t *moved)
{
    mp_comm *c = f->comm;
    int n = c->size;
    /* my range [lo, hi), and for a read that may go direct my pieces' count and bytes */
    int64_t mine[4] = { INT64_MAX, INT64_MIN, 0, (int64_t)bytes };
    int forced = (write ? f->hints.cb_write : f->hints.cb_read) == MP_IO_ENABLE;
    int may_direct = !write && !forced && c->nnodes == 1;
    if (bytes) {
        mine[0] = mp_io_file_offset(f, pos);
        mine[1] = mp_io_span_end(f, pos, bytes);
        size_t np = 0;
        if (may_direct && !mp_io_pieces(f, pos, bytes, mp_io_count_piece, &np))
            mine[2] = (int64_t)np;
    }
    int64_t *all = mp_malloc(sizeof(int64_t) * 4 * (size_t)n);
    mp_datatype *i64 = mp_datatype_get(MPI_INT64_T);
    int err = mp_allgather(mine, 4, i64, all, 4, i64, c);
    if (err) {
        free(all);
        return err;
    }
    layout L = { 0 };
    L.lo = INT64_MAX;
    L.hi = INT64_MIN;
    int64_t pieces = 0, total = 0;
    for (int p = 0; p < n; p++) {
        L.lo = all[4 * p] < L.lo ? all[4 * p] : L.lo;
        L.hi = all[4 * p + 1] > L.hi ? all[4 * p + 1] : L.hi;
        pieces += all[4 * p + 2];
        total += all[4 * p + 3];
        all[2 * p] = all[4 * p];      /* compacted to pairs for ranges_overlap */
        all[2 * p + 1] = all[4 * p + 1];
    }
    int interleaved = forced || ranges_overlap(all, n);
    free(all);
    *moved = bytes;
    if (L.lo >= L.hi)
        return MPI_SUCCESS;            /* nobody moves anything */
    if (!interleaved)
        return MP_IO_INDEPENDENT;      /* every rank's range is its own */
    if (may_direct && pieces > 0 && total >= pieces * DIRECT_PIECE)
        return MP_IO_DIRECT;           /* large pieces on one host: read them in place */
    long want = f->hints.cb_nodes ? f->hints.cb_nodes : c->nnodes;
    L.naggs = want < 1 ? 1 : want > n ? n : (int)want;
    L.agg = mp_malloc(sizeof(int) * (size_t)L.naggs);
    int my_agg = -1;
    for (int k = 0; k < L.naggs; k++) {
        L.agg[k] = L.naggs == c->nnodes ? c->node_leader[k] : (int)((int64_t)k * n / L.naggs);
        if (L.agg[k] == c->rank)
            my_agg = k;
    }
    int64_t unit = f->hints.striping_unit > 0 ? f->hints.striping_unit : 1;
    L.base = L.lo - L.lo % unit;
    L.dom = (L.hi - L.base + L.naggs - 1) / L.naggs;
    L.dom = (L.dom + unit - 1) / unit * unit;
    L.cb = f->hints.cb_buffer_size;
    if (L.cb > unit)
        L.cb -= L.cb % unit;
    L.rounds = (int)((L.dom + L.cb - 1) / L.cb);
    for (int r = 0; r < L.rounds; r++) {
        int rerr = round_trip(F, f, write, &L, r, pos, bytes, mem, my_agg);
        if (rerr && !err)
            err = rerr;
    }
    free(L.agg);
    scratch_trim(f);
    /* every rank learns whether an aggregator failed */
    int e = err ? mp_error_class_of(err) : 0, any;
    int aerr = mp_allreduce(&e, &any, 1, mp_datatype_get(MPI_INT), MPI_MAX, c);
    if (err || aerr)
        return err ? err : aerr;
    if (any)
        return mp_error_code(any, "%s: collective %s of '%s' failed on another process (%s)",
                             F, write ? "write" : "read", f->name, mp_error_class_text(any));
    if (!write && bytes) {
        /* a read reports the data below the end of the file */
        MPI_Offset size;
        if ((err = mp_io_get_size(F, f, &size)))
            return err;
        eof_ctx ec = { size, 0 };
        mp_io_pieces(f, pos, bytes, below_eof, &ec);
        *moved = ec.moved;
    }
    return MPI_SUCCESS;
}
