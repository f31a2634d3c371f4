/* mempi-test: np=1,2 timeout=30 */
/* fortran_convert.c -- C-side handle and status conversions for Fortran.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_Xxx_c2f/f2c must round-trip every kind of handle (identities for the integer handles of
 * the MPICH ABI), MPI_Status_c2f/f2c must copy the five fields, MPI_F_STATUS_IGNORE must be
 * refused, and the Fortran entry points must be reachable under the usual compiler names
 * (called here directly, as a Fortran program would).
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fortran entry points, as gfortran would call them. */
void mpi_comm_rank_(MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *ierror);
void MPI_COMM_SIZE(MPI_Fint *comm, MPI_Fint *size, MPI_Fint *ierror);
void pmpi_comm_rank__(MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *ierror);
double mpi_wtime_(void);
void mpi_comm_set_name_(MPI_Fint *comm, const char *name, MPI_Fint *ierror, size_t len);
void mpi_comm_get_name_(MPI_Fint *comm, char *name, MPI_Fint *len, MPI_Fint *ierror, size_t nlen);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "comm round trip");
    CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) == 0x44000000, "comm_c2f value");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "type round trip");
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "op round trip");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "group round trip");
    CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL, "info round trip");
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN, "eh");
    CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "request");
    CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "win round trip");
    CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC, "message");
    CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0 && MPI_File_f2c(0) == MPI_FILE_NULL, "file null");

    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(dup)) == dup, "dynamic comm round trip");

    MPI_Status st = {0}, st2;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    st.MPI_SOURCE = 3; st.MPI_TAG = 77; st.MPI_ERROR = MPI_ERR_TRUNCATE;
    CHECK(MPI_Status_c2f(&st, f) == MPI_SUCCESS, "status_c2f");
    CHECK(f[MPI_F_SOURCE] == 3 && f[MPI_F_TAG] == 77 && f[MPI_F_ERROR] == MPI_ERR_TRUNCATE,
          "status_c2f fields");
    memset(&st2, 0, sizeof st2);
    CHECK(MPI_Status_f2c(f, &st2) == MPI_SUCCESS && memcmp(&st, &st2, sizeof st) == 0,
          "status_f2c");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &st2) != MPI_SUCCESS, "f2c refuses ignore");
    CHECK(MPI_Status_c2f(MPI_STATUS_IGNORE, f) != MPI_SUCCESS, "c2f refuses ignore");

    /* Fortran names of the entry points. */
    MPI_Fint fcomm = MPI_Comm_c2f(dup), frank = -1, fsize = -1, ierr = -1;
    mpi_comm_rank_(&fcomm, &frank, &ierr);
    CHECK(ierr == MPI_SUCCESS && frank == rank, "mpi_comm_rank_");
    ierr = -1;
    MPI_COMM_SIZE(&fcomm, &fsize, &ierr);
    CHECK(ierr == MPI_SUCCESS && fsize == size, "MPI_COMM_SIZE");
    frank = -1;
    pmpi_comm_rank__(&fcomm, &frank, &ierr);
    CHECK(frank == rank, "pmpi_comm_rank__");
    CHECK(mpi_wtime_() > 0.0, "mpi_wtime_");

    /* CHARACTER arguments: blank-padded, hidden length, no NUL. */
    char fname[16];
    memcpy(fname, "dupcomm         ", 16);
    mpi_comm_set_name_(&fcomm, fname, &ierr, 16);
    char cname[MPI_MAX_OBJECT_NAME];
    int clen;
    MPI_Comm_get_name(dup, cname, &clen);
    CHECK(strcmp(cname, "dupcomm") == 0 && clen == 7, "set_name trims blanks");
    char out[10];
    MPI_Fint olen = -1;
    memset(out, 'x', sizeof out);
    mpi_comm_get_name_(&fcomm, out, &olen, &ierr, sizeof out);
    CHECK(olen == 7 && memcmp(out, "dupcomm   ", 10) == 0, "get_name pads with blanks");

    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
