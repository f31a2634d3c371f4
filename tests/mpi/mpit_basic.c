/* mempi-test: np=1,2,3,5 timeout=120 */
/* mempi-test: np=2 timeout=120 env=MEMPI_EAGER_MAX=4096,MEMPI_WAIT=yield */
/* mpit_basic.c -- the MPI_T tool interface (MPI 4.0 chapter 15).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Before MPI_Init: MPI_T_ERR_NOT_INITIALIZED outside init/finalize, reference counting,
 * every control variable enumerated and compared with mempi-info's table (names, and that each
 * is described, readable and found by name), values set by the environment read back (MEMPI_EAGER_MAX,
 * MEMPI_WAIT through its enumeration), writes refused (never for rows read only at MPI_Init,
 * not now for run-time rows before MPI_Init), the error codes for bad indices, names,
 * handles, sessions and items.  After MPI_Init: run-time variables written through MPI_T take
 * effect (MEMPI_VERBOSE=2 and a forced MEMPI_COLL_BCAST make the next MPI_Bcast print the
 * algorithm line naming the forced algorithm); performance variables count a known traffic
 * pattern exactly (10 small eager messages and one 1 MiB message), stop, reset, readreset and
 * write work per handle and through MPI_T_PVAR_ALL_HANDLES, continuous variables refuse them;
 * the unexpected-queue high-water mark sees an unexpected message; categories partition the
 * variables, and the two events (tests/mpi/mpit_events.c) are point-to-point's.  After
 * MPI_Finalize the interface still reads.
 * MemPI-specific (variable names): not run against MPICH.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

#define CHECK_T(call, want) do { int e_ = (call); \
        CHECK(e_ == (want), "%s returned %d, expected %s (%d)", #call, e_, #want, (int)(want)); \
    } while (0)

static int cvar_index(const char *name)
{
    int i = -1;
    CHECK_T(MPI_T_cvar_get_index(name, &i), MPI_SUCCESS);
    return i;
}

static int read_int_cvar(const char *name)
{
    MPI_T_cvar_handle h;
    int count, v = -12345;
    CHECK_T(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count), MPI_SUCCESS);
    CHECK(count == 1, "%s: count %d", name, count);
    CHECK_T(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "cvar handle not reset by free");
    return v;
}

static int write_int_cvar(const char *name, int v)
{
    MPI_T_cvar_handle h;
    int count;
    CHECK_T(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count), MPI_SUCCESS);
    int rc = MPI_T_cvar_write(h, &v);
    MPI_T_cvar_handle_free(&h);
    return rc;
}

/* Names of mempi-info's table (MEMPI_BUILD_DIR from tests/run), or 0 without it. */
static int info_names(char names[][64], int max)
{
    const char *dir = getenv("MEMPI_BUILD_DIR");
    char cmd[1024], line[4096];
    if (dir == NULL)
        return 0;
    snprintf(cmd, sizeof cmd, "%s/bin/mempi-info --markdown", dir);
    FILE *f = popen(cmd, "r");
    if (f == NULL)
        return 0;
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "| `MEMPI_", 9) == 0 && n < max) {
            char *end = strchr(line + 3, '`');
            if (end && end - (line + 3) < 64) {
                memcpy(names[n], line + 3, (size_t)(end - (line + 3)));
                names[n][end - (line + 3)] = '\0';
                n++;
            }
        }
    pclose(f);
    return n;
}

static void test_cvars_before_init(void)
{
    int num = 0;
    CHECK_T(MPI_T_cvar_get_num(&num), MPI_SUCCESS);
    CHECK(num >= 20, "only %d control variables", num);
    static char names[256][64];
    int ninfo = rank == 0 ? info_names(names, 256) : 0;
    if (ninfo > 0)
        CHECK(ninfo == num, "mempi-info lists %d variables, MPI_T %d", ninfo, num);
    int found = 0, runtime = 0;
    for (int i = 0; i < num; i++) {
        char name[128], desc[1024];
        int name_len = sizeof name, desc_len = sizeof desc, verb, bind, scope, count;
        MPI_Datatype dt;
        MPI_T_enum et;
        CHECK_T(MPI_T_cvar_get_info(i, name, &name_len, &verb, &dt, &et, desc, &desc_len, &bind,
                                    &scope), MPI_SUCCESS);
        CHECK(strncmp(name, "MEMPI_", 6) == 0, "cvar %d is named '%s'", i, name);
        CHECK(name_len == (int)strlen(name) + 1, "%s: name_len %d", name, name_len);
        CHECK(desc_len > 10, "%s: description '%s'", name, desc);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "%s: bind %d", name, bind);
        CHECK(scope == MPI_T_SCOPE_READONLY || scope == MPI_T_SCOPE_LOCAL ||
              scope == MPI_T_SCOPE_ALL_EQ, "%s: scope %d", name, scope);
        CHECK(verb >= MPI_T_VERBOSITY_USER_BASIC && verb <= MPI_T_VERBOSITY_MPIDEV_ALL,
              "%s: verbosity %d", name, verb);
        CHECK(dt == MPI_INT || dt == MPI_UNSIGNED_LONG || dt == MPI_CHAR, "%s: datatype", name);
        runtime += scope != MPI_T_SCOPE_READONLY;
        int len0 = 0;                          /* length query without a buffer */
        CHECK_T(MPI_T_cvar_get_info(i, NULL, &len0, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                MPI_SUCCESS);
        CHECK(len0 == name_len, "%s: length query %d", name, len0);
        CHECK(cvar_index(name) == i, "%s: get_index disagrees", name);
        MPI_T_cvar_handle h;
        CHECK_T(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
        char buf[4096];
        CHECK(count >= 1 && (dt != MPI_CHAR || count <= (int)sizeof buf), "%s: count %d", name,
              count);
        CHECK_T(MPI_T_cvar_read(h, buf), MPI_SUCCESS);
        if (dt == MPI_CHAR)
            CHECK((int)strlen(buf) + 1 == count, "%s: string of %zu for count %d", name,
                  strlen(buf), count);
        if (scope == MPI_T_SCOPE_READONLY)     /* read at MPI_Init only */
            CHECK_T(MPI_T_cvar_write(h, buf), MPI_T_ERR_CVAR_SET_NEVER);
        else                                   /* run time, but MPI is not initialised */
            CHECK_T(MPI_T_cvar_write(h, buf), MPI_T_ERR_CVAR_SET_NOT_NOW);
        CHECK_T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
        for (int k = 0; k < ninfo; k++)
            if (strcmp(names[k], name) == 0)
                found++;
    }
    if (ninfo > 0)
        CHECK(found == num, "%d of %d variables are in mempi-info's table", found, num);
    CHECK(runtime >= 3, "only %d run-time variables", runtime);

    const char *eager = getenv("MEMPI_EAGER_MAX");
    unsigned long em = 0;
    MPI_T_cvar_handle h;
    int count;
    CHECK_T(MPI_T_cvar_handle_alloc(cvar_index("MEMPI_EAGER_MAX"), NULL, &h, &count), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_read(h, &em), MPI_SUCCESS);
    CHECK(em == (eager ? strtoul(eager, NULL, 10) : 16384), "MEMPI_EAGER_MAX reads %lu", em);
    MPI_T_cvar_handle_free(&h);

    /* MEMPI_WAIT through its enumeration */
    MPI_T_enum et;
    CHECK_T(MPI_T_cvar_get_info(cvar_index("MEMPI_WAIT"), NULL, NULL, NULL, NULL, &et, NULL, NULL,
                                NULL, NULL), MPI_SUCCESS);
    int items = 0, value = read_int_cvar("MEMPI_WAIT"), matched = 0;
    char ename[64];
    int elen = sizeof ename;
    CHECK_T(MPI_T_enum_get_info(et, &items, ename, &elen), MPI_SUCCESS);
    CHECK(items == 4, "MEMPI_WAIT has %d items", items);
    const char *want = getenv("MEMPI_WAIT") ? getenv("MEMPI_WAIT") : "auto";
    for (int k = 0; k < items; k++) {
        int v;
        char item[64];
        int ilen = sizeof item;
        CHECK_T(MPI_T_enum_get_item(et, k, &v, item, &ilen), MPI_SUCCESS);
        if (v == value)
            matched = strcmp(item, want) == 0;
    }
    CHECK(matched, "MEMPI_WAIT reads %d, which is not the item '%s'", value, want);
    int v;
    CHECK_T(MPI_T_enum_get_item(et, items, &v, NULL, NULL), MPI_T_ERR_INVALID_ITEM);
    CHECK_T(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &items, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);

    /* bad input */
    CHECK_T(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_cvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_cvar_handle_alloc(num, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    int idx;
    CHECK_T(MPI_T_cvar_get_index("MEMPI_NO_SUCH_VARIABLE", &idx), MPI_T_ERR_INVALID_NAME);
    h = (MPI_T_cvar_handle)&idx;
    CHECK_T(MPI_T_cvar_read(h, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_cvar_handle_free(&h), MPI_T_ERR_INVALID_HANDLE);
}

static int pvar(const char *name, int cls)
{
    int i = -1;
    CHECK_T(MPI_T_pvar_get_index(name, cls, &i), MPI_SUCCESS);
    return i;
}

static unsigned long long pvread(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    CHECK_T(MPI_T_pvar_read(s, h, &v), MPI_SUCCESS);
    return v;
}

/* 10 messages of 100 bytes and one of 1 MiB to the next rank, received from the previous. */
static void traffic(char *big, char *big_in)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    char small[100] = { 0 }, in[100];
    MPI_Request r;
    for (int k = 0; k < 10; k++) {
        MPI_Irecv(in, 100, MPI_CHAR, prev, k, MPI_COMM_WORLD, &r);
        MPI_Send(small, 100, MPI_CHAR, next, k, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Irecv(big_in, 1 << 20, MPI_CHAR, prev, 99, MPI_COMM_WORLD, &r);
    MPI_Send(big, 1 << 20, MPI_CHAR, next, 99, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static void test_pvars(void)
{
    int num = 0;
    CHECK_T(MPI_T_pvar_get_num(&num), MPI_SUCCESS);
    CHECK(num >= 10, "only %d performance variables", num);
    MPI_T_pvar_session s;
    CHECK_T(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    MPI_T_pvar_handle *hs = calloc((size_t)num, sizeof *hs);
    for (int i = 0; i < num; i++) {
        char name[128];
        int len = sizeof name, verb, cls, bind, ro, cont, atomic, count;
        MPI_Datatype dt;
        MPI_T_enum et;
        CHECK_T(MPI_T_pvar_get_info(i, name, &len, &verb, &cls, &dt, &et, NULL, NULL, &bind, &ro,
                                    &cont, &atomic), MPI_SUCCESS);
        CHECK(pvar(name, cls) == i, "%s: get_index disagrees", name);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "%s: bind %d", name, bind);
        CHECK((cls == MPI_T_PVAR_CLASS_PERCENTAGE) == (dt == MPI_DOUBLE), "%s: type", name);
        CHECK_T(MPI_T_pvar_handle_alloc(s, i, NULL, &hs[i], &count), MPI_SUCCESS);
        CHECK(count == 1, "%s: count %d", name, count);
        if (cont) {
            CHECK_T(MPI_T_pvar_start(s, hs[i]), MPI_T_ERR_PVAR_NO_STARTSTOP);
            CHECK_T(MPI_T_pvar_reset(s, hs[i]), MPI_T_ERR_PVAR_NO_WRITE);
        }
    }
    int imsgs = pvar("mempi_msgs_sent", MPI_T_PVAR_CLASS_COUNTER);
    int ibytes = pvar("mempi_bytes_sent", MPI_T_PVAR_CLASS_COUNTER);
    int ieager = pvar("mempi_eager_msgs", MPI_T_PVAR_CLASS_COUNTER);
    int iebytes = pvar("mempi_eager_bytes", MPI_T_PVAR_CLASS_COUNTER);
    int isr = pvar("mempi_sendreq_bytes", MPI_T_PVAR_CLASS_COUNTER);
    int irv = pvar("mempi_rndv_bytes", MPI_T_PVAR_CLASS_COUNTER);
    int ishare = pvar("mempi_remote_write_share", MPI_T_PVAR_CLASS_PERCENTAGE);
    int ihwm = pvar("mempi_unexpected_max_msgs", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    int iunexp = pvar("mempi_unexpected_msgs", MPI_T_PVAR_CLASS_LEVEL);
    int idx;
    CHECK_T(MPI_T_pvar_get_index("mempi_msgs_sent", MPI_T_PVAR_CLASS_LEVEL, &idx),
            MPI_T_ERR_INVALID_NAME);

    char *big = calloc(1, 1 << 20), *big_in = malloc(1 << 20);
    CHECK(pvread(s, hs[imsgs]) == 0, "a counter that was never started is not 0");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_T(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    traffic(big, big_in);
    CHECK_T(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    unsigned long long msgs = pvread(s, hs[imsgs]), bytes = pvread(s, hs[ibytes]);
    unsigned long long em = pvread(s, hs[ieager]), eb = pvread(s, hs[iebytes]);
    unsigned long long big_bytes = pvread(s, hs[isr]) + pvread(s, hs[irv]);
    CHECK(msgs == 11, "messages counted %llu, sent 11", msgs);
    CHECK(bytes == 1000 + (1 << 20), "bytes counted %llu, sent %d", bytes, 1000 + (1 << 20));
    CHECK(em == 10 && eb == 1000, "eager: %llu messages, %llu bytes (10, 1000 sent)", em, eb);
    CHECK(big_bytes == 1 << 20, "remote write + rendezvous bytes %llu, sent 1 MiB", big_bytes);
    double share = -1;
    CHECK_T(MPI_T_pvar_read(s, hs[ishare], &share), MPI_SUCCESS);
    CHECK(share >= 0 && share <= 1, "remote-write share %g", share);

    /* stopped: more traffic is not counted */
    traffic(big, big_in);
    CHECK(pvread(s, hs[imsgs]) == 11, "a stopped counter moved");
    CHECK_T(MPI_T_pvar_start(s, hs[imsgs]), MPI_SUCCESS);
    traffic(big, big_in);
    CHECK(pvread(s, hs[imsgs]) == 22, "restarted counter reads %llu, not 22", pvread(s, hs[imsgs]));
    unsigned long long rr = 0;
    CHECK_T(MPI_T_pvar_readreset(s, hs[imsgs], &rr), MPI_SUCCESS);
    CHECK(rr == 22 && pvread(s, hs[imsgs]) == 0, "readreset %llu then %llu", rr,
          pvread(s, hs[imsgs]));
    unsigned long long w = 1000;
    CHECK_T(MPI_T_pvar_write(s, hs[imsgs], &w), MPI_SUCCESS);
    traffic(big, big_in);
    CHECK(pvread(s, hs[imsgs]) == 1011, "written 1000 + 11 reads %llu", pvread(s, hs[imsgs]));
    CHECK_T(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK(pvread(s, hs[imsgs]) == 0 && pvread(s, hs[ibytes]) == 0, "reset of all handles");
    CHECK_T(MPI_T_pvar_write(s, hs[ishare], &share), MPI_T_ERR_PVAR_NO_WRITE);

    /* an unexpected message raises the high-water mark */
    MPI_Barrier(MPI_COMM_WORLD);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, x = 1, y = 0;
    MPI_Request r;
    MPI_Isend(&x, 1, MPI_INT, next, 77, MPI_COMM_WORLD, &r);
    int flag = 0;
    while (!flag)                              /* arrived, not yet received: unexpected */
        MPI_Iprobe(prev, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(pvread(s, hs[ihwm]) >= 1, "unexpected high-water mark %llu", pvread(s, hs[ihwm]));
    CHECK(pvread(s, hs[iunexp]) >= 1, "unexpected queue length %llu", pvread(s, hs[iunexp]));
    MPI_Recv(&y, 1, MPI_INT, prev, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    /* bad handles and sessions */
    MPI_T_pvar_session bad = (MPI_T_pvar_session)&x;
    unsigned long long v;
    CHECK_T(MPI_T_pvar_read(bad, hs[0], &v), MPI_T_ERR_INVALID_SESSION);
    CHECK_T(MPI_T_pvar_handle_alloc(s, num, NULL, &hs[0], &flag), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_pvar_read(s, (MPI_T_pvar_handle)&x, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_pvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_pvar_handle_free(s, &hs[0]), MPI_SUCCESS);
    CHECK(hs[0] == MPI_T_PVAR_HANDLE_NULL, "pvar handle not reset by free");
    CHECK_T(MPI_T_pvar_session_free(&s), MPI_SUCCESS);   /* frees the other handles */
    CHECK(s == MPI_T_PVAR_SESSION_NULL, "session not reset by free");
    CHECK_T(MPI_T_pvar_session_free(&bad), MPI_T_ERR_INVALID_SESSION);
    free(hs);
    free(big);
    free(big_in);
}

/* Run-time variables take effect: MEMPI_VERBOSE=2 prints the algorithm of each collective,
 * MEMPI_COLL_BCAST forces one. */
static void test_runtime_write(void)
{
    int ib = cvar_index("MEMPI_COLL_BCAST");
    MPI_T_enum et;
    int scope;
    CHECK_T(MPI_T_cvar_get_info(ib, NULL, NULL, NULL, NULL, &et, NULL, NULL, NULL, &scope),
            MPI_SUCCESS);
    CHECK(scope == MPI_T_SCOPE_ALL_EQ, "MEMPI_COLL_BCAST: scope %d", scope);
    int value, len;
    char alg[64];
    len = sizeof alg;
    CHECK_T(MPI_T_enum_get_item(et, 1, &value, alg, &len), MPI_SUCCESS);   /* item 0 is auto */
    CHECK_T(write_int_cvar("MEMPI_COLL_BCAST", value), MPI_SUCCESS);
    CHECK(read_int_cvar("MEMPI_COLL_BCAST") == value, "written value does not read back");
    CHECK_T(write_int_cvar("MEMPI_VERBOSE", 7), MPI_T_ERR_INVALID);        /* out of range */
    CHECK_T(write_int_cvar("MEMPI_EAGER_MAX", 1), MPI_T_ERR_CVAR_SET_NEVER);

    char path[] = "/tmp/mpit_basic_XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    CHECK(fd >= 0 && saved >= 0, "temporary file");
    fflush(stderr);
    dup2(fd, 2);
    CHECK_T(write_int_cvar("MEMPI_VERBOSE", 2), MPI_SUCCESS);
    int data = rank == 0 ? 42 : 0;
    MPI_Bcast(&data, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK_T(write_int_cvar("MEMPI_VERBOSE", 0), MPI_SUCCESS);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK(data == 42, "bcast data %d", data);
    char text[4096] = { 0 };
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    unlink(path);
    if (size > 1) {                            /* one rank runs no algorithm, prints nothing */
        CHECK(n > 0, "MEMPI_VERBOSE=2 written through MPI_T printed nothing for MPI_Bcast");
        CHECK(strstr(text, "coll bcast ") && strstr(text, alg), "trace '%s' does not name "
              "bcast and the forced algorithm %s", text, alg);
    }
    CHECK_T(write_int_cvar("MEMPI_COLL_BCAST", -1), MPI_SUCCESS);         /* auto again */
}

static void test_categories(void)
{
    int ncat = 0, ncvar, npvar, tc = 0, tp = 0;
    CHECK_T(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
    CHECK(ncat >= 3, "%d categories", ncat);
    MPI_T_cvar_get_num(&ncvar);
    MPI_T_pvar_get_num(&npvar);
    int *seen_c = calloc((size_t)ncvar, sizeof(int)), *seen_p = calloc((size_t)npvar, sizeof(int));
    for (int c = 0; c < ncat; c++) {
        char name[64];
        int len = sizeof name, nc, np, nsub, ne, idx;
        CHECK_T(MPI_T_category_get_info(c, name, &len, NULL, NULL, &nc, &np, &nsub), MPI_SUCCESS);
        CHECK_T(MPI_T_category_get_index(name, &idx), MPI_SUCCESS);
        CHECK(idx == c, "category %s: index %d", name, idx);
        int *ic = malloc(sizeof(int) * (size_t)(nc + 1)), *ip = malloc(sizeof(int) * (size_t)(np + 1));
        CHECK_T(MPI_T_category_get_cvars(c, nc, ic), MPI_SUCCESS);
        CHECK_T(MPI_T_category_get_pvars(c, np, ip), MPI_SUCCESS);
        for (int k = 0; k < nc; k++)
            seen_c[ic[k]]++;
        for (int k = 0; k < np; k++)
            seen_p[ip[k]]++;
        tc += nc;
        tp += np;
        CHECK_T(MPI_T_category_get_num_events(c, &ne), MPI_SUCCESS);
        CHECK(ne == (strcmp(name, "mempi_pt2pt") == 0 ? 2 : 0) && nsub == 0,
              "category %s: %d events, %d subcategories", name, ne, nsub);
        free(ic);
        free(ip);
    }
    CHECK(tc == ncvar && tp == npvar, "categories hold %d/%d cvars, %d/%d pvars", tc, ncvar, tp,
          npvar);
    for (int i = 0; i < ncvar; i++)
        CHECK(seen_c[i] == 1, "cvar %d in %d categories", i, seen_c[i]);
    for (int i = 0; i < npvar; i++)
        CHECK(seen_p[i] == 1, "pvar %d in %d categories", i, seen_p[i]);
    int idx, u;
    CHECK_T(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_category_get_index("no such category", &idx), MPI_T_ERR_INVALID_NAME);
    CHECK_T(MPI_T_category_changed(&u), MPI_SUCCESS);
    int ne = -1;
    CHECK_T(MPI_T_event_get_num(&ne), MPI_SUCCESS);
    CHECK(ne == 2, "%d events", ne);
    CHECK_T(MPI_T_event_get_index("x", &idx), MPI_T_ERR_INVALID_NAME);
    free(seen_c);
    free(seen_p);
}

int main(int argc, char **argv)
{
    int provided = -1, num;
    CHECK_T(MPI_T_cvar_get_num(&num), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_T(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    CHECK(provided == MPI_THREAD_SINGLE, "provided %d", provided);
    CHECK_T(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);   /* counted */
    CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
    rank = 0;                                   /* before MPI_Init: no rank yet */
    test_cvars_before_init();

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_runtime_write();
    test_pvars();
    test_categories();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpit_basic: ok\n");
    MPI_Finalize();

    CHECK(read_int_cvar("MEMPI_STATS") >= 0, "MEMPI_STATS after MPI_Finalize");
    CHECK_T(write_int_cvar("MEMPI_STATS", 0), MPI_T_ERR_CVAR_SET_NOT_NOW);
    CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_T(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    return 0;
}
