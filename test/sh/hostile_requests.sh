#!/usr/bin/env bash
# hostile_requests.sh - hostile scheduler requests through Apache and
# mod_fcgid: every case asserts the HTTP status, a <scheduler_reply> with
# a clear <message> (or the correct reply), and that the database changed
# exactly as it should: not at all for a refused request, only the rows a
# correct answer touches otherwise (every row of every table is compared
# before and after, by primary key and a digest of its columns).
#
# Groups (the number of cases is printed at the end):
#   corpus     every body of test/malformed/ (unknown account keys)
#   truncated  valid requests of a real account cut short
#   entities   billion laughs, quadratic blow-up, external entities
#   nesting    33 levels, 100,000 levels, 700,000 levels (2.1 MB)
#   size       just over the scheduler's 2 MiB cap; 100 MB, declared and
#              chunked (mod_fcgid's FcgidMaxRequestLen answers first)
#   numbers    NaN, infinities, overflow, negative and huge values
#   accounts   unknown, wrong, altered and injected authenticators; hostid
#              spoofing, foreign and unknown hostids, a cloned host
#   reports    a result reported twice, twice in one request, by another
#              host of the same user, by another user, with a spoofed
#              hostid, an unsent result, unknown and hostile names, too many
#   names      quotes, markup, UTF-8, 255-byte fields, control characters
#   gpus       requests for GPU types the host does not have, or the
#              project does not support; an NVIDIA host as the control
#   window     another app's jobs, which the host cannot run, first in job
#              order: the host must still get one of its own
#   http       GET, PUT, an empty body, a short body
#   slowloris  many connections sending headers slowly; mod_reqtimeout
#              must be configured and a normal request answered meanwhile
#
# The cases use accounts, a platform, an app (a CPU and an NVIDIA
# version) and a plain batch of their own: the platform is unique to this
# run, so no other test's jobs can be sent to these hosts and these jobs
# go nowhere else.  Apache is restarted gracefully once after the set-up,
# so that the scheduler processes see the new app versions at once.  The
# batches are aborted and retired at the end.
#
# Needs the sandbox environment (run_suite exports it; or eval "$(tools/sandbox
# env)"): SCHED_URL, MASTER_URL, HTTP_PORT, SANDBOX_DIR, PROJECT_DIR,
# LOCSCHED_CONFIG, DB_SOCKET, DB_USER, DB_PASSWORD, DB_NAME; top_builddir
# for the admin tools; curl and the mariadb client; xmllint (libxml2-utils)
# if installed, to check that every reply is well-formed XML.  No daemon
# may run on the sandbox (they would change rows between snapshots).
# SLOWLORIS=0 skips the slow-client group.  Prints TAP; exit status 1 if
# any check failed.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"
cases=0
declare -A group_cases=()
group=""

# after a failed check: the reply
tap_on_failure() {
    if [ -s "$T/reply" ]; then
        echo "#   reply (HTTP $HTTP):"
        head -c 1500 "$T/reply" | sed 's/^/#   | /'
        echo
    fi
}
start_group() { group=$1; echo "# ---- $1"; }
new_case() { cases=$((cases + 1)); group_cases[$group]=$((${group_cases[$group]:-0} + 1)); CASE=$1; }

# ---------------------------------------------------------------- needs
for v in SCHED_URL MASTER_URL HTTP_PORT SANDBOX_DIR PROJECT_DIR LOCSCHED_CONFIG DB_SOCKET \
         DB_USER DB_PASSWORD DB_NAME; do
    [ -n "${!v:-}" ] || bail "$v is not set (run through test/run_suite, or eval \"\$(tools/sandbox env)\")"
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=$(cd "${top_srcdir:-$here/../..}" && pwd)
top_builddir=$(cd "${top_builddir:-${LOCSCHED_BUILD_DIR:-$top_srcdir}}" && pwd)
MALFORMED=$top_srcdir/test/malformed
command -v curl >/dev/null 2>&1 || bail "curl is not installed"
MARIADB=$(command -v mariadb || command -v mysql) || bail "the mariadb client is not installed"
XMLLINT=$(command -v xmllint || true)
[ -n "$XMLLINT" ] || echo "# xmllint not installed (libxml2-utils): replies are checked by pattern only"
for t in create_account add_app_version create_batch abort_batch retire_batch; do
    [ -x "$top_builddir/tools/$t" ] || bail "$top_builddir/tools/$t is not built"
done
KEY=$PROJECT_DIR/keys/code_sign_private.pem
[ -r "$KEY" ] || bail "no code-signing key $KEY (tools/sandbox makes one)"
AP_CONF=$SANDBOX_DIR/apache/httpd.conf
[ -f "$AP_CONF" ] || bail "no $AP_CONF: is the sandbox running?"
for d in work_generator transitioner locality_daemon; do
    p=$({ tr -dc '0-9' <"$SANDBOX_DIR/daemons/$d.pid"; } 2>/dev/null)
    if [ -n "$p" ] && [ -d "/proc/$p" ]; then
        bail "the sandbox's $d runs (pid $p): stop the daemons first (they change rows between snapshots)"
    fi
done

sql() {
    MYSQL_PWD=$DB_PASSWORD "$MARIADB" --no-defaults --socket="$DB_SOCKET" -u "$DB_USER" \
        --batch --skip-column-names "$DB_NAME" -e "$1"
}
sql "SELECT 1" >/dev/null 2>&1 || bail "cannot query the database $DB_NAME through $DB_SOCKET"

T=$(mktemp -d) || bail "mktemp failed"
SLOW_PIDS=()
BATCHES=()
cleanup() {
    local p b
    for p in "${SLOW_PIDS[@]}"; do kill "$p" 2>/dev/null; done
    # abort and retire our batches, so that no later test gets their jobs
    for b in "${BATCHES[@]}"; do
        "$top_builddir/tools/abort_batch" --config "$LOCSCHED_CONFIG" "$b" >/dev/null 2>&1
        "$top_builddir/tools/retire_batch" --config "$LOCSCHED_CONFIG" "$b" >/dev/null 2>&1
    done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'echo "# interrupted"; exit 1' INT TERM

# ---------------------------------------------------------------- snapshots
# Every table but schema_version: "table key digest" per row, the key its
# primary key, the digest an MD5 over all its columns (NULL spelled ~).
SNAP_SQL=$(sql "SELECT table_name, column_name, column_key FROM information_schema.columns
                WHERE table_schema = DATABASE() AND table_name <> 'schema_version'
                ORDER BY table_name, ordinal_position" |
    awk -F'\t' '
        function flush() {
            if (t == "") return
            printf "SELECT '\''%s'\'', CONCAT_WS('\'','\'', %s), MD5(CONCAT_WS('\''|'\'', %s)) FROM `%s`;\n", t, pk, cols, t
        }
        $1 != t { flush(); t = $1; pk = ""; cols = "" }
        { c = "IFNULL(`" $2 "`, '\''~'\'')"; cols = cols (cols == "" ? "" : ", ") c
          if ($3 == "PRI") pk = pk (pk == "" ? "" : ", ") "`" $2 "`" }
        END { flush() }')
[ -n "$SNAP_SQL" ] || bail "cannot read the schema of $DB_NAME"
snap() { sql "$SNAP_SQL" | tr '\t' ' ' | LC_ALL=C sort >"$1"; }
PREV=$T/snap.prev
snap "$PREV"
# resnap: take a new reference (after set-up steps that are not cases).
resnap() { snap "$PREV"; }

# expect_db DESC [TABLE:KEY...]: the rows changed, added or removed since
# the last snapshot are exactly these (none when no key is given).
expect_db() {
    local desc=$1 got want
    shift
    snap "$T/snap.now"
    got=$(LC_ALL=C comm -3 "$PREV" "$T/snap.now" | awk '{ print $1 ":" $2 }' | LC_ALL=C sort -u | tr '\n' ' ')
    want=$(printf '%s\n' "$@" | sed '/^$/d' | LC_ALL=C sort -u | tr '\n' ' ')
    mv "$T/snap.now" "$PREV"
    if [ -z "$want" ]; then
        check "$desc: database unchanged" eq "$got" ""
    else
        check "$desc: only ${want% } changed" eq "$got" "$want"
    fi
}

# ---------------------------------------------------------------- HTTP
# post FILE [CURL OPTIONS...]: POST FILE to the scheduler like the client;
# sets HTTP (status), TIME (seconds), UPLOADED (bytes sent); reply in $T/reply.
post() {
    local f=$1 out
    shift
    : >"$T/reply"
    # curl prints the figures also when it fails (HTTP 000, the time spent)
    out=$(curl -sS --max-time 60 -A 'BOINC client (x86_64-pc-linux-gnu 7.20.5)' \
               -H 'Content-Type: application/x-www-form-urlencoded' "$@" \
               --data-binary @"$f" -o "$T/reply" \
               -w '%{http_code} %{time_total} %{size_upload}' "$SCHED_URL" 2>"$T/curl.err")
    [ -n "$out" ] || out="000 0 0"
    read -r HTTP TIME UPLOADED <<<"$out"
}

# the texts of the reply's <message> elements, unescaped, on one line
messages() {
    tr -d '\n' <"$T/reply" | grep -o '<message[^>]*>[^<]*</message>' |
        sed -e 's/<[^>]*>//g' -e "s/&apos;/'/g" -e 's/&quot;/"/g' -e 's/&lt;/</g' \
            -e 's/&gt;/>/g' -e 's/&amp;/\&/g' | tr '\n' ' '
}
well_formed() {
    if ! grep -q '^<scheduler_reply>' "$T/reply" || ! grep -q '</scheduler_reply>' "$T/reply"; then
        echo "#   not a <scheduler_reply>"
        return 1
    fi
    if [ -n "$XMLLINT" ] && ! "$XMLLINT" --noout --nonet "$T/reply" >"$T/xmllint.out" 2>&1; then
        echo "#   xmllint finds the reply malformed:"
        sed 's/^/#   /' "$T/xmllint.out"
        return 1
    fi
    return 0
}
has_message() {  # has_message SUBSTRING
    local m
    m=$(messages)
    case $m in *"$1"*) return 0 ;; esac
    echo "#   messages: '$m'; want one with '$1'"
    return 1
}
has_delay() { grep -q '<request_delay>[0-9][0-9]*</request_delay>' "$T/reply" || { echo "#   no <request_delay>"; return 1; }; }
reply_has() { grep -qF -- "$1" "$T/reply" || { echo "#   the reply lacks '$1'"; return 1; }; }
reply_lacks() { ! grep -qF -- "$1" "$T/reply" || { echo "#   the reply has '$1'"; return 1; }; }

# refused DESC FILE MESSAGE [TABLE:KEY...]: HTTP 200, a well-formed reply
# with a message containing MESSAGE and a request_delay, no job, and the
# database unchanged (or only the given rows).
refused() {
    local desc=$1 f=$2 msg=$3
    shift 3
    new_case "$desc"
    post "$f"
    check "$desc: HTTP 200" eq "$HTTP" 200
    check "$desc: a <scheduler_reply> with a message, a delay and no job" \
        eval 'well_formed && has_message "$msg" && has_delay && reply_lacks "<result>"'
    expect_db "$desc" "$@"
}

# ---------------------------------------------------------------- requests
SEQ_A1=0
# req VAR=VALUE...: a scheduler request as client 7.20 writes it, with
# the given parts replaced: AUTH HOSTID SEQ PLAT CPU_SECS CPU_INST NCPUS
# FPOPS DOMAIN PMODEL OSNAME ON_FRAC DCF COPROCS RESULTS ROOT_EXTRA
# HOST_EXTRA (raw XML, inserted as is).
req() {
    local AUTH=$A_AUTH HOSTID=0 SEQ=0 PLAT=$PLAT CPU_SECS=0 CPU_INST=0 NCPUS=2 FPOPS=1e9
    local DOMAIN=hostile-test PMODEL="Test CPU" OSNAME=Linux ON_FRAC=1 DCF=1 COPROCS=""
    local RESULTS="" ROOT_EXTRA="" HOST_EXTRA="" TZ_=0 NCPU_REQ=""
    [ $# -eq 0 ] || local "$@"
    cat <<EOF
<scheduler_request>
    <authenticator>$AUTH</authenticator>
    <hostid>$HOSTID</hostid>
    <rpc_seqno>$SEQ</rpc_seqno>
    <core_client_major_version>7</core_client_major_version>
    <core_client_minor_version>20</core_client_minor_version>
    <core_client_release>5</core_client_release>
    <resource_share_fraction>1.000000</resource_share_fraction>
    <duration_correction_factor>$DCF</duration_correction_factor>
    <dont_send_work>0</dont_send_work>
    <work_req_seconds>$CPU_SECS</work_req_seconds>
    <cpu_req_secs>$CPU_SECS</cpu_req_secs>
    <cpu_req_instances>$CPU_INST</cpu_req_instances>
    <estimated_delay>0.000000</estimated_delay>
    <platform_name>$PLAT</platform_name>
$ROOT_EXTRA
<working_global_preferences>
<global_preferences>
   <work_buf_min_days>0.100000</work_buf_min_days>
   <work_buf_additional_days>0.500000</work_buf_additional_days>
</global_preferences>
</working_global_preferences>
<time_stats>
    <on_frac>$ON_FRAC</on_frac>
    <connected_frac>-1.000000</connected_frac>
    <cpu_and_network_available_frac>1.000000</cpu_and_network_available_frac>
    <active_frac>1.000000</active_frac>
    <gpu_active_frac>1.000000</gpu_active_frac>
</time_stats>
<host_info>
    <timezone>$TZ_</timezone>
    <domain_name>$DOMAIN</domain_name>
    <ip_addr>192.0.2.7</ip_addr>
    <host_cpid>0123456789abcdef0123456789abcdef</host_cpid>
    <p_ncpus>$NCPUS</p_ncpus>
    <p_vendor>GenuineTest</p_vendor>
    <p_model>$PMODEL</p_model>
    <p_fpops>$FPOPS</p_fpops>
    <p_iops>1000000000.000000</p_iops>
    <p_membw>1000000000.000000</p_membw>
    <m_nbytes>8000000000.000000</m_nbytes>
    <m_cache>1000000.000000</m_cache>
    <m_swap>1000000000.000000</m_swap>
    <d_total>100000000000.000000</d_total>
    <d_free>50000000000.000000</d_free>
    <os_name>$OSNAME</os_name>
    <os_version>6.1.0</os_version>
$HOST_EXTRA
</host_info>
<disk_usage>
    <d_boinc_used_total>1000000.000000</d_boinc_used_total>
    <d_boinc_used_project>100000.000000</d_boinc_used_project>
</disk_usage>
$COPROCS
$RESULTS
</scheduler_request>
EOF
}
# A1 REQ-ARGS...: a request of host A1 with the next rpc_seqno.
a1() { SEQ_A1=$((SEQ_A1 + 1)); req HOSTID="$H_A1" SEQ="$SEQ_A1" "$@"; }

# result_xml NAME [STATE [EXIT]]: a reported result (state 5: uploaded).
result_xml() {
    printf '<result>\n    <name>%s</name>\n    <final_cpu_time>100.5</final_cpu_time>\n' "$1"
    printf '    <final_elapsed_time>110.25</final_elapsed_time>\n    <exit_status>%s</exit_status>\n' "${3:-0}"
    printf '    <state>%s</state>\n    <platform>%s</platform>\n    <version_num>100</version_num>\n' "${2:-5}" "$PLAT"
    printf '    <stderr_out>\n<![CDATA[\n<stderr_txt>\ndone\n</stderr_txt>\n]]>\n    </stderr_out>\n</result>\n'
}
id_of_result() { sql "SELECT id FROM result WHERE name = '$1'"; }
wu_of_result() { sql "SELECT workunitid FROM result WHERE name = '$1'"; }
# the result names of the jobs in the reply
reply_results() {
    tr -d '\n' <"$T/reply" | grep -o '<result>[^<]*<name>[^<]*</name>' | sed 's:.*<name>\(.*\)</name>:\1:'
}
# claimed_keys: "result:ID" for every job in the reply
claimed_keys() {
    local r
    for r in $(reply_results); do echo "result:$(id_of_result "$r")"; done
}

# ---------------------------------------------------------------- set-up
STAMP=$(date +%s)_$$
PLAT=x86_64-hostile-linux-$STAMP
APP=hostile_$STAMP
BATCH=hostile_$STAMP
ca() {
    "$top_builddir/tools/create_account" --config "$LOCSCHED_CONFIG" --name "$1" \
        --email "$1-$STAMP@test.invalid" 2>"$T/create_account.err" ||
        { cat "$T/create_account.err"; bail "create_account failed"; }
}
A_AUTH=$(ca hostile-a)
B_AUTH=$(ca hostile-b)
USER_A=$(sql "SELECT id FROM user WHERE authenticator = '$A_AUTH'")
USER_B=$(sql "SELECT id FROM user WHERE authenticator = '$B_AUTH'")
[ -n "$USER_A" ] && [ -n "$USER_B" ] || bail "the accounts are not in the database"
printf '#!/bin/sh\nexit 0\n' >"$T/${APP}_cpu"
printf '#!/bin/sh\nexit 0 # cuda\n' >"$T/${APP}_cuda"
"$top_builddir/tools/add_app_version" --config "$LOCSCHED_CONFIG" --app "$APP" --version 100 \
    --platform "$PLAT" --file "$T/${APP}_cpu" --key "$KEY" >"$T/av.out" 2>&1 ||
    { cat "$T/av.out"; bail "add_app_version (CPU) failed"; }
"$top_builddir/tools/add_app_version" --config "$LOCSCHED_CONFIG" --app "$APP" --version 100 \
    --platform "$PLAT" --plan-class cuda --coproc NVIDIA:1 --avg-ncpus 0.2 \
    --file "$T/${APP}_cuda" --key "$KEY" >"$T/av.out" 2>&1 ||
    { cat "$T/av.out"; bail "add_app_version (NVIDIA) failed"; }
AV_CPU=$(sql "SELECT v.id FROM app_version v JOIN app a ON a.id = v.appid WHERE a.name = '$APP' AND v.plan_class = ''")
AV_GPU=$(sql "SELECT v.id FROM app_version v JOIN app a ON a.id = v.appid WHERE a.name = '$APP' AND v.plan_class = 'cuda'")
: >"$T/jobs"
for ((j = 0; j < 60; j++)); do echo "0 1 3.6e12" >>"$T/jobs"; done
BATCHES+=("$BATCH")
"$top_builddir/tools/create_batch" --config "$LOCSCHED_CONFIG" --name "$BATCH" --app "$APP" \
    --generate-files 1:100 --jobs "$T/jobs" --replication 2 >"$T/batch.out" 2>&1 ||
    { cat "$T/batch.out"; bail "create_batch failed"; }
BATCHID=$(sql "SELECT id FROM batch WHERE name = '$BATCH'")
[ -n "$BATCHID" ] && [ -n "$AV_CPU" ] && [ -n "$AV_GPU" ] || bail "the batch or app versions are missing"
echo "# accounts #$USER_A and #$USER_B, app $APP (versions #$AV_CPU CPU, #$AV_GPU NVIDIA) on $PLAT, batch #$BATCHID"
# host A1 first; then, since each scheduler process reads the app
# versions and batches once a minute, a graceful restart of Apache gives
# fresh processes that see ours at once
req >"$T/first"
post "$T/first"
H_A1=$(sed -n 's:.*<hostid>\([0-9]*\)</hostid>.*:\1:p' "$T/reply" | head -n 1)
[ -n "$H_A1" ] || bail "the first request got no hostid (HTTP $HTTP: $(head -c 300 "$T/reply"))"
APACHE=$(command -v apache2 || command -v httpd || ls /usr/sbin/apache2 2>/dev/null) || bail "apache2 not found"
"$APACHE" -f "$AP_CONF" -k graceful </dev/null >/dev/null 2>&1 || bail "apache2 -k graceful failed"
for ((i = 0; i < 30; i++)); do
    sleep 1
    a1 CPU_SECS=3600 CPU_INST=1 >"$T/first"
    post "$T/first"
    [ "$(reply_results | wc -l)" -gt 0 ] && break
done
[ "$(reply_results | wc -l)" -gt 0 ] ||
    bail "the scheduler sent no job of the new batch within 30 s (HTTP $HTTP: $(head -c 300 "$T/reply"))"
# a second host of A, a host of B
req CPU_SECS=3600 CPU_INST=1 >"$T/r"; post "$T/r"
H_A2=$(sed -n 's:.*<hostid>\([0-9]*\)</hostid>.*:\1:p' "$T/reply" | head -n 1)
req AUTH="$B_AUTH" CPU_SECS=7200 CPU_INST=2 >"$T/r"; post "$T/r"
H_B1=$(sed -n 's:.*<hostid>\([0-9]*\)</hostid>.*:\1:p' "$T/reply" | head -n 1)
[ -n "$H_A2" ] && [ -n "$H_B1" ] || bail "could not create the second and third hosts"
echo "# hosts: A1 #$H_A1, A2 #$H_A2 (user #$USER_A), B1 #$H_B1 (user #$USER_B)"
resnap

# ================================================================ corpus
start_group corpus
limit_ok=" 11-nesting-32.xml 13-authenticator-64.xml 15-name-255.xml 26-request-at-28-days.xml 43-hostid-at-31-bits.xml 55-xinclude-ignored.xml "
for f in "$MALFORMED"/*.xml; do
    b=${f##*/}
    case $limit_ok in
        *" $b "*) refused "corpus $b (valid at a limit, unknown key)" "$f" "Unknown account key" ;;
        *) refused "corpus $b" "$f" "The scheduler could not read this request" ;;
    esac
done

# ================================================================ truncated
start_group truncated
a1 CPU_SECS=3600 CPU_INST=1 >"$T/valid"
size=$(wc -c <"$T/valid")
head -c $((size / 2)) "$T/valid" >"$T/t1"
refused "a real account's request cut in half" "$T/t1" "could not read this request"
head -c $((size - 22)) "$T/valid" >"$T/t2"
refused "cut before </scheduler_request>" "$T/t2" "could not read this request"
auth_end=$(grep -b -o '<authenticator>' "$T/valid" | head -n 1 | cut -d: -f1)
head -c $((auth_end + 15 + 10)) "$T/valid" >"$T/t3"
refused "cut inside the authenticator" "$T/t3" "could not read this request"
printf '<scheduler_request>\n    <authenticator>%s</authenticator>\n    <hostid>%s</hostid>\n    <' "$A_AUTH" "$H_A1" >"$T/t4"
refused "cut after an opening '<'" "$T/t4" "could not read this request"

# ================================================================ entities
start_group entities
{
    echo '<?xml version="1.0"?>'
    echo '<!DOCTYPE scheduler_request ['
    echo ' <!ENTITY lol "lol">'
    prev=lol
    for ((k = 1; k <= 9; k++)); do
        printf ' <!ENTITY lol%d "%s">\n' "$k" "$(printf "&$prev;%.0s" 1 2 3 4 5 6 7 8 9 10)"
        prev=lol$k
    done
    echo ']>'
    a1 CPU_SECS=3600 CPU_INST=1 DOMAIN='&lol9;'
} >"$T/bomb"
refused "billion laughs in a real account's request" "$T/bomb" "DOCTYPE not allowed"
check "billion laughs: refused within 2 s (${TIME} s)" le "$TIME" 2
{
    echo '<?xml version="1.0"?>'
    printf '<!DOCTYPE scheduler_request [ <!ENTITY big "%s"> ]>\n' "$(head -c 50000 /dev/zero | tr '\0' 'A')"
    a1 CPU_SECS=3600 CPU_INST=1 DOMAIN="$(printf '&big;%.0s' $(seq 1 2000))"
} >"$T/quad"
refused "quadratic blow-up (a 50 KB entity used 2000 times)" "$T/quad" "DOCTYPE not allowed"
{
    echo '<?xml version="1.0"?>'
    echo '<!DOCTYPE scheduler_request [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>'
    a1 CPU_SECS=3600 CPU_INST=1 DOMAIN='&xxe;'
} >"$T/xxe"
refused "external entity (file:///etc/passwd)" "$T/xxe" "DOCTYPE not allowed"
check "external entity: nothing of the file in the reply" reply_lacks "root:"
{
    echo '<?xml version="1.0"?>'
    echo '<!DOCTYPE scheduler_request [ <!ENTITY % p SYSTEM "http://127.0.0.1:9/x.dtd"> %p; ]>'
    a1 CPU_SECS=3600 CPU_INST=1
} >"$T/pe"
refused "parameter entity from the network" "$T/pe" "DOCTYPE not allowed"
a1 CPU_SECS=3600 CPU_INST=1 DOMAIN='&undefined_here;' >"$T/ue"
refused "undefined entity in a field" "$T/ue" "not defined"

# ================================================================ nesting
start_group nesting
nest() { printf '<x>%.0s' $(seq 1 "$1"); printf '</x>%.0s' $(seq 1 "$1"); }
a1 CPU_SECS=3600 CPU_INST=1 HOST_EXTRA="$(nest 31)" >"$T/n33"
refused "33 levels deep (31 inside <host_info>)" "$T/n33" "nested deeper than 32"
a1 CPU_SECS=3600 CPU_INST=1 HOST_EXTRA="$(nest 100000)" >"$T/n100k"
refused "100,000 levels deep" "$T/n100k" "nested deeper than 32"
check "100,000 levels: refused within 2 s (${TIME} s)" le "$TIME" 2
{
    a1 CPU_SECS=3600 CPU_INST=1 | sed '$d'
    head -c 700000 /dev/zero | sed 's/\x0/<x>/g'
} >"$T/n700k"
refused "700,000 unclosed levels (2.1 MB)" "$T/n700k" "too large"

# ================================================================ size
start_group size
{
    a1 CPU_SECS=3600 CPU_INST=1 | sed '$d'
    printf '<!-- %s -->\n</scheduler_request>\n' "$(head -c 2100000 /dev/zero | tr '\0' 'p')"
} >"$T/over2m"
refused "a valid request padded to just over 2 MiB" "$T/over2m" "Scheduler request too large"
# 100 MB: Apache refuses it with 413 (a rewrite rule on Content-Length,
# the size of FcgidMaxRequestLen), before mod_fcgid or the scheduler; the
# client gets an HTTP error (it retries later, with backoff).  Chunked, it
# has no Content-Length: mod_fcgid refuses it, with a 500.
truncate -s 100000000 "$T/huge" 2>/dev/null || head -c 100000000 /dev/zero >"$T/huge"
new_case "100 MB body"
: >"$T/reply"
out=$(curl -sS --max-time 60 -H 'Content-Type: application/x-www-form-urlencoded' -X POST \
           -T "$T/huge" -o "$T/reply" -w '%{http_code} %{time_total} %{size_upload}' \
           "$SCHED_URL" 2>"$T/curl.err") || out="000 0 0"
read -r HTTP TIME UPLOADED <<<"$out"
echo "# 100 MB body: HTTP $HTTP after $TIME s, $UPLOADED bytes sent"
check "100 MB body: HTTP 413, not a hang" eq "$HTTP" 413
check "100 MB body: refused before 10 MB were read ($UPLOADED bytes)" le "$UPLOADED" 10000000
check "100 MB body: refused within 5 s ($TIME s)" le "$TIME" 5
expect_db "100 MB body"
new_case "100 MB body, chunked (no Content-Length)"
: >"$T/reply"
out=$(head -c 100000000 /dev/zero | curl -sS --max-time 60 -H 'Transfer-Encoding: chunked' \
           -H 'Content-Type: application/x-www-form-urlencoded' --data-binary @- \
           -o "$T/reply" -w '%{http_code} %{time_total} %{size_upload}' \
           "$SCHED_URL" 2>"$T/curl.err") || out="000 0 0"
read -r HTTP TIME UPLOADED <<<"$out"
echo "# 100 MB chunked body: HTTP $HTTP after $TIME s, $UPLOADED bytes sent"
check "100 MB chunked: an HTTP error (413 or 500)" eval '[ "$HTTP" = 413 ] || [ "$HTTP" = 500 ]'
check "100 MB chunked: refused within 5 s ($TIME s)" le "$TIME" 5
expect_db "100 MB chunked"
rm -f "$T/huge"
a1 >"$T/after"
post "$T/after"
check "after the big bodies, a normal request is answered (HTTP $HTTP, $TIME s)" \
    eval '[ "$HTTP" = 200 ] && well_formed && reply_lacks "too large" && reply_lacks "could not read"'
resnap

# ================================================================ numbers
start_group numbers
num_case() {  # num_case DESC MESSAGE REQ-ARGS...
    local desc=$1 msg=$2
    shift 2
    a1 CPU_SECS=3600 CPU_INST=1 "$@" >"$T/num"
    refused "$desc" "$T/num" "$msg"
}
num_case "p_fpops nan" '<p_fpops> in <host_info>' FPOPS=nan
num_case "p_fpops NaN" '<p_fpops> in <host_info>' FPOPS=NaN
num_case "p_fpops -nan" '<p_fpops> in <host_info>' FPOPS=-nan
num_case "p_fpops inf" '<p_fpops> in <host_info>' FPOPS=inf
num_case "p_fpops Infinity" '<p_fpops> in <host_info>' FPOPS=Infinity
num_case "p_fpops 1e400 (overflows a double)" '<p_fpops> in <host_info>' FPOPS=1e400
num_case "p_fpops 1e17 (absurd)" '<p_fpops> in <host_info>' FPOPS=1e17
num_case "p_fpops -1e9" '<p_fpops> in <host_info>' FPOPS=-1e9
num_case "p_ncpus -1" '<p_ncpus> in <host_info>' NCPUS=-1
num_case "p_ncpus 2147483648" '<p_ncpus> in <host_info>' NCPUS=2147483648
num_case "p_ncpus 99999999999999999999999" '<p_ncpus> in <host_info>' NCPUS=99999999999999999999999
num_case "work request of -3600 s" '"-3600" out of range' CPU_SECS=-3600
num_case "work request of 1e30 s" '"1e30" out of range' CPU_SECS=1e30
num_case "cpu_req_instances nan" '<cpu_req_instances>' CPU_INST=nan
num_case "on_frac 2" '<on_frac> in <time_stats>' ON_FRAC=2
num_case "duration_correction_factor 1e308" '<duration_correction_factor>' DCF=1e308
num_case "timezone 99999999999" '<timezone> in <host_info>' TZ_=99999999999
req HOSTID=-1 SEQ=1 CPU_SECS=3600 CPU_INST=1 >"$T/num"
refused "hostid -1" "$T/num" '<hostid>'
req HOSTID=99999999999999999999 SEQ=1 CPU_SECS=3600 CPU_INST=1 >"$T/num"
refused "hostid 99999999999999999999" "$T/num" '<hostid>'
req HOSTID="$H_A1" SEQ=-5 CPU_SECS=3600 CPU_INST=1 >"$T/num"
refused "rpc_seqno -5" "$T/num" '<rpc_seqno>'
R_ANY=$(sql "SELECT name FROM result WHERE hostid = $H_A1 AND server_state = 4 ORDER BY id LIMIT 1")
num_case "reported exit_status 99999999999" '<exit_status>' RESULTS="$(result_xml "$R_ANY" 3 99999999999)"
num_case "reported final_cpu_time -1" '<final_cpu_time>' \
    RESULTS="$(result_xml "$R_ANY" | sed 's:<final_cpu_time>[^<]*<:<final_cpu_time>-1<:')"
num_case "reported final_elapsed_time nan" '<final_elapsed_time>' \
    RESULTS="$(result_xml "$R_ANY" | sed 's:<final_elapsed_time>[^<]*<:<final_elapsed_time>nan<:')"
num_case "coprocessor req_secs nan" '<req_secs>' \
    COPROCS='<coprocs><coproc_cuda><count>1</count><peak_flops>1e12</peak_flops><req_secs>nan</req_secs><req_instances>1</req_instances></coproc_cuda></coprocs>'
num_case "coprocessor count -1" '<count>' \
    COPROCS='<coprocs><coproc_cuda><count>-1</count><peak_flops>1e12</peak_flops><req_secs>100</req_secs><req_instances>1</req_instances></coproc_cuda></coprocs>'
# numbers at the edges that are valid: the request is served
new_case "p_ncpus 0, p_fpops 0 (defaults apply)"
a1 NCPUS=0 FPOPS=0 CPU_SECS=3600 CPU_INST=1 >"$T/num"
post "$T/num"
check "p_ncpus 0, p_fpops 0: HTTP 200, a well-formed reply" eval '[ "$HTTP" = 200 ] && well_formed'
check "p_ncpus 0, p_fpops 0: stored as sent" eq "$(sql "SELECT CONCAT(p_ncpus, ' ', p_fpops) FROM host WHERE id = $H_A1")" "0 0"
expect_db "p_ncpus 0, p_fpops 0" "host:$H_A1" $(claimed_keys)
new_case "p_fpops 1e16 (the limit)"
a1 FPOPS=1e16 >"$T/num"
post "$T/num"
check "p_fpops 1e16: HTTP 200, no error message" eval '[ "$HTTP" = 200 ] && well_formed && reply_lacks "could not read"'
expect_db "p_fpops 1e16" "host:$H_A1"

# ================================================================ accounts
start_group accounts
req AUTH=0123456789abcdef0123456789abcdef HOSTID="$H_A1" SEQ=100 CPU_SECS=3600 CPU_INST=1 >"$T/acc"
refused "unknown authenticator with A1's hostid" "$T/acc" "Unknown account key"
wrong=${A_AUTH%?}$( [ "${A_AUTH: -1}" = 0 ] && echo 1 || echo 0)
req AUTH="$wrong" HOSTID="$H_A1" SEQ=100 CPU_SECS=3600 CPU_INST=1 >"$T/acc"
refused "A's authenticator with its last digit changed" "$T/acc" "Unknown account key"
req AUTH="$(echo "$A_AUTH" | tr 'a-f' 'A-F')" HOSTID="$H_A1" SEQ=100 CPU_SECS=3600 CPU_INST=1 >"$T/acc"
refused "A's authenticator in upper case" "$T/acc" "Unknown account key"
req AUTH="${A_AUTH:0:16}" HOSTID="$H_A1" SEQ=100 CPU_SECS=3600 CPU_INST=1 >"$T/acc"
refused "the first half of A's authenticator" "$T/acc" "Unknown account key"
req AUTH="x' OR '1'='1" HOSTID="$H_A1" SEQ=100 CPU_SECS=3600 CPU_INST=1 >"$T/acc"
refused "SQL in the authenticator" "$T/acc" "Unknown account key"
req AUTH="${A_AUTH}&#0;" HOSTID="$H_A1" SEQ=100 >"$T/acc"
refused "A's authenticator with a NUL character reference" "$T/acc" "could not read"
req AUTH="$(head -c 65 /dev/zero | tr '\0' 'a')" HOSTID="$H_A1" SEQ=100 >"$T/acc"
refused "a 65-byte authenticator" "$T/acc" "too long"
req AUTH="" HOSTID="$H_A1" SEQ=100 >"$T/acc"
refused "an empty authenticator" "$T/acc" "<authenticator> is missing"
# hostid spoofing: B names A1's host; the correct answer is a new host for B
new_case "B's request naming A1's hostid"
req AUTH="$B_AUTH" HOSTID="$H_A1" SEQ=1000 CPU_SECS=3600 CPU_INST=1 >"$T/acc"
post "$T/acc"
new=$(sed -n 's:.*<hostid>\([0-9]*\)</hostid>.*:\1:p' "$T/reply" | head -n 1)
check "B naming A1's hostid: HTTP 200, a reply with a new hostid" eval '[ "$HTTP" = 200 ] && well_formed && [ -n "$new" ] && [ "$new" != "$H_A1" ]'
check "B naming A1's hostid: the new host is B's" eq "$(sql "SELECT userid FROM host WHERE id = ${new:-0}")" "$USER_B"
check "B naming A1's hostid: any job went to B's new host" \
    eq "$(sql "SELECT COUNT(*) FROM result WHERE id IN (0$(claimed_keys | sed 's/result:/,/' | tr -d '\n')) AND (hostid <> ${new:-0} OR userid <> $USER_B)")" 0
expect_db "B naming A1's hostid" "host:$new" $(claimed_keys)
new_case "A's request naming B1's hostid"
req AUTH="$A_AUTH" HOSTID="$H_B1" SEQ=1000 >"$T/acc"
post "$T/acc"
new=$(sed -n 's:.*<hostid>\([0-9]*\)</hostid>.*:\1:p' "$T/reply" | head -n 1)
check "A naming B1's hostid: a new host of A" eval '[ "$HTTP" = 200 ] && [ -n "$new" ] && [ "$new" != "$H_B1" ] && [ "$(sql "SELECT userid FROM host WHERE id = ${new:-0}")" = "$USER_A" ]'
expect_db "A naming B1's hostid" "host:$new"
new_case "a hostid that does not exist"
req HOSTID=2000000000 SEQ=5 >"$T/acc"
post "$T/acc"
new=$(sed -n 's:.*<hostid>\([0-9]*\)</hostid>.*:\1:p' "$T/reply" | head -n 1)
check "hostid 2000000000: a new host of A" eval '[ "$HTTP" = 200 ] && [ -n "$new" ] && [ "$new" != 2000000000 ] && [ "$(sql "SELECT userid FROM host WHERE id = ${new:-0}")" = "$USER_A" ]'
expect_db "hostid 2000000000" "host:$new"
new_case "A1's hostid with an rpc_seqno from the past (a cloned host)"
req HOSTID="$H_A1" SEQ=0 >"$T/acc"
post "$T/acc"
new=$(sed -n 's:.*<hostid>\([0-9]*\)</hostid>.*:\1:p' "$T/reply" | head -n 1)
check "cloned A1: a new host, and a message saying why" eval '[ "$HTTP" = 200 ] && [ -n "$new" ] && [ "$new" != "$H_A1" ] && has_message "looks like a copy"'
expect_db "cloned A1" "host:$new"

# ================================================================ reports
start_group reports
# R1, R2 of A1, R3 of A1 left in progress, RB of B1, RU an unsent result
mapfile -t A1R < <(sql "SELECT name FROM result WHERE hostid = $H_A1 AND server_state = 4 ORDER BY id")
RB=$(sql "SELECT name FROM result WHERE hostid = $H_B1 AND server_state = 4 ORDER BY id LIMIT 1")
if [ "${#A1R[@]}" -lt 4 ]; then
    # A1 asks for more work first (not a case)
    a1 CPU_SECS=14400 CPU_INST=2 >"$T/r"; post "$T/r"
    mapfile -t A1R < <(sql "SELECT name FROM result WHERE hostid = $H_A1 AND server_state = 4 ORDER BY id")
    resnap
fi
R1=${A1R[0]:-} R2=${A1R[1]:-} R3=${A1R[2]:-} R4=${A1R[3]:-}
RU=$(sql "SELECT name FROM result WHERE batch = $BATCHID AND server_state = 2 ORDER BY id LIMIT 1")
check "set-up: A1 holds 4 results, B1 one, one is unsent" eval '[ -n "$R4" ] && [ -n "$RB" ] && [ -n "$RU" ]'
row() { sql "SELECT CONCAT_WS(' ', server_state, outcome, hostid, IFNULL(userid, 'NULL'), exit_status) FROM result WHERE name = '$1'"; }
new_case "A1 reports R1"
a1 RESULTS="$(result_xml "$R1")" >"$T/rep"
post "$T/rep"
check "A1 reports R1: acknowledged" eval '[ "$HTTP" = 200 ] && well_formed && reply_has "<result_ack>" && reply_has "<name>$R1</name>"'
check "A1 reports R1: R1 over, success" eq "$(row "$R1")" "5 1 $H_A1 $USER_A 0"
hav=""
[ -n "$(sql "SELECT 1 FROM host_app_version WHERE host_id = $H_A1")" ] && hav="host_app_version:$H_A1,$AV_CPU"
expect_db "A1 reports R1" "host:$H_A1" "result:$(id_of_result "$R1")" "workunit:$(wu_of_result "$R1")" $hav
new_case "A1 reports R1 again"
a1 RESULTS="$(result_xml "$R1" 3 1)" >"$T/rep"
post "$T/rep"
check "R1 again: acknowledged again" eval '[ "$HTTP" = 200 ] && well_formed && reply_has "<name>$R1</name>"'
check "R1 again: R1 unchanged (still a success)" eq "$(row "$R1")" "5 1 $H_A1 $USER_A 0"
expect_db "R1 again" "host:$H_A1"
new_case "A1 reports R2 twice in one request (success, then error)"
a1 RESULTS="$(result_xml "$R2")$(result_xml "$R2" 3 1)" >"$T/rep"
post "$T/rep"
check "R2 twice in one request: HTTP 200, acknowledged" eval '[ "$HTTP" = 200 ] && well_formed && reply_has "<name>$R2</name>"'
check "R2 twice in one request: R2 over once, with the first report" eq "$(row "$R2")" "5 1 $H_A1 $USER_A 0"
expect_db "R2 twice in one request" "host:$H_A1" "result:$(id_of_result "$R2")" "workunit:$(wu_of_result "$R2")" $hav
new_case "A2 (same user) reports A1's R3"
req HOSTID="$H_A2" SEQ=10 RESULTS="$(result_xml "$R3")" >"$T/rep"
post "$T/rep"
check "A2 reports A1's R3: acknowledged, HTTP 200" eval '[ "$HTTP" = 200 ] && well_formed && reply_has "<name>$R3</name>"'
check "A2 reports A1's R3: R3 still in progress on A1" eq "$(row "$R3")" "4 0 $H_A1 $USER_A 0"
expect_db "A2 reports A1's R3" "host:$H_A2"
new_case "B1 reports A1's R3"
req AUTH="$B_AUTH" HOSTID="$H_B1" SEQ=10 RESULTS="$(result_xml "$R3")" >"$T/rep"
post "$T/rep"
check "B1 reports A1's R3: HTTP 200" eval '[ "$HTTP" = 200 ] && well_formed'
check "B1 reports A1's R3: R3 unchanged" eq "$(row "$R3")" "4 0 $H_A1 $USER_A 0"
expect_db "B1 reports A1's R3" "host:$H_B1"
new_case "B names A1's hostid and reports A1's R4"
req AUTH="$B_AUTH" HOSTID="$H_A1" SEQ=10000 RESULTS="$(result_xml "$R4")" >"$T/rep"
post "$T/rep"
new=$(sed -n 's:.*<hostid>\([0-9]*\)</hostid>.*:\1:p' "$T/reply" | head -n 1)
check "B spoofing A1 reports R4: a new host for B" eval '[ "$HTTP" = 200 ] && [ -n "$new" ] && [ "$new" != "$H_A1" ]'
check "B spoofing A1 reports R4: R4 unchanged" eq "$(row "$R4")" "4 0 $H_A1 $USER_A 0"
expect_db "B spoofing A1 reports R4" "host:$new"
new_case "A1 reports an unsent result"
a1 RESULTS="$(result_xml "$RU")" >"$T/rep"
post "$T/rep"
check "A1 reports unsent $RU: HTTP 200" eval '[ "$HTTP" = 200 ] && well_formed'
check "A1 reports unsent $RU: still unsent, nobody's" eq "$(row "$RU")" "2 0 0 NULL 0"
expect_db "A1 reports an unsent result" "host:$H_A1"
new_case "A1 reports B1's result"
a1 RESULTS="$(result_xml "$RB")" >"$T/rep"
post "$T/rep"
check "A1 reports B1's result: B1's result unchanged" eq "$(row "$RB")" "4 0 $H_B1 $USER_B 0"
expect_db "A1 reports B1's result" "host:$H_A1"
new_case "A1 reports names that do not exist, with quotes and markup"
a1 RESULTS="$(result_xml "nope_$STAMP")$(result_xml "x' OR '1'='1")$(result_xml 'a&lt;/name&gt;&lt;evil/&gt;&quot;')" >"$T/rep"
post "$T/rep"
check "unknown names: HTTP 200, a well-formed reply acknowledging them" \
    eval '[ "$HTTP" = 200 ] && well_formed && [ "$(grep -c "<result_ack>" "$T/reply")" = 3 ]'
check "unknown names: the markup comes back escaped" eval 'reply_lacks "<evil/>" && reply_has "&lt;evil/&gt;"'
expect_db "unknown names" "host:$H_A1"
new_case "A1 reports a name of 255 bytes (the parser's limit)"
a1 RESULTS="$(result_xml "$(head -c 255 /dev/zero | tr '\0' 'r')")" >"$T/rep"
post "$T/rep"
check "a 255-byte name: HTTP 200, acknowledged, no error" \
    eval '[ "$HTTP" = 200 ] && well_formed && reply_has "<result_ack>" && reply_lacks "busy"'
expect_db "a 255-byte name" "host:$H_A1"
{
    a1 | sed '$d'
    for ((k = 0; k < 257; k++)); do result_xml "many_${k}_$STAMP"; done
    echo '</scheduler_request>'
} >"$T/rep"
refused "257 reported results (the cap is 256)" "$T/rep" "too many"

# ================================================================ names
start_group names
name_case() {  # name_case DESC COLUMN VALUE-AS-STORED REQ-ARGS...
    local desc=$1 col=$2 want=$3
    shift 3
    new_case "$desc"
    a1 "$@" >"$T/name"
    post "$T/name"
    check "$desc: HTTP 200, a well-formed reply without error" \
        eval '[ "$HTTP" = 200 ] && well_formed && reply_lacks "could not read" && reply_lacks "busy"'
    check "$desc: stored byte for byte" \
        eq "$(sql "SELECT HEX($col) FROM host WHERE id = $H_A1")" "$(printf '%s' "$want" | od -v -An -tx1 | tr -d ' \n' | tr 'a-f' 'A-F')"
    expect_db "$desc" "host:$H_A1"
}
name_case "domain_name with quotes and markup" domain_name "O'Brien \"lab\" <pc> & co" \
    DOMAIN="O&apos;Brien &quot;lab&quot; &lt;pc&gt; &amp; co"
name_case "domain_name in UTF-8 (4-byte characters too)" domain_name "Rechner-Müller-計算機-🚀" \
    DOMAIN="Rechner-Müller-計算機-🚀"
name_case "os_name with DEL and C1 characters" os_name "Linux"$'\x7f'"x"$'\xc2\x85'"y" \
    OSNAME="Linux"$'\x7f'"x"$'\xc2\x85'"y"
long255=$(head -c 255 /dev/zero | tr '\0' 'm')
name_case "p_model of 255 bytes (the parser's limit)" p_model "$long255" PMODEL="$long255"
name_case "domain_name of 255 bytes" domain_name "$long255" DOMAIN="$long255"
u85=$(for ((k = 0; k < 85; k++)); do printf '語'; done)
name_case "p_model of 85 three-byte characters (255 bytes)" p_model "$u85" PMODEL="$u85"
a1 PMODEL="$(head -c 256 /dev/zero | tr '\0' 'm')" >"$T/name"
refused "p_model of 256 bytes" "$T/name" "too long"
a1 DOMAIN="bad"$'\x01'"byte" >"$T/name"
refused "a raw control byte (0x01) in domain_name" "$T/name" "could not read"
a1 DOMAIN="bad&#1;ref" >"$T/name"
refused "a character reference to 0x01" "$T/name" "could not read"
a1 DOMAIN="over"$'\xc0\xaf'"long" >"$T/name"
refused "overlong UTF-8 (C0 AF) in domain_name" "$T/name" "not proper UTF-8"
a1 DOMAIN="half"$'\xed\xa0\x80'"surrogate" >"$T/name"
refused "a UTF-16 surrogate encoded in UTF-8" "$T/name" "could not read"
new_case "a platform name with quotes and markup"
a1 PLAT="x86' &quot;&lt;plat&gt;&amp;" CPU_SECS=3600 CPU_INST=1 >"$T/name"
post "$T/name"
check "hostile platform name: HTTP 200, no job, a 'no application' notice" \
    eval '[ "$HTTP" = 200 ] && well_formed && reply_lacks "<result>" && has_message "no application"'
expect_db "hostile platform name" "host:$H_A1"

# ================================================================ gpus
start_group gpus
gpu_case() {  # gpu_case DESC COPROCS-XML CPU_SECS [REPLY-SUBSTRING]
    local desc=$1 cp=$2 cpu=$3 sub=${4:-}
    new_case "$desc"
    a1 COPROCS="<coprocs>$cp</coprocs>" CPU_SECS="$cpu" CPU_INST=$([ "$cpu" = 0 ] && echo 0 || echo 1) >"$T/gpu"
    post "$T/gpu"
    check "$desc: HTTP 200, a well-formed reply" eval '[ "$HTTP" = 200 ] && well_formed'
    check "$desc: no job for the NVIDIA version" reply_lacks "<plan_class>cuda</plan_class>"
    check "$desc: every job sent is a CPU job" \
        eq "$(sql "SELECT COUNT(*) FROM result WHERE id IN (0$(claimed_keys | sed 's/result:/,/' | tr -d '\n')) AND app_version_id <> $AV_CPU")" 0
    [ -z "$sub" ] || check "$desc: the reply says '$sub'" reply_has "$sub"
    expect_db "$desc" "host:$H_A1" $(claimed_keys)
}
gpu_case "NVIDIA work asked with 0 NVIDIA GPUs" \
    '<coproc_cuda><count>0</count><peak_flops>1e13</peak_flops><req_secs>36000</req_secs><req_instances>1</req_instances></coproc_cuda>' 0
gpu_case "NVIDIA work asked as a generic coproc with count 0" \
    '<coproc><type>NVIDIA</type><count>0</count><peak_flops>1e13</peak_flops><req_secs>36000</req_secs><req_instances>3</req_instances></coproc>' 0
gpu_case "ATI work (the project has no ATI version)" \
    '<coproc_ati><count>1</count><peak_flops>1e13</peak_flops><req_secs>36000</req_secs><req_instances>1</req_instances></coproc_ati>' 0 "<rsc>ATI</rsc>"
gpu_case "Intel GPU work (no version either)" \
    '<coproc_intel_gpu><count>1</count><peak_flops>1e12</peak_flops><req_secs>36000</req_secs><req_instances>1</req_instances></coproc_intel_gpu>' 0 "<rsc>intel_gpu</rsc>"
gpu_case "an unknown coprocessor type with CPU work too" \
    '<coproc><type>quantum_xyz</type><count>4</count><peak_flops>1e13</peak_flops><req_secs>36000</req_secs><req_instances>4</req_instances></coproc>' 3600
gpu_case "an NVIDIA GPU that wants no work, CPU work wanted" \
    '<coproc_cuda><count>1</count><peak_flops>1e13</peak_flops><req_secs>0</req_secs><req_instances>0</req_instances></coproc_cuda>' 3600
new_case "an NVIDIA GPU asking for NVIDIA work (the control)"
a1 COPROCS='<coprocs><coproc_cuda><count>1</count><peak_flops>1e13</peak_flops><req_secs>3600</req_secs><req_instances>1</req_instances></coproc_cuda></coprocs>' >"$T/gpu"
post "$T/gpu"
check "NVIDIA control: an NVIDIA job" eval '[ "$HTTP" = 200 ] && well_formed && reply_has "<plan_class>cuda</plan_class>"'
check "NVIDIA control: claimed with the NVIDIA version" \
    eq "$(sql "SELECT COUNT(*) FROM result WHERE id IN (0$(claimed_keys | sed 's/result:/,/' | tr -d '\n')) AND app_version_id = $AV_GPU")" "$(reply_results | wc -l | tr -d ' ')"
expect_db "NVIDIA control" "host:$H_A1" $(claimed_keys)

# ================================================================ window
# Jobs of another app, which this host cannot run, come first in job
# order: the host must still get a job of ours.
start_group window
avail_min() {
    sql "SELECT IFNULL(MIN(r.job_num), -1) FROM result r WHERE r.batch = $BATCHID
         AND r.server_state = 2 AND NOT EXISTS (SELECT 1 FROM result o
         WHERE o.workunitid = r.workunitid AND o.userid = $USER_A)"
}
my_min=$(avail_min)
if [ "$my_min" -lt 7 ]; then
    a1 CPU_SECS=57600 CPU_INST=2 >"$T/w"; post "$T/w"
    my_min=$(avail_min)
fi
repl=$(((129 + my_min - 1) / (my_min > 0 ? my_min : 1)))
[ "$repl" -le 20 ] || repl=20
printf '#!/bin/sh\nexit 0 # other\n' >"$T/${APP}_other"
"$top_builddir/tools/add_app_version" --config "$LOCSCHED_CONFIG" --app "${APP}_other" --version 100 \
    --platform "$PLAT-other" --file "$T/${APP}_other" --key "$KEY" >"$T/av.out" 2>&1 ||
    { cat "$T/av.out"; bail "add_app_version (other platform) failed"; }
: >"$T/jobs_other"
for ((j = 0; j < my_min; j++)); do echo "0 1 3.6e12" >>"$T/jobs_other"; done
BATCHES+=("${BATCH}_other")
"$top_builddir/tools/create_batch" --config "$LOCSCHED_CONFIG" --name "${BATCH}_other" \
    --app "${APP}_other" --generate-files 1:100 --jobs "$T/jobs_other" --replication "$repl" \
    >"$T/batch.out" 2>&1 || { cat "$T/batch.out"; bail "create_batch (other platform) failed"; }
echo "# our first job open to A: job $my_min; another app's batch: $my_min jobs x $repl replicas before it"
check "set-up: at least 129 results of another platform come before ours" le 129 $((my_min * repl))
resnap
new_case "another platform's jobs first in job order"
a1 CPU_SECS=3600 CPU_INST=1 >"$T/w"
post "$T/w"
check "another platform's jobs first: A1 still gets a job of ours" \
    eval '[ "$HTTP" = 200 ] && well_formed && reply_has "<result>"'
expect_db "another platform's jobs first" "host:$H_A1" $(claimed_keys)

# ================================================================ http
start_group http
new_case "GET"
HTTP=$(curl -sS --max-time 30 -o "$T/reply" -w '%{http_code}' "$SCHED_URL" 2>/dev/null)
check "GET: HTTP 200 and a message to use a BOINC client" eval '[ "$HTTP" = 200 ] && well_formed && has_message "BOINC client"'
expect_db "GET"
new_case "PUT with a valid body"
a1 CPU_SECS=3600 CPU_INST=1 >"$T/put"
SEQ_A1=$((SEQ_A1 - 1))
HTTP=$(curl -sS --max-time 30 -X PUT --data-binary @"$T/put" -o "$T/reply" -w '%{http_code}' "$SCHED_URL" 2>/dev/null)
check "PUT: HTTP 200, not served" eval '[ "$HTTP" = 200 ] && well_formed && has_message "BOINC client" && reply_lacks "<result>"'
expect_db "PUT"
: >"$T/empty"
refused "an empty POST" "$T/empty" "empty request body"
new_case "a body shorter than its Content-Length"
a1 CPU_SECS=3600 CPU_INST=1 >"$T/short"
SEQ_A1=$((SEQ_A1 - 1))
(
    exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT" || exit 1
    printf 'POST /cgi-bin/scheduler HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n' >&3
    head -c 2000 "$T/short" >&3
    exec 3>&-
) 2>/dev/null
sleep 1
a1 >"$T/after"
post "$T/after"
check "after a short body, the next request is served" eval '[ "$HTTP" = 200 ] && well_formed && reply_lacks "could not read"'
expect_db "a short body, then a normal request" "host:$H_A1"

# ================================================================ slowloris
start_group slowloris
workers=$(sed -n 's/^[[:space:]]*MaxRequestWorkers[[:space:]]\{1,\}\([0-9]*\).*/\1/p' "$AP_CONF" | head -n 1)
workers=${workers:-16}
reqtimeout=0
grep -Eq '^[[:space:]]*LoadModule[[:space:]]+reqtimeout_module' "$AP_CONF" && reqtimeout=1
hdr_timeout=$(sed -n 's/^[[:space:]]*RequestReadTimeout.*header=\([0-9]*\).*/\1/p' "$AP_CONF" | head -n 1)
new_case "mod_reqtimeout in the sandbox's Apache"
check "mod_reqtimeout is loaded and RequestReadTimeout sets a header timeout" \
    eval '[ "$reqtimeout" = 1 ] && [ -n "$hdr_timeout" ]'
if [ "$reqtimeout" != 1 ] || [ -z "$hdr_timeout" ]; then
    echo "#   add to the generated httpd.conf (tools/sandbox, write_apache_conf):"
    echo "#     LoadModule reqtimeout_module \"\$MODDIR/mod_reqtimeout.so\""
    echo "#     RequestReadTimeout handshake=5 header=10-20,MinRate=500 body=20,MinRate=500"
    # without it the slow connections hold every worker for as long as
    # they like: show that with a short attack
    hdr_timeout=5
fi
# slow NCONN SECONDS: NCONN connections that send a request line and then
# a header line every 2 s, for at most SECONDS; each prints how it ended.
slow() {
    local k
    for ((k = 0; k < $1; k++)); do
        (
            trap '' PIPE
            exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT" || { echo refused; exit 0; }
            printf 'POST /cgi-bin/scheduler HTTP/1.1\r\nHost: 127.0.0.1\r\n' >&3 2>/dev/null
            local t0=$SECONDS
            while [ $((SECONDS - t0)) -lt "$2" ]; do
                sleep 2
                printf 'X-Slow-%d: %d\r\n' "$k" "$SECONDS" >&3 2>/dev/null || { echo "closed"; exit 0; }
            done
            echo "open"
        ) >>"$T/slow.out" 2>/dev/null &
        SLOW_PIDS+=("$!")
    done
}
if [ "${SLOWLORIS:-1}" = 0 ]; then
    echo "# SLOWLORIS=0: slow clients skipped"
else
    # fewer slow connections than workers: others are served at once
    : >"$T/slow.out"
    few=$((workers / 2))
    slow "$few" 12
    sleep 2
    new_case "$few slow connections (half the workers)"
    a1 CPU_SECS=0 >"$T/normal"
    post "$T/normal"
    check "$few slow connections: a normal request answered within 2 s ($TIME s)" \
        eval '[ "$HTTP" = 200 ] && well_formed && le "$TIME" 2'
    for p in "${SLOW_PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait "${SLOW_PIDS[@]}" 2>/dev/null
    SLOW_PIDS=()
    expect_db "$few slow connections" "host:$H_A1"
    # twice as many slow connections as workers: the server must drop them
    # after its header timeout and answer the normal request meanwhile (it
    # waits behind the first two rounds of slow connections at most)
    : >"$T/slow.out"
    many=$((2 * workers))
    bound=$((2 * hdr_timeout + 5))
    slow "$many" $((bound + 10))
    sleep 2
    new_case "$many slow connections (twice the workers)"
    a1 CPU_SECS=0 >"$T/normal"
    post "$T/normal" --max-time $((bound + 5))
    echo "# $many slow connections: the normal request took $TIME s (HTTP $HTTP)"
    check "$many slow connections: a normal request answered within ${bound} s ($TIME s)" \
        eval '[ "$HTTP" = 200 ] && well_formed && le "$TIME" "$bound"'
    for ((i = 0; i < bound + 12; i++)); do
        [ "$(grep -c . "$T/slow.out")" -ge "$many" ] && break
        sleep 1
    done
    closed=$(grep -c '^closed' "$T/slow.out")
    echo "# slow connections: $closed of $many closed by the server, $(grep -c '^open' "$T/slow.out") still open"
    check "$many slow connections: the server closed them all (header timeout)" eq "$closed" "$many"
    for p in "${SLOW_PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait "${SLOW_PIDS[@]}" 2>/dev/null
    SLOW_PIDS=()
    expect_db "$many slow connections" "host:$H_A1"
    new_case "after the slow clients"
    a1 CPU_SECS=0 >"$T/normal"
    post "$T/normal"
    check "after the slow clients: answered within 2 s ($TIME s)" eval '[ "$HTTP" = 200 ] && le "$TIME" 2'
    expect_db "after the slow clients" "host:$H_A1"
fi

# ---------------------------------------------------------------- summary
for g in corpus truncated entities nesting size numbers accounts reports names gpus window http slowloris; do
    echo "# group $g: ${group_cases[$g]:-0} cases"
done
echo "# $cases hostile cases"
check "at least 60 hostile cases ($cases)" le 60 "$cases"
echo "1..$n"
[ "$failed" = 0 ] || echo "# $failed of $n checks failed"
[ "$failed" = 0 ]
