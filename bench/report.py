#!/usr/bin/env python3
# report.py -- turn bench/run's raw outputs into a Markdown report with medians, ratios, targets and plots.  MemPI, BSD-3-Clause (see LICENSE).
#
# Input: RAW/<lib>.<case>.r<round>.<prog>.txt, each holding lines
# "<name> <size> <value> <unit>" ('#' lines are comments; "# TIMEOUT" and
# "# FAILED" mark runs that did not finish), RAW/machine.txt and, when
# present, RAW/loggp.<lib>.txt.  RAW is a folder (bench/run's, under the
# ignored bench/work/) or the raw.tar.xz that bench/run keeps beside a report
# (one compressed file per run; `tar xJf raw.tar.xz` gives raw/), so a
# committed report can be rewritten from what is committed.
#
# For every (case, name, size) the value of a library is the median over the
# rounds that produced it.  The "best peer" is the better of MPICH and Open
# MPI: the larger value for rates (MB/s, msg/s), the smaller for times (us).
# The ratio is MemPI / best peer, so it is < 1 when MemPI is faster for
# times and > 1 when MemPI is faster for rates.  The targets of issue 9 (and of
# issues 8, 11 and 20 for the programs they concern) are checked against these
# medians and every one not met is listed with its reason.  Plots need
# matplotlib; without it the report is written anyway.
import argparse
import collections
import glob
import os
import re
import statistics
import sys
import tarfile
import tempfile

LIBS = ["mempi", "mpich", "openmpi"]
LIB_NAMES = {"mempi": "MemPI", "mpich": "MPICH", "openmpi": "Open MPI",
             "mempispin": "MemPI (MEMPI_WAIT=spin)", "mempiflat": "MemPI (flat collectives)"}
PEERS = ["mpich", "openmpi"]
RATE_UNITS = {"MB/s", "msg/s"}
COLLECTIVES = ["barrier", "bcast", "allreduce", "reduce", "allgather", "gather", "scatter",
               "alltoall", "reduce_scatter", "scan"]
RMA_NAMES = ["put_lat", "get_lat", "fop_lat", "cas_lat", "acc_lat", "put_bw", "get_bw", "acc_bw",
             "put_fence_lat", "get_fence_lat", "put_fence_bw", "get_fence_bw"]   # bench/src/rma.c
CASE_TEXT = {"np2": "2 ranks on 2 cores", "np4": "4 ranks on 2 cores (oversubscribed)",
             "nodes2x1": "2 namespace nodes x 1 rank (TCP over a veth bridge)",
             "nodes2x2": "2 namespace nodes x 2 ranks (shared memory inside, TCP between)"}


def parse_raw(raw):
    """values[(case, name, size)][lib] -> list of per-round values; units; run status notes."""
    values = collections.defaultdict(lambda: collections.defaultdict(list))
    units = {}
    status = collections.defaultdict(list)     # (lib, case, prog) -> notes
    pattern = re.compile(r"^(\w+)\.(np\d+|nodes\d+x\d+)\.r(\d+)\.(\w+)\.txt$")
    for path in sorted(glob.glob(os.path.join(raw, "*.txt"))):
        m = pattern.match(os.path.basename(path))
        if not m:
            continue
        lib, case, rnd, prog = m.group(1), m.group(2), int(m.group(3)), m.group(4)
        with open(path, errors="replace") as f:
            for line in f:
                fields = line.split()
                if not fields:
                    continue
                if fields[0] == "#":
                    if len(fields) > 1 and fields[1] in ("TIMEOUT", "FAILED"):
                        status[(lib, case, prog)].append("round %d: %s" % (rnd, " ".join(fields[1:])))
                    continue
                if len(fields) != 4:
                    continue
                name, size, value, unit = fields
                if value == "skipped":
                    status[(lib, case, prog)].append("round %d: %s %s skipped (budget)" % (rnd, name, size))
                    continue
                try:
                    v = float(value)
                    s = int(size)
                except ValueError:
                    continue
                values[(case, name, s)][lib].append(v)
                units[name] = unit
    return values, units, status


def case_order(case):
    """np2, np4, ... first, then nodes<N>x<PPN> by N and PPN."""
    m = re.match(r"np(\d+)$", case)
    if m:
        return (0, int(m.group(1)), 0)
    m = re.match(r"nodes(\d+)x(\d+)$", case)
    return (1, int(m.group(1)), int(m.group(2))) if m else (2, 0, 0)


def medians(values):
    return {key: {lib: statistics.median(v) for lib, v in per.items() if v}
            for key, per in values.items()}


NOISE_SPREAD = 2.0


def noisy_points(values):
    """Points where some library's rounds differ by more than NOISE_SPREAD x
    (max/min): the machine was disturbed there and the median is suspect."""
    noisy = set()
    for key, per in values.items():
        for v in per.values():
            if len(v) >= 2 and min(v) > 0 and max(v) / min(v) > NOISE_SPREAD:
                noisy.add(key)
    return noisy


def best_peer(name, per_lib, units):
    peers = [(per_lib[p], p) for p in PEERS if p in per_lib]
    if not peers:
        return None, None
    if units.get(name) in RATE_UNITS:
        return max(peers)[::-1]
    return min(peers)[::-1]


def fmt(v):
    if v is None:
        return "-"
    if v >= 1e6:
        return "%.3g M" % (v / 1e6)
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    return "%.3g" % v


def human_size(s):
    if s >= 1 << 20 and s % (1 << 20) == 0:
        return "%d MiB" % (s >> 20)
    if s >= 1024 and s % 1024 == 0:
        return "%d KiB" % (s >> 10)
    return "%d B" % s


def results_table(med, units, case, libs, noisy):
    names = []
    for (c, name, size) in med:
        if c == case and name not in names:
            names.append(name)
    order = ["latency", "latency_q", "bw", "bibw", "msgrate"] + COLLECTIVES + ["alltoall_l", "alltoallv_l", "halo", "cg", "cgfixed", "sort"] + RMA_NAMES
    names.sort(key=lambda n: order.index(n) if n in order else 99)
    lines = ["| benchmark | size | unit | " + " | ".join(LIB_NAMES[l] for l in libs)
             + " | best peer | MemPI / best peer |",
             "|---|---:|---|" + "---:|" * len(libs) + "---|---:|"]
    for name in names:
        for (c, n, size) in sorted(k for k in med if k[0] == case and k[1] == name):
            per = med[(c, n, size)]
            peer, pv = best_peer(name, per, units)
            ratio = "%.2f" % (per["mempi"] / pv) if "mempi" in per and pv else "n/a"
            if (c, n, size) in noisy:
                ratio += " ~"
            cells = [fmt(per.get(l)) for l in libs]
            size_text = {"cg": "%dx%d per rank" % (size, size),
                         "cgfixed": "%dx%d in all" % (2 * size, size),
                         "latency_q": "8 B, %d queued elsewhere" % size}.get(name, human_size(size))
            lines.append("| %s | %s | %s | %s | %s | %s |" % (
                name, size_text, units.get(name, ""), " | ".join(cells),
                LIB_NAMES.get(peer, "-"), ratio))
    return "\n".join(lines)


def check_targets(med, units, cases, mempi_note, noisy):
    """Rows: (target, case, point, mempi, best peer, ratio, wanted, verdict)."""
    rows = []

    def one(target, case, name, size, wanted, cmp):
        # "2x faster than both" is the same test as against the faster peer
        per = med.get((case, name, size))
        if per is None:
            rows.append((target, case, "%s %s" % (name, human_size(size)), "-", "-", "-", wanted,
                         "not measured (size not in this run)"))
            return
        peer, pv = best_peer(name, per, units)
        if "mempi" not in per or pv is None:
            rows.append((target, case, "%s %s" % (name, human_size(size)), "-",
                         "%s (%s)" % (fmt(pv), LIB_NAMES.get(peer, "-")), "-", wanted,
                         "NOT MET (not measured): " + (mempi_note or "no MemPI result")))
            return
        ratio = per["mempi"] / pv
        ok = cmp(ratio)
        verdict = "met" if ok else "NOT MET: measured ratio %.2f" % ratio
        if (case, name, size) in noisy:
            verdict += " (noisy: rounds differ > %gx)" % NOISE_SPREAD
        rows.append((target, case, "%s %s" % (name, human_size(size)), fmt(per["mempi"]),
                     "%s (%s)" % (fmt(pv), LIB_NAMES[peer]), "%.2f" % ratio, wanted, verdict))

    for case in cases:
        if not case.startswith("np"):
            continue           # the targets are single-node; node cases are reported only
        for s in (0, 1, 4, 8):
            if (case, "latency", s) in med:
                one("latency 0-8 B <= 0.8x faster peer", case, "latency", s, "<= 0.80", lambda r: r <= 0.8)
        for s in (65536, 262144, 1048576, 4194304):
            one("bandwidth 64 KiB-4 MiB >= 1.3x faster peer", case, "bw", s, ">= 1.30", lambda r: r >= 1.3)
        for name in ("alltoall_l", "alltoallv_l"):
            for s in (65536, 262144, 1048576, 4194304):
                if (case, name, s) in med:
                    one("large all-to-all >= 1.2x faster peer (issue 24)", case, name, s, "<= 0.83",
                        lambda r: r <= 1 / 1.2)
        for name in ("allreduce", "bcast", "allgather", "barrier"):
            for s in ((0,) if name == "barrier" else (8, 1024, 65536, 1048576)):
                one("collectives no slower than faster peer", case, name, s, "<= 1.00", lambda r: r <= 1.0)
        if case == "np4":
            for name in ("allreduce", "bcast", "allgather", "barrier"):
                s = 0 if name == "barrier" else 8
                one("collectives at 8 B, more ranks than cores: >= 2x faster than both", case, name, s,
                    "<= 0.50", lambda r: r <= 0.5)
        rows.extend(check_io(med, case, one, noisy))
    return rows


def check_io(med, case, one, noisy):
    """Issue 22's targets (bench/src/io.c): every collective pattern at least as fast as the
    faster peer; the contiguous collective write within 0.8x of the dd-style sequential
    write of the same file system (MemPI's own run of ioseq_w)."""
    rows = []
    for fs in ("tmpfs", "disk"):
        for pat in ("io2d", "iostr", "iocont"):
            for d in ("w", "r"):
                name = "%s_%s_%s" % (pat, d, fs)
                for size in sorted({k[2] for k in med if k[0] == case and k[1] == name}):
                    one("MPI-IO collective bandwidth >= faster peer", case, name, size, ">= 1.00",
                        lambda r: r >= 1.0)
        for size in sorted({k[2] for k in med if k[0] == case and k[1] == "iocont_w_" + fs}):
            mine = med.get((case, "iocont_w_" + fs, size), {}).get("mempi")
            dd = med.get((case, "ioseq_w_" + fs, size), {}).get("mempi")
            if not mine or not dd:
                continue
            ratio = mine / dd
            verdict = "met" if ratio >= 0.8 else "NOT MET: measured ratio %.2f" % ratio
            if (case, "iocont_w_" + fs, size) in noisy:
                verdict += " (noisy: rounds differ > %gx)" % NOISE_SPREAD
            rows.append(("contiguous collective write >= 0.8x dd-style write", case,
                         "iocont_w_%s %s" % (fs, human_size(size)), fmt(mine),
                         "%s (ioseq_w, MemPI's run)" % fmt(dd), "%.2f" % ratio, ">= 0.80", verdict))
    return rows


def check_waiting(med, noisy):
    """Issue 8's targets (waiting and placement), rows as in check_targets.

    - 4 ranks on 2 cores, 8-byte allreduce and barrier: at least 2x faster than Open MPI and
      "far faster" than MPICH, read as at least 10x;
    - a communicating application (cgfixed: the same CG problem at every process count) at 4
      ranks on 2 cores within 1.3x of its time at 2 ranks;
    - 2 ranks on 2 cores: latency no worse than MemPI's busy-polling mode (MEMPI_WAIT=spin),
      read as at most 5 % slower (the noise of a quiet run)."""
    rows = []

    def row(target, case, point, mine, ref, ref_name, limit, keys):
        """limit None: an informative row (a peer's own ratio), no verdict."""
        wanted = "-" if limit is None else "<= %.2f" % limit
        if mine is None or ref is None:
            rows.append((target, case, point, fmt(mine), "%s (%s)" % (fmt(ref), ref_name), "-", wanted,
                         "not measured"))
            return
        ratio = mine / ref
        if limit is None:
            verdict = "informative"
        elif ratio <= limit:
            verdict = "met"
        else:
            verdict = "NOT MET: measured ratio %.2f" % ratio
        if any(k in noisy for k in keys):
            verdict += " (noisy: rounds differ > %gx)" % NOISE_SPREAD
        rows.append((target, case, point, fmt(mine), "%s (%s)" % (fmt(ref), ref_name), "%.2f" % ratio,
                     wanted, verdict))

    for name, size in (("allreduce", 8), ("barrier", 0)):
        per = med.get(("np4", name, size), {})
        for peer, limit, text in (("openmpi", 0.5, ">= 2x faster than Open MPI"),
                                  ("mpich", 0.1, ">= 10x faster than MPICH")):
            row("oversubscribed 8 B collective " + text, "np4", "%s %s" % (name, human_size(size)),
                per.get("mempi"), per.get(peer), LIB_NAMES[peer], limit, [("np4", name, size)])
    for size in (32, 256):
        k2, k4 = ("np2", "cgfixed", size), ("np4", "cgfixed", size)
        for lib in ("mempi", "mpich", "openmpi"):
            mine = med.get(k4, {}).get(lib)
            ref = med.get(k2, {}).get(lib)
            if lib != "mempi" and (mine is None or ref is None):
                continue
            row("application at 4 ranks on 2 cores within 1.3x of 2 ranks (%s)" % LIB_NAMES[lib],
                "np4 / np2", "cgfixed %dx%d" % (2 * size, size), mine, ref, LIB_NAMES[lib] + " np2",
                1.3 if lib == "mempi" else None, [k2, k4])
    for size in (0, 1, 4, 8):
        per = med.get(("np2", "latency", size), {})
        if "mempispin" not in per and "mempi" not in per:
            continue
        row("2 ranks: latency no worse than MEMPI_WAIT=spin", "np2", "latency %s" % human_size(size),
            per.get("mempi"), per.get("mempispin"), "MemPI spin", 1.05, [("np2", "latency", size)])
    return rows


def check_nodes(med, noisy):
    """Issue 11's targets on the namespace-node cases, rows as in check_targets:
    inter-node latency (0-8 B) and bandwidth (64 KiB-4 MiB) on nodes2x1 no worse than the
    faster peer; node-aware collectives (MemPI's defaults) at least 1.5x faster than the flat
    ones (MemPI with MEMPI_COLL_*=flat algorithms, "mempiflat") at 4 or more ranks per node.
    With fewer ranks per node the node-aware/flat ratio is shown without a verdict."""
    rows = []
    for case in sorted({k[0] for k in med if k[0].startswith("nodes")}, key=case_order):
        ppn = int(case.split("x")[1])
        for name, sizes, want, ok in (("latency", (0, 8), "<= 1.00", lambda r: r <= 1.0),
                                      ("bw", (65536, 1048576, 4194304), ">= 1.00", lambda r: r >= 1.0)):
            for size in sizes:
                wanted = want
                per = med.get((case, name, size), {})
                peer = min((p for p in PEERS if p in per), default=None,
                           key=lambda p: -per[p] if name == "bw" else per[p])
                if "mempi" not in per or peer is None:
                    continue
                ratio = per["mempi"] / per[peer]
                verdict = "met" if ok(ratio) else "NOT MET: measured ratio %.2f" % ratio
                if ppn > 1:   # all namespace nodes share 2 cores: P/2 pairs at once oversubscribe
                    wanted, verdict = "-", "informative (more than 1 rank per node: oversubscribed)"
                if (case, name, size) in noisy:
                    verdict += " (noisy: rounds differ > %gx)" % NOISE_SPREAD
                rows.append(("inter-node %s no worse than the faster peer" % name, case,
                             "%s %s" % (name, human_size(size)), fmt(per["mempi"]),
                             "%s (%s)" % (fmt(per[peer]), LIB_NAMES[peer]), "%.2f" % ratio, wanted, verdict))
        for name in ("bcast", "allreduce", "allgather", "barrier"):
            for size in ((0,) if name == "barrier" else (8, 1024, 65536, 1048576)):
                per = med.get((case, name, size), {})
                if "mempi" not in per or "mempiflat" not in per:
                    continue
                ratio = per["mempi"] / per["mempiflat"]
                if ppn >= 4:
                    wanted = "<= 0.67"
                    verdict = "met" if ratio <= 1 / 1.5 else "NOT MET: measured ratio %.2f" % ratio
                else:
                    wanted, verdict = "-", "informative (fewer than 4 ranks per node)"
                if (case, name, size) in noisy:
                    verdict += " (noisy: rounds differ > %gx)" % NOISE_SPREAD
                rows.append(("node-aware collective >= 1.5x faster than flat", case,
                             "%s %s" % (name, human_size(size)), fmt(per["mempi"]),
                             "%s (flat)" % fmt(per["mempiflat"]), "%.2f" % ratio, wanted, verdict))
    return rows


def check_rma(med, units, noisy):
    """Issue 20's targets for the one-sided program (bench/src/rma.c), rows as in check_targets.

    On one node (np cases): put, get and fetch-and-op latency (8 B, lock/flush) at most 0.5x the
    faster peer, and put and get bandwidth (64 KiB - 4 MiB, lock/flush and fence) at least the
    faster peer's.  Between namespace nodes with one rank per node: no slower than the best peer
    (latency <= 1.0, bandwidth >= 1.0); with more ranks per node the machine is oversubscribed and
    the rows are informative.  Compare-and-swap and accumulate latency, accumulate bandwidth and
    latency under fence have no target of their own: informative rows."""
    rows = []
    cases = sorted({k[0] for k in med if any(k[1] == n for n in RMA_NAMES)}, key=case_order)
    for case in cases:
        node = case.startswith("nodes")
        judged_case = not node or case.endswith("x1")
        points = [(n, 8, "lat") for n in ("put_lat", "get_lat", "fop_lat")]
        points += [(n, s, "bw") for n in ("put_bw", "get_bw", "put_fence_bw", "get_fence_bw")
                   for s in (65536, 262144, 1048576, 4194304)]
        points += [(n, 8, "info") for n in ("cas_lat", "acc_lat", "put_fence_lat", "get_fence_lat")]
        points += [("acc_bw", 1048576, "info")]
        for name, size, kind in points:
            per = med.get((case, name, size))
            point = "%s %s" % (name, human_size(size))
            if not per:
                if kind != "info":
                    rows.append(("one-sided (issue 20)", case, point, "-", "-", "-", "-",
                                 "not measured"))
                continue
            peer, pv = best_peer(name, per, units)
            if "mempi" not in per or pv is None:
                rows.append(("one-sided (issue 20)", case, point, fmt(per.get("mempi")),
                             "%s (%s)" % (fmt(pv), LIB_NAMES.get(peer, "-")), "-", "-",
                             "informative" if kind == "info" else "NOT MET (not measured)"))
                continue
            ratio = per["mempi"] / pv
            if kind == "lat":
                limit = 1.0 if node else 0.5
                wanted, ok = "<= %.2f" % limit, ratio <= limit
            elif kind == "bw":
                wanted, ok = ">= 1.00", ratio >= 1.0
            if kind == "info" or not judged_case:
                wanted = "-"
                verdict = "informative" + ("" if kind == "info" else
                                           " (more than 1 rank per node: oversubscribed)")
            else:
                verdict = "met" if ok else "NOT MET: measured ratio %.2f" % ratio
            if (case, name, size) in noisy:
                verdict += " (noisy: rounds differ > %gx)" % NOISE_SPREAD
            target = {"lat": "latency <= %s the faster peer" % ("1x" if node else "0.5x"),
                      "bw": "bandwidth >= the faster peer", "info": "no target"}[kind]
            rows.append((target, case, point, fmt(per["mempi"]), "%s (%s)" % (fmt(pv), LIB_NAMES[peer]),
                         "%.2f" % ratio, wanted, verdict))
    return rows


def read_machine(raw):
    info = collections.OrderedDict()
    try:
        with open(os.path.join(raw, "machine.txt")) as f:
            for line in f:
                if ":" in line:
                    k, v = line.split(":", 1)
                    info[k.strip()] = v.strip()
    except OSError:
        pass
    return info


def machine_section(out, info, present, extra=()):
    """the "Machine and run" list: machine.txt's lines, EXTRA, then why a library has no results"""
    for k, v in info.items():
        if not k.startswith("unavailable"):
            out.append("- **%s**: %s" % (k, v))
    out.extend(extra)
    for lib in LIBS:
        if lib not in present:
            out.append("- **%s**: %s" % (LIB_NAMES[lib], info.get("unavailable " + lib, "no results")))


def save_plot(plt, fig, out, name, made, dpi=80):
    """lay FIG out, write it to OUT/NAME, close it and add NAME to MADE"""
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=dpi)
    plt.close(fig)
    made.append(name)


def plot_all(med, units, cases, libs, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], "matplotlib is not installed: no plots"
    styles = {"mempi": ("tab:red", "o"), "mpich": ("tab:blue", "s"), "openmpi": ("tab:green", "^")}
    made = []

    def series(case, name, lib):
        pts = sorted((k[2], v[lib]) for k, v in med.items()
                     if k[0] == case and k[1] == name and lib in v)
        return [p[0] for p in pts], [p[1] for p in pts]

    def draw(ax, case, name, ylabel, title):
        for lib in libs:
            xs, ys = series(case, name, lib)
            if not xs:
                continue
            xs = [max(x, 0.5) for x in xs]     # size 0 shown at 0.5 on the log axis
            color, marker = styles[lib]
            ax.plot(xs, ys, marker=marker, color=color, label=LIB_NAMES[lib])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()

    for case in cases:
        for name, ylabel, what in (("latency", "one-way latency (us)", "Ping-pong latency"),
                                   ("bw", "bandwidth (MB/s)", "Streaming bandwidth"),
                                   ("bibw", "bandwidth (MB/s, both directions)", "Bidirectional bandwidth")):
            if not any(k[0] == case and k[1] == name for k in med):
                continue
            fig, ax = plt.subplots(figsize=(7, 4.5))
            draw(ax, case, name, ylabel, "%s, %s" % (what, CASE_TEXT.get(case, case)))
            save_plot(plt, fig, out, "%s_%s.png" % ({"bw": "bandwidth"}.get(name, name), case), made, dpi=90)
        colls = [c for c in COLLECTIVES if c != "barrier" and any(k[0] == case and k[1] == c for k in med)]
        if colls:
            cols = 3
            rows = (len(colls) + cols - 1) // cols
            fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.8 * rows), squeeze=False)
            for i, c in enumerate(colls):
                draw(axes[i // cols][i % cols], case, c, "time per call (us)", c)
            for j in range(len(colls), rows * cols):
                axes[j // cols][j % cols].axis("off")
            fig.suptitle("Collectives, %s" % CASE_TEXT.get(case, case))
            save_plot(plt, fig, out, "collectives_%s.png" % case, made)
    return made, None


def target_table(out, title, ref_header, rows, note):
    """Appends a targets table and its tally; informative rows carry no verdict.  A table none
    of whose points this run measured (a run of other programs or cases) is left out."""
    if rows and all(r[7].startswith("not measured") or r[7].startswith("NOT MET (not measured")
                    for r in rows):
        return
    out.append(title + "\n")
    out.append("| target | case | point | MemPI | %s | ratio | wanted | verdict |" % ref_header)
    out.append("|---|---|---|---:|---:|---:|---:|---|")
    for r in rows:
        out.append("| %s |" % " | ".join(r))
    judged = [r for r in rows if not r[7].startswith("informative")]
    met = [r for r in judged if r[7].startswith("met")]
    out.append("\n%d of %d target points met%s." % (len(met), len(judged), note))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True, help="raw folder, or a raw.tar.xz holding raw/")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if os.path.isfile(args.raw):
        unpacked = tempfile.TemporaryDirectory(prefix="mempi-bench-raw-")
        with tarfile.open(args.raw) as tar:
            try:
                tar.extractall(unpacked.name, filter="data")
            except TypeError:                          # Python without extraction filters
                tar.extractall(unpacked.name)
        args.raw = os.path.join(unpacked.name, "raw")
    values, units, status = parse_raw(args.raw)
    med = medians(values)
    noisy = noisy_points(values)
    info = read_machine(args.raw)
    cases = sorted({k[0] for k in med}, key=case_order)
    present = {lib for per in med.values() for lib in per}
    libs = [l for l in LIBS if l in present]
    mempi_note = info.get("unavailable mempi", "")
    rounds = collections.Counter()
    for per in values.values():
        for lib, v in per.items():
            rounds[lib] = max(rounds[lib], len(v))

    plots, plot_note = plot_all(med, units, cases, libs, args.out)
    out = []
    out.append("# Benchmark results: MemPI vs MPICH vs Open MPI\n")
    out.append("Written by `bench/run` (see `bench/README.md`); raw outputs are in `raw.tar.xz` "
               "(`tar xJf raw.tar.xz` gives `raw/`).\n")
    out.append("## Machine and run\n")
    machine_section(out, info, present,
                    ["- **rounds completed**: " + ", ".join("%s %d" % (LIB_NAMES[l], rounds[l]) for l in libs)])
    out.append("\nEach value is the median over the rounds; within a round each point is itself the median "
               "of up to five time-based samples.  Times are in us (lower is better), rates in MB/s "
               "(10^6 bytes/s) or messages/s (higher is better).  **MemPI / best peer** divides MemPI's "
               "median by the better of MPICH and Open MPI: below 1 means MemPI is faster for times; "
               "above 1 means MemPI is faster for rates.  The machine is shared with other work (builds, "
               "tests); the load averages above show how busy it was, and single points can be "
               "disturbed by it.  A ratio marked `~` (or a verdict marked noisy) is a point where one "
               "library's rounds differ by more than %gx: treat it with care.\n" % NOISE_SPREAD)

    trows = check_targets(med, units, cases, mempi_note, noisy)
    target_table(out, "## Targets (issue 9)", "best peer", trows, "")
    wrows = check_waiting(med, noisy)
    if wrows:
        target_table(out, "\n## Targets (issue 8: waiting with more ranks than cores)", "reference",
                     wrows, " (rows marked informative show the peers' own 4-rank/2-rank ratio)")
    nrows = check_nodes(med, noisy)
    if nrows:
        target_table(out, "\n## Targets (issue 11: ranks on network-namespace nodes)", "reference",
                     nrows, " (flat = MemPI with barrier dissemination, bcast binomial, allreduce and "
                     "allgather recursive doubling)")
    rrows = check_rma(med, units, noisy)
    if rrows:
        target_table(out, "\n## Targets (issue 20: one-sided communication, bench/src/rma.c)", "best peer",
                     rrows, " (lock/flush unless the name says fence; latency = operation + flush)")
    if not any(k[0] not in ("np2", "np4") for k in med):
        out.append("\nThe cases with ranks spread over network-namespace nodes were not run this time "
                   "(`bench/run --cases nodes2x1,nodes2x2`, as root).")
    notes_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "target-notes.md")
    if os.path.exists(notes_path):
        out.append("\n### Why targets are missed (notes kept in bench/target-notes.md)\n")
        with open(notes_path) as f:
            out.append(f.read().strip())

    for case in cases:
        out.append("\n## Results: %s\n" % CASE_TEXT.get(case, case))
        for p in plots:
            if p.endswith("_%s.png" % case):
                out.append("![%s](%s)" % (p, p))
        out.append("")
        out.append(results_table(med, units, case, libs, noisy))

    runs_with_notes = {k: v for k, v in status.items() if v}
    if runs_with_notes:
        out.append("\n## Timeouts, failures and skipped points\n")
        for (lib, case, prog), notes in sorted(runs_with_notes.items()):
            out.append("- %s, %s, %s: %s" % (LIB_NAMES.get(lib, lib), case, prog, "; ".join(notes[:6])
                                             + (" ..." if len(notes) > 6 else "")))

    loggp = sorted(glob.glob(os.path.join(args.raw, "loggp.*.txt")))
    if loggp:
        out.append("\n## LogGP parameters (tools/mempi-loggp, 2 ranks)\n")
        for path in loggp:
            lib = os.path.basename(path).split(".")[1]
            out.append("### %s\n" % LIB_NAMES.get(lib, lib))
            for png in sorted(glob.glob(os.path.join(args.out, "loggp_%s*.png" % lib))):
                out.append("![%s](%s)" % (os.path.basename(png), os.path.basename(png)))
            with open(path, errors="replace") as f:
                text = f.read()
            summary = text.split("# table", 1)[0].strip()
            if text.startswith("# TIMEOUT") or text.startswith("# FAILED"):
                summary = text.splitlines()[0]
            elif "# FAILED or TIMEOUT" in text:         # marker of earlier bench/run versions
                summary = "# TIMEOUT or FAILED: " + text.strip().splitlines()[-1]
            out.append("\n```\n%s\n```\n" % summary)
            out.append("Full table: `raw/%s` in `raw.tar.xz`.\n" % os.path.basename(path))
    tiers = sorted(glob.glob(os.path.join(args.raw, "loggp2tier.*.txt")))
    if tiers:
        out.append("\n## Two-tier LoGH{sSP} parameters (tools/mempi-loggp, 2 namespace nodes x 2 ranks)\n")
        for path in tiers:
            lib = os.path.basename(path).split(".")[1]
            with open(path, errors="replace") as f:
                text = f.read()
            summary = text.split("# table", 1)[0].strip()
            out.append("### %s\n\n```\n%s\n```\n" % (LIB_NAMES.get(lib, lib), summary))
            out.append("Full table: `raw/%s` in `raw.tar.xz`.\n" % os.path.basename(path))
    if plot_note:
        out.append("\n" + plot_note)
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("report: %d points, %d plots, %d/%d target points met" % (
        len(med), len(plots), len([r for r in trows if r[7].startswith("met")]), len(trows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
