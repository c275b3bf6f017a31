#!/usr/bin/env bash
# sandbox_restart.sh - "tools/sandbox stop" then "start" at once, after
# traffic: the sockets the stopped servers leave in TIME_WAIT on their
# ports must not count as "taken by another program" (both servers bind
# with SO_REUSEADDR), and the restarted sandbox serves the scheduler again.
#
# Needs the sandbox environment (run_suite exports it): SANDBOX_DIR,
# HTTP_PORT, MASTER_URL, SCHED_URL; top_builddir for tools/sandbox --build.
# Prints TAP; exit status 1 if any check failed.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src_top=${top_srcdir:-$(dirname "$(dirname "$here")")}
build=${top_builddir:-${LOCSCHED_BUILD_DIR:-$src_top}}
SB=$src_top/tools/sandbox
. "$here/tap.bash"
need_sandbox_env SANDBOX_DIR HTTP_PORT MASTER_URL SCHED_URL

# sockets_in_state PORT STATE: how many TCP sockets on local port PORT are
# in STATE (hex, as in /proc/net/tcp: 06 TIME_WAIT, 0A LISTEN)
sockets_in_state() {
    local hex
    hex=$(printf '%04X' "$1")
    awk -v h=":$hex" -v st="$2" 'NR > 1 && $4 == st && substr($2, length($2) - 4) == h { n++ }
        END { print n + 0 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# 1. traffic: Apache closes each connection first, which leaves TIME_WAIT
# sockets on its own port
for i in $(seq 1 20); do
    curl -s -o /dev/null -H 'Connection: close' "$MASTER_URL" || true
done
check "traffic left sockets in TIME_WAIT on port $HTTP_PORT" gt "$(sockets_in_state "$HTTP_PORT" 06)" 0

# 2. stop, then start at once
out=$("$SB" --dir "$SANDBOX_DIR" stop 2>&1 </dev/null)
rc=$?
check "sandbox stop" eq "$rc" 0
tw=$(sockets_in_state "$HTTP_PORT" 06)
out=$("$SB" --dir "$SANDBOX_DIR" --build "$build" start 2>&1 </dev/null)
rc=$?
tap_on_failure() { echo "$out" | sed 's/^/#   /'; }
check "sandbox start right after stop ($tw sockets in TIME_WAIT)" eq "$rc" 0
check "no 'taken by another program'" eq "$(echo "$out" | grep -c 'taken by another program')" 0
unset -f tap_on_failure

# 3. it serves again
check "master page after the restart" eq "$(curl -s -o /dev/null -w '%{http_code}' "$MASTER_URL")" 200
check "scheduler answers after the restart" eq \
    "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data-binary '<scheduler_request></scheduler_request>' "$SCHED_URL")" 200

tap_done
