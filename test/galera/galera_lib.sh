# galera_lib.sh - shell functions for a MariaDB Galera cluster of up to 3
# nodes on loopback, each with its own folder, ports and unix socket.
# Sourced by test/galera/cluster (which also starts the front-ends), by the
# benchmark and by test/sh/galera.sh.  Nothing here touches a system
# service; every server is found again through its pid file and checked by
# its command line before it is signalled.
#
# The caller sets GL_DIR (the cluster folder) and calls gl_paths; node N
# lives in $GL_DIR/nodeN (my.cnf, data/, error.log, mysqld.pid) and its
# socket in $GL_SOCK_DIR/nodeN.sock.  The ports and the cluster name are in
# $GL_DIR/cluster.env, written once by gl_init_state.
# shellcheck shell=bash

GL_PROVIDER=${GL_PROVIDER:-/usr/lib/galera/libgalera_smm.so}
GL_MAX_NODES=3

gl_die() { echo "${prog:-galera}: error: $*" >&2; exit 1; }
gl_note() { echo "${prog:-galera}: $*"; }
gl_is_root() { [ "$(id -u)" -eq 0 ]; }
gl_admin_user() { if gl_is_root; then echo root; else id -un; fi; }
# The nodes run as 'mysql' when we are root: the joiner's rsync daemon
# (rsync SST), started by mariadbd, would otherwise drop to 'nobody', which
# cannot write the data folder.  Otherwise they run as the caller.
gl_run_user() { if gl_is_root; then echo mysql; else id -un; fi; }

gl_paths() {
    [ -n "${GL_DIR:-}" ] || gl_die "GL_DIR is not set"
    GL_STATE=$GL_DIR/cluster.env
}

# ---------------------------------------------------------------- state
# gl_load_state: read cluster.env (ports per node, name, password, sockets).
gl_load_state() {
    [ -f "$GL_STATE" ] || return 1
    local k v
    while IFS='=' read -r k v; do
        case $k in
            GL_CLUSTER_NAME|GL_DB_PASSWORD|GL_SOCK_DIR|GL_PORT_*)
                v=${v#\'}; v=${v%\'}
                printf -v "$k" '%s' "$v" ;;
        esac
    done <"$GL_STATE"
    [ -n "${GL_SOCK_DIR:-}" ]
}

# gl_port_used PORT: any TCP socket bound to PORT (v4 or v6, any state).
gl_port_used() {
    local hex
    hex=$(printf '%04X' "$1")
    awk -v h=":$hex" 'NR > 1 { if (substr($2, length($2) - 4) == h) found = 1 } END { exit !found }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
gl_port_listening() {
    local hex
    hex=$(printf '%04X' "$1")
    awk -v h=":$hex" 'NR > 1 && $4 == "0A" { if (substr($2, length($2) - 4) == h) found = 1 } END { exit !found }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# gl_init_state: make cluster.env when missing: 4 free ports per node
# (SQL, group communication, IST, SST), a cluster name unique to this
# folder, the locsched account's password and a short socket folder.
gl_init_state() {
    mkdir -p "$GL_DIR"
    gl_load_state && return 0
    local taken=" " n kind p i
    {
        echo "# Galera test cluster in this folder (written by test/galera)"
        echo "GL_CLUSTER_NAME='locsched-$(od -An -tx1 -N4 /dev/urandom | tr -d ' \n')'"
        echo "GL_DB_PASSWORD='$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')'"
        if [ $((${#GL_DIR} + 20)) -le 100 ]; then
            echo "GL_SOCK_DIR='$GL_DIR/sock'"
        else
            echo "GL_SOCK_DIR='$(mktemp -d "${TMPDIR:-/tmp}/locsched-gl.XXXXXX")'"
        fi
        for ((n = 1; n <= GL_MAX_NODES; n++)); do
            for kind in SQL GCOMM IST SST; do
                for ((i = 0; i < 500; i++)); do
                    p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
                    case $taken in *" $p "*) continue ;; esac
                    gl_port_used "$p" || break
                done
                [ "$i" -lt 500 ] || gl_die "found no free TCP port in 20000-31999"
                taken="$taken$p "
                echo "GL_PORT_${kind}_$n='$p'"
            done
        done
    } >"$GL_STATE.tmp"
    chmod 600 "$GL_STATE.tmp"
    mv -f "$GL_STATE.tmp" "$GL_STATE"
    gl_load_state || gl_die "could not read $GL_STATE"
}

# gl_port KIND N: the port of a kind (SQL GCOMM IST SST) of node N.
gl_port() { local v="GL_PORT_$1_$2"; echo "${!v}"; }
gl_sock() { echo "$GL_SOCK_DIR/node$1.sock"; }
gl_node_dir() { echo "$GL_DIR/node$1"; }

# ---------------------------------------------------------------- processes
gl_proc_args() { { tr '\0' ' ' <"/proc/$1/cmdline"; } 2>/dev/null; }
gl_proc_alive() {
    local st
    st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    st=${st##*) }
    [ "${st:0:1}" != Z ]
}
# gl_node_pid N: the pid of node N's mariadbd, when it runs (pid file and
# command line both point at this node's my.cnf).
gl_node_pid() {
    local f pid
    f=$(gl_node_dir "$1")/mysqld.pid
    [ -f "$f" ] || return 1
    pid=$(tr -dc '0-9' <"$f")
    [ -n "$pid" ] && gl_proc_alive "$pid" || return 1
    case " $(gl_proc_args "$pid") " in *" --defaults-file=$(gl_node_dir "$1")/my.cnf "*) ;; *) return 1 ;; esac
    echo "$pid"
}

# gl_sql N [client args]: SQL from stdin as the server's administrator
# (unix_socket authentication), tab-separated, no column names.
gl_sql() {
    local n=$1
    shift
    mariadb --no-defaults --socket="$(gl_sock "$n")" -u "$(gl_admin_user)" --batch \
        --skip-column-names --connect-timeout=5 "$@"
}
# gl_status N VAR: a global status variable of node N.
gl_status() {
    echo "SHOW GLOBAL STATUS LIKE '$2';" | gl_sql "$1" 2>/dev/null | cut -f2
}

# ---------------------------------------------------------------- nodes
# The node settings shipped for administrators; the test cluster runs
# them, with only the addresses, ports, names and sizes changed below, so
# that the example cannot drift from what is tested.
GL_EXAMPLE_CNF=${GL_EXAMPLE_CNF:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../doc/examples" && pwd)/galera-node.cnf}

# gl_write_conf N NODES: node N's my.cnf for a cluster of NODES nodes: the
# test's own [mysqld] lines (folders, socket, port, loopback), then the
# example's [galera] section with this node's values.
gl_write_conf() {
    local n=$1 nodes=$2 d addr="" i key
    d=$(gl_node_dir "$n")
    [ -s "$GL_EXAMPLE_CNF" ] || gl_die "the example node settings $GL_EXAMPLE_CNF are missing"
    for ((i = 1; i <= nodes; i++)); do
        addr="$addr${addr:+,}127.0.0.1:$(gl_port GCOMM "$i")"
    done
    {
        cat <<EOF
# my.cnf of Galera node $n of the test cluster in $GL_DIR
# (written by test/galera at every start: edits are lost)
[mysqld]
datadir=$d/data
socket=$(gl_sock "$n")
port=$(gl_port SQL "$n")
bind-address=127.0.0.1
pid-file=$d/mysqld.pid
log-error=$d/error.log
skip-name-resolve
user=$(gl_run_user)
innodb_buffer_pool_size=128M

# doc/examples/galera-node.cnf, with this node's values:
EOF
        sed -e '/^#/d' -e '/^$/d' -e '/^bind-address *=/d' \
            -e "s|^wsrep_provider *=.*|wsrep_provider = $GL_PROVIDER|" \
            -e "s|^wsrep_cluster_address *=.*|wsrep_cluster_address = gcomm://$addr|" \
            -e "s|^wsrep_cluster_name *=.*|wsrep_cluster_name = $GL_CLUSTER_NAME|" \
            -e "s|^wsrep_node_name *=.*|wsrep_node_name = node$n|" \
            -e "s|^wsrep_node_address *=.*|wsrep_node_address = 127.0.0.1:$(gl_port GCOMM "$n")|" \
            -e "s|^wsrep_slave_threads *=.*|wsrep_slave_threads = 2|" \
            -e "s|^wsrep_provider_options *=.*|wsrep_provider_options = \"gmcast.listen_addr=tcp://127.0.0.1:$(gl_port GCOMM "$n");ist.recv_addr=127.0.0.1:$(gl_port IST "$n");gcache.size=64M\"|" \
            "$GL_EXAMPLE_CNF"
        echo "wsrep_sst_receive_address = 127.0.0.1:$(gl_port SST "$n")"
    } >"$d/my.cnf.new"
    # every setting the test depends on came through, once
    for key in wsrep_on wsrep_provider wsrep_cluster_address wsrep_cluster_name wsrep_node_name \
               wsrep_node_address wsrep_provider_options wsrep_sst_method binlog_format \
               default_storage_engine innodb_autoinc_lock_mode; do
        [ "$(grep -c "^$key *=" "$d/my.cnf.new")" = 1 ] ||
            gl_die "$GL_EXAMPLE_CNF: expected one '$key = ...' line"
    done
    mv -f "$d/my.cnf.new" "$d/my.cnf"
}

# gl_wait_synced N SECONDS [PID]: until node N is a Synced member of the
# primary component; fails (with the end of its log) when it (or the
# process PID just launched for it) dies, or at the time limit.
gl_wait_synced() {
    local n=$1 limit=$2 launched=${3:-} i state="" ready
    for ((i = 0; i < limit * 4; i++)); do
        if [ -S "$(gl_sock "$n")" ]; then
            state=$(gl_status "$n" wsrep_local_state_comment)
            ready=$(gl_status "$n" wsrep_ready)
            [ "$state" = Synced ] && [ "$ready" = ON ] && return 0
        fi
        if { [ -n "$launched" ] && ! gl_proc_alive "$launched"; } ||
           { [ -z "$launched" ] && [ "$i" -gt 20 ] && ! gl_node_pid "$n" >/dev/null; }; then
            tail -n 30 "$(gl_node_dir "$n")/error.log" | sed 's/^/    /' >&2
            gl_die "node $n (mariadbd) exited during start-up (log: $(gl_node_dir "$n")/error.log)"
        fi
        sleep 0.25
    done
    tail -n 30 "$(gl_node_dir "$n")/error.log" | sed 's/^/    /' >&2
    gl_die "node $n was not Synced within ${limit}s (state '${state:-}')"
}

# gl_start_node N NODES BOOTSTRAP: start node N (idempotent).  BOOTSTRAP=1
# makes a new cluster (--wsrep-new-cluster); else the node joins and gets
# the data by state transfer (rsync SST the first time, IST later).
gl_start_node() {
    local n=$1 nodes=$2 boot=$3 d pid
    d=$(gl_node_dir "$n")
    if gl_is_root; then
        id mysql >/dev/null 2>&1 || gl_die "as root the nodes run as the account mysql, which does not exist (Debian package mariadb-server makes it)"
    fi
    mkdir -p "$d/data" "$GL_SOCK_DIR"
    chmod 755 "$d" "$GL_SOCK_DIR"
    chown "$(gl_run_user)" "$d" "$d/data" "$GL_SOCK_DIR"
    if pid=$(gl_node_pid "$n"); then
        gl_note "node $n already running (pid $pid)"
        return 0
    fi
    for p in SQL GCOMM IST SST; do
        ! gl_port_listening "$(gl_port "$p" "$n")" ||
            gl_die "port $(gl_port "$p" "$n") ($p of node $n, see $GL_STATE) is taken by another program"
    done
    gl_write_conf "$n" "$nodes"
    local args=(--defaults-file="$d/my.cnf")
    if [ "$boot" = 1 ]; then
        if [ ! -d "$d/data/mysql" ]; then
            gl_note "node $n: initialising its data"
            local ia=(--defaults-file="$d/my.cnf" --skip-test-db --auth-root-authentication-method=socket
                      --auth-root-socket-user="$(gl_admin_user)")
            gl_is_root && ia+=(--user=mysql)
            mariadb-install-db "${ia[@]}" >"$d/install.log" 2>&1 </dev/null ||
                { tail -n 20 "$d/install.log" >&2; gl_die "mariadb-install-db failed for node $n"; }
        fi
        # a cleanly stopped cluster: its last node may bootstrap; a crashed
        # test cluster has no other copy worth waiting for, so this node
        # bootstraps anyway
        [ ! -f "$d/data/grastate.dat" ] ||
            sed -i 's/^safe_to_bootstrap: 0/safe_to_bootstrap: 1/' "$d/data/grastate.dat"
        args+=(--wsrep-new-cluster)
        gl_note "node $n: bootstrapping cluster $GL_CLUSTER_NAME on 127.0.0.1:$(gl_port SQL "$n")"
    else
        gl_note "node $n: joining on 127.0.0.1:$(gl_port SQL "$n")"
    fi
    rm -f "$d/mysqld.pid"
    setsid mariadbd "${args[@]}" </dev/null >>"$d/mariadbd.out" 2>&1 9>&- &
    gl_wait_synced "$n" 180 $!
    gl_note "node $n: Synced (pid $(gl_node_pid "$n"))"
}

# gl_stop_node N: SIGTERM node N by its pid, wait up to 60 s, then SIGKILL.
gl_stop_node() {
    local n=$1 pid i
    pid=$(gl_node_pid "$n") || return 0
    gl_note "stopping node $n (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 600; i++)); do
        gl_proc_alive "$pid" || return 0
        sleep 0.1
    done
    echo "${prog:-galera}: warning: node $n did not stop within 60 s: SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        gl_proc_alive "$pid" || return 0
        sleep 0.1
    done
    gl_die "node $n (pid $pid) is still there after SIGKILL"
}

# gl_counters NODES: one line "name value" per counter, summed over nodes
# 1..NODES: Galera conflicts (certification failures, brute-force aborts),
# InnoDB deadlocks, rollbacks and commits (every retried transaction of
# locsched ends in a ROLLBACK), statements.
GL_COUNTERS="wsrep_local_cert_failures wsrep_local_bf_aborts wsrep_local_replays Innodb_deadlocks Com_rollback Com_commit Com_stmt_execute wsrep_replicated wsrep_received"
gl_counters() {
    local nodes=$1 n
    for ((n = 1; n <= nodes; n++)); do
        echo "SHOW GLOBAL STATUS WHERE Variable_name IN ('${GL_COUNTERS// /\',\'}');" | gl_sql "$n"
    done | awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | sort
}
