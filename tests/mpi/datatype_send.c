/* mempi-test: np=1,2,3,4,8 timeout=120 */
/* mempi-test: np=3 timeout=120 env=MEMPI_CMA=0 */
/* datatype_send.c -- every datatype constructor sent around a ring.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Each rank sends to rank+1 and receives from rank-1 with a derived type on one side and
 * either a plain contiguous type or a different derived type with the same signature on the
 * other, so packing, unpacking and the transports' pipelining of non-contiguous data are all
 * exercised.  The expected values are computed locally from the type's definition.  Sizes
 * range from a few bytes to several megabytes (larger than any eager limit).  Also checks
 * MPI_Get_count / MPI_Get_elements on the status, MPI_Type_free while a nonblocking send
 * with the type is pending, and MPI_PACKED messages received with the original type.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static double value(int src, long i) { return src * 1e7 + (double)i; }

/* Sends count elements of stype from a buffer whose double at index i holds value(rank, i);
 * receives into contiguous doubles; `index` lists, in type-map order, the indices of the
 * doubles the type selects. */
static void ring_to_contig(const char *what, MPI_Datatype stype, int count, long span,
                           const long *index, long n)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    double *sbuf = malloc((size_t)span * sizeof(double));
    double *rbuf = malloc((size_t)(n + 1) * sizeof(double));
    for (long i = 0; i < span; i++)
        sbuf[i] = value(rank, i);
    for (long i = 0; i <= n; i++)
        rbuf[i] = -1;
    MPI_Status st;
    MPI_Sendrecv(sbuf, count, stype, next, 1, rbuf, (int)n + 1, MPI_DOUBLE, prev, 1,
                 MPI_COMM_WORLD, &st);
    int got;
    MPI_Get_count(&st, MPI_DOUBLE, &got);
    EXPECT(got == n, "%s: received %d doubles, expected %ld", what, got, n);
    EXPECT(st.MPI_SOURCE == prev && st.MPI_TAG == 1, "%s: status source/tag %d/%d", what,
          st.MPI_SOURCE, st.MPI_TAG);
    for (long i = 0; i < n; i++)
        if (rbuf[i] != value(prev, index[i])) {
            EXPECT(0, "%s: element %ld is %g, expected %g", what, i, rbuf[i],
                  value(prev, index[i]));
            break;
        }
    EXPECT(rbuf[n] == -1, "%s: wrote past the message", what);
    free(sbuf);
    free(rbuf);
}

/* The reverse: contiguous doubles in, derived type out.  Untouched holes must stay. */
static void ring_from_contig(const char *what, MPI_Datatype rtype, int count, long span,
                             const long *index, long n)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    double *sbuf = malloc((size_t)(n ? n : 1) * sizeof(double));
    double *rbuf = malloc((size_t)span * sizeof(double));
    char *hit = calloc((size_t)span, 1);
    for (long i = 0; i < n; i++)
        sbuf[i] = value(rank, i);
    for (long i = 0; i < span; i++)
        rbuf[i] = -1;
    MPI_Status st;
    MPI_Sendrecv(sbuf, (int)n, MPI_DOUBLE, next, 2, rbuf, count, rtype, prev, 2,
                 MPI_COMM_WORLD, &st);
    int got, elems;
    MPI_Get_count(&st, rtype, &got);
    MPI_Get_elements(&st, rtype, &elems);
    EXPECT(got == count, "%s: MPI_Get_count %d, expected %d", what, got, count);
    EXPECT(elems == n, "%s: MPI_Get_elements %d, expected %ld", what, elems, n);
    for (long i = 0; i < n; i++) {
        hit[index[i]] = 1;
        if (rbuf[index[i]] != value(prev, i)) {
            EXPECT(0, "%s: element %ld (index %ld) is %g, expected %g", what, i, index[i],
                  rbuf[index[i]], value(prev, i));
            break;
        }
    }
    for (long i = 0; i < span; i++)
        if (!hit[i] && rbuf[i] != -1) {
            EXPECT(0, "%s: hole at index %ld overwritten", what, i);
            break;
        }
    free(sbuf);
    free(rbuf);
    free(hit);
}

static void both(const char *what, MPI_Datatype t, int count, long span, const long *index,
                 long n)
{
    MPI_Type_commit(&t);
    ring_to_contig(what, t, count, span, index, n);
    ring_from_contig(what, t, count, span, index, n);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *idx = malloc(4000000 * sizeof(long));
    long n;
    MPI_Datatype t, u;

    /* contiguous */
    MPI_Type_contiguous(7, MPI_DOUBLE, &t);
    for (n = 0; n < 21; n++) idx[n] = n;
    both("contiguous", t, 3, 21, idx, 21);

    /* vector: small and large (several MB, beyond eager) */
    long sizes[3] = { 5, 1000, 500000 };
    for (int s = 0; s < 3; s++) {
        MPI_Type_vector((int)sizes[s], 1, 2, MPI_DOUBLE, &t);
        for (n = 0; n < sizes[s]; n++) idx[n] = 2 * n;
        both("vector(n,1,2)", t, 1, 2 * sizes[s], idx, n);
    }
    MPI_Type_vector(1000, 64, 128, MPI_DOUBLE, &t);
    n = 0;
    for (long b = 0; b < 1000; b++) for (long j = 0; j < 64; j++) idx[n++] = b * 128 + j;
    both("vector(1000,64,128)", t, 1, 1000 * 128, idx, n);

    /* hvector with a negative stride, 2 elements of the type */
    MPI_Type_create_hvector(4, 2, -3 * (MPI_Aint)sizeof(double), MPI_DOUBLE, &u);
    /* one element covers indices 9,10, 6,7, 3,4, 0,1 relative to lb; shift with resized */
    MPI_Type_create_resized(u, -9 * (MPI_Aint)sizeof(double), 11 * sizeof(double), &t);
    MPI_Type_free(&u);
    n = 0;
    for (int e = 0; e < 2; e++) for (int i = 0; i < 4; i++) for (int j = 0; j < 2; j++)
        idx[n++] = 11 * e + 9 - 3 * i + j;
    /* buffer passed is the start of the span: displacement 0 of element 0 is index 9 */
    {
        MPI_Datatype s;
        MPI_Aint d = 9 * sizeof(double);
        int one = 1;
        MPI_Type_create_hindexed(1, &one, &d, t, &s);
        MPI_Type_free(&t);
        MPI_Type_create_resized(s, 0, 11 * sizeof(double), &t);
        MPI_Type_free(&s);
    }
    both("hvector negative stride", t, 2, 22, idx, n);

    /* indexed */
    int bl[4] = { 3, 0, 1, 2 }, dsp[4] = { 10, 0, 1, 20 };
    MPI_Type_indexed(4, bl, dsp, MPI_DOUBLE, &t);
    n = 0;
    for (int i = 0; i < 4; i++) for (int j = 0; j < bl[i]; j++) idx[n++] = dsp[i] + j;
    both("indexed", t, 1, 22, idx, n);

    /* hindexed, indexed_block, hindexed_block */
    MPI_Aint hd[3] = { 16 * 8, 0, 4 * 8 };
    int hbl[3] = { 2, 1, 3 };
    MPI_Type_create_hindexed(3, hbl, hd, MPI_DOUBLE, &t);
    n = 0;
    for (int i = 0; i < 3; i++) for (int j = 0; j < hbl[i]; j++) idx[n++] = hd[i] / 8 + j;
    both("hindexed", t, 1, 18, idx, n);
    int ibd[3] = { 7, 2, 12 };
    MPI_Type_create_indexed_block(3, 2, ibd, MPI_DOUBLE, &t);
    n = 0;
    for (int i = 0; i < 3; i++) for (int j = 0; j < 2; j++) idx[n++] = ibd[i] + j;
    both("indexed_block", t, 1, 14, idx, n);
    MPI_Aint hbd[2] = { 40, 8 };
    MPI_Type_create_hindexed_block(2, 2, hbd, MPI_DOUBLE, &t);
    n = 0;
    for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) idx[n++] = hbd[i] / 8 + j;
    both("hindexed_block", t, 1, 7, idx, n);

    /* struct of vectors of indexed: two members */
    {
        int ib[2] = { 1, 1 }, id[2] = { 0, 3 };
        MPI_Datatype ind, vec, s;
        MPI_Type_indexed(2, ib, id, MPI_DOUBLE, &ind);     /* indices 0, 3; extent 4 */
        MPI_Type_vector(3, 1, 2, ind, &vec);               /* at 0, 8, 16 (x4 doubles) */
        int sb[2] = { 1, 2 };
        MPI_Aint sd[2] = { 0, 30 * 8 };
        MPI_Datatype st[2] = { vec, MPI_DOUBLE };
        MPI_Type_create_struct(2, sb, sd, st, &s);
        MPI_Type_free(&ind);
        MPI_Type_free(&vec);
        n = 0;
        for (int e = 0; e < 3; e++) {
            long base = e * 32;       /* extent: ub = 30+2 = 32 doubles = 256 bytes */
            for (int i = 0; i < 3; i++) { idx[n++] = base + 8 * i; idx[n++] = base + 8 * i + 3; }
            idx[n++] = base + 30;
            idx[n++] = base + 31;
        }
        both("struct(vector(indexed))", s, 3, 96, idx, n);
    }

    /* subarray: 3-d, both orders */
    {
        int gs[3] = { 4, 5, 6 }, ss[3] = { 2, 3, 4 }, st[3] = { 1, 2, 1 };
        MPI_Type_create_subarray(3, gs, ss, st, MPI_ORDER_C, MPI_DOUBLE, &t);
        n = 0;
        for (int i = 0; i < 2; i++) for (int j = 0; j < 3; j++) for (int k = 0; k < 4; k++)
            idx[n++] = ((1 + i) * 5 + 2 + j) * 6 + 1 + k;
        both("subarray C", t, 1, 120, idx, n);
        MPI_Type_create_subarray(3, gs, ss, st, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
        n = 0;
        for (int k = 0; k < 4; k++) for (int j = 0; j < 3; j++) for (int i = 0; i < 2; i++)
            idx[n++] = (1 + i) + 4 * ((2 + j) + 5 * (1 + k));
        both("subarray Fortran", t, 1, 120, idx, n);
    }

    /* darray: 2-d block x cyclic(2) over a grid of this job's size */
    {
        int dims[2] = { 0, 0 };
        MPI_Dims_create(size, 2, dims);
        int gs[2] = { 7, 9 }, dist[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC };
        int dargs[2] = { MPI_DISTRIBUTE_DFLT_DARG, 2 };
        MPI_Type_create_darray(size, rank, 2, gs, dist, dargs, dims, MPI_ORDER_C, MPI_DOUBLE, &t);
        /* the receiver's layout is the sender's: rank r receives what rank r-1 selects with
         * its own darray, so compute the receive side with prev's coordinates. */
        int prev = (rank + size - 1) % size;
        int pc[2] = { prev / dims[1], prev % dims[1] }, mc[2] = { rank / dims[1], rank % dims[1] };
        long blk = (7 + dims[0] - 1) / dims[0];
        n = 0;
        for (int i = 0; i < 7; i++) for (int j = 0; j < 9; j++)
            if (i / blk == mc[0] && (j / 2) % dims[1] == mc[1])
                idx[n++] = i * 9 + j;
        long mine = n;
        long *pidx = malloc(64 * sizeof(long)), pn = 0;
        for (int i = 0; i < 7; i++) for (int j = 0; j < 9; j++)
            if (i / blk == pc[0] && (j / 2) % dims[1] == pc[1])
                pidx[pn++] = i * 9 + j;
        MPI_Type_commit(&t);
        int tsize;
        MPI_Type_size(t, &tsize);
        EXPECT(tsize == mine * 8, "darray: size %d, expected %ld", tsize, mine * 8);
        /* send with the darray, receive contiguous: uses prev's selection */
        {
            int next = (rank + 1) % size;
            double sbuf[63], rbuf[64];
            for (int i = 0; i < 63; i++) sbuf[i] = value(rank, i);
            MPI_Status stt;
            MPI_Sendrecv(sbuf, 1, t, next, 3, rbuf, 64, MPI_DOUBLE, prev, 3, MPI_COMM_WORLD, &stt);
            int got;
            MPI_Get_count(&stt, MPI_DOUBLE, &got);
            EXPECT(got == pn, "darray: got %d doubles, expected %ld", got, pn);
            for (long i = 0; i < pn && i < got; i++)
                EXPECT(rbuf[i] == value(prev, pidx[i]), "darray: element %ld", i);
        }
        free(pidx);
        MPI_Type_free(&t);
    }

    /* resized + dup, count 5: every other double */
    MPI_Type_create_resized(MPI_DOUBLE, 0, 16, &u);
    MPI_Type_dup(u, &t);
    MPI_Type_free(&u);
    for (n = 0; n < 5; n++) idx[n] = 2 * n;
    both("resized+dup", t, 5, 10, idx, 5);

    /* pair types across ranks: MPI_DOUBLE_INT and MPI_SHORT_INT arrays */
    {
        struct { double v; int i; } di[3], dr[3];
        struct { short v; int i; } si[3], sr[3];
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        for (int i = 0; i < 3; i++) {
            di[i].v = rank + i * 0.5; di[i].i = rank * 10 + i;
            si[i].v = (short)(rank + i); si[i].i = rank * 100 + i;
        }
        MPI_Sendrecv(di, 3, MPI_DOUBLE_INT, next, 4, dr, 3, MPI_DOUBLE_INT, prev, 4,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(si, 3, MPI_SHORT_INT, next, 5, sr, 3, MPI_SHORT_INT, prev, 5,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 3; i++) {
            EXPECT(dr[i].v == prev + i * 0.5 && dr[i].i == prev * 10 + i, "MPI_DOUBLE_INT %d", i);
            EXPECT(sr[i].v == prev + i && sr[i].i == prev * 100 + i, "MPI_SHORT_INT %d", i);
        }
    }

    /* Type_free while a nonblocking send with the type is pending; large message */
    {
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        long m = 300000;
        double *s = malloc((size_t)(3 * m) * sizeof(double)), *r = malloc((size_t)m * sizeof(double));
        for (long i = 0; i < 3 * m; i++) s[i] = value(rank, i);
        MPI_Type_vector((int)m, 1, 3, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        MPI_Request req[2];
        MPI_Irecv(r, (int)m, MPI_DOUBLE, prev, 6, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(s, 1, t, next, 6, MPI_COMM_WORLD, &req[1]);
        MPI_Type_free(&t);
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        MPI_Wait(&req[1], MPI_STATUS_IGNORE);
        for (long i = 0; i < m; i++)
            if (r[i] != value(prev, 3 * i)) { EXPECT(0, "free while pending: element %ld", i); break; }
        free(s);
        free(r);
    }

    /* MPI_PACKED: pack a column and an int, send packed, receive with the original types */
    {
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        double mtx[6][4];
        for (int i = 0; i < 6; i++) for (int j = 0; j < 4; j++) mtx[i][j] = value(rank, i * 4 + j);
        MPI_Datatype col;
        MPI_Type_vector(6, 1, 4, MPI_DOUBLE, &col);
        MPI_Type_commit(&col);
        char pbuf[256];
        int pos = 0;
        MPI_Pack(&mtx[0][1], 1, col, pbuf, sizeof pbuf, &pos, MPI_COMM_WORLD);
        double got[6];
        MPI_Status stt;
        MPI_Sendrecv(pbuf, pos, MPI_PACKED, next, 7, got, 6, MPI_DOUBLE, prev, 7,
                     MPI_COMM_WORLD, &stt);
        for (int i = 0; i < 6; i++)
            EXPECT(got[i] == value(prev, i * 4 + 1), "MPI_PACKED column %d", i);
        /* and the reverse: send with the type, receive MPI_PACKED and unpack */
        char rb[256];
        MPI_Sendrecv(&mtx[0][2], 1, col, next, 8, rb, sizeof rb, MPI_PACKED, prev, 8,
                     MPI_COMM_WORLD, &stt);
        int cnt, upos = 0;
        MPI_Get_count(&stt, MPI_PACKED, &cnt);
        EXPECT(cnt == 48, "MPI_PACKED count %d", cnt);
        double back[6][4];
        memset(back, 0, sizeof back);
        MPI_Unpack(rb, cnt, &upos, &back[0][3], 1, col, MPI_COMM_WORLD);
        for (int i = 0; i < 6; i++)
            EXPECT(back[i][3] == value(prev, i * 4 + 2) && back[i][0] == 0, "unpacked column %d", i);
        MPI_Type_free(&col);
    }

    free(idx);
    CHECK(check_failures == 0, "datatype_send: %d failed expectations", check_failures);
    MPI_Finalize();
    return 0;
}
