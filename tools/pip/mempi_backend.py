# mempi_backend.py -- PEP 517 build backend: `pip install .` and `make wheel` pack `make install`.
# MemPI, BSD-3-Clause (see LICENSE).
#
# The wheel holds exactly what `make install PREFIX=...` puts into a prefix, as the wheel's
# "data" files: pip installs them into the environment's own prefix (sys.prefix of a virtual
# environment), so a venv gets bin/mpiexec, bin/mpicc, lib/libmpi.so.12, include/mpi.h next to
# its bin/python.  That is where mpi4py's binary wheels look for an MPI library (mpi4py's
# _mpiabi.py dlopens libmpi.so, libmpi.so.12 or libmpi.so.40 from <venv>/lib, the user base's
# lib and the base prefix's lib, before the default search path), and where MPICH's and Open
# MPI's PyPI wheels put theirs.  The compiler wrappers find their prefix from their own
# location, so the same scripts work there unchanged.  The `mempi` Python package (python/mempi)
# goes to site-packages and finds the prefix through the installed file list (RECORD).
#
# Building runs `make` in the source tree (its objects are reused; MEMPI_MAKE_FLAGS adds make
# variables such as BUILD=build-address SANITIZE=address) and `make install` into a staging
# prefix.  The staging tree is then adapted to what a zip archive can carry and what a moving
# prefix needs:
#   - a zip holds no symbolic links: a link becomes a copy of its target, and a shared
#     library's full-version file that links point at (libmpi.so.12.0.0) is left out, since
#     nothing loads it by that name;
#   - debug information is stripped from ELF files: it names the source tree and is most of
#     their size (a debugger can use the build tree's copies);
#   - mempi.pc names its prefix relative to itself (${pcfiledir}), as the prefix is only known
#     when pip installs;
#   - an ELF file whose RUNPATH leaves the prefix, or any file naming the staging, build or
#     source directory, stops the build: the installed files would depend on the build machine.
# The platform tag is manylinux_2_N (N from the newest GLIBC_2.N symbol version any file needs)
# when every needed library is one the manylinux policy allows (libmpi opens libfabric with
# dlopen, so the network transport needs none), else linux_<arch>.
#
# Only the standard library is used (no setuptools, no wheel package), so the backend needs
# nothing from an index: `pip install --no-index .` works with or without build isolation.
# `python3 tools/pip/mempi_backend.py wheel DIR` builds a wheel without pip (`make wheel`).

import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

NAME = "mempi"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Libraries a manylinux wheel may need from the system (PEP 600 policies, glibc based).
MANYLINUX_LIBS = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libutil.so.1",
    "libgcc_s.so.1", "libstdc++.so.6", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
    "libresolv.so.2", "libnsl.so.1", "libcrypt.so.1", "libz.so.1",
}


def _version():
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        m = re.search(r"^VERSION\s*:?=\s*(\S+)", f.read(), re.M)
    if not m:
        raise RuntimeError("mempi_backend: no VERSION line in Makefile")
    return m.group(1)


def _metadata():
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\n"
        f"Version: {_version()}\n"
        "Summary: MemPI: an MPI library over memory-based communication (MPICH ABI), "
        "with mpiexec and compiler wrappers\n"
        "License: BSD-3-Clause\n"
        "Requires-Python: >=3.7\n"
        "Platform: Linux\n"
    )


def _make(*args):
    flags = os.environ.get("MEMPI_MAKE_FLAGS", "").split()
    jobs = [] if "-j" in os.environ.get("MAKEFLAGS", "") else ["-j2"]
    cmd = ["make", "-C", ROOT, "--no-print-directory"] + jobs + flags + list(args)
    # make's output goes to stderr: pip shows it on failure (and with -v), and a backend's
    # stdout is not ours to fill when it is called as a library.
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def _is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def _readelf_dynamic(path):
    out = subprocess.run(["readelf", "-dW", path], check=True, capture_output=True,
                         text=True).stdout
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]", out)
    runpath = []
    for m in re.findall(r"\((?:RUNPATH|RPATH)\).*\[(.*)\]", out):
        runpath += m.split(":")
    return needed, runpath


def _glibc_minor(path):
    out = subprocess.run(["readelf", "-VW", path], check=True, capture_output=True,
                         text=True).stdout
    return max([int(v) for v in re.findall(r"GLIBC_2\.(\d+)", out)] or [0])


def _stage(stage):
    """`make install` into stage, then adapt it for a wheel; returns the platform tag."""
    _make("all")
    _make("install", "PREFIX=" + stage)
    build = None
    for word in os.environ.get("MEMPI_MAKE_FLAGS", "").split():
        if word.startswith("BUILD="):
            build = os.path.join(ROOT, word[6:])
    build = os.path.realpath(build or os.path.join(ROOT, "build"))
    # Links become copies; a shared library's full-version file (libmpi.so.12.0.0) that links
    # in its directory point at goes, since nothing loads it by that name.
    for dirpath, _, filenames in os.walk(stage):
        links = [n for n in filenames if os.path.islink(os.path.join(dirpath, n))]
        targets = set()
        for name in links:
            p = os.path.join(dirpath, name)
            real = os.path.realpath(p)
            if os.path.dirname(real) == os.path.realpath(dirpath):
                targets.add(os.path.basename(real))
            os.unlink(p)
            shutil.copy2(real, p)
        for name in targets - set(links):
            if re.search(r"\.so\.\d+\.\d+\.\d+$", name):
                os.unlink(os.path.join(dirpath, name))
    pc = os.path.join(stage, "lib", "pkgconfig", "mempi.pc")
    if os.path.exists(pc):
        with open(pc, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"^prefix=.*$", "prefix=${pcfiledir}/../..", text, flags=re.M)
        with open(pc, "w", encoding="utf-8") as f:
            f.write(text)
    glibc, foreign = 17, []
    own = set(os.listdir(os.path.join(stage, "lib")))
    for dirpath, _, filenames in os.walk(stage):
        for name in filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, stage)
            if _is_elf(p):
                # Debug information names the source tree and triples the size.
                subprocess.run(["strip", "--strip-debug", p], check=True)
                needed, runpath = _readelf_dynamic(p)
                bad = [r for r in runpath if not r.startswith("$ORIGIN")]
                if bad:
                    raise RuntimeError(f"mempi_backend: {rel} has a RUNPATH outside the "
                                       f"prefix: {':'.join(bad)}")
                foreign += [n for n in needed if n not in own and n not in MANYLINUX_LIBS]
                glibc = max(glibc, _glibc_minor(p))
            with open(p, "rb") as f:
                data = f.read()
            for d in (stage, build, ROOT):
                if d.encode() in data:
                    raise RuntimeError(f"mempi_backend: {rel} names the directory {d}")
    arch = os.uname().machine
    if foreign:
        print(f"mempi_backend: tagged linux_{arch}, not manylinux: the files need "
              f"{', '.join(sorted(set(foreign)))} from the system", file=sys.stderr)
        return f"linux_{arch}"
    return f"manylinux_2_{glibc}_{arch}"


def _python_files():
    """(path in the wheel, bytes) of the mempi package, with _config.py written here."""
    src = os.path.join(ROOT, "python", NAME)
    files = []
    for name in sorted(os.listdir(src)):
        if name.endswith(".py"):
            with open(os.path.join(src, name), "rb") as f:
                files.append((f"{NAME}/{name}", f.read()))
    config = ("# _config.py -- written by tools/pip/mempi_backend.py when the wheel was built.\n"
              "# MemPI, BSD-3-Clause (see LICENSE).\n"
              f"VERSION = {_version()!r}\n")
    files.append((f"{NAME}/_config.py", config.encode()))
    return files


def _dist_info(tag):
    d = f"{NAME}-{_version()}.dist-info"
    wheel = ("Wheel-Version: 1.0\n"
             "Generator: mempi_backend (tools/pip/mempi_backend.py)\n"
             "Root-Is-Purelib: false\n"
             f"Tag: py3-none-{tag}\n")
    with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
        license_text = f.read()
    return [(f"{d}/METADATA", _metadata().encode()), (f"{d}/WHEEL", wheel.encode()),
            (f"{d}/LICENSE", license_text)]


def _zip_add(zf, record, arcname, data, mode=0o644):
    info = zipfile.ZipInfo(arcname, date_time=(2000, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{arcname},sha256={digest},{len(data)}")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with tempfile.TemporaryDirectory(prefix="mempi-wheel.") as tmp:
        stage = os.path.join(tmp, "prefix")
        tag = _stage(stage)
        filename = f"{NAME}-{_version()}-py3-none-{tag}.whl"
        os.makedirs(wheel_directory, exist_ok=True)
        path = os.path.join(wheel_directory, filename)
        data_dir = f"{NAME}-{_version()}.data/data"
        record = []
        with zipfile.ZipFile(path + ".part", "w") as zf:
            for arcname, data in _python_files():
                _zip_add(zf, record, arcname, data)
            for dirpath, dirnames, filenames in os.walk(stage):
                dirnames.sort()
                for name in sorted(filenames):
                    p = os.path.join(dirpath, name)
                    with open(p, "rb") as f:
                        data = f.read()
                    mode = 0o755 if os.access(p, os.X_OK) else 0o644
                    _zip_add(zf, record, f"{data_dir}/{os.path.relpath(p, stage)}", data, mode)
            for arcname, data in _dist_info(tag):
                _zip_add(zf, record, arcname, data)
            rec = f"{NAME}-{_version()}.dist-info/RECORD"
            record.append(f"{rec},,")
            info = zipfile.ZipInfo(rec, date_time=(2000, 1, 1, 0, 0, 0))
            info.external_attr = 0o100644 << 16
            zf.writestr(info, "\n".join(record) + "\n")
        os.replace(path + ".part", path)
    return filename


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, f"{NAME}-{_version()}.dist-info")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return os.path.basename(d)


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_sdist(sdist_directory, config_settings=None):
    """The files git tracks, plus PKG-INFO, as NAME-VERSION.tar.gz."""
    base = f"{NAME}-{_version()}"
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True,
                           capture_output=True).stdout.decode().split("\0")
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(os.path.join(sdist_directory, base + ".tar.gz"), "w:gz") as tar:
        for name in files:
            if name and os.path.lexists(os.path.join(ROOT, name)):
                tar.add(os.path.join(ROOT, name), f"{base}/{name}", recursive=False)
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return base + ".tar.gz"


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("wheel", "sdist"):
        sys.exit("usage: mempi_backend.py wheel|sdist DIRECTORY")
    hook = build_wheel if sys.argv[1] == "wheel" else build_sdist
    print(os.path.join(sys.argv[2], hook(sys.argv[2])))
