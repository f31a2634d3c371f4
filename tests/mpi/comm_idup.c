/* mempi-test: np=1,2,3,5 timeout=90 */
/* comm_idup.c -- MPI_Comm_idup is truly nonblocking: the Send-before-Recv program that needs
 * it, several outstanding idups completed in different orders, interleaving with Ibarrier and
 * Iallreduce, attribute copy at the call, isolation, blocking creations while idups are
 * outstanding, point-to-point, probes, collectives and the creation of communicators,
 * topologies, windows and files from the new communicator before the idup completed (an
 * error; local calls stay allowed),
 * intercommunicators (the same Send-before-Recv pattern, merge).  MemPI, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int wrank, wsize;

/* Ring on comm with tag 7: checks point-to-point works and data/status are right. */
static void ring(MPI_Comm comm, int salt)
{
    int rank, size, got = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int val = rank * 1000 + salt;
    MPI_Status st;
    MPI_Sendrecv(&val, 1, MPI_INT, to, 7, &got, 1, MPI_INT, from, 7, comm, &st);
    CHECK(got == from * 1000 + salt, "ring got %d expected %d", got, from * 1000 + salt);
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 7, "ring status %d %d", st.MPI_SOURCE,
          st.MPI_TAG);
}

/* Messages with one tag on parent and on the duplicate must not mix: each side sends on the
 * duplicate first, then on the parent, and receives in the other order. */
static void isolation(MPI_Comm parent, MPI_Comm dup)
{
    int rank, size;
    MPI_Comm_rank(parent, &rank);
    MPI_Comm_size(parent, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int a = 100 + rank, b = 200 + rank, ga = -1, gb = -1;
    MPI_Request r[4];
    MPI_Status st[4];
    MPI_Irecv(&ga, 1, MPI_INT, from, 3, parent, &r[0]);
    MPI_Irecv(&gb, 1, MPI_INT, from, 3, dup, &r[1]);
    MPI_Isend(&b, 1, MPI_INT, to, 3, dup, &r[2]);
    MPI_Isend(&a, 1, MPI_INT, to, 3, parent, &r[3]);
    MPI_Waitall(4, r, st);
    CHECK(ga == 100 + from && gb == 200 + from, "isolation got %d %d", ga, gb);
    CHECK(st[0].MPI_SOURCE == from && st[1].MPI_SOURCE == from && st[0].MPI_TAG == 3,
          "isolation status");
}

static void check_dup(MPI_Comm parent, MPI_Comm dup, int salt)
{
    int res;
    MPI_Comm_compare(parent, dup, &res);
    CHECK(res == MPI_CONGRUENT, "compare %d", res);
    ring(dup, salt);
    isolation(parent, dup);
}

/* The brief's example: rank 0 idups, then sends to 1, then waits; rank 1 receives first. */
static void send_before_recv(void)
{
    if (wsize < 2)
        return;
    MPI_Comm dup;
    MPI_Request req;
    MPI_Status st;
    int v = -1;
    if (wrank == 0) {
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
        v = 42;
        MPI_Send(&v, 1, MPI_INT, 1, 11, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
    } else if (wrank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, &st);
        CHECK(v == 42 && st.MPI_SOURCE == 0 && st.MPI_TAG == 11, "recv %d", v);
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
        MPI_Wait(&req, &st);
    } else {
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
        MPI_Wait(&req, &st);
    }
    check_dup(MPI_COMM_WORLD, dup, 1);
    MPI_Comm_free(&dup);
}

/* A blocking Comm_dup of another communicator while the idup is outstanding, with rank 1
 * joining the idup only after the dup (rank 0's idup round must not block the dup). */
static void blocking_during_idup(void)
{
    if (wsize < 2)
        return;
    MPI_Comm other, dup, bdup;
    MPI_Comm_dup(MPI_COMM_WORLD, &other);
    MPI_Request req;
    if (wrank == 0) {
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
        MPI_Comm_dup(other, &bdup);
    } else {
        MPI_Comm_dup(other, &bdup);
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check_dup(MPI_COMM_WORLD, dup, 2);
    check_dup(other, bdup, 3);
    isolation(dup, bdup);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&bdup);
    MPI_Comm_free(&other);
}

/* Several idups outstanding at once on WORLD and on a split comm, completed in an order that
 * differs by rank, with other nonblocking collectives in between. */
static void many_outstanding(void)
{
    enum { K = 4 };
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &half);
    MPI_Comm dw[K], dh[K];
    MPI_Request r[2 * K + 2];
    int in = wrank + 1, sum = 0;
    MPI_Comm_idup(MPI_COMM_WORLD, &dw[0], &r[0]);
    MPI_Comm_idup(half, &dh[0], &r[1]);
    MPI_Ibarrier(MPI_COMM_WORLD, &r[2]);
    MPI_Comm_idup(MPI_COMM_WORLD, &dw[1], &r[3]);
    MPI_Iallreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[4]);
    MPI_Comm_idup(half, &dh[1], &r[5]);
    MPI_Comm_idup(MPI_COMM_WORLD, &dw[2], &r[6]);
    MPI_Comm_idup(half, &dh[2], &r[7]);
    MPI_Comm_idup(MPI_COMM_WORLD, &dw[3], &r[8]);
    MPI_Comm_idup(half, &dh[3], &r[9]);
    /* complete them one at a time, backwards on odd ranks */
    for (int i = 0; i < 2 * K + 2; i++) {
        int j = wrank % 2 ? 2 * K + 1 - i : i;
        MPI_Status st;
        MPI_Wait(&r[j], &st);
        CHECK(r[j] == MPI_REQUEST_NULL, "request not freed");
    }
    CHECK(sum == wsize * (wsize + 1) / 2, "iallreduce %d", sum);
    for (int k = 0; k < K; k++) {
        check_dup(MPI_COMM_WORLD, dw[k], 10 + k);
        check_dup(half, dh[k], 20 + k);
        for (int m = 0; m < k; m++) {
            int res;
            MPI_Comm_compare(dw[k], dw[m], &res);
            CHECK(res == MPI_CONGRUENT, "dups compare %d", res);
            isolation(dw[k], dw[m]);
            isolation(dh[k], dh[m]);
        }
    }
    /* collectives on the new comms */
    for (int k = 0; k < K; k++) {
        int s = 0;
        MPI_Allreduce(&in, &s, 1, MPI_INT, MPI_SUM, dw[k]);
        CHECK(s == wsize * (wsize + 1) / 2, "allreduce on dup %d", s);
        MPI_Comm_free(&dw[k]);
        MPI_Comm_free(&dh[k]);
    }
    MPI_Comm_free(&half);
}

/* Completion by Test, Waitany and Waitall with a twist: idup of a comm still being idup'd is
 * not allowed, but idup of the result right after Wait is. */
static void test_loop(void)
{
    MPI_Comm d1, d2, d3;
    MPI_Request r[2];
    MPI_Comm_idup(MPI_COMM_WORLD, &d1, &r[0]);
    MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &d2, &r[1]);
    int done = 0;
    while (!done)
        MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
    MPI_Request q;
    MPI_Comm_idup(d1, &d3, &q);
    int idx;
    MPI_Status st;
    MPI_Waitany(1, &q, &idx, &st);
    CHECK(idx == 0, "waitany index %d", idx);
    check_dup(d1, d3, 30);
    check_dup(MPI_COMM_WORLD, d2, 31);
    MPI_Comm_free(&d3);
    MPI_Comm_free(&d2);
    MPI_Comm_free(&d1);
}

static int copies, deletes;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
    deletes++;
    return MPI_SUCCESS;
}

/* Attributes are copied at the call: the copy callback has run when Comm_idup returns. */
static void attributes(void)
{
    int key, nocopy;
    MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &nocopy, NULL);
    static char base[4];
    MPI_Comm parent;
    MPI_Comm_dup(MPI_COMM_WORLD, &parent);
    MPI_Comm_set_attr(parent, key, base);
    MPI_Comm_set_attr(parent, nocopy, base);
    MPI_Comm_set_name(parent, "parent");
    copies = deletes = 0;
    MPI_Comm dup;
    MPI_Request req;
    MPI_Comm_idup(parent, &dup, &req);
    CHECK(copies == 1, "copy callback ran %d times at the call", copies);
    /* the parent's attribute changes after the call do not reach the copy */
    MPI_Comm_delete_attr(parent, key);
    CHECK(deletes == 1, "deletes %d", deletes);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    void *v;
    int flag;
    MPI_Comm_get_attr(dup, key, &v, &flag);
    CHECK(flag && v == base + 1, "copied attribute %d %p", flag, v);
    MPI_Comm_get_attr(dup, nocopy, &v, &flag);
    CHECK(!flag, "null-copy attribute was copied");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(dup, name, &len);
    CHECK(strcmp(name, "parent") != 0, "name was copied: %s", name);
    check_dup(parent, dup, 40);
    MPI_Comm_free(&dup);
    CHECK(deletes == 2, "delete on free %d", deletes);
    MPI_Comm_free(&parent);
    MPI_Comm_free_keyval(&key);
    MPI_Comm_free_keyval(&nocopy);
}

static int copy_fails_on_0(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    *flag = 1;
    *(void **)out = in;
    return wrank == 0 ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* Bad arguments return the right class and print nothing; a copy callback failing on one rank
 * fails that rank's call only, and the others' idups still complete (the failing rank takes
 * part in the agreement). */
static void errors(void)
{
    MPI_Comm parent, c = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &parent);
    MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
    MPI_Request req;
    int err, cls;
    err = MPI_Comm_idup(parent, &c, NULL);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL request: class %d", cls);
    err = MPI_Comm_idup_with_info(parent, (MPI_Info)0x12345, &c, &req);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_INFO, "bad info: class %d", cls);
    int key;
    MPI_Comm_create_keyval(copy_fails_on_0, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(parent, key, &key);
    err = MPI_Comm_idup(parent, &c, &req);
    if (wrank == 0) {
        CHECK(err != MPI_SUCCESS, "failing copy callback: idup succeeded");
    } else {
        CHECK(err == MPI_SUCCESS, "idup failed %d", err);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Comm_free(&c);
    }
    MPI_Comm_delete_attr(parent, key);
    MPI_Comm_free_keyval(&key);
    /* the next correct call works */
    MPI_Comm d;
    MPI_Comm_idup(parent, &d, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check_dup(parent, d, 70);
    MPI_Comm_free(&d);
    MPI_Comm_free(&parent);
}

/* Calls that communicate on a communicator whose MPI_Comm_idup has not completed -- the
 * creation of communicators, topologies, windows and files from it, and c as peer_comm of
 * MPI_Intercomm_create at the leader -- and MPI_Comm_free fail with MPI_ERR_COMM through c's
 * handler, name the function and the argument, and leave the new handle null; local calls on
 * c work. */
static void early_creations(MPI_Comm c)
{
    int x = 0, len, cls;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Comm d = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));   /* as mpi4py does at once */
    CHECK_MPI(MPI_Comm_set_name(c, "pending"));
    int size = -1, inter = -1;
    CHECK_MPI(MPI_Comm_size(c, &size));
    CHECK_MPI(MPI_Comm_test_inter(c, &inter));
    CHECK(size == wsize && !inter, "local queries on a pending idup's communicator");
    CHECK_CLASS(MPI_Comm_dup(c, &d), MPI_ERR_COMM);
    CHECK(d == MPI_COMM_NULL, "MPI_Comm_dup left a handle");
    MPI_Request r = MPI_REQUEST_NULL;
    d = MPI_COMM_WORLD;
    CHECK_CLASS(MPI_Comm_idup(c, &d, &r), MPI_ERR_COMM);
    CHECK(d == MPI_COMM_NULL && r == MPI_REQUEST_NULL, "MPI_Comm_idup left a handle");
    d = MPI_COMM_WORLD;
    CHECK_CLASS(MPI_Comm_split(c, 0, wrank, &d), MPI_ERR_COMM);
    CHECK(d == MPI_COMM_NULL, "MPI_Comm_split left a handle");
    int dims[1] = { wsize }, periods[1] = { 0 };
    d = MPI_COMM_WORLD;
    CHECK_CLASS(MPI_Cart_create(c, 1, dims, periods, 0, &d), MPI_ERR_COMM);
    CHECK(d == MPI_COMM_NULL, "MPI_Cart_create left a handle");
    MPI_Comm self;                    /* the error goes through local_comm's handler */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &self));
    CHECK_MPI(MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN));
    d = MPI_COMM_WORLD;
    CHECK_CLASS(MPI_Intercomm_create(self, 0, c, 1, 6, &d), MPI_ERR_COMM);
    CHECK(d == MPI_COMM_NULL, "MPI_Intercomm_create left a handle");
    MPI_Comm_free(&self);
    MPI_Win w = MPI_WIN_NULL;
    int err = MPI_Win_create(&x, sizeof x, 1, MPI_INFO_NULL, c, &w);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_COMM && w == MPI_WIN_NULL, "MPI_Win_create: class %d", cls);
    MPI_Error_string(err, text, &len);
    CHECK(strstr(text, "MPI_Win_create") && strstr(text, "comm 0x"),
          "the error names neither the function nor the argument: %s", text);
    int flag = -1;
    CHECK_CLASS(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, MPI_STATUS_IGNORE),
                MPI_ERR_COMM);
    MPI_Comm keep = c;                /* the idup still completes into c: it stays */
    CHECK_CLASS(MPI_Comm_free(&keep), MPI_ERR_COMM);
    CHECK(keep == c, "a failed MPI_Comm_free changed the handle");
    /* the open fails before it touches the file system: nothing appears in the directory */
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/comm_idup.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir), "mkdtemp %s", dir);
    snprintf(path, sizeof path, "%s/f", dir);
    MPI_File fh = MPI_FILE_NULL;
    err = MPI_File_open(c, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_COMM && fh == MPI_FILE_NULL, "MPI_File_open: class %d", cls);
    CHECK(access(path, F_OK) != 0, "MPI_File_open created %s", path);
    CHECK(rmdir(dir) == 0, "rmdir %s", dir);
}

/* Point-to-point on a communicator whose MPI_Comm_idup has not completed is erroneous: it is
 * reported (MPI_ERR_COMM through the handler it inherited) instead of going out on a context
 * the communicator does not have yet, and the library stays usable.  The parent is fresh, so
 * its pool of ids is empty and rank 0's idup needs the others, who start theirs only after
 * rank 0 tried. */
static void early_use(void)
{
    if (wsize < 2)
        return;
    MPI_Comm parent, c;
    MPI_Comm_dup(MPI_COMM_WORLD, &parent);
    MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
    MPI_Request req;
    int go = 1;
    if (wrank == 0) {
        CHECK_MPI(MPI_Comm_idup(parent, &c, &req));
        int flag = 1, x = 5, cls = -1, err;
        CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "the idup of a fresh communicator completed without the other ranks");
        err = MPI_Send(&x, 1, MPI_INT, 1, 0, c);
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_COMM, "MPI_Send on a pending idup's communicator: class %d", cls);
        MPI_Request r = MPI_REQUEST_NULL;
        cls = -1;
        err = MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &r);
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_COMM && r == MPI_REQUEST_NULL,
              "MPI_Irecv on a pending idup's communicator: class %d", cls);
        cls = -1;
        err = MPI_Barrier(c);
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_COMM, "MPI_Barrier on a pending idup's communicator: class %d", cls);
        cls = -1;
        err = MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, c, &r);
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_COMM && r == MPI_REQUEST_NULL,
              "MPI_Iallreduce on a pending idup's communicator: class %d", cls);
        early_creations(c);
        CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "the idup completed without the other ranks");
        for (int dest = 1; dest < wsize; dest++)
            CHECK_MPI(MPI_Send(&go, 1, MPI_INT, dest, 99, MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Comm_idup(parent, &c, &req));
    }
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    ring(c, 80);
    isolation(parent, c);
    /* once complete, c creates like any communicator */
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(c, &d));
    check_dup(c, d, 81);
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
    MPI_Comm_free(&parent);
}

/* Many idup/free rounds: ids are returned (no leak up to exhaustion). */
static void churn(void)
{
    for (int i = 0; i < 200; i++) {
        MPI_Comm d[3];
        MPI_Request r[3];
        for (int k = 0; k < 3; k++)
            MPI_Comm_idup(MPI_COMM_WORLD, &d[k], &r[k]);
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
        if (i % 50 == 0)
            ring(d[i % 3], 50 + i);
        for (int k = 0; k < 3; k++)
            MPI_Comm_free(&d[k]);
    }
}

/* Intercommunicators: rank 0 of the even group starts two idups, then sends to the odd
 * group's rank 0, which receives before calling idup; then traffic, isolation, collectives
 * and a merge on the duplicates. */
static void inter_pairs(MPI_Comm dup, int hrank, int color, int tag)
{
    int rsize;
    MPI_Comm_remote_size(dup, &rsize);
    if (hrank >= rsize)
        return;               /* pair local rank i with remote rank i */
    int v = wrank, got = -1;
    MPI_Status st;
    MPI_Sendrecv(&v, 1, MPI_INT, hrank, tag, &got, 1, MPI_INT, hrank, tag, dup, &st);
    CHECK(got % 2 != color && st.MPI_SOURCE == hrank && st.MPI_TAG == tag, "inter got %d", got);
}

static void intercomm(void)
{
    if (wsize < 2)
        return;
    MPI_Comm half, inter, dup[2];
    int color = wrank % 2, hrank, hsize, res, flag, v = -1;
    MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &half);
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color ? 0 : 1, 5, &inter);
    MPI_Request req[2];
    MPI_Status st;
    if (color == 0 && hrank == 0) {
        MPI_Comm_idup(inter, &dup[0], &req[0]);
        MPI_Comm_idup(inter, &dup[1], &req[1]);
        v = 77;
        MPI_Send(&v, 1, MPI_INT, 0, 12, inter);
    } else if (color == 1 && hrank == 0) {
        MPI_Recv(&v, 1, MPI_INT, 0, 12, inter, &st);
        CHECK(v == 77 && st.MPI_SOURCE == 0 && st.MPI_TAG == 12, "inter recv %d", v);
        MPI_Comm_idup(inter, &dup[0], &req[0]);
        MPI_Comm_idup(inter, &dup[1], &req[1]);
    } else {
        MPI_Comm_idup(inter, &dup[0], &req[0]);
        MPI_Comm_idup(inter, &dup[1], &req[1]);
    }
    MPI_Wait(&req[1 - color], MPI_STATUS_IGNORE);
    MPI_Wait(&req[color], MPI_STATUS_IGNORE);
    for (int k = 0; k < 2; k++) {
        MPI_Comm_compare(inter, dup[k], &res);
        MPI_Comm_test_inter(dup[k], &flag);
        CHECK(res == MPI_CONGRUENT && flag, "inter dup compare %d flag %d", res, flag);
        /* same tag on the parent and the duplicate: must not mix */
        int rsize;
        MPI_Comm_remote_size(dup[k], &rsize);
        if (hrank < rsize) {
            int a = 1000 + wrank, b = 2000 + wrank, ga = -1, gb = -1;
            MPI_Request r[4];
            MPI_Irecv(&ga, 1, MPI_INT, hrank, 4, inter, &r[0]);
            MPI_Irecv(&gb, 1, MPI_INT, hrank, 4, dup[k], &r[1]);
            MPI_Isend(&b, 1, MPI_INT, hrank, 4, dup[k], &r[2]);
            MPI_Isend(&a, 1, MPI_INT, hrank, 4, inter, &r[3]);
            MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
            CHECK(ga >= 1000 && ga < 2000 && gb == ga + 1000 && (ga - 1000) % 2 != color,
                  "inter isolation %d %d", ga, gb);
        }
        inter_pairs(dup[k], hrank, color, 9 + k);
        int one = 1, sum = 0;   /* intercomm allreduce: the sum over the remote group */
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup[k]);
        CHECK(sum == (color ? (wsize + 1) / 2 : wsize / 2) && hsize + sum == wsize,
              "inter allreduce %d", sum);
    }
    MPI_Comm merged;
    MPI_Intercomm_merge(dup[1], color, &merged);
    int msize, mrank;
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    CHECK(msize == wsize && (color == 0 ? mrank == hrank : mrank >= (wsize + 1) / 2),
          "merged size %d rank %d", msize, mrank);
    ring(merged, 60);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&dup[0]);
    MPI_Comm_free(&dup[1]);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    send_before_recv();
    blocking_during_idup();
    many_outstanding();
    test_loop();
    attributes();
    churn();
    errors();
    early_use();
    intercomm();
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("comm_idup ok\n");
    MPI_Finalize();
    return 0;
}
