/* mempi-test: np=1,2,3,5 timeout=120 */
/* mempi-test: np=2,3 timeout=120 env=MEMPI_THREAD_TEST=multiple */
/* mpit_events.c -- MPI_T events: mempi_unexpected_arrival and mempi_rendezvous_start, their
 * callbacks, safety levels, dropped-event handler and instance queries.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Each rank sends NSMALL small messages (tags 70, 71, ...) to its right neighbour, which
 * finds each with MPI_Iprobe before it posts the receives (a probe sees only the unexpected
 * queue, so each has arrived with no receive posted), then one message of 1 MiB (tag 8, above the eager limit) whose
 * receive is posted after another barrier, so that it goes by rendezvous.  Checked:
 *   - the event list: two events, found by name, five elements each (MPI_INT x4, MPI_COUNT at
 *     displacements 0, 4, 8, 12, 16), in the point-to-point category; one ordered source
 *     whose time stamps do not go back;
 *   - a callback registered at MPI_T_CB_REQUIRE_THREAD_SAFE sees exactly NSMALL unexpected
 *     arrivals with those tags, each from the left neighbour (world rank and rank), 4 bytes, with
 *     a time stamp between the surrounding MPI_T_source_get_timestamp calls; MPI_T_event_copy
 *     agrees with MPI_T_event_read; and exactly one rendezvous start to the right neighbour
 *     with tag 8 and 1 MiB; the callback gets the safety level it may rely on (at least
 *     MPI_RESTRICTED; THREAD_SAFE under MPI_THREAD_MULTIPLE) and its user data;
 *   - a second registration whose only callback is MPI_T_CB_REQUIRE_NONE is never called (the
 *     progress engine cannot offer that level): its events are dropped, and its dropped
 *     handler reports at least NSMALL of them when the registration is freed, after which the
 *     free callback runs with the user data given to MPI_T_event_handle_free;
 *   - bad input: an unknown name, index or registration, an instance outside its callback.
 * MPICH 4.0.2 has no MPI_T events of these names: no cross-check.
 */
#include <mpi.h>
#include "check.h"
#include <stdlib.h>
#include <string.h>

enum { NSMALL = 3, BIG = 1 << 20 };

static int seen_unexp, seen_rndv, seen_other_level, right, left, rank;
static int left_world, right_world;
static MPI_Count t_before, last_ts;
static int dropped_count, free_called, none_called;
static MPI_T_event_instance stale;
static int user_unexp = 17, user_rndv = 19, free_token = 23;

static void on_event(MPI_T_event_instance e, MPI_T_event_registration reg, MPI_T_cb_safety safety,
                     void *user)
{
    int world, r, tag, ctx;
    MPI_Count bytes, ts;
    int src;
    CHECK(user == &user_unexp || user == &user_rndv, "user data %p", user);
    CHECK(safety >= MPI_T_CB_REQUIRE_MPI_RESTRICTED, "callback at level %d", (int)safety);
    CHECK_MPI(MPI_T_event_read(e, 0, &world));
    CHECK_MPI(MPI_T_event_read(e, 1, &r));
    CHECK_MPI(MPI_T_event_read(e, 2, &tag));
    CHECK_MPI(MPI_T_event_read(e, 3, &ctx));
    CHECK_MPI(MPI_T_event_read(e, 4, &bytes));
    CHECK_MPI(MPI_T_event_get_timestamp(e, &ts));
    CHECK_MPI(MPI_T_event_get_source(e, &src));
    CHECK(src == 0 && ts >= t_before && ts >= last_ts, "source %d time stamp %lld (after %lld)",
          src, (long long)ts, (long long)t_before);
    last_ts = ts;
    unsigned char copy[24];
    CHECK_MPI(MPI_T_event_copy(e, copy));
    CHECK(memcmp(copy + 8, &tag, sizeof tag) == 0 && memcmp(copy + 16, &bytes, sizeof bytes) == 0,
          "MPI_T_event_copy disagrees with MPI_T_event_read");
    CHECK(MPI_T_event_read(e, 5, &tag) == MPI_T_ERR_INVALID_INDEX, "element 5 exists");
    stale = e;
    if (user == &user_unexp && tag >= 70 && tag < 70 + NSMALL) {
        CHECK(world == left_world && r == left && bytes == sizeof(int),
              "unexpected arrival from world %d rank %d (left %d), %lld bytes", world, r, left,
              (long long)bytes);
        seen_unexp++;
    } else if (user == &user_rndv) {
        CHECK(world == right_world && r == right && bytes == BIG,
              "rendezvous to world %d rank %d (right %d), %lld bytes", world, r, right,
              (long long)bytes);
        seen_rndv++;
    }
    if (safety != MPI_T_CB_REQUIRE_MPI_RESTRICTED && safety != MPI_T_CB_REQUIRE_THREAD_SAFE)
        seen_other_level++;
}

static void on_none(MPI_T_event_instance e, MPI_T_event_registration reg, MPI_T_cb_safety s,
                    void *user)
{
    none_called++;
}

static void on_dropped(MPI_Count count, MPI_T_event_registration reg, int source,
                       MPI_T_cb_safety s, void *user)
{
    /* the user data of the callback being delivered (rn's: NULL) or of MPI_T_event_handle_free */
    CHECK(user == NULL || user == &free_token, "dropped handler user data %p", user);
    CHECK(s == MPI_T_CB_REQUIRE_NONE || s == MPI_T_CB_REQUIRE_MPI_RESTRICTED ||
          s == MPI_T_CB_REQUIRE_THREAD_SAFE || s == MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE,
          "dropped handler at level %d", (int)s);
    dropped_count += (int)count;
}

static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety s, void *user)
{
    CHECK(user == &free_token, "free callback user data %p", user);
    free_called++;
}

int main(int argc, char **argv)
{
    int provided, size;
    const char *mode = getenv("MEMPI_THREAD_TEST");
    MPI_Init_thread(&argc, &argv, mode ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    left_world = left;
    right_world = right;

    int nev, nsrc;
    CHECK_MPI(MPI_T_event_get_num(&nev));
    CHECK(nev == 2, "%d events", nev);
    CHECK_MPI(MPI_T_source_get_num(&nsrc));
    CHECK(nsrc == 1, "%d sources", nsrc);
    int iu, ir, k;
    CHECK_MPI(MPI_T_event_get_index("mempi_unexpected_arrival", &iu));
    CHECK_MPI(MPI_T_event_get_index("mempi_rendezvous_start", &ir));
    CHECK(MPI_T_event_get_index("no_such_event", &k) == MPI_T_ERR_INVALID_NAME, "unknown name");
    for (int e = 0; e < 2; e++) {
        char name[64];
        int name_len = sizeof name, verbosity, num = 8, bind, desc_len = 0;
        MPI_Datatype types[8];
        MPI_Aint displs[8];
        MPI_T_enum en;
        MPI_Info info;
        CHECK_MPI(MPI_T_event_get_info(e, name, &name_len, &verbosity, types, displs, &num,
                                       &en, &info, NULL, &desc_len, &bind));
        CHECK(num == 5 && bind == MPI_T_BIND_NO_OBJECT && desc_len > 1, "event %d: %d elements",
              e, num);
        for (int i = 0; i < 5; i++)
            CHECK(displs[i] == 4 * i && types[i] == (i < 4 ? MPI_INT : MPI_COUNT),
                  "event %s element %d: type 0x%x at %ld", name, i, (unsigned)types[i],
                  (long)displs[i]);
        MPI_Info_free(&info);
    }
    int ncat, found = 0;
    MPI_T_category_get_num(&ncat);
    for (int c = 0; c < ncat; c++) {
        int n;
        CHECK_MPI(MPI_T_category_get_num_events(c, &n));
        if (n > 0) {
            int idx[4];
            CHECK_MPI(MPI_T_category_get_events(c, 4, idx));
            found += n;
            CHECK(n == 2 && idx[0] == 0 && idx[1] == 1, "category %d events %d", c, n);
        }
    }
    CHECK(found == 2, "%d events in categories", found);
    MPI_T_event_registration bad;
    CHECK(MPI_T_event_handle_alloc(99, NULL, MPI_INFO_NULL, &bad) == MPI_T_ERR_INVALID_INDEX,
          "index 99");

    MPI_T_event_registration ru, rr, rn;
    CHECK_MPI(MPI_T_event_handle_alloc(iu, NULL, MPI_INFO_NULL, &ru));
    CHECK_MPI(MPI_T_event_handle_alloc(ir, NULL, MPI_INFO_NULL, &rr));
    CHECK_MPI(MPI_T_event_handle_alloc(iu, NULL, MPI_INFO_NULL, &rn));
    CHECK_MPI(MPI_T_event_register_callback(ru, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL,
                                            &user_unexp, on_event));
    CHECK_MPI(MPI_T_event_register_callback(rr, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL,
                                            &user_rndv, on_event));
    CHECK_MPI(MPI_T_event_register_callback(rn, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL,
                                            on_none));
    CHECK_MPI(MPI_T_event_set_dropped_handler(rn, on_dropped));
    MPI_Info used;
    CHECK_MPI(MPI_T_event_handle_get_info(ru, &used));
    MPI_Info_free(&used);
    CHECK_MPI(MPI_T_event_callback_get_info(ru, MPI_T_CB_REQUIRE_THREAD_SAFE, &used));
    MPI_Info_free(&used);

    MPI_Barrier(comm);     /* every rank listens before any sends */
    CHECK_MPI(MPI_T_source_get_timestamp(0, &t_before));
    int small[NSMALL];
    MPI_Request sreq[NSMALL];
    for (int i = 0; i < NSMALL; i++) {
        small[i] = 1000 * rank + i;
        CHECK_MPI(MPI_Isend(&small[i], 1, MPI_INT, right, 70 + i, comm, &sreq[i]));
    }
    /* A probe finds a message only in the unexpected queue: once each is found, each has
     * arrived with no receive posted. */
    for (int i = 0; i < NSMALL; i++) {
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Iprobe(left, 70 + i, comm, &flag, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < NSMALL; i++) {
        int v;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, left, 70 + i, comm, &st));
        CHECK(v == 1000 * left + i && st.MPI_SOURCE == left, "small %d: %d", i, v);
    }
    CHECK_MPI(MPI_Waitall(NSMALL, sreq, MPI_STATUSES_IGNORE));
    char *big_out = malloc(BIG), *big_in = malloc(BIG);
    memset(big_out, rank + 1, BIG);
    MPI_Request rreq, breq;
    /* The send starts before its receive is posted: rendezvous, not a remote write. */
    CHECK_MPI(MPI_Isend(big_out, BIG, MPI_BYTE, right, 8, comm, &breq));
    MPI_Barrier(comm);
    CHECK_MPI(MPI_Irecv(big_in, BIG, MPI_BYTE, left, 8, comm, &rreq));
    CHECK_MPI(MPI_Wait(&breq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    CHECK(big_in[0] == left + 1 && big_in[BIG - 1] == left + 1, "big message data");
    MPI_Count t_after;
    CHECK_MPI(MPI_T_source_get_timestamp(0, &t_after));
    CHECK(t_after >= last_ts, "source time went back");

    CHECK(seen_unexp == NSMALL, "%d unexpected arrivals with tags 70.., expected %d", seen_unexp,
          NSMALL);
    CHECK(seen_rndv == 1, "%d rendezvous starts with tag 8", seen_rndv);
    CHECK(seen_other_level == 0 && none_called == 0, "callbacks at wrong levels: %d, %d",
          seen_other_level, none_called);
    int v;
    CHECK(MPI_T_event_read(stale, 0, &v) == MPI_T_ERR_INVALID_HANDLE,
          "an instance outside its callback was accepted");

    CHECK_MPI(MPI_T_event_handle_free(rn, &free_token, on_free));
    CHECK(dropped_count >= NSMALL && free_called == 1, "dropped %d, free callback %d",
          dropped_count, free_called);
    CHECK(MPI_T_event_handle_free(rn, NULL, NULL) == MPI_T_ERR_INVALID_HANDLE, "double free");
    CHECK(MPI_T_event_register_callback(rn, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, on_none)
              == MPI_T_ERR_INVALID_HANDLE, "callback on a freed registration");
    CHECK_MPI(MPI_T_event_handle_free(ru, NULL, NULL));
    CHECK_MPI(MPI_T_event_handle_free(rr, NULL, NULL));

    /* No registration left (at any rank: the barrier): traffic raises nothing. */
    MPI_Barrier(comm);
    int before = seen_unexp, flag = 0;
    MPI_Request q;
    CHECK_MPI(MPI_Isend(&small[0], 1, MPI_INT, right, 70, comm, &q));
    while (!flag)
        CHECK_MPI(MPI_Iprobe(left, 70, comm, &flag, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, left, 70, comm, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(seen_unexp == before, "an event after the registration was freed");

    free(big_out);
    free(big_in);
    MPI_Comm_free(&comm);
    CHECK_MPI(MPI_T_finalize());
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpit_events: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
