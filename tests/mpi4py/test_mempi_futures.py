# test_mempi_futures.py -- mpi4py.futures' process pool maps 1000 tasks over MemPI's spawned workers.  MemPI, BSD-3-Clause (see LICENSE).
"""
Issue 23's "done when" for dynamic processes: `MPIPoolExecutor(max_workers=N).map` over
1000 tasks.  tests/mpi4py/run copies this file into mpi4py's test directory, so it runs as
one more module of the suite at every process count, under the same per-test watchdog
and per-job timeout as mpi4py's own modules (a hang is a failure, not a wait).

Every rank of the job makes its own pools (MPIPoolExecutor spawns from MPI.COMM_SELF), so
at np N the job spawns N pools at once: concurrent MPI_Comm_spawn calls from independent
ranks, each child world of its own size.  A task returns its argument's square together
with the worker's rank, world size and process id, which checks that the results are
right and in order, that they were computed in the spawned workers (not in the parent)
and that every worker belongs to a world of exactly max_workers processes.

Run it alone: `mpiexec -n 1 python test_mempi_futures.py` (its directory must be on the
workers' PYTHONPATH: mpiexec --env PYTHONPATH=DIR, which mpiexec hands on to spawned jobs).
"""

import os
import unittest

from mpi4py import MPI
from mpi4py.futures import MPIPoolExecutor, as_completed

NTASKS = 1000


def square_where(x):
    world = MPI.COMM_WORLD
    return x * x, world.Get_rank(), world.Get_size(), os.getpid()


class TestPoolMap(unittest.TestCase):

    def check_map(self, workers, **kwargs):
        with MPIPoolExecutor(max_workers=workers) as ex:
            self.assertEqual(ex.num_workers, workers)
            got = list(ex.map(square_where, range(NTASKS), **kwargs))
        self.assertEqual(len(got), NTASKS)
        self.assertEqual([r[0] for r in got], [x * x for x in range(NTASKS)])
        ranks = {r[1] for r in got}
        sizes = {r[2] for r in got}
        pids = {r[3] for r in got}
        self.assertEqual(sizes, {workers})
        self.assertTrue(ranks <= set(range(workers)), ranks)
        self.assertNotIn(os.getpid(), pids)
        self.assertTrue(1 <= len(pids) <= workers, pids)

    def testMap1000OneWorker(self):
        self.check_map(1)

    def testMap1000ThreeWorkers(self):
        self.check_map(3)

    def testMap1000Chunks(self):
        self.check_map(2, chunksize=37)

    def testSubmit1000AsCompleted(self):
        with MPIPoolExecutor(max_workers=2) as ex:
            futures = {ex.submit(square_where, x): x for x in range(NTASKS)}
            done = 0
            for fut in as_completed(futures):
                x = futures[fut]
                self.assertEqual(fut.result()[0], x * x)
                done += 1
        self.assertEqual(done, NTASKS)


if __name__ == "__main__":
    unittest.main()
