/* strings.c -- CHARACTER arguments and LOGICAL arrays between Fortran and C.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A Fortran CHARACTER*(n) argument is n bytes, blank-padded, with n passed as a hidden size_t
 * after the declared arguments; it is never NUL-terminated.  Input strings are copied to a
 * malloc'd C string with the trailing blanks dropped (the MPI standard says trailing blanks
 * of names and info keys/values are not significant; info calls also drop leading ones).
 * Output strings are written by the C function into a scratch buffer large enough for any
 * MPI string, then copied into the Fortran variable, truncated to its length and padded.
 * MPI_INFO_GET_STRING is written here by hand: its BUFLEN means something else in Fortran.
 */
#include "fortran/fortran.h"
#include "core/core.h"
#include <stdlib.h>
#include <string.h>

char *mp_f_str_in(const char *f, size_t flen, int trim_leading)
{
    size_t lo = 0, hi = flen;
    while (hi > 0 && f[hi - 1] == ' ') hi--;
    if (trim_leading)
        while (lo < hi && f[lo] == ' ') lo++;
    char *c = mp_malloc(hi - lo + 1);
    memcpy(c, f + lo, hi - lo);
    c[hi - lo] = '\0';
    return c;
}

void mp_f_str_out(char *f, size_t flen, const char *c)
{
    size_t n = strlen(c);
    if (n > flen) n = flen;
    memcpy(f, c, n);
    memset(f + n, ' ', flen - n);
}

char *mp_f_str_tmp(size_t flen, size_t minimum)
{
    size_t n = flen > minimum ? flen : minimum;
    if (n < MPI_MAX_LIBRARY_VERSION_STRING) n = MPI_MAX_LIBRARY_VERSION_STRING;
    return mp_calloc(n + 1, 1);
}

int *mp_f_logicals_in(const MPI_Fint *f, int n)
{
    int *c = mp_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) c[i] = mp_f_is_true(&f[i]);
    return c;
}

void mp_f_logicals_out(MPI_Fint *f, const int *c, int n)
{
    for (int i = 0; i < n; i++) f[i] = mp_f_logical(c[i]);
}

int mp_f_cartdim(MPI_Comm comm)
{
    int kind = MPI_UNDEFINED, ndims = 0;
    /* Ask the topology kind first: Cartdim_get on a non-Cartesian communicator would raise
     * an error before MPI_Cart_sub gets to report it with its own name. */
    if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS || kind != MPI_CART) return 0;
    if (PMPI_Cartdim_get(comm, &ndims) != MPI_SUCCESS || ndims < 0) return 0;
    return ndims;
}

/* MPI_INFO_GET_STRING: in Fortran BUFLEN counts characters, with no terminator, both on entry
 * (how many VALUE may take) and on return (the value's length); BUFLEN 0 asks for the length
 * only and leaves VALUE alone, as does a key that is not there. */
void mp_f_info_get_string(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value,
                          MPI_Fint *flag, MPI_Fint *ierror, size_t key_len, size_t value_len);
void mp_f_info_get_string(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value,
                          MPI_Fint *flag, MPI_Fint *ierror, size_t key_len, size_t value_len)
{
    char *key_c = mp_f_str_in(key, key_len, 1);
    int room = *buflen, clen = room > 0 ? room + 1 : 0, found = 0;
    char *value_c = mp_calloc((size_t)clen + 1, 1);
    int err = room < 0 ? PMPI_Info_get_string(*info, key_c, &room, value_c, &found)
                       : PMPI_Info_get_string(*info, key_c, &clen, value_c, &found);
    if (err == MPI_SUCCESS && found) {
        if (room > 0)
            mp_f_str_out(value, (size_t)room < value_len ? (size_t)room : value_len, value_c);
        *buflen = clen - 1;
    }
    free(key_c);
    free(value_c);
    *flag = mp_f_logical(err == MPI_SUCCESS && found);
    *ierror = err;
}
MP_F_EXPORT(mp_f_info_get_string, "info_get_string", "INFO_GET_STRING")
