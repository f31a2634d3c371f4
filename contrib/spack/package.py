# contrib/spack/package.py -- a Spack recipe that builds MemPI from its release tarball.
# MemPI, BSD-3-Clause (see LICENSE).
#
# MemPI builds with its own Makefile (no configure step): `make` builds into build/, which is
# itself an install prefix, and `make install PREFIX=<prefix>` copies it, so the recipe is a
# MakefilePackage whose build and install targets carry the variables.  The generators that
# write the bindings and headers are Python 3 scripts (build dependency).  The Fortran
# modules are built when the Fortran compiler exists (mk/fortran.mk); ~fortran turns it off
# by naming a compiler that does not exist (the Makefile takes CC and FC from the environment,
# where Spack puts its compiler wrappers).  With +libfabric the network transport is compiled against Spack's
# libfabric headers; libmpi does not link libfabric but opens libfabric.so.1 when a job spans
# hosts, so the run environment puts its lib/ on LD_LIBRARY_PATH.  MemPI provides `mpi`
# (MPI 4.1, MPICH ABI); dependents compile with MemPI's wrappers, which run the compiler
# named by MEMPI_CC, MEMPI_CXX, MEMPI_FC: Spack's compiler wrappers here.
#
# Use: copy this directory into a Spack package repository as packages/mempi/ (Spack 1.x:
# <repo>/packages/mempi/package.py), put the tarball `make dist` writes where `url` points,
# replace the sha256 below, then `spack install mempi`.  Untested in MemPI's CI (no Spack
# there); checked against Spack's documentation of MakefilePackage and of MPI providers.
from spack.package import *

try:  # Spack 1.x keeps the build systems in the builtin package repository
    from spack_repo.builtin.build_systems.makefile import MakefilePackage
except ImportError:  # Spack 0.x exports them from spack.package
    pass


class Mempi(MakefilePackage):
    """MemPI: an MPI 4.1 library built on memory-based communication, with the MPICH ABI
    (libmpi.so.12) and the MPI 5.0 standard ABI (libmpi_abi.so.1, mpicc -mpi-abi)."""

    # MemPI publishes no download site yet: `make dist` in a git checkout writes
    # dist/mempi-<version>.tar.gz; serve it from a web server or a Spack mirror, or put it at
    # this path.
    url = "file:///opt/mempi-releases/mempi-0.1.0.tar.gz"

    license("BSD-3-Clause")

    # Placeholder: a release's checksum is known only once its tarball exists.  Replace it with
    # the output of `sha256sum mempi-0.1.0.tar.gz` (or `spack checksum mempi 0.1.0`); until
    # then Spack refuses the download as a checksum mismatch.
    version("0.1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

    variant("fortran", default=True, description="Build the mpi and mpi_f08 modules and mpifort")
    variant("libfabric", default=False, description="Network transport (jobs across hosts) on libfabric")

    provides("mpi@:4.1")

    depends_on("c", type="build")
    depends_on("fortran", type="build", when="+fortran")
    depends_on("gmake", type="build")
    depends_on("python@3.6:", type="build")
    depends_on("libfabric", when="+libfabric")

    conflicts("platform=darwin", msg="MemPI runs on Linux only (process_vm_readv, /dev/shm)")
    conflicts("platform=windows", msg="MemPI runs on Linux only")

    def _make_args(self):
        # The Makefile takes CC and FC from the environment, where Spack puts its compiler
        # wrappers; ~fortran names a Fortran compiler that does not exist.
        spec = self.spec
        args = []
        if spec.satisfies("~fortran"):
            args.append("FC=no-fortran-compiler")  # mk/fortran.mk then skips the modules
        if spec.satisfies("+libfabric"):
            args += ["MEMPI_LIBFABRIC=1", "FABRIC_INCLUDE={0}".format(spec["libfabric"].prefix.include)]
        else:
            args.append("MEMPI_LIBFABRIC=0")
        return args

    @property
    def build_targets(self):
        return ["all"] + self._make_args()

    @property
    def install_targets(self):
        return ["install", "PREFIX={0}".format(self.prefix)] + self._make_args()

    def _libfabric_path(self, env):
        if self.spec.satisfies("+libfabric"):
            env.prepend_path("LD_LIBRARY_PATH", self.spec["libfabric"].prefix.lib)

    def setup_run_environment(self, env):
        self._libfabric_path(env)

    def setup_dependent_run_environment(self, env, dependent_spec):
        self._libfabric_path(env)

    def setup_dependent_build_environment(self, env, dependent_spec):
        bin = self.prefix.bin
        env.set("MPICC", join_path(bin, "mpicc"))
        env.set("MPICXX", join_path(bin, "mpicxx"))
        env.set("MPIF77", join_path(bin, "mpif77"))
        env.set("MPIF90", join_path(bin, "mpif90"))
        # While a dependent builds, MemPI's wrappers run the compilers Spack chose for it
        # (through Spack's compiler wrappers), not `cc`.
        dependent_module = dependent_spec.package.module
        env.set("MEMPI_CC", dependent_module.spack_cc)
        env.set("MEMPI_CXX", dependent_module.spack_cxx)
        env.set("MEMPI_FC", dependent_module.spack_fc)
        self._libfabric_path(env)

    def setup_dependent_package(self, module, dependent_spec):
        bin = self.prefix.bin
        self.spec.mpicc = join_path(bin, "mpicc")
        self.spec.mpicxx = join_path(bin, "mpicxx")
        self.spec.mpifc = join_path(bin, "mpif90")
        self.spec.mpif77 = join_path(bin, "mpif77")
