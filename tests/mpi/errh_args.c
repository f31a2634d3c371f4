/* mempi-test: np=1,2,3 timeout=120 */
/* errh_args.c -- bad arguments to groups, communicators, topologies, attributes, error handlers and info.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Every call below gets one bad argument under MPI_ERRORS_RETURN and must return an error of
 * the expected class, print nothing (stderr is redirected to a pipe and must stay empty),
 * leave the library usable (a correct call follows each group of bad ones) and leak nothing
 * (the whole sequence runs hundreds of times while resident memory must stay flat).
 */
#include <mpi.h>
#include "check.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int wrank, wsize;

static int dummy_copy(MPI_Comm c, int k, void *e, void *in, void *out, int *flag) { *flag = 0; return MPI_SUCCESS; }
static void dummy_handler(MPI_Comm *c, int *code, ...) { }

static void sequence(void)
{
    MPI_Group wg, g = MPI_GROUP_NULL;
    MPI_Comm c = MPI_COMM_NULL, c2 = MPI_COMM_NULL;
    int x, ranks[4] = { 0, 0, 0, 0 }, out[4];
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));

    /* ---- groups ---- */
    CHECK_CLASS(MPI_Group_size(MPI_GROUP_NULL, &x), MPI_ERR_GROUP);
    CHECK_CLASS(MPI_Group_rank((MPI_Group)0x12345, &x), MPI_ERR_GROUP);
    CHECK_CLASS(MPI_Group_free(&g), MPI_ERR_GROUP);
    ranks[0] = wsize;
    CHECK_CLASS(MPI_Group_incl(wg, 1, ranks, &g), MPI_ERR_RANK);
    ranks[0] = -1;
    CHECK_CLASS(MPI_Group_excl(wg, 1, ranks, &g), MPI_ERR_RANK);
    ranks[0] = 0; ranks[1] = 0;
    if (wsize > 1) CHECK_CLASS(MPI_Group_incl(wg, 2, ranks, &g), MPI_ERR_RANK);   /* duplicate */
    CHECK_CLASS(MPI_Group_incl(wg, -1, ranks, &g), MPI_ERR_ARG);
    int bad_range[1][3] = { { 0, wsize - 1, 0 } };
    CHECK_CLASS(MPI_Group_range_incl(wg, 1, bad_range, &g), MPI_ERR_ARG);
    int out_range[1][3] = { { 0, wsize, 1 } };
    CHECK_CLASS(MPI_Group_range_excl(wg, 1, out_range, &g), MPI_ERR_RANK);
    ranks[0] = wsize + 3;
    CHECK_CLASS(MPI_Group_translate_ranks(wg, 1, ranks, wg, out), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Group_compare(wg, MPI_GROUP_NULL, &x), MPI_ERR_GROUP);
    CHECK_CLASS(MPI_Group_union(MPI_GROUP_NULL, wg, &g), MPI_ERR_GROUP);
    CHECK_CLASS(MPI_Group_intersection(wg, (MPI_Group)7, &g), MPI_ERR_GROUP);
    CHECK_CLASS(MPI_Group_difference(wg, MPI_GROUP_NULL, &g), MPI_ERR_GROUP);
    ranks[0] = 0;
    CHECK_MPI(MPI_Group_incl(wg, 1, ranks, &g));
    CHECK_MPI(MPI_Group_free(&g));

    /* ---- communicators ---- */
    CHECK_CLASS(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_dup((MPI_Comm)0x44000123, &c), MPI_ERR_COMM);
    MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    CHECK_CLASS(MPI_Comm_free(&world), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_free(&self), MPI_ERR_COMM);
    c = MPI_COMM_NULL;
    CHECK_CLASS(MPI_Comm_free(&c), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP);
    CHECK_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, wg, -1, &c), MPI_ERR_TAG);
    CHECK_CLASS(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &x), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_remote_size(MPI_COMM_WORLD, &x), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_remote_group(MPI_COMM_WORLD, &g), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_test_inter(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_set_name(MPI_COMM_NULL, "x"), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_set_info(MPI_COMM_WORLD, (MPI_Info)0x1c000077), MPI_ERR_INFO);
    CHECK_CLASS(MPI_Intercomm_create(MPI_COMM_WORLD, wsize, MPI_COMM_WORLD, 0, 0, &c), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));

    /* ---- topologies ---- */
    int dims[2] = { wsize + 1, 1 }, periods[2] = { 0, 0 }, coords[2];
    CHECK_CLASS(MPI_Cart_create(c, 2, dims, periods, 0, &c2), MPI_ERR_TOPOLOGY);
    dims[0] = -1;
    CHECK_CLASS(MPI_Cart_create(c, 2, dims, periods, 0, &c2), MPI_ERR_DIMS);
    CHECK_CLASS(MPI_Cart_create(c, -1, dims, periods, 0, &c2), MPI_ERR_DIMS);
    CHECK_CLASS(MPI_Cart_coords(c, 0, 2, coords), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Cartdim_get(c, &x), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Graphdims_get(c, &x, &x), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Dist_graph_neighbors_count(c, &x, &x, &x), MPI_ERR_TOPOLOGY);
    dims[0] = 0; dims[1] = 0;
    CHECK_CLASS(MPI_Dims_create(-1, 2, dims), MPI_ERR_ARG);
    dims[0] = 3; dims[1] = 0;
    CHECK_CLASS(MPI_Dims_create(4, 2, dims), MPI_ERR_DIMS);
    int idx[1] = { 1 }, edges[1] = { 5 };
    CHECK_CLASS(MPI_Graph_create(c, 1, idx, edges, 0, &c2), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graph_create(c, wsize + 1, idx, edges, 0, &c2), MPI_ERR_ARG);
    int src = wsize, deg = 1, dst = 0;
    CHECK_CLASS(MPI_Dist_graph_create(c, 1, &src, &deg, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c2), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Dist_graph_create_adjacent(c, -1, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c2), MPI_ERR_ARG);
    dims[0] = wsize; dims[1] = 1;
    CHECK_MPI(MPI_Cart_create(c, 2, dims, periods, 0, &c2));
    CHECK_MPI(MPI_Comm_set_errhandler(c2, MPI_ERRORS_RETURN));
    CHECK_CLASS(MPI_Cart_coords(c2, wsize, 2, coords), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Cart_coords(c2, 0, 1, coords), MPI_ERR_ARG);
    coords[0] = wsize; coords[1] = 0;
    CHECK_CLASS(MPI_Cart_rank(c2, coords, &x), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Cart_shift(c2, 2, 1, &x, &x), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Cart_get(c2, 1, dims, periods, coords), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graph_neighbors_count(c2, 0, &x), MPI_ERR_TOPOLOGY);
    CHECK_MPI(MPI_Cart_shift(c2, 0, 1, &x, &x));
    CHECK_MPI(MPI_Comm_free(&c2));

    /* ---- attributes ---- */
    void *v;
    int key = MPI_KEYVAL_INVALID, tkey;
    CHECK_CLASS(MPI_Comm_set_attr(c, 0x12345678, NULL), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_get_attr(c, MPI_KEYVAL_INVALID, &v, &x), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_delete_attr(c, MPI_KEYVAL_INVALID), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_set_attr(c, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_free_keyval(&key), MPI_ERR_KEYVAL);
    key = MPI_TAG_UB;
    CHECK_CLASS(MPI_Comm_free_keyval(&key), MPI_ERR_KEYVAL);
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tkey, NULL));
    CHECK_CLASS(MPI_Comm_set_attr(c, tkey, NULL), MPI_ERR_KEYVAL);          /* wrong object kind */
    CHECK_CLASS(MPI_Comm_free_keyval(&tkey), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_set_attr(MPI_DATATYPE_NULL, tkey, NULL), MPI_ERR_TYPE);
    CHECK_MPI(MPI_Type_free_keyval(&tkey));
    CHECK_MPI(MPI_Comm_create_keyval(dummy_copy, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    int freed = key;
    CHECK_MPI(MPI_Comm_free_keyval(&key));
    CHECK_CLASS(MPI_Comm_set_attr(c, freed, NULL), MPI_ERR_KEYVAL);        /* freed keyval */
    CHECK_CLASS(MPI_Attr_put(MPI_COMM_NULL, freed, NULL), MPI_ERR_COMM);
    CHECK_MPI(MPI_Comm_create_keyval(dummy_copy, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    CHECK_MPI(MPI_Comm_set_attr(c, key, (void *)1L));
    CHECK_MPI(MPI_Comm_get_attr(c, key, &v, &x));
    CHECK_MPI(MPI_Comm_free_keyval(&key));

    /* ---- error handlers and codes ---- */
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    CHECK_CLASS(MPI_Comm_set_errhandler(c, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Comm_set_errhandler(c, (MPI_Errhandler)0x5400abcd), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Errhandler_free(&eh), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Comm_get_errhandler(MPI_COMM_NULL, &eh), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Error_class(-3, &x), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Add_error_code(-7, &x), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Add_error_string(MPI_ERR_RANK, "not mine"), MPI_ERR_ARG);
    CHECK_MPI(MPI_Comm_create_errhandler(dummy_handler, &eh));
    CHECK_MPI(MPI_Errhandler_free(&eh));

    /* ---- info ---- */
    MPI_Info info = MPI_INFO_NULL;
    char val[MPI_MAX_INFO_VAL + 1], longkey[MPI_MAX_INFO_KEY + 10];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    CHECK_CLASS(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO);
    CHECK_CLASS(MPI_Info_free(&info), MPI_ERR_INFO);
    info = MPI_INFO_ENV;
    CHECK_CLASS(MPI_Info_free(&info), MPI_ERR_INFO);
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_CLASS(MPI_Info_set(info, longkey, "b"), MPI_ERR_INFO_KEY);
    CHECK_CLASS(MPI_Info_set(info, "", "b"), MPI_ERR_INFO_KEY);
    CHECK_CLASS(MPI_Info_delete(info, "absent"), MPI_ERR_INFO_NOKEY);
    CHECK_CLASS(MPI_Info_get_nthkey(info, 0, val), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Info_get(info, "a", -1, val, &x), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Info_get_valuelen(info, longkey, &x, &x), MPI_ERR_INFO_KEY);
    MPI_Info bad_dup;
    CHECK_CLASS(MPI_Info_dup((MPI_Info)0x5c000099, &bad_dup), MPI_ERR_INFO);
    CHECK(bad_dup == MPI_INFO_NULL, "MPI_Info_dup that failed must leave the null handle");
    CHECK_MPI(MPI_Info_set(info, "a", "b"));
    CHECK_MPI(MPI_Info_get(info, "a", 10, val, &x));
    CHECK_MPI(MPI_Info_free(&info));

    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Group_free(&wg));
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = atol(line + 6);
    if (f) fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* stderr goes to a pipe while the bad calls run */
    int fds[2];
    if (pipe(fds) != 0) return 2;
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    int real_stderr = dup(2);
    check_fd = real_stderr;           /* failures stay visible */
    dup2(fds[1], 2);

    sequence();
    sequence();
    long before = rss_kb();
    for (int i = 0; i < 300; i++)
        sequence();
    long after = rss_kb();

    fflush(stderr);
    dup2(real_stderr, 2);
    check_fd = 2;
    char buf[512];
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    CHECK(n <= 0, "bad calls printed: %s", buf);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    before = after;                   /* the sanitizers keep freed memory (quarantine); their
                                         own leak checker covers this build */
#endif
    CHECK(after - before <= 2048, "resident memory grew by %ld kB over 300 rounds",
          after - before);
    MPI_Finalize();
    return 0;
}
