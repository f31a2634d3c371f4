/* mpio.h -- MPI-IO declarations, kept as a separate name for programs that include it.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * MPICH ships ROMIO's mpio.h and its mpi.h includes it.  In MemPI everything MPI-IO needs
 * (MPI_File, MPI_Offset, MPI_MODE_*, MPI_SEEK_*, the MPI_File_* prototypes) lives in mpi.h,
 * so this file only forwards to it: `#include <mpio.h>` keeps compiling.
 */
#ifndef MEMPI_MPIO_H
#define MEMPI_MPIO_H
#include "mpi.h"
#endif
