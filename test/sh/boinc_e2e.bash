# boinc_e2e.bash - what the real-client tests (boinc_client_*.sh) share:
# their needs, the client's folder, the sandbox configuration they change
# and restore, an account, the signed test app, a batch, the daemons, the
# client itself, and the cleanup that stops what they started by PID.
# Sourced after tap.bash (run_suite runs only *.sh, so this file is never
# run as a test).
#
#   e2e_init NAME          check the needs, set top_srcdir, top_builddir,
#                          sql, E2E ($top_builddir/test/NAME), CLIENT, W, LOG;
#                          install the cleanup trap
#   e2e_set_conf KEY VALUE set a key of the sandbox's locsched.conf (saved
#                          first; restored by the cleanup); e2e_graceful
#                          restarts Apache gracefully (the scheduler reads
#                          its configuration when it starts)
#   e2e_retire_leftovers   retire unsent results and open batches of earlier tests
#   e2e_account            a new account: AUTH, USERID
#   e2e_app                the signed test app, a new version: APPNAME, VERSION, APPFILE
#   e2e_batch NAME NFILES JOBS_FILE [create_batch options]
#                          NFILES random input files NAME_in0.. and a batch
#                          of the jobs in JOBS_FILE: BATCH, BATCHID
#   e2e_daemons            the sandbox's daemons if they run, else ours: the
#                          locality ones, the validator (idle with validator =
#                          none), the assimilator and the file deleter
#   e2e_client NCPUS       start demo_client --no-setup: demo_pid, PORT; bc
#                          runs boinccmd against it; attached with AUTH,
#                          or not attached when AUTH is empty
#   e2e_client_stop        stop demo_client (and so the client): CPID
# shellcheck shell=bash

t0=$(date +%s)
BUDGET=${E2E_BUDGET:-270}
gone() { ! kill -0 "$1" 2>/dev/null && [ ! -e "/proc/$1" ]; }
elapsed() { echo $(($(date +%s) - t0)); }
left() { echo $((t0 + BUDGET - $(date +%s))); }
DAEMONS=(work_generator transitioner locality_daemon validator assimilator file_deleter)

e2e_init() {
    local v c t old
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
    sql "SELECT 1" >/dev/null 2>&1 || bail "cannot query the database $DB_NAME through $DB_SOCKET"

    E2E=$top_builddir/test/$1
    CLIENT=$E2E/client
    W=$E2E/work
    LOG=$CLIENT/client.log
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
    CONF_SAVED=$W/locsched.conf.orig
    demo_pid="" daemon_pids=() conf_changed=0
    trap e2e_cleanup EXIT
    trap 'echo "# interrupted"; exit 1' INT TERM
}

sql() {
    MYSQL_PWD=$DB_PASSWORD "$MARIADB" --no-defaults --socket="$DB_SOCKET" -u "$DB_USER" \
        --batch --skip-column-names "$DB_NAME" -e "$1"
}

e2e_graceful() {
    "$APACHE" -f "$AP_CONF" -k graceful </dev/null >/dev/null 2>&1
}

e2e_cleanup() {
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
        cat "$CONF_SAVED" >"$LOCSCHED_CONFIG" && e2e_graceful
        conf_changed=0
    fi
}

# e2e_set_conf KEY VALUE: in the sandbox's locsched.conf (a key may appear once)
e2e_set_conf() {
    if [ "$conf_changed" = 0 ]; then
        cp -p "$LOCSCHED_CONFIG" "$CONF_SAVED" || bail "cannot save $LOCSCHED_CONFIG"
        conf_changed=1
    fi
    if grep -Eq "^[[:space:]]*$1[[:space:]]*=" "$LOCSCHED_CONFIG"; then
        sed -i -E "s|^[[:space:]]*$1[[:space:]]*=.*|$1 = $2|" "$LOCSCHED_CONFIG"
    else
        printf '%s = %s\n' "$1" "$2" >>"$LOCSCHED_CONFIG"
    fi
}

# earlier tests leave unsent jobs and open batches in the shared database;
# the scheduler would hand them to this client (their app files do not exist)
e2e_retire_leftovers() {
    local retired closed cancelled
    retired=$(sql "UPDATE result SET server_state = 5, outcome = 5 WHERE server_state = 2;
                   SELECT ROW_COUNT();")
    closed=$(sql "UPDATE batch SET state = 3 WHERE state IN (0, 1); SELECT ROW_COUNT();")
    # their unfinished jobs are cancelled as abort_batch does (error_mask
    # 16): else the transitioner would make new replicas of them (for a
    # host presumed gone, say), and the client would be sent those
    cancelled=$(sql "UPDATE workunit SET error_mask = error_mask | 16, transition_time = UNIX_TIMESTAMP()
                     WHERE canonical_resultid = 0 AND error_mask = 0; SELECT ROW_COUNT();")
    echo "# retired $retired unsent result(s) and $closed open batch(es) left by earlier tests; cancelled $cancelled unfinished job(s)"
}

e2e_account() {
    stamp=$(date +%s)
    AUTH=$("$top_builddir/tools/create_account" --config "$LOCSCHED_CONFIG" --name "e2e client" \
           --email "e2e-$stamp-$$@test.invalid" 2>"$W/create_account.err")
    [ -n "$AUTH" ] || { cat "$W/create_account.err"; bail "create_account failed"; }
    USERID=$(sql "SELECT id FROM user WHERE authenticator = '$AUTH'")
    [ -n "$USERID" ] || bail "the new account is not in the database"
}

e2e_app() {
    VERSION=$(($(date +%s) - 1700000000))
    APPNAME=locsched_e2e
    APPFILE=$W/locsched_test_app_${VERSION}_x86_64-pc-linux-gnu
    cp "$APP" "$APPFILE" || bail "cannot copy $APP"
    "$top_builddir/tools/add_app_version" --config "$LOCSCHED_CONFIG" --app "$APPNAME" \
        --version "$VERSION" --file "$APPFILE" --key "$KEY" >"$W/add_app_version.out" 2>&1 ||
        { cat "$W/add_app_version.out"; bail "add_app_version failed"; }
}

# e2e_batch NAME NFILES JOBS_FILE [create_batch options]
e2e_batch() {
    local name=$1 nfiles=$2 jobs=$3 i
    shift 3
    BATCH=$name
    : >"$W/files.$name"
    for ((i = 0; i < nfiles; i++)); do
        head -c $((2000 + 1500 * i)) /dev/urandom >"$W/${name}_in$i"
        echo "${name}_in$i $W/${name}_in$i" >>"$W/files.$name"
    done
    "$top_builddir/tools/create_batch" --config "$LOCSCHED_CONFIG" --name "$name" \
        --app "$APPNAME" --files "$W/files.$name" --jobs "$jobs" "$@" \
        >"$W/create_batch.$name.out" 2>&1 ||
        { cat "$W/create_batch.$name.out"; bail "create_batch failed"; }
    BATCHID=$(sql "SELECT id FROM batch WHERE name = '$name'")
    [ -n "$BATCHID" ] || bail "batch $name is not in the database"
}

# the daemons: those of the sandbox ("tools/sandbox daemons") if they run,
# else our own for the length of the test
e2e_daemons() {
    local d p
    for d in "${DAEMONS[@]}"; do
        [ -x "$top_builddir/daemons/$d" ] || bail "$top_builddir/daemons/$d is not built (the locality daemons are needed; LOCSCHED_E2E_PLAIN=1 runs the plain flow)"
    done
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
}

# e2e_client NCPUS: the client through demo_client --no-setup (--no-attach
# without AUTH)
e2e_client() {
    local i attach=(--auth "${AUTH:-}")
    [ -n "${AUTH:-}" ] || attach=(--no-attach)
    "$DEMO_CLIENT" --no-setup --client-dir "$CLIENT" "${attach[@]}" --ncpus "$1" \
        --timeout "$(left)" >"$E2E/demo_client.out" 2>&1 </dev/null &
    demo_pid=$!
    for ((i = 0; i < 300; i++)); do
        [ -s "$CLIENT/gui_rpc_port" ] && [ -s "$CLIENT/gui_rpc_auth.cfg" ] && break
        kill -0 "$demo_pid" 2>/dev/null || { cat "$E2E/demo_client.out"; bail "demo_client failed"; }
        sleep 0.1
    done
    PORT=$(cat "$CLIENT/gui_rpc_port" 2>/dev/null)
}
bc() { boinccmd --host "127.0.0.1:$PORT" --passwd "$(cat "$CLIENT/gui_rpc_auth.cfg")" "$@"; }

# demo_client stops the client: boinccmd --quit, then signals by PID
e2e_client_stop() {
    local i
    CPID=$(cat "$CLIENT/boinc.pid" 2>/dev/null)
    kill -TERM "$demo_pid" 2>/dev/null
    for ((i = 0; i < 300; i++)); do
        kill -0 "$demo_pid" 2>/dev/null || break
        sleep 0.1
    done
    wait "$demo_pid" 2>/dev/null
}
