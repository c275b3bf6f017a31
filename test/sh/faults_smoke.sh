#!/usr/bin/env bash
# run_suite: once (a whole system; the plain build's suite runs it, see test/run_suite)
# faults_smoke.sh - the short fault-injection run of "make check": the
# run of test/faults/run (doc/faults.md) shortened to one minute of load
# with 64 replay hosts, in its own private sandbox (not the suite's):
# scheduler processes killed every 10 s, MariaDB killed and restarted once,
# each daemon killed inside a pass; then check_invariants must find
# nothing and the hosts must have seen only errors a BOINC client retries.
#
# Needs the build ($top_builddir; run_suite sets it).  Sandbox and logs in
# $top_builddir/test/faults-smoke; everything it started is stopped by its
# pid at the end.  FAULTS_SMOKE_SECONDS overrides the minute of load.
# Prints TAP; exit status 1 if any check failed.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
build=${top_builddir:-${LOCSCHED_BUILD_DIR:-$top_srcdir}}
secs=${FAULTS_SMOKE_SECONDS:-60}
work=$build/test/faults-smoke

exec "$top_srcdir/test/faults/run" --build "$build" --dir "$work/sandbox" --out "$work/out" \
    --duration "$secs" --tail 25
