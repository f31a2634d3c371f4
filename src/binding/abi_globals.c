/* abi_globals.c -- data symbols (and MPIR_Dup_fn) that MPICH-compiled programs reference by name.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Most of the MPICH ABI is numbers that programs compile in.  A few sentinels are instead
 * *objects in the library* whose address or value a program loads at run time, so a binary
 * built against MPICH's mpi.h carries undefined references to them and would not even load
 * unless libmpi.so.12 exports the same names:
 *
 *   MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY   const pointers to private markers; the topology code
 *                                       compares argument pointers against them.
 *   MPI_F_STATUS(ES)_IGNORE             Fortran status sentinels seen from C (MPI_Status_f2c
 *                                       etc.).  They are plain pointers: the Fortran binding may
 *                                       re-point them at its own MPI_STATUS_IGNORE storage.
 *   MPI_F08_STATUS(ES)_IGNORE and the   the same for the Fortran 2008 binding, plus the buffer
 *   MPIR_F08_* objects                  sentinels MPI_IN_PLACE/MPI_BOTTOM of mpi_f08.
 *   MPI_T_PVAR_ALL_HANDLES              marker accepted by MPI_T_pvar_start/stop/reset.
 *   MPIR_Dup_fn                         what MPI_DUP_FN, MPI_COMM_DUP_FN, MPI_TYPE_DUP_FN and
 *                                       MPI_WIN_DUP_FN expand to; a program passes its address
 *                                       to the keyval constructors.
 *
 * Every definition gets default visibility from its declaration in mpi.h (MPI_API).  Markers
 * are distinct objects so that each sentinel compares unequal to every other pointer.
 */
#include <mpi.h>

static int mp_unweighted_marker;
static int mp_weights_empty_marker;
int *const MPI_UNWEIGHTED = &mp_unweighted_marker;
int *const MPI_WEIGHTS_EMPTY = &mp_weights_empty_marker;

static MPI_Fint mp_f_status_ignore_marker[MPI_F_STATUS_SIZE];
static MPI_Fint mp_f_statuses_ignore_marker[MPI_F_STATUS_SIZE];
MPI_Fint *MPI_F_STATUS_IGNORE = mp_f_status_ignore_marker;
MPI_Fint *MPI_F_STATUSES_IGNORE = mp_f_statuses_ignore_marker;

MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
int MPIR_F08_MPI_IN_PLACE;
int MPIR_F08_MPI_BOTTOM;
MPI_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;

static char mp_pvar_all_handles_marker;
struct mp_t_pvar_handle *const MPI_T_PVAR_ALL_HANDLES =
    (struct mp_t_pvar_handle *)&mp_pvar_all_handles_marker;

/* The predefined "duplicate" attribute copy callback: the copy gets the same value. */
int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}
