/* coll.c -- two-phase collective buffering for the _all accesses, blocking, nonblocking and
 * split.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A collective read or write of many ranks' noncontiguous pieces becomes a few large
 * contiguous requests.  Every rank announces the file range its access spans (one allgather);
 * the union [lo, hi) is cut into one contiguous file domain per aggregator -- by default one
 * aggregator per node, the node's first rank (hint cb_nodes: how many) -- and each domain is
 * worked in windows of at most cb_buffer_size bytes (default 16 MiB), one round per window,
 * the same number of rounds on every rank.  In a round each rank sends every aggregator the
 * descriptors (offset, length) of its pieces inside that aggregator's window, and for a
 * write their data (alltoall of counts, alltoallv of descriptors, alltoallv of data: the
 * collective layer's node-aware paths carry them).  The aggregator of a write whose pieces
 * tile the window writes them where they lie with pwritev (write_vector); otherwise it reads
 * the window's span first when the pieces leave holes in it (read-modify-write: other data
 * in the span must survive), copies the pieces in, and writes the span with one pwrite.  The
 * aggregator of a read reads the span with one pread and sends each rank its pieces back.
 * Holes between domains are never touched.  When no two ranks' ranges overlap, every rank
 * accesses its own range independently instead (unless romio_cb_write / romio_cb_read =
 * enable): the exchange would only copy data no other request touches.  Atomic mode, the
 * hints romio_cb_write / romio_cb_read = disable, a group of one, and a group on one host in
 * automatic mode without a cb_nodes hint (mp_io_cb_local) use independent access (access.c):
 * on one host the page cache already turns the ranks' requests into memory copies, so the
 * exchange would only add copies and make every rank wait for the slowest.  Except writes
 * whose views' pieces average from 2 KiB to below 64 KiB (the smallest average of the group,
 * agreed by set_view): one pwrite a piece, the ranks take turns at the file's inode lock for
 * every piece, and a file system with large folios (ext4) caches bytes written in pieces of a
 * page or two in folios that small, which makes every later large access of them several
 * times slower.  Through the aggregator the file sees one large write.  (Smaller pieces are
 * sieved, in large blocks; larger ones go direct.)  On tmpfs, whose cache keeps no trace of
 * the write sizes, the band ends at 8 KiB: from there the ranks writing their pieces in
 * parallel beat one aggregator copying every byte twice (the group agrees: one host, one
 * file system).  The aggregator copies its own pieces
 * from its data to the span, and a rank sends its data from where it lies when its pieces of
 * a window are one run of it (always for a valid view, whose displacements never decrease).
 *
 * Every buffered access, blocking or not, is one state machine (struct cop): each step issues
 * at most one nonblocking collective on the file's private communicator and the next step
 * runs when it has completed; the file work between (the aggregator's pread/pwrite, an
 * independent access) is done by the step itself.  A progress hook advances the machines, so
 * MPI_File_iwrite_all and the split _begin calls return at once and the access moves on in
 * whatever MPI call the program makes next (a receive, a test, the wait); a blocking _all
 * call starts the machine and waits for its request.  Collectives of one communicator must be
 * issued in the same order on every rank, so a file's accesses run one after another in the
 * order they were started, and the file's other collective calls (views, sizes, sync, close,
 * ordered accesses, seek_shared) first wait for them (mp_io_coll_drain).  A rank whose
 * checks fail still takes part in the first step, an allgather that carries every rank's
 * error class, so no rank is left waiting in the exchange.
 */
#include "io/io_impl.h"
#include "coll/coll.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

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

/* A group on one host whose views' pieces average from MP_IO_DIRECT_PIECE to below this
 * (on the rank with the smallest) writes through an aggregator: see mp_io_cb_local.  On
 * tmpfs only the folio-size reason is gone, so the bound is where one pwrite a piece starts
 * to beat copying every byte twice (2-D write at np 2 on /dev/shm: 2.9 KiB pieces 1.0 ms
 * buffered against 1.6 direct, 8 KiB pieces 17 ms against 12). */
enum { LOCAL_WRITE_PIECE = 64 << 10, LOCAL_WRITE_PIECE_TMPFS = 8 << 10 };

int mp_io_cb_local(const mp_file *f, int write)
{
    int mid = write && f->group_piece >= MP_IO_DIRECT_PIECE &&
              f->group_piece < (f->on_tmpfs ? LOCAL_WRITE_PIECE_TMPFS : LOCAL_WRITE_PIECE);
    return f->comm->size > 1 && !f->atomic && f->comm->nnodes == 1 && !f->hints.cb_nodes &&
           (write ? f->hints.cb_write : f->hints.cb_read) == MP_IO_AUTO && !mid;
}

/* On one host the aggregators' target is one page cache: an aggregator per core exchanges
 * and copies into it in parallel with the others, each still writing megabytes at a time,
 * where a single one would do all the copying while the other ranks wait
 * (docs/decisions.md). */
int mp_io_default_aggregators(const mp_file *f)
{
    const mp_comm *c = f->comm;
    if (c->nnodes > 1)
        return c->nnodes;
    return f->host_cores < c->size ? f->host_cores : c->size;
}

int mp_io_cb_enabled(const mp_file *f, int write)
{
    if (f->comm->size < 2 || f->atomic || mp_io_cb_local(f, write))
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
enum { SCR_SPAN, SCR_SEND, SCR_RECV, SCR_COUNT };
_Static_assert((int)SCR_COUNT == (int)MP_IO_NSCRATCH, "mp_file keeps one buffer of each kind");
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
    for (int i = 0; i < MP_IO_NSCRATCH; i++)
        if (f->cb_cap[i] > (size_t)f->hints.cb_buffer_size) {
            free(f->cb_scratch[i]);
            f->cb_scratch[i] = NULL;
            f->cb_cap[i] = 0;
        }
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

/* The aggregator of a write whose pieces tile its window (no holes, no overlaps) and average
 * at least VEC_PIECE bytes writes them from where they lie -- its own data and the data
 * received -- with pwritev instead of copying them into a span first: one copy of every byte
 * less, and the file still sees writes of megabytes (IOV_MAX pieces a call; the page cache
 * sizes its folios by the write, not by the vector's pieces).  Returns 0 or an errno value. */
enum { VEC_PIECE = 2 << 10 };
static int write_vector(int fd, struct iovec *iov, int left, off_t off)
{
    while (left > 0) {
        ssize_t n = pwritev(fd, iov, left < IOV_MAX ? left : IOV_MAX, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        off += n;
        for (; left > 0 && (size_t)n >= iov->iov_len; left--)
            n -= (ssize_t)iov++->iov_len;
        if (n > 0) {                  /* a short write: the rest of this piece next */
            iov->iov_base = (char *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
    return 0;
}

/* The allgather of the first step: every rank's error class (the agreement that none failed
 * its checks) and file range [lo, hi). */
enum { G_CLASS, G_LO, G_HI, NGATHER };

/* One collective access in progress (a two-phase access as a state machine).  Every step
 * issues at most one nonblocking collective on f's communicator and waits for it; the file
 * work between (the aggregator's pread/pwrite, an independent or direct access) is done by
 * the step, in the MPI call that runs the progress hook. */
enum { ST_GATHER, ST_GATHERED, ST_COUNTS, ST_DESC, ST_DATA, ST_AGG, ST_UNPACK,
       ST_FAILED, ST_END };
typedef struct cop {
    struct cop *next;                 /* every access in progress, in the order started */
    const char *F;
    mp_file *f;
    mp_io_args a;                     /* the access (one reference on a.dt) */
    int nonblocking;
    mp_request *req, *inner;          /* the user's request; the collective step in flight */
    int state, err;
    int lerr;                         /* this rank's failed check, before the agreement */
    int cls[2];                       /* the final allreduce: my error class, the largest */
    MPI_Offset pos;                   /* stream byte of the access's start */
    size_t bytes;
    mp_io_xfer x;                     /* mem: the data in the file's form; moved */
    char *tmp;                        /* packed or converted copy, or NULL */
    int64_t mine[NGATHER], *all;      /* what every rank announces (G_*), all ranks' */
    layout L;
    int my_agg, r;
    /* the round's exchange (round_*) */
    plist *to;
    MPI_Aint *cnt, *both;
    int64_t *sdesc, *rdesc;
    char *sdata, *rdata;
    MPI_Aint rtot;
} cop;

static cop *cops;                     /* in the order started */
static int ncops;                     /* the progress hook's gate */

/* A step's collective: in flight, or its failure ends the access (later steps would not
 * match the other ranks' anyway). */
static void issue(cop *o, int err, int next)
{
    if (err) {
        o->err = o->err ? o->err : err;
        o->state = ST_END;
    } else {
        o->state = next;
    }
}

static void round_free(cop *o)
{
    if (o->to)
        for (int k = 0; k < o->L.naggs; k++)
            free(o->to[k].p);
    free(o->to);
    free(o->cnt);
    free(o->both);
    free(o->sdesc);
    free(o->rdesc);
    o->to = NULL;
    o->cnt = o->both = NULL;
    o->sdesc = o->rdesc = NULL;
}

static mp_datatype *dt_of(MPI_Datatype t) { return mp_datatype_get(t); }

/* Round r, first step: my pieces cut by the aggregators' windows; counts to every rank. */
static void round_counts(cop *o)
{
    mp_comm *c = o->f->comm;
    int n = c->size;
    const layout *L = &o->L;
    o->to = mp_calloc((size_t)L->naggs, sizeof *o->to);
    if (o->bytes) {
        split_ctx sc = { L, o->r, o->to };
        mp_io_pieces(o->f, o->pos, o->bytes, split_piece, &sc);
    }
    o->cnt = mp_calloc((size_t)n * 8, sizeof *o->cnt);
    MPI_Aint *sc = o->cnt, *sbc = o->cnt + 4 * n;
    for (int k = 0; k < L->naggs; k++) {
        sc[L->agg[k]] = (MPI_Aint)o->to[k].n * 2;
        for (size_t i = 0; i < o->to[k].n; i++)
            sbc[L->agg[k]] += (MPI_Aint)o->to[k].p[i].len;
    }
    /* counts of descriptors and of bytes each rank sends each aggregator */
    o->both = mp_malloc(sizeof(MPI_Aint) * 4 * (size_t)n);
    for (int p = 0; p < n; p++) {
        o->both[2 * p] = sc[p];
        o->both[2 * p + 1] = sbc[p];
    }
    issue(o, mp_ialltoall(o->both, 2, dt_of(MPI_AINT), o->both + 2 * n, 2, dt_of(MPI_AINT),
                          c, &o->inner), ST_DESC);
}

/* Second step: the descriptors (and a write's data) to the aggregators. */
static void round_desc(cop *o)
{
    mp_comm *c = o->f->comm;
    int n = c->size, write = o->a.write;
    const layout *L = &o->L;
    MPI_Aint *sc = o->cnt, *sd = o->cnt + n, *rc = o->cnt + 2 * n, *rd = o->cnt + 3 * n;
    MPI_Aint *sbc = o->cnt + 4 * n, *sbd = o->cnt + 5 * n, *rbc = o->cnt + 6 * n,
             *rbd = o->cnt + 7 * n;
    MPI_Aint *got = o->both + 2 * n, stot = 0, rtot = 0, sbtot = 0, rbtot = 0;
    if (write)                        /* an aggregator copies its own pieces itself */
        sbc[c->rank] = got[2 * c->rank + 1] = 0;
    for (int p = 0; p < n; p++) {
        rc[p] = got[2 * p];
        rbc[p] = got[2 * p + 1];
        sd[p] = stot, stot += sc[p];
        rd[p] = rtot, rtot += rc[p];
        sbd[p] = sbtot, sbtot += sbc[p];
        rbd[p] = rbtot, rbtot += rbc[p];
    }
    o->rtot = rtot;
    o->sdesc = mp_malloc(sizeof(int64_t) * (size_t)(stot + 1));
    o->rdesc = mp_malloc(sizeof(int64_t) * (size_t)(rtot + 1));
    /* a write's data goes from my data in place when each aggregator's pieces lie there in
     * one run (the pieces of one window are consecutive in the stream, as a filetype's
     * displacements never decrease), else packed in the order of the descriptors */
    int packed = 0;
    for (int k = 0; write && k < L->naggs && !packed; k++)
        for (size_t i = 1; i < o->to[k].n && L->agg[k] != c->rank && !packed; i++)
            packed = o->to[k].p[i].mpos != o->to[k].p[i - 1].mpos + o->to[k].p[i - 1].len;
    o->sdata = write && !packed ? o->x.mem
                                : scratch(o->f, SCR_SEND, (size_t)(write ? sbtot : rbtot) + 1);
    o->rdata = scratch(o->f, SCR_RECV, (size_t)(write ? rbtot : sbtot) + 1);
    for (int k = 0; k < L->naggs; k++) {
        int64_t *d = o->sdesc + sd[L->agg[k]];
        char *data = o->sdata + sbd[L->agg[k]];
        int send = write && L->agg[k] != c->rank;
        if (send && !packed && o->to[k].n)
            sbd[L->agg[k]] = (MPI_Aint)o->to[k].p[0].mpos;
        for (size_t i = 0; i < o->to[k].n; i++) {
            d[2 * i] = o->to[k].p[i].off;
            d[2 * i + 1] = o->to[k].p[i].len;
            if (send && packed) {
                memcpy(data, o->x.mem + o->to[k].p[i].mpos, (size_t)o->to[k].p[i].len);
                data += o->to[k].p[i].len;
            }
        }
    }
    issue(o, mp_ialltoallv(o->sdesc, sc, sd, dt_of(MPI_INT64_T), o->rdesc, rc, rd,
                           dt_of(MPI_INT64_T), c, &o->inner), write ? ST_DATA : ST_AGG);
}

/* A write's third step: the data to the aggregators. */
static void round_data(cop *o)
{
    int n = o->f->comm->size;
    MPI_Aint *sbc = o->cnt + 4 * n, *sbd = o->cnt + 5 * n, *rbc = o->cnt + 6 * n,
             *rbd = o->cnt + 7 * n;
    issue(o, mp_ialltoallv(o->sdata, sbc, sbd, dt_of(MPI_BYTE), o->rdata, rbc, rbd,
                           dt_of(MPI_BYTE), o->f->comm, &o->inner), ST_AGG);
}

/* Where a write's piece lies on its aggregator: in its own data (mpos -1 - position there)
 * or among the data received. */
static char *piece_data(const cop *o, const piece *p)
{
    return p->mpos < 0 ? o->x.mem + (-1 - p->mpos) : o->rdata + p->mpos;
}

/* The aggregator's part of round r: rtot / 2 pieces, with their data (writes) at rdata in
 * order; a read's pieces go to sdata in arrival order.  Returns an MPI error code. */
static int aggregate(cop *o)
{
    mp_file *f = o->f;
    int write = o->a.write, err = MPI_SUCCESS;
    size_t np = (size_t)o->rtot / 2;
    if (o->my_agg < 0 || np == 0)
        return MPI_SUCCESS;
    piece *ps = mp_malloc(sizeof *ps * np);
    /* a write's pieces of my own (descriptors [own, own_end)) are in my data, not received:
     * their mpos is -1 - their position there */
    int n = f->comm->size, me = f->comm->rank;
    size_t own = write ? (size_t)o->cnt[3 * n + me] / 2 : np;
    size_t own_end = write ? own + (size_t)o->cnt[2 * n + me] / 2 : np;
    int64_t at = 0;
    for (size_t i = 0; i < np; i++) {
        int64_t len = o->rdesc[2 * i + 1];
        if (i >= own && i < own_end) {
            ps[i] = (piece){ o->rdesc[2 * i], len, -1 - o->to[o->my_agg].p[i - own].mpos };
        } else {
            ps[i] = (piece){ o->rdesc[2 * i], len, at };
            at += len;
        }
    }
    qsort(ps, np, sizeof *ps, cmp_piece);
    int64_t wlo = ps[0].off, whi = wlo, holes = 0, overlap = 0;
    for (size_t i = 0; i < np; i++) {
        if (ps[i].off > whi)
            holes = 1;
        if (ps[i].off < whi)
            overlap = 1;
        if (ps[i].off + ps[i].len > whi)
            whi = ps[i].off + ps[i].len;
    }
    /* the span is locked like any write, so that a sieving independent writer's
     * read-modify-write of an overlapping block cannot undo it (access.c) */
    int locked = write && mp_io_write_locks(f) && mp_io_lock(f, wlo, whi - wlo, 1, 1) == 0;
    int vector = write && !holes && !overlap && (whi - wlo) / (int64_t)np >= VEC_PIECE;
    char *span = vector ? NULL : scratch(f, SCR_SPAN, (size_t)(whi - wlo));
    if (!write || holes)
        err = span_io(o->F, f, 0, span, wlo, whi - wlo);
    if (vector) {
        struct iovec *iov = mp_malloc(sizeof *iov * np);
        for (size_t i = 0; i < np; i++)
            iov[i] = (struct iovec){ piece_data(o, &ps[i]), (size_t)ps[i].len };
        int e = write_vector(f->fd, iov, (int)np, (off_t)wlo);
        if (e)
            err = mp_io_errno(o->F, f->name, "cannot write (collective buffering)", e);
        free(iov);
    } else if (!err && write) {
        for (size_t i = 0; i < np; i++)
            memcpy(span + (ps[i].off - wlo), piece_data(o, &ps[i]), (size_t)ps[i].len);
        err = span_io(o->F, f, 1, span, wlo, whi - wlo);
    }
    if (locked)
        mp_io_lock(f, wlo, whi - wlo, 1, 0);
    if (!err && !write)
        for (size_t i = 0; i < np; i++)
            memcpy(o->sdata + ps[i].mpos, span + (ps[i].off - wlo), (size_t)ps[i].len);
    free(ps);
    return err;
}

/* A read's pieces from the aggregators into my data. */
static void round_unpack(cop *o)
{
    int n = o->f->comm->size;
    const MPI_Aint *sbd = o->cnt + 5 * n;
    for (int k = 0; k < o->L.naggs; k++) {
        const char *data = o->rdata + sbd[o->L.agg[k]];
        for (size_t i = 0; i < o->to[k].n; i++) {
            memcpy(o->x.mem + o->to[k].p[i].mpos, data, (size_t)o->to[k].p[i].len);
            data += o->to[k].p[i].len;
        }
    }
}

/* After the allgather: nothing to do, every rank on its own, or the layout and round 0. */
static void decide(cop *o)
{
    mp_file *f = o->f;
    mp_comm *c = f->comm;
    int n = c->size, write = o->a.write;
    int forced = (write ? f->hints.cb_write : f->hints.cb_read) == MP_IO_ENABLE;
    layout *L = &o->L;
    int64_t *all = o->all;
    L->lo = INT64_MAX;
    L->hi = INT64_MIN;
    for (int p = 0; p < n; p++) {
        const int64_t *g = all + NGATHER * p;
        L->lo = g[G_LO] < L->lo ? g[G_LO] : L->lo;
        L->hi = g[G_HI] > L->hi ? g[G_HI] : L->hi;
        all[2 * p] = g[G_LO];         /* compacted to pairs for ranges_overlap */
        all[2 * p + 1] = g[G_HI];
    }
    int interleaved = forced || ranges_overlap(all, n);
    o->x.moved = o->bytes;
    if (L->lo >= L->hi) {             /* nobody moves anything */
        o->state = ST_END;
        return;
    }
    if (!interleaved) {               /* every rank's range its own: no exchange */
        o->x.moved = 0;
        if (o->bytes)
            o->err = mp_io_local(o->F, f, o->pos, o->bytes, &o->x, 0);
        o->state = ST_END;
        return;
    }
    long want = f->hints.cb_nodes ? f->hints.cb_nodes : mp_io_default_aggregators(f);
    L->naggs = want < 1 ? 1 : want > n ? n : (int)want;
    L->agg = mp_malloc(sizeof(int) * (size_t)L->naggs);
    o->my_agg = -1;
    for (int k = 0; k < L->naggs; k++) {
        L->agg[k] = L->naggs == c->nnodes ? c->node_leader[k]
                                          : (int)((int64_t)k * n / L->naggs);
        if (L->agg[k] == c->rank)
            o->my_agg = k;
    }
    int64_t unit = f->hints.striping_unit > 0 ? f->hints.striping_unit : 1;
    L->base = L->lo - L->lo % unit;
    L->dom = (L->hi - L->base + L->naggs - 1) / L->naggs;
    L->dom = (L->dom + unit - 1) / unit * unit;
    L->cb = f->hints.cb_buffer_size;
    if (L->cb > unit)
        L->cb -= L->cb % unit;
    L->rounds = (int)((L->dom + L->cb - 1) / L->cb);
    o->r = 0;
    o->state = ST_COUNTS;
}

/* The end: a read's count, the data back in the user's form, the request completed. */
static void finish(cop *o)
{
    mp_file *f = o->f;
    int err = o->err;
    size_t native = 0;
    if (!err && !o->a.write && o->bytes && o->L.agg) {
        /* after an exchange a read reports the data below the end of the file */
        MPI_Offset size;
        if (!(err = mp_io_get_size(o->F, f, &size))) {
            eof_ctx ec = { size, 0 };
            mp_io_pieces(f, o->pos, o->bytes, below_eof, &ec);
            o->x.moved = ec.moved;
        }
    }
    if (!err)
        err = mp_io_unstage(o->F, f, &o->a, o->tmp, o->x.moved, &native);
    MPI_Offset esize = f->etype->size;
    if (!err && !o->nonblocking && o->a.where == MP_IO_INDIVIDUAL)
        f->pos += o->a.write ? (MPI_Offset)o->bytes / esize : (MPI_Offset)o->x.moved / esize;
    if (o->L.agg)
        scratch_trim(f);
    mp_request *r = o->req;
    mp_status_empty(&r->status);
    mp_status_set_bytes(&r->status, err ? 0 : (MPI_Count)native);
    r->status.MPI_ERROR = err;
    round_free(o);
    free(o->L.agg);
    free(o->all);
    free(o->tmp);
    mp_datatype_release(o->a.dt);
    free(o);
    mp_request_complete(r);
}

/* Runs o's steps until one waits for a collective; 1 when o has finished (and is freed). */
static int advance(cop *o)
{
    mp_comm *c = o->f->comm;
    for (;;) {
        if (o->inner) {
            if (!mp_request_is_done(o->inner))
                return 0;
            int e = o->inner->status.MPI_ERROR;
            mp_request_free(o->inner);
            o->inner = NULL;
            if (e)
                issue(o, e, ST_END);
        }
        switch (o->state) {
        case ST_GATHER:
            o->mine[G_CLASS] = o->lerr ? mp_error_class_of(o->lerr) : 0;
            o->all = mp_malloc(sizeof(int64_t) * NGATHER * (size_t)c->size);
            issue(o, mp_iallgather(o->mine, NGATHER, dt_of(MPI_INT64_T), o->all, NGATHER,
                                   dt_of(MPI_INT64_T), c, &o->inner), ST_GATHERED);
            break;
        case ST_GATHERED: {
            int64_t any = 0;
            for (int p = 0; p < c->size; p++)
                any = o->all[NGATHER * p + G_CLASS] > any ? o->all[NGATHER * p + G_CLASS] : any;
            if (o->lerr || any) {
                o->err = o->lerr ? o->lerr : mp_error_code((int)any, "%s: another process "
                         "of the group failed its part of the collective access to '%s' (%s)",
                         o->F, o->f->name, mp_error_class_text((int)any));
                o->state = ST_END;
                break;
            }
            decide(o);
            break;
        }
        case ST_COUNTS:
            if (o->r == o->L.rounds) {        /* every rank learns whether one failed */
                o->cls[0] = o->err ? mp_error_class_of(o->err) : 0;
                issue(o, mp_iallreduce(o->cls, o->cls + 1, 1, dt_of(MPI_INT), MPI_MAX, c,
                                       &o->inner), ST_FAILED);
                break;
            }
            round_counts(o);
            break;
        case ST_DESC:
            round_desc(o);
            break;
        case ST_DATA:
            round_data(o);
            break;
        case ST_AGG: {
            int e = aggregate(o);
            if (e && !o->err)
                o->err = e;
            if (!o->a.write) {                /* the pieces back to their readers */
                int n = c->size;
                MPI_Aint *sbc = o->cnt + 4 * n, *sbd = o->cnt + 5 * n, *rbc = o->cnt + 6 * n,
                         *rbd = o->cnt + 7 * n;
                issue(o, mp_ialltoallv(o->sdata, rbc, rbd, dt_of(MPI_BYTE), o->rdata, sbc,
                                       sbd, dt_of(MPI_BYTE), c, &o->inner), ST_UNPACK);
                break;
            }
            round_free(o);
            o->r++;
            o->state = ST_COUNTS;
            break;
        }
        case ST_UNPACK:
            round_unpack(o);
            round_free(o);
            o->r++;
            o->state = ST_COUNTS;
            break;
        case ST_FAILED:
            if (!o->err && o->cls[1])
                o->err = mp_error_code(o->cls[1], "%s: collective %s of '%s' failed on "
                                       "another process (%s)", o->F,
                                       o->a.write ? "write" : "read", o->f->name,
                                       mp_error_class_text(o->cls[1]));
            o->state = ST_END;
            break;
        case ST_END:
            finish(o);
            return 1;
        }
    }
}

/* Whether an earlier access of o's file is still in progress (o waits its turn). */
static int behind(const cop *o)
{
    for (const cop *p = cops; p != o; p = p->next)
        if (p->f == o->f)
            return 1;
    return 0;
}

/* The progress hook: advances every access whose turn it is. */
static int progress_cops(void)
{
    static int busy;                  /* a step's collective may poll progress itself */
    if (busy)
        return 0;
    busy = 1;
    int events = 0;
    for (cop **p = &cops; *p;) {
        cop *o = *p;
        if (behind(o)) {
            p = &o->next;
            continue;
        }
        cop *next = o->next;
        if (advance(o)) {
            *p = next;                /* o is freed */
            ncops--;
            events++;
        } else {
            p = &o->next;
        }
    }
    busy = 0;
    return events;
}

int mp_io_coll_start(const char *F, mp_file *f, const mp_io_args *a, int nonblocking,
                     mp_request **req)
{
    cop *o = mp_calloc(1, sizeof *o);
    o->F = F;
    o->f = f;
    o->a = *a;
    mp_datatype_retain(a->dt);
    o->nonblocking = nonblocking;
    o->state = ST_GATHER;
    o->x.F = F;
    o->x.f = f;
    o->x.write = a->write;
    o->lerr = mp_io_check(F, f, a, &o->bytes);
    MPI_Offset esize = f->etype->size;
    o->pos = (a->where == MP_IO_AT ? a->offset : f->pos) * esize;
    if (!o->lerr)
        o->lerr = mp_io_stage(F, f, a, o->bytes, &o->x.mem, &o->tmp);
    if (o->lerr)
        o->bytes = 0;
    o->mine[G_LO] = INT64_MAX;        /* my range [lo, hi) */
    o->mine[G_HI] = INT64_MIN;
    if (o->bytes) {
        o->mine[G_LO] = mp_io_file_offset(f, o->pos);
        o->mine[G_HI] = mp_io_span_end(f, o->pos, o->bytes);
    }
    if (nonblocking && !o->lerr && a->where == MP_IO_INDIVIDUAL)
        f->pos += (MPI_Offset)o->bytes / esize;   /* at once, by the etypes requested */
    mp_request *r = mp_request_alloc(MP_REQ_FILE);
    r->comm = f->comm;
    r->owner = f;                     /* its errors go through f's handler (binding) */
    o->req = r;
    *req = r;
    cop **p = &cops;
    while (*p)
        p = &(*p)->next;
    *p = o;
    ncops++;
    mp_progress_register_gated(progress_cops, &ncops);   /* once: it ignores repeats */
    progress_cops();                  /* its first step, when it is its file's turn */
    return MPI_SUCCESS;
}

static int has_cop(const mp_file *f)
{
    const cop *o = cops;
    while (o && o->f != f)
        o = o->next;
    return o != NULL;
}

void mp_io_coll_drain(const mp_file *f)
{
    mp_io_progress_while(has_cop, f);
}
