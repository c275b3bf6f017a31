#!/usr/bin/env bash
# project_setup.sh - test of the set-up scripts tools/make_project and
# tools/db_upgrade, as an administrator runs them:
#   - make_project run again keeps the group and mode of existing files and
#     folders without --web-group (an upgrade must not lock the web server
#     out of locsched.conf or the upload key), sets them with --web-group,
#     and says which;
#   - a project made without --db-socket or --db-host: db_upgrade and the
#     scheduler both use the client library's default socket (pointed at
#     the sandbox's server with MYSQL_UNIX_PORT), and db_upgrade's error
#     names that default when nothing answers there;
#   - db_upgrade --status lists as pending an upgrade numbered below the
#     highest applied one that was never applied;
#   - --web-group with a group the running account is not a member of
#     (the guide's "sudo -u locsched make_project ... --web-group
#     www-data"): stops before it makes anything, saying to run "adduser
#     ACCOUNT GROUP"; once a member, the same command works.
#
# Needs the sandbox environment (doc/hacking.md; run_suite exports it):
#   DB_SOCKET, DB_NAME, DB_USER, DB_PASSWORD   the sandbox's database
# and top_builddir (the scheduler is taken from there).  Works as root or
# as an ordinary user.  Prints TAP; exit status 1 if any check failed.
set -u

for v in DB_SOCKET DB_NAME DB_USER DB_PASSWORD; do
    if [ -z "${!v:-}" ]; then
        echo "Bail out! $v must be set (eval \"\$(tools/sandbox env)\")"
        exit 1
    fi
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src_top=${top_srcdir:-$(dirname "$(dirname "$here")")}
build=${top_builddir:-${LOCSCHED_BUILD_DIR:-$src_top}}
MP=$src_top/tools/make_project
UP=$src_top/tools/db_upgrade
SCHED=$build/sched/scheduler/scheduler
for p in "$MP" "$UP" "$SCHED"; do
    [ -x "$p" ] || { echo "Bail out! $p is missing or not built"; exit 1; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/project_setup.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/nobin"    # --bin-dir: no programs to copy into cgi-bin/

. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"
# after a failed check: the last command's output
tap_on_failure() {
    if [ -s "$T/out" ]; then
        echo "#   last output:"
        sed 's/^/#   | /' "$T/out"
    fi
}
# access PATH: "GROUP MODE" of PATH.
access() { stat -c '%G %a' "$1"; }
has_access() {  # has_access PATH WANT
    local got
    got=$(access "$1")
    [ "$got" = "$2" ] || { echo "#   $1: got '$got', want '$2'"; return 1; }
}
said() { grep -qF -- "$1" "$T/out" || { echo "#   output lacks: $1"; return 1; }; }
not_said() { ! grep -qF -- "$1" "$T/out" || { echo "#   output has: $1"; return 1; }; }
eq_rc() { [ "$1" = "$2" ] || { echo "#   exit status $1, want $2"; return 1; }; }
mp() { "$MP" "$@" --no-code-sign-key --bin-dir "$T/nobin" >"$T/out" 2>&1; }

# A group other than our own that chgrp may give: as root any, otherwise
# one we belong to (else our own: the modes are still checked).
own=$(id -gn)
group=""
if [ "$(id -u)" = 0 ]; then
    for g in www-data nogroup daemon; do
        if [ "$g" != "$own" ] && getent group "$g" >/dev/null 2>&1; then group=$g; break; fi
    done
else
    for g in $(id -Gn); do
        if [ "$g" != "$own" ]; then group=$g; break; fi
    done
fi
[ -n "$group" ] || group=$own
echo "# web group for the test: $group (own group $own)"

# ---- make_project: modes of a new project, then runs again
P=$T/p
check "make_project makes a new project" mp "$P"
check "new locsched.conf is the owner's only" has_access "$P/locsched.conf" "$own 600"
check "new locsched.conf: outputs validated byte for byte (validator = identical)" \
    grep -qx 'validator = identical' "$P/locsched.conf"
check "new upload_hmac_key is the owner's only" has_access "$P/keys/upload_hmac_key" "$own 600"
check "new keys/ is the owner's only" has_access "$P/keys" "$own 700"

check "run again with --web-group" mp "$P" --web-group "$group"
check "--web-group: locsched.conf readable by the group" has_access "$P/locsched.conf" "$group 640"
check "--web-group: upload_hmac_key readable by the group" has_access "$P/keys/upload_hmac_key" "$group 640"
check "--web-group: keys/ open to the group" has_access "$P/keys" "$group 750"
check "--web-group: upload/ writable by the group" has_access "$P/upload" "$group 2775"
check "--web-group: log/ writable by the group" has_access "$P/log" "$group 2775"
if [ "$group" != "$own" ]; then
    check "--web-group: says what it set on locsched.conf" \
        said "set group $group, mode 640 on existing $P/locsched.conf (was group $own, mode 600)"
fi

check "run again without --web-group" mp "$P"
check "locsched.conf keeps group and mode" has_access "$P/locsched.conf" "$group 640"
check "upload_hmac_key keeps group and mode" has_access "$P/keys/upload_hmac_key" "$group 640"
check "keys/ keeps group and mode" has_access "$P/keys" "$group 750"
check "upload/ keeps group and mode" has_access "$P/upload" "$group 2775"
check "says it kept locsched.conf's" said "kept group $group, mode 640 of existing $P/locsched.conf"
check "says it kept upload_hmac_key's" said "kept group $group, mode 640 of existing $P/keys/upload_hmac_key"

# a mode set by hand is neither tightened nor loosened
chmod 644 "$P/locsched.conf"
chmod 711 "$P/keys"
check "run again after modes changed by hand" mp "$P"
check "hand-set mode of locsched.conf kept" has_access "$P/locsched.conf" "$group 644"
check "hand-set mode of keys/ kept" has_access "$P/keys" "$group 711"

# a file it makes again gets the new-file mode, the others keep theirs
rm "$P/keys/upload_hmac_key"
check "run again with the upload key removed" mp "$P"
check "remade upload_hmac_key is the owner's only" has_access "$P/keys/upload_hmac_key" "$own 600"
check "locsched.conf still keeps its mode" has_access "$P/locsched.conf" "$group 644"

# ---- no --db-socket, no --db-host: everyone uses the library's default
D=$T/d
mp_nosocket() { LOCSCHED_DB_PASSWORD=$DB_PASSWORD mp "$D" --db-name "$DB_NAME" --db-user "$DB_USER"; }
check "make_project without --db-socket or --db-host" mp_nosocket
no_server() { ! grep -Eq '^[[:space:]]*db_(socket|host)[[:space:]]*=' "$D/locsched.conf"; }
check "its locsched.conf names no server" no_server

MYSQL_UNIX_PORT=$DB_SOCKET "$UP" --config "$D/locsched.conf" --status >"$T/out" 2>&1
check "db_upgrade --status uses the default socket (MYSQL_UNIX_PORT)" eq_rc $? 0
check "db_upgrade says it used the default socket" said "on the client library's default socket"
check "db_upgrade finds the sandbox's schema" said "001-initial.sql"
MYSQL_UNIX_PORT=$DB_SOCKET "$SCHED" --check-config --config "$D/locsched.conf" >"$T/out" 2>&1
check "the scheduler reaches the same database" said "database: reachable"

# an upgrade numbered below the highest applied one and not recorded (parts
# built in parallel land out of order, as 015 after 017) is pending
mkdir -p "$T/schema/upgrade"
cp "$src_top"/schema/upgrade/*.sql "$T/schema/upgrade/"
echo "SELECT 1;" >"$T/schema/upgrade/011-gap-test.sql"
MYSQL_UNIX_PORT=$DB_SOCKET "$UP" --config "$D/locsched.conf" --schema-dir "$T/schema" --status \
    >"$T/out" 2>&1
check "db_upgrade --status: an unrecorded upgrade below the highest applied is pending" \
    said "011-gap-test.sql"

# nothing at the default socket: an error naming it, not "no server given"
MYSQL_UNIX_PORT=$T/no-such.sock "$UP" --config "$D/locsched.conf" --status >"$T/out" 2>&1
check "db_upgrade fails when nothing answers at the default socket" eq_rc $? 1
check "its error names the default socket" \
    said "cannot connect to database '$DB_NAME' on the client library's default socket"
check "its error is not \"no server given\"" not_said "no server given"

# ---- --web-group as an account that is not a member of the group
# As root: run as nobody (no supplementary groups), then as nobody in the
# group, as sudo does after "adduser nobody GROUP".  Otherwise: a group
# this account is not in.
W=$T/w
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
   getent group www-data >/dev/null 2>&1 && getent passwd nobody >/dev/null 2>&1; then
    chmod 711 "$T" "$T/nobin"
    mkdir "$W" && chown nobody "$W"
    as_nobody() {  # as_nobody [EXTRA_GROUP] -- ARGS...
        local groups=--clear-groups
        [ -z "$1" ] || groups=--groups=$1
        shift
        setpriv --reuid=nobody --regid="$(id -g nobody)" "$groups" \
            "$MP" "$@" --no-code-sign-key --bin-dir "$T/nobin" >"$T/out" 2>&1
    }
    as_nobody "" "$W/p" --web-group www-data
    check "not a member of www-data: make_project fails" eq_rc $? 1
    check "it says to run adduser, naming the account and group" said "adduser nobody www-data"
    check "it made nothing" test ! -e "$W/p"
    as_nobody "$(getent group www-data | cut -d: -f3)" "$W/p" --web-group www-data
    check "a member of www-data: the same command works" eq_rc $? 0
    check "locsched.conf got the group www-data" has_access "$W/p/locsched.conf" "www-data 640"
    check "upload/ got the group www-data" has_access "$W/p/upload" "www-data 2775"
else
    other=""
    for g in root daemon nogroup adm; do
        if getent group "$g" >/dev/null 2>&1 && ! id -Gn | tr ' ' '\n' | grep -qxF "$g"; then
            other=$g; break
        fi
    done
    [ -n "$other" ] || bail "no group found that this account is not a member of"
    mp "$W/p" --web-group "$other"
    check "not a member of $other: make_project fails" eq_rc $? 1
    check "it says to run adduser, naming the account and group" said "adduser $(id -un) $other"
    check "it made nothing" test ! -e "$W/p"
fi

echo "1..$n"
[ "$failed" = 0 ]
