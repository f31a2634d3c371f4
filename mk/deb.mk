# deb.mk -- `make deb`: a Debian binary package of MemPI, installable beside Debian's MPICH
# and Open MPI.  MemPI, BSD-3-Clause (see LICENSE).
#
# `make install` is staged (DESTDIR) with the prefix /usr/lib/<triplet>/mempi, MemPI's own
# directory, and tools/deb/mkdeb adds the /usr/bin names, the documentation, the control
# file and the maintainer scripts that register MemPI with update-alternatives
# (tools/deb/postinst.in), then builds $(DIST)/mempi_<version>-1_<arch>.deb with dpkg-deb.
# No debhelper, no network; the triplet is the compiler's (-print-multiarch), as Debian's own
# packages' paths use it.
DEB_TRIPLET := $(shell $(CC) -print-multiarch 2>/dev/null)
DEB_PREFIX  := /usr/lib/$(if $(DEB_TRIPLET),$(DEB_TRIPLET),$(shell uname -m)-linux-gnu)/mempi
DEB_STAGE   := $(BUILD)/deb/stage

.PHONY: deb
deb: all
	rm -rf $(DEB_STAGE)
	$(MAKE) --no-print-directory install PREFIX=$(DEB_PREFIX) DESTDIR=$(abspath $(DEB_STAGE))
	tools/deb/mkdeb $(DEB_STAGE) $(DEB_PREFIX) $(VERSION) $(DIST)
