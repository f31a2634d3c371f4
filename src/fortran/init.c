/* init.c -- Fortran entry points that differ in shape from C: init, timers, pcontrol, address arithmetic.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_INIT and MPI_INIT_THREAD take no argc/argv in Fortran (C accepts NULL for both).
 * MPI_WTIME/MPI_WTICK and MPI_AINT_ADD/MPI_AINT_DIFF are Fortran functions, not subroutines,
 * so they return their value and have no IERROR.  MPI_PCONTROL takes only the level.
 * MPI_INFO_CREATE_ENV has no argc/argv either.  MPI_FINALIZE also releases the Fortran
 * keyval records (attr.c).  MPI_F_SYNC_REG and MPI_SIZEOF exist only in
 * Fortran.
 */
#include "fortran/fortran.h"

void mp_f_init(MPI_Fint *ierror);
void mp_f_init(MPI_Fint *ierror)
{
    *ierror = PMPI_Init(NULL, NULL);
}
MP_F_EXPORT(mp_f_init, "init", "INIT")

/* After MPI_FINALIZE no attribute callback can run: the keyval records can go. */
void mp_f_finalize(MPI_Fint *ierror);
void mp_f_finalize(MPI_Fint *ierror)
{
    *ierror = PMPI_Finalize();
    if (*ierror == MPI_SUCCESS)
        mp_f_keyvals_release();
}
MP_F_EXPORT(mp_f_finalize, "finalize", "FINALIZE")

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

/* MPI_F_SYNC_REG(buf): Fortran-only, no IERROR.  Its only job is to be an external call the
 * compiler cannot see into, so that a register copy of buf is written back before it and
 * reloaded after it (around nonblocking operations on buf); the body is empty. */
void mp_f_f_sync_reg(void *buf);
void mp_f_f_sync_reg(void *buf)
{
    (void)buf;
}
MP_F_EXPORT(mp_f_f_sync_reg, "f_sync_reg", "F_SYNC_REG")

/* MPI_SIZEOF(x, size, ierror) exists only in the `mpi` module, as a generic interface over
 * the intrinsic types (src/fortran/mpi.f90) whose specific procedures are these: each ignores
 * its argument (passed by descriptor, any rank; CHARACTER adds a hidden length, unused) and
 * returns the size of one element -- of one character for CHARACTER, and the storage size
 * (16 bytes) for the x87 REAL(KIND=10). */
static void sizeof_out(MPI_Fint *size, MPI_Fint *ierror, MPI_Fint bytes)
{
    *size = bytes;
    if (ierror) *ierror = MPI_SUCCESS;      /* optional in mpi_f08 */
}

void mempi_sizeof_i1_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_i1_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 1); }
void mempi_sizeof_i2_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_i2_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 2); }
void mempi_sizeof_i4_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_i4_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 4); }
void mempi_sizeof_i8_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_i8_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 8); }
void mempi_sizeof_i16_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_i16_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 16); }
void mempi_sizeof_r4_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_r4_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 4); }
void mempi_sizeof_r8_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_r8_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 8); }
void mempi_sizeof_r16_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_r16_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 16); }
void mempi_sizeof_c4_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_c4_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 8); }
void mempi_sizeof_c8_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_c8_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 16); }
void mempi_sizeof_c16_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_c16_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 32); }
void mempi_sizeof_r10_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_r10_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 16); }
void mempi_sizeof_c10_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_c10_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 32); }
void mempi_sizeof_l1_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_l1_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 1); }
void mempi_sizeof_l2_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_l2_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 2); }
void mempi_sizeof_l4_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_l4_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 4); }
void mempi_sizeof_l8_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_l8_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 8); }
void mempi_sizeof_l16_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_l16_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 16); }
void mempi_sizeof_ch1_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_ch1_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 1); }
void mempi_sizeof_ch4_(void *x, MPI_Fint *size, MPI_Fint *ierror) MP_F_EXPORTED;
void mempi_sizeof_ch4_(void *x, MPI_Fint *size, MPI_Fint *ierror) { (void)x; sizeof_out(size, ierror, 4); }
