# fortran.mk -- Fortran binding: generated entry points, mpif.h, the `mpi` and `mpi_f08` modules, mpifort.
# MemPI, BSD-3-Clause (see LICENSE).
#
# The C entry points (src/fortran/*.c) are part of the library like every src/*/*.c; this
# fragment adds the generated ones (tools/gen-fortran -> $(BUILD)/gen/fortran_gen.c, and
# tools/gen-fortran-f08 -> $(BUILD)/gen/fortran_f08.c, the C side of mpi_f08), writes mpif.h
# from include/mpi.h, compiles the `mpi` module with the project's Fortran compiler into
# $(BUILD)/include/mpi.mod (with the explicit interfaces gen-fortran-f08 writes into
# $(BUILD)/gen/mpi_interfaces.inc), the generated `mpi_f08` module into $(BUILD)/include/mpi_f08.mod
# and its procedures into $(BUILD)/lib/libmpi_f08.so (Fortran code, so not in libmpi, which C
# programs load without libgfortran; mpifort links it when present), and installs the
# mpifort/mpif77/mpif90 wrappers.  The C side of mpi_f08 reads CFI descriptors, so it is
# compiled with the Fortran compiler's ISO_Fortran_binding.h.  Without a Fortran compiler the
# modules are skipped with a message; everything else still builds.

ifeq ($(origin FC),default)
FC := gfortran
endif
FORTRAN_HAVE_FC := $(shell command -v $(FC) 2>/dev/null)

FORTRAN_GEN_C   := $(BUILD)/gen/fortran_gen.c
FORTRAN_GEN_OBJ := $(BUILD)/obj/gen/fortran_gen.o
LIB_OBJ += $(FORTRAN_GEN_OBJ)
# The library rules were read before this fragment, so their prerequisite lists do not see
# the line above; name the object again here (their recipes expand $(LIB_OBJ) late and do).
$(LIBFILE) $(BUILD)/lib/libmempi_internal.a: $(FORTRAN_GEN_OBJ)

$(FORTRAN_GEN_C): include/mpi.h tools/gen-fortran $(wildcard src/fortran/*.c)
	@mkdir -p $(dir $@)
	python3 tools/gen-fortran wrappers include/mpi.h src/fortran $@

$(FORTRAN_GEN_OBJ): $(FORTRAN_GEN_C) src/fortran/fortran.h include/mpi.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS) -c $< -o $@

# mpi_f08: one generator run writes the module source and its C side.
FORTRAN_F08_C   := $(BUILD)/gen/fortran_f08.c
FORTRAN_F08_F90 := $(BUILD)/gen/mpi_f08.f90
FORTRAN_MPI_INC := $(BUILD)/gen/mpi_interfaces.inc
FORTRAN_F08_OBJ := $(BUILD)/obj/gen/fortran_f08.o
FORTRAN_CFI_INC := $(if $(FORTRAN_HAVE_FC),-I$(shell $(FC) -print-file-name=include))
LIB_OBJ += $(FORTRAN_F08_OBJ)
$(LIBFILE) $(BUILD)/lib/libmempi_internal.a: $(FORTRAN_F08_OBJ)

$(FORTRAN_F08_C) $(FORTRAN_F08_F90) $(FORTRAN_MPI_INC) &: include/mpi.h tools/gen-fortran \
        tools/gen-fortran-f08 $(wildcard src/fortran/*.c)
	@mkdir -p $(dir $@)
	python3 tools/gen-fortran-f08 include/mpi.h src/fortran $(FORTRAN_F08_F90) $(FORTRAN_F08_C) \
	    $(FORTRAN_MPI_INC)

$(FORTRAN_F08_OBJ): $(FORTRAN_F08_C) src/fortran/fortran.h include/mpi.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS) $(FORTRAN_CFI_INC) -c $< -o $@
$(BUILD)/obj/src/fortran/f08.o: CFLAGS += $(FORTRAN_CFI_INC)

# mpif.h is generated from mpi.h so the two cannot disagree; the copy in include/ is the same
# text for readers of the source tree, and a stale copy is reported.
$(BUILD)/include/mpif.h: include/mpi.h tools/gen-fortran
	@mkdir -p $(dir $@)
	python3 tools/gen-fortran mpif include/mpi.h $@
	@cmp -s $@ include/mpif.h || echo "fortran.mk: include/mpif.h differs from the generated one;" \
	    "refresh it with: tools/gen-fortran mpif include/mpi.h include/mpif.h"

# mpifort defaults to the compiler that built mpi.mod (a module file only fits the compiler
# that wrote it).
FORTRAN_WRAPPERS := $(BUILD)/bin/mpifort $(BUILD)/bin/mpif77 $(BUILD)/bin/mpif90
$(BUILD)/bin/mpifort: tools/wrappers/wrapper.in
	$(call make_wrapper,mpifort,Fortran,MEMPI_FC,$(FC))
$(BUILD)/bin/mpif77 $(BUILD)/bin/mpif90: $(BUILD)/bin/mpifort
	ln -sf mpifort $@

ifneq ($(FORTRAN_HAVE_FC),)
$(BUILD)/include/mpi.mod: src/fortran/mpi.f90 $(BUILD)/include/mpif.h $(FORTRAN_MPI_INC)
	@mkdir -p $(BUILD)/obj/fortran
	$(FC) -cpp -c -I$(BUILD)/include -I$(BUILD)/gen -J$(BUILD)/include $< -o $(BUILD)/obj/fortran/mpi_mod.o
# The mpi_f08 procedures call the C side through BIND(C) interfaces with default LOGICAL and
# INTEGER arguments, which gfortran passes as C ints but warns about (-Wc-binding-type).
$(BUILD)/include/mpi_f08.mod $(BUILD)/lib/libmpi_f08.so &: $(FORTRAN_F08_F90) $(LIBFILE)
	@mkdir -p $(BUILD)/obj/fortran $(BUILD)/lib
	$(FC) -cpp -O1 -fPIC -Wno-c-binding-type -c -J$(BUILD)/include $< -o $(BUILD)/obj/fortran/mpi_f08.o
	$(FC) -shared -Wl,-soname,libmpi_f08.so $(LDFLAGS_SAN) -o $(BUILD)/lib/libmpi_f08.so \
	    $(BUILD)/obj/fortran/mpi_f08.o -L$(BUILD)/lib -lmpi -Wl,-rpath,'$$ORIGIN'
# The same procedures over the standard ABI's library (`mpifort -mpi-abi`): libmpi_abi.so.1
# exports MemPI's Fortran binding unchanged (src/abi/libmpi_abi.map), so only the library they
# are linked to differs, and a program never loads libmpi.so.12 beside libmpi_abi.so.1.
$(BUILD)/lib/libmpi_abi_f08.so: $(BUILD)/lib/libmpi_f08.so $(ABI_LIB)
	$(FC) -shared -Wl,-soname,libmpi_abi_f08.so $(LDFLAGS_SAN) -o $@ \
	    $(BUILD)/obj/fortran/mpi_f08.o -L$(BUILD)/lib -lmpi_abi -Wl,-rpath,'$$ORIGIN'
FORTRAN_MODULE := $(BUILD)/include/mpi.mod $(BUILD)/include/mpi_f08.mod $(BUILD)/lib/libmpi_f08.so \
                  $(BUILD)/lib/libmpi_abi_f08.so
else
FORTRAN_MODULE :=
$(info fortran.mk: no Fortran compiler '$(FC)' found; the `mpi` and `mpi_f08` modules are not built)
endif

.PHONY: fortran
fortran: $(BUILD)/include/mpif.h $(FORTRAN_MODULE) $(FORTRAN_WRAPPERS)
all: fortran
