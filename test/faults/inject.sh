# inject.sh - the faults of test/faults/run (sourced by it): finding this
# shellcheck shell=bash
# sandbox's processes by their pids, killing them with SIGKILL, bringing
# them back with tools/sandbox, and the probe requests sent while MariaDB
# is down.  Every fault is logged as one line of $FAULTS:
#   rel_s unix_s kind pid detail
# Needs from run: SB, SANDBOX, build, out_dir, FAULTS, T0_MS, PROJECT_DIR,
# SCHED_URL, src_top.

# tick: NOW_MS = milliseconds since the load started (no subshell).
tick() { NOW_MS=$(( ${EPOCHREALTIME/./} / 1000 - T0_MS )); }

log_fault() {  # log_fault KIND PID DETAIL...: the DETAIL words joined by spaces
    local kind=$1 pid=$2
    shift 2
    tick
    printf '%d.%03d\t%s\t%s\t%s\t%s\n' $((NOW_MS / 1000)) $((NOW_MS % 1000)) \
        "${EPOCHSECONDS}" "$kind" "$pid" "$*" >>"$FAULTS"
}

# proc_cmd PID: the command line, arguments separated by spaces.
proc_cmd() { { tr '\0' ' ' <"/proc/$1/cmdline"; } 2>/dev/null; }

# alive PID: the process exists and is not a zombie.
alive() {
    local st
    st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    st=${st##*) }
    [ "${st:0:1}" != Z ]
}

# pid_of FILE MARKER: the pid in FILE if that process is alive and its
# command line contains MARKER.
pid_of() {
    local pid
    pid=$(tr -dc '0-9' <"$1" 2>/dev/null) || return 1
    [ -n "$pid" ] && alive "$pid" || return 1
    case " $(proc_cmd "$pid") " in *"$2"*) echo "$pid" ;; *) return 1 ;; esac
}
apache_pid() { pid_of "$SB/apache/httpd.pid" "$SB/apache/httpd.conf"; }
mariadb_pid() { pid_of "$SB/mysql/mysqld.pid" "--pid-file=$SB/mysql/mysqld.pid"; }
daemon_pid() { pid_of "$SB/daemons/$1.pid" "/$1 --config $PROJECT_DIR/locsched.conf"; }

# sched_pids: the scheduler FastCGI processes of this sandbox: descendants
# of its Apache whose program is PROJECT_DIR/cgi-bin/scheduler.
sched_pids() {
    local ap
    ap=$(apache_pid) || return 0
    ps -eo pid=,ppid=,args= 2>/dev/null | awk -v ap="$ap" -v prog="$PROJECT_DIR/cgi-bin/scheduler" '
        { parent[$1] = $2; if ($3 == prog) cand[$1] = 1 }
        END {
            for (p in cand) {
                q = parent[p]
                for (d = 0; d < 6 && q > 1; d++) {
                    if (q == ap) { print p; break }
                    q = parent[q]
                }
            }
        }'
}

# syscall_of PID: the number of the system call PID is blocked in, or
# "running" (from /proc/PID/syscall; needs root or the same user).
syscall_of() {
    local s
    read -r s _ <"/proc/$1/syscall" 2>/dev/null || { echo gone; return 0; }
    echo "$s"
}
# syscall_name NUMBER: a readable name for the x86-64 numbers seen here.
syscall_name() {
    case $1 in
        -1) echo user ;; 0) echo read ;; 1) echo write ;; 7) echo poll ;; 23) echo select ;; 35) echo nanosleep ;;
        43) echo accept ;; 44) echo sendto ;; 45) echo recvfrom ;; 46) echo sendmsg ;;
        47) echo recvmsg ;; 202) echo futex ;; 219) echo restart_syscall ;; 230) echo clock_nanosleep ;; 232) echo epoll_wait ;;
        270) echo pselect6 ;; 271) echo ppoll ;; 288) echo accept4 ;;
        *) echo "$1" ;;
    esac
}

# stop_pid PID NAME: SIGTERM, up to 10 s, then SIGKILL (a process we started).
stop_pid() {
    local i
    alive "$1" || return 0
    kill -TERM "$1" 2>/dev/null
    for ((i = 0; i < 100; i++)); do
        alive "$1" || return 0
        sleep 0.1
    done
    echo "$prog: $2 (pid $1) did not stop: SIGKILL" >&2
    kill -KILL "$1" 2>/dev/null
}

# fresh_sandbox DIR: stop and remove the sandbox in DIR (refuses a folder
# that is neither empty nor a sandbox).
fresh_sandbox() {
    local d=$1 sock
    [ -e "$d" ] || return 0
    if [ -f "$d/state.env" ]; then
        "$SANDBOX" --dir "$d" stop </dev/null >/dev/null 2>&1 || return 1
        sock=$(sed -n "s/^SOCK_DIR='\(.*\)'$/\1/p" "$d/state.env" 2>/dev/null)
        case $sock in */locsched-sb.*) rm -rf "$sock" ;; esac
        rm -rf "$d"
    elif [ -d "$d" ] && [ -z "$(ls -A "$d")" ]; then
        rmdir "$d"
    else
        echo "$prog: $d exists and is not a sandbox: not removing it" >&2
        return 1
    fi
}

# kill_scheduler: SIGKILL a random scheduler process; the detail says how
# many there were and whether the victim was serving a request (not
# blocked in accept(), where an idle FastCGI process waits).
kill_scheduler() {
    local -a pids
    local victim sc state
    mapfile -t pids < <(sched_pids)
    if [ "${#pids[@]}" = 0 ]; then
        log_fault scheduler_none - "no scheduler process to kill"
        return 0
    fi
    victim=${pids[RANDOM % ${#pids[@]}]}
    sc=$(syscall_of "$victim")
    case $sc in 43|288) state=idle ;; gone) state=gone ;; *) state=busy ;; esac
    kill -KILL "$victim" 2>/dev/null || state=gone
    log_fault scheduler "$victim" "processes=${#pids[@]} state=$state syscall=$(syscall_name "$sc")"
}

# probe: one scheduler request of our own while MariaDB is down (a host
# that reports and asks for nothing); one line in probes.tsv: rel_s,
# HTTP status, curl status, class.  A reply is "retry" when a BOINC client
# retries it: no HTTP reply, HTTP 5xx, or a well-formed scheduler reply
# with a request_delay.
probe_i=0
probe() {
    local f=$out_dir/probe-$probe_i.xml code rc=0 cls
    probe_i=$((probe_i + 1))
    code=$(curl -sS -o "$f" -w '%{http_code}' --max-time 20 \
        -A 'BOINC client (x86_64-pc-linux-gnu 7.20.5)' \
        -H 'Content-Type: application/x-www-form-urlencoded' \
        --data-binary @"$out_dir/probe-body.xml" "$SCHED_URL" 2>/dev/null) || rc=$?
    cls=$(classify_reply "$rc" "$code" "$f")
    tick
    printf '%d.%03d\t%s\t%s\t%s\n' $((NOW_MS / 1000)) $((NOW_MS % 1000)) "$code" "$rc" "$cls" \
        >>"$out_dir/probes.tsv"
}
# classify_reply CURL_STATUS HTTP_CODE FILE: retry-transport, retry-5xx,
# retry-delay (a reply with request_delay), or bad-... (what a client
# would not simply retry).
classify_reply() {
    if [ "$1" != 0 ]; then echo retry-transport; return; fi
    case $2 in 5??) echo retry-5xx; return ;; 200) ;; *) echo "bad-http-$2"; return ;; esac
    if command -v xmllint >/dev/null 2>&1; then
        xmllint --noout --nonet "$3" 2>/dev/null || { echo bad-malformed; return; }
    fi
    grep -q '^<scheduler_reply>' "$3" && grep -q '</scheduler_reply>' "$3" ||
        { echo bad-not-a-reply; return; }
    grep -q '<request_delay>[0-9]' "$3" || { echo bad-no-request-delay; return; }
    echo retry-delay
}
make_probe_body() {
    local auth
    auth=$(head -n 1 "$out_dir/auth")
    sed "s|<authenticator>[^<]*</authenticator>|<authenticator>$auth</authenticator>|" \
        "$src_top/test/recorded/07-no-new-tasks-report-only.xml" >"$out_dir/probe-body.xml"
}

# The MariaDB fault runs beside the others, driven by the run's loop (a
# killed mariadbd can take many seconds to exit on a loaded machine, and
# "tools/sandbox start" as long to bring it back; the scheduler is killed
# meanwhile, the daemons are not).  DB_STATE says where it is:
#   0 not yet; 1 killed, waiting for the process to exit; 2 "tools/sandbox
#   start" running (restart_pid); 3 back (or no mariadbd was found).
DB_STATE=0
# db_daemon_pids: "name=pid ..." of the daemons that must live through
# MariaDB's restart ("none" for one not running).
db_daemon_pids() {
    local name out=""
    for name in work_generator transitioner locality_daemon assimilator file_deleter; do
        out="$out $name=$(daemon_pid "$name" || echo none)"
    done
    echo "${out# }"
}
# db_kill: SIGKILL mariadbd, noting Apache's and the daemons' pids, which
# must be the same once it is back.
db_kill() {
    DB_OLD_PID=$(mariadb_pid) || { log_fault mariadb_missing - "no mariadbd to kill"; DB_STATE=3; return 0; }
    DB_APACHE_BEFORE=$(apache_pid)
    DB_DAEMONS_BEFORE=$(db_daemon_pids)
    make_probe_body
    kill -KILL "$DB_OLD_PID"
    DB_T_KILL=$EPOCHREALTIME
    log_fault mariadb "$DB_OLD_PID" "SIGKILL"
    DB_STATE=1
}
# db_step: one step of the outage, called at every round of the loop:
# once mariadbd has exited, start "tools/sandbox start" (which must
# restart only what is down); probe the scheduler every 0.3 s while it
# runs; when it is done, log mariadb_up with the time MariaDB was down and
# check that Apache and the daemons lived through it.
db_step() {
    local rc=0 newp newap after down
    case $DB_STATE in
        1)
            alive "$DB_OLD_PID" && return 0
            probe
            "$SANDBOX" --dir "$SB" --build "$build" start </dev/null >"$out_dir/restart.log" 2>&1 &
            restart_pid=$!
            DB_STATE=2
            tick
            DB_NEXT_PROBE_MS=$((NOW_MS + 300))
            ;;
        2)
            if alive "$restart_pid"; then
                tick
                if [ "$NOW_MS" -ge "$DB_NEXT_PROBE_MS" ]; then
                    probe
                    DB_NEXT_PROBE_MS=$((NOW_MS + 300))
                fi
                return 0
            fi
            wait "$restart_pid" || rc=$?
            restart_pid=""
            newp=$(mariadb_pid) || newp=none
            newap=$(apache_pid) || newap=none
            after=$(db_daemon_pids)
            probe
            down=$(awk -v a="$DB_T_KILL" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
            log_fault mariadb_up "$newp" "restart_status=$rc down_s=$down apache_before=$DB_APACHE_BEFORE" \
                "apache_after=$newap daemons_before=[$DB_DAEMONS_BEFORE] daemons_after=[$after]"
            DB_STATE=3
            if [ "$DB_DAEMONS_BEFORE" != "$after" ]; then
                # a daemon died with the database: a finding; bring it back
                log_fault daemon_died_with_db - "before [$DB_DAEMONS_BEFORE] after [$after]"
                "$SANDBOX" --dir "$SB" --build "$build" daemons </dev/null >>"$out_dir/restart.log" 2>&1
            fi
            ;;
    esac
    return 0
}

# kill_daemon_busy NAME [WATCH_MS]: watch the daemon for WATCH_MS (default
# 2000) ms; when a sample finds it outside its sleep between passes, stop
# it (SIGSTOP) and look again: if it is still outside its sleep, it is
# inside a pass: SIGKILL it and start it again with "tools/sandbox
# daemons"; else let it go on (SIGCONT).  Returns 1 when it stayed idle
# (the caller tries again later, watching longer).  The samples are taken
# as fast as bash can read /proc/PID/syscall, with no fork and no pause:
# some passes last a few milliseconds (the locality daemon's), and on a
# loaded machine a forked command or a "sleep 0.01" takes longer than
# that.  The second look comes after the SIGSTOP was sent: a process
# that has stopped keeps the number of the system call it was in ("-1"
# when it was computing), so the pass cannot end between the two looks
# unless the process was still running on the other core.
# The sleep is nanosleep or clock_nanosleep, or restart_syscall when a
# signal (our SIGCONT) interrupted it.
kill_daemon_busy() {
    local name=$1 watch_ms=${2:-2000} pid sc sc2 newpid rc=0 cpu last until_us
    pid=$(daemon_pid "$name") || {
        log_fault daemon_missing - "$name is not running"
        "$SANDBOX" --dir "$SB" --build "$build" daemons </dev/null >>"$out_dir/restart.log" 2>&1
        return 1
    }
    until_us=$(( ${EPOCHREALTIME/./} + watch_ms * 1000 ))
    while [ "${EPOCHREALTIME/./}" -lt "$until_us" ]; do
        read -r sc _ <"/proc/$pid/syscall" 2>/dev/null || sc=gone
        case $sc in
            35|230|219|gone) continue ;;
        esac
        kill -STOP "$pid" 2>/dev/null || continue
        read -r sc2 _ <"/proc/$pid/syscall" 2>/dev/null || sc2=gone
        case $sc2 in
            35|230|219|gone)
                kill -CONT "$pid" 2>/dev/null
                continue ;;
        esac
        kill -KILL "$pid"
        cpu=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null)
        last=$(tail -n 1 "$PROJECT_DIR/log/$name.log" 2>/dev/null | cut -c1-120)
        log_fault "$name" "$pid" "in a pass: syscall=$(syscall_name "$sc")," \
            "$(syscall_name "$sc2") (after SIGSTOP) cpu_ticks=${cpu:-?} last_log=[$last]"
        while alive "$pid"; do sleep 0.02; done
        "$SANDBOX" --dir "$SB" --build "$build" daemons </dev/null \
            >>"$out_dir/restart.log" 2>&1 || rc=$?
        newpid=$(daemon_pid "$name") || newpid=none
        log_fault "${name}_up" "$newpid" "restart_status=$rc"
        return 0
    done
    return 1
}
