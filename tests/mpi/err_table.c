/* mempi-test: np=1,2,3 timeout=120 */
/* err_table.c -- table of bad arguments: datatypes, packing, groups, communicators,
 * topologies, attributes, error handlers and info.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Complements errh_args.c (which walks one call of each function) with the argument kinds it
 * does not reach: NULL output pointers, freed and foreign handles, uncommitted and
 * predefined datatypes, negative counts of every constructor, pack buffers too small, wrong
 * topology kinds, out-of-range ranks, dimensions and directions, keyvals of the wrong object
 * kind, over-long info values.
 *
 * The table is the body of bad_call(): each BAD(class, call) line is one case, numbered by
 * its source line, so adding a case is adding a line.  Every case runs under
 * MPI_ERRORS_RETURN and must return an error of exactly that class; then a health check
 * (a datatype built, committed, used and freed; a group; an info; a message to self) must
 * succeed.  stderr is a pipe that must stay empty (errors are returned, not printed), and the
 * whole table runs a few hundred times while resident memory must stay flat (no leaks on
 * error paths).
 */
#include <mpi.h>
#include "check.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int wrank, wsize;

/* Objects the bad calls refer to; made fresh for every round of the table. */
static struct {
    MPI_Datatype vec, uncommitted, freed;   /* freed: a handle never handed out */
    MPI_Comm cart, graph, dup, freed_comm;  /* freed_comm: freed in setup */
    MPI_Group wg;
    MPI_Info info;
    int ckey, tkey;
} o;

static void setup(void)
{
    MPI_Type_vector(3, 1, 2, MPI_INT, &o.vec);
    MPI_Type_commit(&o.vec);
    MPI_Type_contiguous(2, MPI_INT, &o.uncommitted);
    o.freed = (MPI_Datatype)((unsigned)o.uncommitted + 0x1000);
    int dims[1] = { wsize }, periods[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &o.cart);
    MPI_Comm_set_errhandler(o.cart, MPI_ERRORS_RETURN);
    int index[64], edges[64];
    for (int i = 0; i < wsize; i++) {
        index[i] = i + 1;
        edges[i] = (i + 1) % wsize;
    }
    MPI_Graph_create(MPI_COMM_WORLD, wsize, index, edges, 0, &o.graph);
    MPI_Comm_set_errhandler(o.graph, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &o.dup);
    MPI_Comm_group(MPI_COMM_WORLD, &o.wg);
    MPI_Info_create(&o.info);
    MPI_Info_set(o.info, "k", "v");
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &o.ckey, NULL);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &o.tkey, NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &o.freed_comm);    /* last: nothing reuses its handle */
    MPI_Comm saved = o.freed_comm;
    MPI_Comm_free(&o.freed_comm);
    o.freed_comm = saved;
}

static void handler(MPI_Comm *c, int *code, ...) { (void)c; (void)code; }

static void teardown(void)
{
    MPI_Type_free(&o.vec);
    MPI_Type_free(&o.uncommitted);
    MPI_Comm_free(&o.cart);
    MPI_Comm_free(&o.graph);
    MPI_Comm_free(&o.dup);
    MPI_Group_free(&o.wg);
    MPI_Info_free(&o.info);
    MPI_Comm_free_keyval(&o.ckey);
    MPI_Type_free_keyval(&o.tkey);
}

#define BAD(cls_, call_) case __LINE__: *cls = (cls_); *what = #call_; return (call_);
enum { FIRST_CASE = __LINE__ };

/* Runs case `line`; returns its result and sets *cls, *what.  Lines that are not cases
 * return -1 with *what == NULL. */
static int bad_call(int line, int *cls, const char **what)
{
    MPI_Datatype t, types[2] = { MPI_INT, MPI_DATATYPE_NULL };
    MPI_Comm c;
    MPI_Group g;
    MPI_Info info;
    MPI_Errhandler eh;
    MPI_Status st = { 0 };
    int x, y, bl[2] = { 1, -1 }, d[2] = { 0, 4 }, ints[4] = { 0 }, pos = 0;
    MPI_Aint ad[2] = { 0, 8 }, ext;
    MPI_Count cnt;
    char buf[64], packed[64] = { 0 }, longval[MPI_MAX_INFO_VAL + 10];
    int sizes[1] = { 4 }, subsizes[1] = { 5 }, starts[1] = { 0 }, one[1] = { 1 };
    int distrib[1] = { MPI_DISTRIBUTE_BLOCK }, darg[1] = { MPI_DISTRIBUTE_DFLT_DARG };
    int psize[1] = { 1 }, remain[1] = { 1 }, dims[2] = { 4, 0 }, two[2] = { 1, 1 };
    void *v;
    memset(buf, 0, sizeof buf);
    memset(longval, 'v', sizeof longval - 1);
    longval[sizeof longval - 1] = '\0';
    *what = NULL;
    switch (line) {
    /* ---- datatype constructors ---- */
    BAD(MPI_ERR_COUNT, MPI_Type_contiguous(-1, MPI_INT, &t))
    BAD(MPI_ERR_TYPE, MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t))
    BAD(MPI_ERR_TYPE, MPI_Type_contiguous(1, o.freed, &t))
    BAD(MPI_ERR_ARG, MPI_Type_contiguous(1, MPI_INT, NULL))
    BAD(MPI_ERR_ARG, MPI_Comm_rank(MPI_COMM_WORLD, NULL))
    BAD(MPI_ERR_ARG, MPI_Comm_size(o.dup, NULL))
    BAD(MPI_ERR_ARG, MPI_Query_thread(NULL))
    BAD(MPI_ERR_ARG, MPI_Is_thread_main(NULL))
    BAD(MPI_ERR_ARG, MPI_Get_version(NULL, NULL))
    BAD(MPI_ERR_ARG, MPI_Get_processor_name(NULL, NULL))
    BAD(MPI_ERR_COUNT, MPI_Type_vector(-2, 1, 3, MPI_INT, &t))
    BAD(MPI_ERR_ARG, MPI_Type_vector(2, -1, 3, MPI_INT, &t))
    BAD(MPI_ERR_TYPE, MPI_Type_create_hvector(1, 1, 8, MPI_DATATYPE_NULL, &t))
    BAD(MPI_ERR_ARG, MPI_Type_indexed(2, NULL, d, MPI_INT, &t))
    BAD(MPI_ERR_ARG, MPI_Type_indexed(2, bl, NULL, MPI_INT, &t))
    BAD(MPI_ERR_ARG, MPI_Type_indexed(2, bl, d, MPI_INT, &t))
    BAD(MPI_ERR_COUNT, MPI_Type_create_hindexed(-1, bl, ad, MPI_INT, &t))
    BAD(MPI_ERR_ARG, MPI_Type_create_indexed_block(1, -1, d, MPI_INT, &t))
    BAD(MPI_ERR_TYPE, MPI_Type_create_hindexed_block(1, 1, ad, o.freed, &t))
    BAD(MPI_ERR_TYPE, MPI_Type_create_struct(2, two, ad, types, &t))
    BAD(MPI_ERR_COUNT, MPI_Type_create_struct(-1, two, ad, types, &t))
    BAD(MPI_ERR_ARG, MPI_Type_create_struct(1, one, ad, NULL, &t))
    BAD(MPI_ERR_ARG, MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t))
    BAD(MPI_ERR_ARG, MPI_Type_create_subarray(1, sizes, one, starts, 99, MPI_INT, &t))
    BAD(MPI_ERR_DIMS, MPI_Type_create_subarray(0, sizes, one, starts, MPI_ORDER_C, MPI_INT, &t))
    BAD(MPI_ERR_ARG, MPI_Type_create_darray(1, 1, 1, sizes, distrib, darg, psize, MPI_ORDER_C, MPI_INT, &t))
    BAD(MPI_ERR_ARG, MPI_Type_create_darray(2, 0, 1, sizes, distrib, darg, psize, MPI_ORDER_C, MPI_INT, &t))
    BAD(MPI_ERR_TYPE, MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 8, &t))
    BAD(MPI_ERR_TYPE, MPI_Type_dup(o.freed, &t))
    BAD(MPI_ERR_COUNT, MPI_Type_contiguous_c(-5, MPI_INT, &t))
    BAD(MPI_ERR_ARG, MPI_Type_create_f90_integer(100, &t))
    BAD(MPI_ERR_ARG, MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t))
    /* ---- commit, free, queries ---- */
    BAD(MPI_ERR_ARG, MPI_Type_commit(NULL))
    BAD(MPI_ERR_TYPE, MPI_Type_commit(&types[1]))
    BAD(MPI_ERR_TYPE, (t = MPI_INT, MPI_Type_free(&t)))
    BAD(MPI_ERR_TYPE, (t = MPI_DATATYPE_NULL, MPI_Type_free(&t)))
    BAD(MPI_ERR_TYPE, (t = o.freed, MPI_Type_free(&t)))
    BAD(MPI_ERR_TYPE, MPI_Type_size(MPI_DATATYPE_NULL, &x))
    BAD(MPI_ERR_ARG, MPI_Type_size(MPI_INT, NULL))
    BAD(MPI_ERR_TYPE, MPI_Type_size_x(o.freed, &cnt))
    BAD(MPI_ERR_TYPE, MPI_Type_get_extent(MPI_DATATYPE_NULL, &ext, &ext))
    BAD(MPI_ERR_ARG, MPI_Type_get_true_extent(MPI_INT, NULL, &ext))
    BAD(MPI_ERR_TYPE, MPI_Type_get_envelope(MPI_DATATYPE_NULL, &x, &x, &x, &y))
    BAD(MPI_ERR_ARG, MPI_Type_get_contents(MPI_INT, 4, 4, 2, ints, ad, types))
    BAD(MPI_ERR_ARG, MPI_Type_get_contents(o.vec, 0, 0, 0, ints, ad, types))
    BAD(MPI_ERR_TYPE, MPI_Type_set_name(MPI_DATATYPE_NULL, "x"))
    BAD(MPI_ERR_ARG, MPI_Type_set_name(o.vec, NULL))
    BAD(MPI_ERR_ARG, MPI_Type_get_name(o.vec, buf, NULL))
    BAD(MPI_ERR_ARG, MPI_Type_match_size(99, 4, &t))
    BAD(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t))
    BAD(MPI_ERR_ARG, MPI_Get_address(buf, NULL))
    BAD(MPI_ERR_ARG, MPI_Get_elements(NULL, MPI_INT, &x))
    BAD(MPI_ERR_TYPE, MPI_Get_count(&st, MPI_DATATYPE_NULL, &x))
    /* ---- pack ---- */
    BAD(MPI_ERR_TYPE, MPI_Pack(buf, 1, o.uncommitted, packed, 64, &pos, MPI_COMM_WORLD))
    BAD(MPI_ERR_TRUNCATE, MPI_Pack(buf, 4, MPI_INT, packed, 8, &pos, MPI_COMM_WORLD))
    BAD(MPI_ERR_ARG, MPI_Pack(buf, 1, MPI_INT, packed, 64, NULL, MPI_COMM_WORLD))
    BAD(MPI_ERR_COMM, MPI_Pack(buf, 1, MPI_INT, packed, 64, &pos, MPI_COMM_NULL))
    BAD(MPI_ERR_COUNT, MPI_Pack(buf, -1, MPI_INT, packed, 64, &pos, MPI_COMM_WORLD))
    BAD(MPI_ERR_TRUNCATE, MPI_Unpack(packed, 4, &pos, buf, 2, MPI_INT, MPI_COMM_WORLD))
    BAD(MPI_ERR_TYPE, MPI_Unpack(packed, 64, &pos, buf, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD))
    BAD(MPI_ERR_COUNT, MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &x))
    BAD(MPI_ERR_COMM, MPI_Pack_size(1, MPI_INT, MPI_COMM_NULL, &x))
    BAD(MPI_ERR_ARG, MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, NULL))
    BAD(MPI_ERR_ARG, MPI_Pack_external("native", buf, 1, MPI_INT, packed, 64, &ext))
    BAD(MPI_ERR_TRUNCATE, MPI_Pack_external("external32", buf, 4, MPI_INT, packed, 8, (ext = 0, &ext)))
    BAD(MPI_ERR_ARG, MPI_Pack_external_size("bogus", 1, MPI_INT, &ext))
    /* ---- datatype attributes ---- */
    BAD(MPI_ERR_KEYVAL, MPI_Type_set_attr(o.vec, o.ckey, NULL))
    BAD(MPI_ERR_KEYVAL, MPI_Type_get_attr(o.vec, 0x7777, &v, &x))
    BAD(MPI_ERR_TYPE, MPI_Type_get_attr(MPI_DATATYPE_NULL, o.tkey, &v, &x))
    BAD(MPI_ERR_KEYVAL, MPI_Type_delete_attr(o.vec, MPI_KEYVAL_INVALID))
    BAD(MPI_ERR_ARG, MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, NULL, NULL))
    /* ---- groups ---- */
    BAD(MPI_ERR_ARG, MPI_Group_size(o.wg, NULL))
    BAD(MPI_ERR_GROUP, MPI_Group_translate_ranks(MPI_GROUP_NULL, 1, one, o.wg, ints))
    BAD(MPI_ERR_ARG, MPI_Group_translate_ranks(o.wg, -1, one, o.wg, ints))
    BAD(MPI_ERR_RANK, (ints[0] = wsize, MPI_Group_excl(o.wg, 1, ints, &g)))
    BAD(MPI_ERR_ARG, MPI_Group_range_incl(o.wg, -1, NULL, &g))
    BAD(MPI_ERR_ARG, MPI_Group_incl(o.wg, 1, ints, NULL))
    BAD(MPI_ERR_GROUP, MPI_Group_compare(MPI_GROUP_NULL, o.wg, &x))
    BAD(MPI_ERR_ARG, MPI_Group_compare(o.wg, o.wg, NULL))
    /* ---- communicators ---- */
    BAD(MPI_ERR_COMM, MPI_Comm_size(MPI_COMM_NULL, &x))
    BAD(MPI_ERR_ARG, MPI_Comm_split(MPI_COMM_WORLD, 0, 0, NULL))
    BAD(MPI_ERR_ARG, MPI_Comm_dup(MPI_COMM_WORLD, NULL))
    BAD(MPI_ERR_COMM, MPI_Comm_idup(MPI_COMM_NULL, &c, (MPI_Request *)buf))
    BAD(MPI_ERR_INFO, MPI_Comm_dup_with_info(MPI_COMM_WORLD, (MPI_Info)0x1c000077, &c))
    BAD(MPI_ERR_GROUP, MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &c))
    BAD(MPI_ERR_ARG, MPI_Comm_get_name(MPI_COMM_WORLD, NULL, &x))
    BAD(MPI_ERR_ARG, MPI_Comm_set_name(MPI_COMM_WORLD, NULL))
    BAD(MPI_ERR_COMM, MPI_Comm_set_info(MPI_COMM_NULL, o.info))
    BAD(MPI_ERR_ARG, MPI_Comm_get_info(MPI_COMM_WORLD, NULL))
    BAD(MPI_ERR_COMM, MPI_Comm_compare(MPI_COMM_NULL, MPI_COMM_WORLD, &x))
    BAD(MPI_ERR_TAG, MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 0, -1, &c))
    BAD(MPI_ERR_COMM, MPI_Intercomm_merge(MPI_COMM_NULL, 0, &c))
    BAD(MPI_ERR_COMM, MPI_Comm_split(o.freed_comm, 0, 0, &c))
    BAD(MPI_ERR_COMM, MPI_Comm_dup(o.freed_comm, &c))
    /* ---- topologies ---- */
    BAD(MPI_ERR_TOPOLOGY, MPI_Cart_sub(o.graph, remain, &c))
    BAD(MPI_ERR_ARG, MPI_Cart_sub(o.cart, NULL, &c))
    BAD(MPI_ERR_DIMS, MPI_Cart_map(MPI_COMM_WORLD, -1, dims, one, &x))
    BAD(MPI_ERR_RANK, MPI_Graph_neighbors_count(o.graph, wsize, &x))
    BAD(MPI_ERR_RANK, MPI_Graph_neighbors(o.graph, -1, 1, ints))
    BAD(MPI_ERR_TOPOLOGY, MPI_Graph_get(o.cart, 1, 1, ints, ints))
    BAD(MPI_ERR_TOPOLOGY, MPI_Cart_get(o.graph, 1, dims, one, ints))
    BAD(MPI_ERR_COMM, MPI_Topo_test(MPI_COMM_NULL, &x))
    BAD(MPI_ERR_ARG, MPI_Topo_test(o.cart, NULL))
    BAD(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors(o.cart, 0, ints, MPI_UNWEIGHTED, 0, ints, MPI_UNWEIGHTED))
    BAD(MPI_ERR_ARG, MPI_Cart_create(MPI_COMM_WORLD, 1, one, one, 0, NULL))
    BAD(MPI_ERR_ARG, MPI_Cart_shift(o.cart, -1, 1, &x, &y))
    BAD(MPI_ERR_DIMS, MPI_Dims_create(6, 2, dims))
    BAD(MPI_ERR_DIMS, MPI_Dims_create(6, -1, dims))
    /* ---- communicator attributes ---- */
    BAD(MPI_ERR_ARG, MPI_Comm_get_attr(MPI_COMM_WORLD, o.ckey, &v, NULL))
    BAD(MPI_ERR_ARG, MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL))
    BAD(MPI_ERR_COMM, MPI_Attr_get(MPI_COMM_NULL, o.ckey, &v, &x))
    BAD(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_WORLD, o.tkey, &v, &x))
    BAD(MPI_ERR_KEYVAL, MPI_Comm_delete_attr(o.dup, o.tkey))
    BAD(MPI_ERR_KEYVAL, MPI_Comm_delete_attr(o.dup, MPI_TAG_UB))
    /* ---- error handlers and codes ---- */
    BAD(MPI_ERR_ARG, MPI_Comm_create_errhandler(NULL, &eh))
    BAD(MPI_ERR_ARG, MPI_Comm_create_errhandler(handler, NULL))
    BAD(MPI_ERR_ARG, MPI_Error_string(-5, buf, &x))
    BAD(MPI_ERR_ARG, MPI_Add_error_class(NULL))
    BAD(MPI_ERR_ARG, MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL))
    /* ---- info ---- */
    BAD(MPI_ERR_INFO, MPI_Info_get_nkeys(MPI_INFO_NULL, &x))
    BAD(MPI_ERR_ARG, MPI_Info_get_nthkey(o.info, -1, buf))
    BAD(MPI_ERR_ARG, MPI_Info_get_nthkey(o.info, 1, buf))
    BAD(MPI_ERR_INFO_VALUE, MPI_Info_set(o.info, "k2", longval))
    BAD(MPI_ERR_INFO_VALUE, MPI_Info_set(o.info, "k2", NULL))
    BAD(MPI_ERR_INFO_KEY, MPI_Info_set(o.info, NULL, "v"))
    BAD(MPI_ERR_ARG, MPI_Info_get_string(o.info, "k", NULL, buf, &x))
    BAD(MPI_ERR_ARG, MPI_Info_create(NULL))
    BAD(MPI_ERR_ARG, MPI_Info_dup(o.info, NULL))
    BAD(MPI_ERR_INFO, (info = (MPI_Info)0x1c0000ff, MPI_Info_free(&info)))
    BAD(MPI_ERR_INFO_NOKEY, MPI_Info_delete(o.info, "absent"))
    }
    return -1;
}
enum { LAST_CASE = __LINE__ };

/* A correct use of each family after every bad call: the library is still usable. */
static int healthy(void)
{
    MPI_Datatype t;
    MPI_Group g;
    MPI_Info info;
    int a[6] = { 1, 2, 3, 4, 5, 6 }, b[3] = { 0 }, r = 0, n = 0;
    int ok = MPI_Type_vector(3, 1, 2, MPI_INT, &t) == MPI_SUCCESS &&
             MPI_Type_commit(&t) == MPI_SUCCESS &&
             MPI_Sendrecv(a, 1, t, 0, 5, b, 3, MPI_INT, 0, 5, MPI_COMM_SELF,
                          MPI_STATUS_IGNORE) == MPI_SUCCESS &&
             b[0] == 1 && b[1] == 3 && b[2] == 5 && MPI_Type_free(&t) == MPI_SUCCESS;
    ok = ok && MPI_Group_incl(o.wg, 1, &r, &g) == MPI_SUCCESS &&
         MPI_Group_size(g, &n) == MPI_SUCCESS && n == 1 && MPI_Group_free(&g) == MPI_SUCCESS;
    ok = ok && MPI_Info_create(&info) == MPI_SUCCESS && MPI_Info_free(&info) == MPI_SUCCESS;
    ok = ok && MPI_Comm_rank(o.dup, &r) == MPI_SUCCESS && r == wrank;
    return ok;
}

/* One round of the table; returns the number of cases. */
static int table(void)
{
    int cases = 0;
    setup();
    for (int line = FIRST_CASE; line < LAST_CASE; line++) {
        int cls = 0, got = -1;
        const char *what;
        int err = bad_call(line, &cls, &what);
        if (!what)
            continue;
        cases++;
        if (err != MPI_SUCCESS)
            MPI_Error_class(err, &got);
        else
            got = MPI_SUCCESS;
        EXPECT(got == cls, "case at line %d: %s returned class %d, expected %d", line, what, got,
               cls);
        EXPECT(healthy(), "case at line %d: after %s the library is not usable", line, what);
    }
    teardown();
    return cases;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    int fds[2];
    if (pipe(fds) != 0)
        return 2;
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    int real_stderr = dup(2);
    check_fd = real_stderr;           /* failures stay visible */
    dup2(fds[1], 2);

    int cases = table();
    table();
    long before = rss_kb();
    for (int i = 0; i < 200 && check_failures == 0; i++)
        table();
    long after = rss_kb();

    fflush(stderr);
    dup2(real_stderr, 2);
    check_fd = 2;
    char buf[512];
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    EXPECT(n <= 0, "bad calls printed: %s", buf);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    before = after;                   /* the sanitizers keep freed memory (quarantine); their
                                         own leak checker covers this build */
#endif
    EXPECT(after - before <= 2048, "resident memory grew by %ld kB over 200 rounds",
           after - before);
    EXPECT(cases >= 100, "only %d cases ran", cases);
    CHECK(check_failures == 0, "%d failed expectations", check_failures);
    MPI_Finalize();
    return 0;
}
