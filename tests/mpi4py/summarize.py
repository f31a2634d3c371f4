# summarize.py -- merge driver.py's per-rank records into counts and reasons per process count.  MemPI, BSD-3-Clause (see LICENSE).
"""
Input: one directory per process count (results/npN) holding, per test module MOD,
MOD.status (launcher exit code and seconds), MOD.rank<R>.jsonl (driver.py's records),
MOD.rank<R>.fault (watchdog / crash stacks) and MOD.log (the job's output).

A test's outcome merges its ranks, the most informative first:
  error / fail   some rank reported it (other ranks may then hang waiting for it:
                 noted as "hung_ranks", the failing rank is the cause);
  crash          a rank started the test, never ended it, and its fault file holds a
                 "Fatal Python error" (segfault, abort) -- or the job died without one;
  hang           a rank started it, never ended it, and the watchdog fired
                 ("Timeout" in the fault file) or the module job timed out (exit 124);
  aborted        collateral: some rank never reached the test (it was still stuck in,
                 or had died in, an earlier test -- usually after a peer's error), so
                 the others waited for it or were killed with the job;
  (hang and crash are marked "after earlier errors" when an earlier test of the module
  failed on some rank: the ranks' call sequences may have diverged there);
  skip           every rank skipped it; xfail / xpass as unittest defines them;
  ok             otherwise.
A module whose job failed before any test started is reported as a module error.
Tests that a module's job never reached (it ended early) are counted as "not run",
against the list of every test id (--tests, written by driver.py's listing mode).

Output: a JSON summary (counts per N, every non-passing test with reason and ranks,
per-module time), a text report grouped by reason, and the closing line
"N passed, N failed, N skipped" summed over process counts.  Exit 1 if anything failed.
"""

import argparse
import datetime
import glob
import json
import os
import re
import sys

OUTCOMES = ["ok", "fail", "error", "skip", "xfail", "xpass", "hang", "crash", "aborted"]


def read_jsonl(path):
    records = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    pass  # a line cut by a crash
    return records


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def fault_kind(fault_text, test_id):
    """What the fault file says about test_id: 'hang', 'crash' or ''."""
    marker = f"--- watchdog armed for {test_id}\n"
    tail = fault_text.split(marker)[-1] if marker in fault_text else ""
    if "Fatal Python error" in tail:
        return "crash", tail.strip()
    if "Timeout (" in tail:
        return "hang", tail.strip()
    return "", ""


def stack_reason(stack):
    """The innermost mpi4py/test frame of a faulthandler dump, as a short reason."""
    frames = re.findall(r'File "([^"]+)", line (\d+) in (\S+)', stack)
    first_line = stack.splitlines()[0] if stack else ""
    if frames:
        path, line, func = frames[0]
        return f"{first_line.strip()} in {os.path.basename(path)}:{line} {func}"
    return first_line.strip()


def last_started(records):
    started = [r["id"] for r in records if r["e"] == "start"]
    return started[-1] if started else "(start-up)"


def job_end_line(outdir, module):
    for ln in reversed(read_text(os.path.join(outdir, module + ".log")).splitlines()):
        if ln.startswith("mpiexec:"):
            return ln.strip()
    return ""


def module_results(outdir, module):
    status = json.loads(read_text(os.path.join(outdir, module + ".status")) or "{}")
    per_rank = {}
    for path in glob.glob(os.path.join(outdir, module + ".rank*.jsonl")):
        rank = int(re.search(r"\.rank(\d+)\.jsonl$", path).group(1))
        per_rank[rank] = read_jsonl(path)
    faults = {}
    for path in glob.glob(os.path.join(outdir, module + ".rank*.fault")):
        rank = int(re.search(r"\.rank(\d+)\.fault$", path).group(1))
        faults[rank] = read_text(path)

    order, started, ended = [], {}, {}
    for rank, records in sorted(per_rank.items()):
        for r in records:
            tid = r["id"]
            if tid not in started and tid not in ended:
                order.append(tid)
            if r["e"] == "start":
                started.setdefault(tid, set()).add(rank)
            else:
                ended.setdefault(tid, {})[rank] = r
                started.setdefault(tid, set()).add(rank)

    tests = []
    errors_before = False    # an earlier test of this module failed on some rank
    for tid in order:
        ends = ended.get(tid, {})
        missing = sorted(started.get(tid, set()) - set(ends))
        res = {"id": tid, "outcome": "ok", "reason": "", "ranks": []}
        bad = {rk: r for rk, r in ends.items() if r["o"] in ("error", "fail")}
        if bad:
            outcome = "error" if any(r["o"] == "error" for r in bad.values()) else "fail"
            first = min(rk for rk, r in bad.items() if r["o"] == outcome)
            res.update(outcome=outcome, ranks=sorted(bad),
                       reason="; ".join(bad[first].get("msg", [])[:2]),
                       traceback=bad[first].get("tb", "")[-1500:])
            if missing:
                res["hung_ranks"] = missing
        elif missing and len(started.get(tid, ())) < len(per_rank):
            absent = sorted(set(per_rank) - started.get(tid, set()))
            where = ", ".join(f"rank {rk} in {last_started(per_rank[rk])}" for rk in absent[:3])
            res.update(outcome="aborted", ranks=missing,
                       reason=f"collateral: rank(s) {absent} never reached this test "
                              f"(still in an earlier test: {where})")
        elif missing:
            kinds = {rk: fault_kind(faults.get(rk, ""), tid) for rk in missing}
            crash = [rk for rk, (k, _) in kinds.items() if k == "crash"]
            hang = [rk for rk, (k, _) in kinds.items() if k == "hang"]
            if crash:
                res.update(outcome="crash", ranks=crash,
                           reason=stack_reason(kinds[crash[0]][1]), stack=kinds[crash[0]][1][:2000])
            elif hang or status.get("rc") == 124:
                stack = kinds[hang[0]][1] if hang else ""
                res.update(outcome="hang", ranks=hang or missing,
                           reason=stack_reason(stack) if stack else
                           f"module job timed out (exit 124) during this test", stack=stack[:2000])
            else:
                res.update(outcome="crash", ranks=missing,
                           reason=f"rank(s) {missing} ended in this test without a stack "
                                  f"(job exit {status.get('rc')}): {job_end_line(outdir, module)}")
        else:
            outs = [r["o"] for r in ends.values()]
            if outs and all(o == "skip" for o in outs):
                r0 = ends[min(ends)]
                res.update(outcome="skip", reason="; ".join(r0.get("msg", [])))
            elif "xpass" in outs:
                res["outcome"] = "xpass"
            elif "xfail" in outs:
                res["outcome"] = "xfail"
        if res["outcome"] in ("hang", "crash") and errors_before:
            # Ranks that failed an earlier test skipped calls their peers made, so the
            # ranks' collective and message sequences may no longer agree.
            res["after_errors"] = True
            res["reason"] = "after earlier errors in this module (likely collateral): " + res["reason"]
        if res["outcome"] in ("error", "fail"):
            errors_before = True
        tests.append(res)

    module_error = None
    rc = status.get("rc", -1)
    if rc != 0 and not any(t["outcome"] in ("fail", "error", "hang", "crash") for t in tests):
        log = read_text(os.path.join(outdir, module + ".log"))
        tail = [ln for ln in log.strip().splitlines() if ln.strip()][-6:]
        if rc == 124:
            why = "job timed out (exit 124) outside any test (start-up, tear-down or finalize)"
        else:
            why = f"job exit {rc} outside any test"
        module_error = {"module": module, "rc": rc, "reason": why, "log_tail": tail}
    return status, tests, module_error


def summarize_np(outdir, all_ids):
    np = int(re.search(r"np(\d+)$", outdir.rstrip("/")).group(1))
    counts = {k: 0 for k in OUTCOMES}
    modules, bad_tests, module_errors = {}, [], []
    not_run = 0
    for spath in sorted(glob.glob(os.path.join(outdir, "*.status"))):
        module = os.path.basename(spath)[: -len(".status")]
        status, tests, merr = module_results(outdir, module)
        mcounts = {k: 0 for k in OUTCOMES}
        if status.get("rc", 0) != 0:
            seen = {t["id"] for t in tests}
            lost = [i for i in all_ids if i.startswith(module + ".") and i not in seen]
            mcounts["not_run"] = len(lost)
            not_run += len(lost)
        for t in tests:
            counts[t["outcome"]] += 1
            mcounts[t["outcome"]] += 1
            if t["outcome"] not in ("ok", "xfail"):
                t["np"] = np
                t["module"] = module
                bad_tests.append(t)
        modules[module] = {"rc": status.get("rc"), "seconds": status.get("seconds"),
                           "counts": {k: v for k, v in mcounts.items() if v}}
        if merr:
            merr["np"] = np
            module_errors.append(merr)
    run = sum(counts.values())
    table = {
        "run": run,
        "passed": counts["ok"] + counts["xfail"],
        "failed": counts["fail"] + counts["xpass"],
        "errors": counts["error"],
        "skipped": counts["skip"],
        "hung": counts["hang"],
        "crashed": counts["crash"],
        "aborted": counts["aborted"],
        "not_run": not_run,
        "module_errors": len(module_errors),
        "seconds": round(sum(m["seconds"] or 0 for m in modules.values()), 1),
    }
    return np, table, modules, bad_tests, module_errors


def normalize(reason):
    """Group key for a reason: drop addresses and numbers that vary per test."""
    reason = re.sub(r"0x[0-9a-fA-F]+", "0x..", reason)
    reason = re.sub(r"line \d+", "line N", reason)
    return reason[:300]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", default="?")
    ap.add_argument("--tests", help="file with every test id, one a line")
    ap.add_argument("--library", default="?")
    ap.add_argument("--commit", default="?", help="MemPI's git commit")
    ap.add_argument("--build", default="?", help="MemPI build directory the tests loaded")
    ap.add_argument("--json", required=True)
    ap.add_argument("--text", required=True)
    ap.add_argument("dirs", nargs="+")
    opt = ap.parse_args()

    summary = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
               "mpi4py": opt.version, "library": opt.library,
               "mempi_commit": opt.commit, "mempi_build": opt.build,
               "counts": {}, "modules": {}, "tests": [], "module_errors": []}
    all_ids = []
    if opt.tests and os.path.exists(opt.tests):
        all_ids = [ln.strip() for ln in read_text(opt.tests).splitlines() if ln.strip()]
    for d in opt.dirs:
        np, table, modules, bad, merrs = summarize_np(d, all_ids)
        run = os.path.join(d, "run.json")       # written by tests/mpi4py/run after each N
        if os.path.exists(run):
            info = json.loads(read_text(run))
            table["started"] = info.get("started")
            table["load_start"] = info.get("load_start")
            table["load_end"] = info.get("load_end")
            table["wall_seconds"] = info.get("seconds")
        summary["counts"][str(np)] = table
        summary["modules"][str(np)] = modules
        summary["tests"] += bad
        summary["module_errors"] += merrs

    with open(opt.json, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)

    lines = [f"mpi4py {opt.version} on {opt.library} ({summary['date']})",
             f"MemPI commit {opt.commit}, library from {opt.build}", ""]
    cols = ["run", "passed", "failed", "errors", "skipped", "hung", "crashed", "aborted",
            "not_run", "module_errors", "seconds"]
    lines.append("np  " + " ".join(f"{c[:9]:>9}" for c in cols))
    for np, t in summary["counts"].items():
        load = f"   load {t['load_start']} -> {t['load_end']}" if t.get("load_start") else ""
        lines.append(f"{np:<3} " + " ".join(f"{t[c]:>9}" for c in cols) + load)
    lines.append("")
    groups = {}
    for t in summary["tests"]:
        key = (t["outcome"], normalize(t["reason"]))
        groups.setdefault(key, []).append(t)
    for (outcome, reason), ts in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        nps = sorted({t["np"] for t in ts})
        lines.append(f"[{outcome}] x{len(ts)} np={','.join(map(str, nps))}: {reason}")
        for tid in sorted({t["id"] for t in ts})[:8]:
            lines.append(f"      {tid}")
        if len({t['id'] for t in ts}) > 8:
            lines.append(f"      ... {len({t['id'] for t in ts}) - 8} more")
    for m in summary["module_errors"]:
        lines.append(f"[module] np={m['np']} {m['module']}: {m['reason']}")
        for ln in m["log_tail"]:
            lines.append(f"      {ln}")
    passed = sum(t["passed"] for t in summary["counts"].values())
    failed = sum(t["failed"] + t["errors"] + t["hung"] + t["crashed"] + t["aborted"]
                 + t["module_errors"] for t in summary["counts"].values())
    skipped = sum(t["skipped"] for t in summary["counts"].values())
    lines.append("")
    lines.append(f"{passed} passed, {failed} failed, {skipped} skipped")
    text = "\n".join(lines) + "\n"
    with open(opt.text, "w", encoding="utf-8") as f:
        f.write(text)
    sys.stdout.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
