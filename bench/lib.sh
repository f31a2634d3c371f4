# bench/lib.sh -- what bench/run and apps/run share: packages, the three libraries, a quiet machine, namespace nodes.
# MemPI, BSD-3-Clause (see LICENSE).
#
# Sourced, not run.  The caller sets ROOT (the repository), BUILD (a directory for per-library
# builds), MAKE_MEMPI (1: run make for MemPI first), CFLAGS, QUIET_WAIT and WAIT_BUDGET
# (seconds), LINK (make-cluster shaping options) and a function log.  It gets:
#
#   ensure_packages               apt-get install the peers and python3-matplotlib if absent
#   CC[lib], RUN[lib]             compiler wrapper and "launcher -n" of mempi, mpich, openmpi
#   check_lib LIB                 builds and runs a trivial 2-rank program (NOTE[lib] says why not)
#   machine_lines                 the machine description lines every report starts with
#   wait_for_quiet                waits (bounded) until the CPUs are 70 % idle (BUSY_STARTS counts misses)
#   ensure_cluster N              namespace nodes mempi-n1..N (tests/cluster), under the cluster lock
#   launch_nodes LIB NODES PPN    the command that starts NODES x PPN ranks there (LIB mempi,
#                                 mempiflat = MemPI with FLAT_ENV, mpich, openmpi)
#
# The reasons behind each library's namespace-node options are in the comments of
# launch_nodes; bench/README.md and apps/README.md describe the runs.

ensure_packages() {
    local missing=() p
    for p in mpich libmpich-dev openmpi-bin libopenmpi-dev python3-matplotlib; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    log "installing ${missing[*]}"
    local sudo=""; [ "$(id -u)" != 0 ] && sudo=sudo
    timeout 600 $sudo apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive timeout 1200 $sudo apt-get install -y -qq "${missing[@]}" \
        || log "warning: apt-get install failed; continuing with what is there"
}

declare -A CC RUN NOTE
CC[mpich]=mpicc.mpich
RUN[mpich]="mpiexec.mpich -n"
CC[openmpi]=mpicc.openmpi
RUN[openmpi]="mpiexec.openmpi --oversubscribe -n"
[ "$(id -u)" = 0 ] && RUN[openmpi]="mpiexec.openmpi --allow-run-as-root --oversubscribe -n"
CC[mempi]="$ROOT/build/bin/mpicc"
RUN[mempi]="$ROOT/build/bin/mpiexec -n"
# MemPI with flat (node-unaware) collectives, for the node-aware vs flat comparisons
FLAT_ENV="MEMPI_COLL_BARRIER=dissemination MEMPI_COLL_BCAST=binomial MEMPI_COLL_ALLREDUCE=recursive_doubling MEMPI_COLL_ALLGATHER=recursive_doubling"

check_lib() {
    local lib=$1 dir="$BUILD/$1"
    if [ "$lib" = mempi ]; then
        if [ "$MAKE_MEMPI" = 1 ] && [ -f "$ROOT/Makefile" ]; then
            log "building MemPI (make -j2)"
            (cd "$ROOT" && timeout 900 make -j2 -s >"$BUILD/mempi-make.log" 2>&1) \
                || log "MemPI make failed (see $BUILD/mempi-make.log)"
        fi
        if [ ! -x "$ROOT/build/bin/mpicc" ] || [ ! -x "$ROOT/build/bin/mpiexec" ]; then
            NOTE[$lib]="not yet available: build/bin/mpicc or build/bin/mpiexec missing"; return 1
        fi
    else
        command -v "${CC[$lib]}" >/dev/null || { NOTE[$lib]="not installed (${CC[$lib]} missing)"; return 1; }
    fi
    mkdir -p "$dir"
    cat > "$BUILD/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, sum = 0, one = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("hello %d %d\n", size, sum);
    MPI_Finalize();
    return sum == size ? 0 : 1;
}
EOF
    if ! timeout 120 ${CC[$lib]} $CFLAGS -o "$dir/hello" "$BUILD/hello.c" >"$dir/hello.log" 2>&1; then
        NOTE[$lib]="not yet available: a trivial program does not compile ($(grep -m1 -i 'error\|undefined' "$dir/hello.log" | cut -c1-160))"
        return 1
    fi
    if ! timeout 60 ${RUN[$lib]} 2 "$dir/hello" >>"$dir/hello.log" 2>&1 \
       || ! grep -q "hello 2 2" "$dir/hello.log"; then
        NOTE[$lib]="not yet available: a trivial 2-rank program does not run ($(tail -n 2 "$dir/hello.log" | tr '\n' ' ' | cut -c1-160))"
        return 1
    fi
    return 0
}

machine_lines() {
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "nproc: $(nproc)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
    echo "kernel: $(uname -sr)"
    echo "os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
    echo "compiler: $(cc --version 2>/dev/null | head -1)"
    echo "mpich: $(mpichversion 2>/dev/null | grep -m1 -i 'version' | sed 's/.*: *//')"
    echo "openmpi: $(ompi_info --version 2>/dev/null | head -1)"
    echo "mempi: $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)"
}

# The machine may be shared (builds, test suites).  Before each run, wait (at most
# QUIET_WAIT seconds, and at most WAIT_BUDGET seconds over the whole script, so the run time
# stays bounded) until the CPUs are at least 70 % idle over half a second, so fewer runs are
# measured while something else computes.
BUSY_STARTS=0
cpu_idle_percent() {
    local a b
    read -r -a a < /proc/stat; sleep 0.5; read -r -a b < /proc/stat
    local total=0 i
    for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
    [ "$total" -gt 0 ] || { echo 100; return; }
    echo $(( 100 * ((b[4] - a[4]) + (b[5] - a[5])) / total ))
}
wait_for_quiet() {
    local waited=0
    while [ "$(cpu_idle_percent)" -lt 70 ]; do
        if [ $waited -ge $QUIET_WAIT ] || [ $WAIT_BUDGET -le 0 ]; then
            BUSY_STARTS=$((BUSY_STARTS + 1)); return
        fi
        sleep 2; waited=$((waited + 3)); WAIT_BUDGET=$((WAIT_BUDGET - 3))
    done
}

# Network-namespace "nodes": tests/cluster/make-cluster builds N namespaces joined by a
# bridge; every library starts there through its own launcher, with tests/cluster/ns-launch
# standing in for ssh.  MemPI and MPICH start under MPICH's Hydra (MemPI speaks its PMI-1
# wire protocol), Open MPI under its own mpirun.
CLUSTER=$ROOT/tests/cluster
CLUSTER_MADE=0
CLUSTER_LINK=""
CLUSTER_BUSY=0
ensure_cluster() {   # ensure_cluster N: nodes with the current LINK shaping
    [ "$CLUSTER_MADE" -ge "$1" ] && [ "$CLUSTER_LINK" = "$LINK" ] && return 0
    # take turns with other users of the fixed namespace names (tests/cluster/check-2x2);
    # the lock is held until the calling script exits.  Without it another user's cluster
    # would be torn down under them: the node cases fail instead (once, not per run).
    [ "$CLUSTER_BUSY" = 1 ] && return 1
    if [ "$CLUSTER_MADE" = 0 ] && command -v flock >/dev/null 2>&1; then
        exec 9>"${MEMPI_CLUSTER_LOCK:-/tmp/mempi-cluster.lock}"
        if ! flock -w 600 9; then
            log "the namespace cluster stayed busy (lock) for 600 s: no namespace-node runs"
            CLUSTER_BUSY=1
            return 1
        fi
    fi
    "$CLUSTER/destroy-cluster" >/dev/null 2>&1
    # shellcheck disable=SC2086 # LINK is a list of make-cluster options
    "$CLUSTER/make-cluster" "$1" $LINK >/dev/null || return 1
    CLUSTER_MADE=$1
    CLUSTER_LINK=$LINK
    trap '"$CLUSTER/destroy-cluster" >/dev/null 2>&1' EXIT
}
launch_nodes() {   # launch_nodes LIB NODES PPN -> the command that starts NODES x PPN ranks
    local lib=$1 nodes=$2 ppn=$3
    local hosts; hosts=$(seq -s, -f "10.99.0.%g" 1 "$nodes")
    case "$lib" in
    mempi|mempiflat) local extra=""; [ "$lib" = mempiflat ] && extra=$FLAT_ENV
        echo "ip netns exec mempi-n1 env LD_LIBRARY_PATH=$ROOT/build/lib $extra mpiexec.hydra -hosts $hosts -ppn $ppn -launcher ssh -launcher-exec $CLUSTER/ns-launch -n $((nodes * ppn))" ;;
    # Debian's MPICH is ch4:ucx.  UCX judges shared memory reachable by the boot id, so
    # across namespaces of one host it would use shared memory (0.2 us, 10 GB/s: no network
    # measured at all).  UCX_TLS=tcp,self makes it use the links like MemPI does; it also
    # sends between ranks of one namespace node over TCP, which costs MPICH only in the
    # intra-node stages of collectives (not a target: those compare MemPI with itself).
    mpich) echo "ip netns exec mempi-n1 env UCX_TLS=tcp,self mpiexec.hydra -hosts $hosts -ppn $ppn -launcher ssh -launcher-exec $CLUSTER/ns-launch -n $((nodes * ppn))" ;;
    # Open MPI binds each node's ranks to that node's first cores; every namespace node
    # believes it has the whole machine, so rank 0 of node 1 and rank 0 of node 2 both
    # went to core 0, took turns at the 4 ms scheduler tick and read 4000 us per
    # message.  --bind-to none leaves them to the scheduler, as Hydra and MemPI do.
    openmpi) local oh; oh=$(seq -s, -f "10.99.0.%g:$ppn" 1 "$nodes")
        echo "ip netns exec mempi-n1 mpiexec.openmpi --allow-run-as-root --host $oh --map-by ppr:$ppn:node --bind-to none --mca plm_rsh_agent $CLUSTER/ns-launch --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 -n $((nodes * ppn))" ;;
    esac
}
