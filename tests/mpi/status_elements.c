/* mempi-test: np=1,2,3 timeout=60 */
/* status_elements.c -- MPI_Status_set_elements(_x) with MPI_Get_elements(_x) and MPI_Get_count.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_Status_set_elements(status, datatype, n) makes the status say that n basic elements
 * of datatype arrived (MPI 4.0 13.3): MPI_Get_elements must then give n back and MPI_Get_count
 * the number of whole datatype items, or MPI_UNDEFINED when n ends inside an item.  For a
 * struct of mixed types that is not n * size bytes (before this test: setting 4 elements of
 * a struct {int; double; char[2]} read back as 16 elements and a count of 4, not 4 and 1).
 * Counts beyond INT_MAX: the _x/_c queries return them, the int ones MPI_UNDEFINED.  A real
 * message received into the struct type must agree with what set_elements produces.
 */
#include "check.h"
#include <limits.h>
#include <stddef.h>

struct rec { int i; double d; char c[2]; };

static void expect(MPI_Status *st, MPI_Datatype t, const char *what, MPI_Count want_elems,
                   MPI_Count want_count)
{
    MPI_Count ex, cx;
    int e, c;
    CHECK_MPI(MPI_Get_elements_x(st, t, &ex));
    CHECK_MPI(MPI_Get_count_c(st, t, &cx));
    CHECK_MPI(MPI_Get_elements(st, t, &e));
    CHECK_MPI(MPI_Get_count(st, t, &c));
    CHECK(ex == want_elems, "%s: MPI_Get_elements_x %lld, want %lld", what, (long long)ex,
          (long long)want_elems);
    CHECK(cx == want_count, "%s: MPI_Get_count_c %lld, want %lld", what, (long long)cx,
          (long long)want_count);
    int ie = want_elems > INT_MAX ? MPI_UNDEFINED : (int)want_elems;
    int ic = want_count > INT_MAX ? MPI_UNDEFINED : (int)want_count;
    CHECK(e == ie, "%s: MPI_Get_elements %d, want %d", what, e, ie);
    CHECK(c == ic, "%s: MPI_Get_count %d, want %d", what, c, ic);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int bl[3] = { 1, 1, 2 };
    MPI_Aint disp[3] = { offsetof(struct rec, i), offsetof(struct rec, d), offsetof(struct rec, c) };
    MPI_Datatype types[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR }, rec, vec;
    CHECK_MPI(MPI_Type_create_struct(3, bl, disp, types, &rec));
    CHECK_MPI(MPI_Type_commit(&rec));
    CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    MPI_Status st;

    /* 4 elements = one whole struct {int, double, char, char} */
    CHECK_MPI(MPI_Status_set_elements(&st, rec, 4));
    expect(&st, rec, "struct, 4 elements", 4, 1);
    CHECK_MPI(MPI_Status_set_elements(&st, rec, 6));
    expect(&st, rec, "struct, 6 elements", 6, MPI_UNDEFINED);
    CHECK_MPI(MPI_Status_set_elements(&st, rec, 12));
    expect(&st, rec, "struct, 12 elements", 12, 3);
    CHECK_MPI(MPI_Status_set_elements(&st, rec, 0));
    expect(&st, rec, "struct, 0 elements", 0, 0);
    /* basic, vector and pair types */
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_INT, 10));
    expect(&st, MPI_INT, "MPI_INT", 10, 10);
    CHECK_MPI(MPI_Status_set_elements(&st, vec, 6));
    expect(&st, vec, "vector of 3 ints, 6 elements", 6, 2);
    CHECK_MPI(MPI_Status_set_elements(&st, vec, 4));
    expect(&st, vec, "vector of 3 ints, 4 elements", 4, MPI_UNDEFINED);
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 4));
    expect(&st, MPI_DOUBLE_INT, "MPI_DOUBLE_INT, 4 elements", 4, 2);
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_2INT, 3));
    expect(&st, MPI_2INT, "MPI_2INT, 3 elements", 3, MPI_UNDEFINED);

    /* beyond INT_MAX */
    MPI_Count big = 3000000000LL;
    CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_INT, big));
    expect(&st, MPI_INT, "MPI_INT, 3e9 elements", big, big);
    CHECK_MPI(MPI_Status_set_elements_x(&st, rec, 4 * big));
    expect(&st, rec, "struct, 1.2e10 elements", 4 * big, big);
    CHECK_MPI(MPI_Status_set_elements_x(&st, rec, 4 * big + 1));
    expect(&st, rec, "struct, 1.2e10 + 1 elements", 4 * big + 1, MPI_UNDEFINED);
    CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_BYTE, (MPI_Count)INT_MAX + 1));
    expect(&st, MPI_BYTE, "MPI_BYTE, INT_MAX + 1", (MPI_Count)INT_MAX + 1,
           (MPI_Count)INT_MAX + 1);
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_BYTE, INT_MAX));
    expect(&st, MPI_BYTE, "MPI_BYTE, INT_MAX", INT_MAX, INT_MAX);

    /* a real message: 2 structs received with room for 5 */
    struct rec out[2] = { { 1, 2.0, { 'a', 'b' } }, { 3, 4.0, { 'c', 'd' } } }, in[5];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK_MPI(MPI_Sendrecv(out, 2, rec, right, 0, in, 5, rec, left, 0, MPI_COMM_WORLD, &st));
    expect(&st, rec, "received 2 structs", 8, 2);
    CHECK(in[1].i == 3 && in[1].c[1] == 'd', "received data");

    MPI_Type_free(&rec);
    MPI_Type_free(&vec);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("status_elements: OK\n");
    MPI_Finalize();
    return 0;
}
