#!/bin/bash
# run_suite: once (builds the Debian package; the plain build's suite runs it)
# deb_package.sh - the Debian package, as an administrator installs it:
#   - dpkg-buildpackage -us -uc -b builds locsched_*.deb from a copy of the
#     source tree (the tracked files);
#   - the package is unpacked into a scratch root with dpkg -x (dpkg -i
#     would change this machine; the files are the same), and holds the
#     programs, man pages, schema, example config, systemd units and the
#     Apache snippet;
#   - the installed make_project makes a project against the sandbox's
#     MariaDB, and finds the installed programs next to itself;
#   - the installed db_upgrade finds the installed schema and brings a new
#     database to the newest version;
#   - the installed create_account makes an account, and the scheduler
#     make_project copied answers a recorded request (--once: one request
#     on standard input) with a host id and no error.
# Needs the sandbox (DB_SOCKET, DB_NAME, DB_USER, DB_PASSWORD of
# "tools/sandbox env"), git (to list the tracked files), dpkg-buildpackage
# and debhelper (tools/install_deps installs them).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"
need_sandbox_env DB_SOCKET DB_NAME DB_USER DB_PASSWORD
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src_top=${top_srcdir:-$(dirname "$(dirname "$here")")}
src_top=$(cd "$src_top" && pwd)
for p in git dpkg-buildpackage dh mariadb; do
    command -v "$p" >/dev/null 2>&1 || bail "$p is not installed (tools/install_deps installs it)"
done
git -C "$src_top" rev-parse --git-dir >/dev/null 2>&1 || bail "$src_top is not a git work tree"

T=$(mktemp -d "${TMPDIR:-/tmp}/deb_package.XXXXXX")
SCRATCH_DB=${DB_NAME}_debpkg
sql() { mariadb --socket="$DB_SOCKET" -u "$DB_USER" -p"$DB_PASSWORD" -N -B "$@"; }
cleanup() {
    sql -e "DROP DATABASE IF EXISTS \`$SCRATCH_DB\`" >/dev/null 2>&1
    rm -rf "$T"
}
trap cleanup EXIT
tap_on_failure() {
    if [ -s "$T/out" ]; then
        echo "#   last output (end):"
        tail -n 15 "$T/out" | sed 's/^/#   | /'
    fi
}

# ---- build from the tracked files
mkdir -p "$T/src/locsched"
git -C "$src_top" ls-files -z | (cd "$src_top" && tar --null -T - -cf -) | tar -xf - -C "$T/src/locsched"
build() {
    (cd "$T/src/locsched" &&
        DEB_BUILD_OPTIONS="nocheck parallel=$(nproc 2>/dev/null || echo 2)" \
            dpkg-buildpackage -us -uc -b) >"$T/out" 2>&1
}
start=$(date +%s)
check "dpkg-buildpackage -us -uc -b builds the package" build
echo "# build took $(($(date +%s) - start)) s"
deb=$(ls "$T"/src/locsched_*.deb 2>/dev/null | head -n 1)
check "a locsched_*.deb is made" test -f "$deb"
[ -f "$deb" ] || { tap_done; exit 1; }

# ---- unpack into a scratch root
R=$T/root
check "dpkg -x unpacks it" dpkg -x "$deb" "$R"
lib=$(dirname "$(find "$R" -type f -name make_project | head -n 1)")
has() { [ -e "$R/$1" ] || { echo "#   missing: /$1"; return 1; }; }
for f in "${lib#"$R"/}/make_project" "${lib#"$R"/}/db_upgrade" "${lib#"$R"/}/create_batch" \
    "${lib#"$R"/}/work_generator" "${lib#"$R"/}/transitioner"; do
    check "the package has /$f" has "$f"
done
check "the package has the scheduler" test -n "$(find "$R" -type f -name scheduler -perm -u+x)"
check "the package has the upload handler" \
    test -n "$(find "$R" -type f -name file_upload_handler -perm -u+x)"
check "the package has the schema" test -n "$(find "$R" -path '*/schema/upgrade/001-initial.sql')"
check "the package has man pages" test -n "$(find "$R" -path '*/man/man8/*' -name 'locsched-scheduler.8*')"
check "the package has the config reference page" test -n "$(find "$R" -path '*/man/man5/*' -name 'locsched.conf.5*')"
check "the package has systemd units" test -n "$(find "$R" -name '*.service')"
check "the package has status_pages and its timer" \
    test -x "$lib/status_pages" -a -n "$(find "$R" -name 'locsched-status-pages.timer')"
check "the package has the Apache snippet" has etc/apache2/conf-available/locsched.conf

# ---- make_project and db_upgrade from the installed files
P=$T/project
sql -e "DROP DATABASE IF EXISTS \`$SCRATCH_DB\`; CREATE DATABASE \`$SCRATCH_DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" \
    >"$T/out" 2>&1 || bail "cannot create the scratch database $SCRATCH_DB: $(cat "$T/out")"
mp() {
    LOCSCHED_DB_PASSWORD=$DB_PASSWORD "$lib/make_project" "$P" --url http://127.0.0.1:9/ \
        --db-name "$SCRATCH_DB" --db-user "$DB_USER" --db-socket "$DB_SOCKET" \
        --no-code-sign-key >"$T/out" 2>&1
}
check "the installed make_project makes a project" mp
check "it copied the installed scheduler into cgi-bin" \
    cmp -s "$P/cgi-bin/scheduler" "$(find "$R" -type f -name scheduler -perm -u+x | head -n 1)"
up() { "$lib/db_upgrade" --config "$P/locsched.conf" >"$T/out" 2>&1; }
check "the installed db_upgrade upgrades the new database" up
newest=$(find "$R" -path '*/schema/upgrade/*.sql' -printf '%f\n' | sort | tail -n 1)
newest_v=$((10#${newest%%-*}))
check "the database is at the package's newest schema ($newest)" \
    eq "$(sql -e "SELECT MAX(version) FROM \`$SCRATCH_DB\`.schema_version WHERE status = 'applied'")" \
    "$newest_v"
up_again() { "$lib/db_upgrade" --config "$P/locsched.conf" --status >"$T/out" 2>&1; }
check "db_upgrade --status runs from the installed files" up_again

# ---- an account, and one request answered by the installed scheduler
auth=$("$lib/create_account" --config "$P/locsched.conf" --name "deb test" \
    --email deb@example.invalid 2>"$T/out")
check "the installed create_account makes an account" eq "${#auth}" 32
sed "s|<authenticator>[^<]*</authenticator>|<authenticator>$auth</authenticator>|" \
    "$src_top/test/recorded/01-first-contact-attach.xml" >"$T/request.xml"
"$P/cgi-bin/scheduler" --once --config "$P/locsched.conf" <"$T/request.xml" >"$T/reply.xml" \
    2>"$T/out"
check "the installed scheduler answers the request" grep -q "</scheduler_reply>" "$T/reply.xml"
check "the reply gives the new host an id" grep -qE "<hostid>[1-9][0-9]*</hostid>" "$T/reply.xml"
check "the reply carries the account's name" grep -q "<user_name>deb test</user_name>" \
    "$T/reply.xml"
check "the host is in the scratch database" \
    eq "$(sql -e "SELECT COUNT(*) FROM \`$SCRATCH_DB\`.host")" 1

# ---- the installed status_pages writes the pages of the scratch project
sp() { "$lib/status_pages" --config "$P/locsched.conf" --one-pass >"$T/out" 2>&1; }
check "the installed status_pages writes the status page" sp
check "into the project's html/status" grep -q "<h1>Server status of" "$P/html/status/index.html"
tap_done
