/* hdf5_rw.c -- parallel HDF5 (Debian's build for MPICH) writing and reading 2-D datasets.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Built against MPICH's headers and Debian's parallel HDF5 for MPICH and run on MemPI through
 * the MPICH ABI (tests/io/check-hdf5), so HDF5's MPI-IO driver is a real client of MemPI's
 * I/O layer.  `hdf5_rw par FILE` creates FILE collectively on every rank of MPI_COMM_WORLD
 * (H5Pset_fapl_mpio) and writes six 41 x 29 datasets: contiguous and chunked layouts, each
 * written with hyperslab selections in collective mode and in independent mode, from a 2-D
 * block distribution over an MPI_Dims_create grid (uneven blocks) and from a column-interleaved
 * one (rank r owns columns r, r + np, ...: strided selections whose pieces interleave with
 * every other rank's).  The memory side is a halo'd buffer (a noncontiguous memory
 * selection).  It closes the file, reopens it read-only and reads every dataset back: the
 * whole dataset collectively on every rank, and another rank's block independently; every
 * value is checked against the formula.  `hdf5_rw ref FILE` (one process) writes the same
 * datasets serially through HDF5's default POSIX driver, without MPI-IO: the reference that
 * the script compares with h5diff and h5dump.  Exit status 0 only when every value is right.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 41, NY = 29, HALO = 2 };

typedef struct dset {
    const char *name;
    int chunked;                      /* chunked layout (else contiguous) */
    int collective;                   /* H5FD_MPIO_COLLECTIVE (else independent) */
    int strided;                      /* column-interleaved ownership (else 2-D blocks) */
    int is_double;                    /* H5T_NATIVE_DOUBLE (else H5T_NATIVE_INT) */
    hsize_t chunk[2];
} dset;

static const dset sets[] = {
    { "contig_coll", 0, 1, 0, 1, { 0, 0 } },
    { "chunked_coll", 1, 1, 0, 0, { 8, 6 } },
    { "contig_ind", 0, 0, 0, 0, { 0, 0 } },
    { "chunked_ind", 1, 0, 0, 1, { 5, 7 } },
    { "strided_coll", 0, 1, 1, 0, { 0, 0 } },
    { "strided_ind", 1, 0, 1, 0, { 16, 4 } },
};
enum { NSETS = sizeof sets / sizeof sets[0] };

static int failures;

#define TRY(x) do { if ((x) < 0) { fprintf(stderr, "%s:%d: %s failed\n", __FILE__, \
                        __LINE__, #x); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

static double value(int k, hsize_t i, hsize_t j)
{
    return (double)(k + 1) * 100000.0 + (double)i * 100.0 + (double)j + (sets[k].is_double ? 0.25 : 0);
}

/* The part of the array rank r of np owns for set k: start, count, stride. */
static void part(int k, int r, int np, hsize_t start[2], hsize_t count[2], hsize_t stride[2])
{
    if (sets[k].strided) {
        start[0] = 0, count[0] = NX, stride[0] = 1;
        start[1] = (hsize_t)r, stride[1] = (hsize_t)np;
        count[1] = (hsize_t)r < NY ? (NY - (hsize_t)r + (hsize_t)np - 1) / (hsize_t)np : 0;
        return;
    }
    int dims[2] = { 0, 0 };
    MPI_Dims_create(np, 2, dims);
    int pr = r / dims[1], pc = r % dims[1];
    hsize_t n[2] = { NX, NY };
    int p[2] = { pr, pc };
    for (int d = 0; d < 2; d++) {
        hsize_t lo = n[d] * (hsize_t)p[d] / (hsize_t)dims[d];
        hsize_t hi = n[d] * (hsize_t)(p[d] + 1) / (hsize_t)dims[d];
        start[d] = lo, count[d] = hi - lo, stride[d] = 1;
    }
}

/* A halo'd memory buffer for count[0] x count[1] elements; its space selects the interior. */
static hid_t mem_space(const hsize_t count[2])
{
    hsize_t dims[2] = { count[0] + 2 * HALO, count[1] + 2 * HALO };
    hsize_t off[2] = { HALO, HALO };
    hid_t s = H5Screate_simple(2, dims, NULL);
    TRY(s);
    if (count[0] && count[1])
        TRY(H5Sselect_hyperslab(s, H5S_SELECT_SET, off, NULL, count, NULL));
    else
        TRY(H5Sselect_none(s));
    return s;
}

static size_t halo_elems(const hsize_t count[2])
{
    return (size_t)(count[0] + 2 * HALO) * (size_t)(count[1] + 2 * HALO);
}

static hid_t file_space(int k, int r, int np, hsize_t count_out[2])
{
    hsize_t dims[2] = { NX, NY }, start[2], count[2], stride[2];
    part(k, r, np, start, count, stride);
    hid_t s = H5Screate_simple(2, dims, NULL);
    TRY(s);
    if (count[0] && count[1])
        TRY(H5Sselect_hyperslab(s, H5S_SELECT_SET, start, stride, count, NULL));
    else
        TRY(H5Sselect_none(s));
    count_out[0] = count[0], count_out[1] = count[1];
    return s;
}

static hid_t create_set(hid_t file, int k)
{
    hsize_t dims[2] = { NX, NY };
    hid_t space = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (sets[k].chunked)
        TRY(H5Pset_chunk(dcpl, 2, sets[k].chunk));
    hid_t d = H5Dcreate2(file, sets[k].name, sets[k].is_double ? H5T_NATIVE_DOUBLE :
                         H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    TRY(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

static void put(void *buf, int k, size_t at, double v)
{
    if (sets[k].is_double)
        ((double *)buf)[at] = v;
    else
        ((int *)buf)[at] = (int)v;
}

static double get(const void *buf, int k, size_t at)
{
    return sets[k].is_double ? ((const double *)buf)[at] : ((const int *)buf)[at];
}

/* Fills (or checks) the interior of a halo'd buffer with rank r's part of set k. */
static void fill_or_check(void *buf, int k, int r, int np, int check, const char *what)
{
    hsize_t start[2], count[2], stride[2];
    part(k, r, np, start, count, stride);
    size_t w = (size_t)count[1] + 2 * HALO;
    for (hsize_t a = 0; a < count[0]; a++)
        for (hsize_t b = 0; b < count[1]; b++) {
            size_t at = (size_t)(a + HALO) * w + (size_t)(b + HALO);
            double v = value(k, start[0] + a * stride[0], start[1] + b * stride[1]);
            if (!check) {
                put(buf, k, at, v);
            } else if (get(buf, k, at) != v && failures++ < 10) {
                fprintf(stderr, "%s %s: element (%llu,%llu) is %g, expected %g\n", what,
                        sets[k].name, (unsigned long long)(start[0] + a * stride[0]),
                        (unsigned long long)(start[1] + b * stride[1]), get(buf, k, at), v);
            }
        }
}

static void write_parallel(const char *name, int rank, int np)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    TRY(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    TRY(file);
    for (int k = 0; k < NSETS; k++) {
        hid_t d = create_set(file, k);
        hsize_t count[2];
        hid_t fs = file_space(k, rank, np, count), ms = mem_space(count);
        void *buf = calloc(halo_elems(count), sizeof(double));
        fill_or_check(buf, k, rank, np, 0, NULL);
        hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
        TRY(H5Pset_dxpl_mpio(dxpl, sets[k].collective ? H5FD_MPIO_COLLECTIVE
                                                           : H5FD_MPIO_INDEPENDENT));
        TRY(H5Dwrite(d, sets[k].is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT, ms, fs,
                         dxpl, buf));
        H5Pclose(dxpl);
        free(buf);
        H5Sclose(ms);
        H5Sclose(fs);
        TRY(H5Dclose(d));
    }
    TRY(H5Fclose(file));
    H5Pclose(fapl);
}

static void read_parallel(const char *name, int rank, int np)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    TRY(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t file = H5Fopen(name, H5F_ACC_RDONLY, fapl);
    TRY(file);
    for (int k = 0; k < NSETS; k++) {
        hid_t d = H5Dopen2(file, sets[k].name, H5P_DEFAULT);
        TRY(d);
        hid_t type = sets[k].is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT;
        /* the whole dataset, collectively, on every rank */
        hid_t coll = H5Pcreate(H5P_DATASET_XFER), ind = H5Pcreate(H5P_DATASET_XFER);
        TRY(H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE));
        TRY(H5Pset_dxpl_mpio(ind, H5FD_MPIO_INDEPENDENT));
        double *all = calloc((size_t)NX * NY, sizeof(double));
        TRY(H5Dread(d, type, H5S_ALL, H5S_ALL, coll, all));
        for (hsize_t i = 0; i < NX; i++)
            for (hsize_t j = 0; j < NY; j++)
                if (get(all, k, (size_t)(i * NY + j)) != value(k, i, j) && failures++ < 10)
                    fprintf(stderr, "collective read %s: element (%llu,%llu) is %g, expected "
                            "%g\n", sets[k].name, (unsigned long long)i, (unsigned long long)j,
                            get(all, k, (size_t)(i * NY + j)), value(k, i, j));
        free(all);
        /* the next rank's part, independently, into a halo'd buffer */
        int other = (rank + 1) % np;
        hsize_t count[2];
        hid_t fs = file_space(k, other, np, count), ms = mem_space(count);
        void *buf = calloc(halo_elems(count), sizeof(double));
        TRY(H5Dread(d, type, ms, fs, ind, buf));
        fill_or_check(buf, k, other, np, 1, "independent read");
        free(buf);
        H5Sclose(ms);
        H5Sclose(fs);
        H5Pclose(coll);
        H5Pclose(ind);
        TRY(H5Dclose(d));
    }
    TRY(H5Fclose(file));
    H5Pclose(fapl);
}

/* The reference: the same datasets, written whole by one process with the POSIX driver. */
static void write_reference(const char *name)
{
    hid_t file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    TRY(file);
    for (int k = 0; k < NSETS; k++) {
        hid_t d = create_set(file, k);
        double *all = calloc((size_t)NX * NY, sizeof(double));
        for (hsize_t i = 0; i < NX; i++)
            for (hsize_t j = 0; j < NY; j++)
                put(all, k, (size_t)(i * NY + j), value(k, i, j));
        TRY(H5Dwrite(d, sets[k].is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT, H5S_ALL,
                         H5S_ALL, H5P_DEFAULT, all));
        free(all);
        TRY(H5Dclose(d));
    }
    TRY(H5Fclose(file));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc != 3 || (strcmp(argv[1], "par") && strcmp(argv[1], "ref"))) {
        if (rank == 0)
            fprintf(stderr, "usage: hdf5_rw par|ref FILE\n");
        MPI_Finalize();
        return 2;
    }
    if (strcmp(argv[1], "ref") == 0) {
        if (rank == 0)
            write_reference(argv[2]);
    } else {
        write_parallel(argv[2], rank, np);
        read_parallel(argv[2], rank, np);
    }
    int bad = failures, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s at np %d: %s (%d wrong values)\n", argv[1], argv[2], np,
               any ? "FAIL" : "ok", any);
    MPI_Finalize();
    return any ? 1 : 0;
}
