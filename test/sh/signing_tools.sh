#!/usr/bin/env bash
# signing_tools.sh - test of the code-signing steps of the admin guide, as
# an administrator runs them on a fresh offline machine and the server:
#   - gen_code_sign_key --out-dir DIR makes DIR when it does not exist
#     (mode 700, it holds the private key), and never overwrites a key;
#   - add_app_version --signatures refuses an empty signature (what a
#     failed sign_file leaves) and one that does not verify against the
#     project's keys/code_sign_public, registering nothing and leaving no
#     file in download/; it registers one made with the project's key.
#
# Needs the sandbox environment (doc/hacking.md; run_suite exports it):
#   LOCSCHED_CONFIG, PROJECT_DIR (with keys/code_sign_public and the
#   sandbox's keys/code_sign_private.pem), DB_SOCKET, DB_NAME, DB_USER,
#   DB_PASSWORD; and top_builddir (the tools).  Prints TAP; exit status 1
#   if any check failed.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"
for v in LOCSCHED_CONFIG PROJECT_DIR DB_SOCKET DB_NAME DB_USER DB_PASSWORD; do
    [ -n "${!v:-}" ] || bail "$v must be set (eval \"\$(tools/sandbox env)\")"
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src_top=${top_srcdir:-$(dirname "$(dirname "$here")")}
build=${top_builddir:-${LOCSCHED_BUILD_DIR:-$src_top}}
GEN=$build/tools/gen_code_sign_key
SIGN=$build/tools/sign_file
ADD=$build/tools/add_app_version
for p in "$GEN" "$SIGN" "$ADD"; do
    [ -x "$p" ] || bail "$p is missing or not built"
done
PROJECT_KEY=$PROJECT_DIR/keys/code_sign_private.pem
[ -r "$PROJECT_KEY" ] && [ -r "$PROJECT_DIR/keys/code_sign_public" ] ||
    bail "the sandbox has no code-signing pair in $PROJECT_DIR/keys"
MARIADB=$(command -v mariadb || command -v mysql) || bail "the mariadb client is not installed"
sql() {
    MYSQL_PWD=$DB_PASSWORD "$MARIADB" --no-defaults --socket="$DB_SOCKET" -u "$DB_USER" \
        --batch --raw --skip-column-names "$DB_NAME" -e "$1"
}

T=$(mktemp -d "${TMPDIR:-/tmp}/signing_tools.XXXXXX")
trap 'rm -rf "$T"' EXIT
tap_on_failure() {
    if [ -s "$T/out" ]; then
        echo "#   last output:"
        sed 's/^/#   | /' "$T/out"
    fi
}
said() { grep -qF -- "$1" "$T/out" || { echo "#   output lacks: $1"; return 1; }; }
rc_is() { [ "$rc" = "$1" ] || { echo "#   exit status $rc, want $1"; return 1; }; }
mode_is() {
    local got
    got=$(stat -c '%a' "$1") && [ "$got" = "$2" ] || { echo "#   $1: mode '$got', want '$2'"; return 1; }
}

# ---- gen_code_sign_key on a fresh "offline machine": the folder is made
OFF=$T/offline
mkdir "$OFF"
(cd "$OFF" && "$GEN" --out-dir keys --bits 512) >"$T/out" 2>&1
rc=$?
check "gen_code_sign_key --out-dir keys, keys/ not there yet" rc_is 0
check "it made keys/ with mode 700" mode_is "$OFF/keys" 700
check "it wrote keys/code_sign_public" test -s "$OFF/keys/code_sign_public"
check "the private key has mode 600" mode_is "$OFF/keys/code_sign_private.pem" 600
"$GEN" --out-dir "$T/deeper/still/keys" --bits 512 >"$T/out" 2>&1
rc=$?
check "a folder whose parents are missing too is made" rc_is 0
check "its last folder has mode 700" mode_is "$T/deeper/still/keys" 700
before=$(md5sum <"$OFF/keys/code_sign_private.pem")
(cd "$OFF" && "$GEN" --out-dir keys --bits 512) >"$T/out" 2>&1
rc=$?
check "run again: refuses to overwrite the pair" rc_is 1
check "the private key is unchanged" eq "$(md5sum <"$OFF/keys/code_sign_private.pem")" "$before"
: >"$T/plainfile"
"$GEN" --out-dir "$T/plainfile" --bits 512 >"$T/out" 2>&1
rc=$?
check "--out-dir naming a file is an error" rc_is 1
check "which says it is not a folder" said "is not a folder"

# ---- add_app_version --signatures on the server
stamp=$(date +%s)$$
APPNAME=sigtest_$stamp
PROG=$T/${APPNAME}_1_x86_64-pc-linux-gnu
printf '#!/bin/sh\necho %s\n' "$stamp" >"$PROG"
mkdir "$T/sigs"
SIGF=$T/sigs/$(basename "$PROG").sig
DL=$(sed -n 's/^[[:space:]]*download_dir[[:space:]]*=[[:space:]]*//p' "$LOCSCHED_CONFIG" | tail -n 1)
case $DL in /*) ;; *) DL=$(dirname "$LOCSCHED_CONFIG")/${DL:-download} ;; esac
add() {
    "$ADD" --config "$LOCSCHED_CONFIG" --app "$APPNAME" --version 1 --file "$PROG" \
        --signatures "$T/sigs" >"$T/out" 2>&1
    rc=$?
}
registered() { sql "SELECT COUNT(*) FROM app_version av JOIN app a ON a.id = av.appid WHERE a.name = '$APPNAME'"; }
staged() { [ -e "$DL/$(basename "$PROG")" ] && echo yes || echo no; }

: >"$SIGF"     # what "sign_file ... > sig" leaves when sign_file fails
add
check "an empty signature is refused" rc_is 1
check "the error says it is empty" said "is empty"
check "nothing registered for the empty signature" eq "$(registered)" 0
check "no file left in download/ for the empty signature" eq "$(staged)" no

printf '\n  \n' >"$SIGF"
add
check "a signature of blank lines is refused too" rc_is 1

"$SIGN" --key "$OFF/keys/code_sign_private.pem" "$PROG" >"$SIGF" 2>"$T/out" ||
    bail "sign_file failed"
add
check "a signature by another key than the project's is refused" rc_is 1
check "the error says it does not verify against code_sign_public" \
    said "does not verify against"
check "nothing registered for the foreign signature" eq "$(registered)" 0
check "no file left in download/ for the foreign signature" eq "$(staged)" no

echo "another file" >"$T/otherfile"
"$SIGN" --key "$PROJECT_KEY" "$T/otherfile" >"$SIGF" 2>"$T/out" || bail "sign_file failed"
add
check "the project's signature of another file is refused" rc_is 1
check "nothing registered for the wrong file's signature" eq "$(registered)" 0

"$SIGN" --key "$PROJECT_KEY" "$PROG" >"$SIGF" 2>"$T/out" || bail "sign_file failed"
add
check "a signature made with the project's key is accepted" rc_is 0
check "the app version is registered" eq "$(registered)" 1
check "its file is in download/" eq "$(staged)" yes
check "the stored signature is the one given" \
    eq "$(sql "SELECT f.file_signature FROM app_version_file f JOIN app_version av ON av.id = f.app_version_id
               JOIN app a ON a.id = av.appid WHERE a.name = '$APPNAME'")" "$(cat "$SIGF")"
rm -f "$DL/$(basename "$PROG")"

tap_done
