/* datatype_pack.c -- MPI_Pack/Unpack and the external32 forms.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The native packed format is exactly the datatype layer's packed stream (the bytes of the
 * type's data in type-map order, no header), so MPI_Pack_size is count * size and a message
 * sent as MPI_PACKED can be received with the original type and vice versa.  external32 is
 * the same stream converted element by element to big-endian and the standard's sizes
 * (datatype/signature.c), so its size is not count * size.  Each int-count entry point
 * forwards to a large-count core, which also serves the MPI-4 _c forms.
 */
#include "binding/binding.h"
#include "datatype/engine.h"
#include <string.h>

static int pack_core(const char *F, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                     void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm_h,
                     int external)
{
    mp_comm *comm = NULL;
    mp_datatype *dt;
    int err;
    if (!external && (err = mp_arg_comm(F, comm_h, &comm)))
        return err;
    if ((err = mp_dtarg_nonneg(F, "count", incount)) ||
        (err = mp_dtarg_type(F, "datatype", datatype, 0, &dt)) ||
        (err = mp_dtarg_ptr(F, "position", position)))
        return err;
    size_t bytes = external ? mp_datatype_external_bytes(dt, incount)
                            : mp_datatype_bytes(dt, incount);
    if (*position < 0 || *position > outsize || (MPI_Count)bytes > outsize - *position)
        return mp_error(comm, MPI_ERR_TRUNCATE, F, "%zu bytes do not fit at position %lld of "
                        "an output buffer of %lld bytes", bytes, (long long)*position,
                        (long long)outsize);
    if (bytes && (err = mp_dtarg_ptr(F, "outbuf", outbuf)))
        return err;
    char *out = (char *)outbuf + *position;
    if (external)
        mp_pack_external(inbuf, incount, dt, out);
    else
        mp_pack(inbuf, incount, dt, 0, out, bytes);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

static int unpack_core(const char *F, const void *inbuf, MPI_Count insize, MPI_Count *position,
                       void *outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm_h,
                       int external)
{
    mp_comm *comm = NULL;
    mp_datatype *dt;
    int err;
    if (!external && (err = mp_arg_comm(F, comm_h, &comm)))
        return err;
    if ((err = mp_dtarg_nonneg(F, "count", outcount)) ||
        (err = mp_dtarg_type(F, "datatype", datatype, 0, &dt)) ||
        (err = mp_dtarg_ptr(F, "position", position)))
        return err;
    size_t bytes = external ? mp_datatype_external_bytes(dt, outcount)
                            : mp_datatype_bytes(dt, outcount);
    if (*position < 0 || *position > insize || (MPI_Count)bytes > insize - *position)
        return mp_error(comm, MPI_ERR_TRUNCATE, F, "unpacking %zu bytes at position %lld "
                        "overruns an input buffer of %lld bytes", bytes, (long long)*position,
                        (long long)insize);
    if (bytes && (err = mp_dtarg_ptr(F, "inbuf", inbuf)))
        return err;
    const char *in = (const char *)inbuf + *position;
    if (external)
        mp_unpack_external(in, outbuf, outcount, dt);
    else
        mp_unpack(outbuf, outcount, dt, 0, in, bytes);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

static int size_core(const char *F, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm_h,
                     int external, MPI_Count *size)
{
    mp_comm *comm;
    mp_datatype *dt;
    int err;
    if (!external && (err = mp_arg_comm(F, comm_h, &comm)))
        return err;
    if ((err = mp_dtarg_nonneg(F, "count", incount)) ||
        (err = mp_dtarg_type(F, "datatype", datatype, 0, &dt)) ||
        (err = mp_dtarg_ptr(F, "size", size)))
        return err;
    *size = (MPI_Count)(external ? mp_datatype_external_bytes(dt, incount)
                                 : mp_datatype_bytes(dt, incount));
    return MPI_SUCCESS;
}

static int check_datarep(const char *F, const char *datarep)
{
    if (datarep && strcmp(datarep, "external32") == 0)
        return MPI_SUCCESS;
    return mp_error(NULL, MPI_ERR_ARG, F, "unsupported data representation \"%s\" (only "
                    "\"external32\")", datarep ? datarep : "(null)");
}

static int int_position(const char *F, int *position, MPI_Count *pos)
{
    int err = mp_dtarg_ptr(F, "position", position);
    if (!err)
        *pos = *position;
    return err;
}

static int store_int(const char *F, MPI_Count v, int *out)
{
    if (v > 0x7fffffff)
        return mp_error(NULL, MPI_ERR_COUNT, F, "result %lld does not fit in an int (use the "
                        "_c form)", (long long)v);
    *out = (int)v;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Native
 * ------------------------------------------------------------------------------------------- */
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    static const char *const F = "MPI_Pack";
    MPI_Count pos;
    int err;
    if ((err = int_position(F, position, &pos)) ||
        (err = pack_core(F, inbuf, incount, datatype, outbuf, outsize, &pos, comm, 0)))
        return err;
    *position = (int)pos;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack = PMPI_Pack

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    return pack_core("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm, 0);
}
#pragma weak MPI_Pack_c = PMPI_Pack_c

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    static const char *const F = "MPI_Unpack";
    MPI_Count pos;
    int err;
    if ((err = int_position(F, position, &pos)) ||
        (err = unpack_core(F, inbuf, insize, &pos, outbuf, outcount, datatype, comm, 0)))
        return err;
    *position = (int)pos;
    return MPI_SUCCESS;
}
#pragma weak MPI_Unpack = PMPI_Unpack

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    return unpack_core("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype,
                       comm, 0);
}
#pragma weak MPI_Unpack_c = PMPI_Unpack_c

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char *const F = "MPI_Pack_size";
    MPI_Count s;
    int err;
    if ((err = mp_dtarg_ptr(F, "size", size)) ||
        (err = size_core(F, incount, datatype, comm, 0, &s)))
        return err;
    return store_int(F, s, size);
}
#pragma weak MPI_Pack_size = PMPI_Pack_size

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    return size_core("MPI_Pack_size_c", incount, datatype, comm, 0, size);
}
#pragma weak MPI_Pack_size_c = PMPI_Pack_size_c

/* ---------------------------------------------------------------------------------------------
 * external32
 * ------------------------------------------------------------------------------------------- */
int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    static const char *const F = "MPI_Pack_external";
    MPI_Count pos;
    int err;
    if ((err = check_datarep(F, datarep)) || (err = mp_dtarg_ptr(F, "position", position)))
        return err;
    pos = *position;
    if ((err = pack_core(F, inbuf, incount, datatype, outbuf, outsize, &pos, MPI_COMM_NULL, 1)))
        return err;
    *position = (MPI_Aint)pos;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_external = PMPI_Pack_external

int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    static const char *const F = "MPI_Pack_external_c";
    int err = check_datarep(F, datarep);
    return err ? err : pack_core(F, inbuf, incount, datatype, outbuf, outsize, position,
                                 MPI_COMM_NULL, 1);
}
#pragma weak MPI_Pack_external_c = PMPI_Pack_external_c

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    static const char *const F = "MPI_Unpack_external";
    MPI_Count pos;
    int err;
    if ((err = check_datarep(F, datarep)) || (err = mp_dtarg_ptr(F, "position", position)))
        return err;
    pos = *position;
    if ((err = unpack_core(F, inbuf, insize, &pos, outbuf, outcount, datatype, MPI_COMM_NULL,
                           1)))
        return err;
    *position = (MPI_Aint)pos;
    return MPI_SUCCESS;
}
#pragma weak MPI_Unpack_external = PMPI_Unpack_external

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    static const char *const F = "MPI_Unpack_external_c";
    int err = check_datarep(F, datarep);
    return err ? err : unpack_core(F, inbuf, insize, position, outbuf, outcount, datatype,
                                   MPI_COMM_NULL, 1);
}
#pragma weak MPI_Unpack_external_c = PMPI_Unpack_external_c

int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    static const char *const F = "MPI_Pack_external_size";
    MPI_Count s;
    int err;
    if ((err = check_datarep(F, datarep)) || (err = mp_dtarg_ptr(F, "size", size)) ||
        (err = size_core(F, incount, datatype, MPI_COMM_NULL, 1, &s)))
        return err;
    *size = (MPI_Aint)s;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size

int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    static const char *const F = "MPI_Pack_external_size_c";
    int err = check_datarep(F, datarep);
    return err ? err : size_core(F, incount, datatype, MPI_COMM_NULL, 1, size);
}
#pragma weak MPI_Pack_external_size_c = PMPI_Pack_external_size_c
