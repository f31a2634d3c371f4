/* mempi-test: np=1,2,3,5 timeout=240 */
/* comm_ctx_unique.c -- no two live communicators of a process share a context id, whatever
 * made them.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Communicators come from every constructor, from several parents interleaved (MPI_COMM_WORLD,
 * a dup, a split, children of children, an intercommunicator): dup, idup overlapped with an
 * Iallreduce and a blocking dup on the same parent, split with MPI_UNDEFINED members, create
 * with non-members, create_group and create_from_group (only the members call), intercomm
 * dup/idup/merge/split.  Some are freed while the program goes on -- rank 0 frees them before
 * the next creations and the other ranks after (MPI_Comm_free does not synchronise), so a
 * freed id is free at some members and still in use at others -- and more are created so
 * freed ids come back.  Then threads (MPI_THREAD_MULTIPLE) create communicators from their own
 * parents at the same time.
 *
 * The check that would catch a shared id: every rank sends one message on every live
 * communicator to every member (remote members of an intercommunicator) with one tag, the
 * payload naming the communicator (a key all its members know) and the sender; then it
 * receives them with MPI_ANY_SOURCE, newest communicator first.  If two communicators of a
 * process shared an id, a receive on one would take a message sent on the other (from a
 * common sender certainly: its messages go out oldest communicator first): wrong key.  The
 * status (source, tag) and the sender's world rank are checked too.
 */
#include "check.h"
#include <pthread.h>
#include <string.h>

enum { MAXLIVE = 8192, TAG = 99, NTHREADS = 3, THREAD_ITERS = 40 };

typedef struct entry {
    MPI_Comm c;
    int key;
} entry;

static entry live[MAXLIVE];
static int nlive, wrank, wsize;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void add(MPI_Comm c, int key)
{
    if (c == MPI_COMM_NULL)
        return;
    pthread_mutex_lock(&live_lock);
    CHECK(nlive < MAXLIVE, "too many live communicators");
    live[nlive++] = (entry){ c, key };
    pthread_mutex_unlock(&live_lock);
}

/* Frees (and forgets) every live communicator whose key satisfies pick(key). */
static void free_where(int (*pick)(int key, int arg), int arg)
{
    int j = 0;
    for (int i = 0; i < nlive; i++) {
        if (pick(live[i].key, arg))
            CHECK_MPI(MPI_Comm_free(&live[i].c));
        else
            live[j++] = live[i];
    }
    nlive = j;
}

/* Members of c that messages on c reach, as world ranks (remote group of an intercomm). */
static int peers_of(MPI_Comm c, int *world)
{
    int inter, n;
    MPI_Group g, wg;
    MPI_Comm_test_inter(c, &inter);
    if (inter)
        MPI_Comm_remote_group(c, &g);
    else
        MPI_Comm_group(c, &g);
    MPI_Group_size(g, &n);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *r = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        r[i] = i;
    MPI_Group_translate_ranks(g, n, r, wg, world);
    free(r);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    return n;
}

static void cross_check(int round)
{
    int total = 0;
    int *world = malloc(sizeof(int) * (size_t)wsize);
    for (int i = 0; i < nlive; i++)
        total += peers_of(live[i].c, world);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(total ? total : 1));
    int (*msg)[3] = malloc(sizeof *msg * (size_t)(nlive ? nlive : 1));
    int k = 0;
    for (int i = 0; i < nlive; i++) {          /* oldest first */
        int n = peers_of(live[i].c, world);
        msg[i][0] = live[i].key;
        msg[i][1] = wrank;
        msg[i][2] = round;
        for (int p = 0; p < n; p++)
            CHECK_MPI(MPI_Isend(msg[i], 3, MPI_INT, p, TAG, live[i].c, &req[k++]));
    }
    for (int i = nlive - 1; i >= 0; i--) {     /* newest first */
        int n = peers_of(live[i].c, world);
        for (int p = 0; p < n; p++) {
            int got[3] = { -1, -1, -1 }, count = -1;
            MPI_Status st;
            CHECK_MPI(MPI_Recv(got, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, live[i].c, &st));
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(got[0] == live[i].key && got[2] == round,
                  "round %d: a receive on communicator %d (key %d) got a message of key %d "
                  "round %d from world rank %d: two communicators share a context id", round,
                  i, live[i].key, got[0], got[2], got[1]);
            CHECK(st.MPI_TAG == TAG && count == 3 && st.MPI_SOURCE >= 0 && st.MPI_SOURCE < n &&
                  world[st.MPI_SOURCE] == got[1],
                  "round %d, key %d: status source %d tag %d count %d, sender world rank %d",
                  round, live[i].key, st.MPI_SOURCE, st.MPI_TAG, count, got[1]);
        }
    }
    CHECK_MPI(MPI_Waitall(k, req, MPI_STATUSES_IGNORE));
    free(req);
    free(msg);
    free(world);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* A group of world ranks r with (r + shift) % mod != 0 (never empty for mod >= 2). */
static MPI_Group subset(int shift, int mod)
{
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *r = malloc(sizeof(int) * (size_t)wsize), n = 0;
    for (int i = 0; i < wsize; i++)
        if ((i + shift) % mod != 0 || wsize == 1)
            r[n++] = i;
    MPI_Group_incl(wg, n, r, &g);
    free(r);
    MPI_Group_free(&wg);
    return g;
}

static int in_group(MPI_Group g)
{
    int r;
    MPI_Group_rank(g, &r);
    return r != MPI_UNDEFINED;
}

/* One step of the single-threaded phase: a creation of kind it % 9 under key base + it. */
static void create_step(int it, int base, MPI_Comm *parents, MPI_Comm inter)
{
    int key = base + it;
    MPI_Comm c = MPI_COMM_NULL, d = MPI_COMM_NULL, e = MPI_COMM_NULL;
    switch (it % 9) {
    case 0:
        CHECK_MPI(MPI_Comm_dup(parents[it % 3], &c));
        break;
    case 1:                                     /* some ranks MPI_UNDEFINED */
        CHECK_MPI(MPI_Comm_split(parents[0], (wrank + it) % 3 == 0 ? MPI_UNDEFINED
                                 : (wrank + it) % 2, -wrank, &c));
        break;
    case 2: {                                   /* idup overlapped with other collectives */
        MPI_Request r[2];
        int x = wrank, sum = -1;
        CHECK_MPI(MPI_Comm_idup(parents[1], &c, &r[0]));
        CHECK_MPI(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, parents[1], &r[1]));
        CHECK_MPI(MPI_Comm_dup(parents[1], &d));
        CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK(sum == wsize * (wsize - 1) / 2, "iallreduce gave %d", sum);
        add(d, key + 1000000);
        break;
    }
    case 3: {                                   /* create: non-members get MPI_COMM_NULL */
        MPI_Group g = subset(it, 2);
        CHECK_MPI(MPI_Comm_create(parents[0], g, &c));
        CHECK((c != MPI_COMM_NULL) == in_group(g), "create gave the wrong membership");
        MPI_Group_free(&g);
        break;
    }
    case 4: {                                   /* only the group's members call */
        MPI_Group g = subset(it, 3);
        if (in_group(g))
            CHECK_MPI(MPI_Comm_create_group(parents[0], g, it, &c));
        MPI_Group_free(&g);
        break;
    }
    case 5:                                     /* a child becomes a parent */
        CHECK_MPI(MPI_Comm_dup(parents[2], &d));
        CHECK_MPI(MPI_Comm_dup(d, &c));
        CHECK_MPI(MPI_Comm_split(d, wrank % 2, wrank, &e));
        add(d, key + 1000000);
        add(e, key + 2000000);
        break;
    case 6:
        if (inter != MPI_COMM_NULL) {
            MPI_Request r;
            CHECK_MPI(MPI_Comm_dup(inter, &c));
            CHECK_MPI(MPI_Comm_idup(inter, &d, &r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Intercomm_merge(inter, wrank < wsize / 2, &e));
            add(d, key + 1000000);
            add(e, key + 2000000);
        }
        break;
    case 7:
        if (inter != MPI_COMM_NULL)
            CHECK_MPI(MPI_Comm_split(inter, wrank % 3 == 2 ? MPI_UNDEFINED : 0, wrank, &c));
        break;
    case 8: {
        MPI_Group g = subset(it, 4);
        char stringtag[32];
        snprintf(stringtag, sizeof stringtag, "ctx-unique-%d", it);
        if (in_group(g))
            CHECK_MPI(MPI_Comm_create_from_group(g, stringtag, MPI_INFO_NULL,
                                                 MPI_ERRORS_ARE_FATAL, &c));
        MPI_Group_free(&g);
        break;
    }
    }
    add(c, key);
}

/* Keys below 10 are the parents of the rounds: only the end frees them. */
static int every_third(int key, int arg) { return key >= 10 && key % 3 == arg; }
static int older_than(int key, int arg) { return key >= 10 && key % 1000000 < arg && key % 2 == 0; }
static int any_key(int key, int arg) { return 1; }

/* Threads: each creates communicators from its own parent, all at once. */
static MPI_Comm thread_parent[NTHREADS];

static void *thread_main(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm p = thread_parent[t];
    for (int i = 0; i < THREAD_ITERS; i++) {
        int key = 5000000 + t * 10000 + i * 10;
        MPI_Comm c = MPI_COMM_NULL, d = MPI_COMM_NULL;
        MPI_Request r;
        CHECK_MPI(MPI_Comm_dup(p, &c));
        CHECK_MPI(MPI_Comm_idup(p, &d, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        add(c, key);
        add(d, key + 1);
        CHECK_MPI(MPI_Comm_split(p, wrank % 2, 0, &c));
        add(c, key + 2);
        MPI_Group g = subset(i + t, 2);
        c = MPI_COMM_NULL;
        if (in_group(g))
            CHECK_MPI(MPI_Comm_create_group(p, g, 100 + t, &c));
        MPI_Group_free(&g);
        add(c, key + 3);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);

    MPI_Comm parents[3], inter = MPI_COMM_NULL, half;
    parents[0] = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parents[1]));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &parents[2]));
    if (wsize >= 2) {
        int low = wrank < wsize / 2;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, low, wrank, &half));
        CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? wsize / 2 : 0, 7, &inter));
        CHECK_MPI(MPI_Comm_free(&half));
    }
    add(parents[1], 1);
    add(parents[2], 2);
    add(inter, 3);
    int base = 10;

    /* rounds of creations; frees in between, at different times on rank 0 */
    for (int round = 0; round < 4; round++) {
        for (int it = 0; it < 90; it++) {
            if (it == 45 && wrank == 0)
                free_where(older_than, base);
            create_step(it, base, parents, inter);
            if (it == 45 && wrank != 0)
                free_where(older_than, base);
        }
        cross_check(round);
        free_where(every_third, round % 3);
        base += 100;
    }
    cross_check(4);

    if (provided == MPI_THREAD_MULTIPLE) {
        pthread_t th[NTHREADS];
        for (int t = 0; t < NTHREADS; t++)
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &thread_parent[t]));
        for (int t = 0; t < NTHREADS; t++)
            pthread_create(&th[t], NULL, thread_main, (void *)(long)t);
        for (int t = 0; t < NTHREADS; t++)
            pthread_join(th[t], NULL);
        cross_check(5);
        for (int t = 0; t < NTHREADS; t++)
            CHECK_MPI(MPI_Comm_free(&thread_parent[t]));
    }

    /* parents 1, 2 and the intercommunicator are in the list (unless freed by a round) */
    free_where(any_key, 0);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0)
        printf("comm_ctx_unique: %d ranks, all communicators distinct\n", wsize);
    MPI_Finalize();
    return 0;
}
