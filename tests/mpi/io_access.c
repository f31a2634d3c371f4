/* mempi-test: np=1,2,3,5 timeout=120 */
/* io_access.c -- every data access path against a reference: explicit offsets, individual
 * pointers, shared pointers, ordered, nonblocking and split collective, large-count forms,
 * and reads past the end of the file.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Each phase writes a file whose expected content is computed serially (value = function
 * of the int's index) and reads it back in full on every rank; statuses must count exactly
 * the ints moved (MPI_Get_count, MPI_Get_elements), and a read running past the end must
 * report only what was there.  Shared pointer: every rank appends K records (rank, seq)
 * with write_shared; the file must hold each record exactly once, each rank's in order.
 * Ordered: rank r writes r+1 ints of value r; the file must be 0 1 1 2 2 2 ... and
 * read_ordered must give each rank its own run back.
 */
#include "io_common.h"

static int me, np;
enum { N = 64, K = 40 };

static int count_of(MPI_Status *st)
{
    int n;
    MPI_Get_count(st, MPI_INT, &n);
    return n;
}

static void read_all_check(MPI_File fh, int n, int (*expect)(int, void *), void *ctx)
{
    int *all = malloc(sizeof(int) * (size_t)(n + 5));
    MPI_Status st;
    CHECK_MPI(MPI_File_read_at(fh, 0, all, n + 5, MPI_INT, &st));   /* 5 past the end */
    CHECK(count_of(&st) == n, "read past the end returned %d ints, file has %d",
          count_of(&st), n);
    for (int i = 0; i < n; i++)
        CHECK(all[i] == expect(i, ctx), "int %d is %d, expected %d", i, all[i], expect(i, ctx));
    free(all);
}

static int block_value(int i, void *ctx) { return i * 3 + 1; }

/* each rank writes its block of N ints in several ways, one file per way */
static void test_blocks(void)
{
    int buf[N];
    for (int k = 0; k < N; k++)
        buf[k] = (me * N + k) * 3 + 1;
    for (int way = 0; way < 8; way++) {
        char name[32];
        snprintf(name, sizeof name, "blocks.%d", way);
        MPI_File fh = io_create(name, MPI_INFO_NULL);
        MPI_Offset off = (MPI_Offset)me * N * (MPI_Offset)sizeof(int);
        MPI_Status st;
        MPI_Request req;
        int flag = 0;
        switch (way) {
        case 0: CHECK_MPI(MPI_File_write_at(fh, off, buf, N, MPI_INT, &st)); break;
        case 1: CHECK_MPI(MPI_File_write_at_all(fh, off, buf, N, MPI_INT, &st)); break;
        case 2:
            CHECK_MPI(MPI_File_seek(fh, off, MPI_SEEK_SET));
            CHECK_MPI(MPI_File_write(fh, buf, N / 2, MPI_INT, &st));
            CHECK(count_of(&st) == N / 2, "write count %d", count_of(&st));
            CHECK_MPI(MPI_File_write_all(fh, buf + N / 2, N / 2, MPI_INT, &st));
            st.count_lo = 0;
            CHECK_MPI(MPI_File_write_at(fh, off, buf, N, MPI_INT, &st));
            break;
        case 3:
            CHECK_MPI(MPI_File_iwrite_at(fh, off, buf, N, MPI_INT, &req));
            CHECK_MPI(MPI_Wait(&req, &st));
            CHECK(req == MPI_REQUEST_NULL, "request not freed");
            break;
        case 4:
            CHECK_MPI(MPI_File_seek(fh, off, MPI_SEEK_SET));
            CHECK_MPI(MPI_File_iwrite(fh, buf, N, MPI_INT, &req));
            while (!flag)
                CHECK_MPI(MPI_Test(&req, &flag, &st));
            break;
        case 5:
            CHECK_MPI(MPI_File_iwrite_at_all(fh, off, buf, N, MPI_INT, &req));
            CHECK_MPI(MPI_Waitall(1, &req, &st));
            break;
        case 6:
            CHECK_MPI(MPI_File_write_at_all_begin(fh, off, buf, N, MPI_INT));
            CHECK_MPI(MPI_File_write_at_all_end(fh, buf, &st));
            break;
        case 7: {
            MPI_Count n;
            CHECK_MPI(MPI_File_write_at_c(fh, off, buf, (MPI_Count)N, MPI_INT, &st));
            CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &n));
            CHECK(n == N, "large-count status %lld", (long long)n);
            break;
        }
        }
        CHECK(count_of(&st) == N, "way %d: status counts %d ints", way, count_of(&st));
        int e;
        MPI_Get_elements(&st, MPI_INT, &e);
        CHECK(e == N, "way %d: elements %d", way, e);
        CHECK_MPI(MPI_File_sync(fh));         /* sync-barrier-sync: others' data visible */
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_File_sync(fh));
        read_all_check(fh, N * np, block_value, NULL);
        /* read my block back by the matching read path */
        int back[N];
        memset(back, 0, sizeof back);
        switch (way) {
        case 3:
            CHECK_MPI(MPI_File_iread_at(fh, off, back, N, MPI_INT, &req));
            CHECK_MPI(MPI_Wait(&req, &st));
            break;
        case 4:
            CHECK_MPI(MPI_File_seek(fh, off, MPI_SEEK_SET));
            CHECK_MPI(MPI_File_iread_all(fh, back, N, MPI_INT, &req));
            CHECK_MPI(MPI_Wait(&req, &st));
            break;
        case 6:
            CHECK_MPI(MPI_File_read_at_all_begin(fh, off, back, N, MPI_INT));
            CHECK_MPI(MPI_File_read_at_all_end(fh, back, &st));
            break;
        case 2:
            CHECK_MPI(MPI_File_seek(fh, off, MPI_SEEK_SET));
            CHECK_MPI(MPI_File_read_all_begin(fh, back, N, MPI_INT));
            CHECK_MPI(MPI_File_read_all_end(fh, back, &st));
            break;
        default:
            CHECK_MPI(MPI_File_read_at_all(fh, off, back, N, MPI_INT, &st));
        }
        CHECK(count_of(&st) == N, "way %d: read status counts %d ints", way, count_of(&st));
        CHECK(memcmp(back, buf, sizeof buf) == 0, "way %d: my block read back differs", way);
        CHECK_MPI(MPI_File_close(&fh));
    }
}

static void test_shared(void)
{
    MPI_File fh = io_create("shared", MPI_INFO_NULL);
    MPI_Datatype rec;
    MPI_Type_contiguous(2, MPI_INT, &rec);
    MPI_Type_commit(&rec);
    CHECK_MPI(MPI_File_set_view(fh, 0, rec, rec, "native", MPI_INFO_NULL));
    for (int k = 0; k < K; k++) {
        int r[2] = { me, k };
        MPI_Status st;
        if (k % 2) {
            CHECK_MPI(MPI_File_write_shared(fh, r, 1, rec, &st));
        } else {
            MPI_Request req;
            CHECK_MPI(MPI_File_iwrite_shared(fh, r, 2, MPI_INT, &req));
            CHECK_MPI(MPI_Wait(&req, &st));
        }
        CHECK(count_of(&st) == 2, "write_shared status %d", count_of(&st));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset pos;
    CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    /* rank 0 only: MPICH 4.0's ROMIO gives 0 on the other ranks here */
    CHECK(me != 0 || pos == (MPI_Offset)K * np, "shared position %lld, expected %d",
          (long long)pos, K * np);
    int *all = malloc(sizeof(int) * 2 * K * (size_t)np);
    int *next = calloc((size_t)np, sizeof(int));
    MPI_Status st;
    CHECK_MPI(MPI_File_read_at(fh, 0, all, K * np, rec, &st));
    CHECK(count_of(&st) == 2 * K * np, "read %d ints", count_of(&st));
    for (int i = 0; i < K * np; i++) {
        int r = all[2 * i], k = all[2 * i + 1];
        CHECK(r >= 0 && r < np && k == next[r], "record %d is (%d, %d)", i, r, k);
        next[r]++;
    }
    /* seek_shared, read_shared from every rank: disjoint records that cover the file */
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int got = 0, r[2];
    for (;;) {
        CHECK_MPI(MPI_File_read_shared(fh, r, 1, rec, &st));
        if (count_of(&st) == 0)
            break;
        CHECK(count_of(&st) == 2, "read_shared got %d ints", count_of(&st));
        got++;
    }
    int total;
    MPI_Allreduce(&got, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == K * np, "read_shared gave %d records in all, file has %d", total, K * np);
    free(all);
    free(next);
    MPI_Type_free(&rec);
    CHECK_MPI(MPI_File_close(&fh));
}

static int ordered_value(int i, void *ctx)
{
    int r = 0;
    while ((r + 1) * (r + 2) / 2 <= i)
        r++;
    return r;
}

static void test_ordered(void)
{
    MPI_File fh = io_create("ordered", MPI_INFO_NULL);
    int buf[64];
    for (int k = 0; k <= me; k++)
        buf[k] = me;
    MPI_Status st;
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    if (np > 1 && me == 1) {
        CHECK_MPI(MPI_File_write_ordered_begin(fh, buf, me + 1, MPI_INT));
        CHECK_MPI(MPI_File_write_ordered_end(fh, buf, &st));
    } else {
        CHECK_MPI(MPI_File_write_ordered(fh, buf, me + 1, MPI_INT, &st));
    }
    CHECK(count_of(&st) == me + 1, "write_ordered count %d", count_of(&st));
    MPI_Offset pos;
    CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == np * (np + 1) / 2, "shared position after ordered %lld", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);
    read_all_check(fh, np * (np + 1) / 2, ordered_value, NULL);
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int back[64];
    CHECK_MPI(MPI_File_read_ordered(fh, back, me + 1, MPI_INT, &st));
    CHECK(count_of(&st) == me + 1, "read_ordered count %d", count_of(&st));
    for (int k = 0; k <= me; k++)
        CHECK(back[k] == me, "read_ordered [%d] = %d", k, back[k]);
    CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, &me, &np);
    test_blocks();
    test_shared();
    test_ordered();
    io_done();
    MPI_Finalize();
    return 0;
}
