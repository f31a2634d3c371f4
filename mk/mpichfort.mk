# mpichfort.mk -- libmpichfort.so.12 for Fortran programs built against MPICH (Debian's
# mpif77.mpich, mpif90.mpich).  MemPI, BSD-3-Clause (see LICENSE).
#
# The library is a small shim over libmpi.so.12 (src/fortran/mpich/mpichfort.c says why it
# carries no bindings).  It lies next to libmpich.so.12 in $(BUILD)/lib, so the same
# LD_LIBRARY_PATH that runs MPICH-built C programs on MemPI runs the Fortran ones.  It must
# keep its dependency on libmpi even though it calls nothing there (--no-as-needed), and finds
# it beside itself ($ORIGIN) in the build tree and in any install prefix.
MPICHFORT := $(BUILD)/lib/libmpichfort.so.12.0.0
$(MPICHFORT): src/fortran/mpich/mpichfort.c $(LIBFILE) $(HEADERS)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS) -shared -Wl,-soname,libmpichfort.so.12 -o $@ $< \
	    -L$(BUILD)/lib -Wl,--no-as-needed -lmpi -Wl,-rpath,'$$ORIGIN' $(LDFLAGS_SAN)
	ln -sf libmpichfort.so.12.0.0 $(BUILD)/lib/libmpichfort.so.12
	ln -sf libmpichfort.so.12     $(BUILD)/lib/libmpichfort.so
all: $(MPICHFORT)
