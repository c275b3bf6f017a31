#!/usr/bin/env bash
# bench_options.sh - the benchmark's comparison options (tools/loadtest/bench
# --compare, --repeat, --idle-wait) are in its --help and refused when
# wrong before any sandbox is made, and innodb_idle, its wait for an idle
# InnoDB, ends within its bound and says what it saw.  The benchmark itself
# is too long for a test (doc/load-testing.md).
#
# Needs the sandbox environment (run_suite exports it): DB_SOCKET, DB_USER,
# DB_PASSWORD; top_builddir for the build.  Prints TAP; exit status 1 if
# any check failed.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src_top=${top_srcdir:-$(dirname "$(dirname "$here")")}
build=${top_builddir:-${LOCSCHED_BUILD_DIR:-$src_top}}
BENCH=$src_top/tools/loadtest/bench
IDLE=$src_top/tools/loadtest/innodb_idle
. "$here/tap.bash"
need_sandbox_env DB_SOCKET DB_USER DB_PASSWORD
[ -x "$build/tools/loadtest/replay" ] || bail "$build/tools/loadtest/replay is not built"

T=$(mktemp -d "${TMPDIR:-/tmp}/bench_options.XXXXXX")
trap 'rm -rf "$T"' EXIT

help=$("$BENCH" --help)
for o in --compare --repeat --idle-wait --quiet-wait --redo-log --redo-log-b; do
    check "bench --help describes $o" grep -q -- "^  $o " <<<"$help"
done

# refused MESSAGE ARGS...: bench stops with MESSAGE and makes no sandbox
refused() {
    local msg=$1 out rc
    shift
    out=$("$BENCH" --build "$build" --dir "$T/sandbox" --out "$T/out" "$@" 2>&1)
    rc=$?
    check "bench $* is refused" eq "$rc" 1
    check "bench $* says: $msg" grep -qF -- "$msg" <<<"$out"
    check "bench $* makes no sandbox" eq "$( [ -e "$T/sandbox" ] && echo made || echo none)" none
}
refused "--repeat must be at least 1" --repeat 0
refused "--repeat wants a whole number" --repeat x
refused "--idle-wait wants a whole number" --idle-wait 1.5
refused "--redo-log wants a whole number" --redo-log 1G
refused "--redo-log-b wants a whole number" --redo-log-b -5
refused "--compare: no folder" --compare "$T/no-such-build"

# the wait on the suite's sandbox: it ends within its bound (the suite's
# account may not set innodb_max_dirty_pages_pct: it waits without)
start=$SECONDS
out=$(LOCSCHED_DB_PASSWORD=$DB_PASSWORD "$IDLE" --socket "$DB_SOCKET" --user "$DB_USER" --max 5 2>&1)
rc=$?
echo "#   $out"
check "innodb_idle ends with 0 (idle) or 1 (still busy)" grep -Eq '^[01]$' <<<"$rc"
check "innodb_idle --max 5 ends within 10 s" le "$((SECONDS - start))" 10
check "innodb_idle says what it saw" \
    grep -Eq '^innodb_idle: (idle|still busy) after [0-9]+ s: history list [0-9]+, dirty pages [0-9]+ of [0-9]+, checkpoint age [0-9]+ MB' <<<"$out"
out=$(LOCSCHED_DB_PASSWORD=$DB_PASSWORD "$IDLE" --socket "$DB_SOCKET" --user "$DB_USER" --max 1x 2>&1)
check "innodb_idle refuses --max 1x with status 2" eq "$?" 2
tap_done
