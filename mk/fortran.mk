# fortran.mk -- Fortran binding: generated entry points, mpif.h, the `mpi` module, mpifort.
# MemPI, BSD-3-Clause (see LICENSE).
#
# The C entry points (src/fortran/*.c) are part of the library like every src/*/*.c; this
# fragment adds the generated ones (tools/gen-fortran -> $(BUILD)/gen/fortran_gen.c), writes
# mpif.h from include/mpi.h, compiles the `mpi` module with the project's Fortran compiler
# into $(BUILD)/include/mpi.mod, and installs the mpifort/mpif77/mpif90 wrappers.  Without a
# Fortran compiler the module is skipped with a message; everything else still builds.

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
$(BUILD)/include/mpi.mod: src/fortran/mpi.f90 $(BUILD)/include/mpif.h
	@mkdir -p $(BUILD)/obj/fortran
	$(FC) -cpp -c -I$(BUILD)/include -J$(BUILD)/include $< -o $(BUILD)/obj/fortran/mpi_mod.o
FORTRAN_MODULE := $(BUILD)/include/mpi.mod
else
FORTRAN_MODULE :=
$(info fortran.mk: no Fortran compiler '$(FC)' found; the `mpi` module is not built)
endif

.PHONY: fortran
fortran: $(BUILD)/include/mpif.h $(FORTRAN_MODULE) $(FORTRAN_WRAPPERS)
all: fortran
