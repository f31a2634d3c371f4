/* init.c -- Fortran entry points that differ in shape from C: init, timers, pcontrol, address arithmetic.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_INIT and MPI_INIT_THREAD take no argc/argv in Fortran (C accepts NULL for both).
 * MPI_WTIME/MPI_WTICK and MPI_AINT_ADD/MPI_AINT_DIFF are Fortran functions, not subroutines,
 * so they return their value and have no IERROR.  MPI_PCONTROL takes only the level.
 * MPI_INFO_CREATE_ENV has no argc/argv either.
 */
#include "fortran/fortran.h"

void mp_f_init(MPI_Fint *ierror);
void mp_f_init(MPI_Fint *ierror)
{
    *ierror = PMPI_Init(NULL, NULL);
}
MP_F_EXPORT(mp_f_init, "init", "INIT")

void mp_f_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);
void mp_f_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    *ierror = PMPI_Init_thread(NULL, NULL, *required, provided);
}
MP_F_EXPORT(mp_f_init_thread, "init_thread", "INIT_THREAD")

double mp_f_wtime(void);
double mp_f_wtime(void)
{
    return PMPI_Wtime();
}
MP_F_EXPORT(mp_f_wtime, "wtime", "WTIME")

double mp_f_wtick(void);
double mp_f_wtick(void)
{
    return PMPI_Wtick();
}
MP_F_EXPORT(mp_f_wtick, "wtick", "WTICK")

void mp_f_pcontrol(MPI_Fint *level, MPI_Fint *ierror);
void mp_f_pcontrol(MPI_Fint *level, MPI_Fint *ierror)
{
    *ierror = PMPI_Pcontrol(*level);
}
MP_F_EXPORT(mp_f_pcontrol, "pcontrol", "PCONTROL")

MPI_Aint mp_f_aint_add(MPI_Aint *base, MPI_Aint *disp);
MPI_Aint mp_f_aint_add(MPI_Aint *base, MPI_Aint *disp)
{
    return PMPI_Aint_add(*base, *disp);
}
MP_F_EXPORT(mp_f_aint_add, "aint_add", "AINT_ADD")

MPI_Aint mp_f_aint_diff(MPI_Aint *addr1, MPI_Aint *addr2);
MPI_Aint mp_f_aint_diff(MPI_Aint *addr1, MPI_Aint *addr2)
{
    return PMPI_Aint_diff(*addr1, *addr2);
}
MP_F_EXPORT(mp_f_aint_diff, "aint_diff", "AINT_DIFF")

void mp_f_info_create_env(MPI_Fint *info, MPI_Fint *ierror);
void mp_f_info_create_env(MPI_Fint *info, MPI_Fint *ierror)
{
    *ierror = PMPI_Info_create_env(0, NULL, (MPI_Info *)info);
}
MP_F_EXPORT(mp_f_info_create_env, "info_create_env", "INFO_CREATE_ENV")
