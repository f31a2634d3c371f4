/* probe.c -- prints every constant, handle, sentinel and type size of mpi.h, for comparison.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * check-abi compiles this file twice, once against MemPI's include/mpi.h and once against
 * MPICH 4.0.2's, runs both and diffs the output.  The list of names below was generated once
 * from the names MPICH's mpi.h defines (object-like MPI_ macros and enum constants) and is
 * committed, so a name missing from MemPI's header is a compile error, not a silent pass.
 *
 * Each line is "name kind value".  The kind comes from _Generic, so an int constant that
 * became a long, or MPI_Offset spelled long long instead of long, shows up as a difference
 * too.  Nothing here may reference a library symbol at run time (the probe links against no
 * MPI library): the extern objects and the MPI_*_DUP_FN callbacks are only inspected through
 * sizeof and _Generic, which do not evaluate their operand.
 */
#include <mpi.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KIND(x) _Generic((x),                                   \
    char: "char", signed char: "signed char", unsigned char: "unsigned char",    \
    short: "short", unsigned short: "unsigned short",           \
    int: "int", unsigned: "unsigned",                           \
    long: "long", unsigned long: "unsigned long",               \
    long long: "long long", unsigned long long: "unsigned long long", \
    float: "float", double: "double", long double: "long double", \
    void *: "void *", char *: "char *", int *: "int *", char **: "char **", \
    char ***: "char ***", MPI_Status *: "MPI_Status *", MPI_F08_status *: "MPI_F08_status *", \
    default: "other")

/* Pointer handle types are distinct struct pointers in each header; name them by role. */
#define PTRKIND(x) _Generic((x),                                \
    void *: "void *", int *: "int *", char **: "char **", char ***: "char ***",   \
    MPI_Status *: "MPI_Status *", MPI_File: "MPI_File", MPI_T_enum: "MPI_T_enum", \
    MPI_T_cvar_handle: "MPI_T_cvar_handle", MPI_T_pvar_handle: "MPI_T_pvar_handle", \
    MPI_T_pvar_session: "MPI_T_pvar_session", default: "other")

#define INT(x)     printf("%s %s %lld\n", #x, KIND(x), (long long)(x))
#define PTR(x)     printf("%s %s %lld\n", #x, PTRKIND(x), (long long)(intptr_t)(x))
#define STR(x)     printf("%s string \"%s\"\n", #x, x)
#define FN_NULL(x) printf("%s fnptr %lld\n", #x, (long long)(intptr_t)(x))
#define FN_DUP(x)  printf("%s fnptr size %zu\n", #x, sizeof(x))
#define EXT(x)     printf("%s extern size %zu %s\n", #x, sizeof(x), KIND(x))
#define TYPE(t)    printf("%s type size %zu align %zu %s\n", #t, sizeof(t), alignof(t), KIND((t)0))
#define PTYPE(t)   printf("%s pointer-type size %zu %s\n", #t, sizeof(t), PTRKIND((t)0))
#define STYPE(t)   printf("%s struct size %zu align %zu\n", #t, sizeof(t), alignof(t))
#define FIELD(t, f) printf("%s.%s offset %zu size %zu\n", #t, #f, offsetof(t, f), sizeof(((t *)0)->f))

static void types(void)
{
    TYPE(MPI_Aint);
    TYPE(MPI_Offset);
    TYPE(MPI_Count);
    TYPE(MPI_Fint);
    TYPE(MPI_Comm);
    TYPE(MPI_Group);
    TYPE(MPI_Datatype);
    TYPE(MPI_Op);
    TYPE(MPI_Errhandler);
    TYPE(MPI_Info);
    TYPE(MPI_Request);
    TYPE(MPI_Message);
    TYPE(MPI_Win);
    TYPE(MPI_Session);
    TYPE(MPI_T_cb_safety);
    TYPE(MPI_T_source_order);
    PTYPE(MPI_File);
    PTYPE(MPI_T_enum);
    PTYPE(MPI_T_cvar_handle);
    PTYPE(MPI_T_pvar_handle);
    PTYPE(MPI_T_pvar_session);
    printf("MPI_T_event_registration pointer-type size %zu\n", sizeof(MPI_T_event_registration));
    printf("MPI_T_event_instance pointer-type size %zu\n", sizeof(MPI_T_event_instance));
    STYPE(MPI_Status);
    FIELD(MPI_Status, count_lo);
    FIELD(MPI_Status, count_hi_and_cancelled);
    FIELD(MPI_Status, MPI_SOURCE);
    FIELD(MPI_Status, MPI_TAG);
    FIELD(MPI_Status, MPI_ERROR);
    STYPE(MPI_F08_status);
    FIELD(MPI_F08_status, count_lo);
    FIELD(MPI_F08_status, count_hi_and_cancelled);
    FIELD(MPI_F08_status, MPI_SOURCE);
    FIELD(MPI_F08_status, MPI_TAG);
    FIELD(MPI_F08_status, MPI_ERROR);
}

static void externs(void)
{
    EXT(MPI_UNWEIGHTED);
    EXT(MPI_WEIGHTS_EMPTY);
    EXT(MPI_F_STATUS_IGNORE);
    EXT(MPI_F_STATUSES_IGNORE);
    EXT(MPI_F08_STATUS_IGNORE);
    EXT(MPI_F08_STATUSES_IGNORE);
    EXT(MPIR_F08_MPI_STATUS_IGNORE_OBJ);
    printf("MPIR_F08_MPI_STATUSES_IGNORE_OBJ extern size %zu\n", sizeof(MPIR_F08_MPI_STATUSES_IGNORE_OBJ));
    EXT(MPIR_F08_MPI_IN_PLACE);
    EXT(MPIR_F08_MPI_BOTTOM);
    printf("MPI_T_PVAR_ALL_HANDLES extern size %zu %s\n", sizeof(MPI_T_PVAR_ALL_HANDLES),
           PTRKIND(MPI_T_PVAR_ALL_HANDLES));
}

/* Generated from MPICH 4.0.2's mpi.h: every object-like MPI_ macro and enum constant. */
static void constants(void)
{
    INT(MPI_2DOUBLE_PRECISION);
    INT(MPI_2INT);
    INT(MPI_2INTEGER);
    INT(MPI_2REAL);
    INT(MPI_AINT);
    STR(MPI_AINT_FMT_DEC_SPEC);
    STR(MPI_AINT_FMT_HEX_SPEC);
    INT(MPI_ANY_SOURCE);
    INT(MPI_ANY_TAG);
    INT(MPI_APPNUM);
    PTR(MPI_ARGVS_NULL);
    PTR(MPI_ARGV_NULL);
    INT(MPI_BAND);
    INT(MPI_BOR);
    PTR(MPI_BOTTOM);
    INT(MPI_BSEND_OVERHEAD);
    INT(MPI_BXOR);
    INT(MPI_BYTE);
    INT(MPI_CART);
    INT(MPI_CHAR);
    INT(MPI_CHARACTER);
    INT(MPI_COMBINER_CONTIGUOUS);
    INT(MPI_COMBINER_DARRAY);
    INT(MPI_COMBINER_DUP);
    INT(MPI_COMBINER_F90_COMPLEX);
    INT(MPI_COMBINER_F90_INTEGER);
    INT(MPI_COMBINER_F90_REAL);
    INT(MPI_COMBINER_HINDEXED);
    INT(MPI_COMBINER_HINDEXED_BLOCK);
    INT(MPI_COMBINER_HINDEXED_INTEGER);
    INT(MPI_COMBINER_HVECTOR);
    INT(MPI_COMBINER_HVECTOR_INTEGER);
    INT(MPI_COMBINER_INDEXED);
    INT(MPI_COMBINER_INDEXED_BLOCK);
    INT(MPI_COMBINER_NAMED);
    INT(MPI_COMBINER_RESIZED);
    INT(MPI_COMBINER_STRUCT);
    INT(MPI_COMBINER_STRUCT_INTEGER);
    INT(MPI_COMBINER_SUBARRAY);
    INT(MPI_COMBINER_VECTOR);
    FN_DUP(MPI_COMM_DUP_FN);
    INT(MPI_COMM_NULL);
    FN_NULL(MPI_COMM_NULL_COPY_FN);
    FN_NULL(MPI_COMM_NULL_DELETE_FN);
    INT(MPI_COMM_SELF);
    INT(MPI_COMM_TYPE_HW_GUIDED);
    INT(MPI_COMM_TYPE_HW_UNGUIDED);
    INT(MPI_COMM_TYPE_SHARED);
    INT(MPI_COMM_WORLD);
    INT(MPI_COMPLEX);
    INT(MPI_COMPLEX16);
    INT(MPI_COMPLEX32);
    INT(MPI_COMPLEX8);
    INT(MPI_CONGRUENT);
    FN_NULL(MPI_CONVERSION_FN_NULL);
    FN_NULL(MPI_CONVERSION_FN_NULL_C);
    INT(MPI_COUNT);
    INT(MPI_CXX_BOOL);
    INT(MPI_CXX_DOUBLE_COMPLEX);
    INT(MPI_CXX_FLOAT_COMPLEX);
    INT(MPI_CXX_LONG_DOUBLE_COMPLEX);
    INT(MPI_C_BOOL);
    INT(MPI_C_COMPLEX);
    INT(MPI_C_DOUBLE_COMPLEX);
    INT(MPI_C_FLOAT_COMPLEX);
    INT(MPI_C_LONG_DOUBLE_COMPLEX);
    INT(MPI_DATATYPE_NULL);
    INT(MPI_DISPLACEMENT_CURRENT);
    INT(MPI_DISTRIBUTE_BLOCK);
    INT(MPI_DISTRIBUTE_CYCLIC);
    INT(MPI_DISTRIBUTE_DFLT_DARG);
    INT(MPI_DISTRIBUTE_NONE);
    INT(MPI_DIST_GRAPH);
    INT(MPI_DOUBLE);
    INT(MPI_DOUBLE_COMPLEX);
    INT(MPI_DOUBLE_INT);
    INT(MPI_DOUBLE_PRECISION);
    FN_DUP(MPI_DUP_FN);
    PTR(MPI_ERRCODES_IGNORE);
    INT(MPI_ERRHANDLER_NULL);
    INT(MPI_ERRORS_ABORT);
    INT(MPI_ERRORS_ARE_FATAL);
    INT(MPI_ERRORS_RETURN);
    INT(MPI_ERR_ACCESS);
    INT(MPI_ERR_AMODE);
    INT(MPI_ERR_ARG);
    INT(MPI_ERR_ASSERT);
    INT(MPI_ERR_BAD_FILE);
    INT(MPI_ERR_BASE);
    INT(MPI_ERR_BUFFER);
    INT(MPI_ERR_COMM);
    INT(MPI_ERR_CONVERSION);
    INT(MPI_ERR_COUNT);
    INT(MPI_ERR_DIMS);
    INT(MPI_ERR_DISP);
    INT(MPI_ERR_DUP_DATAREP);
    INT(MPI_ERR_FILE);
    INT(MPI_ERR_FILE_EXISTS);
    INT(MPI_ERR_FILE_IN_USE);
    INT(MPI_ERR_GROUP);
    INT(MPI_ERR_INFO);
    INT(MPI_ERR_INFO_KEY);
    INT(MPI_ERR_INFO_NOKEY);
    INT(MPI_ERR_INFO_VALUE);
    INT(MPI_ERR_INTERN);
    INT(MPI_ERR_IN_STATUS);
    INT(MPI_ERR_IO);
    INT(MPI_ERR_KEYVAL);
    INT(MPI_ERR_LASTCODE);
    INT(MPI_ERR_LOCKTYPE);
    INT(MPI_ERR_NAME);
    INT(MPI_ERR_NOT_SAME);
    INT(MPI_ERR_NO_MEM);
    INT(MPI_ERR_NO_SPACE);
    INT(MPI_ERR_NO_SUCH_FILE);
    INT(MPI_ERR_OP);
    INT(MPI_ERR_OTHER);
    INT(MPI_ERR_PENDING);
    INT(MPI_ERR_PORT);
    INT(MPI_ERR_PROC_ABORTED);
    INT(MPI_ERR_QUOTA);
    INT(MPI_ERR_RANK);
    INT(MPI_ERR_READ_ONLY);
    INT(MPI_ERR_REQUEST);
    INT(MPI_ERR_RMA_ATTACH);
    INT(MPI_ERR_RMA_CONFLICT);
    INT(MPI_ERR_RMA_FLAVOR);
    INT(MPI_ERR_RMA_RANGE);
    INT(MPI_ERR_RMA_SHARED);
    INT(MPI_ERR_RMA_SYNC);
    INT(MPI_ERR_ROOT);
    INT(MPI_ERR_SERVICE);
    INT(MPI_ERR_SESSION);
    INT(MPI_ERR_SIZE);
    INT(MPI_ERR_SPAWN);
    INT(MPI_ERR_TAG);
    INT(MPI_ERR_TOPOLOGY);
    INT(MPI_ERR_TRUNCATE);
    INT(MPI_ERR_TYPE);
    INT(MPI_ERR_UNKNOWN);
    INT(MPI_ERR_UNSUPPORTED_DATAREP);
    INT(MPI_ERR_UNSUPPORTED_OPERATION);
    INT(MPI_ERR_VALUE_TOO_LARGE);
    INT(MPI_ERR_WIN);
    PTR(MPI_FILE_NULL);
    INT(MPI_FLOAT);
    INT(MPI_FLOAT_INT);
    INT(MPI_F_ERROR);
    INT(MPI_F_SOURCE);
    INT(MPI_F_STATUS_SIZE);
    INT(MPI_F_TAG);
    INT(MPI_GRAPH);
    INT(MPI_GROUP_EMPTY);
    INT(MPI_GROUP_NULL);
    INT(MPI_HOST);
    INT(MPI_IDENT);
    INT(MPI_INFO_ENV);
    INT(MPI_INFO_NULL);
    INT(MPI_INT);
    INT(MPI_INT16_T);
    INT(MPI_INT32_T);
    INT(MPI_INT64_T);
    INT(MPI_INT8_T);
    INT(MPI_INTEGER);
    INT(MPI_INTEGER1);
    INT(MPI_INTEGER16);
    INT(MPI_INTEGER2);
    INT(MPI_INTEGER4);
    INT(MPI_INTEGER8);
    PTR(MPI_IN_PLACE);
    INT(MPI_IO);
    INT(MPI_KEYVAL_INVALID);
    INT(MPI_LAND);
    INT(MPI_LASTUSEDCODE);
    INT(MPI_LB);
    INT(MPI_LOCK_EXCLUSIVE);
    INT(MPI_LOCK_SHARED);
    INT(MPI_LOGICAL);
    INT(MPI_LONG);
    INT(MPI_LONG_DOUBLE);
    INT(MPI_LONG_DOUBLE_INT);
    INT(MPI_LONG_INT);
    INT(MPI_LONG_LONG);
    INT(MPI_LONG_LONG_INT);
    INT(MPI_LOR);
    INT(MPI_LXOR);
    INT(MPI_MAX);
    INT(MPI_MAXLOC);
    INT(MPI_MAX_DATAREP_STRING);
    INT(MPI_MAX_ERROR_STRING);
    INT(MPI_MAX_INFO_KEY);
    INT(MPI_MAX_INFO_VAL);
    INT(MPI_MAX_LIBRARY_VERSION_STRING);
    INT(MPI_MAX_OBJECT_NAME);
    INT(MPI_MAX_PORT_NAME);
    INT(MPI_MAX_PROCESSOR_NAME);
    INT(MPI_MAX_PSET_NAME_LEN);
    INT(MPI_MAX_STRINGTAG_LEN);
    INT(MPI_MESSAGE_NO_PROC);
    INT(MPI_MESSAGE_NULL);
    INT(MPI_MIN);
    INT(MPI_MINLOC);
    INT(MPI_MODE_APPEND);
    INT(MPI_MODE_CREATE);
    INT(MPI_MODE_DELETE_ON_CLOSE);
    INT(MPI_MODE_EXCL);
    INT(MPI_MODE_NOCHECK);
    INT(MPI_MODE_NOPRECEDE);
    INT(MPI_MODE_NOPUT);
    INT(MPI_MODE_NOSTORE);
    INT(MPI_MODE_NOSUCCEED);
    INT(MPI_MODE_RDONLY);
    INT(MPI_MODE_RDWR);
    INT(MPI_MODE_SEQUENTIAL);
    INT(MPI_MODE_UNIQUE_OPEN);
    INT(MPI_MODE_WRONLY);
    INT(MPI_NO_OP);
    FN_NULL(MPI_NULL_COPY_FN);
    FN_NULL(MPI_NULL_DELETE_FN);
    INT(MPI_OFFSET);
    INT(MPI_OP_NULL);
    INT(MPI_ORDER_C);
    INT(MPI_ORDER_FORTRAN);
    INT(MPI_PACKED);
    INT(MPI_PROC_NULL);
    INT(MPI_PROD);
    INT(MPI_REAL);
    INT(MPI_REAL16);
    INT(MPI_REAL4);
    INT(MPI_REAL8);
    INT(MPI_REPLACE);
    INT(MPI_REQUEST_NULL);
    INT(MPI_ROOT);
    INT(MPI_SEEK_CUR);
    INT(MPI_SEEK_END);
    INT(MPI_SEEK_SET);
    INT(MPI_SESSION_NULL);
    INT(MPI_SHORT);
    INT(MPI_SHORT_INT);
    INT(MPI_SIGNED_CHAR);
    INT(MPI_SIMILAR);
    PTR(MPI_STATUSES_IGNORE);
    PTR(MPI_STATUS_IGNORE);
    INT(MPI_SUBVERSION);
    INT(MPI_SUCCESS);
    INT(MPI_SUM);
    INT(MPI_TAG_UB);
    INT(MPI_THREAD_FUNNELED);
    INT(MPI_THREAD_MULTIPLE);
    INT(MPI_THREAD_SERIALIZED);
    INT(MPI_THREAD_SINGLE);
    INT(MPI_TYPECLASS_COMPLEX);
    INT(MPI_TYPECLASS_INTEGER);
    INT(MPI_TYPECLASS_REAL);
    FN_DUP(MPI_TYPE_DUP_FN);
    FN_NULL(MPI_TYPE_NULL_COPY_FN);
    FN_NULL(MPI_TYPE_NULL_DELETE_FN);
    INT(MPI_T_BIND_INVALID);
    INT(MPI_T_BIND_MPI_COMM);
    INT(MPI_T_BIND_MPI_DATATYPE);
    INT(MPI_T_BIND_MPI_ERRHANDLER);
    INT(MPI_T_BIND_MPI_FILE);
    INT(MPI_T_BIND_MPI_GROUP);
    INT(MPI_T_BIND_MPI_INFO);
    INT(MPI_T_BIND_MPI_MESSAGE);
    INT(MPI_T_BIND_MPI_OP);
    INT(MPI_T_BIND_MPI_REQUEST);
    INT(MPI_T_BIND_MPI_WIN);
    INT(MPI_T_BIND_NO_OBJECT);
    INT(MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    INT(MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    INT(MPI_T_CB_REQUIRE_NONE);
    INT(MPI_T_CB_REQUIRE_THREAD_SAFE);
    PTR(MPI_T_CVAR_HANDLE_NULL);
    PTR(MPI_T_ENUM_NULL);
    INT(MPI_T_ERR_CANNOT_INIT);
    INT(MPI_T_ERR_CVAR_SET_NEVER);
    INT(MPI_T_ERR_CVAR_SET_NOT_NOW);
    INT(MPI_T_ERR_INVALID);
    INT(MPI_T_ERR_INVALID_HANDLE);
    INT(MPI_T_ERR_INVALID_INDEX);
    INT(MPI_T_ERR_INVALID_ITEM);
    INT(MPI_T_ERR_INVALID_NAME);
    INT(MPI_T_ERR_INVALID_SESSION);
    INT(MPI_T_ERR_MEMORY);
    INT(MPI_T_ERR_NOT_INITIALIZED);
    INT(MPI_T_ERR_NOT_SUPPORTED);
    INT(MPI_T_ERR_OUT_OF_HANDLES);
    INT(MPI_T_ERR_OUT_OF_SESSIONS);
    INT(MPI_T_ERR_PVAR_NO_ATOMIC);
    INT(MPI_T_ERR_PVAR_NO_STARTSTOP);
    INT(MPI_T_ERR_PVAR_NO_WRITE);
    INT(MPI_T_PVAR_CLASS_AGGREGATE);
    INT(MPI_T_PVAR_CLASS_COUNTER);
    INT(MPI_T_PVAR_CLASS_GENERIC);
    INT(MPI_T_PVAR_CLASS_HIGHWATERMARK);
    INT(MPI_T_PVAR_CLASS_INVALID);
    INT(MPI_T_PVAR_CLASS_LEVEL);
    INT(MPI_T_PVAR_CLASS_LOWWATERMARK);
    INT(MPI_T_PVAR_CLASS_PERCENTAGE);
    INT(MPI_T_PVAR_CLASS_SIZE);
    INT(MPI_T_PVAR_CLASS_STATE);
    INT(MPI_T_PVAR_CLASS_TIMER);
    PTR(MPI_T_PVAR_HANDLE_NULL);
    PTR(MPI_T_PVAR_SESSION_NULL);
    INT(MPI_T_SCOPE_ALL);
    INT(MPI_T_SCOPE_ALL_EQ);
    INT(MPI_T_SCOPE_CONSTANT);
    INT(MPI_T_SCOPE_GROUP);
    INT(MPI_T_SCOPE_GROUP_EQ);
    INT(MPI_T_SCOPE_INVALID);
    INT(MPI_T_SCOPE_LOCAL);
    INT(MPI_T_SCOPE_READONLY);
    INT(MPI_T_SOURCE_ORDERED);
    INT(MPI_T_SOURCE_UNORDERED);
    INT(MPI_T_VERBOSITY_INVALID);
    INT(MPI_T_VERBOSITY_MPIDEV_ALL);
    INT(MPI_T_VERBOSITY_MPIDEV_BASIC);
    INT(MPI_T_VERBOSITY_MPIDEV_DETAIL);
    INT(MPI_T_VERBOSITY_TUNER_ALL);
    INT(MPI_T_VERBOSITY_TUNER_BASIC);
    INT(MPI_T_VERBOSITY_TUNER_DETAIL);
    INT(MPI_T_VERBOSITY_USER_ALL);
    INT(MPI_T_VERBOSITY_USER_BASIC);
    INT(MPI_T_VERBOSITY_USER_DETAIL);
    INT(MPI_UB);
    INT(MPI_UINT16_T);
    INT(MPI_UINT32_T);
    INT(MPI_UINT64_T);
    INT(MPI_UINT8_T);
    INT(MPI_UNDEFINED);
    INT(MPI_UNEQUAL);
    INT(MPI_UNIVERSE_SIZE);
    INT(MPI_UNSIGNED);
    INT(MPI_UNSIGNED_CHAR);
    INT(MPI_UNSIGNED_LONG);
    INT(MPI_UNSIGNED_LONG_LONG);
    INT(MPI_UNSIGNED_SHORT);
    INT(MPI_VERSION);
    INT(MPI_WCHAR);
    INT(MPI_WIN_BASE);
    INT(MPI_WIN_CREATE_FLAVOR);
    INT(MPI_WIN_DISP_UNIT);
    FN_DUP(MPI_WIN_DUP_FN);
    INT(MPI_WIN_FLAVOR_ALLOCATE);
    INT(MPI_WIN_FLAVOR_CREATE);
    INT(MPI_WIN_FLAVOR_DYNAMIC);
    INT(MPI_WIN_FLAVOR_SHARED);
    INT(MPI_WIN_MODEL);
    INT(MPI_WIN_NULL);
    FN_NULL(MPI_WIN_NULL_COPY_FN);
    FN_NULL(MPI_WIN_NULL_DELETE_FN);
    INT(MPI_WIN_SEPARATE);
    INT(MPI_WIN_SIZE);
    INT(MPI_WIN_UNIFIED);
    INT(MPI_WTIME_IS_GLOBAL);
}

int main(void)
{
    types();
    externs();
    constants();
    return 0;
}
