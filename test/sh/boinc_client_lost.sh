#!/usr/bin/env bash
# run_suite: once (a whole system; the plain build's suite runs it, see test/run_suite)
# boinc_client_lost.sh - the real BOINC client (Debian's boinc-client 7.20)
# loses its jobs and gets them back, and drops a job the server aborts:
#   (a) the client gets jobs of a locality batch, then "boinccmd --project
#       URL reset" (the client forgets its jobs and files, as a volunteer's
#       "Reset project" does) and "boinccmd --project URL update": its next
#       request lists none of them, so the server sends them again (same
#       result names) or marks them lost and the transitioner re-issues
#       them; the batch completes within minutes, and the database says
#       which of the two happened to each job;
#   (b) the client holds a job of a batch that tools/abort_batch aborts;
#       at its next request the reply carries <result_abort>, the client
#       drops the job, and its report comes back as aborted (client_state
#       6, exit_status 202, outcome CLIENT_ERROR).
# Set-up and cleanup are those of boinc_client_e2e.sh (boinc_e2e.bash):
# the same needs, environment and configuration changes, with the
# client's folder in $top_builddir/test/boinc-lost.  E2E_BUDGET (seconds,
# default 270) bounds the whole test.  Prints TAP; exit status 1 on any
# failure.
set -u

NCPUS=2
. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"
. "$(dirname "${BASH_SOURCE[0]}")/boinc_e2e.bash"

e2e_init boinc-lost
e2e_set_conf no_work_request_delay 10
e2e_graceful || bail "apache2 -k graceful failed for $AP_CONF"
e2e_retire_leftovers
e2e_account
e2e_app
e2e_daemons

# wait_for SECONDS CONDITION...: poll every second until CONDITION holds;
# status 1 when the time (or the budget) runs out first
wait_for() {
    local until=$(($(date +%s) + $1))
    shift
    while ! "$@"; do
        if [ "$(date +%s)" -ge "$until" ] || [ "$(left)" -le 20 ]; then
            return 1
        fi
        sleep 1
    done
}
host_id() { sql "SELECT id FROM host WHERE userid = $USERID ORDER BY id LIMIT 1"; }
in_progress() { sql "SELECT COUNT(*) FROM result WHERE batch = $1 AND server_state = 4"; }
holds_jobs() { [ "$(in_progress "$1")" -ge "$2" ] && grep -q "Starting task ${3}_" "$LOG"; }
batch_state() { sql "SELECT state FROM batch WHERE id = $1"; }
batch_complete() { [ "$(batch_state "$1")" = 2 ]; }

# ---------------------------------------------------------------- (a) reset
: >"$W/jobs.a"
for ((j = 0; j < 4; j++)); do
    echo "$((j / 2)) 2 1e13 --sleep 15" >>"$W/jobs.a"
done
e2e_batch "lostA_${stamp}_$$" 3 "$W/jobs.a" --delay-bound 604800 --max-out-bytes 100000 \
    --locality --cursors 1
BATCH_A=$BATCH A=$BATCHID
echo "# [$(elapsed) s] account #$USERID, app version $VERSION, batch #$A $BATCH_A: 4 jobs, locality"
e2e_client "$NCPUS"
wait_for 90 holds_jobs "$A" 1 "$BATCH_A" || bail "the client got no job of batch #$A"
HOSTID=$(host_id)
# the jobs the server has in progress on the host, and when they were sent
sql "SELECT name, sent_time FROM result WHERE batch = $A AND server_state = 4 ORDER BY id" >"$W/held"
nheld=$(grep -c . "$W/held")
echo "# [$(elapsed) s] host #$HOSTID holds $nheld job(s): $(cut -f1 "$W/held" | tr '\n' ' ')"
sleep 1   # sent_time has a resolution of one second
bc --project "$MASTER_URL" reset >"$E2E/reset.out" 2>&1
check "boinccmd --project URL reset" eq "$?" 0
sleep 2
bc --project "$MASTER_URL" update >/dev/null 2>&1
wait_for 150 batch_complete "$A"
check "batch #$A completes after the reset (within $(elapsed) s of the start)" eq "$(batch_state "$A")" 2
check "log: the client reset the project" grep -q 'Resetting project' "$LOG"
check "the client kept its host (no new host record)" \
    eq "$(sql "SELECT COUNT(*) FROM host WHERE userid = $USERID")" 1
resent=0 reissued=0 other=0
while IFS=$'\t' read -r name sent; do
    row=$(sql "SELECT server_state, outcome, client_state, hostid, sent_time > $sent FROM result
               WHERE name = '$name'" | tr '\t' ' ')
    wu_ok=$(sql "SELECT COUNT(*) FROM result r JOIN result o ON o.workunitid = r.workunitid
                 WHERE r.name = '$name' AND o.id <> r.id AND o.server_state = 5 AND o.outcome = 1")
    if [ "$row" = "5 1 5 $HOSTID 1" ]; then
        resent=$((resent + 1))
        echo "#   $name: sent again with the same name, then reported successful"
    elif [ "$row" = "5 3 0 $HOSTID 0" ] && [ "$wu_ok" -ge 1 ]; then
        reissued=$((reissued + 1))
        echo "#   $name: marked lost (CLIENT_ERROR, client_state 0); a new replica succeeded"
    else
        other=$((other + 1))
        echo "#   $name: state, outcome, client_state, host, sent again: $row; other successes $wu_ok"
    fi
done <"$W/held"
echo "# lost jobs: $nheld; sent again: $resent; re-issued: $reissued"
check "every lost job was sent again or re-issued" eq "$other" 0
check "the client lost at least one job" gt "$nheld" 0
# the scheduler logs to Apache's error log
check "scheduler log: the lost jobs were sent again or marked lost" \
    eq "$(grep -c "\[host#$HOSTID\] \[result#[0-9]*\] lost by the host" "$SANDBOX_DIR/apache/error.log")" \
    "$nheld"
check "every result of batch #$A that succeeded did so on host #$HOSTID" \
    eq "$(sql "SELECT COUNT(DISTINCT workunitid) FROM result WHERE batch = $A AND outcome = 1
               AND hostid = $HOSTID")" 4

# ---------------------------------------------------------------- (b) abort
: >"$W/jobs.b"
echo "0 1 1e13 --sleep 600" >>"$W/jobs.b"
e2e_batch "lostB_${stamp}_$$" 1 "$W/jobs.b" --delay-bound 604800 --max-out-bytes 100000 \
    --locality --cursors 1
BATCH_B=$BATCH B=$BATCHID
# A request the client made on its own while the batch was being created
# may have got no work (and a request_delay, and a backoff): ask again
# every 12 seconds, past the 10-second delay, until it holds the job.
last_update=0
holds_b_or_update() {
    holds_jobs "$B" 1 "$BATCH_B" && return 0
    if [ $(($(date +%s) - last_update)) -ge 12 ]; then
        bc --project "$MASTER_URL" update >/dev/null 2>&1
        last_update=$(date +%s)
    fi
    return 1
}
wait_for 60 holds_b_or_update || bail "the client got no job of batch #$B"
JOB_B=$(sql "SELECT name FROM result WHERE batch = $B AND server_state = 4 LIMIT 1")
echo "# [$(elapsed) s] the client runs $JOB_B; aborting batch #$B"
"$top_builddir/tools/abort_batch" --config "$LOCSCHED_CONFIG" "$B" >"$W/abort_batch.out" 2>&1
check "abort_batch #$B" eq "$?" 0
sleep 8   # past the request_delay of the last reply
bc --project "$MASTER_URL" update >/dev/null 2>&1
job_reported() { [ "$(sql "SELECT server_state FROM result WHERE name = '$JOB_B'")" = 5 ]; }
wait_for 60 job_reported
# with task_debug: "[task] task_state=ABORT_PENDING for NAME from request_abort"
check "log: the client was told to abort $JOB_B" \
    grep -q "task_state=ABORT_PENDING for $JOB_B from request_abort" "$LOG"
bc --get_tasks >"$E2E/get_tasks.txt" 2>&1
check "boinccmd --get_tasks lists $JOB_B no more, or as aborted" \
    awk -v n="name: $JOB_B" '$0 ~ n { f = 1 } f && /active_task_state: EXECUTING/ { bad = 1 }
                              END { exit bad }' "$E2E/get_tasks.txt"
check "the report of $JOB_B came back aborted (OVER, CLIENT_ERROR, client_state 6, exit 202)" \
    eq "$(sql "SELECT CONCAT_WS(' ', server_state, outcome, client_state, exit_status) FROM result
               WHERE name = '$JOB_B'")" "5 3 6 202"

e2e_client_stop
check "the client stopped" gone "${CPID:-0}"
demo_pid=""
echo "# [$(elapsed) s] done; client folder and log: $E2E"
echo "1..$n"
if [ "$failed" -gt 0 ]; then
    echo "# $failed of $n checks failed; the end of the client's log:"
    tail -n 40 "$LOG" 2>/dev/null | sed 's/^/#   /'
    exit 1
fi
exit 0
