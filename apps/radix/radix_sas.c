/* radix_sas.c -- RADIX, shared-address-space form: parallel radix sort with keys scattered straight into a shared array.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: LSD radix sort of N 32-bit keys in blocks (radix.h), `bits` bits per pass, on
 * two key arrays and a table of histograms in shared windows (MPI_Win_allocate_shared).  A
 * pass: each rank histograms its block into its row of the shared table; node barrier; each
 * rank computes its offsets from all rows and writes every key of its block directly to its
 * final position in the other array -- stores scattered over every rank's memory, the SAS
 * version of the all-to-all exchange; node barrier; the arrays swap roles.  Synchronization:
 * two node barriers (MPI_Win_sync + MPI_Barrier + MPI_Win_sync) per pass.  Runs on one node.
 *
 * usage: mpiexec -n P radix_sas [--n KEYS (default 2^20)] [--bits B (default 8)] [--reps R]
 */
#include "radix.h"
#include "../common/app.h"
#include "../common/keys.h"
#include <stdio.h>

static long nkeys, lo, hi;
static int bits, radix;
static MPI_Comm node;
static uint32_t *a, *b;           /* the two shared arrays of N keys */
static long *hist, *off;          /* shared [rank][digit] histograms; my copy of everyone's offsets */

static keys_part sort(void)
{
    uint32_t *src = a, *dst = b;
    for (int shift = 0; shift < KEY_BITS; shift += bits) {
        keys_histogram(src + lo, hi - lo, shift, bits, hist + (long)app.rank * radix);
        app_node_barrier(node);
        radix_offsets(hist, app.size, radix, off);
        app_phase(APP_RMEM);
        keys_scatter(src + lo, hi - lo, shift, bits, off + (long)app.rank * radix, dst);
        app_phase(APP_LOCAL);
        app_count(0, (long)sizeof(uint32_t) * (hi - lo) * (app.size - 1) / app.size);
        app_node_barrier(node);
        uint32_t *t = src; src = dst; dst = t;
    }
    return (keys_part){ src + lo, hi - lo };
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "radix", "sas");
    radix_options(&nkeys, &bits);
    node = app_one_node();
    radix = 1 << bits;
    lo = app_lo(nkeys, app.size, app.rank);
    hi = app_lo(nkeys, app.size, app.rank + 1);
    a = app_shared(node, (MPI_Aint)(sizeof(uint32_t) * (size_t)(hi - lo)));
    b = app_shared(node, (MPI_Aint)(sizeof(uint32_t) * (size_t)(hi - lo)));
    hist = app_shared(node, (MPI_Aint)(sizeof(long) * (size_t)radix));
    off = app_alloc(sizeof(long) * (size_t)radix * (size_t)app.size);

    char detail[32];
    snprintf(detail, sizeof detail, ", %d bits per pass", bits);
    const char *size = keys_run(nkeys, a + lo, sort, detail);
    free(off);
    return app_finish(size);
}
