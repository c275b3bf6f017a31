#!/usr/bin/env bash
# run_suite: once (a whole system; the plain build's suite runs it, see test/run_suite)
# boinc_client_e2e.sh - the real BOINC client (Debian's boinc-client 7.20)
# end to end against the suite's sandbox: attach, download the signed test
# application and sticky input files, run jobs, upload outputs, report;
# with a locality batch, the daemons generate the jobs, the transitioner
# finishes them and advances the cursor, and the scheduler tells the client
# to let go of the sticky files its cursor no longer needs.
#
# Needs the sandbox environment exported by test/run_suite (LOCSCHED_CONFIG,
# MASTER_URL, PROJECT_DIR, SANDBOX_DIR, DB_SOCKET, DB_USER, DB_PASSWORD,
# DB_NAME), top_srcdir and top_builddir (for the tools, the daemons and
# test/app/locsched_test_app), and boinc, boinccmd, mariadb, md5sum.
#
# For the run it sets record_requests = 1 and no_work_request_delay = 10 in
# the sandbox's locsched.conf (restored at the end; Apache is restarted
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

t0=$(date +%s)
BUDGET=${E2E_BUDGET:-270}
NJOBS=24        # job j uses files j/3 and j/3 + 1
NFILES=9
NCPUS=4
JOB_SLEEP=2

. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"
gone() { ! kill -0 "$1" 2>/dev/null && [ ! -e "/proc/$1" ]; }
elapsed() { echo $(($(date +%s) - t0)); }
left() { echo $((t0 + BUDGET - $(date +%s))); }

# ---------------------------------------------------------------- needs
for v in LOCSCHED_CONFIG MASTER_URL PROJECT_DIR SANDBOX_DIR DB_SOCKET DB_USER DB_PASSWORD DB_NAME; do
    [ -n "${!v:-}" ] || bail "$v is not set (run through test/run_suite, or eval \"\$(tools/sandbox env)\")"
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=${top_srcdir:-$here/../..}
top_builddir=${top_builddir:-${LOCSCHED_BUILD_DIR:-$top_srcdir}}
top_srcdir=$(cd "$top_srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
for c in boinc boinccmd md5sum; do
    command -v "$c" >/dev/null 2>&1 || bail "$c is not installed (Debian package boinc-client / coreutils; tools/install_deps)"
done
MARIADB=$(command -v mariadb || command -v mysql) || bail "the mariadb client is not installed"
APACHE=$(command -v apache2 || command -v httpd || ls /usr/sbin/apache2 2>/dev/null) || bail "apache2 not found"
APP=$top_builddir/test/app/locsched_test_app
[ -x "$APP" ] || bail "$APP is not built (configure needs libboinc-app-dev)"
for t in create_account add_app_version create_batch; do
    [ -x "$top_builddir/tools/$t" ] || bail "$top_builddir/tools/$t is not built"
done
DEMO_CLIENT=$top_srcdir/tools/demo_client
[ -x "$DEMO_CLIENT" ] || bail "$DEMO_CLIENT is missing"
KEY=$PROJECT_DIR/keys/code_sign_private.pem
[ -r "$KEY" ] || bail "no code-signing key $KEY (tools/sandbox makes one)"
AP_CONF=$SANDBOX_DIR/apache/httpd.conf
[ -f "$AP_CONF" ] || bail "no $AP_CONF: is the sandbox running?"

LOCALITY=1
[ "${LOCSCHED_E2E_PLAIN:-0}" = 1 ] && LOCALITY=0
DAEMONS=(work_generator transitioner locality_daemon)
if [ "$LOCALITY" = 1 ]; then
    "$top_builddir/tools/create_batch" --help 2>&1 | grep -q -- '--locality' ||
        bail "create_batch has no --locality: the locality scheduler is not built"
    for d in "${DAEMONS[@]}"; do
        [ -x "$top_builddir/daemons/$d" ] || bail "$top_builddir/daemons/$d is not built (the locality daemons are needed; LOCSCHED_E2E_PLAIN=1 runs the plain flow)"
    done
fi

sql() {
    MYSQL_PWD=$DB_PASSWORD "$MARIADB" --no-defaults --socket="$DB_SOCKET" -u "$DB_USER" \
        --batch --skip-column-names "$DB_NAME" -e "$1"
}
sql "SELECT 1" >/dev/null 2>&1 || bail "cannot query the database $DB_NAME through $DB_SOCKET"

# ---------------------------------------------------------------- folders
E2E=$top_builddir/test/boinc-e2e
CLIENT=$E2E/client
W=$E2E/work
if [ -f "$CLIENT/boinc.pid" ]; then
    # a client left by an interrupted run: stop it by its PID
    old=$(tr -dc '0-9' <"$CLIENT/boinc.pid")
    if [ -n "$old" ] && tr '\0' ' ' <"/proc/$old/cmdline" 2>/dev/null | grep -q -- "--dir $CLIENT "; then
        echo "# stopping a client left by an earlier run (pid $old)"
        kill -TERM "$old" 2>/dev/null
        sleep 3
        kill -KILL "$old" 2>/dev/null
    fi
fi
rm -rf "$E2E"
mkdir -p "$CLIENT" "$W" || bail "cannot create $E2E"

# ---------------------------------------------------------------- cleanup
CONF_SAVED=$W/locsched.conf.orig
demo_pid="" daemon_pids=() conf_changed=0
graceful() {
    "$APACHE" -f "$AP_CONF" -k graceful </dev/null >/dev/null 2>&1
}
cleanup() {
    local p i
    if [ -n "$demo_pid" ] && kill -0 "$demo_pid" 2>/dev/null; then
        kill -TERM "$demo_pid" 2>/dev/null
        for ((i = 0; i < 300; i++)); do
            kill -0 "$demo_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$demo_pid" 2>/dev/null
        wait "$demo_pid" 2>/dev/null
    fi
    # the client, should demo_client have failed to stop it
    if [ -f "$CLIENT/boinc.pid" ]; then
        p=$(tr -dc '0-9' <"$CLIENT/boinc.pid")
        if [ -n "$p" ] && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--dir $CLIENT "; then
            kill -KILL "$p" 2>/dev/null
        fi
    fi
    for p in "${daemon_pids[@]}"; do
        kill -TERM "$p" 2>/dev/null
    done
    for p in "${daemon_pids[@]}"; do
        for ((i = 0; i < 100; i++)); do
            kill -0 "$p" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    daemon_pids=()
    if [ "$conf_changed" = 1 ]; then
        cat "$CONF_SAVED" >"$LOCSCHED_CONFIG" && graceful
        conf_changed=0
    fi
}
trap cleanup EXIT
trap 'echo "# interrupted"; exit 1' INT TERM

# ---------------------------------------------------------------- config
# set_conf KEY VALUE: in the sandbox's locsched.conf (a key may appear once)
set_conf() {
    if grep -Eq "^[[:space:]]*$1[[:space:]]*=" "$LOCSCHED_CONFIG"; then
        sed -i -E "s|^[[:space:]]*$1[[:space:]]*=.*|$1 = $2|" "$LOCSCHED_CONFIG"
    else
        printf '%s = %s\n' "$1" "$2" >>"$LOCSCHED_CONFIG"
    fi
}
cp -p "$LOCSCHED_CONFIG" "$CONF_SAVED" || bail "cannot save $LOCSCHED_CONFIG"
conf_changed=1
set_conf record_requests 1
# when a request gets no work (the client asks while its last jobs run),
# the default 60-s request_delay would hold back those jobs' reports too
set_conf no_work_request_delay 10
# the scheduler reads its configuration when it starts
graceful || bail "apache2 -k graceful failed for $AP_CONF"
REC=$PROJECT_DIR/recorded
ls "$REC" >"$W/recorded.before" 2>/dev/null

# ---------------------------------------------------------------- work
# earlier tests leave unsent jobs and open batches in the shared database;
# the scheduler would hand them to this client (their app files do not exist)
retired=$(sql "UPDATE result SET server_state = 5, outcome = 5 WHERE server_state = 2;
               SELECT ROW_COUNT();")
closed=$(sql "UPDATE batch SET state = 3 WHERE state IN (0, 1); SELECT ROW_COUNT();")
echo "# retired $retired unsent result(s) and $closed open batch(es) left by earlier tests"

stamp=$(date +%s)
AUTH=$("$top_builddir/tools/create_account" --config "$LOCSCHED_CONFIG" --name "e2e client" \
       --email "e2e-$stamp-$$@test.invalid" 2>"$W/create_account.err")
[ -n "$AUTH" ] || { cat "$W/create_account.err"; bail "create_account failed"; }
USERID=$(sql "SELECT id FROM user WHERE authenticator = '$AUTH'")
[ -n "$USERID" ] || bail "the new account is not in the database"

VERSION=$((stamp - 1700000000))
APPNAME=locsched_e2e
APPFILE=$W/locsched_test_app_${VERSION}_x86_64-pc-linux-gnu
cp "$APP" "$APPFILE" || bail "cannot copy $APP"
"$top_builddir/tools/add_app_version" --config "$LOCSCHED_CONFIG" --app "$APPNAME" \
    --version "$VERSION" --file "$APPFILE" --key "$KEY" >"$W/add_app_version.out" 2>&1 ||
    { cat "$W/add_app_version.out"; bail "add_app_version failed"; }

BATCH=e2e_${stamp}_$$
: >"$W/files"
for ((i = 0; i < NFILES; i++)); do
    head -c $((2000 + 1500 * i)) /dev/urandom >"$W/${BATCH}_in$i"
    echo "${BATCH}_in$i $W/${BATCH}_in$i" >>"$W/files"
done
: >"$W/jobs"
for ((j = 0; j < NJOBS; j++)); do
    # estimated at hours (1e13 flops), done in seconds: with no work
    # buffer the client asks for about one job per idle CPU at a time
    echo "$((j / 3)) 2 1e13 --sleep $JOB_SLEEP" >>"$W/jobs"
done
batch_args=(--config "$LOCSCHED_CONFIG" --name "$BATCH" --app "$APPNAME" --files "$W/files"
            --jobs "$W/jobs" --delay-bound 604800 --max-out-bytes 100000)
[ "$LOCALITY" = 1 ] && batch_args+=(--locality --cursors 1)
"$top_builddir/tools/create_batch" "${batch_args[@]}" >"$W/create_batch.out" 2>&1 ||
    { cat "$W/create_batch.out"; bail "create_batch failed"; }
BATCHID=$(sql "SELECT id FROM batch WHERE name = '$BATCH'")
[ -n "$BATCHID" ] || bail "batch $BATCH is not in the database"
echo "# [$(elapsed) s] account #$USERID, app $APPNAME version $VERSION, batch #$BATCHID $BATCH: $NJOBS jobs over $NFILES files$([ "$LOCALITY" = 1 ] && echo ', locality')"

# the daemons: those of the sandbox ("tools/sandbox daemons") if they run,
# else our own for the length of the test
if [ "$LOCALITY" = 1 ]; then
    for d in "${DAEMONS[@]}"; do
        p=$({ tr -dc '0-9' <"$SANDBOX_DIR/daemons/$d.pid"; } 2>/dev/null)
        if [ -n "$p" ] && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "/$d --config"; then
            echo "# $d of the sandbox runs (pid $p)"
            continue
        fi
        "$top_builddir/daemons/$d" --config "$LOCSCHED_CONFIG" --sleep 1 \
            >"$E2E/$d.log" 2>&1 </dev/null &
        daemon_pids+=("$!")
        sleep 0.5
        kill -0 "$!" 2>/dev/null || { cat "$E2E/$d.log"; bail "$d exited at once"; }
    done
fi

# ---------------------------------------------------------------- client
"$DEMO_CLIENT" --no-setup --client-dir "$CLIENT" --auth "$AUTH" --ncpus "$NCPUS" \
    --timeout "$(left)" >"$E2E/demo_client.out" 2>&1 </dev/null &
demo_pid=$!
LOG=$CLIENT/client.log
for ((i = 0; i < 300; i++)); do
    [ -s "$CLIENT/gui_rpc_port" ] && [ -s "$CLIENT/gui_rpc_auth.cfg" ] && break
    kill -0 "$demo_pid" 2>/dev/null || { cat "$E2E/demo_client.out"; bail "demo_client failed"; }
    sleep 0.1
done
PORT=$(cat "$CLIENT/gui_rpc_port" 2>/dev/null)
bc() { boinccmd --host "127.0.0.1:$PORT" --passwd "$(cat "$CLIENT/gui_rpc_auth.cfg")" "$@"; }

# progress COUNTS: results of the batch reported, successful; cursor state
count_over() { sql "SELECT COUNT(*) FROM result WHERE batch = $BATCHID AND server_state = 5"; }
cursor_first_unfinished() {
    sql "SELECT COALESCE(MIN(first_unfinished_job_num), -1) FROM locality_cursor WHERE batch_id = $BATCHID"
}

# wait until every job was reported (and, with locality, the cursor is
# past the last job), with a bound
timed_out=""
last=0
while :; do
    over=$(count_over)
    cur=-1
    [ "$LOCALITY" = 1 ] && cur=$(cursor_first_unfinished)
    if [ "$over" = "$NJOBS" ] && { [ "$LOCALITY" = 0 ] || [ "$cur" = "$NJOBS" ]; }; then
        break
    fi
    if ! kill -0 "$demo_pid" 2>/dev/null; then
        timed_out="demo_client (the client) ended before the jobs were done"
        break
    fi
    if [ "$(left)" -le 40 ]; then
        timed_out="not done after $(elapsed) s: $over of $NJOBS results reported, cursor at job $cur"
        break
    fi
    if [ $(($(date +%s) - last)) -ge 15 ]; then
        last=$(date +%s)
        echo "# [$(elapsed) s] $over of $NJOBS results reported; cursor first unfinished job $cur; client: $(grep -c 'Computation for task' "$LOG") computed, $(grep -c 'Finished upload' "$LOG") uploaded, $(grep -c 'got ack for task' "$LOG") acknowledged"
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
# demo_client stops the client: boinccmd --quit, then signals by PID
CPID=$(cat "$CLIENT/boinc.pid" 2>/dev/null)
kill -TERM "$demo_pid" 2>/dev/null
for ((i = 0; i < 300; i++)); do
    kill -0 "$demo_pid" 2>/dev/null || break
    sleep 0.1
done
wait "$demo_pid" 2>/dev/null
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
    check "the transitioner finished every workunit (canonical result)" \
        eq "$(sql "SELECT COUNT(*) FROM workunit WHERE batch = $BATCHID AND canonical_resultid <> 0")" "$NJOBS"
    check "the transitioner advanced the cursor past the last job" \
        eq "$(cursor_first_unfinished)" "$NJOBS"
    check "the batch is COMPLETE" eq "$(sql "SELECT state FROM batch WHERE id = $BATCHID")" 2
    check "the host is in the cursor's team" \
        eq "$(sql "SELECT COUNT(*) FROM batch_host bh JOIN locality_cursor c ON c.id = bh.cursor_id
                   WHERE c.batch_id = $BATCHID AND bh.host_id = '$HOSTID'")" 1
fi

# ---------------------------------------------------------------- uploads
# each output holds "in_K NBYTES MD5" for the job's two inputs, "files 2"
bad_out=0
for ((j = 0; j < NJOBS; j++)); do
    rname=$(sql "SELECT name FROM result WHERE batch = $BATCHID AND job_num = $j LIMIT 1")
    out=$PROJECT_DIR/upload/${rname}_0
    want=""
    for k in 0 1; do
        f=$W/${BATCH}_in$((j / 3 + k))
        want+="in_$k $(wc -c <"$f" | tr -d ' ') $(md5sum "$f" | cut -c1-32)"$'\n'
    done
    want+="files 2"
    if [ -z "$rname" ] || [ ! -f "$out" ] || [ "$(cat "$out")" != "$want" ]; then
        bad_out=$((bad_out + 1))
        [ "$bad_out" -le 3 ] && echo "#   job $j: ${out}: $(head -c 300 "$out" 2>/dev/null | tr '\n' '|') (want: ${want//$'\n'/|})"
    fi
done
check "each job's output in upload/ fits its own input files" eq "$bad_out" 0

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
