/* convert.c -- MPI_Xxx_c2f / MPI_Xxx_f2c handle conversions and the status conversions.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * In the MPICH ABI every handle but MPI_File is an int whose value is the same in C and in
 * Fortran, so those conversions are identities (they exist because the standard says C code
 * must call them).  MPI_File is a pointer: a Fortran file handle is an index into a small
 * table of the pointers seen so far (0 is MPI_FILE_NULL).  The table only grows; files are
 * few and the index of a file stays valid after it is closed, which is harmless because the
 * pointer then no longer names a live file and the I/O layer rejects it.
 *
 * Status conversions copy the five integers (the layouts are identical), and refuse the
 * "ignore" sentinels as the standard requires.
 */
#include "fortran/fortran.h"
#include "core/core.h"
#include <pthread.h>
#include <string.h>

MPI_Fint PMPI_Comm_c2f(MPI_Comm comm) { return (MPI_Fint)comm; }
#pragma weak MPI_Comm_c2f = PMPI_Comm_c2f
MPI_Comm PMPI_Comm_f2c(MPI_Fint comm) { return (MPI_Comm)comm; }
#pragma weak MPI_Comm_f2c = PMPI_Comm_f2c
MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler errhandler) { return (MPI_Fint)errhandler; }
#pragma weak MPI_Errhandler_c2f = PMPI_Errhandler_c2f
MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint errhandler) { return (MPI_Errhandler)errhandler; }
#pragma weak MPI_Errhandler_f2c = PMPI_Errhandler_f2c
MPI_Fint PMPI_Group_c2f(MPI_Group group) { return (MPI_Fint)group; }
#pragma weak MPI_Group_c2f = PMPI_Group_c2f
MPI_Group PMPI_Group_f2c(MPI_Fint group) { return (MPI_Group)group; }
#pragma weak MPI_Group_f2c = PMPI_Group_f2c
MPI_Fint PMPI_Info_c2f(MPI_Info info) { return (MPI_Fint)info; }
#pragma weak MPI_Info_c2f = PMPI_Info_c2f
MPI_Info PMPI_Info_f2c(MPI_Fint info) { return (MPI_Info)info; }
#pragma weak MPI_Info_f2c = PMPI_Info_f2c
MPI_Fint PMPI_Message_c2f(MPI_Message message) { return (MPI_Fint)message; }
#pragma weak MPI_Message_c2f = PMPI_Message_c2f
MPI_Message PMPI_Message_f2c(MPI_Fint message) { return (MPI_Message)message; }
#pragma weak MPI_Message_f2c = PMPI_Message_f2c
MPI_Fint PMPI_Op_c2f(MPI_Op op) { return (MPI_Fint)op; }
#pragma weak MPI_Op_c2f = PMPI_Op_c2f
MPI_Op PMPI_Op_f2c(MPI_Fint op) { return (MPI_Op)op; }
#pragma weak MPI_Op_f2c = PMPI_Op_f2c
MPI_Fint PMPI_Request_c2f(MPI_Request request) { return (MPI_Fint)request; }
#pragma weak MPI_Request_c2f = PMPI_Request_c2f
MPI_Request PMPI_Request_f2c(MPI_Fint request) { return (MPI_Request)request; }
#pragma weak MPI_Request_f2c = PMPI_Request_f2c
MPI_Fint PMPI_Type_c2f(MPI_Datatype datatype) { return (MPI_Fint)datatype; }
#pragma weak MPI_Type_c2f = PMPI_Type_c2f
MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype) { return (MPI_Datatype)datatype; }
#pragma weak MPI_Type_f2c = PMPI_Type_f2c
MPI_Fint PMPI_Win_c2f(MPI_Win win) { return (MPI_Fint)win; }
#pragma weak MPI_Win_c2f = PMPI_Win_c2f
MPI_Win PMPI_Win_f2c(MPI_Fint win) { return (MPI_Win)win; }
#pragma weak MPI_Win_f2c = PMPI_Win_f2c
MPI_Fint PMPI_Session_c2f(MPI_Session session) { return (MPI_Fint)session; }
#pragma weak MPI_Session_c2f = PMPI_Session_c2f
MPI_Session PMPI_Session_f2c(MPI_Fint session) { return (MPI_Session)session; }
#pragma weak MPI_Session_f2c = PMPI_Session_f2c

/* ---- MPI_File: pointer <-> table index ---- */
static pthread_mutex_t mp_f_file_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_File *mp_f_files;          /* mp_f_files[i] is the file of Fortran handle i */
static int mp_f_nfiles = 1, mp_f_files_cap;   /* index 0 is MPI_FILE_NULL */

MPI_Fint PMPI_File_c2f(MPI_File file)
{
    if (file == MPI_FILE_NULL) return 0;
    pthread_mutex_lock(&mp_f_file_lock);
    int i;
    for (i = 1; i < mp_f_nfiles; i++)
        if (mp_f_files[i] == file) break;
    if (i == mp_f_nfiles) {
        if (mp_f_nfiles >= mp_f_files_cap) {
            mp_f_files_cap = mp_f_files_cap ? 2 * mp_f_files_cap : 16;
            mp_f_files = mp_realloc(mp_f_files, sizeof(MPI_File) * (size_t)mp_f_files_cap);
        }
        mp_f_files[mp_f_nfiles++] = file;
    }
    pthread_mutex_unlock(&mp_f_file_lock);
    return (MPI_Fint)i;
}
#pragma weak MPI_File_c2f = PMPI_File_c2f

MPI_File PMPI_File_f2c(MPI_Fint file)
{
    MPI_File f = MPI_FILE_NULL;
    pthread_mutex_lock(&mp_f_file_lock);
    if (file > 0 && file < mp_f_nfiles) f = mp_f_files[file];
    pthread_mutex_unlock(&mp_f_file_lock);
    return f;
}
#pragma weak MPI_File_f2c = PMPI_File_f2c

/* ---- Status conversions ---- */
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (c_status == MPI_STATUS_IGNORE || c_status == NULL)
        return mp_error(NULL, MPI_ERR_ARG, "MPI_Status_c2f", "c_status is MPI_STATUS_IGNORE");
    if (f_status == NULL)
        return mp_error(NULL, MPI_ERR_ARG, "MPI_Status_c2f", "f_status is NULL");
    memcpy(f_status, c_status, sizeof(MPI_Status));
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_c2f = PMPI_Status_c2f

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (f_status == NULL || f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE)
        return mp_error(NULL, MPI_ERR_ARG, "MPI_Status_f2c", "f_status is MPI_F_STATUS_IGNORE");
    if (c_status == NULL || c_status == MPI_STATUS_IGNORE)
        return mp_error(NULL, MPI_ERR_ARG, "MPI_Status_f2c", "c_status is MPI_STATUS_IGNORE");
    memcpy(c_status, f_status, sizeof(MPI_Status));
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_f2c = PMPI_Status_f2c

int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    if (c_status == MPI_STATUS_IGNORE || c_status == NULL || f08_status == NULL)
        return mp_error(NULL, MPI_ERR_ARG, "MPI_Status_c2f08", "a status argument is an ignore sentinel");
    memcpy(f08_status, c_status, sizeof(MPI_Status));
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_c2f08 = PMPI_Status_c2f08

int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    if (f08_status == NULL || f08_status == MPI_F08_STATUS_IGNORE ||
        c_status == NULL || c_status == MPI_STATUS_IGNORE)
        return mp_error(NULL, MPI_ERR_ARG, "MPI_Status_f082c", "a status argument is an ignore sentinel");
    memcpy(c_status, f08_status, sizeof(MPI_Status));
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_f082c = PMPI_Status_f082c

int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    if (f08_status == NULL || f08_status == MPI_F08_STATUS_IGNORE || f_status == NULL)
        return mp_error(NULL, MPI_ERR_ARG, "MPI_Status_f082f", "a status argument is an ignore sentinel");
    memcpy(f_status, f08_status, sizeof(MPI_F08_status));
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_f082f = PMPI_Status_f082f

int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    if (f_status == NULL || f_status == MPI_F_STATUS_IGNORE || f08_status == NULL)
        return mp_error(NULL, MPI_ERR_ARG, "MPI_Status_f2f08", "a status argument is an ignore sentinel");
    memcpy(f08_status, f_status, sizeof(MPI_F08_status));
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_f2f08 = PMPI_Status_f2f08
