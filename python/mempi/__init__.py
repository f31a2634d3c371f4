# __init__.py -- the `mempi` Python package: where a pip-installed MemPI lies, and its settings.
# MemPI, BSD-3-Clause (see LICENSE).
#
# `pip install .` (tools/pip/mempi_backend.py) puts MemPI's `make install` tree into the
# environment's prefix -- bin/mpiexec, bin/mpicc, lib/libmpi.so.12, include/mpi.h -- and this
# package into site-packages.  The prefix is found through the installed distribution's file
# list (RECORD), which names every file pip wrote, so it is right for a virtual environment,
# `pip install --user` and `--prefix` alike; paths are never guessed from sys.prefix.  Nothing
# here loads libmpi: importing mempi is safe in a process that uses another MPI.
#
#   get_prefix()       the prefix holding bin/, lib/ and include/
#   get_include()      directory of mpi.h (and mpif.h, mpi.mod)
#   get_library_dir()  directory of libmpi.so.12
#   get_library()      path of libmpi.so.12
#   get_bin_dir()      directory of mpiexec, mpicc, mpicxx, mpifort, mempi-info
#   info()             the output of `mempi-info` (version, transports, MEMPI_* settings)

import os
import subprocess

from ._config import VERSION

__version__ = VERSION
_LIBRARY = "libmpi.so.12"


def get_prefix():
    """The installation prefix (bin/, lib/, include/) of this MemPI."""
    from importlib import metadata
    try:
        files = metadata.distribution("mempi").files or []
    except metadata.PackageNotFoundError:
        files = []
    for f in files:
        if f.name == _LIBRARY:
            lib = os.path.dirname(os.path.realpath(f.locate()))
            if os.path.basename(lib) == "lib":
                return os.path.dirname(lib)
    raise RuntimeError("mempi: the installed file list names no lib/" + _LIBRARY +
                       "; is MemPI installed with pip (pip install <MemPI source tree>)?")


def get_include():
    return os.path.join(get_prefix(), "include")


def get_library_dir():
    return os.path.join(get_prefix(), "lib")


def get_library():
    return os.path.join(get_library_dir(), _LIBRARY)


def get_bin_dir():
    return os.path.join(get_prefix(), "bin")


def info():
    """What `mempi-info` prints; raises CalledProcessError when it fails."""
    return subprocess.run([os.path.join(get_bin_dir(), "mempi-info")], check=True,
                          capture_output=True, text=True).stdout
