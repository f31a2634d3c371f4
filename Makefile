# MemPI build (GNU Make).  BSD-3-Clause, see LICENSE.
#
# The build tree is itself an install prefix: build/include, build/lib and
# build/bin are exactly what `make install PREFIX=...` copies.  Every C file
# under src/ is part of the library, so adding a file needs no edit here.
#
#   make                  build library, wrappers, tools
#   make check            build and run the whole test suite
#   make demo             build and run the example programs
#   make config-table     regenerate README.md's table of MEMPI_* variables
#   make SANITIZE=address build into build-address/ with ASan (also: thread)
#   make DEBUG=1          build into build-debug/ with the protocol's assertions (MP_ASSERT)
#   make install PREFIX=/opt/mempi
#   make wheel            a wheel for pip in dist/ (DIST=...): `make install` for a Python environment
#   make dist             the release tarball dist/mempi-<version>.tar.gz (mk/dist.mk)
#   make deb              a Debian package in dist/ (mk/deb.mk, tools/deb/)

PREFIX   ?= /usr/local
SANITIZE ?=
DEBUG    ?=
ifneq ($(SANITIZE),)
BUILD    ?= build-$(SANITIZE)
else ifneq ($(DEBUG),)
BUILD    ?= build-debug
else
BUILD    ?= build
endif

VERSION  := 0.1.0
CC       ?= cc
# Functions start on a 64-byte boundary, so that an edit elsewhere in the library does not
# move a hot loop across a fetch or cache-line boundary (docs/decisions.md, "Code placement").
OPT      ?= -O2 -falign-functions=64
# $(BUILD)/gen is named by its absolute path so that the flags, and so the flags stamp below,
# are the same whether BUILD is given relative (`make`) or absolute (the tests' make install,
# make wheel, make deb): a difference would rebuild everything each time.
CFLAGS_COMMON := -std=c11 -g $(OPT) -fPIC -D_GNU_SOURCE -DMEMPI_BUILD \
                 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
                 -fvisibility=hidden -Iinclude -Isrc -I$(abspath $(BUILD))/gen \
                 -DMEMPI_VERSION='"$(VERSION)"'
ifneq ($(DEBUG),)
CFLAGS_COMMON += -DMP_DEBUG
endif
ifneq ($(SANITIZE),)
CFLAGS_COMMON += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS_SAN   := -fsanitize=$(SANITIZE)
endif
LIBS     := -lpthread -lrt -lm -ldl

# src/abi/ is the standard ABI layer of libmpi_abi (mk/abi.mk), not part of libmpi.so.12.
LIB_SRC  := $(sort $(filter-out src/abi/%,$(wildcard src/*/*.c src/transport/*/*.c)))
LIB_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRC))
# The entry points are generated from mpi.h and src/binding/*.spec (tools/gen-bindings);
# functions declared in mpi.h but implemented nowhere get generated definitions that return
# MPI_ERR_UNSUPPORTED_OPERATION; the list lands in $(BUILD)/gen/missing.txt.
BINDINGS_C := $(BUILD)/gen/bindings.c
BINDINGS_H := $(BUILD)/gen/binding_gen.h
SPECS    := $(sort $(wildcard src/binding/*.spec))
GEN_OBJ  := $(BUILD)/obj/gen/unsupported.o $(BUILD)/obj/gen/bindings.o
LIB_OBJ  += $(GEN_OBJ)
SONAME   := libmpi.so.12
LIBFILE  := $(BUILD)/lib/libmpi.so.12.0.0

TOOLS    := $(BUILD)/bin/mpiexec $(BUILD)/bin/mempi-info
WRAPPERS := $(BUILD)/bin/mpicc $(BUILD)/bin/mpicxx
HEADERS  := $(patsubst include/%,$(BUILD)/include/%,$(wildcard include/*.h))

.PHONY: all lib tools check demo install clean unit bench config-table wheel
all: lib tools $(WRAPPERS) $(BUILD)/lib/pkgconfig/mempi.pc $(HEADERS)

lib: $(LIBFILE) $(BUILD)/lib/libmempi_internal.a

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS) -MMD -MP -c $< -o $@

# The generator rewrites a file only when its text changes, so a description that changes
# one entry point recompiles bindings.c, not every binding file; the stamp records the run.
$(BUILD)/gen/bindings.stamp: include/mpi.h tools/gen-bindings $(SPECS)
	@mkdir -p $(dir $@)
	python3 tools/gen-bindings include/mpi.h src/binding $(BINDINGS_C) $(BINDINGS_H)
	@touch $@
$(BINDINGS_C) $(BINDINGS_H): $(BUILD)/gen/bindings.stamp
	@test -f $@ || { rm -f $<; $(MAKE) --no-print-directory $<; }

# Every binding file includes the generated header (binding.h), also before its first build.
$(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard src/binding/*.c)): $(BINDINGS_H)

$(BUILD)/gen/unsupported.c: include/mpi.h tools/gen-unsupported $(LIB_SRC) $(BINDINGS_C)
	@mkdir -p $(dir $@)
	python3 tools/gen-unsupported include/mpi.h $@ $(BUILD)/gen/missing.txt src $(BINDINGS_C)
	@touch $@   # the generator keeps an unchanged file's time; make needs it newer than src/

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(BINDINGS_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS) -Wno-unused-parameter -Werror=implicit-function-declaration \
	    -MMD -MP -c $< -o $@

$(LIBFILE): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS_SAN) -o $@ $(LIB_OBJ) $(LIBS)
	ln -sf libmpi.so.12.0.0 $(BUILD)/lib/libmpi.so.12
	ln -sf libmpi.so.12     $(BUILD)/lib/libmpi.so
	ln -sf libmpi.so.12.0.0 $(BUILD)/lib/libmpich.so.12
	ln -sf libmpich.so.12   $(BUILD)/lib/libmpich.so

# Unit tests of internals link the same objects statically (hidden symbols).
$(BUILD)/lib/libmempi_internal.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(BUILD)/include/%.h: include/%.h
	@mkdir -p $(dir $@)
	cp $< $@

# Tools: each tools/<name>/ folder is one program; the launcher shares the
# PMI wire-format code with the library.
MPIEXEC_SRC := $(wildcard tools/mpiexec/*.c) src/core/pmi_wire.c
$(BUILD)/bin/mpiexec: $(MPIEXEC_SRC) $(wildcard tools/mpiexec/*.h) src/core/pmi_wire.h src/core/failboard.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS) -o $@ $(MPIEXEC_SRC) $(LDFLAGS_SAN) $(LIBS)

$(BUILD)/bin/mempi-info: $(wildcard tools/mempi-info/*.c) $(LIBFILE) $(BUILD)/lib/libmempi_internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS) -o $@ $(wildcard tools/mempi-info/*.c) \
	    $(BUILD)/lib/libmempi_internal.a $(LDFLAGS_SAN) $(LIBS)

# The compiler wrappers come from one template: $(call make_wrapper,name,language,variable
# naming the compiler,default compiler).  mk/fortran.mk makes mpifort the same way.
define make_wrapper
	@mkdir -p $(dir $@)
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@LDFLAGS_SAN@|$(LDFLAGS_SAN)|g' -e 's|@NAME@|$(1)|g' \
	    -e 's|@LANGUAGE@|$(2)|g' -e 's|@VAR@|$(3)|g' -e 's|@DEFAULT@|$(4)|g' $< > $@
	chmod +x $@
endef
$(BUILD)/bin/mpicc: tools/wrappers/wrapper.in
	$(call make_wrapper,mpicc,C,MEMPI_CC,cc)
$(BUILD)/bin/mpicxx: tools/wrappers/wrapper.in
	$(call make_wrapper,mpicxx,C++,MEMPI_CXX,c++)

$(BUILD)/lib/pkgconfig/mempi.pc: tools/wrappers/mempi.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@PREFIX@|$(abspath $(BUILD))|g' $< > $@

tools: $(TOOLS)

check: all
	tests/run --build $(BUILD)

unit: all
	tests/run --build $(BUILD) --only unit

demo: all
	examples/run-demo $(BUILD)

# README.md's table of MEMPI_* variables is generated from the configuration table.
config-table: $(BUILD)/bin/mempi-info
	tools/gen-config-table $(BUILD)/bin/mempi-info README.md

# DESTDIR stages the install for a package (mk/deb.mk): files go to $(DESTDIR)$(PREFIX), and
# what names the prefix (mempi.pc) names $(PREFIX).
install: all
	mkdir -p $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	cp -RP $(BUILD)/include/* $(DESTDIR)$(PREFIX)/include/   # -R: include/abi/ (standard ABI)
	cp -P $(BUILD)/lib/libmpi* $(DESTDIR)$(PREFIX)/lib/      # libmpi*: also libmpich*
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@PREFIX@|$(PREFIX)|g' tools/wrappers/mempi.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/mempi.pc
	cp -P $(BUILD)/bin/* $(DESTDIR)$(PREFIX)/bin/

# The wheel's build backend (also what `pip install .` runs) calls make again with these
# variables, then `make install` into a staging prefix; see tools/pip/mempi_backend.py.
DIST ?= dist
wheel: all
	+MEMPI_MAKE_FLAGS="BUILD=$(BUILD) $(if $(SANITIZE),SANITIZE=$(SANITIZE)) $(if $(DEBUG),DEBUG=$(DEBUG))" \
	    python3 tools/pip/mempi_backend.py wheel $(DIST)

clean:
	rm -rf build build-address build-thread build-undefined

# Fragments owned by sub-projects (Fortran bindings, benchmarks tools, ...).
-include $(sort $(wildcard mk/*.mk))

-include $(LIB_OBJ:.o=.d)

# Everything is rebuilt when the compiler flags change (for example libfabric was installed
# since the last build, which turns the network transport on): the flags are kept in a stamp
# file that is rewritten only when they differ.
FLAGS_STAMP := $(BUILD)/gen/flags
FLAGS_NOW   := $(CC) $(CFLAGS_COMMON) $(CFLAGS) $(LIBS)
ifneq ($(file <$(FLAGS_STAMP)),$(FLAGS_NOW))
$(shell mkdir -p $(BUILD)/gen)
$(file >$(FLAGS_STAMP),$(FLAGS_NOW))
endif
$(LIB_OBJ) $(TOOLS): $(FLAGS_STAMP)
