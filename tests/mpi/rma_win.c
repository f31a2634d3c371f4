/* mempi-test: np=1,2,3,5 timeout=180 */
/* mempi-test: np=2,3 timeout=180 env=MEMPI_CMA=0 */
/* rma_win.c -- window creation: every flavor, zero-size windows, displacement units, the predefined attributes, shared-memory queries and load/store, dynamic attach/detach.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank's window has a different size: 8 * (P + r) + 3 bytes on rank r (the last three
 * bytes are never a target and must stay untouched), and 0 bytes on every rank r with
 * r % 3 == 1.  Displacement units differ by flavor: 1 (MPI_Win_create_c), 4
 * (MPI_Win_allocate_c), 8 (MPI_Win_allocate_shared_c), and 1 with absolute addresses
 * (MPI_Win_create_dynamic + MPI_Win_attach).  On each window: the attributes MPI_WIN_BASE,
 * SIZE, DISP_UNIT, CREATE_FLAVOR (dynamic: base MPI_BOTTOM, size 0, unit 1) and MODEL ==
 * MPI_WIN_UNIFIED, all with flag true; MPI_Win_get_group against the communicator's group;
 * then, under fence, every rank puts one long into slot `origin` of every non-empty window
 * and gets every slot back, so a wrong base, size or unit shows up as a wrong value or a
 * clobbered tail.  Windows of 0 bytes on every rank are created and freed too.
 *
 * Shared windows are made on the node's communicator (MPI_Comm_split_type), contiguous and
 * with alloc_shared_noncontig: MPI_Win_shared_query(_c) of every rank gives its size, unit
 * and a pointer, consecutive non-empty segments are adjacent unless noncontig was asked for
 * (the standard: the first byte of rank i follows the last byte of rank i-1), a query of
 * MPI_PROC_NULL describes the lowest rank with a non-empty segment (size 0 when all are
 * empty), and loads and stores through the pointers, ordered by MPI_Win_sync and a barrier
 * as the standard's example does, see each other's data.
 *
 * The dynamic window gets a second region attached while the first is in use, is accessed
 * in both under one lock_all epoch, and has a region detached and another attached.
 */
#include "rma_common.h"

static int me, np;

static MPI_Aint win_bytes(int r) { return r % 3 == 1 ? 0 : 8 * (MPI_Aint)(np + r) + 3; }
static long value(int origin, int target, int round) { return 1000000L * round + 1000L * origin + target; }

/* Displacement of slot `slot` (a long) in target's window. */
static MPI_Aint slot_disp(int flavor, int du, const MPI_Aint *addr, int target, int slot)
{
    return flavor == FL_DYNAMIC ? MPI_Aint_add(addr[target], 8 * (MPI_Aint)slot) : 8 * (MPI_Aint)slot / du;
}

static void check_attrs(MPI_Win win, int flavor, void *base, MPI_Aint size, int du, MPI_Comm comm)
{
    static const int flavors[FL_COUNT] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
                                          MPI_WIN_FLAVOR_SHARED, MPI_WIN_FLAVOR_DYNAMIC};
    void *abase = (void *)1;
    MPI_Aint *asize = NULL;
    int *adu = NULL, *aflavor = NULL, *amodel = NULL, flag = 0;
    const char *fn = rma_flavor_name[flavor];
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &abase, &flag));
    CHECK(flag, "%s: MPI_WIN_BASE not set", fn);
    if (flavor == FL_DYNAMIC)
        CHECK(abase == MPI_BOTTOM, "dynamic window: MPI_WIN_BASE %p, expected MPI_BOTTOM", abase);
    else if (size > 0)
        CHECK(abase == base, "%s: MPI_WIN_BASE %p, expected %p", fn, abase, base);
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &asize, &flag));
    CHECK(flag && asize, "%s: MPI_WIN_SIZE not set", fn);
    CHECK(*asize == (flavor == FL_DYNAMIC ? 0 : size), "%s: MPI_WIN_SIZE %ld, expected %ld", fn,
          (long)*asize, (long)(flavor == FL_DYNAMIC ? 0 : size));
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &adu, &flag));
    CHECK(flag && adu && *adu == du, "%s: MPI_WIN_DISP_UNIT %d, expected %d", fn, adu ? *adu : -1, du);
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &aflavor, &flag));
    CHECK(flag && aflavor && *aflavor == flavors[flavor], "%s: MPI_WIN_CREATE_FLAVOR %d, expected %d",
          fn, aflavor ? *aflavor : -1, flavors[flavor]);
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &amodel, &flag));
    CHECK(flag && amodel && *amodel == MPI_WIN_UNIFIED, "%s: MPI_WIN_MODEL %d, expected "
          "MPI_WIN_UNIFIED (%d)", fn, amodel ? *amodel : -1, MPI_WIN_UNIFIED);

    MPI_Group wg, cg;
    int cmp = -1;
    CHECK_MPI(MPI_Win_get_group(win, &wg));
    CHECK_MPI(MPI_Comm_group(comm, &cg));
    CHECK_MPI(MPI_Group_compare(wg, cg, &cmp));
    CHECK(cmp == MPI_IDENT, "%s: MPI_Win_get_group is not the communicator's group (%d)", fn, cmp);
    CHECK_MPI(MPI_Group_free(&wg));
    CHECK_MPI(MPI_Group_free(&cg));
}

/* Fence epochs: every rank puts into slot `me` of every non-empty window, then gets them all. */
static void put_get_all(MPI_Win win, int flavor, int du, char *base, const MPI_Aint *addr, int round)
{
    long mine = 0, got[64];
    CHECK(np <= 64, "too many ranks");
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int t = 0; t < np; t++)
        if (win_bytes(t) > 0) {
            mine = value(me, t, round);
            /* one origin buffer per target: it must stay unchanged until the fence */
            got[t] = mine;
            CHECK_MPI(MPI_Put(&got[t], 1, MPI_LONG, t, slot_disp(flavor, du, addr, t, me), 1,
                              MPI_LONG, win));
        }
    CHECK_MPI(MPI_Win_fence(0, win));
    MPI_Aint bytes = win_bytes(me);
    if (bytes > 0) {
        long v;
        for (int s = 0; s < np; s++) {
            memcpy(&v, base + 8 * s, 8);
            CHECK(v == value(s, me, round), "%s window: slot %d of rank %d holds %ld, expected %ld",
                  rma_flavor_name[flavor], s, me, v, value(s, me, round));
        }
        for (MPI_Aint b = bytes - 3; b < bytes; b++)
            CHECK(base[b] == 0x5a, "%s window: tail byte %ld of rank %d clobbered (%d)",
                  rma_flavor_name[flavor], (long)b, me, base[b]);
    }
    for (int t = 0; t < np; t++) {
        got[t] = -1;
        if (win_bytes(t) > 0)
            CHECK_MPI(MPI_Get(&got[t], 1, MPI_LONG, t, slot_disp(flavor, du, addr, t, (me + 1) % np),
                              1, MPI_LONG, win));
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int t = 0; t < np; t++)
        if (win_bytes(t) > 0)
            CHECK(got[t] == value((me + 1) % np, t, round), "%s window: get from rank %d slot %d "
                  "gave %ld, expected %ld", rma_flavor_name[flavor], t, (me + 1) % np, got[t],
                  value((me + 1) % np, t, round));
}

static void test_flavor(int flavor)
{
    MPI_Aint bytes = win_bytes(me), addr[64];
    char *base = NULL, *mem = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int du = 1;
    switch (flavor) {
    case FL_CREATE:
        mem = base = bytes ? malloc((size_t)bytes) : NULL;   /* base NULL for 0 bytes */
        CHECK_MPI(MPI_Win_create_c(base, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        break;
    case FL_ALLOCATE:
        du = 4;
        if (rma_lib() == RMA_MPICH && bytes % 16)
            bytes += 16 - bytes % 16;       /* rma_common.h: MPICH's allocate */
        CHECK_MPI(MPI_Win_allocate_c(bytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
        break;
    case FL_DYNAMIC:
        mem = base = bytes ? malloc((size_t)bytes) : NULL;
        CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        if (bytes)
            CHECK_MPI(MPI_Win_attach(win, base, bytes));
        break;
    }
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    check_attrs(win, flavor, base, bytes, du, MPI_COMM_WORLD);
    if (flavor == FL_DYNAMIC) {
        MPI_Aint a;
        CHECK_MPI(MPI_Get_address(base ? base : (char *)&a, &a));
        CHECK_MPI(MPI_Allgather(&a, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    }
    if (bytes > 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
        memset(base, 0x5a, (size_t)bytes);
        CHECK_MPI(MPI_Win_unlock(me, win));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    put_get_all(win, flavor, du, base, addr, 1);
    put_get_all(win, flavor, du, base, addr, 2);

    if (flavor == FL_DYNAMIC) {
        /* a second region, attached while the first stays in use; the neighbour writes into
         * both under one lock_all epoch */
        long *extra = malloc(16 * sizeof(long)), *extra2 = malloc(16 * sizeof(long));
        MPI_Aint ea, eaddr[64];
        for (int i = 0; i < 16; i++) extra[i] = extra2[i] = -1;
        CHECK_MPI(MPI_Win_attach(win, extra, 16 * sizeof(long)));
        CHECK_MPI(MPI_Get_address(extra, &ea));
        CHECK_MPI(MPI_Allgather(&ea, 1, MPI_AINT, eaddr, 1, MPI_AINT, MPI_COMM_WORLD));
        int t = (me + 1) % np;
        long v[2] = {value(me, t, 3), value(me, t, 4)};
        CHECK_MPI(MPI_Win_lock_all(0, win));
        CHECK_MPI(MPI_Put(&v[0], 1, MPI_LONG, t, MPI_Aint_add(eaddr[t], 8 * 5), 1, MPI_LONG, win));
        if (win_bytes(t) > 0)
            CHECK_MPI(MPI_Put(&v[1], 1, MPI_LONG, t, MPI_Aint_add(addr[t], 8 * me), 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_unlock_all(win));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        int s = (me + np - 1) % np;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
        CHECK(extra[5] == value(s, me, 3), "second attached region: %ld, expected %ld", extra[5],
              value(s, me, 3));
        if (bytes > 0) {
            long w;
            memcpy(&w, base + 8 * s, 8);
            CHECK(w == value(s, me, 4), "first attached region: %ld, expected %ld", w, value(s, me, 4));
        }
        CHECK_MPI(MPI_Win_unlock(me, win));
        /* detach the second region, attach a third; it is reached at its own address */
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Win_detach(win, extra));
        CHECK_MPI(MPI_Win_attach(win, extra2, 16 * sizeof(long)));
        CHECK_MPI(MPI_Get_address(extra2, &ea));
        CHECK_MPI(MPI_Allgather(&ea, 1, MPI_AINT, eaddr, 1, MPI_AINT, MPI_COMM_WORLD));
        long got = 0;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
        CHECK_MPI(MPI_Put(&v[1], 1, MPI_LONG, t, MPI_Aint_add(eaddr[t], 8 * 15), 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_flush(t, win));
        CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, t, MPI_Aint_add(eaddr[t], 8 * 15), 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_unlock(t, win));
        CHECK(got == v[1], "third attached region: read back %ld, expected %ld", got, v[1]);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Win_detach(win, extra2));
        free(extra);
        free(extra2);
        if (bytes)
            CHECK_MPI(MPI_Win_detach(win, base));
    }
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set MPI_WIN_NULL");
    free(mem);

    /* 0 bytes on every rank */
    if (flavor != FL_DYNAMIC) {
        char *b0 = NULL;
        if (flavor == FL_CREATE) CHECK_MPI(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        else CHECK_MPI(MPI_Win_allocate(0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b0, &win));
        check_attrs(win, flavor, b0, 0, 1, MPI_COMM_WORLD);
        CHECK_MPI(MPI_Win_fence(0, win));
        CHECK_MPI(MPI_Win_fence(0, win));
        CHECK_MPI(MPI_Win_free(&win));
    }
}

/* Shared windows on the node communicator. */
static void test_shared(int noncontig, int all_empty)
{
    MPI_Comm node;
    int nr, nn;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CHECK_MPI(MPI_Comm_rank(node, &nr));
    CHECK_MPI(MPI_Comm_size(node, &nn));
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        CHECK_MPI(MPI_Info_create(&info));
        CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    }
    MPI_Aint bytes = all_empty ? 0 : win_bytes(nr);
    char *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    CHECK_MPI(MPI_Win_allocate_shared_c(bytes, 8, info, node, &base, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    check_attrs(win, FL_SHARED, base, bytes, 8, node);

    char *ptr[64];
    MPI_Aint sz[64];
    CHECK(nn <= 64, "too many ranks on a node");
    int lowest = -1;
    for (int r = 0; r < nn; r++) {
        MPI_Aint du = 0;
        CHECK_MPI(MPI_Win_shared_query_c(win, r, &sz[r], &du, &ptr[r]));
        MPI_Aint want = all_empty ? 0 : win_bytes(r);
        CHECK(sz[r] == want, "shared query of rank %d: size %ld, expected %ld", r, (long)sz[r], (long)want);
        CHECK(du == 8, "shared query of rank %d: disp_unit %ld, expected 8", r, (long)du);
        if (want > 0 && lowest < 0)
            lowest = r;
    }
    CHECK(ptr[nr] == base || bytes == 0, "shared query of the own rank: %p, baseptr %p", ptr[nr], base);
    if (!noncontig)
        for (int r = 0, prev = -1; r < nn; r++) {
            if (sz[r] == 0) continue;
            if (prev >= 0)
                CHECK(ptr[r] == ptr[prev] + sz[prev], "contiguous shared window: rank %d's segment "
                      "starts at %p, rank %d's ends at %p", r, ptr[r], prev, ptr[prev] + sz[prev]);
            prev = r;
        }
    MPI_Aint psz = -1;
    int pdu = 0;
    char *pptr = NULL;
    CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &psz, &pdu, &pptr));
    if (lowest < 0)
        CHECK(psz == 0, "MPI_PROC_NULL query with all segments empty: size %ld", (long)psz);
    else
        CHECK(psz == sz[lowest] && pptr == ptr[lowest] && pdu == 8, "MPI_PROC_NULL query: size %ld "
              "at %p, expected rank %d's %ld at %p", (long)psz, pptr, lowest, (long)sz[lowest], ptr[lowest]);

    if (!all_empty) {
        /* stores into the own segment, read by everyone through their pointers; then stores into
         * the next rank's segment, read by its owner */
        CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
        for (int round = 0; round < 2; round++) {
            int t = round == 0 ? nr : (nr + 1) % nn;
            if (sz[t] > 0)
                for (int s = 0; s < nn; s++) {
                    long v = value(nr, s, 10 + round);
                    memcpy(ptr[t] + 8 * s, &v, 8);
                }
            CHECK_MPI(MPI_Win_sync(win));
            CHECK_MPI(MPI_Barrier(node));
            CHECK_MPI(MPI_Win_sync(win));
            for (int r = 0; r < nn; r++) {
                int writer = round == 0 ? r : (r + nn - 1) % nn;
                if (sz[r] == 0 || (round == 1 && r != nr)) continue;
                long v;
                memcpy(&v, ptr[r] + 8 * nr, 8);
                CHECK(v == value(writer, nr, 10 + round), "load from rank %d's segment (round %d): %ld, "
                      "expected %ld", r, round, v, value(writer, nr, 10 + round));
            }
            CHECK_MPI(MPI_Barrier(node));
        }
        CHECK_MPI(MPI_Win_unlock_all(win));
    }
    CHECK_MPI(MPI_Win_free(&win));
    if (info != MPI_INFO_NULL)
        CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPI_Comm_free(&node));
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv, &me, &np);
    CHECK(np <= 64, "at most 64 ranks");
    test_flavor(FL_CREATE);
    test_flavor(FL_ALLOCATE);
    test_flavor(FL_DYNAMIC);
    test_shared(0, 0);
    test_shared(1, 0);
    test_shared(0, 1);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        printf("rma_win: flavors, attributes, shared queries and dynamic windows passed on %d ranks\n", np);
    MPI_Finalize();
    return 0;
}
