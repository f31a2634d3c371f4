/* mpich.c -- the MPICH-internal entry points that MPICH's own C++ binding library calls.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A C++ program built with Debian's mpicxx.mpich that uses the MPI:: classes loads MPICH's
 * libmpichcxx.so.12, and on MemPI (lib/ on LD_LIBRARY_PATH) that library runs on top of
 * libmpi.so.12 like any other MPICH-built code: its classes are inline wrappers over the C
 * functions.  Where C++ callbacks are involved it also calls three MPICH internals, which
 * must exist here or the program dies with "undefined symbol" at its first user op, error
 * handler or keyval:
 *
 *   MPII_Op_set_cxx(op, caller)         the op's function is a C++ one; call it as
 *                                       caller(in, inout, count, type, fn)
 *   MPII_Errhandler_set_cxx(eh, caller) the handler's function is a C++ one; call it as
 *                                       caller(kind, &handle, &code, fn)
 *   MPII_Keyval_set_proxy(keyval, copy, delete)
 *                                       the keyval's callbacks are C++ ones; call them as
 *                                       copy(fn, handle, keyval, extra, kind, in, out, flag)
 *                                       and delete(fn, handle, keyval, kind, value, extra)
 *
 * (MemPI ships no libmpichcxx.so.12 of its own: MemPI has no C++ binding to serve the MPI::
 * classes with, and MPICH's library, given these three, needs nothing else from MPICH.)
 * Each records the caller with the object; the layers that run callbacks use it.  An invalid
 * handle is ignored, as in MPICH.  MPICH's libmpichfort.so.12 calls other internals; MemPI
 * ships its own libmpichfort.so.12 instead (src/fortran/mpich/mpichfort.c).
 */
#include "binding/binding.h"

#define MP_MPICH_EXPORT __attribute__((visibility("default")))

MP_MPICH_EXPORT void MPII_Op_set_cxx(MPI_Op op, void (*caller)(void));
void MPII_Op_set_cxx(MPI_Op op, void (*caller)(void))
{
    mp_op_set_cxx_call(op, caller);
}

MP_MPICH_EXPORT void MPII_Errhandler_set_cxx(MPI_Errhandler eh, void (*caller)(void));
void MPII_Errhandler_set_cxx(MPI_Errhandler eh, void (*caller)(void))
{
    mp_errhandler_set_caller(eh, (mp_errhandler_caller *)caller);
}

MP_MPICH_EXPORT void MPII_Keyval_set_proxy(int keyval, mp_attr_copy_proxy *copy,
                                           mp_attr_delete_proxy *del);
void MPII_Keyval_set_proxy(int keyval, mp_attr_copy_proxy *copy, mp_attr_delete_proxy *del)
{
    mp_keyval_set_proxy(keyval, copy, del);
}
