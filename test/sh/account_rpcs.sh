#!/usr/bin/env bash
# account_rpcs.sh - the account web RPCs (the FastCGI program webrpc)
# through Apache and mod_fcgid, at the paths the BOINC client uses under
# the master URL: get_project_config.php, create_account.php and
# lookup_account.php.  Each case asserts the XML reply (the BOINC error
# number, or the key) and the database: an error writes no account.
#
# Cases: the project config; creation (GET as the client sends it, and a
# POST form), the same email again with the same password (the same key,
# no new row) and with another (-137); lookup with the right password,
# a wrong one (-206) and an unknown email (-136); malformed arguments (bad
# email -205, bad hash -206, no user name -188, a parameter twice -178),
# oversized query and body (-178); creation closed (-208, and the
# project config says so); by invitation (no code or a wrong one -209,
# the right one creates); the per-address rate limit (-199); the project
# stopped (-183); an account made by create_account --passwd-hash found
# by lookup; answers after the database dropped the connections; no
# password hash in any log.
#
# The settings it changes in the sandbox's locsched.conf are restored at
# the end (Apache is restarted gracefully each time: the programs read
# the configuration when they start).  Needs the sandbox environment
# (test/run_suite exports it), curl, md5sum and the mariadb client.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"
need_sandbox_env LOCSCHED_CONFIG MASTER_URL PROJECT_DIR SANDBOX_DIR DB_SOCKET DB_USER DB_PASSWORD DB_NAME
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_builddir=${top_builddir:-${LOCSCHED_BUILD_DIR:-$here/../..}}
for c in curl md5sum; do
    command -v "$c" >/dev/null 2>&1 || bail "$c is not installed"
done
MARIADB=$(command -v mariadb || command -v mysql) || bail "the mariadb client is not installed"
APACHE=$(command -v apache2 || command -v httpd || ls /usr/sbin/apache2 2>/dev/null) || bail "apache2 not found"
AP_CONF=$SANDBOX_DIR/apache/httpd.conf
[ -f "$AP_CONF" ] || bail "no $AP_CONF: is the sandbox running?"
CREATE_ACCOUNT=$top_builddir/tools/create_account
[ -x "$CREATE_ACCOUNT" ] || bail "$CREATE_ACCOUNT is not built"

T=$(mktemp -d -t locsched-account-rpcs.XXXXXX)
cp -p "$LOCSCHED_CONFIG" "$T/locsched.conf.orig" || bail "cannot save $LOCSCHED_CONFIG"
STOP=$(dirname "$LOCSCHED_CONFIG")/stop_sched
cleanup() {
    rm -f "$STOP" "$PROJECT_DIR/terms-$$.txt"
    cat "$T/locsched.conf.orig" >"$LOCSCHED_CONFIG" && "$APACHE" -f "$AP_CONF" -k graceful </dev/null >/dev/null 2>&1
    rm -rf "$T"
}
trap cleanup EXIT

sql() {
    MYSQL_PWD=$DB_PASSWORD "$MARIADB" --no-defaults --socket="$DB_SOCKET" -u "$DB_USER" \
        --batch --skip-column-names "$DB_NAME" -e "$1"
}
sql "SELECT 1" >/dev/null 2>&1 || bail "cannot query the database $DB_NAME through $DB_SOCKET"
users() { sql "SELECT COUNT(*) FROM user"; }

tap_on_failure() {
    [ -s "$T/reply" ] && { echo "#   reply (HTTP $HTTP):"; head -c 800 "$T/reply" | sed 's/^/#   | /'; }
}

# rpc NAME [curl args]: the reply in $T/reply, HTTP status in HTTP
rpc() {
    local name=$1
    shift
    HTTP=$(curl -s -o "$T/reply" -w '%{http_code}' "$@" "${MASTER_URL}$name.php")
}
# get NAME QUERY: a GET as the BOINC client sends it
get() { rpc "$1" -G --data "$2"; }
errnum() { sed -n 's:.*<error_num>\(-\{0,1\}[0-9]*\)</error_num>.*:\1:p' "$T/reply"; }
key() { sed -n 's:.*<authenticator>\([0-9a-f]*\)</authenticator>.*:\1:p' "$T/reply"; }
hash() { printf '%s' "$1$(printf '%s' "$2" | tr 'A-Z' 'a-z')" | md5sum | cut -c1-32; }

# settings KEY=VALUE...: the original configuration plus these, Apache
# restarted gracefully; the programs have the new one when
# get_project_config shows min_passwd_length = the new marker
marker=6
settings() {
    local kv
    marker=$((marker + 1))
    cp "$T/locsched.conf.orig" "$T/conf"
    # no limit unless a case sets one: every request comes from 127.0.0.1
    printf 'create_account_limit = 0\nlookup_account_limit = 0\n' >>"$T/conf"
    for kv in "$@"; do
        sed -i -E "/^[[:space:]]*${kv%%=*}[[:space:]]*=/d" "$T/conf"
        printf '%s = %s\n' "${kv%%=*}" "${kv#*=}" >>"$T/conf"
    done
    printf 'min_passwd_length = %s\n' "$marker" >>"$T/conf"
    cat "$T/conf" >"$LOCSCHED_CONFIG"
    "$APACHE" -f "$AP_CONF" -k graceful </dev/null >/dev/null 2>&1 || bail "apache2 -k graceful failed"
    local i
    for ((i = 0; i < 100; i++)); do
        get get_project_config ""
        grep -q "<min_passwd_length>$marker</min_passwd_length>" "$T/reply" && return 0
        sleep 0.2
    done
    bail "the programs did not take the new settings within 20 s"
}

stamp=$(date +%s)-$$
sql "DELETE FROM rpc_rate" || bail "no table rpc_rate (schema 016)"

# ---------------------------------------------------------------- config
settings
get get_project_config ""
check "get_project_config: HTTP 200" eq "$HTTP" 200
check "get_project_config: the project's name" grep -q "<name>$(sed -n 's/^project_name *= *//p' "$LOCSCHED_CONFIG")</name>" "$T/reply"
check "get_project_config: the master URL" grep -q "<master_url>$MASTER_URL</master_url>" "$T/reply"
check "get_project_config: creation open (no account_creation_disabled)" \
    eq "$(grep -c account_creation_disabled "$T/reply")" 0
nplat=$(sql "SELECT COUNT(DISTINCT p.id) FROM platform p JOIN app_version av ON av.platformid = p.id
             JOIN app a ON a.id = av.appid WHERE av.deprecated = 0 AND p.deprecated = 0 AND a.deprecated = 0")
check "get_project_config: one <platform_name> per platform with an app version ($nplat)" \
    eq "$(grep -c '<platform_name>' "$T/reply")" "$nplat"

# ---------------------------------------------------------------- create, lookup
EMAIL=Ann.$stamp@Example.org
email=$(printf '%s' "$EMAIL" | tr 'A-Z' 'a-z')
H=$(hash secret12 "$EMAIL")
before=$(users)
get create_account "email_addr=$EMAIL&passwd_hash=$H&user_name=Ann+Smith&team_name="
KEY1=$(key)
check "create_account: an authenticator of 32 hex digits" eq "${#KEY1}" 32
check "create_account: one new row" eq "$(users)" $((before + 1))
check "create_account: the row has the lower-cased email, the name, the hash and the key" \
    eq "$(sql "SELECT CONCAT_WS('|', name, passwd_hash, authenticator) FROM user WHERE email_addr = '$email'")" \
       "Ann Smith|$H|$KEY1"
check "create_account: auth_hash is the key's SHA-256 (the scheduler finds the user by it)" \
    eq "$(sql "SELECT HEX(auth_hash) = UPPER(SHA2('$KEY1', 256)) FROM user WHERE email_addr = '$email'")" 1
get create_account "email_addr=$email&passwd_hash=$H&user_name=Ann"
check "create_account again, same password: the same key" eq "$(key)" "$KEY1"
check "create_account again: no new row" eq "$(users)" $((before + 1))
get create_account "email_addr=$email&passwd_hash=$(hash other123 "$email")&user_name=Ann"
check "create_account, the email with another password: -137 (ERR_DB_NOT_UNIQUE)" eq "$(errnum)" -137
check "  no row written" eq "$(users)" $((before + 1))

get lookup_account "email_addr=$EMAIL&passwd_hash=$H"
check "lookup_account: the key" eq "$(key)" "$KEY1"
get lookup_account "email_addr=$email&passwd_hash=$(hash wrong-pw "$email")"
check "lookup_account, wrong password: -206 (ERR_BAD_PASSWD)" eq "$(errnum)" -206
check "  and no key" eq "$(key)" ""
get lookup_account "email_addr=nobody.$stamp@example.org&passwd_hash=$H"
check "lookup_account, unknown email: -136 (ERR_DB_NOT_FOUND)" eq "$(errnum)" -136

# a POST form works as the query does
E2=bob.$stamp@example.org
rpc create_account --data "email_addr=$E2&passwd_hash=$(hash pw123456 "$E2")&user_name=Bob"
check "create_account as a POST form: a key" eq "$(key | wc -c)" 33

# ---------------------------------------------------------------- malformed
before=$(users)
E3=carl.$stamp@example.org
H3=$(hash pw123456 "$E3")
get create_account "email_addr=carl.$stamp&passwd_hash=$H3&user_name=Carl"
check "malformed: an email without '@': -205 (ERR_BAD_EMAIL_ADDR)" eq "$(errnum)" -205
get create_account "email_addr=$E3&passwd_hash=12345&user_name=Carl"
check "malformed: a hash of 5 digits: -206 (ERR_BAD_PASSWD)" eq "$(errnum)" -206
get create_account "email_addr=$E3&passwd_hash=$H3"
check "malformed: no user_name: -188 (ERR_BAD_USER_NAME)" eq "$(errnum)" -188
get create_account "email_addr=$E3&passwd_hash=$H3&user_name=Carl&user_name=Eve"
check "malformed: user_name twice: -178 (ERR_INVALID_PARAM)" eq "$(errnum)" -178
get create_account "email_addr=$E3&passwd_hash=$H3&user_name=Carl%2"
check "malformed: a cut percent escape: -188" eq "$(errnum)" -188
get create_account "email_addr=$E3&passwd_hash=$H3&user_name=Carl&pad=$(head -c 4100 /dev/zero | tr '\0' x)"
check "oversized: a query over 4096 bytes: -178" eq "$(errnum)" -178
rpc create_account --data "email_addr=$E3&passwd_hash=$H3&user_name=Carl&pad=$(head -c 5000 /dev/zero | tr '\0' x)"
check "oversized: a body over 4096 bytes: -178" eq "$(errnum)" -178
check "oversized: HTTP 200 all the same (the client shows the message)" eq "$HTTP" 200
rpc create_account -H 'Content-Type: application/xml' \
    --data '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'
check "an XML body with an external entity: refused as arguments (-205)" eq "$(errnum)" -205
check "malformed and oversized requests wrote no account" eq "$(users)" "$before"
rpc nothing_here
check "another .php path is not mapped to the program (HTTP 404)" eq "$HTTP" 404

# ---------------------------------------------------------------- terms of use
TERMS=$PROJECT_DIR/terms-$$.txt
printf 'Be kind & fair <3\nLine two.\n' >"$TERMS"
chmod 644 "$TERMS"
settings terms_of_use_file="$TERMS"
check "terms_of_use_file: get_project_config carries the text, escaped" \
    grep -q '<terms_of_use>Be kind &amp; fair &lt;3' "$T/reply"
rm -f "$TERMS"

# ---------------------------------------------------------------- creation closed
settings account_creation=closed
check "closed: get_project_config says <account_creation_disabled/>" \
    grep -q '<account_creation_disabled/>' "$T/reply"
get create_account "email_addr=$E3&passwd_hash=$H3&user_name=Carl"
check "closed: create_account -208 (ERR_ACCT_CREATION_DISABLED)" eq "$(errnum)" -208
check "closed: no row written" eq "$(users)" "$before"
get lookup_account "email_addr=$email&passwd_hash=$H"
check "closed: lookup_account still gives the key" eq "$(key)" "$KEY1"

# ---------------------------------------------------------------- invitation
settings account_creation=invitation invitation_code=Join-2026.ok
get create_account "email_addr=$E3&passwd_hash=$H3&user_name=Carl"
check "invitation: no code: -209 (ERR_ATTACH_FAIL_INIT)" eq "$(errnum)" -209
get create_account "email_addr=$E3&passwd_hash=$H3&user_name=Carl&invite_code=Join-2026.no"
check "invitation: a wrong code: -209" eq "$(errnum)" -209
get create_account "email_addr=$E3&passwd_hash=$H3&user_name=Carl&invite_code=Join-2026.o"
check "invitation: a prefix of the code: -209" eq "$(errnum)" -209
check "invitation: no row written by the refusals" eq "$(users)" "$before"
get create_account "email_addr=$E3&passwd_hash=$H3&user_name=Carl&invite_code=Join-2026.ok"
check "invitation: the right code creates the account" eq "$(key | wc -c)" 33
check "invitation: one row" eq "$(users)" $((before + 1))

# ---------------------------------------------------------------- rate limit
settings lookup_account_limit=3 create_account_limit=2
sql "DELETE FROM rpc_rate"
for i in 1 2 3; do
    get lookup_account "email_addr=$email&passwd_hash=$H"
    [ "$(key)" = "$KEY1" ] || break
done
check "rate limit: 3 lookups answered" eq "$i-$(key)" "3-$KEY1"
get lookup_account "email_addr=$email&passwd_hash=$H"
check "rate limit: the 4th lookup from the address: -199 (ERR_RETRY)" eq "$(errnum)" -199
check "  and no key" eq "$(key)" ""
before=$(users)
for i in 1 2; do
    get create_account "email_addr=r$i.$stamp@example.org&passwd_hash=$H3&user_name=R$i"
done
check "rate limit: 2 creations answered" eq "$(users)" $((before + 2))
get create_account "email_addr=r3.$stamp@example.org&passwd_hash=$H3&user_name=R3"
check "rate limit: the 3rd creation: -199" eq "$(errnum)" -199
check "rate limit: no row written by it" eq "$(users)" $((before + 2))
check "rate limit: the counts are per address and RPC in rpc_rate" \
    eq "$(sql "SELECT GROUP_CONCAT(CONCAT(rpc, ':', n) ORDER BY rpc) FROM rpc_rate WHERE addr = '127.0.0.1'")" "1:3,2:4"
sql "UPDATE rpc_rate SET window_start = window_start - 3600"
get lookup_account "email_addr=$email&passwd_hash=$H"
check "rate limit: a new window answers again" eq "$(key)" "$KEY1"

# ---------------------------------------------------------------- stopped
settings
touch "$STOP"
get lookup_account "email_addr=$email&passwd_hash=$H"
check "stop_sched: lookup_account -183 (ERR_PROJECT_DOWN)" eq "$(errnum)" -183
get create_account "email_addr=d.$stamp@example.org&passwd_hash=$H3&user_name=D"
check "stop_sched: create_account -183" eq "$(errnum)" -183
get get_project_config ""
check "stop_sched: get_project_config says <sched_stopped/>" grep -q '<sched_stopped/>' "$T/reply"
rm -f "$STOP"

# ---------------------------------------------------------------- the tool
E4=Dora.$stamp@Example.org
H4=$(hash tool-pw1 "$E4")
K4=$("$CREATE_ACCOUNT" --config "$LOCSCHED_CONFIG" --name Dora --email "$E4" --passwd-hash "$H4" 2>"$T/ca.err")
check "create_account --passwd-hash: a key" eq "${#K4}" 32
get lookup_account "email_addr=$E4&passwd_hash=$H4"
check "lookup_account finds the tool's account by its password" eq "$(key)" "$K4"
"$CREATE_ACCOUNT" --config "$LOCSCHED_CONFIG" --name X --email "x.$stamp@example.org" --passwd-hash 123 \
    >/dev/null 2>&1
check "create_account --passwd-hash 123: exit status 2" eq "$?" 2
K5=$("$CREATE_ACCOUNT" --config "$LOCSCHED_CONFIG" --name Eve --email "eve.$stamp@example.org" 2>/dev/null)
get lookup_account "email_addr=eve.$stamp@example.org&passwd_hash=$H4"
check "an account without a password is never found by lookup_account (-206)" eq "$(errnum)/${#K5}" "-206/32"

# ---------------------------------------------------------------- a dropped connection
# as when MariaDB closes a connection that was idle past wait_timeout: the
# next request opens it again (no rate limit here, so lookup_account and
# get_project_config are the first statements of their process)
drop_connections() {
    local id
    for id in $(sql "SELECT id FROM information_schema.processlist
                     WHERE user = '$DB_USER' AND id <> CONNECTION_ID()"); do
        sql "KILL $id" 2>/dev/null
    done
}
drop_connections
get lookup_account "email_addr=$email&passwd_hash=$H"
check "the connections dropped: lookup_account still answers" eq "$(key)" "$KEY1"
drop_connections
get get_project_config ""
check "the connections dropped: get_project_config still lists the platforms" \
    eq "$(grep -c '<platform_name>' "$T/reply")" "$nplat"

# ---------------------------------------------------------------- logs
leaks=$(grep -rlE "$H|$H3|$H4|$KEY1" "$SANDBOX_DIR/apache/"*.log "$PROJECT_DIR/log" "$T/ca.err" 2>/dev/null)
check "no password hash or key in Apache's logs or the project's logs" eq "$leaks" ""
check "the program logs each account request with the user id" \
    grep -q "\[user#[0-9]*\] lookup_account from 127.0.0.1: key sent" "$SANDBOX_DIR/apache/error.log"

tap_done
