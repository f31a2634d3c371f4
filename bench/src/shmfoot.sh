#!/bin/bash
# shmfoot.sh -- shared memory per node and start-up time at many ranks per node, MemPI against
# MPICH and Open MPI.  MemPI, BSD-3-Clause (see LICENSE).
#
# usage: bench/src/shmfoot.sh [-r REPS] [-n "16 64 128 256"] [-o OLD_LIBDIR] [LIBS...]
#   (from the repository root, after make; LIBS default: mempi mpich openmpi, plus "old"
#   when -o names another MemPI build's lib/ directory, run with the same binary)
# For every rank count and repetition, the libraries run back to back (so a loaded machine
# disturbs them alike): `shmfoot foot` (memory touched after an all-to-all, see shmfoot.c)
# and `shmfoot init` (MPI_Init + MPI_Finalize), the latter timed from outside as the whole
# launcher run.  The machine has 2 cores, so the jobs are heavily oversubscribed; MemPI runs
# with its default waiting policy (spin, then yield, then sleep).  Output: one line per run,
#   LIB foot np N node_pss_mib X max_rank_rss_mib Y max_rank_shared_size_mib Z errors E
#   LIB init np N init_span_s S wall_s W
set -u
reps=3 counts="16 64 128 256" old=
while getopts r:n:o: o; do
    case $o in r) reps=$OPTARG ;; n) counts=$OPTARG ;; o) old=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
libs=${*:-mempi mpich openmpi}
[ -n "$old" ] && libs="old $libs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/bin/mpicc -O2 -o "$tmp/mempi" bench/src/shmfoot.c
cp "$tmp/mempi" "$tmp/old"
mpicc.mpich -O2 -o "$tmp/mpich" bench/src/shmfoot.c
mpicc.openmpi -O2 -o "$tmp/openmpi" bench/src/shmfoot.c
root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root

run() {  # lib np mode
    case $1 in
    mempi) timeout 900 build/bin/mpiexec -n "$2" "$tmp/mempi" "$3" ;;
    old) LD_LIBRARY_PATH=$old timeout 900 build/bin/mpiexec -n "$2" "$tmp/old" "$3" ;;
    mpich) timeout 900 mpiexec.mpich -n "$2" "$tmp/mpich" "$3" ;;
    openmpi) timeout 900 mpiexec.openmpi $root --oversubscribe -n "$2" "$tmp/openmpi" "$3" ;;
    esac
}

for rep in $(seq "$reps"); do
    for np in $counts; do
        for lib in $libs; do
            out=$(run "$lib" "$np" foot 2>&1 | grep '^shmfoot') || out="shmfoot foot np $np FAILED"
            echo "$lib ${out#shmfoot }"
            t0=$(date +%s.%N)
            out=$(run "$lib" "$np" init 2>&1 | grep '^shmfoot') || out="shmfoot init np $np FAILED"
            t1=$(date +%s.%N)
            echo "$lib ${out#shmfoot } wall_s $(echo "$t1 - $t0" | bc)"
        done
    done
done
