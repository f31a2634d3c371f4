# __main__.py -- `python -m mempi`: print where MemPI is installed and how it is configured.
# MemPI, BSD-3-Clause (see LICENSE).
#
# Without options: version, prefix, library, include and bin directories, then the output of
# mempi-info.  One option prints one path, for scripts (like `python -m mpi4py --prefix`):
#   CFLAGS="-I$(python -m mempi --include)"
import argparse
import sys

import mempi


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mempi",
                                     description="MemPI installed in this Python environment")
    one = parser.add_mutually_exclusive_group()
    for opt, func in (("--prefix", mempi.get_prefix), ("--include", mempi.get_include),
                      ("--libdir", mempi.get_library_dir), ("--library", mempi.get_library),
                      ("--bindir", mempi.get_bin_dir)):
        one.add_argument(opt, action="store_const", const=func, dest="func",
                         help=f"print {func.__name__}()")
    args = parser.parse_args(argv)
    if args.func is not None:
        print(args.func())
        return 0
    print(f"version:      {mempi.__version__}")
    print(f"prefix:       {mempi.get_prefix()}")
    print(f"library:      {mempi.get_library()}")
    print(f"include dir:  {mempi.get_include()}")
    print(f"bin dir:      {mempi.get_bin_dir()}")
    print()
    sys.stdout.write(mempi.info())
    return 0


if __name__ == "__main__":
    sys.exit(main())
