#!/usr/bin/env python3
# bench/pack.py -- MPI_Pack speed of strided vectors, MemPI next to MPICH (issue 4, "Speed").
# MemPI, BSD-3-Clause (see LICENSE).
#
# Builds tests/unit/datatype_bench.c (MPI_Pack of vector(1e6,1,2,MPI_DOUBLE),
# vector(1e4,64,128,MPI_DOUBLE) and two smaller shapes, best of `reps` packs, next to memcpy
# of the same number of bytes) with build/bin/mpicc and with mpicc.mpich, runs the two
# alternately for a number of rounds (so a busy machine slows both alike), and writes the
# medians over the rounds to bench/results/pack.md with the load averages seen.
#
#   make -j2 && bench/pack.py [--rounds 7] [--reps 30] [--out bench/results/pack.md]
import argparse, os, re, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "tests/unit/datatype_bench.c")
LINE = re.compile(r"^(\S.*?\))\s+([\d.]+) MB\s+pack\s+([\d.]+) GB/s\s+memcpy\s+([\d.]+) GB/s")

LIBS = {
    "MemPI": (os.path.join(ROOT, "build/bin/mpicc"), [os.path.join(ROOT, "build/bin/mpiexec"), "-n", "1"]),
    "MPICH": ("mpicc.mpich", ["mpiexec.mpich", "-n", "1"]),
}


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results/pack.md"))
    a = ap.parse_args()
    os.makedirs("/tmp/mempi-packbench", exist_ok=True)
    exe = {}
    for lib, (cc, _) in LIBS.items():
        exe[lib] = f"/tmp/mempi-packbench/pack_{lib.lower()}"
        run([cc, "-O2", SRC, "-o", exe[lib]])
    res = {}                     # (lib, shape) -> list of (pack, memcpy)
    shapes = []
    loads = [os.getloadavg()[0]]
    for r in range(a.rounds):
        for lib, (_, launch) in LIBS.items():
            for line in run(launch + [exe[lib], str(a.reps)]).splitlines():
                m = LINE.match(line)
                if not m:
                    continue
                if m.group(1) not in shapes:
                    shapes.append(m.group(1))
                res.setdefault((lib, m.group(1)), []).append((float(m.group(3)), float(m.group(4))))
        loads.append(os.getloadavg()[0])
        print(f"round {r + 1}/{a.rounds} done (load {loads[-1]:.1f})", file=sys.stderr)
    uname = os.uname()
    cpu = ""
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    out = ["# MPI_Pack of strided vectors: MemPI and MPICH side by side", "",
           f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {uname.nodename} "
           f"({cpu}, {os.cpu_count()} CPUs), {a.rounds} rounds alternating the libraries, "
           f"best of {a.reps} packs per round, medians over the rounds.  1-minute load average "
           f"during the run: {min(loads):.1f} to {max(loads):.1f} (the machine was shared; "
           "absolute numbers are noisy, the ratios less so).", "",
           "Command: `make -j2 && bench/pack.py --rounds %d --reps %d` (source: "
           "`tests/unit/datatype_bench.c`; MemPI through `build/bin/mpicc`, MPICH 4.0 through "
           "`mpicc.mpich`, both `-O2`)." % (a.rounds, a.reps), "",
           "GB/s are packed bytes per second (the bytes touched); memcpy copies the same number "
           "of bytes in the same process.  Target (issue 4): pack >= 0.5 x memcpy and "
           ">= MPICH.", "",
           "| type | MB | MemPI pack GB/s | memcpy GB/s | MemPI/memcpy | MPICH pack GB/s | MPICH memcpy GB/s | MPICH/memcpy | MemPI/MPICH |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in shapes:
        mp = res[("MemPI", s)]
        mc = res[("MPICH", s)]
        p1 = statistics.median(x[0] for x in mp)
        c1 = statistics.median(x[1] for x in mp)
        p2 = statistics.median(x[0] for x in mc)
        c2 = statistics.median(x[1] for x in mc)
        r1 = statistics.median(x[0] / x[1] for x in mp)
        r2 = statistics.median(x[0] / x[1] for x in mc)
        mb = re.search(r"\((\S+), (\d+), (\d+)", s)
        count, bl = float(mb.group(1)), int(mb.group(2))
        out.append(f"| `{s}` | {count * bl * 8 / 1e6:.2f} | {p1:.2f} | {c1:.2f} | {r1:.2f} | "
                   f"{p2:.2f} | {c2:.2f} | {r2:.2f} | {p1 / p2:.2f} |")
    out.append("")
    with open(a.out, "w") as f:
        f.write("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
