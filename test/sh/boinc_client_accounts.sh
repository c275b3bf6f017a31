#!/usr/bin/env bash
# run_suite: once (a whole system; the plain build's suite runs it, see test/run_suite)
# boinc_client_accounts.sh - a volunteer joins as the BOINC Manager's
# wizard does it, with the real BOINC client (Debian's boinc-client 7.20)
# against the suite's sandbox: boinccmd --get_project_config,
# --create_account, --lookup_account (right and wrong password), then
# --project_attach with the key it got; a job of a small plain batch is
# worked and reported under the new account, and the client shows the
# volunteer's name and credit (boinccmd --get_project_status).
#
# Needs what boinc_client_e2e.sh needs (boinc_e2e.bash).  It sets
# create_account_limit = 0 and lookup_account_limit = 0 in the sandbox's
# locsched.conf for the run (every request comes from 127.0.0.1),
# restored at the end.  The client's folder and log are kept in
# $top_builddir/test/boinc-accounts.  Prints TAP; exit status 1 on any
# failure.
set -u

NJOBS=2
NFILES=2
JOB_SLEEP=2

. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"
. "$(dirname "${BASH_SOURCE[0]}")/boinc_e2e.bash"

e2e_init boinc-accounts

e2e_set_conf create_account_limit 0
e2e_set_conf lookup_account_limit 0
e2e_set_conf no_work_request_delay 10
e2e_graceful || bail "apache2 -k graceful failed for $AP_CONF"

e2e_retire_leftovers
e2e_app
stamp=$(date +%s)
: >"$W/jobs"
for ((j = 0; j < NJOBS; j++)); do
    echo "0 2 1e13 --sleep $JOB_SLEEP" >>"$W/jobs"
done
e2e_batch "acct_${stamp}_$$" "$NFILES" "$W/jobs" --delay-bound 604800 --max-out-bytes 100000
e2e_daemons
AUTH=""
e2e_client 2
echo "# [$(elapsed) s] client started, not attached; batch #$BATCHID $BATCH: $NJOBS jobs"

# ---------------------------------------------------------------- the RPCs
NAME="Vera Volunteer $stamp"
EMAIL="Vera.$stamp.$$@Example.org"
email=$(printf '%s' "$EMAIL" | tr 'A-Z' 'a-z')
PW=join-me-$$
users_before=$(sql "SELECT COUNT(*) FROM user")

bc --get_project_config "$MASTER_URL" >"$E2E/get_project_config.txt" 2>&1
pname=$(sed -n 's/^project_name *= *//p' "$LOCSCHED_CONFIG")
check "get_project_config: the client read the project's name" \
    grep -qx "name: $pname" "$E2E/get_project_config.txt"
check "get_project_config: and the minimum password length" \
    grep -qx "min_passwd_length: 6" "$E2E/get_project_config.txt"

bc --create_account "$MASTER_URL" "$EMAIL" "$PW" "$NAME" >"$E2E/create_account.txt" 2>&1
KEY=$(sed -n 's/^account key: //p' "$E2E/create_account.txt")
check "create_account: the client got an account key" eq "${#KEY}" 32
check "create_account: one new account, with the client's password hash" \
    eq "$(sql "SELECT CONCAT_WS('|', COUNT(*), MAX(name), MAX(passwd_hash), MAX(authenticator)) FROM user
               WHERE email_addr = '$email'")" \
       "1|$NAME|$(printf '%s' "$PW$email" | md5sum | cut -c1-32)|$KEY"
check "create_account: no other row" eq "$(sql "SELECT COUNT(*) FROM user")" $((users_before + 1))

bc --lookup_account "$MASTER_URL" "$EMAIL" "$PW" >"$E2E/lookup_account.txt" 2>&1
check "lookup_account: the same key" eq "$(sed -n 's/^account key: //p' "$E2E/lookup_account.txt")" "$KEY"
bc --lookup_account "$MASTER_URL" "$EMAIL" "not-$PW" >"$E2E/lookup_wrong.txt" 2>&1
check "lookup_account with a wrong password: no key" \
    eq "$(grep -c '^account key' "$E2E/lookup_wrong.txt")" 0
check "lookup_account with a wrong password: the client says bad password (-206)" \
    grep -q "bad password" "$E2E/lookup_wrong.txt"
bc --create_account "$MASTER_URL" "$EMAIL" "other-$PW" "$NAME" >"$E2E/create_again.txt" 2>&1
check "create_account again with another password: no key" \
    eq "$(grep -c '^account key' "$E2E/create_again.txt")" 0

# ---------------------------------------------------------------- attach, work
bc --project_attach "$MASTER_URL" "$KEY" >"$E2E/project_attach.txt" 2>&1
check "project_attach with the key" eq "$?" 0
USERID=$(sql "SELECT id FROM user WHERE email_addr = '$email'")
count_over() { sql "SELECT COUNT(*) FROM result WHERE batch = $BATCHID AND server_state = 5 AND outcome = 1"; }
credit() { sql "SELECT total_credit > 0 FROM user WHERE id = $USERID"; }
timed_out=""
while [ "$(count_over)" != "$NJOBS" ] || [ "$(credit)" != 1 ]; do
    kill -0 "$demo_pid" 2>/dev/null || { timed_out="the client ended"; break; }
    [ "$(left)" -gt 60 ] || { timed_out="$(count_over) of $NJOBS reported, credit $(credit) after $(elapsed) s"; break; }
    sleep 2
done
check "the jobs were worked, reported and granted credit${timed_out:+ ($timed_out)}" eq "$timed_out" ""
check "they ran on a host of the new account" \
    eq "$(sql "SELECT COUNT(*) FROM result r JOIN host h ON h.id = r.hostid
               WHERE r.batch = $BATCHID AND h.userid = $USERID AND r.outcome = 1")" "$NJOBS"

# one more RPC carries the credit granted after the last report
sleep 8   # past the project's request_delay
bc --project "$MASTER_URL" update >/dev/null 2>&1
for ((i = 0; i < 30; i++)); do
    bc --get_project_status >"$E2E/get_project_status.txt" 2>&1
    c=$(sed -n 's/^ *user_total_credit: //p' "$E2E/get_project_status.txt" | head -n 1)
    awk -v c="${c:-0}" 'BEGIN { exit !(c > 0) }' && break
    sleep 1
done
check "get_project_status: the volunteer's name" grep -q "user_name: $NAME" "$E2E/get_project_status.txt"
check "get_project_status: the credit granted (user_total_credit > 0)" gt "${c:-0}" 0
check "get_project_status: the project's name" grep -q "name: $pname" "$E2E/get_project_status.txt"

e2e_client_stop
check "the client stopped" gone "$demo_pid"
demo_pid=""
echo "# [$(elapsed) s] done"
tap_done
