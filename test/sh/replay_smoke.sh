#!/usr/bin/env bash
# replay_smoke.sh - a short run of the load replay (tools/loadtest/replay)
# against the sandbox's scheduler through Apache and mod_fcgid, with every
# recorded request body as a template: 40 hosts, 4 in flight, about 8 s,
# jobs reported 1 s after they arrive.  Checks that there was no error of
# any kind, that no result went out twice (the replay's own record and the
# database), that every job a host received is claimed in the database by
# that very host (and every claim for these hosts reached a host), and that
# every report the scheduler acknowledged is stored as a success.
#
# Needs the sandbox environment (doc/hacking.md; run_suite exports it):
#   SCHED_URL, LOCSCHED_CONFIG, PROJECT_DIR, SANDBOX_DIR, DB_SOCKET,
#   DB_USER, DB_PASSWORD, DB_NAME; top_builddir (the build) and srcdir
#   (this test folder).  Its accounts, app and batch have names unique to
#   the run, since other tests share the sandbox.
# Prints TAP; exit status 1 if any check failed.
set -u

for v in SCHED_URL LOCSCHED_CONFIG PROJECT_DIR DB_SOCKET DB_USER DB_PASSWORD DB_NAME; do
    if [ -z "${!v:-}" ]; then
        echo "Bail out! $v must be set (eval \"\$(tools/sandbox env)\")"
        exit 1
    fi
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=${srcdir:-$(dirname "$here")}
build=${top_builddir:-${LOCSCHED_BUILD_DIR:-$(dirname "$srcdir")}}
REPLAY=$build/tools/loadtest/replay
TOOLS=$build/tools
for p in "$REPLAY" "$TOOLS/create_account" "$TOOLS/add_app_version" "$TOOLS/create_batch"; do
    [ -x "$p" ] || { echo "Bail out! $p is not built"; exit 1; }
done
command -v mariadb >/dev/null 2>&1 || { echo "Bail out! the mariadb client is not installed"; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/replay_smoke.XXXXXX")
trap 'rm -rf "$T"' EXIT
PFX=rs$$x$(date +%s)

. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"
sql() {
    MYSQL_PWD=$DB_PASSWORD mariadb --no-defaults --socket="$DB_SOCKET" -u "$DB_USER" --batch \
        --skip-column-names "$DB_NAME" -e "$1"
}
jget() { grep -o "\"$2\":[-0-9.e+]*" "$1" | head -n 1 | cut -d: -f2; }

# ---- set-up: accounts, app, batch
for i in 1 2 3 4 5; do
    "$TOOLS/create_account" --config "$LOCSCHED_CONFIG" --name "$PFX$i" \
        --email "$PFX.$i@smoke.test" 2>>"$T/setup.log" >>"$T/auth"
done
printf '#!/bin/sh\necho smoke\n' >"$T/${PFX}app.sh"
"$TOOLS/add_app_version" --config "$LOCSCHED_CONFIG" --app "${PFX}app" --version 1 \
    --file "$T/${PFX}app.sh" --key "$PROJECT_DIR/keys/code_sign_private.pem" >>"$T/setup.log" 2>&1
"$TOOLS/create_batch" --config "$LOCSCHED_CONFIG" --name "${PFX}b" --app "${PFX}app" \
    --generate-files 10:1024 --uniform 15000:1:0 --fpops 1e13 >>"$T/setup.log" 2>&1
check "set-up: 5 accounts, an app version, a batch of 15000 jobs" \
    eq "$(wc -l <"$T/auth" | tr -d ' '):$(sql "SELECT COUNT(*) FROM result r JOIN batch b ON b.id = r.batch WHERE b.name = '${PFX}b'")" "5:15000"
[ "$failed" = 0 ] || { sed 's/^/#   /' "$T/setup.log"; echo "1..$n"; exit 1; }

# ---- the run
"$REPLAY" --url "$SCHED_URL" --requests "$srcdir/recorded" --hosts 40 --auth-file "$T/auth" \
    --concurrency 4 --duration 8 --run-seconds 1 --work-secs 40000 --record "$T/record" \
    --db-socket "$DB_SOCKET" --db-user "$DB_USER" --db-password "$DB_PASSWORD" \
    --db-name "$DB_NAME" ${SANDBOX_DIR:+--sandbox "$SANDBOX_DIR"} --json >"$T/out" 2>&1
rc=$?
sed 's/^/#   /' "$T/out"
last=$(tail -n 1 "$T/out")
check "replay exits 0" eq "$rc" 0
check "last line has the summary format" \
    grep -Eq '^replay: [0-9.]+ req/s, [0-9.]+ jobs/s, p50 [0-9.]+ ms, p99 [0-9.]+ ms, [0-9]+ errors$' <<<"$last"
check "zero errors" eq "${last##*, }" "0 errors"
for k in transport http unparseable error_message protocol double_send; do
    check "no $k error" eq "$(jget "$T/out" "$k")" 0
done
check "more than 100 requests" gt "$(jget "$T/out" requests)" 100
check "jobs were sent" gt "$(jget "$T/out" jobs)" 0
check "results were reported" gt "$(jget "$T/out" reported)" 0
check "SQL counters were read" gt "$(jget "$T/out" statements_per_req)" 0
if [ -n "${SANDBOX_DIR:-}" ]; then
    check "scheduler CPU was measured" gt "$(jget "$T/out" scheduler)" 0
fi

# ---- the replay's record against the database
sort "$T/record" >"$T/seen"
check "no result received twice (replay's record)" eq "$(cut -d' ' -f1 "$T/seen" | uniq -d | wc -l)" 0
check "the record holds every job received" eq "$(wc -l <"$T/seen" | tr -d ' ')" \
    "$(jget "$T/out" jobs)"
sql "SELECT r.name, r.hostid FROM result r JOIN host h ON h.id = r.hostid
     JOIN user u ON u.id = h.userid
     WHERE u.email_addr LIKE '$PFX.%' AND r.server_state IN (4, 5)" | tr '\t' ' ' | sort >"$T/db"
check "every job received is claimed in the database by that host, and no other" \
    cmp -s "$T/seen" "$T/db"
if ! cmp -s "$T/seen" "$T/db"; then
    diff "$T/seen" "$T/db" | head -n 20 | sed 's/^/#   /'
fi
check "every acknowledged report is stored as a success" \
    eq "$(sql "SELECT COUNT(*) FROM result r JOIN host h ON h.id = r.hostid
               JOIN user u ON u.id = h.userid
               WHERE u.email_addr LIKE '$PFX.%' AND r.server_state = 5 AND r.outcome = 1")" \
       "$(jget "$T/out" reported)"

echo "1..$n"
[ "$failed" = 0 ]
