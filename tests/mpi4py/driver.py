# driver.py -- run mpi4py's own test runner under MPI and record every test's outcome.  MemPI, BSD-3-Clause (see LICENSE).
"""
Started by tests/mpi4py/run as one MPI job per test module:

    mpiexec -n N python driver.py TESTDIR OUTPREFIX [mpi4py test/main.py options...]

It imports mpi4py's test/main.py (the runner mpi4py's CI uses, with its -i/-e/-x
options) and swaps in a result class that appends one JSON line per event to
OUTPREFIX.rank<R>.jsonl, flushed at once, so a crash or hang still leaves a record:

    {"e": "start", "id": TEST}                      before the test runs
    {"e": "end", "id": TEST, "o": OUTCOME, ...}     after it, OUTCOME one of
                                                    ok, fail, error, skip, xfail, xpass

Hangs: a watchdog (faulthandler.dump_traceback_later) is armed for every test;
a test that runs longer than MEMPI_MPI4PY_TEST_TIMEOUT seconds (default 60) gets
the Python stacks of all threads dumped to OUTPREFIX.rank<R>.fault and the rank
exits, which makes mpiexec end the job.  Crashes (SIGSEGV, SIGABRT...) dump the
stack to the same file through faulthandler.enable().  The stack names the mpi4py
call, hence the MPI function, that hung or crashed.
"""

import faulthandler
import json
import os
import sys
import time
import traceback
import unittest


def rank_from_env():
    # MemPI's launcher sets PMI_RANK; the singleton case has none.
    return os.environ.get("PMI_RANK", "0")


class Recorder:
    """One JSON line per event, written and flushed immediately."""

    def __init__(self, prefix):
        rank = rank_from_env()
        self.log = open(f"{prefix}.rank{rank}.jsonl", "a", encoding="utf-8")
        self.fault = open(f"{prefix}.rank{rank}.fault", "w", encoding="utf-8")
        faulthandler.enable(file=self.fault, all_threads=True)
        self.test_timeout = float(os.environ.get("MEMPI_MPI4PY_TEST_TIMEOUT", "60"))

    def write(self, **record):
        self.log.write(json.dumps(record) + "\n")
        self.log.flush()

    def arm(self, test_id):
        self.fault.write(f"--- watchdog armed for {test_id}\n")
        self.fault.flush()
        faulthandler.dump_traceback_later(self.test_timeout, exit=True, file=self.fault)

    def disarm(self):
        faulthandler.cancel_dump_traceback_later()


def last_line(text):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def make_result_class(recorder):
    class RecordingResult(unittest.TextTestResult):
        """TextTestResult that also records outcomes (subtests fold into their test)."""

        def startTest(self, test):
            self._outcome_now = "ok"
            self._messages = []
            self._tracebacks = []
            self._t0 = time.monotonic()
            recorder.write(e="start", id=test.id())
            recorder.arm(test.id())
            super().startTest(test)

        def stopTest(self, test):
            recorder.disarm()
            super().stopTest(test)
            record = dict(e="end", id=test.id(), o=self._outcome_now,
                          t=round(time.monotonic() - self._t0, 3))
            if self._messages:
                record["msg"] = self._messages[:5]
            if self._tracebacks:
                record["tb"] = "\n".join(self._tracebacks)[:6000]
            recorder.write(**record)

        def _note(self, outcome, test, err=None, reason=None):
            rank = {"ok": 0, "skip": 1, "xfail": 1, "xpass": 2, "fail": 3, "error": 4}
            if rank[outcome] >= rank.get(self._outcome_now, 0):
                self._outcome_now = outcome
            if err is not None:
                text = self._exc_info_to_string(err, test)
                self._messages.append(last_line(text))
                self._tracebacks.append(text)
            if reason is not None:
                self._messages.append(str(reason))

        def addSuccess(self, test):
            super().addSuccess(test)

        def addFailure(self, test, err):
            super().addFailure(test, err)
            self._note("fail", test, err)

        def addError(self, test, err):
            super().addError(test, err)
            # setUpClass/tearDownClass/setUpModule errors arrive outside startTest/stopTest
            # with a placeholder "test" (unittest.suite._ErrorHolder): record them alone.
            if type(test).__name__ == "_ErrorHolder":
                text = "".join(traceback.format_exception(*err))
                recorder.write(e="start", id=test.id())
                recorder.write(e="end", id=test.id(), o="error", msg=[last_line(text)],
                               tb=text[:6000])
                return
            self._note("error", test, err)

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            self._note("skip", test, reason=reason)

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            self._note("xfail", test, err)

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            self._note("xpass", test)

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                failure = issubclass(err[0], test.failureException)
                self._note("fail" if failure else "error", test, err)
                self._messages[-1] = f"{subtest._subDescription()}: {self._messages[-1]}"

    return RecordingResult


def iter_test_ids(suite):
    if isinstance(suite, unittest.TestSuite):
        for item in suite:
            yield from iter_test_ids(item)
    else:
        yield suite.id()


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: driver.py TESTDIR OUTPREFIX [test/main.py options...]")
    testdir, prefix = sys.argv[1], sys.argv[2]
    recorder = Recorder(prefix)
    sys.dont_write_bytecode = True
    sys.path.insert(0, testdir)
    import main as mpi4py_test_main  # mpi4py's test/main.py

    class Program(mpi4py_test_main.TestProgram):
        def runTests(self):
            listing = os.environ.get("MEMPI_MPI4PY_LIST")
            if listing:  # write the ids of every test found, run nothing
                with open(listing, "w", encoding="utf-8") as f:
                    for test_id in iter_test_ids(self.test):
                        f.write(test_id + "\n")
                sys.exit(0)
            self.testRunner = unittest.TextTestRunner(
                verbosity=self.verbosity, resultclass=make_result_class(recorder))
            super().runTests()

    sys.argv = [os.path.join(testdir, "main.py")] + sys.argv[3:]
    Program(module=None)


if __name__ == "__main__":
    main()
