# loggp.mk -- build tools/mempi-loggp against MemPI; `make bench` runs the side-by-side
# comparison.  MemPI, BSD-3-Clause (see LICENSE).
#
# mempi-loggp is installed with the other tools, so it finds the library relative to itself
# (RUNPATH $ORIGIN/../lib: the lib/ of whichever prefix holds it) instead of by the build
# tree's absolute path, which mpicc would record and which is gone after `make install` and
# removing the build.
$(BUILD)/bin/mempi-loggp: tools/mempi-loggp/mempi-loggp.c $(LIBFILE) $(HEADERS)
	$(CC) -O2 -std=c11 -Wall -I$(BUILD)/include -o $@ $< -L$(BUILD)/lib \
	    -Wl,-rpath,'$$ORIGIN/../lib' -lmpi -lm $(LDFLAGS_SAN)
all: $(BUILD)/bin/mempi-loggp
bench: all
	bench/run --no-make
