/* mempi-test: np=1,2,3,5 timeout=300 */
/* mempi-test: np=2,5 timeout=300 env=MEMPI_CMA=0 */
/* rma_dht.c -- a distributed hash table with compare-and-swap open addressing under lock_all, on allocated and on dynamic windows.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The table is S slots per rank (a key array and a value array in one window), indexed
 * globally; a key's home slot comes from a multiplicative hash and collisions probe linearly
 * across ranks.  Under MPI_Win_lock_all every rank inserts K keys of its own and D keys that
 * every rank inserts too (with different values), all at once: MPI_Compare_and_swap(EMPTY ->
 * key) claims a slot (the fetched old key says whether the slot was free, already this key,
 * or another key: probe on), then MPI_Accumulate(MPI_REPLACE) stores the value and a flush
 * completes it.  The table is about two thirds full, so chains cross ranks and ranks race
 * for the same slots.  After a barrier, in a new epoch, every rank looks up every key
 * (MPI_Get_accumulate with MPI_NO_OP, then MPI_Get of the value) and some absent keys.
 * Checked: every inserted key is found with its value (a shared key: one of the values
 * inserted for it), absent keys are not found, and a scan of the whole table by rank 0
 * finds every key exactly once and nothing else.
 */
#include "rma_common.h"

static int me, np;
enum { S = 48, K = 30, D = 8 };
#define EMPTY 0L

static long own_key(int r, int i) { return (long)r * 1000003L + (long)i * 7 + 1; }
static long shared_key(int i) { return 5000000000L + i; }
static long own_val(long key) { return key * 3 + 1; }
static long shared_val(long key, int r) { return key * 10 + r; }

static long home(long key, long nslots)
{
    unsigned long h = (unsigned long)key * 0x9E3779B97F4A7C15UL;
    return (long)((h >> 17) % (unsigned long)nslots);
}

/* Displacement of the key (what = 0) or value (what = 1) of global slot g. */
static MPI_Aint slot_disp(const rma_win *w, long g, int what, int *owner)
{
    *owner = (int)(g / S);
    return rma_disp(w, *owner, ((long)what * S + g % S) * (MPI_Aint)sizeof(long));
}

static long insert(const rma_win *w, long key, long val)
{
    long nslots = (long)S * np, g = home(key, nslots), probes = 0;
    for (;;) {
        int owner;
        long old = -1, empty = EMPTY;
        MPI_Aint kd = slot_disp(w, g, 0, &owner);
        CHECK_MPI(MPI_Compare_and_swap(&key, &empty, &old, MPI_LONG, owner, kd, w->win));
        CHECK_MPI(MPI_Win_flush(owner, w->win));
        if (old == EMPTY || old == key) {
            MPI_Aint vd = slot_disp(w, g, 1, &owner);
            CHECK_MPI(MPI_Accumulate(&val, 1, MPI_LONG, owner, vd, 1, MPI_LONG, MPI_REPLACE, w->win));
            CHECK_MPI(MPI_Win_flush(owner, w->win));
            return probes;
        }
        probes++;
        CHECK(probes < nslots, "insert of %ld: table full after %ld probes", key, probes);
        g = (g + 1) % nslots;
    }
}

/* 1 and the value if key is in the table. */
static int lookup(const rma_win *w, long key, long *val)
{
    long nslots = (long)S * np, g = home(key, nslots);
    for (long probes = 0; probes < nslots; probes++) {
        int owner;
        long k = -1;
        MPI_Aint kd = slot_disp(w, g, 0, &owner);
        CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_LONG, &k, 1, MPI_LONG, owner, kd, 1, MPI_LONG,
                                     MPI_NO_OP, w->win));
        CHECK_MPI(MPI_Win_flush(owner, w->win));
        if (k == EMPTY) return 0;
        if (k == key) {
            CHECK_MPI(MPI_Get(val, 1, MPI_LONG, owner, slot_disp(w, g, 1, &owner), 1, MPI_LONG, w->win));
            CHECK_MPI(MPI_Win_flush(owner, w->win));
            return 1;
        }
        g = (g + 1) % nslots;
    }
    return 0;
}

static void run(int flavor)
{
    rma_win w;
    const char *fn = rma_flavor_name[flavor];
    rma_win_open(&w, flavor, 2 * S * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD);
    RMA_LOCAL_BEGIN(&w, me);
    memset(w.base, 0, 2 * S * sizeof(long));
    RMA_LOCAL_END(&w, me);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    long probes = 0;
    CHECK_MPI(MPI_Win_lock_all(0, w.win));
    for (int i = 0; i < K + D; i++) {
        /* interleave own and shared keys, shared ones in a rank-dependent order */
        long key = i < K ? own_key(me, i) : shared_key((i - K + me) % D);
        probes += insert(&w, key, i < K ? own_val(key) : shared_val(key, me));
    }
    CHECK_MPI(MPI_Win_unlock_all(w.win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    CHECK_MPI(MPI_Win_lock_all(0, w.win));
    for (int r = 0; r < np; r++)
        for (int i = 0; i < K; i++) {
            long key = own_key(r, i), v = -1;
            CHECK(lookup(&w, key, &v), "%s: key %ld of rank %d not found", fn, key, r);
            CHECK(v == own_val(key), "%s: key %ld has value %ld, expected %ld", fn, key, v, own_val(key));
        }
    for (int i = 0; i < D; i++) {
        long key = shared_key(i), v = -1;
        CHECK(lookup(&w, key, &v), "%s: shared key %ld not found", fn, key);
        CHECK(v >= key * 10 && v < key * 10 + np, "%s: shared key %ld has value %ld, inserted by "
              "no rank", fn, key, v);
    }
    for (int i = 0; i < 10; i++) {
        long key = own_key(np + me, i), v;
        CHECK(!lookup(&w, key, &v), "%s: absent key %ld found", fn, key);
    }
    CHECK_MPI(MPI_Win_unlock_all(w.win));

    if (me == 0) {
        long *keys = malloc(sizeof(long) * S * (size_t)np), found = 0;
        CHECK_MPI(MPI_Win_lock_all(0, w.win));
        for (int r = 0; r < np; r++)
            CHECK_MPI(MPI_Get(keys + (long)r * S, S, MPI_LONG, r, rma_disp(&w, r, 0), S, MPI_LONG, w.win));
        CHECK_MPI(MPI_Win_unlock_all(w.win));
        for (long a = 0; a < (long)S * np; a++) {
            if (keys[a] == EMPTY) continue;
            found++;
            int known = keys[a] >= shared_key(0) && keys[a] < shared_key(D);
            for (int r = 0; r < np && !known; r++)
                known = keys[a] >= own_key(r, 0) && keys[a] <= own_key(r, K - 1)
                        && (keys[a] - own_key(r, 0)) % 7 == 0;
            CHECK(known, "%s: slot %ld holds %ld, a key nobody inserted", fn, a, keys[a]);
            for (long b = a + 1; b < (long)S * np; b++)
                CHECK(keys[b] != keys[a], "%s: key %ld in slots %ld and %ld", fn, keys[a], a, b);
        }
        CHECK(found == (long)K * np + D, "%s: %ld keys in the table, expected %ld", fn, found,
              (long)K * np + D);
        free(keys);
    }
    long all = 0;
    CHECK_MPI(MPI_Reduce(&probes, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (me == 0)
        printf("rma_dht: %s window: %ld keys in %ld slots, %ld collisions probed past\n", fn,
               (long)K * np + D, (long)S * np, all);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    rma_win_close(&w);
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv, &me, &np);
    run(FL_ALLOCATE);
    run(FL_DYNAMIC);
    MPI_Finalize();
    return 0;
}
