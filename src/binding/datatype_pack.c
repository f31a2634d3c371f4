/* datatype_pack.c -- MPI_Pack/Unpack and the external32 forms.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are described in src/binding/datatype.spec.  The native packed format is exactly the datatype layer's packed stream (the bytes of the
 * type's data in type-map order, no header), so MPI_Pack_size is count * size and a message
 * sent as MPI_PACKED can be received with the original type and vice versa.  external32 is
 * the same stream converted element by element to big-endian and the standard's sizes
 * (datatype/signature.c), so its size is not count * size.  Each int-count entry point
 * forwards to a large-count core, which also serves the MPI-4 _c forms.
 */
#include "binding/binding.h"
#include <string.h>

/* The checks every packing call makes -- the communicator of the native forms, the count,
 * the type, the position or size pointer `out` -- and the packed size of count elements. */
static int stream_args(const char *F, MPI_Comm comm_h, int external, MPI_Count count,
                       MPI_Datatype datatype, const void *out, const char *out_name,
                       mp_comm **comm, mp_datatype **dt, size_t *bytes)
{
    int err;
    *comm = NULL;
    if ((!external && (err = mp_arg_comm(F, comm_h, comm))) ||
        (err = mp_dtarg_nonneg(F, "count", count)) ||
        (err = mp_dtarg_type(F, "datatype", datatype, 0, dt)) ||
        (err = mp_dtarg_ptr(F, out_name, out)))
        return err;
    *bytes = external ? mp_datatype_external_bytes(*dt, count) : mp_datatype_bytes(*dt, count);
    return MPI_SUCCESS;
}

/* Packs (pack != 0: from inbuf into the packed buffer outbuf of `size` bytes) or unpacks
 * (from the packed buffer inbuf into outbuf) count elements at *position of the packed
 * buffer, and advances *position. */
static int stream_core(const char *F, int pack, const void *inbuf, void *outbuf,
                       MPI_Count count, MPI_Datatype datatype, MPI_Count size,
                       MPI_Count *position, MPI_Comm comm_h, int external)
{
    mp_comm *comm;
    mp_datatype *dt;
    size_t bytes;
    int err = stream_args(F, comm_h, external, count, datatype, position, "position", &comm,
                          &dt, &bytes);
    if (err)
        return err;
    if (*position < 0 || *position > size || (MPI_Count)bytes > size - *position)
        return pack ? mp_error(comm, MPI_ERR_TRUNCATE, F, "%zu bytes do not fit at position "
                               "%lld of an output buffer of %lld bytes", bytes,
                               (long long)*position, (long long)size)
                    : mp_error(comm, MPI_ERR_TRUNCATE, F, "unpacking %zu bytes at position "
                               "%lld overruns an input buffer of %lld bytes", bytes,
                               (long long)*position, (long long)size);
    char *packed = (char *)(pack ? outbuf : inbuf);
    if (bytes && (err = mp_dtarg_ptr(F, pack ? "outbuf" : "inbuf", packed)))
        return err;
    packed += *position;
    if (pack && external)
        mp_pack_external(inbuf, count, dt, packed);
    else if (pack)
        mp_pack(inbuf, count, dt, 0, packed, bytes);
    else if (external)
        mp_unpack_external(packed, outbuf, count, dt);
    else
        mp_unpack(outbuf, count, dt, 0, packed, bytes);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

#define pack_core(F, in, n, dt, out, size, pos, comm, ext) \
    stream_core(F, 1, in, out, n, dt, size, pos, comm, ext)
#define unpack_core(F, in, size, pos, out, n, dt, comm, ext) \
    stream_core(F, 0, in, out, n, dt, size, pos, comm, ext)

static int size_core(const char *F, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm_h,
                     int external, MPI_Count *size)
{
    mp_comm *comm;
    mp_datatype *dt;
    size_t bytes;
    int err = stream_args(F, comm_h, external, incount, datatype, size, "size", &comm, &dt,
                          &bytes);
    if (!err)
        *size = (MPI_Count)bytes;
    return err;
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
int mp_do_pack(const char *F, const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
               int outsize, int *position, MPI_Comm comm)
{
    MPI_Count pos;
    int err;
    if ((err = int_position(F, position, &pos)) ||
        (err = pack_core(F, inbuf, incount, datatype, outbuf, outsize, &pos, comm, 0)))
        return err;
    *position = (int)pos;
    return MPI_SUCCESS;
}

int mp_do_pack_c(const char *F, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                 void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    return pack_core(F, inbuf, incount, datatype, outbuf, outsize, position, comm, 0);
}

int mp_do_unpack(const char *F, const void *inbuf, int insize, int *position, void *outbuf,
                 int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_Count pos;
    int err;
    if ((err = int_position(F, position, &pos)) ||
        (err = unpack_core(F, inbuf, insize, &pos, outbuf, outcount, datatype, comm, 0)))
        return err;
    *position = (int)pos;
    return MPI_SUCCESS;
}

int mp_do_unpack_c(const char *F, const void *inbuf, MPI_Count insize, MPI_Count *position,
                   void *outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    return unpack_core(F, inbuf, insize, position, outbuf, outcount, datatype,
                       comm, 0);
}

int mp_do_pack_size(const char *F, int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_Count s;
    int err;
    if ((err = mp_dtarg_ptr(F, "size", size)) ||
        (err = size_core(F, incount, datatype, comm, 0, &s)))
        return err;
    return store_int(F, s, size);
}

int mp_do_pack_size_c(const char *F, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                      MPI_Count *size)
{
    return size_core(F, incount, datatype, comm, 0, size);
}

/* ---------------------------------------------------------------------------------------------
 * external32
 * ------------------------------------------------------------------------------------------- */
int mp_do_pack_external(const char *F, const char *datarep, const void *inbuf, int incount,
                        MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
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

int mp_do_pack_external_c(const char *F, const char *datarep, const void *inbuf,
                          MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                          MPI_Count outsize, MPI_Count *position)
{
    int err = check_datarep(F, datarep);
    return err ? err : pack_core(F, inbuf, incount, datatype, outbuf, outsize, position,
                                 MPI_COMM_NULL, 1);
}

int mp_do_unpack_external(const char *F, const char datarep[], const void *inbuf, MPI_Aint insize,
                          MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
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

int mp_do_unpack_external_c(const char *F, const char datarep[], const void *inbuf,
                            MPI_Count insize, MPI_Count *position, void *outbuf,
                            MPI_Count outcount, MPI_Datatype datatype)
{
    int err = check_datarep(F, datarep);
    return err ? err : unpack_core(F, inbuf, insize, position, outbuf, outcount, datatype,
                                   MPI_COMM_NULL, 1);
}

int mp_do_pack_external_size(const char *F, const char *datarep, int incount,
                             MPI_Datatype datatype, MPI_Aint *size)
{
    MPI_Count s;
    int err;
    if ((err = check_datarep(F, datarep)) || (err = mp_dtarg_ptr(F, "size", size)) ||
        (err = size_core(F, incount, datatype, MPI_COMM_NULL, 1, &s)))
        return err;
    *size = (MPI_Aint)s;
    return MPI_SUCCESS;
}

int mp_do_pack_external_size_c(const char *F, const char *datarep, MPI_Count incount,
                               MPI_Datatype datatype, MPI_Count *size)
{
    int err = check_datarep(F, datarep);
    return err ? err : size_core(F, incount, datatype, MPI_COMM_NULL, 1, size);
}
