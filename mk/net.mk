# net.mk -- the network transport (src/transport/net/) on libfabric.  MemPI, BSD-3-Clause.
#
# With libfabric's headers present (Debian: libfabric-dev) the transport is compiled in; the
# library does not link libfabric but loads it when a job spans hosts (src/transport/net/fabric.c); without them src/transport/net/ compiles to a stub that makes a
# job spanning several hosts fail at MPI_Init with a message naming the package.  Override
# with `make MEMPI_LIBFABRIC=0` (force the stub) or point FABRIC_INCLUDE at another prefix.
FABRIC_INCLUDE ?= /usr/include
MEMPI_LIBFABRIC ?= $(if $(wildcard $(FABRIC_INCLUDE)/rdma/fabric.h),1,0)
ifeq ($(MEMPI_LIBFABRIC),1)
CFLAGS_COMMON += -DMEMPI_HAVE_LIBFABRIC
ifneq ($(FABRIC_INCLUDE),/usr/include)
CFLAGS_COMMON += -I$(FABRIC_INCLUDE)
endif
endif
