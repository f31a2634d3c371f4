# abi.mk -- libmpi_abi.so.1: the MPI 5.0 standard ABI beside the MPICH ABI.  MemPI, BSD-3-Clause.
#
# One implementation, two ABIs.  The objects of libmpi.so.12 are linked once more into one
# relocatable object whose MPI_x/PMPI_x symbols are renamed mp_mpich_MPI_x/mp_mpich_PMPI_x
# (objcopy); src/abi/ and the layer tools/gen-abi generates from include/mpi.h define the
# standard ABI's MPI_x/PMPI_x over them, and a version script exports only those.  The
# standard ABI's header is generated too (include/abi/mpi.h.in + the prototypes) and installed
# as include/abi/mpi.h; `mpicc -mpi-abi` compiles against it and links -lmpi_abi.
ABI_SONAME  := libmpi_abi.so.1
ABI_LIB     := $(BUILD)/lib/$(ABI_SONAME)
ABI_HEADER  := $(BUILD)/include/abi/mpi.h
ABI_GEN     := $(BUILD)/gen/abi
ABI_SRC     := $(sort $(wildcard src/abi/*.c))
ABI_OBJ     := $(patsubst src/abi/%.c,$(BUILD)/obj/abi/%.o,$(ABI_SRC)) $(BUILD)/obj/abi/abi_gen.o
# Default visibility, so that the entry points and their `#pragma weak` aliases are exported;
# src/abi/abi.h hides its own tables and helpers (they bind locally, no GOT or PLT).
ABI_CFLAGS  := -I$(ABI_GEN) -I$(BUILD)/include/abi $(filter-out -fvisibility=hidden,$(CFLAGS_COMMON))

all: $(ABI_LIB) $(ABI_HEADER)
lib: $(ABI_LIB)

$(ABI_GEN)/abi.stamp: include/mpi.h include/abi/mpi.h.in include/abi/functions.h tools/gen-abi $(ABI_SRC)
	@mkdir -p $(ABI_GEN) $(dir $(ABI_HEADER))
	python3 tools/gen-abi include/mpi.h include/abi/mpi.h.in include/abi/functions.h src/abi \
	    $(ABI_HEADER) $(ABI_GEN)/abi_gen.c
	@touch $@
$(ABI_HEADER) $(ABI_GEN)/abi_gen.c $(ABI_GEN)/abi_tables.h: $(ABI_GEN)/abi.stamp
	@test -f $@ || { rm -f $<; $(MAKE) --no-print-directory $<; }

$(BUILD)/obj/abi/%.o: src/abi/%.c $(ABI_GEN)/abi.stamp
	@mkdir -p $(dir $@)
	$(CC) $(ABI_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/abi/abi_gen.o: $(ABI_GEN)/abi.stamp src/abi/abi.h
	@mkdir -p $(dir $@)
	$(CC) $(ABI_CFLAGS) $(CFLAGS) -Isrc -Werror=implicit-function-declaration -c $(ABI_GEN)/abi_gen.c -o $@

# MemPI's objects with their MPI ABI renamed (the symbols' list comes from the objects; with
# SANITIZE=address also the sanitizer's ODR indicators of MPI_ variables, defined in both).
$(BUILD)/obj/abi/mempi.o: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	ld -r -o $@.tmp $(LIB_OBJ)
	nm -g --defined-only $@.tmp | awk '$$3 ~ /^(__odr_asan[.])?P?MPI_/ { match($$3, /P?MPI_/); \
	    print $$3, substr($$3, 1, RSTART - 1) "mp_mpich_" substr($$3, RSTART) }' > $@.syms
	objcopy --redefine-syms=$@.syms $@.tmp $@
	@rm -f $@.tmp

$(ABI_LIB): $(ABI_OBJ) $(BUILD)/obj/abi/mempi.o src/abi/libmpi_abi.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(ABI_SONAME) -Wl,--version-script=src/abi/libmpi_abi.map \
	    $(LDFLAGS_SAN) -o $@ $(ABI_OBJ) $(BUILD)/obj/abi/mempi.o $(LIBS)
	ln -sf $(ABI_SONAME) $(BUILD)/lib/libmpi_abi.so

$(ABI_OBJ): $(FLAGS_STAMP)
-include $(ABI_OBJ:.o=.d)
