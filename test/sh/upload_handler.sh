#!/usr/bin/env bash
# upload_handler.sh - sandbox test of sched/file_upload_handler through
# Apache and mod_fcgid, speaking the BOINC client's upload protocol with
# curl (request layout as client 7.20.5 sends it; see test/data/).
#
# Needs the sandbox environment (doc/hacking.md; run_suite exports it):
#   UPLOAD_URL   the handler's URL
#   PROJECT_DIR  the project folder: keys/upload_hmac_key, upload/
# and curl, openssl, md5sum.  Signatures are computed here independently
# of the C code: HMAC-SHA256 over "name=NAME\nmax_nbytes=M\n" with the
# project's key (sched/wire/upload_auth.h).
#
# Prints TAP; exit status 1 if any check failed.  Every file it uploads
# has a name starting with a per-run prefix and is removed at the end.
set -u

if [ -z "${UPLOAD_URL:-}" ] || [ -z "${PROJECT_DIR:-}" ]; then
    echo "Bail out! UPLOAD_URL and PROJECT_DIR must be set (eval \"\$(tools/sandbox env)\")"
    exit 1
fi
for c in curl openssl md5sum; do
    command -v "$c" >/dev/null 2>&1 || { echo "Bail out! $c is not installed"; exit 1; }
done
KEY_FILE=$PROJECT_DIR/keys/upload_hmac_key
UP=$PROJECT_DIR/upload
[ -r "$KEY_FILE" ] || { echo "Bail out! cannot read $KEY_FILE"; exit 1; }
[ -d "$UP" ] || { echo "Bail out! $UP is not a folder"; exit 1; }
KEY=$(tr -d ' \t\r\n' <"$KEY_FILE")

T=$(mktemp -d "${TMPDIR:-/tmp}/upload_handler.XXXXXX")
PFX=uht_$$_$(date +%s)
cleanup() {
    rm -rf "$T"
    rm -f "$UP/$PFX"_* 2>/dev/null || true
}
trap cleanup EXIT

. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"
# after a failed check: the last reply
tap_on_failure() {
    if [ -s "$T/reply" ]; then
        echo "#   last reply (HTTP $HTTP):"
        sed 's/^/#   | /' "$T/reply"
    fi
}

# sig NAME MAX_NBYTES: the server's signature of an output file.
sig() {
    printf 'name=%s\nmax_nbytes=%s\n' "$1" "$2" |
        openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY" | awk '{print $NF}'
}

# body NAME SIG MAX NBYTES MD5 OFFSET FILE [COUNT]: an upload request in
# $T/body: the header as the client writes it, then COUNT bytes (default:
# all the rest) of FILE from OFFSET.
body() {
    {
        printf '<data_server_request>\n'
        printf '    <core_client_major_version>7</core_client_major_version>\n'
        printf '    <core_client_minor_version>20</core_client_minor_version>\n'
        printf '    <core_client_release>5</core_client_release>\n'
        printf '<file_upload>\n<file_info>\n<name>%s</name>\n' "$1"
        printf '<xml_signature>\n%s</xml_signature>\n' "$2"
        printf '<max_nbytes>%s</max_nbytes>\n</file_info>\n' "$3"
        printf '<nbytes>%s</nbytes>\n<md5_cksum>%s</md5_cksum>\n' "$4" "$5"
        printf '<offset>%s</offset>\n<data>\n' "$6"
        if [ -n "${8:-}" ]; then
            tail -c +$(($6 + 1)) "$7" | head -c "$8"
        else
            tail -c +$(($6 + 1)) "$7"
        fi
    } >"$T/body"
}

# size_query NAME: a get_file_size request in $T/body.
size_query() {
    printf '<data_server_request>\n    <core_client_major_version>7</core_client_major_version>\n    <core_client_minor_version>20</core_client_minor_version>\n    <core_client_release>5</core_client_release>\n    <get_file_size>%s</get_file_size>\n</data_server_request>\n' "$1" >"$T/body"
}

# post [FILE]: POST FILE (default $T/body) like the client; sets HTTP, ST
# (reply status) and FSIZE (reply file_size).
post() {
    local f=${1:-$T/body}
    : >"$T/reply"
    HTTP=$(curl -sS --max-time 60 -H 'Content-Type: application/x-www-form-urlencoded' \
                --data-binary @"$f" -o "$T/reply" -w '%{http_code}' "$UPLOAD_URL" 2>"$T/curl.err") ||
        HTTP="curl failed: $(cat "$T/curl.err")"
    ST=$(tr -d '\n' <"$T/reply" | sed -n 's:.*<status>\(-\{0,1\}[0-9][0-9]*\)</status>.*:\1:p')
    FSIZE=$(tr -d '\n' <"$T/reply" | sed -n 's:.*<file_size>\([0-9][0-9]*\)</file_size>.*:\1:p')
}

md5() { md5sum "$1" | cut -c1-32; }
fsize() { wc -c <"$1" | tr -d ' '; }

# --- test files
printf 'MINIMAL REPLY INPUT\n' >"$T/small"
head -c 20000 /dev/urandom >"$T/mid"
head -c 300000 /dev/urandom >"$T/big"
head -c 1000000 /dev/urandom >"$T/mb"
: >"$T/empty"

# 1. size of an unknown file
name=${PFX}_unknown
size_query "$name"
post
check "get_file_size of an unknown file: HTTP 200" eq "$HTTP" 200
check "get_file_size of an unknown file: status 0" eq "$ST" 0
check "get_file_size of an unknown file: file_size 0" eq "$FSIZE" 0
check "get_file_size creates no file" test ! -e "$UP/$name"

# 2. a small upload with a valid signature
name=${PFX}_small
body "$name" "$(sig "$name" 100000)" 100000 20 "$(md5 "$T/small")" 0 "$T/small"
post
check "small upload: HTTP 200" eq "$HTTP" 200
check "small upload: status 0" eq "$ST" 0
check "small upload: file stored in upload/" test -f "$UP/$name"
check "small upload: bytes intact" cmp -s "$T/small" "$UP/$name"
size_query "$name"
post
check "get_file_size after the upload: 20" eq "$FSIZE" 20
body "$name" "$(sig "$name" 100000)" 100000 20 "$(md5 "$T/small")" 0 "$T/small"
post
check "repeating a finished upload: status 0" eq "$ST" 0
check "repeating a finished upload: file unchanged" cmp -s "$T/small" "$UP/$name"

# 3. forged permissions
name=${PFX}_badsig
body "$name" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" 100000 20 \
    "$(md5 "$T/small")" 0 "$T/small"
post
check "bad signature: HTTP 200" eq "$HTTP" 200
check "bad signature: status -1" eq "$ST" -1
check "bad signature: no file" test ! -e "$UP/$name"
body "$name" "" 100000 20 "$(md5 "$T/small")" 0 "$T/small"
post
check "empty signature: status -1" eq "$ST" -1
body "$name" "$(sig "$name" 100)" 100000 20 "$(md5 "$T/small")" 0 "$T/small"
post
check "signature for a smaller max_nbytes: status -1" eq "$ST" -1
body "$name" "$(sig "${PFX}_other" 100000)" 100000 20 "$(md5 "$T/small")" 0 "$T/small"
post
check "signature of another file: status -1" eq "$ST" -1
check "no file after forged uploads" test ! -e "$UP/$name"

# 4. too big
name=${PFX}_toobig
body "$name" "$(sig "$name" 10)" 10 20 "$(md5 "$T/small")" 0 "$T/small"
post
check "nbytes over max_nbytes: status -1" eq "$ST" -1
check "nbytes over max_nbytes: no file" test ! -e "$UP/$name"
body "$name" "$(sig "$name" 100)" 100 10 "" 0 "$T/small"
post
check "more data than nbytes: status -1" eq "$ST" -1
check "more data than nbytes: no file" test ! -e "$UP/$name"

# 5. hostile names
for bad in "../${PFX}_trav" "/tmp/${PFX}_abs" ".${PFX}_dot" "${PFX}_a/b"; do
    body "$bad" "$(sig "$bad" 100000)" 100000 20 "$(md5 "$T/small")" 0 "$T/small"
    post
    check "name '$bad': status -1" eq "$ST" -1
done
check "traversal wrote nothing outside upload/" test ! -e "$PROJECT_DIR/${PFX}_trav"
size_query "../${PFX}_trav"
post
check "get_file_size with a traversal name: status -1" eq "$ST" -1

# 6. resumed upload in two parts (the first request cut short)
name=${PFX}_resume
s=$(sig "$name" 50000)
body "$name" "$s" 50000 20000 "$(md5 "$T/mid")" 0 "$T/mid" 8000
post
check "first part of a resumed upload: status 1 (incomplete)" eq "$ST" 1
size_query "$name"
post
check "get_file_size after the first part: 8000" eq "$FSIZE" 8000
body "$name" "$s" 50000 20000 "$(md5 "$T/mid")" 9000 "$T/mid"
post
check "resume leaving a gap: status 1" eq "$ST" 1
body "$name" "$s" 50000 20000 "$(md5 "$T/mid")" 8000 "$T/mid"
post
check "second part of a resumed upload: status 0" eq "$ST" 0
check "resumed upload: file intact" cmp -s "$T/mid" "$UP/$name"

# overlapping resume: the client resends from an earlier offset
name=${PFX}_overlap
s=$(sig "$name" 20000)
body "$name" "$s" 20000 20000 "$(md5 "$T/mid")" 0 "$T/mid" 12000
post
check "overlap: first part status 1" eq "$ST" 1
body "$name" "$s" 20000 20000 "$(md5 "$T/mid")" 5000 "$T/mid"
post
check "overlap: resend from an earlier offset, status 0" eq "$ST" 0
check "overlap: file intact" cmp -s "$T/mid" "$UP/$name"

# 7. md5 mismatch
name=${PFX}_md5
body "$name" "$(sig "$name" 100000)" 100000 20 "0123456789abcdef0123456789abcdef" 0 "$T/small"
post
check "md5 mismatch: status -1" eq "$ST" -1
check "md5 mismatch: no file left" test ! -e "$UP/$name"
name=${PFX}_md5resume
s=$(sig "$name" 20000)
body "$name" "$s" 20000 20000 "0123456789abcdef0123456789abcdef" 0 "$T/mid" 10000
post
body "$name" "$s" 20000 20000 "0123456789abcdef0123456789abcdef" 10000 "$T/mid"
post
check "md5 mismatch after a resume: status -1" eq "$ST" -1
check "md5 mismatch after a resume: no file left" test ! -e "$UP/$name"

# 8. sizes: empty file, a file over the handler's 64 KB buffer
name=${PFX}_empty
body "$name" "$(sig "$name" 0)" 0 0 "$(md5 "$T/empty")" 0 "$T/empty"
post
check "empty file: status 0" eq "$ST" 0
check "empty file: stored, 0 bytes" eq "$(fsize "$UP/$name" 2>/dev/null)" 0
name=${PFX}_big
body "$name" "$(sig "$name" 300000)" 300000 300000 "$(md5 "$T/big")" 0 "$T/big"
post
check "300 KB upload: status 0" eq "$ST" 0
check "300 KB upload: file intact" cmp -s "$T/big" "$UP/$name"
name=${PFX}_nomd5
body "$name" "$(sig "$name" 300000)" 300000 300000 "" 0 "$T/big"
post
check "upload without md5_cksum: status 0" eq "$ST" 0
check "upload without md5_cksum: file intact" cmp -s "$T/big" "$UP/$name"
name=${PFX}_bigbad
body "$name" "0000000000000000000000000000000000000000000000000000000000000000" 1000000 1000000 \
    "$(md5 "$T/mb")" 0 "$T/mb"
post
check "1 MB upload with a bad signature: HTTP 200 (body drained)" eq "$HTTP" 200
check "1 MB upload with a bad signature: status -1" eq "$ST" -1

# 9. two concurrent uploads of one file
name=${PFX}_conc
body "$name" "$(sig "$name" 1000000)" 1000000 1000000 "$(md5 "$T/mb")" 0 "$T/mb"
cp "$T/body" "$T/body2"
for i in 1 2; do
    curl -sS --max-time 60 -H 'Content-Type: application/x-www-form-urlencoded' \
        --data-binary @"$T/body$([ $i = 2 ] && echo 2)" -o "$T/conc$i" "$UPLOAD_URL" &
done
wait
c1=$(tr -d '\n' <"$T/conc1" | sed -n 's:.*<status>\(-\{0,1\}[0-9]*\)</status>.*:\1:p')
c2=$(tr -d '\n' <"$T/conc2" | sed -n 's:.*<status>\(-\{0,1\}[0-9]*\)</status>.*:\1:p')
check "concurrent uploads: one succeeds, none fails permanently ($c1, $c2)" \
    bash -c '[ "$1" = 0 -o "$2" = 0 ] && [ "$1" != -1 ] && [ "$2" != -1 ]' _ "$c1" "$c2"
check "concurrent uploads: file intact" cmp -s "$T/mb" "$UP/$name"

# 10. the per-file lock, held here with flock(1) the way a concurrent
# upload in another handler process holds it
name=${PFX}_lock
s=$(sig "$name" 20000)
body "$name" "$s" 20000 20000 "$(md5 "$T/mid")" 0 "$T/mid" 4000
post
check "lock: first part stored (status 1, incomplete)" eq "$ST" 1
if command -v flock >/dev/null 2>&1 && [ -f "$UP/$name" ]; then
    flock -x "$UP/$name" sleep 6 &
    holder=$!
    sleep 0.5
    body "$name" "$s" 20000 20000 "$(md5 "$T/mid")" 4000 "$T/mid"
    post
    check "lock held by another upload: status 1 (busy)" eq "$ST" 1
    check "lock held: nothing written meanwhile" eq "$(fsize "$UP/$name")" 4000
    wait "$holder"
    flock -x "$UP/$name" sleep 1 &
    holder=$!
    sleep 0.3
    post
    check "lock released within the wait: status 0" eq "$ST" 0
    wait "$holder"
    check "lock: file intact" cmp -s "$T/mid" "$UP/$name"
else
    for d in "lock held: status 1" "lock held: nothing written" "lock released: status 0" \
             "lock: file intact"; do
        n=$((n + 1))
        echo "ok $n - $d # SKIP flock(1) not installed"
    done
fi

# 11. malformed requests
printf '<data_server_request>\n<file_upload>\n<file_info>\n<name>%s_x</name>\n' "$PFX" >"$T/body"
post
check "upload without <data>: status -1" eq "$ST" -1
HTTP=$(curl -sS --max-time 60 -o "$T/reply" -w '%{http_code}' "$UPLOAD_URL")
ST=$(tr -d '\n' <"$T/reply" | sed -n 's:.*<status>\(-\{0,1\}[0-9]*\)</status>.*:\1:p')
check "GET: HTTP 200" eq "$HTTP" 200
check "GET: status -1" eq "$ST" -1

# 12. a body over the cap (Apache's LimitRequestBody, 2,200,000 bytes):
# HTTP 413 from Apache, and nothing reaches the upload folder
before=$(ls "$UP" | wc -l)
head -c 3000000 /dev/zero >"$T/body"
post
check "3 MB body: HTTP 413" eq "$HTTP" 413
check "3 MB body: nothing stored" eq "$(ls "$UP" | wc -l)" "$before"

echo "1..$n"
[ "$failed" = 0 ]
