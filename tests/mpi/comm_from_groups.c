/* mempi-test: np=1,2,3,5 timeout=90 */
/* comm_from_groups.c -- MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Groups come from MPI_COMM_WORLD's group.  Checks the members and their order, the error
 * handler and info the new communicators get, communication on them (data and status), and
 * that creations with different string tags over disjoint groups run at the same time.  The
 * intercommunicator joins the ranks below wsize/2 (local) with the others, with leaders that
 * are not rank 0 of their group.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize;

/* group of world ranks from lo to hi (inclusive), in reverse order */
static MPI_Group reversed(MPI_Group wg, int lo, int hi)
{
    int n = hi - lo + 1, *r = malloc(sizeof(int) * (n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        r[i] = hi - i;
    MPI_Group g;
    MPI_Group_incl(wg, n, r, &g);
    free(r);
    return g;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);

    /* the whole world, reversed, with ERRORS_RETURN and an info hint */
    MPI_Group g = reversed(wg, 0, wsize - 1);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Comm c;
    CHECK(MPI_Comm_create_from_group(g, "org.mempi.test.all", info, MPI_ERRORS_RETURN, &c)
          == MPI_SUCCESS, "create_from_group");
    int rank, size, flag;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    CHECK(size == wsize && rank == wsize - 1 - wrank, "rank %d size %d", rank, size);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(c, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "errhandler");
    MPI_Errhandler_free(&eh);
    MPI_Info used;
    char val[64];
    MPI_Comm_get_info(c, &used);
    MPI_Info_get(used, "mpi_assert_no_any_tag", sizeof val - 1, val, &flag);
    CHECK(flag && strcmp(val, "true") == 0, "info");
    MPI_Info_free(&used);
    MPI_Info_free(&info);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == wsize * (wsize - 1) / 2, "allreduce %d", sum);
    int token = 1000 + rank, got = -1;
    MPI_Status st;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 3, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 3, c, &st);
    CHECK(got == 1000 + (rank + size - 1) % size && st.MPI_SOURCE == (rank + size - 1) % size &&
          st.MPI_TAG == 3, "ring got %d from %d", got, st.MPI_SOURCE);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);

    /* disjoint halves at once, each with its own tag */
    int half = wsize / 2;
    if (half > 0) {
        int lower = wrank < half;
        g = lower ? reversed(wg, 0, half - 1) : reversed(wg, half, wsize - 1);
        CHECK(MPI_Comm_create_from_group(g, lower ? "lower" : "upper", MPI_INFO_NULL,
                                         MPI_ERRORS_ARE_FATAL, &c) == MPI_SUCCESS, "halves");
        MPI_Comm_size(c, &size);
        CHECK(size == (lower ? half : wsize - half), "half size %d", size);
        MPI_Barrier(c);
        MPI_Comm_free(&c);

        /* intercommunicator: leaders are the last rank of each (reversed) group, i.e. the
         * lowest world rank of each half */
        MPI_Group other = lower ? reversed(wg, half, wsize - 1) : reversed(wg, 0, half - 1);
        int ln, rn;
        MPI_Group_size(g, &ln);
        MPI_Group_size(other, &rn);
        MPI_Comm ic;
        CHECK(MPI_Intercomm_create_from_groups(g, ln - 1, other, rn - 1, "org.mempi.test.inter",
                                               MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic)
              == MPI_SUCCESS, "intercomm_create_from_groups");
        MPI_Comm_test_inter(ic, &flag);
        MPI_Comm_size(ic, &size);
        int rsize;
        MPI_Comm_remote_size(ic, &rsize);
        MPI_Comm_rank(ic, &rank);
        CHECK(flag && size == ln && rsize == rn, "inter %d %d %d", flag, size, rsize);
        int me_in_g;
        MPI_Group_rank(g, &me_in_g);
        CHECK(rank == me_in_g, "inter rank %d, group rank %d", rank, me_in_g);
        /* every local rank exchanges its world rank with every remote rank */
        MPI_Group rg;
        MPI_Comm_remote_group(ic, &rg);
        for (int r = 0; r < rn; r++) {
            int mine = wrank, from = -1, rw;
            MPI_Sendrecv(&mine, 1, MPI_INT, r, 9, &from, 1, MPI_INT, r, 9, ic, &st);
            MPI_Group_translate_ranks(rg, 1, &r, wg, &rw);
            CHECK(from == rw && st.MPI_SOURCE == r && st.MPI_TAG == 9,
                  "from remote %d: %d (world %d), source %d", r, from, rw, st.MPI_SOURCE);
        }
        MPI_Group_free(&rg);
        int total = 0, want = 0;
        for (int w = lower ? half : 0; w < (lower ? wsize : half); w++)
            want += w;
        MPI_Allreduce(&wrank, &total, 1, MPI_INT, MPI_SUM, ic);
        CHECK(total == want, "inter allreduce %d, expected %d", total, want);
        MPI_Comm_free(&ic);
        MPI_Group_free(&other);
        MPI_Group_free(&g);
    }

    /* errors: not a member, overlapping groups, bad leader */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls = -1;
    if (wsize > 1) {
        int r0 = 0;
        MPI_Group only0;
        MPI_Group_incl(wg, 1, &r0, &only0);
        if (wrank != 0) {
            MPI_Error_class(MPI_Comm_create_from_group(only0, "x", MPI_INFO_NULL,
                                                       MPI_ERRORS_RETURN, &c), &cls);
            CHECK(cls == MPI_ERR_GROUP, "non-member class %d", cls);
        }
        MPI_Group_free(&only0);
    }
    MPI_Error_class(MPI_Intercomm_create_from_groups(wg, 0, wg, 0, "y", MPI_INFO_NULL,
                                                     MPI_ERRORS_RETURN, &c), &cls);
    CHECK(cls == MPI_ERR_GROUP, "overlap class %d", cls);
    MPI_Error_class(MPI_Intercomm_create_from_groups(wg, wsize, MPI_GROUP_EMPTY, 0, "z",
                                                     MPI_INFO_NULL, MPI_ERRORS_RETURN, &c), &cls);
    CHECK(cls == MPI_ERR_RANK, "leader class %d", cls);
    MPI_Error_class(MPI_Comm_create_from_group(wg, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
                    &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL stringtag class %d", cls);

    MPI_Group_free(&wg);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
