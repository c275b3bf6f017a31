#!/usr/bin/env bash
# run_suite: once (a whole system; the plain build's suite runs it, see test/run_suite)
# galera.sh - scale-out test (doc/scale-out.md): a 3-node MariaDB Galera
# cluster and 2 scheduler front-ends on loopback (test/galera/cluster),
# front-end 1 on node 1 and front-end 2 on node 2, the daemons on node 3
# (transitioner; two work generators sharing the cursors with --mod 2).
# Two replay processes (16 hosts each, same 8 accounts) load both
# front-ends at once for 20 s, against a plain batch and a locality batch,
# both with 2 replicas per job.  Then it checks that:
#   - no transport, HTTP, parse or double-send error happened;
#   - no result name reached two hosts, over both replays;
#   - every job a host received is claimed in the database by that very
#     host (and every claim of these hosts reached its host);
#   - tools/check_invariants finds nothing on any of the 3 nodes (no
#     double send, no two replicas to one user, no lost job, cursor
#     counters right);
#   - the 3 nodes hold the same data (CHECKSUM TABLE);
#   - certification conflicts did happen (else the test proved nothing).
# It prints the conflicts, rollbacks (= retried or abandoned transactions)
# and "try later" replies per 1,000 requests.
#
# Runs on its own cluster in $top_builddir/test/galera-check (not the
# suite's sandbox), stopped at the end, also on failure.  About 90 s.
# Prints TAP; exit status 1 if any check failed.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=${srcdir:-$(dirname "$here")}
build=${top_builddir:-${LOCSCHED_BUILD_DIR:-$(dirname "$srcdir")}}
build=$(cd "$build" && pwd)
CLUSTER=$srcdir/galera/cluster
REPLAY=$build/tools/loadtest/replay
TOOLS=$build/tools
for p in "$REPLAY" "$TOOLS/create_account" "$TOOLS/add_app_version" "$TOOLS/create_batch" \
         "$TOOLS/check_invariants" "$build/daemons/transitioner" "$build/daemons/work_generator"; do
    [ -x "$p" ] || { echo "Bail out! $p is not built"; exit 1; }
done
[ -x "$CLUSTER" ] || { echo "Bail out! $CLUSTER is missing"; exit 1; }
command -v mariadb >/dev/null 2>&1 || { echo "Bail out! the mariadb client is not installed"; exit 1; }
[ -f /usr/lib/galera/libgalera_smm.so ] || { echo "Bail out! galera-4 is not installed (tools/install_deps)"; exit 1; }

GDIR=$build/test/galera-check
T=$GDIR/run
HOSTS=16          # per front-end
CONC=4            # requests in flight per front-end
SECS=20

. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"
jget() { grep -o "\"$2\":[-0-9.e+]*" "$1" | head -n 1 | cut -d: -f2; }

daemon_pids=()
stop_daemons() {
    local p
    for p in "${daemon_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${daemon_pids[@]}"; do wait "$p" 2>/dev/null || true; done
    daemon_pids=()
}
cleanup() {
    stop_daemons
    "$CLUSTER" --dir "$GDIR" stop >"$GDIR/stop.log" 2>&1 ||
        { echo "# cluster stop failed:"; sed 's/^/#   /' "$GDIR/stop.log"; }
}

# ---- a fresh cluster
if [ -d "$GDIR" ]; then
    "$CLUSTER" --dir "$GDIR" stop >/dev/null 2>&1
    old_sock=$(sed -n "s/^GL_SOCK_DIR='\(.*\)'$/\1/p" "$GDIR/cluster.env" 2>/dev/null)
    case $old_sock in */locsched-gl.*) rm -rf "$old_sock" ;; esac
    rm -rf "$GDIR"
fi
mkdir -p "$T"
trap cleanup EXIT
t0=$(date +%s)
if ! "$CLUSTER" --dir "$GDIR" --build "$build" --nodes 3 --frontends 2 start >"$GDIR/start.log" 2>&1; then
    tail -n 60 "$GDIR/start.log" | sed 's/^/#   /'
    bail "the cluster did not start (log: $GDIR/start.log)"
fi
echo "# cluster of 3 nodes and 2 front-ends up in $(($(date +%s) - t0)) s"
eval "$("$CLUSTER" --dir "$GDIR" env)"
# shellcheck source=../galera/galera_lib.sh
. "$srcdir/galera/galera_lib.sh"
export GL_DIR=$GDIR
gl_paths
gl_load_state || bail "no cluster state in $GDIR"
sizes=$(for i in 1 2 3; do gl_status "$i" wsrep_cluster_size; done | tr '\n' ' ')
check "3 nodes, each sees a cluster of 3" eq "$sizes" "3 3 3 "
fe_socks=$(for i in 1 2; do "${top_srcdir:-$srcdir/..}/tools/sandbox" --dir "$GDIR/fe$i" env | sed -n 's/^DB_SOCKET=//p'; done | tr -d "'" | tr '\n' ' ')
check "front-end 1 uses node 1, front-end 2 node 2" eq "$fe_socks" "$GL_SOCK_1 $GL_SOCK_2 "

# sql N QUERY: as locsched on node N
sql() {
    MYSQL_PWD=$DB_PASSWORD mariadb --no-defaults --socket="$(gl_sock "$1")" -u "$DB_USER" --batch \
        --skip-column-names "$DB_NAME" -e "$2"
}

# ---- set-up through node 1: accounts, app, a plain and a locality batch
PFX=gl$$
for i in 1 2 3 4 5 6 7 8; do
    "$TOOLS/create_account" --config "$LOCSCHED_CONFIG" --name "$PFX$i" \
        --email "$PFX.$i@galera.test" 2>>"$T/setup.log" >>"$T/auth"
done
printf '#!/bin/sh\necho galera\n' >"$T/${PFX}app.sh"
"$TOOLS/add_app_version" --config "$LOCSCHED_CONFIG" --app "${PFX}app" --version 1 \
    --file "$T/${PFX}app.sh" --key "$PROJECT_DIR/keys/code_sign_private.pem" >>"$T/setup.log" 2>&1
"$TOOLS/create_batch" --config "$LOCSCHED_CONFIG" --name "${PFX}plain" --app "${PFX}app" \
    --generate-files 10:1024 --uniform 6000:1:0 --fpops 1e13 --replication 2 --min-quorum 2 \
    >>"$T/setup.log" 2>&1
awk 'BEGIN { for (j = 0; j < 3000; j++) print int(j / 50), 1 }' >"$T/jobs"
"$TOOLS/create_batch" --config "$LOCSCHED_CONFIG" --name "${PFX}loc" --app "${PFX}app" --locality \
    --cursors 4 --generate-files 60:1024 --jobs "$T/jobs" --fpops 1e13 --replication 2 \
    --min-quorum 2 >>"$T/setup.log" 2>&1
check "set-up: 8 accounts, an app version, a plain batch of 6000 jobs and a locality batch" \
    eq "$(wc -l <"$T/auth" | tr -d ' '):$(sql 1 "SELECT COUNT(*) FROM result r JOIN batch b ON b.id = r.batch WHERE b.name = '${PFX}plain'"):$(sql 1 "SELECT COUNT(*) FROM locality_cursor c JOIN batch b ON b.id = c.batch_id WHERE b.name = '${PFX}loc'")" \
       "8:12000:4"
[ "$failed" = 0 ] || { sed 's/^/#   /' "$T/setup.log"; bail "set-up failed"; }

# ---- the daemons on node 3 (and one work generator on node 1)
conf_on() {  # conf_on N FILE: front-end 1's configuration, on node N
    sed -e "s|^db_socket *=.*|db_socket = $(gl_sock "$1")|" \
        -e "s|^log_dir *=.*|log_dir = $T|" -e '/^work_cushion/d' "$LOCSCHED_CONFIG" >"$2"
    echo "work_cushion = 200" >>"$2"
}
conf_on 3 "$T/node3.conf"
conf_on 1 "$T/node1.conf"
"$build/daemons/work_generator" --config "$T/node3.conf" --one-pass >>"$T/setup.log" 2>&1 ||
    bail "work_generator --one-pass failed (log: $T/setup.log)"
"$build/daemons/transitioner" --config "$T/node3.conf" --sleep 1 --log &
daemon_pids+=($!)
"$build/daemons/work_generator" --config "$T/node3.conf" --mod 2 0 --sleep 1 --log &
daemon_pids+=($!)
"$build/daemons/work_generator" --config "$T/node1.conf" --mod 2 1 --sleep 1 --log &
daemon_pids+=($!)

# ---- the load: both front-ends at once
gl_counters 3 >"$T/counters.before"
replay_pids=()
for i in 1 2; do
    url=GL_SCHED_URL_$i
    "$REPLAY" --url "${!url}" --requests "$srcdir/recorded" --hosts "$HOSTS" --auth-file "$T/auth" \
        --concurrency "$CONC" --duration "$SECS" --run-seconds 1 --work-secs 40000 \
        --record "$T/record$i" --json >"$T/out$i" 2>&1 &
    replay_pids+=($!)
done
wait "${replay_pids[@]}"
gl_counters 3 >"$T/counters.after"
stop_daemons

total_req=0
for i in 1 2; do
    sed "s/^/#   fe$i: /" "$T/out$i" | grep -v '^#   fe.: {'
    last=$(tail -n 1 "$T/out$i")
    check "front-end $i: the replay printed its summary" \
        grep -Eq '^replay: [0-9.]+ req/s, [0-9.]+ jobs/s, p50 [0-9.]+ ms, p99 [0-9.]+ ms, [0-9]+ errors$' <<<"$last"
    check "front-end $i: jobs were sent" gt "$(jget "$T/out$i" jobs)" 0
    check "front-end $i: results were reported" gt "$(jget "$T/out$i" reported)" 0
    for k in transport http unparseable double_send; do
        check "front-end $i: no $k error" eq "$(jget "$T/out$i" "$k")" 0
    done
    total_req=$((total_req + $(jget "$T/out$i" requests)))
done

# ---- after the load: a transitioner pass, every node caught up
"$build/daemons/transitioner" --config "$T/node3.conf" --one-pass >>"$T/after.log" 2>&1 ||
    { sed 's/^/#   /' "$T/after.log"; check "transitioner pass after the load" false; }
for i in 1 2 3; do
    echo "SET SESSION wsrep_sync_wait = 1; SELECT 1;" | gl_sql "$i" >/dev/null 2>&1
done

# ---- the hosts' records against the database
cat "$T/record1" "$T/record2" | sort >"$T/seen"
check "no result received twice (both replays' records)" \
    eq "$(cut -d' ' -f1 "$T/seen" | uniq -d | wc -l | tr -d ' ')" 0
check "the records hold every job received" eq "$(wc -l <"$T/seen" | tr -d ' ')" \
    "$(( $(jget "$T/out1" jobs) + $(jget "$T/out2" jobs) ))"
sql 3 "SELECT r.name, r.hostid FROM result r JOIN host h ON h.id = r.hostid
       JOIN user u ON u.id = h.userid
       WHERE u.email_addr LIKE '$PFX.%' AND r.server_state IN (4, 5)" | tr '\t' ' ' | sort >"$T/db"
check "every job received is claimed in the database by that host, and no other" \
    cmp -s "$T/seen" "$T/db"
if ! cmp -s "$T/seen" "$T/db"; then
    diff "$T/seen" "$T/db" | head -n 20 | sed 's/^/#   /'
    # what the database holds of the first jobs received but not claimed
    # by their host: state, outcome, host, and whether that host exists
    echo "#   name server_state outcome hostid host's user (on node 3):"
    comm -23 "$T/seen" "$T/db" | head -n 10 | while read -r name _; do
        sql 3 "SELECT r.name, r.server_state, r.outcome, r.hostid, IFNULL(h.userid, 'no host')
               FROM result r LEFT JOIN host h ON h.id = r.hostid WHERE r.name = '$name'" |
            tr '\t' ' ' | sed 's/^/#   /'
    done
fi

# ---- the invariants, on every node
for i in 1 2 3; do
    conf_on "$i" "$T/check$i.conf"
    "$TOOLS/check_invariants" --config "$T/check$i.conf" >"$T/check$i.out" 2>&1
    rc=$?
    check "check_invariants on node $i: clean (no double send, no two replicas to one user, no lost job)" eq "$rc" 0
    [ "$rc" = 0 ] || sed 's/^/#   /' "$T/check$i.out"
done
sums=""
for i in 1 2 3; do
    sums="$sums$(echo "SET SESSION wsrep_sync_wait = 1; CHECKSUM TABLE $DB_NAME.result, $DB_NAME.workunit, $DB_NAME.host, $DB_NAME.locality_cursor, $DB_NAME.batch_host;" |
                 gl_sql "$i" | awk '{ printf "%s,", $2 }') "
done
read -r sum1 sum2 sum3 <<<"$sums"
check "the 3 nodes hold the same data (checksums of result, workunit, host, cursors, teams)" \
    eq "$sum1 $sum1" "$sum2 $sum3"

# ---- the front-ends' FastCGI programs did not crash
bad=$(cat "$GDIR"/fe[12]/apache/error.log 2>/dev/null |
      grep -E 'ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error: |unexpected signal (4|6|7|8|11)([^0-9]|$)' | head -n 5)
check "no crash or sanitizer report in the front-ends' Apache logs" eq "$bad" ""

# ---- conflicts and retries
ctr() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
delta() { echo $(( $(ctr "$T/counters.after" "$1") - $(ctr "$T/counters.before" "$1") )); }
cert=$(delta wsrep_local_cert_failures)
bf=$(delta wsrep_local_bf_aborts)
dl=$(delta Innodb_deadlocks)
rb=$(delta Com_rollback)
busy=0
for i in 1 2; do busy=$((busy + $(jget "$T/out$i" error_message))); done
per1k() { awk -v a="$1" -v b="$total_req" 'BEGIN { printf "%.1f", (b > 0 ? 1000 * a / b : 0) }'; }
echo "# $total_req requests over both front-ends in ${SECS} s"
echo "# certification failures $cert ($(per1k "$cert")/1000 req), brute-force aborts $bf ($(per1k "$bf")/1000)," \
     "InnoDB deadlocks $dl ($(per1k "$dl")/1000)"
echo "# rollbacks (retried or abandoned transactions, daemons included) $rb ($(per1k "$rb")/1000 req)"
# the schedulers' own count: "..., N retries" ending each handled request's
# line ("rpc_seqno S: R reported, J sent (0 resent), 0 lost, 0 aborts, N
# retries"), and
# "gave up after N tries" on each request answered "try later"
retries=$(cat "$GDIR"/fe[12]/apache/error.log 2>/dev/null |
          sed -n -e 's/.*, \([0-9]*\) retries$/\1/p' -e 's/.*gave up after \([0-9]*\) tries.*/\1 g/p' |
          awk '{ s += ($2 == "g" ? $1 - 1 : $1); g += ($2 == "g") } END { print s + 0, g + 0 }')
read -r nretry ngaveup <<<"$retries"
echo "# scheduler retries $nretry ($(per1k "$nretry")/1000 req), requests given up $ngaveup ($(per1k "$ngaveup")/1000 req)"
echo "# 'try later' replies $busy ($(per1k "$busy")/1000 req)"
check "certification conflicts happened (the load did exercise them)" gt "$((cert + bf))" 0
check "conflicts were retried: under 2% of the requests answered 'try later'" \
    gt "$total_req" "$((busy * 50))"

echo "1..$n"
[ "$failed" = 0 ]
