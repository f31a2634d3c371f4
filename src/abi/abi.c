/* abi.c -- the standard ABI's entry points that are not a mechanical conversion.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * tools/gen-abi writes every entry point whose arguments convert by their types and names
 * (build/gen/abi_gen.c) and skips the ones defined here:
 *
 *   - what only the standard ABI has: MPI_Abi_get_version/_info/_fortran_info (and the
 *     Fortran setters), MPI_<Handle>_toint/_fromint, the 8-int Fortran status of
 *     MPI_Status_c2f/_f2c, MPI_Pcontrol (variadic);
 *   - callbacks: user ops, error handlers, attribute copy/delete functions, generalized
 *     requests and data representations get MemPI-side callers that convert the arguments
 *     before calling the user's function.  Ops, error handlers and keyvals use the hooks
 *     MemPI keeps for MPICH's C++ binding (MPII_Op_set_cxx, MPII_Errhandler_set_cxx,
 *     MPII_Keyval_set_proxy): the object stores the user's function and MemPI calls it through
 *     our caller.  Generalized requests and data representations wrap the user's functions
 *     and extra_state in a block that the callers receive as their extra_state; MPI_T event,
 *     dropped and free callbacks likewise, with the block as their user_data.
 *   - attribute reads whose values are constants of the ABI (MPI_HOST, MPI_IO, MPI_APPNUM's
 *     MPI_UNDEFINED ..., MPI_LASTUSEDCODE, MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL): the value
 *     is converted into a per-process copy and a pointer to that copy is returned.
 *   - error codes (mp_abi_err_out_slow, see abi.h) and the helpers the generated code calls.
 */
#define MP_ABI_DEFINE_TABLES
#include "abi/abi.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

/* ---- MemPI-side functions (renamed copies of libmpi.so.12's entry points, MPICH types) ---- */
extern int mp_mpich_PMPI_Comm_size(int, int *);
extern int mp_mpich_PMPI_Comm_remote_size(int, int *);
extern int mp_mpich_PMPI_Comm_test_inter(int, int *);
extern int mp_mpich_PMPI_Topo_test(int, int *);
extern int mp_mpich_PMPI_Dist_graph_neighbors_count(int, int *, int *, int *);
extern int mp_mpich_PMPI_Graph_neighbors_count(int, int, int *);
extern int mp_mpich_PMPI_Cartdim_get(int, int *);
extern int mp_mpich_PMPI_Comm_rank(int, int *);
extern int mp_mpich_PMPI_Info_create(int *);
extern int mp_mpich_PMPI_Info_set(int, const char *, const char *);
extern int mp_mpich_PMPI_Info_dup(int, int *);
extern int mp_mpich_PMPI_Error_class(int, int *);
extern int mp_mpich_PMPI_Pcontrol(const int, ...);
extern int mp_mpich_PMPI_Op_create(void *, int, int *);
extern int mp_mpich_PMPI_Comm_create_keyval(void *, void *, int *, void *);
extern int mp_mpich_PMPI_Type_create_keyval(void *, void *, int *, void *);
extern int mp_mpich_PMPI_Win_create_keyval(void *, void *, int *, void *);
extern int mp_mpich_PMPI_Comm_create_errhandler(void *, int *);
extern int mp_mpich_PMPI_Win_create_errhandler(void *, int *);
extern int mp_mpich_PMPI_File_create_errhandler(void *, int *);
extern int mp_mpich_PMPI_Session_create_errhandler(void *, int *);
extern int mp_mpich_PMPI_Grequest_start(void *, void *, void *, void *, int *);
extern int mp_mpich_PMPI_Register_datarep(const char *, void *, void *, void *, void *);
extern int mp_mpich_PMPI_Register_datarep_c(const char *, void *, void *, void *, void *);
extern int mp_mpich_PMPI_Comm_get_attr(int, int, void *, int *);
extern int mp_mpich_PMPI_Win_get_attr(int, int, void *, int *);
extern int mp_mpich_PMPI_Comm_c2f(int);
extern int MPIR_Dup_fn(int, int, void *, void *, void *, int *);
extern void MPII_Op_set_cxx(int op, void (*caller)(void));
extern void MPII_Errhandler_set_cxx(int eh, void (*caller)(void));
extern void MPII_Keyval_set_proxy(int keyval, void *copy, void *del);
extern int mp_error(void *comm, int cls, const char *func, const char *fmt, ...);

/* MemPI's classes for errors raised here (numbers of include/mpi.h, read by gen-abi) */
#define M_ERR_UNSUPPORTED_OPERATION mp_abi_errclass_in(MPI_ERR_UNSUPPORTED_OPERATION)
#define M_ERR_ARG mp_abi_errclass_in(MPI_ERR_ARG)

int mp_abi_unsupported(const char *func)
{
    return mp_abi_err_out(mp_error(NULL, M_ERR_UNSUPPORTED_OPERATION, func,
                                   "not available through the standard ABI (libmpi_abi) in "
                                   "MemPI %s; libmpi.so.12 has it", MEMPI_VERSION));
}

/* ---- error codes ------------------------------------------------------------------------ */
#define M_USER_CLASS_BASE 0x40000000     /* src/core/error.c */
#define M_USER_CODE_BASE  0x40100000
#define M_USER_MAX        0x1000         /* src/core/error.c's MP_USER_MAX */
/* User classes and codes lie above the standard ABI's MPI_ERR_LASTCODE, clear of every
 * predefined class and of the ring's codes (mpi4py checks that an added class is at least
 * MPI_ERR_LASTCODE). */
#define A_USER_CLASS_BASE (MPI_ERR_LASTCODE + 1)
#define A_USER_CODE_BASE  (A_USER_CLASS_BASE + M_USER_MAX)
#define A_RING 64                        /* slots 1..63: codes up to 62 | 63 << 7 = 0x1ffe */
/* The standard's classes that MemPI does not have (MPI_ERR_ABI) take a MemPI class number
 * that MemPI never raises and whose mask (MPI_Error_class is code & 0x7f) is itself. */
#define M_ERR_ABI 0x7f

_Static_assert(A_USER_CLASS_BASE > MPI_ERR_LASTCODE && (A_RING - 1) << 7 < 0x2000,
               "user classes and ring codes do not overlap the standard's classes");

static _Atomic int ring[A_RING];
static atomic_uint ring_next;

static int class_in(int c) { return c == MPI_ERR_ABI ? M_ERR_ABI : mp_abi_errclass_in(c); }
static int class_out(int c) { return c == M_ERR_ABI ? MPI_ERR_ABI : mp_abi_errclass_out(c); }

int mp_abi_err_out_slow(int code)
{
    if (code >= M_USER_CODE_BASE && code < M_USER_CODE_BASE + M_USER_MAX)
        return A_USER_CODE_BASE + (code - M_USER_CODE_BASE);
    if (code >= M_USER_CLASS_BASE && code < M_USER_CLASS_BASE + M_USER_MAX)
        return A_USER_CLASS_BASE + (code - M_USER_CLASS_BASE);
    if (code < 0 || code >= M_USER_CLASS_BASE)
        return code;
    int cls = class_out(code & 0x7f);
    if (code < 0x80 || cls > 0x7f)       /* a bare class, or an MPI_T class (1001...) */
        return cls;
    /* the same MemPI code always converts to the same code while it is in the ring: the
     * code a call returns and the one its error handler saw must compare equal */
    for (unsigned i = 1; i < A_RING; i++)
        if (atomic_load(&ring[i]) == code)
            return cls | (int)(i << 7);
    unsigned k = atomic_fetch_add(&ring_next, 1) % (A_RING - 1) + 1;
    atomic_store(&ring[k], code);
    return cls | (int)(k << 7);
}

int mp_abi_err_in_slow(int code)
{
    if (code >= A_USER_CODE_BASE && code < A_USER_CODE_BASE + M_USER_MAX)
        return M_USER_CODE_BASE + (code - A_USER_CODE_BASE);
    if (code >= A_USER_CLASS_BASE && code < A_USER_CLASS_BASE + M_USER_MAX)
        return M_USER_CLASS_BASE + (code - A_USER_CLASS_BASE);
    if (code < 0x80 || (code >= 1001 && code <= 1018) || code >= 0x2000)
        return code < 0 ? code : class_in(code);
    int cls = class_in(code & 0x7f);
    int m = atomic_load(&ring[(code >> 7) & (A_RING - 1)]);
    return (m & 0x7f) == cls ? m : cls;  /* a slot reused since: the class still holds */
}

/* MemPI has no text for the classes only the standard has. */
extern int mp_mpich_PMPI_Error_string(int, char *, int *);
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    int m = mp_abi_err_in(errorcode);
    if (m == M_ERR_ABI && string != NULL && resultlen != NULL) {
        *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "MPI_ERR_ABI: error in the "
                              "MPI ABI's own functions");
        return MPI_SUCCESS;
    }
    return mp_abi_err_out(mp_mpich_PMPI_Error_string(m, string, resultlen));
}
#pragma weak MPI_Error_string = PMPI_Error_string

/* ---- helpers of the generated code ------------------------------------------------------ */
int mp_abi_peers(int comm, int neighbor, int send)
{
    int n = 0, inter = 0, topo = 0;
    if (!neighbor) {
        if (mp_mpich_PMPI_Comm_test_inter(comm, &inter) != 0) return 0;
        (inter ? mp_mpich_PMPI_Comm_remote_size : mp_mpich_PMPI_Comm_size)(comm, &n);
        return n;
    }
    if (mp_mpich_PMPI_Topo_test(comm, &topo) != 0) return 0;
    topo = mp_abi_topo_out(topo);
    if (topo == MPI_DIST_GRAPH) {
        int indeg = 0, outdeg = 0, w;
        mp_mpich_PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &w);
        return send ? outdeg : indeg;
    }
    if (topo == MPI_GRAPH) {
        int rank = 0;
        mp_mpich_PMPI_Comm_rank(comm, &rank);
        mp_mpich_PMPI_Graph_neighbors_count(comm, rank, &n);
        return n;
    }
    if (topo == MPI_CART) {
        mp_mpich_PMPI_Cartdim_get(comm, &n);
        return 2 * n;
    }
    return 0;
}

extern int mp_mpich_PMPI_Type_get_envelope(int, int *, int *, int *, int *);

void mp_abi_contents_ints(int type, int *ints, int n)
{
    int ni, na, nd, combiner;
    if (ints == NULL || mp_mpich_PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != 0)
        return;
    combiner = mp_abi_combiner_out(combiner);
    if (combiner == MPI_COMBINER_DARRAY && n >= 3 && n >= 4 * ints[2] + 4) {
        /* size, rank, ndims, gsizes[ndims], distribs[ndims], dargs[ndims], psizes[ndims], order */
        int nd_ = ints[2];
        for (int i = 0; i < nd_; i++) {
            ints[3 + nd_ + i] = mp_abi_distrib_out(ints[3 + nd_ + i]);
            ints[3 + 2 * nd_ + i] = mp_abi_darg_out(ints[3 + 2 * nd_ + i]);
        }
        ints[3 + 4 * nd_] = mp_abi_order_out(ints[3 + 4 * nd_]);
    } else if (combiner == MPI_COMBINER_SUBARRAY && n >= 1 && n >= 3 * ints[0] + 2) {
        /* ndims, sizes[ndims], subsizes[ndims], starts[ndims], order */
        ints[1 + 3 * ints[0]] = mp_abi_order_out(ints[1 + 3 * ints[0]]);
    }
}

/* ---- what only the standard ABI has ----------------------------------------------------- */
/* mempi-abi-proto: int MPI_Abi_get_version(int *abi_major, int *abi_minor); */
int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    if (abi_major == NULL || abi_minor == NULL)
        return mp_abi_err_out(mp_error(NULL, M_ERR_ARG, "MPI_Abi_get_version",
                                       "abi_major and abi_minor must not be NULL"));
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}
#pragma weak MPI_Abi_get_version = PMPI_Abi_get_version

static int info_from(const char *func, MPI_Info *info, const char *const kv[][2], int n)
{
    if (info == NULL)
        return mp_abi_err_out(mp_error(NULL, M_ERR_ARG, func, "info must not be NULL"));
    int h, rc = mp_mpich_PMPI_Info_create(&h);
    for (int i = 0; rc == 0 && i < n; i++)
        rc = mp_mpich_PMPI_Info_set(h, kv[i][0], kv[i][1]);
    if (rc == 0)
        *info = (MPI_Info)mp_abi_out_info(h);
    return mp_abi_err_out(rc);
}

/* mempi-abi-proto: int MPI_Abi_get_info(MPI_Info *info); */
int PMPI_Abi_get_info(MPI_Info *info)
{
    static const char *const kv[][2] = {
        { "mpi_aint_size", "8" }, { "mpi_count_size", "8" }, { "mpi_offset_size", "8" },
        { "mpi_status_size", "32" }, { "mpi_library", "MemPI" },
    };
    _Static_assert(sizeof(MPI_Aint) == 8 && sizeof(MPI_Count) == 8 && sizeof(MPI_Offset) == 8 &&
                   sizeof(MPI_Status) == 32, "the sizes MPI_Abi_get_info reports");
    return info_from("MPI_Abi_get_info", info, kv, (int)(sizeof kv / sizeof kv[0]));
}
#pragma weak MPI_Abi_get_info = PMPI_Abi_get_info

/* Fortran through the standard ABI: the sizes of gfortran's default kinds (what MemPI's
 * Fortran bindings are built with, and what a Fortran layer over libmpi_abi must match), and
 * for each optional Fortran datatype whether MemPI has it: a predefined datatype that is not
 * the null handle and has a nonzero size.  MPI_Abi_set_fortran_info replaces the whole
 * object. */
static int fortran_info = -1;            /* MemPI info handle set by MPI_Abi_set_fortran_info */
extern int mp_mpich_PMPI_Type_size(int, int *);

/* mempi-abi-proto: int MPI_Abi_get_fortran_info(MPI_Info *info); */
int PMPI_Abi_get_fortran_info(MPI_Info *info)
{
    static const char *const kv[][2] = {
        { "mpi_logical_size", "4" }, { "mpi_integer_size", "4" }, { "mpi_real_size", "4" },
        { "mpi_double_precision_size", "8" },
    };
    static const struct { const char *key; MPI_Datatype type; } opt[] = {
        { "mpi_logical1_supported", MPI_LOGICAL1 }, { "mpi_logical2_supported", MPI_LOGICAL2 },
        { "mpi_logical4_supported", MPI_LOGICAL4 }, { "mpi_logical8_supported", MPI_LOGICAL8 },
        { "mpi_logical16_supported", MPI_LOGICAL16 },
        { "mpi_integer1_supported", MPI_INTEGER1 }, { "mpi_integer2_supported", MPI_INTEGER2 },
        { "mpi_integer4_supported", MPI_INTEGER4 }, { "mpi_integer8_supported", MPI_INTEGER8 },
        { "mpi_integer16_supported", MPI_INTEGER16 },
        { "mpi_real2_supported", MPI_REAL2 }, { "mpi_real4_supported", MPI_REAL4 },
        { "mpi_real8_supported", MPI_REAL8 }, { "mpi_real16_supported", MPI_REAL16 },
        { "mpi_complex4_supported", MPI_COMPLEX4 }, { "mpi_complex8_supported", MPI_COMPLEX8 },
        { "mpi_complex16_supported", MPI_COMPLEX16 },
        { "mpi_complex32_supported", MPI_COMPLEX32 },
        { "mpi_double_complex_supported", MPI_DOUBLE_COMPLEX },
    };
    if (info == NULL)
        return mp_abi_err_out(mp_error(NULL, M_ERR_ARG, "MPI_Abi_get_fortran_info",
                                       "info must not be NULL"));
    int h, rc;
    if (fortran_info != -1) {
        rc = mp_mpich_PMPI_Info_dup(fortran_info, &h);
    } else {
        rc = mp_mpich_PMPI_Info_create(&h);
        for (size_t i = 0; rc == 0 && i < sizeof kv / sizeof kv[0]; i++)
            rc = mp_mpich_PMPI_Info_set(h, kv[i][0], kv[i][1]);
        for (size_t i = 0; rc == 0 && i < sizeof opt / sizeof opt[0]; i++) {
            int t = mp_abi_in(opt[i].type), size = 0;   /* 0: not in MemPI's table */
            if (t != 0 && t != mp_abi_in(MPI_DATATYPE_NULL) && mp_mpich_PMPI_Type_size(t, &size) != 0)
                size = 0;
            rc = mp_mpich_PMPI_Info_set(h, opt[i].key, size > 0 ? "true" : "false");
        }
    }
    if (rc == 0)
        *info = (MPI_Info)mp_abi_out_info(h);
    return mp_abi_err_out(rc);
}
#pragma weak MPI_Abi_get_fortran_info = PMPI_Abi_get_fortran_info

/* mempi-abi-proto: int MPI_Abi_set_fortran_info(MPI_Info info); */
int PMPI_Abi_set_fortran_info(MPI_Info info)
{
    int h, rc = mp_mpich_PMPI_Info_dup(mp_abi_in(info), &h);
    if (rc == 0) fortran_info = h;
    return mp_abi_err_out(rc);
}
#pragma weak MPI_Abi_set_fortran_info = PMPI_Abi_set_fortran_info

static struct { int set; unsigned char t[16], f[16]; } fbool[17];

/* mempi-abi-proto: int MPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set); */
int PMPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set)
{
    if (logical_size < 1 || logical_size > 16 || !logical_true || !logical_false || !is_set)
        return mp_abi_err_out(mp_error(NULL, M_ERR_ARG, "MPI_Abi_get_fortran_booleans",
                                       "invalid logical_size %d or NULL output", logical_size));
    if (!fbool[logical_size].set) {      /* gfortran: .TRUE. is 1, .FALSE. is 0 */
        memset(fbool[logical_size].t, 0, 16);
        memset(fbool[logical_size].f, 0, 16);
        fbool[logical_size].t[0] = 1;
    }
    memcpy(logical_true, fbool[logical_size].t, (size_t)logical_size);
    memcpy(logical_false, fbool[logical_size].f, (size_t)logical_size);
    *is_set = 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Abi_get_fortran_booleans = PMPI_Abi_get_fortran_booleans

/* mempi-abi-proto: int MPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false); */
int PMPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    if (logical_size < 1 || logical_size > 16 || !logical_true || !logical_false)
        return mp_abi_err_out(mp_error(NULL, M_ERR_ARG, "MPI_Abi_set_fortran_booleans",
                                       "invalid logical_size %d or NULL value", logical_size));
    memcpy(fbool[logical_size].t, logical_true, (size_t)logical_size);
    memcpy(fbool[logical_size].f, logical_false, (size_t)logical_size);
    fbool[logical_size].set = 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Abi_set_fortran_booleans = PMPI_Abi_set_fortran_booleans

/* MPI_<Handle>_toint/_fromint (MPI 5.0's ABI chapter): a predefined handle's integer is its value in
 * the standard's table, a user handle's one that stays the same and lies outside that range.
 * A handle of this layer is already such an integer as a pointer value (a predefined value
 * below MP_ABI_PREDEF_END, or MemPI's 32-bit user handle), so both directions are casts.  The
 * integers of MemPI's Fortran bindings are MemPI's handles, which MPI_<Handle>_c2f/_f2c give. */
#define MP_ABI_PRAGMA(x) _Pragma(#x)
#define TOINT(Name, Type)                                                                  \
    int PMPI_##Name##_toint(Type h) { return (int)(uint32_t)(uintptr_t)h; }               \
    Type PMPI_##Name##_fromint(int i) { return (Type)(uintptr_t)(uint32_t)i; }             \
    MP_ABI_PRAGMA(weak MPI_##Name##_toint = PMPI_##Name##_toint)                           \
    MP_ABI_PRAGMA(weak MPI_##Name##_fromint = PMPI_##Name##_fromint)
/* a MemPI handle's own type bits say which kind of predefined handle it is */
static void *mp_abi_out_x(int h)
{
    switch ((((unsigned)h) >> 26) & 0xf) {
    case 1: return mp_abi_out_comm(h);
    case 2: return mp_abi_out_group(h);
    case 3: return mp_abi_out_datatype(h);
    case 5: return mp_abi_out_errhandler(h);
    case 6: return mp_abi_out_op(h);
    case 7: return mp_abi_out_info(h);
    case 8: return mp_abi_out_win(h);
    case 11: return mp_abi_out_request(h);
    case 14: return mp_abi_out_session(h);
    }
    return (void *)(uintptr_t)(uint32_t)h;
}
/* mempi-defines: PMPI_Comm_toint PMPI_Comm_fromint PMPI_Errhandler_toint PMPI_Errhandler_fromint
 * PMPI_Group_toint PMPI_Group_fromint PMPI_Info_toint PMPI_Info_fromint PMPI_Op_toint
 * PMPI_Op_fromint PMPI_Request_toint PMPI_Request_fromint PMPI_Session_toint
 * PMPI_Session_fromint PMPI_Type_toint PMPI_Type_fromint PMPI_Win_toint PMPI_Win_fromint
 * PMPI_Message_toint PMPI_Message_fromint */
TOINT(Comm, MPI_Comm)
TOINT(Errhandler, MPI_Errhandler)
TOINT(Group, MPI_Group)
TOINT(Info, MPI_Info)
TOINT(Op, MPI_Op)
TOINT(Request, MPI_Request)
TOINT(Session, MPI_Session)
TOINT(Type, MPI_Datatype)
TOINT(Win, MPI_Win)

/* MemPI's mpi_f08 module over libmpi_abi (docs/decisions.md): its C side compares status
 * arguments with the sentinels MPIR_F08_MPI_STATUS(ES)_IGNORE_OBJ, and the module reads
 * MPI_F08_STATUS(ES)_IGNORE, MemPI's pointers to them (renamed in mempi.o): exported here. */
extern char MPIR_F08_MPI_STATUS_IGNORE_OBJ[], MPIR_F08_MPI_STATUSES_IGNORE_OBJ[];
void *MPI_F08_STATUS_IGNORE = MPIR_F08_MPI_STATUS_IGNORE_OBJ;
void *MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;

/* A message is a handle like the others.  A file is a pointer: its integer is MemPI's file
 * index (MPI_File_c2f, from 1) moved above the predefined range, MPI_FILE_NULL's its own. */
TOINT(Message, MPI_Message)
extern int mp_mpich_PMPI_File_c2f(void *);
extern void *mp_mpich_PMPI_File_f2c(int);
int PMPI_File_toint(MPI_File f)
{
    return f == MPI_FILE_NULL ? (int)(uintptr_t)MPI_FILE_NULL
                              : MP_ABI_PREDEF_END + mp_mpich_PMPI_File_c2f(mp_abi_file_in(f));
}
MPI_File PMPI_File_fromint(int i)
{
    return i < MP_ABI_PREDEF_END ? MPI_FILE_NULL
                                 : mp_abi_file_out(mp_mpich_PMPI_File_f2c(i - MP_ABI_PREDEF_END));
}
#pragma weak MPI_File_toint = PMPI_File_toint
#pragma weak MPI_File_fromint = PMPI_File_fromint

/* The standard ABI's Fortran status is its C status, int for int (MPI_F_STATUS_SIZE 8). */
static int status_copy(const char *func, void *dst, const void *src)
{
    if (dst == NULL || src == NULL)
        return mp_abi_err_out(mp_error(NULL, M_ERR_ARG, func, "NULL status"));
    memcpy(dst, src, sizeof(MPI_Status));
    return MPI_SUCCESS;
}
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    return status_copy("MPI_Status_c2f", f_status, c_status);
}
#pragma weak MPI_Status_c2f = PMPI_Status_c2f
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    return status_copy("MPI_Status_f2c", c_status, f_status);
}
#pragma weak MPI_Status_f2c = PMPI_Status_f2c

/* MPI 4.1's status accessors read and write the standard's public fields: nothing of MemPI's
 * is involved (a status of the standard ABI is the standard's struct). */
#define STATUS_FIELD(Name, FIELD)                                                          \
    int PMPI_Status_get_##Name(const MPI_Status *status, int *Name)                        \
    {                                                                                      \
        if (status == NULL || Name == NULL)                                                \
            return mp_abi_err_out(mp_error(NULL, M_ERR_ARG, "MPI_Status_get_" #Name,       \
                                           "status and " #Name " must not be NULL"));      \
        *Name = status->FIELD;                                                             \
        return MPI_SUCCESS;                                                                \
    }                                                                                      \
    int PMPI_Status_set_##Name(MPI_Status *status, int Name)                               \
    {                                                                                      \
        if (status == NULL)                                                                \
            return mp_abi_err_out(mp_error(NULL, M_ERR_ARG, "MPI_Status_set_" #Name,       \
                                           "status must not be NULL"));                    \
        status->FIELD = Name;                                                              \
        return MPI_SUCCESS;                                                                \
    }                                                                                      \
    MP_ABI_PRAGMA(weak MPI_Status_get_##Name = PMPI_Status_get_##Name)                    \
    MP_ABI_PRAGMA(weak MPI_Status_set_##Name = PMPI_Status_set_##Name)
/* mempi-defines: PMPI_Status_get_source PMPI_Status_set_source PMPI_Status_get_tag
 * PMPI_Status_set_tag PMPI_Status_get_error PMPI_Status_set_error */
STATUS_FIELD(source, MPI_SOURCE)
STATUS_FIELD(tag, MPI_TAG)
STATUS_FIELD(error, MPI_ERROR)

/* MPI 4.1 (7.8): a null handle's name is the null handle's name, where MPICH 4.0.2's
 * MPI_*_get_name (and MemPI's) return an error. */
#define NULL_NAME(Kind, Type, Null)                                                        \
    extern int mp_mpich_PMPI_##Kind##_get_name(int, char *, int *);                         \
    int PMPI_##Kind##_get_name(Type h, char *name, int *resultlen)                         \
    {                                                                                      \
        if (h == Null && name != NULL && resultlen != NULL) {                              \
            strcpy(name, #Null);                                                           \
            *resultlen = (int)strlen(#Null);                                               \
            return MPI_SUCCESS;                                                            \
        }                                                                                  \
        return mp_abi_err_out(mp_mpich_PMPI_##Kind##_get_name(mp_abi_in(h), name, resultlen)); \
    }                                                                                      \
    MP_ABI_PRAGMA(weak MPI_##Kind##_get_name = PMPI_##Kind##_get_name)
/* mempi-defines: PMPI_Comm_get_name PMPI_Type_get_name PMPI_Win_get_name */
NULL_NAME(Comm, MPI_Comm, MPI_COMM_NULL)
NULL_NAME(Type, MPI_Datatype, MPI_DATATYPE_NULL)
NULL_NAME(Win, MPI_Win, MPI_WIN_NULL)

/* The standard ABI's header carries MPI 5.0's MPI_VERSION and MPI_SUBVERSION (the MPI Forum's
 * reference header fixes them), and MPI_Get_version must agree with the header a program was
 * built with; MemPI's own ABI keeps answering 4.1 (docs/decisions.md). */
int PMPI_Get_version(int *version, int *subversion)
{
    if (version == NULL || subversion == NULL)
        return mp_abi_err_out(mp_error(NULL, M_ERR_ARG, "MPI_Get_version",
                                       "version and subversion must not be NULL"));
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_version = PMPI_Get_version

/* The library version names the ABI the caller sees. */
extern int mp_mpich_PMPI_Get_library_version(char *, int *);
int PMPI_Get_library_version(char *version, int *resultlen)
{
    int rc = mp_mpich_PMPI_Get_library_version(version, resultlen);
    char *at = rc == 0 ? strstr(version, "MPICH ABI, libmpi.so.12") : NULL;
    if (at != NULL) {
        snprintf(at, (size_t)(MPI_MAX_LIBRARY_VERSION_STRING - (at - version)),
                 "MPI 5.0 standard ABI, libmpi_abi.so.1)");
        *resultlen = (int)strlen(version);
    }
    return mp_abi_err_out(rc);
}
#pragma weak MPI_Get_library_version = PMPI_Get_library_version

int PMPI_Pcontrol(const int level, ...)
{
    return mp_abi_err_out(mp_mpich_PMPI_Pcontrol(level));
}
#pragma weak MPI_Pcontrol = PMPI_Pcontrol

/* ---- user ops ---------------------------------------------------------------------------- */
static void op_caller(const void *in, void *inout, int n, int type, void (*fn)(void))
{
    MPI_Datatype t = (MPI_Datatype)mp_abi_out_datatype(type);
    ((MPI_User_function *)fn)((void *)in, inout, &n, &t);
}
static void op_caller_c(const void *in, void *inout, int n, int type, void (*fn)(void))
{
    MPI_Datatype t = (MPI_Datatype)mp_abi_out_datatype(type);
    MPI_Count c = n;
    ((MPI_User_function_c *)fn)((void *)in, inout, &c, &t);
}
static int op_create(void *fn, int commute, MPI_Op *op, void (*caller)(void))
{
    int h = mp_abi_in(MPI_OP_NULL), rc = mp_mpich_PMPI_Op_create(fn, commute, op ? &h : NULL);
    if (rc == 0)
        MPII_Op_set_cxx(h, caller);
    if (op)
        *op = (MPI_Op)mp_abi_out_op(h);
    return mp_abi_err_out(rc);
}
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create((void *)user_fn, commute, op, (void (*)(void))op_caller);
}
#pragma weak MPI_Op_create = PMPI_Op_create
/* A large-count function is called in pieces of at most INT_MAX elements, as MemPI does for
 * MPI_User_function: reductions are elementwise, so the result is the same. */
int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create((void *)user_fn, commute, op, (void (*)(void))op_caller_c);
}
#pragma weak MPI_Op_create_c = PMPI_Op_create_c

/* ---- error handlers ---------------------------------------------------------------------- */
typedef void (any_eh)(void *handle, int *code, ...);
static void eh_caller(int kind, void *obj, int *code, void (*fn)(void), void *abi_handle)
{
    int c = mp_abi_err_out(*code);
    ((any_eh *)fn)(abi_handle, &c);
    (void)kind; (void)obj;
}
static void eh_comm(int kind, void *obj, int *code, void (*fn)(void))
{
    MPI_Comm h = (MPI_Comm)mp_abi_out_comm(*(int *)obj);
    eh_caller(kind, obj, code, fn, &h);
}
static void eh_win(int kind, void *obj, int *code, void (*fn)(void))
{
    MPI_Win h = (MPI_Win)mp_abi_out_win(*(int *)obj);
    eh_caller(kind, obj, code, fn, &h);
}
static void eh_session(int kind, void *obj, int *code, void (*fn)(void))
{
    MPI_Session h = (MPI_Session)mp_abi_out_session(*(int *)obj);
    eh_caller(kind, obj, code, fn, &h);
}
static void eh_file(int kind, void *obj, int *code, void (*fn)(void))
{
    MPI_File h = mp_abi_file_out(*(void **)obj);
    eh_caller(kind, obj, code, fn, &h);
}
static int eh_create(int (*create)(void *, int *), void *fn, MPI_Errhandler *eh,
                     void (*caller)(int, void *, int *, void (*)(void)))
{
    int h = mp_abi_in(MPI_ERRHANDLER_NULL), rc = create(fn, eh ? &h : NULL);
    if (rc == 0)
        MPII_Errhandler_set_cxx(h, (void (*)(void))caller);
    if (eh)
        *eh = (MPI_Errhandler)mp_abi_out_errhandler(h);
    return mp_abi_err_out(rc);
}
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh)
{
    return eh_create(mp_mpich_PMPI_Comm_create_errhandler, (void *)fn, eh, eh_comm);
}
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *eh)
{
    return eh_create(mp_mpich_PMPI_Win_create_errhandler, (void *)fn, eh, eh_win);
}
int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *eh)
{
    return eh_create(mp_mpich_PMPI_File_create_errhandler, (void *)fn, eh, eh_file);
}
int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *fn, MPI_Errhandler *eh)
{
    return eh_create(mp_mpich_PMPI_Session_create_errhandler, (void *)fn, eh, eh_session);
}
#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler
#pragma weak MPI_Session_create_errhandler = PMPI_Session_create_errhandler

/* ---- attribute keyvals ------------------------------------------------------------------- */
/* obj is a communicator, datatype or window handle: its type bits say which (mp_abi_out_x). */
typedef int (any_copy)(void *obj, int keyval, void *extra, void *in, void *out, int *flag);
typedef int (any_del)(void *obj, int keyval, void *value, void *extra);
static int copy_proxy(void (*fn)(void), int obj, int keyval, void *extra, int kind, void *in,
                      void *out, int *flag)
{
    (void)kind;
    if (fn == NULL) { *flag = 0; return 0; }
    if (fn == (void (*)(void))MPIR_Dup_fn) { *(void **)out = in; *flag = 1; return 0; }
    return mp_abi_err_in(((any_copy *)fn)(mp_abi_out_x(obj), mp_abi_keyval_out(keyval), extra,
                                          in, out, flag));
}
static int del_proxy(void (*fn)(void), int obj, int keyval, int kind, void *value, void *extra)
{
    (void)kind;
    if (fn == NULL) return 0;
    return mp_abi_err_in(((any_del *)fn)(mp_abi_out_x(obj), mp_abi_keyval_out(keyval), value,
                                         extra));
}
static int keyval_create(int (*create)(void *, void *, int *, void *), void *copy, void *del,
                         int *keyval, void *extra)
{
    if (copy == (void *)1) copy = (void *)MPIR_Dup_fn;     /* MPI_*_DUP_FN */
    int h = mp_abi_keyval_in(MPI_KEYVAL_INVALID), rc = create(copy, del, keyval ? &h : NULL, extra);
    if (rc == 0)
        MPII_Keyval_set_proxy(h, (void *)copy_proxy, (void *)del_proxy);
    if (keyval)
        *keyval = mp_abi_keyval_out(h);
    return mp_abi_err_out(rc);
}
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                            int *keyval, void *extra_state)
{
    return keyval_create(mp_mpich_PMPI_Comm_create_keyval, (void *)copy, (void *)del, keyval,
                         extra_state);
}
int PMPI_Keyval_create(MPI_Copy_function *copy, MPI_Delete_function *del, int *keyval,
                       void *extra_state)
{
    return keyval_create(mp_mpich_PMPI_Comm_create_keyval, (void *)copy, (void *)del, keyval,
                         extra_state);
}
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy, MPI_Type_delete_attr_function *del,
                            int *keyval, void *extra_state)
{
    return keyval_create(mp_mpich_PMPI_Type_create_keyval, (void *)copy, (void *)del, keyval,
                         extra_state);
}
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy, MPI_Win_delete_attr_function *del,
                           int *keyval, void *extra_state)
{
    return keyval_create(mp_mpich_PMPI_Win_create_keyval, (void *)copy, (void *)del, keyval,
                         extra_state);
}
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
#pragma weak MPI_Keyval_create = PMPI_Keyval_create
#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval

/* Predefined attributes whose values are constants that differ between the two ABIs. */
static _Thread_local int attr_copy[4];
static void attr_convert(int keyval, void *value, int flag)
{
    if (!flag) return;
    int *p = *(int **)value, *c = NULL;
    switch (keyval) {
    case MPI_HOST: case MPI_IO: c = &attr_copy[0]; *c = mp_abi_rank_out(*p); break;
    case MPI_LASTUSEDCODE: c = &attr_copy[1]; *c = mp_abi_err_out(*p); break;
    case MPI_WIN_CREATE_FLAVOR: c = &attr_copy[2]; *c = mp_abi_flavor_out(*p); break;
    case MPI_WIN_MODEL: c = &attr_copy[3]; *c = mp_abi_model_out(*p); break;
    default: return;
    }
    *(int **)value = c;
}
int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    int rc = mp_mpich_PMPI_Comm_get_attr(mp_abi_in(comm), mp_abi_keyval_in(keyval), value, flag);
    if (rc == 0) attr_convert(keyval, value, *flag);
    return mp_abi_err_out(rc);
}
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *value, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, value, flag);
}
int PMPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag)
{
    int rc = mp_mpich_PMPI_Win_get_attr(mp_abi_in(win), mp_abi_keyval_in(keyval), value, flag);
    if (rc == 0) attr_convert(keyval, value, *flag);
    return mp_abi_err_out(rc);
}
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
#pragma weak MPI_Attr_get = PMPI_Attr_get
#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr

/* ---- generalized requests ---------------------------------------------------------------- */
typedef struct {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
} greq;
static int greq_query(void *g_, mp_abi_mstatus *m)
{
    greq *g = g_;
    if (g->query == NULL) return 0;
    MPI_Status s;
    mp_abi_status_out(m, &s, 1);         /* what MemPI prepared (count 0, not cancelled) */
    int rc = g->query(g->extra, &s);
    mp_abi_status_in(&s, m);
    return mp_abi_err_in(rc);
}
static int greq_free(void *g_)
{
    greq *g = g_;
    int rc = g->free ? g->free(g->extra) : 0;
    free(g);
    return mp_abi_err_in(rc);
}
static int greq_cancel(void *g_, int complete)
{
    greq *g = g_;
    return g->cancel ? mp_abi_err_in(g->cancel(g->extra, complete)) : 0;
}
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    greq *g = malloc(sizeof *g);
    if (g == NULL)
        return mp_abi_err_out(mp_error(NULL, mp_abi_errclass_in(MPI_ERR_NO_MEM),
                                       "MPI_Grequest_start", "out of memory"));
    *g = (greq){ query_fn, free_fn, cancel_fn, extra_state };
    int h = mp_abi_in(MPI_REQUEST_NULL);
    int rc = mp_mpich_PMPI_Grequest_start((void *)greq_query, (void *)greq_free,
                                          (void *)greq_cancel, g, request ? &h : NULL);
    if (rc != 0)
        free(g);
    if (request)
        *request = (MPI_Request)mp_abi_out_request(h);
    return mp_abi_err_out(rc);
}
#pragma weak MPI_Grequest_start = PMPI_Grequest_start

/* ---- data representations ---------------------------------------------------------------- */
typedef struct {
    void *read, *write;
    MPI_Datarep_extent_function *extent;
    void *extra;
} datarep;                               /* lives as long as the registration: the process */
/* Calls the registration's read or write conversion function (the large-count form when
 * large) with the standard ABI's datatype; returns its code in MemPI's numbering. */
static int dr_convert(void *d_, int write, int large, void *buf, int type, MPI_Count count,
                      void *fbuf, MPI_Offset pos)
{
    datarep *d = d_;
    void *fn = write ? d->write : d->read;
    MPI_Datatype t = (MPI_Datatype)mp_abi_out_datatype(type);
    return mp_abi_err_in(large ? ((MPI_Datarep_conversion_function_c *)fn)(buf, t, count, fbuf,
                                                                           pos, d->extra)
                               : ((MPI_Datarep_conversion_function *)fn)(buf, t, (int)count,
                                                                         fbuf, pos, d->extra));
}
static int dr_read(void *buf, int type, int count, void *fbuf, MPI_Offset pos, void *d)
{ return dr_convert(d, 0, 0, buf, type, count, fbuf, pos); }
static int dr_write(void *buf, int type, int count, void *fbuf, MPI_Offset pos, void *d)
{ return dr_convert(d, 1, 0, buf, type, count, fbuf, pos); }
static int dr_read_c(void *buf, int type, MPI_Count count, void *fbuf, MPI_Offset pos, void *d)
{ return dr_convert(d, 0, 1, buf, type, count, fbuf, pos); }
static int dr_write_c(void *buf, int type, MPI_Count count, void *fbuf, MPI_Offset pos, void *d)
{ return dr_convert(d, 1, 1, buf, type, count, fbuf, pos); }
static int dr_extent(int type, MPI_Aint *extent, void *d_)
{
    datarep *d = d_;
    return mp_abi_err_in(d->extent((MPI_Datatype)mp_abi_out_datatype(type), extent, d->extra));
}
static int register_datarep(int (*reg)(const char *, void *, void *, void *, void *),
                            const char *name, void *rd, void *wr, void *rd_t, void *wr_t,
                            MPI_Datarep_extent_function *extent, void *extra)
{
    datarep *d = malloc(sizeof *d);
    if (d == NULL)
        return mp_abi_err_out(mp_error(NULL, mp_abi_errclass_in(MPI_ERR_NO_MEM),
                                       "MPI_Register_datarep", "out of memory"));
    *d = (datarep){ rd, wr, extent, extra };
    int rc = reg(name, rd ? rd_t : NULL, wr ? wr_t : NULL, extent ? (void *)dr_extent : NULL, d);
    if (rc != 0) free(d);
    return mp_abi_err_out(rc);
}
int PMPI_Register_datarep(const char *datarep_name, MPI_Datarep_conversion_function *read_fn,
                          MPI_Datarep_conversion_function *write_fn,
                          MPI_Datarep_extent_function *extent_fn, void *extra_state)
{
    return register_datarep(mp_mpich_PMPI_Register_datarep, datarep_name, (void *)read_fn,
                            (void *)write_fn, (void *)dr_read, (void *)dr_write, extent_fn,
                            extra_state);
}
int PMPI_Register_datarep_c(const char *datarep_name, MPI_Datarep_conversion_function_c *read_fn,
                            MPI_Datarep_conversion_function_c *write_fn,
                            MPI_Datarep_extent_function *extent_fn, void *extra_state)
{
    return register_datarep(mp_mpich_PMPI_Register_datarep_c, datarep_name, (void *)read_fn,
                            (void *)write_fn, (void *)dr_read_c, (void *)dr_write_c, extent_fn,
                            extra_state);
}
#pragma weak MPI_Register_datarep = PMPI_Register_datarep
#pragma weak MPI_Register_datarep_c = PMPI_Register_datarep_c

/* ---- MPI_T event callbacks --------------------------------------------------------------- */
/* MemPI calls an event callback, a dropped handler and a free callback with its own
 * MPI_T_cb_safety numbers, and passes back the user_data it was given: a block (evcb) holding
 * the user's function and user_data.  The registration and the event instance are the same
 * pointers in both ABIs.  A dropped handler gets no user_data of its own (MemPI passes the one
 * of the callback being delivered, or of MPI_T_event_handle_free), so the user's dropped
 * handler is kept per registration (evreg), which every block points to.  Blocks live until
 * their registration is freed: a callback replaced at one safety level may still be running
 * on another thread, so its block is not freed then.  The list of registrations is short (one
 * entry per registration with callbacks) and read only when callbacks change. */
extern int mp_mpich_PMPI_T_event_register_callback(void *, int, int, void *, void *);
extern int mp_mpich_PMPI_T_event_set_dropped_handler(void *, void *);
extern int mp_mpich_PMPI_T_event_handle_free(void *, void *, void *);

typedef struct evreg evreg;
typedef struct evcb {
    void *fn;                            /* the user's event or free callback */
    void *user;
    evreg *reg;                          /* NULL: the registration never had standard-ABI callbacks */
    struct evcb *next;
} evcb;
struct evreg {
    MPI_T_event_registration handle;
    MPI_T_event_dropped_cb_function *dropped;
    evcb *blocks;
    evreg *next;
};
static evreg *evregs;
static pthread_mutex_t evlock = PTHREAD_MUTEX_INITIALIZER;

/* The registration's entry, made when make is set; call with evlock held. */
static evreg *evreg_of(MPI_T_event_registration h, int make)
{
    for (evreg *r = evregs; r; r = r->next)
        if (r->handle == h)
            return r;
    evreg *r = make ? calloc(1, sizeof *r) : NULL;
    if (r) {
        *r = (evreg){ .handle = h, .next = evregs };
        evregs = r;
    }
    return r;
}
/* Unlinks and frees the entry with its blocks; call with evlock held. */
static void evreg_drop(evreg *r)
{
    for (evreg **pp = &evregs; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    for (evcb *b = r->blocks, *nb; b; b = nb) {
        nb = b->next;
        free(b);
    }
    free(r);
}
static int ev_no_mem(const char *func)
{
    return mp_abi_err_out(mp_error(NULL, mp_abi_errclass_in(MPI_ERR_NO_MEM), func, "out of memory"));
}

static void ev_event(MPI_T_event_instance e, MPI_T_event_registration reg, int safety, void *b_)
{
    evcb *b = b_;
    ((MPI_T_event_cb_function *)b->fn)(e, reg, mp_abi_cbsafety_out(safety), b->user);
}
static void ev_dropped(MPI_Count count, MPI_T_event_registration reg, int source, int safety,
                       void *b_)
{
    evcb *b = b_;
    if (b && b->reg && b->reg->dropped)
        b->reg->dropped(count, reg, source, mp_abi_cbsafety_out(safety), b->user);
}
static void ev_free(MPI_T_event_registration reg, int safety, void *b_)
{
    evcb *b = b_;
    if (b->fn)
        ((MPI_T_event_free_cb_function *)b->fn)(reg, mp_abi_cbsafety_out(safety), b->user);
}

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function *event_cb_function)
{
    const char *func = "MPI_T_event_register_callback";
    evcb *b = NULL;
    pthread_mutex_lock(&evlock);
    if (event_cb_function) {
        evreg *r = evreg_of(event_registration, 1);
        b = r ? malloc(sizeof *b) : NULL;
        if (b == NULL) {
            pthread_mutex_unlock(&evlock);
            return ev_no_mem(func);
        }
        *b = (evcb){ (void *)event_cb_function, user_data, r, r->blocks };
        r->blocks = b;
    }
    int rc = mp_mpich_PMPI_T_event_register_callback(event_registration,
                                                     mp_abi_cbsafety_in(cb_safety), mp_abi_in(info),
                                                     b, b ? (void *)ev_event : NULL);
    if (rc != 0 && b) {                  /* not registered: the block goes, and an empty entry */
        evreg *r = b->reg;
        r->blocks = b->next;
        free(b);
        if (r->blocks == NULL && r->dropped == NULL)
            evreg_drop(r);
    }
    pthread_mutex_unlock(&evlock);
    return mp_abi_err_out(rc);
}

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function *dropped_cb_function)
{
    pthread_mutex_lock(&evlock);
    evreg *r = evreg_of(event_registration, 1);
    if (r == NULL) {
        pthread_mutex_unlock(&evlock);
        return ev_no_mem("MPI_T_event_set_dropped_handler");
    }
    int rc = mp_mpich_PMPI_T_event_set_dropped_handler(event_registration,
                                                       dropped_cb_function ? (void *)ev_dropped : NULL);
    if (rc == 0)
        r->dropped = dropped_cb_function;
    else if (r->blocks == NULL && r->dropped == NULL)
        evreg_drop(r);
    pthread_mutex_unlock(&evlock);
    return mp_abi_err_out(rc);
}

/* MemPI calls the last dropped handler and the free callback inside MPI_T_event_handle_free,
 * so the registration's blocks are freed after it returns. */
int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function *free_cb_function)
{
    pthread_mutex_lock(&evlock);
    evreg *r = evreg_of(event_registration, 0);
    pthread_mutex_unlock(&evlock);
    evcb fb = { (void *)free_cb_function, user_data, r, NULL };
    int rc = mp_mpich_PMPI_T_event_handle_free(event_registration, &fb, (void *)ev_free);
    if (rc == 0 && r) {
        pthread_mutex_lock(&evlock);
        evreg_drop(r);
        pthread_mutex_unlock(&evlock);
    }
    return mp_abi_err_out(rc);
}
#pragma weak MPI_T_event_register_callback = PMPI_T_event_register_callback
#pragma weak MPI_T_event_set_dropped_handler = PMPI_T_event_set_dropped_handler
#pragma weak MPI_T_event_handle_free = PMPI_T_event_handle_free
