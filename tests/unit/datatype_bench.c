/* mempi-test: skip (benchmark: prints GB/s, run by hand) */
/* datatype_bench.c -- pack bandwidth of strided vectors against memcpy (not run by the suite).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Packs vector(1e6, 1, 2, MPI_DOUBLE) and vector(1e4, 64, 128, MPI_DOUBLE) with MPI_Pack and
 * reports GB/s of packed bytes next to memcpy of the same number of bytes (the bytes touched).
 * The same source builds against any MPI, so MemPI and MPICH can be measured side by side:
 *
 *   build/bin/mpicc -O2 tests/unit/datatype_bench.c -o /tmp/bench_mempi && /tmp/bench_mempi
 *   mpicc.mpich -O2 tests/unit/datatype_bench.c -o /tmp/bench_mpich && /tmp/bench_mpich
 *
 * With -DMEMPI_INTERNAL it calls the engine directly (link libmempi_internal.a), which needs
 * no MPI_Init.
 */
#ifdef MEMPI_INTERNAL
#include "datatype/datatype.h"
#else
#include <mpi.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef struct shape { const char *name; int count, blocklen, stride; } shape;

int main(int argc, char **argv)
{
    static const shape shapes[] = {
        { "vector(1e6, 1, 2, double)", 1000000, 1, 2 },
        { "vector(1e4, 64, 128, double)", 10000, 64, 128 },
        { "vector(1e5, 4, 8, double)", 100000, 4, 8 },
        { "vector(1e5, 2, 3, double)", 100000, 2, 3 },
    };
    int reps = argc > 1 ? atoi(argv[1]) : 30;
#ifndef MEMPI_INTERNAL
    MPI_Init(&argc, &argv);
#else
    mp_datatype_init();
#endif
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const shape *sh = &shapes[s];
        size_t span = ((size_t)(sh->count - 1) * sh->stride + sh->blocklen) * sizeof(double);
        size_t bytes = (size_t)sh->count * sh->blocklen * sizeof(double);
        double *src = malloc(span);
        char *out = malloc(bytes), *out2 = malloc(bytes);
        for (size_t i = 0; i < span / sizeof(double); i++)
            src[i] = (double)i;
        memset(out, 0, bytes);
        memset(out2, 0, bytes);
#ifdef MEMPI_INTERNAL
        mp_datatype *vec = mp_type_hvector(sh->count, sh->blocklen,
                                           (MPI_Aint)sh->stride * sizeof(double),
                                           mp_datatype_get(MPI_DOUBLE));
#else
        MPI_Datatype vec;
        MPI_Type_vector(sh->count, sh->blocklen, sh->stride, MPI_DOUBLE, &vec);
        MPI_Type_commit(&vec);
#endif
        double best_pack = 1e30, best_copy = 1e30;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
#ifdef MEMPI_INTERNAL
            mp_pack(src, 1, vec, 0, out, bytes);
#else
            int pos = 0;
            MPI_Pack(src, 1, vec, out, (int)bytes, &pos, MPI_COMM_WORLD);
#endif
            double t1 = now();
            memcpy(out2, src, bytes);
            double t2 = now();
            if (t1 - t0 < best_pack)
                best_pack = t1 - t0;
            if (t2 - t1 < best_copy)
                best_copy = t2 - t1;
        }
        /* verify */
        const double *p = (const double *)out;
        for (int i = 0; i < sh->count; i += 997)
            for (int j = 0; j < sh->blocklen; j++)
                if (p[(size_t)i * sh->blocklen + j] != (double)((size_t)i * sh->stride + j)) {
                    fprintf(stderr, "%s: wrong data at block %d\n", sh->name, i);
                    return 1;
                }
        printf("%-30s %8.2f MB  pack %6.2f GB/s  memcpy %6.2f GB/s  ratio %.2f\n", sh->name,
               bytes / 1e6, bytes / best_pack / 1e9, bytes / best_copy / 1e9,
               best_copy / best_pack);
#ifdef MEMPI_INTERNAL
        mp_datatype_release(vec);
#else
        MPI_Type_free(&vec);
#endif
        free(src);
        free(out);
        free(out2);
    }
#ifndef MEMPI_INTERNAL
    MPI_Finalize();
#endif
    return 0;
}
