# loggp.mk -- build tools/mempi-loggp with MemPI's own compiler wrapper; `make bench` runs the
# side-by-side comparison.  MemPI, BSD-3-Clause (see LICENSE).
$(BUILD)/bin/mempi-loggp: tools/mempi-loggp/mempi-loggp.c $(BUILD)/bin/mpicc $(LIBFILE) $(HEADERS)
	$(BUILD)/bin/mpicc -O2 -std=c11 -Wall -o $@ $< -lm
all: $(BUILD)/bin/mempi-loggp
bench: all
	bench/run --no-make
