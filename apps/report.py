#!/usr/bin/env python3
# report.py -- turn apps/run's raw outputs into apps/results/README.md: the paper's tables, targets and plots.
# MemPI, BSD-3-Clause (see LICENSE).
#
# Input: RAW/<lib>.<case>.r<round>.<app>_<form>.txt, each the report of one run (apps/common/
# app.h describes it: a closing "result key=value ..." line, "# TIMEOUT"/"# FAILED" when the
# run did not finish, "# HUNG at exit" when it had to be ended after its result (the result
# stands, with a note), "# MemPI stats job: ..." under MemPI) and RAW/machine.txt.  For every
# (case, app, form, library) the time is the fastest repetition of all its rounds: on a
# machine shared with other work the least disturbed measurement is the best estimate of
# what the library does, and every library is treated alike.  A run whose checks failed
# counts as failed, not as a time.
#
# Written: the runtimes and speedups (against the same library and form on one rank) of
# every case with MemPI / best-peer ratios, the targets with verdicts, the analogues
# of the paper's Table 10 (SAS vs MPI vs hybrid on MemPI), Table 13 (node-aware vs flat
# collectives on shaped namespace nodes) and Table 3 (essential lines of code per form), the
# LOCAL/RMEM/SYNC breakdown (Figs. 1-6), MemPI's own counters, and the notes of
# apps/target-notes.md.  The shared helpers (machine description, number format, library
# names) come from bench/report.py.
import argparse
import collections
import glob
import os
import re
import sys


def _bench_report():
    """bench/report.py, loaded by path (this file has the same module name)"""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "report.py")
    spec = importlib.util.spec_from_file_location("bench_report", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _bench_report()

LIBS = ["mempi", "mpich", "openmpi"]
PEERS = ["mpich", "openmpi"]
NAMES = dict(bench.LIB_NAMES, mempiflat="MemPI, flat collectives")
APPS = ["fft", "ocean", "lu", "radix", "sample", "nbody"]
APP_NAMES = {"fft": "FFT", "ocean": "OCEAN", "lu": "LU", "radix": "RADIX", "sample": "SAMPLE", "nbody": "N-BODY"}
FORMS = ["mpi", "sas", "hybrid"]
FORM_NAMES = {"mpi": "MPI", "sas": "SAS", "hybrid": "hybrid"}
ALLTOALL_BOUND = ("fft", "radix", "sample")
CASE_TEXT = {"np1": "1 rank", "np2": "2 ranks on 2 cores", "np4": "4 ranks on 2 cores (more ranks than cores)",
             "nodes2x2": "2 namespace nodes x 2 ranks (shared memory inside, TCP between)",
             "gbit2x2": "2 namespace nodes x 2 ranks, links shaped"}
RESULT = re.compile(r"^result (.*)$")
STATS = re.compile(r"^# MemPI stats job: (\d+) msgs, (\d+) bytes")
FILE = re.compile(r"^(\w+)\.(np\d+|nodes\d+x\d+|gbit\d+x\d+)\.r(\d+)\.(\w+?)_(mpi|sas|hybrid)\.txt$")


def parse(raw):
    """runs[(lib, case, app, form)] -> list of dicts (one per round), notes -> list of text."""
    runs = collections.defaultdict(list)
    notes = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(raw, "*.txt"))):
        m = FILE.match(os.path.basename(path))
        if not m:
            continue
        lib, case, rnd, app, form = m.group(1), m.group(2), int(m.group(3)), m.group(4), m.group(5)
        key = (lib, case, app, form)
        run, failed, hung = None, [], []
        with open(path, errors="replace") as f:
            for line in f:
                r = RESULT.match(line)
                if r:
                    run = dict(kv.split("=", 1) for kv in r.group(1).split())
                s = STATS.match(line)
                if s and run is not None:
                    run["stats_msgs"], run["stats_bytes"] = int(s.group(1)), int(s.group(2))
                if line.startswith("# HUNG"):
                    hung.append(line[2:].strip())
                if line.startswith("# TIMEOUT") or line.startswith("# FAILED"):
                    failed.append(line[2:].strip())
                if line.startswith("verify") and line.rstrip().endswith("FAILED"):
                    failed.append("check failed: " + " ".join(line.split()[1:4]))
                if line.startswith("# stderr:") and len(failed) < 4:
                    failed.append(line[len("# stderr:"):].strip())
        if run is None or run.get("verified") != "1":
            notes[key].append("round %d: %s" % (rnd, "; ".join(failed) or "no result line"))
            continue
        if hung:   # the result stands; the note says the job had to be ended
            notes[key].append("round %d: result kept, %s" % (rnd, hung[0]))
        runs[key].append(run)
    return runs, notes


def fastest(runs, key):
    """the round with the shortest time, or None"""
    rs = runs.get(key, [])
    return min(rs, key=lambda r: float(r["time"])) if rs else None


def best_time(runs, key):
    """the time of (lib, case, app, form): the fastest round's (see the file's comment)"""
    r = fastest(runs, key)
    return float(r["time"]) if r else None


def fmt_s(v):
    return "-" if v is None else ("%.3f" % v if v < 10 else "%.1f" % v)


def best_peer(runs, case, app, form):
    best = None
    for p in PEERS:
        t = best_time(runs, (p, case, app, form))
        if t is not None and (best is None or t < best[1]):
            best = (p, t)
    return best


def speedup(runs, lib, case, app, form):
    t1, t = best_time(runs, (lib, "np1", app, form)), best_time(runs, (lib, case, app, form))
    return t1 / t if t1 and t else None


def runtime_table(runs, case, libs):
    out = ["| application | form | " + " | ".join("%s (s)" % NAMES[l] for l in libs)
           + " | " + " | ".join("speedup %s" % NAMES[l] for l in libs) + " | MemPI / best peer |",
           "|---|---|" + "---:|" * (2 * len(libs)) + "---:|"]
    for app in APPS:
        for form in FORMS:
            times = [best_time(runs, (l, case, app, form)) for l in libs]
            if all(t is None for t in times):
                continue
            sp = [speedup(runs, l, case, app, form) for l in libs]
            bp = best_peer(runs, case, app, form)
            mine = best_time(runs, ("mempi", case, app, form))
            ratio = "%.2f" % (mine / bp[1]) if mine and bp else "-"
            out.append("| %s | %s | %s | %s | %s |" % (
                APP_NAMES[app], FORM_NAMES[form], " | ".join(fmt_s(t) for t in times),
                " | ".join("-" if s is None else "%.2f" % s for s in sp), ratio))
    return "\n".join(out)


def targets(runs):
    """(target, case, point, MemPI, best peer, ratio, wanted, verdict) rows."""
    rows = []
    for case in ("np2", "np4"):
        for app in APPS:
            for form in FORMS:
                wants = [("no slower than the faster peer", 1.0)]
                if case == "np4" and app in ALLTOALL_BOUND and form == "mpi":
                    wants.append(("all-to-all-bound: >= 1.2x faster than the faster peer", 1 / 1.2))
                mine, bp = best_time(runs, ("mempi", case, app, form)), best_peer(runs, case, app, form)
                for text, limit in wants:
                    point = "%s %s" % (APP_NAMES[app], FORM_NAMES[form])
                    wanted = "<= %.2f" % limit
                    if mine is None or bp is None:
                        rows.append((text, case, point, fmt_s(mine), "-" if bp is None else
                                     "%s (%s)" % (fmt_s(bp[1]), NAMES[bp[0]]), "-", wanted, "not measured"))
                        continue
                    ratio = mine / bp[1]
                    verdict = "met" if ratio <= limit + 1e-9 else "NOT MET: measured ratio %.2f" % ratio
                    rows.append((text, case, point, fmt_s(mine), "%s (%s)" % (fmt_s(bp[1]), NAMES[bp[0]]),
                                 "%.2f" % ratio, wanted, verdict))
    return rows


def table10(runs, cases):
    out = []
    for case in cases:
        if not any(k[0] == "mempi" and k[1] == case for k in runs):
            continue
        out.append("\n%s (seconds, MemPI):\n" % CASE_TEXT.get(case, case))
        out.append("| form | " + " | ".join(APP_NAMES[a] for a in APPS) + " |")
        out.append("|---|" + "---:|" * len(APPS))
        for form in ("sas", "mpi", "hybrid"):
            cells = [best_time(runs, ("mempi", case, a, form)) for a in APPS]
            if any(c is not None for c in cells):
                out.append("| %s | %s |" % (FORM_NAMES[form], " | ".join(fmt_s(c) for c in cells)))
    return "\n".join(out)


def table13(runs):
    apps = [a for a in APPS if best_time(runs, ("mempi", "gbit2x2", a, "mpi")) is not None
            or best_time(runs, ("mempiflat", "gbit2x2", a, "mpi")) is not None]
    if not apps:
        return None
    out = ["| collectives | " + " | ".join("%s time (s) | speedup" % APP_NAMES[a] for a in apps) + " |",
           "|---|" + "---:|---:|" * len(apps)]
    for lib, text in (("mempiflat", "flat (MEMPI_COLL_*: dissemination, binomial, recursive doubling)"),
                      ("mempi", "node-aware (MemPI's defaults)")):
        cells = []
        for a in apps:
            t, t1 = best_time(runs, (lib, "gbit2x2", a, "mpi")), best_time(runs, ("mempi", "np1", a, "mpi"))
            cells += [fmt_s(t), "%.2f" % (t1 / t) if t and t1 else "-"]
        out.append("| %s | %s |" % (text, " | ".join(cells)))
    ratios = []
    for a in apps:
        t, f = best_time(runs, ("mempi", "gbit2x2", a, "mpi")), best_time(runs, ("mempiflat", "gbit2x2", a, "mpi"))
        ratios.append("%s %.2f" % (APP_NAMES[a], t / f) if t and f else "%s -" % APP_NAMES[a])
    out.append("\nnode-aware / flat time: " + ", ".join(ratios) + " (below 1: the node-aware collectives help).")
    return "\n".join(out)


def essential_lines(path):
    """Lines of code without comments, blank lines and lines of braces alone (the paper's
    'essential lines': initialization and debugging code aside, here the harness)."""
    try:
        text = open(path).read()
    except OSError:
        return 0
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return sum(1 for line in text.splitlines() if line.strip() and line.strip() not in ("{", "}", "};"))


def mpi_calls(path):
    try:
        text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    except OSError:
        return 0
    return len(re.findall(r"\bMPI_[A-Z][a-z_]*\s*\(", text))


def table3(src):
    out = ["| | " + " | ".join(APP_NAMES[a] for a in APPS) + " |", "|---|" + "---:|" * len(APPS)]
    shared = []
    for a in APPS:
        n = essential_lines(os.path.join(src, a, a + ".c")) + essential_lines(os.path.join(src, a, a + ".h"))
        if a in ("radix", "sample"):
            n += essential_lines(os.path.join(src, "common", "keys.c")) + essential_lines(os.path.join(src, "common", "keys.h"))
        shared.append(n)
    for form in ("mpi", "sas", "hybrid"):
        own = [essential_lines(os.path.join(src, a, "%s_%s.c" % (a, form))) for a in APPS]
        out.append("| %s: form's own lines | %s |" % (FORM_NAMES[form], " | ".join(str(x) for x in own)))
        out.append("| %s: with the shared kernel | %s |" % (FORM_NAMES[form], " | ".join(
            str(x + s) for x, s in zip(own, shared))))
        calls = [mpi_calls(os.path.join(src, a, "%s_%s.c" % (a, form))) for a in APPS]
        out.append("| %s: MPI calls written in the form | %s |" % (FORM_NAMES[form], " | ".join(str(c) for c in calls)))
    out.append("| shared kernel (sequential code, checks) | %s |" % " | ".join(str(s) for s in shared))
    kcalls = [mpi_calls(os.path.join(src, a, a + ".c")) for a in APPS]
    out.append("| MPI calls in the shared kernel (its checks, and helpers two forms share) | %s |"
               % " | ".join(str(c) for c in kcalls))
    return "\n".join(out)


def stats_table(runs, case):
    rows = ["| application | form | messages (application) | bytes (application) | messages (MEMPI_STATS) "
            "| bytes (MEMPI_STATS) |", "|---|---|---:|---:|---:|---:|"]
    any_row = False
    for app in APPS:
        for form in FORMS:
            r = fastest(runs, ("mempi", case, app, form))
            if r is None:
                continue
            any_row = True
            rows.append("| %s | %s | %s | %s | %s | %s |" % (
                APP_NAMES[app], FORM_NAMES[form], r.get("msgs", "-"), r.get("bytes", "-"),
                r.get("stats_msgs", "-"), r.get("stats_bytes", "-")))
    return "\n".join(rows) if any_row else None


def plots(runs, cases, libs, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], "matplotlib is not installed: no plots"
    made = []
    colors = {"mempi": "tab:red", "mpich": "tab:blue", "openmpi": "tab:green"}

    # runtimes: one panel per application, bars per (case, form) and library
    fig, axes = plt.subplots(2, 3, figsize=(16, 8.5), squeeze=False)
    for i, app in enumerate(APPS):
        ax = axes[i // 3][i % 3]
        groups = [(c, f) for c in cases if c != "gbit2x2" for f in FORMS
                  if any(best_time(runs, (l, c, app, f)) is not None for l in libs)]
        width = 0.8 / max(len(libs), 1)
        for j, lib in enumerate(libs):
            ys = [best_time(runs, (lib, c, app, f)) or 0 for c, f in groups]
            ax.bar([g + (j - (len(libs) - 1) / 2) * width for g in range(len(groups))], ys, width,
                   color=colors[lib], label=NAMES[lib])
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(["%s\n%s" % (c, FORM_NAMES[f]) for c, f in groups], fontsize=7)
        ax.set_ylabel("time (s), fastest repetition")
        ax.set_title(APP_NAMES[app])
        ax.grid(True, axis="y", alpha=0.3)
        if i == 0:
            ax.legend(fontsize=8)
    fig.suptitle("Runtime of every application, form and case")
    bench.save_plot(plt, fig, out, "runtime.png", made)

    # speedup against one rank: one panel per application, a line per library and form
    scases = [c for c in cases if c in ("np1", "np2", "np4", "nodes2x2")]
    fig, axes = plt.subplots(2, 3, figsize=(16, 8.5), squeeze=False)
    styles = {"mpi": "-", "sas": ":", "hybrid": "--"}
    for i, app in enumerate(APPS):
        ax = axes[i // 3][i % 3]
        for lib in libs:
            for form in FORMS:
                pts = [(k, speedup(runs, lib, c, app, form)) for k, c in enumerate(scases)]
                pts = [(k, s) for k, s in pts if s is not None]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], styles[form], marker="o", color=colors[lib],
                            label="%s %s" % (NAMES[lib], FORM_NAMES[form]))
        ax.set_xticks(range(len(scases)))
        ax.set_xticklabels(scases)
        ax.set_ylabel("speedup over 1 rank")
        ax.set_title(APP_NAMES[app])
        ax.grid(True, alpha=0.3)
        if i == 0:
            ax.legend(fontsize=6, ncol=3)
    fig.suptitle("Speedup against the one-rank run of the same library and form (2 cores)")
    bench.save_plot(plt, fig, out, "speedup.png", made)

    # LOCAL / RMEM / SYNC per rank on MemPI (the paper's Figs. 1-6)
    for case in ("np4", "nodes2x2"):
        bars = [(a, f) for a in APPS for f in FORMS if runs.get(("mempi", case, a, f))]
        if not bars:
            continue
        fig, ax = plt.subplots(figsize=(14, 4.8))
        bottom = [0.0] * len(bars)
        for part, color in (("local", "tab:gray"), ("rmem", "tab:orange"), ("sync", "tab:purple")):
            ys = []
            for a, f in bars:
                r = fastest(runs, ("mempi", case, a, f))
                ys.append(float(r[part]) / int(r["np"]))
            ax.bar(range(len(bars)), ys, bottom=bottom, color=color, label=part.upper())
            bottom = [b + y for b, y in zip(bottom, ys)]
        ax.set_xticks(range(len(bars)))
        ax.set_xticklabels(["%s\n%s" % (APP_NAMES[a], FORM_NAMES[f]) for a, f in bars], fontsize=7)
        ax.set_ylabel("seconds per rank (mean)")
        ax.set_title("Time breakdown on MemPI, %s" % CASE_TEXT.get(case, case))
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend()
        bench.save_plot(plt, fig, out, "breakdown_%s.png" % case, made)
    return made, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--src", default=os.path.dirname(os.path.abspath(__file__)))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    runs, notes = parse(args.raw)
    info = bench.read_machine(args.raw)
    present = {k[0] for k in runs}
    libs = [l for l in LIBS if l in present]
    order = ["np1", "np2", "np4", "nodes2x2", "gbit2x2"]
    cases = [c for c in order if any(k[1] == c for k in runs)]
    made, plot_note = plots(runs, cases, libs, args.out)

    out = ["# Application suite: MemPI vs MPICH vs Open MPI\n",
           "Written by `apps/run` (see `apps/README.md`); raw outputs stay in `raw/` (not kept in git).\n",
           "## Machine and run\n"]
    bench.machine_section(out, info, present)
    out.append("\nEvery run repeats its timed part and reports the fastest repetition; a value is the "
               "fastest over the rounds too (the least disturbed measurement of a shared machine).  Speedups divide the time of the same library and form "
               "on one rank by the time in the case.  **MemPI / best peer** divides MemPI's time by the "
               "faster of MPICH and Open MPI (below 1: MemPI is faster).  The machine has 2 cores and "
               "is shared with other work; the load averages above say how busy it was, and a run "
               "that started on a busy machine can be slower than the library makes it.  np4 runs "
               "4 ranks on 2 cores, so every library there is measured oversubscribed.\n")

    rows = targets(runs)
    bench.target_table(out, "## Targets (issue 21)", "best peer", rows, "")
    notes_path = os.path.join(args.src, "target-notes.md")
    if os.path.exists(notes_path):
        out.append("\n### Why targets are missed (notes kept in apps/target-notes.md)\n")
        out.append(open(notes_path).read().strip())

    for case in [c for c in cases if c != "gbit2x2"]:
        out.append("\n## Runtime and speedup: %s\n" % CASE_TEXT.get(case, case))
        out.append(runtime_table(runs, case, libs))
    for p in ("runtime.png", "speedup.png"):
        if p in made:
            out.append("\n![%s](%s)" % (p, p))

    out.append("\n## SAS vs MPI vs hybrid on MemPI (the paper's Table 10)\n")
    out.append("The same programs' runtimes by form.  On one node the hybrid forms have no other node to "
               "send to and do what the shared-window (SAS) forms do, with their own synchronization; "
               "the shared-window forms need one node and are absent from the namespace-node case.")
    out.append(table10(runs, [c for c in ("np4", "nodes2x2") if c in cases]))
    for case in ("np4", "nodes2x2"):
        if "breakdown_%s.png" % case in made:
            out.append("\n![breakdown_%s](breakdown_%s.png)" % (case, case))
    out.append("\nLOCAL is computation, RMEM communication (message passing, or loads and stores of other "
               "ranks' memory in bulk copies), SYNC barriers and MPI_Win_sync (apps/common/app.h).")

    t13 = table13(runs)
    out.append("\n## Node-aware vs flat collectives (the paper's Table 13)\n")
    if t13:
        out.append("The message-passing forms on 2 namespace nodes x 2 ranks with links shaped to %s; "
                   "speedups against MemPI on one rank.\n" % info.get("table 13 links", "?").replace("--rate ", ""))
        out.append(t13)
    else:
        out.append("Not run this time (it needs root for the namespace nodes; `apps/run` without --no-table13).")

    out.append("\n## Essential lines of code (the paper's Table 3)\n")
    out.append("Lines without comments, blank lines and lone braces; the harness (apps/common/app.c) is "
               "left out like the paper leaves out initialization and debugging code.  Each application's "
               "sequential kernel and checks are shared by its three forms and counted once.\n")
    out.append(table3(args.src))

    st = stats_table(runs, "np4")
    if st:
        out.append("\n## What the programs communicated (MemPI, 4 ranks)\n")
        out.append("The application's own count (messages it sent; in the shared-window forms, bytes it "
                   "copied from or to other ranks' memory) and MEMPI_STATS=1's job totals, which also "
                   "count the messages inside collectives, barriers and the checks.\n")
        out.append(st)

    if notes:
        out.append("\n## Failed, timed out, unverified or hung runs\n")
        for (lib, case, app, form), n in sorted(notes.items()):
            out.append("- %s, %s, %s %s: %s" % (NAMES.get(lib, lib), case, APP_NAMES.get(app, app),
                                               FORM_NAMES[form], "; ".join(n)))
    if plot_note:
        out.append("\n" + plot_note)
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    judged = [r for r in rows if r[7] != "not measured"]
    print("report: %d runs, %d plots, %d/%d target points met, %d failed runs" % (
        sum(len(v) for v in runs.values()), len(made), len([r for r in judged if r[7].startswith("met")]),
        len(rows), len(notes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
