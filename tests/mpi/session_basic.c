/* mempi-test: np=1,2,3,5 timeout=120 */
/* session_basic.c -- MPI 4.0 sessions, alone and beside the world model.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Without MPI_Init: MPI_Session_init (MPI_Initialized stays false), the process sets
 * mpi://WORLD and mpi://SELF (names by length query and truncation, their info's mpi_size),
 * groups from them, communicators from those groups with MPI_Comm_create_from_group carrying
 * data (allreduce, a ring), two sessions at once, info_used's thread level, session error
 * handlers (user handler called with the session on a bad pset name and by
 * MPI_Session_call_errhandler; get/set), errors under MPI_ERRORS_RETURN.  Then MPI_Init while
 * a session lives, both models' communicators in use, MPI_Finalize with the session still
 * open (MPI_Finalized true, the session's communicator still works), MPI_Session_finalize
 * last.  Cross-check: mpicc.mpich -DMPICH_402 (MPICH 4.0.2 names more process sets -- the
 * test looks for the two the standard fixes -- and calls the thread level key of info_used
 * mpi_thread_support_level instead of the standard's thread_level, and raises session errors
 * as fatal whatever the session's handler, and crashes on a pset index out of range).
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int handler_calls, handler_code;
static MPI_Session handler_session;

static void on_error(MPI_Session *session, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_session = *session;
}

/* A communicator over a pset of session s, checked by an allreduce and a ring. */
static MPI_Comm comm_of(MPI_Session s, const char *pset, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    CHECK_MPI(MPI_Group_from_session_pset(s, pset, &g));
    CHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int gs, cs, rank, sum = 0;
    MPI_Group_size(g, &gs);
    MPI_Comm_size(c, &cs);
    MPI_Comm_rank(c, &rank);
    CHECK(gs == cs, "%s: group of %d, communicator of %d", pset, gs, cs);
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == cs * (cs - 1) / 2, "%s: allreduce %d", pset, sum);
    int next = (rank + 1) % cs, prev = (rank + cs - 1) % cs, in = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, next, 3, &in, 1, MPI_INT, prev, 3, c, &st));
    CHECK(in == prev && st.MPI_SOURCE == prev && st.MPI_TAG == 3, "%s: ring got %d from %d",
          pset, in, st.MPI_SOURCE);
    MPI_Group_free(&g);
    return c;
}

static int world_size_of(MPI_Session s)
{
    MPI_Info info;
    char v[32];
    int flag = 0;
    CHECK_MPI(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
    CHECK_MPI(MPI_Info_get(info, "mpi_size", sizeof v - 1, v, &flag));
    CHECK(flag, "mpi://WORLD info has no mpi_size");
    MPI_Info_free(&info);
    return atoi(v);
}

int main(void)
{
    int flag = 1;
    MPI_Initialized(&flag);
    CHECK(!flag, "MPI_Initialized true before anything");

    MPI_Session s1, s2;
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1));
    MPI_Initialized(&flag);
    CHECK(!flag, "MPI_Initialized true with only a session");

    int n = 0, world = 0, self = 0;
    CHECK_MPI(MPI_Session_get_num_psets(s1, MPI_INFO_NULL, &n));
    CHECK(n >= 2, "%d process sets", n);
    for (int i = 0; i < n; i++) {
        int len = 0;
        char name[256];
        CHECK_MPI(MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &len, NULL));
        CHECK(len > 1 && len <= (int)sizeof name, "pset %d: length %d", i, len);
        CHECK_MPI(MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &len, name));
        CHECK((int)strlen(name) + 1 == len, "pset %d: '%s' for length %d", i, name, len);
        world += strcmp(name, "mpi://WORLD") == 0;
        self += strcmp(name, "mpi://SELF") == 0;
        if (strcmp(name, "mpi://WORLD") == 0) {
            char shortname[5];
            int slen = sizeof shortname;
            CHECK_MPI(MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &slen, shortname));
            CHECK(strcmp(shortname, "mpi:") == 0, "truncated name '%s'", shortname);
        }
    }
    CHECK(world == 1 && self == 1, "mpi://WORLD seen %d times, mpi://SELF %d", world, self);
    int size = world_size_of(s1);
    CHECK(size >= 1, "mpi://WORLD mpi_size %d", size);

    MPI_Comm cw = comm_of(s1, "mpi://WORLD", "session_basic.world");
    int csize;
    MPI_Comm_size(cw, &csize);
    CHECK(csize == size, "world communicator of %d, pset says %d", csize, size);
    MPI_Comm cs = comm_of(s1, "mpi://SELF", "session_basic.self");
    MPI_Comm_size(cs, &csize);
    CHECK(csize == 1, "self communicator of %d", csize);
    MPI_Comm_free(&cs);

    /* info_used and a second session with a thread level asked for */
    MPI_Info hints, used;
    char v[64];
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "thread_level", "MPI_THREAD_SINGLE");
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Session_create_errhandler(on_error, &eh));
    CHECK_MPI(MPI_Session_init(hints, eh, &s2));
    MPI_Info_free(&hints);
    CHECK_MPI(MPI_Session_get_info(s2, &used));
    flag = 0;
    MPI_Info_get(used, "thread_level", sizeof v - 1, v, &flag);   /* MPI 4.0 11.3.1 */
#ifndef MPICH_402                               /* MPICH 4.0.2 has mpi_thread_support_level */
    CHECK(flag && strncmp(v, "MPI_THREAD_", 11) == 0, "info_used thread level '%s'",
          flag ? v : "(none)");
#endif
    MPI_Info_free(&used);

#ifndef MPICH_402                               /* MPICH 4.0.2: session errors are fatal */
    /* errors: a user handler on s2, MPI_ERRORS_RETURN on s1 */
    MPI_Group g = MPI_GROUP_NULL;
    int rc = MPI_Group_from_session_pset(s2, "mpi://NO-SUCH-SET", &g);
    CHECK(rc != MPI_SUCCESS && g == MPI_GROUP_NULL, "unknown pset accepted");
    CHECK(handler_calls == 1 && handler_session == s2 && handler_code == rc,
          "session handler: %d calls, session 0x%x, code %d (rc %d)", handler_calls,
          (unsigned)handler_session, handler_code, rc);
    CHECK_MPI(MPI_Session_call_errhandler(s2, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler: %d calls",
          handler_calls);
    MPI_Errhandler got;
    CHECK_MPI(MPI_Session_get_errhandler(s2, &got));
    CHECK(got == eh, "get_errhandler 0x%x, set 0x%x", (unsigned)got, (unsigned)eh);
    MPI_Errhandler_free(&got);
    CHECK_MPI(MPI_Session_set_errhandler(s2, MPI_ERRORS_RETURN));
    CHECK_CLASS(MPI_Group_from_session_pset(s2, "bogus", &g), MPI_ERR_ARG);
    CHECK(handler_calls == 2, "handler called after it was replaced");
#endif
    MPI_Errhandler_free(&eh);
#ifndef MPICH_402                               /* MPICH 4.0.2 crashes here */
    int len = 0;
    CHECK_CLASS(MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, n, &len, NULL), MPI_ERR_ARG);
#endif

    MPI_Comm_free(&cw);                        /* objects of a session go before it */
    CHECK_MPI(MPI_Session_finalize(&s1));
    CHECK(s1 == MPI_SESSION_NULL, "session handle not reset");

    /* the world model joins while s2 lives */
    int provided;
    CHECK_MPI(MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided));
    MPI_Initialized(&flag);
    CHECK(flag, "MPI_Initialized false after MPI_Init");
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(wsize == size, "MPI_COMM_WORLD of %d, mpi://WORLD of %d", wsize, size);
    MPI_Comm c2 = comm_of(s2, "mpi://WORLD", "session_basic.s2");
    int r2;
    MPI_Comm_rank(c2, &r2);
    CHECK(r2 == wrank, "session communicator rank %d, world rank %d", r2, wrank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n), MPI_ERR_SESSION);
    if (wrank == 0)
        printf("session_basic: ok\n");
    fflush(stdout);
    CHECK_MPI(MPI_Finalize());
    MPI_Finalized(&flag);
    CHECK(flag, "MPI_Finalized false after MPI_Finalize");
    int sum = 0;                               /* the session's communicator still works */
    CHECK_MPI(MPI_Allreduce(&r2, &sum, 1, MPI_INT, MPI_SUM, c2));
    CHECK(sum == size * (size - 1) / 2, "allreduce after MPI_Finalize: %d", sum);
    MPI_Comm_free(&c2);
    CHECK_MPI(MPI_Session_finalize(&s2));
    return 0;
}
