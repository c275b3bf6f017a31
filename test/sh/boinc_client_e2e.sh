#!/usr/bin/env bash
# run_suite: once (a whole system; the plain build's suite runs it, see test/run_suite)
# boinc_client_e2e.sh - the real BOINC client (Debian's boinc-client 7.20)
# end to end against the suite's sandbox: attach, download the signed test
# application and sticky input files, run jobs, upload outputs, report;
# with a locality batch, the daemons generate the jobs, the validator
# (validator = identical) checks each output and picks the canonical
# result, the transitioner finishes the jobs and advances the cursor, the
# scheduler tells the client to let go of the sticky files its cursor no
# longer needs, the assimilator copies the canonical outputs into the
# batch's results folder and the file deleter empties the upload folder:
# the batch ends assimilated.
#
# Needs the sandbox environment exported by test/run_suite (LOCSCHED_CONFIG,
# MASTER_URL, PROJECT_DIR, SANDBOX_DIR, DB_SOCKET, DB_USER, DB_PASSWORD,
# DB_NAME), top_srcdir and top_builddir (for the tools, the daemons and
# test/app/locsched_test_app), and boinc, boinccmd, mariadb, md5sum.
#
# For the run it sets record_requests = 1, no_work_request_delay = 10 and
# validator = identical in the sandbox's locsched.conf (restored at the end; Apache is restarted
# gracefully both times), and it
# retires the unsent work that earlier tests left in the shared database,
# so that the client gets this test's jobs only.  The client runs through
# tools/demo_client --no-setup (its own data folder, GUI RPC on 127.0.0.1,
# debug log flags, one job per idle CPU); the client's folder with its log
# and the requests it sent is kept in $top_builddir/test/boinc-e2e.
#
# LOCSCHED_E2E_PLAIN=1 uses a plain batch (no daemons, no sticky-file
# checks), to debug the client flow alone.  E2E_BUDGET (seconds, default
# 270) bounds the whole test.  Prints TAP; exit status 1 on any failure.
set -u

NJOBS=24        # job j uses files j/3 and j/3 + 1
NFILES=9
NCPUS=4
JOB_SLEEP=2

. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"
. "$(dirname "${BASH_SOURCE[0]}")/boinc_e2e.bash"

e2e_init boinc-e2e
LOCALITY=1
[ "${LOCSCHED_E2E_PLAIN:-0}" = 1 ] && LOCALITY=0
if [ "$LOCALITY" = 1 ]; then
    "$top_builddir/tools/create_batch" --help 2>&1 | grep -q -- '--locality' ||
        bail "create_batch has no --locality: the locality scheduler is not built"
fi

# ---------------------------------------------------------------- config
e2e_set_conf record_requests 1
# when a request gets no work (the client asks while its last jobs run),
# the default 60-s request_delay would hold back those jobs' reports too
e2e_set_conf no_work_request_delay 10
# byte-identical outputs validate (the batch has replication 1, quorum 1:
# each output is compared with itself, an unreadable one is invalid)
e2e_set_conf validator identical
e2e_graceful || bail "apache2 -k graceful failed for $AP_CONF"
REC=$PROJECT_DIR/recorded
ls "$REC" >"$W/recorded.before" 2>/dev/null

# ---------------------------------------------------------------- work
e2e_retire_leftovers
e2e_account
e2e_app
: >"$W/jobs"
for ((j = 0; j < NJOBS; j++)); do
    # estimated at hours (1e13 flops), done in seconds: with no work
    # buffer the client asks for about one job per idle CPU at a time
    echo "$((j / 3)) 2 1e13 --sleep $JOB_SLEEP" >>"$W/jobs"
done
batch_args=(--delay-bound 604800 --max-out-bytes 100000)
[ "$LOCALITY" = 1 ] && batch_args+=(--locality --cursors 1)
e2e_batch "e2e_${stamp}_$$" "$NFILES" "$W/jobs" "${batch_args[@]}"
echo "# [$(elapsed) s] account #$USERID, app $APPNAME version $VERSION, batch #$BATCHID $BATCH: $NJOBS jobs over $NFILES files$([ "$LOCALITY" = 1 ] && echo ', locality')"
[ "$LOCALITY" = 1 ] && e2e_daemons

# ---------------------------------------------------------------- client
e2e_client "$NCPUS"

# progress COUNTS: results of the batch reported, successful; cursor state
count_over() { sql "SELECT COUNT(*) FROM result WHERE batch = $BATCHID AND server_state = 5"; }
cursor_first_unfinished() {
    sql "SELECT COALESCE(MIN(first_unfinished_job_num), -1) FROM locality_cursor WHERE batch_id = $BATCHID"
}
# workunits of the batch assimilated, and results whose files are deleted
count_assimilated() { sql "SELECT COUNT(*) FROM workunit WHERE batch = $BATCHID AND assimilate_state = 2"; }
count_deleted() { sql "SELECT COUNT(*) FROM result WHERE batch = $BATCHID AND file_delete_state = 2"; }

# wait until every job was reported (and, with locality, the cursor is
# past the last job, every workunit assimilated and every result's files
# deleted), with a bound
timed_out=""
last=0
while :; do
    over=$(count_over)
    cur=-1 assim=-1 deleted=-1
    [ "$LOCALITY" = 1 ] && cur=$(cursor_first_unfinished) assim=$(count_assimilated) deleted=$(count_deleted)
    if [ "$over" = "$NJOBS" ] &&
        { [ "$LOCALITY" = 0 ] || { [ "$cur" = "$NJOBS" ] && [ "$assim" = "$NJOBS" ] && [ "$deleted" = "$NJOBS" ]; }; }; then
        break
    fi
    if ! kill -0 "$demo_pid" 2>/dev/null; then
        timed_out="demo_client (the client) ended before the jobs were done"
        break
    fi
    if [ "$(left)" -le 40 ]; then
        timed_out="not done after $(elapsed) s: $over of $NJOBS results reported, cursor at job $cur, $assim assimilated, $deleted deleted"
        break
    fi
    if [ $(($(date +%s) - last)) -ge 15 ]; then
        last=$(date +%s)
        echo "# [$(elapsed) s] $over of $NJOBS results reported; cursor first unfinished job $cur; $assim assimilated, files of $deleted deleted; client: $(grep -c 'Computation for task' "$LOG") computed, $(grep -c 'Finished upload' "$LOG") uploaded, $(grep -c 'got ack for task' "$LOG") acknowledged"
    fi
    sleep 2
done
check "the jobs were done within the time bound${timed_out:+ ($timed_out)}" eq "$timed_out" ""
echo "# [$(elapsed) s] $(count_over) of $NJOBS results reported"

PROJ_DIR=$(ls -d "$CLIENT"/projects/*/ 2>/dev/null | head -n 1)
PROJ_DIR=${PROJ_DIR%/}
[ -n "$PROJ_DIR" ] || echo "#   the client has no project folder"

if [ "$LOCALITY" = 1 ] && [ -z "$timed_out" ]; then
    # the batch is over: one more RPC (a user update) collects the
    # delete_file_info for every sticky file it still holds
    sleep 8   # past the project's request_delay
    bc --project "$MASTER_URL" update >/dev/null 2>&1
    for ((i = 0; i < 30; i++)); do
        remaining=0
        for ((k = 0; k < NFILES; k++)); do
            [ -e "$PROJ_DIR/${BATCH}_in$k" ] && remaining=$((remaining + 1))
        done
        [ "$remaining" = 0 ] && break
        sleep 1
    done
fi

# the client's view, while it still runs
bc --get_tasks >"$E2E/get_tasks.txt" 2>&1
bc --get_project_status >"$E2E/get_project_status.txt" 2>&1

# ---------------------------------------------------------------- stop
e2e_client_stop
check "demo_client stopped" gone "$demo_pid"
check "the client stopped (pid $CPID)" gone "${CPID:-0}"
check "the client quit through boinccmd --quit" grep -q 'Exiting' "$LOG"
demo_pid=""

# ---------------------------------------------------------------- database
HOSTS=$(sql "SELECT id FROM host WHERE userid = $USERID")
check "one host for the account" eq "$(echo "$HOSTS" | grep -c .)" 1
HOSTID=$(echo "$HOSTS" | head -n 1)
check "every result of the batch is OVER/SUCCESS for host #$HOSTID" \
    eq "$(sql "SELECT COUNT(*) FROM result WHERE batch = $BATCHID AND server_state = 5
                AND outcome = 1 AND hostid = '$HOSTID' AND client_state = 5 AND exit_status = 0")" "$NJOBS"
check "no result of another batch went to this host" \
    eq "$(sql "SELECT COUNT(*) FROM result WHERE hostid = '$HOSTID' AND batch <> $BATCHID")" 0
check "the results carry the client's CPU and elapsed times" \
    eq "$(sql "SELECT COUNT(*) FROM result WHERE batch = $BATCHID AND elapsed_time > 0")" "$NJOBS"
if [ "$LOCALITY" = 1 ]; then
    check "the work generator made one workunit per job" \
        eq "$(sql "SELECT COUNT(*) FROM workunit WHERE batch = $BATCHID")" "$NJOBS"
    check "the validator chose every workunit's canonical result: its own, VALID" \
        eq "$(sql "SELECT COUNT(*) FROM workunit w JOIN result r ON r.id = w.canonical_resultid
                   WHERE w.batch = $BATCHID AND r.workunitid = w.id AND r.validate_state = 1")" "$NJOBS"
    check "every result of the batch is VALID (validate_state 1), none left to validate" \
        eq "$(sql "SELECT COUNT(*) FROM result WHERE batch = $BATCHID AND validate_state = 1")" "$NJOBS"
    check "no workunit of the batch waits for the validator" \
        eq "$(sql "SELECT COUNT(*) FROM workunit WHERE batch = $BATCHID AND need_validate <> 0")" 0
    check "each valid result got credit, the host and the account exactly their sum" \
        eq "$(sql "SELECT CONCAT_WS(' ',
                     (SELECT COUNT(*) FROM result WHERE batch = $BATCHID AND granted_credit > 0),
                     (SELECT ABS(h.total_credit - SUM(r.granted_credit)) < 1e-6 FROM result r
                      JOIN host h ON h.id = r.hostid WHERE r.batch = $BATCHID GROUP BY h.id),
                     (SELECT ABS(u.total_credit - SUM(r.granted_credit)) < 1e-6 FROM result r
                      JOIN user u ON u.id = r.userid WHERE r.batch = $BATCHID GROUP BY u.id))")" "$NJOBS 1 1"
    check "the transitioner advanced the cursor past the last job" \
        eq "$(cursor_first_unfinished)" "$NJOBS"
    check "the batch is COMPLETE" eq "$(sql "SELECT state FROM batch WHERE id = $BATCHID")" 2
    check "the host is in the cursor's team" \
        eq "$(sql "SELECT COUNT(*) FROM batch_host bh JOIN locality_cursor c ON c.id = bh.cursor_id
                   WHERE c.batch_id = $BATCHID AND bh.host_id = '$HOSTID'")" 1
fi

# ---------------------------------------------------------------- outputs
# each output holds "in_K NBYTES MD5" for the job's two inputs, "files 2";
# with locality the assimilator has copied each canonical output into
# results/BATCH/WU_0 and the file deleter has removed it from upload/,
# in the plain flow (no daemons) it stays in upload/RESULT_0
bad_out=0
for ((j = 0; j < NJOBS; j++)); do
    if [ "$LOCALITY" = 1 ]; then
        wname=$(sql "SELECT name FROM workunit WHERE batch = $BATCHID AND job_num = $j LIMIT 1")
        out=$PROJECT_DIR/results/$BATCH/${wname}_0
        [ -n "$wname" ] || out=""
    else
        rname=$(sql "SELECT name FROM result WHERE batch = $BATCHID AND job_num = $j LIMIT 1")
        out=$PROJECT_DIR/upload/${rname}_0
        [ -n "$rname" ] || out=""
    fi
    want=""
    for k in 0 1; do
        f=$W/${BATCH}_in$((j / 3 + k))
        want+="in_$k $(wc -c <"$f" | tr -d ' ') $(md5sum "$f" | cut -c1-32)"$'\n'
    done
    want+="files 2"
    if [ -z "$out" ] || [ ! -f "$out" ] || [ "$(cat "$out")" != "$want" ]; then
        bad_out=$((bad_out + 1))
        [ "$bad_out" -le 3 ] && echo "#   job $j: ${out}: $(head -c 300 "$out" 2>/dev/null | tr '\n' '|') (want: ${want//$'\n'/|})"
    fi
done
if [ "$LOCALITY" = 1 ]; then
    check "each job's canonical output in results/$BATCH/ fits its own input files" eq "$bad_out" 0
else
    check "each job's output in upload/ fits its own input files" eq "$bad_out" 0
fi

# ---------------------------------------------------------------- assimilation
# the batch ends assimilated: validated, handed over, its files deleted
if [ "$LOCALITY" = 1 ]; then
    check "every workunit of the batch is assimilated (assimilate_state 2)" \
        eq "$(count_assimilated)" "$NJOBS"
    check "results/$BATCH/ holds one file per job, nothing else" \
        eq "$(find "$PROJECT_DIR/results/$BATCH" -mindepth 1 | wc -l)" "$NJOBS"
    check "the upload folder holds no output of the batch" \
        eq "$(find "$PROJECT_DIR/upload" -name "${BATCH}_*" | wc -l)" 0
    check "every result's files are marked deleted (file_delete_state 2)" \
        eq "$(count_deleted)" "$NJOBS"
    # with our own validator (not the sandbox's), its log says it did it
    if [ -f "$E2E/validator.log" ]; then
        check "validator log: at least $NJOBS workunits validated" le "$NJOBS" \
            "$(sed -n 's/.*pass: \([0-9]*\) workunits validated.*/\1/p' "$E2E/validator.log" |
               awk '{s += $1} END {print s + 0}')"
    fi
fi

# ---------------------------------------------------------------- client
STATE=$CLIENT/client_state.xml
sql "SELECT name FROM result WHERE batch = $BATCHID ORDER BY job_num" >"$W/results"
# in_log BEFORE AFTER: how many of the batch's results have a log line
# with "BEFORE<result name>AFTER" (AFTER ends the name: a space, or
# the end of the line)
in_log() {
    local r c=0
    while read -r r; do
        grep -qE "$1$r$2" "$LOG" && c=$((c + 1))
    done <"$W/results"
    echo "$c"
}
held=0
while read -r r; do
    grep -q "<name>$r</name>" "$STATE" && held=$((held + 1))
done <"$W/results"
check "client_state.xml names host #$HOSTID" grep -q "<hostid>$HOSTID</hostid>" "$STATE"
check "client_state.xml holds no job of the batch (all acknowledged)" eq "$held" 0
check "boinccmd --get_tasks lists no job of the batch" \
    eq "$(grep -c "name: ${BATCH}_" "$E2E/get_tasks.txt")" 0
check "boinccmd --get_project_status shows the project" grep -q "master URL: $MASTER_URL" "$E2E/get_project_status.txt"
check "boinccmd --get_project_status shows the volunteer's name (from the reply)" \
    grep -q "user_name: e2e client" "$E2E/get_project_status.txt"
check "boinccmd --get_project_status shows the credit fields (from the reply)" \
    grep -q "user_total_credit: " "$E2E/get_project_status.txt"
check "log: every input file downloaded" \
    eq "$(grep -oE "Finished download of ${BATCH}_in[0-9]+" "$LOG" | sort -u | wc -l)" "$NFILES"
check "log: the signed app downloaded" grep -q "Finished download of $(basename "$APPFILE")" "$LOG"
check "log: every job started" eq "$(in_log 'Starting task ' '$')" "$NJOBS"
check "log: every job computed" eq "$(in_log 'Computation for task ' ' finished')" "$NJOBS"
check "log: every output uploaded" eq "$(in_log 'Finished upload of ' '_0$')" "$NJOBS"
check "log: every job acknowledged" eq "$(in_log 'got ack for task ' '$')" "$NJOBS"
complaints=$(grep -E 'signature|MD5 check failed|wrong size|Giving up|Unrecoverable|exceeds size limit|could not read|Scheduler request failed|missing|Can.t handle|error' "$LOG" |
             grep -v 'Deferring' | head -n 5)
check "log: no rejection or error" eq "$complaints" ""

if [ "$LOCALITY" = 1 ]; then
    dels=$(grep -o "Got server request to delete file ${BATCH}_in[0-9]*" "$LOG" | awk '{print $NF}' | sort -u)
    ndel=$(echo "$dels" | grep -c .)
    # while jobs were still being reported, some files were let go already
    first_del=$(grep -n "Got server request to delete file ${BATCH}_in" "$LOG" | head -n 1 | cut -d: -f1)
    last_ack=$(grep -n "got ack for task ${BATCH}_" "$LOG" | tail -n 1 | cut -d: -f1)
    check "log: the client got <delete_file_info> for every input file" eq "$ndel" "$NFILES"
    # sticky files are kept while the host's jobs need them: each is
    # downloaded once by the one host that uses it (never deleted early and
    # fetched again)
    check "log: each sticky input file downloaded exactly once" \
        eq "$(grep -oE "Finished download of ${BATCH}_in[0-9]+" "$LOG" | wc -l)" "$NFILES"
    check "log: the first <delete_file_info> came before the last job was acknowledged" \
        lt "$first_del" "$last_ack"
    kept=""
    for f in $dels; do
        [ -e "$PROJ_DIR/$f" ] && kept+=" $f"
    done
    check "the client removed the files it was told to delete from its project folder" eq "$kept" ""
    # the database's view of the sticky files the host holds (host_file)
    # agrees with the client's: none of the batch's files is left
    check "host_file lists none of the batch's files for host #$HOSTID" \
        eq "$(sql "SELECT COUNT(*) FROM host_file hf JOIN file f ON f.id = hf.file_id
                   WHERE hf.host_id = '$HOSTID' AND f.batch_id = $BATCHID")" 0
fi

# ---------------------------------------------------------------- recorded
# the requests the scheduler recorded for this client: as many as the
# client sent; kept with the client's folder for the load test
mkdir -p "$E2E/recorded"
nrec=0
for f in $(ls "$REC" 2>/dev/null | comm -13 "$W/recorded.before" -); do
    if grep -q "<authenticator>$AUTH</authenticator>" "$REC/$f"; then
        cp "$REC/$f" "$E2E/recorded/"
        nrec=$((nrec + 1))
    fi
done
nsent=$(grep -c 'Sending scheduler request' "$LOG")
check "record_requests saved every request the client sent ($nsent)" eq "$nrec" "$nsent"

# ---------------------------------------------------------------- story
echo "# the client's log (download, compute, upload, report, delete), first lines of each:"
for pat in 'Finished download of' 'Starting task' 'Computation for task' 'Finished upload of' \
           'Reporting [0-9]* completed' 'got ack for task' 'Got server request to delete file'; do
    grep -m 2 -E "$pat" "$LOG" | sed 's/^/#   /'
done
echo "# [$(elapsed) s] done; client folder, log and recorded requests: $E2E"

echo "1..$n"
if [ "$failed" -gt 0 ]; then
    echo "# $failed of $n checks failed; the end of the client's log:"
    tail -n 40 "$LOG" 2>/dev/null | sed 's/^/#   /'
    echo "# demo_client's output:"
    grep -v 'client|' "$E2E/demo_client.out" | tail -n 20 | sed 's/^/#   /'
    exit 1
fi
exit 0
