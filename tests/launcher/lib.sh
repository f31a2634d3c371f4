# lib.sh -- shared setup for the tests/launcher/check-* scripts.  MemPI, BSD-3-Clause (see LICENSE).
#
# Sourced, not run.  Finds the build (env MEMPI_BUILD_DIR, default `build`,
# relative to the current directory or else to the repository root), skips
# with 77 when mpiexec is not built, makes a temp dir removed at exit, and
# compiles the helper rank program (tests/launcher/pmi_helper.c) against
# $BUILD/lib/libmempi_internal.a, or straight from src/core/pmi.c and
# src/core/pmi_wire.c when the library does not link (yet).
#
# run CMD...  runs with stdin from /dev/null and sets RC, MS (elapsed ms),
# and the files $TMP/out and $TMP/err.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${MEMPI_BUILD_DIR:-build}
if [ ! -d "$BUILD" ] && [ -d "$ROOT/$BUILD" ]; then BUILD=$ROOT/$BUILD; fi
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "SKIP: no build directory '${MEMPI_BUILD_DIR:-build}'"; exit 77; }
MPIEXEC=$BUILD/bin/mpiexec
[ -x "$MPIEXEC" ] || { echo "SKIP: $MPIEXEC is not built"; exit 77; }
TEST=$(basename "$0")

TMP=$(mktemp -d "${TMPDIR:-/tmp}/mempi-launcher.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

fail() {
    echo "FAIL: $TEST: $*" >&2
    if [ -s "$TMP/err" ]; then echo "--- stderr of the last run:" >&2; head -20 "$TMP/err" >&2; fi
    exit 1
}

compile_helper() {
    local cflags="-std=c11 -D_GNU_SOURCE -O1 -g -I$ROOT/include -I$ROOT/src"
    HELPER=$TMP/pmi_helper
    if [ -f "$BUILD/lib/libmempi_internal.a" ] &&
       cc $cflags -o "$HELPER" "$HERE/pmi_helper.c" "$BUILD/lib/libmempi_internal.a" \
          -lpthread -lrt -lm -ldl 2>"$TMP/cc-lib.log"; then
        return 0
    fi
    cc $cflags -o "$HELPER" "$HERE/pmi_helper.c" "$ROOT/src/core/pmi.c" \
        "$ROOT/src/core/pmi_wire.c" -lpthread 2>"$TMP/cc.log" ||
        { cat "$TMP/cc.log" >&2; fail "cannot compile pmi_helper.c"; }
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

run() {
    local t0
    t0=$(now_ms)
    "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    RC=$?
    MS=$(( $(now_ms) - t0 ))
}

expect_rc() {
    [ "$RC" -eq "$1" ] || fail "expected exit status $1, got $RC from: $2"
}

# Exactly one line on stderr starts with "mpiexec:", and it matches $1 (ERE).
expect_one_report() {
    local n
    n=$(grep -c '^mpiexec:' "$TMP/err")
    [ "$n" -eq 1 ] || fail "expected one 'mpiexec:' line on stderr, got $n"
    grep -Eq "$1" "$TMP/err" || fail "stderr does not match /$1/"
}

# The limits are what a quiet machine must meet; on a loaded one they scale with the 1-minute
# load per CPU (1 to 4x, as tests/run scales timeouts), so other jobs do not fail the check.
expect_faster_than() {
    local limit
    limit=$(awk -v s="$1" -v c="$(nproc 2>/dev/null || echo 1)" '{ l = $1 / c; if (l < 1) l = 1;
        if (l > 4) l = 4; printf "%d\n", s * l }' /proc/loadavg 2>/dev/null || echo "$1")
    [ "$MS" -lt "$limit" ] || fail "took ${MS} ms, limit $limit ms ($1 ms on a quiet machine): $2"
}

# No process of this test's helper may survive the job.
expect_no_leftovers() {
    if pgrep -f "^$TMP/pmi_helper" >/dev/null 2>&1; then
        pgrep -af "^$TMP/pmi_helper" >&2
        for pid in $(pgrep -f "^$TMP/pmi_helper"); do kill -9 "$pid" 2>/dev/null; done
        fail "helper processes left behind: $1"
    fi
}
