/* interop.c -- MPI_File handles in Fortran.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_File is a pointer in the MPICH ABI, and a Fortran file handle is an INTEGER: the index
 * of the pointer in a small table of the files seen so far (0 is MPI_FILE_NULL).  The table
 * only grows; files are few and the index of a file stays valid after it is closed, which is
 * harmless because the pointer then no longer names a live file and the I/O layer rejects
 * it.  The other conversions of src/binding/interop.spec are identities or copies.
 */
#include "binding/binding.h"
#include <pthread.h>

static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_File *files;               /* files[i] is the file of Fortran handle i */
static int nfiles = 1, files_cap;     /* index 0 is MPI_FILE_NULL */

MPI_Fint mp_do_file_c2f(const char *F, MPI_File file)
{
    if (file == MPI_FILE_NULL)
        return 0;
    pthread_mutex_lock(&file_lock);
    int i;
    for (i = 1; i < nfiles; i++)
        if (files[i] == file)
            break;
    if (i == nfiles) {
        if (nfiles >= files_cap) {
            files_cap = files_cap ? 2 * files_cap : 16;
            files = mp_realloc(files, sizeof(MPI_File) * (size_t)files_cap);
        }
        files[nfiles++] = file;
    }
    pthread_mutex_unlock(&file_lock);
    return (MPI_Fint)i;
}

MPI_File mp_do_file_f2c(const char *F, MPI_Fint file)
{
    MPI_File f = MPI_FILE_NULL;
    pthread_mutex_lock(&file_lock);
    if (file > 0 && file < nfiles)
        f = files[file];
    pthread_mutex_unlock(&file_lock);
    return f;
}
