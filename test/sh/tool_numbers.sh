#!/usr/bin/env bash
# tool_numbers.sh - the command-line tools read numbers strictly: a value
# with trailing junk, a sign where none belongs, NaN, infinity or a value
# out of range is refused with exit status 2 and a message that names the
# option, and nothing is written (create_batch makes no batch, db_purge
# deletes nothing).
#
# Needs the sandbox environment (run_suite exports it): LOCSCHED_CONFIG,
# DB_SOCKET, DB_NAME; top_builddir for the tools.  Prints TAP; exit status
# 1 if any check failed.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src_top=${top_srcdir:-$(dirname "$(dirname "$here")")}
build=${top_builddir:-${LOCSCHED_BUILD_DIR:-$src_top}}
CB=$build/tools/create_batch
PD=$build/tools/loadtest/profile_driver
. "$here/tap.bash"
need_sandbox_env LOCSCHED_CONFIG DB_SOCKET DB_NAME
[ -x "$CB" ] || bail "$CB is not built"

batches() {
    mysql --socket="$DB_SOCKET" -N -B "$DB_NAME" -e "SELECT COUNT(*) FROM batch WHERE name LIKE 'numtest%'"
}
before=$(batches)

# refused OPTION VALUE [more args]: create_batch with one bad value
refused() {
    local opt=$1 val=$2 out rc
    shift 2
    out=$("$CB" --name "numtest$RANDOM" --app tapp --generate-files 2:1000 --uniform 2:1:1 \
                "$opt" "$val" "$@" 2>&1 </dev/null)
    rc=$?
    check "create_batch $opt '$val': exit 2" eq "$rc" 2
    check "create_batch $opt '$val': the message names it" \
        eq "$(echo "$out" | grep -c -- "$opt")" 1
}
refused --delay-bound 600abc
refused --delay-bound 59
refused --delay-bound ' 600'
refused --replication 2.5
refused --replication 21
refused --min-quorum -1
refused --fpops nan
refused --fpops inf
refused --fpops 1e13x
refused --fpops 0
refused --max-out-bytes 1e6kb
refused --cursors 0 --locality
refused --cursors 3x --locality

# N:BYTES and NJOBS:K:S specs: trailing junk is refused too
out=$("$CB" --name "numtest$RANDOM" --app tapp --generate-files 2:1000zz --uniform 2:1:1 2>&1 </dev/null)
rc=$?
check "create_batch --generate-files '2:1000zz': refused ($rc)" eval '[ "$rc" != 0 ]'
check "create_batch --generate-files '2:1000zz': says so" eq "$(echo "$out" | grep -c -- --generate-files)" 1
out=$("$CB" --name "numtest$RANDOM" --app tapp --generate-files 2:1000 --uniform 2:1:1q 2>&1 </dev/null)
rc=$?
check "create_batch --uniform '2:1:1q': refused ($rc)" eval '[ "$rc" != 0 ]'
check "create_batch --uniform '2:1:1q': says so" eq "$(echo "$out" | grep -c -- --uniform)" 1
check "no batch was made by the refused commands" eq "$(batches)" "$before"

if [ -x "$PD" ]; then
    for a in "--hosts 3x" "--hosts 0" "--count 1.5" "--run-seconds -2" "--work-secs nan"; do
        set -- $a
        out=$("$PD" --requests /nonexistent --auth-file /nonexistent "$1" "$2" 2>&1 </dev/null)
        rc=$?
        check "profile_driver $a: exit 2" eq "$rc" 2
        check "profile_driver $a: the message names it" eq "$(echo "$out" | grep -c -- "$1")" 1
    done
fi

# db_purge: a bad number deletes nothing (it is refused before the database)
DP=$build/tools/db_purge
[ -x "$DP" ] || bail "$DP is not built"
for a in "--min-age-days -1" "--min-age-days nan" "--min-age-days 1e9" "--min-age-days 7x" \
         "--max 0" "--max 1.5" "--max 100000000000"; do
    set -- $a
    out=$("$DP" --config "$LOCSCHED_CONFIG" "$1" "$2" 2>&1 </dev/null)
    rc=$?
    check "db_purge $a: exit 2" eq "$rc" 2
    check "db_purge $a: the message names it" eq "$(echo "$out" | grep -c -- "$1")" 1
done
tap_done
