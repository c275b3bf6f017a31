# tap.bash - the TAP helpers of the shell tests, sourced by test/sh/*.sh
# (run_suite runs only *.sh, so this file is never run as a test).
#
#   check DESCRIPTION COMMAND...  run COMMAND; print "ok N - DESCRIPTION"
#                                 or "not ok N - ...", and on a failure
#                                 call the script's tap_on_failure, if it
#                                 defines one (to show the last reply, say)
#   eq A B, lt A B, le A B, gt A B
#                                 predicates for check: true, or print what
#                                 was got and wanted as a TAP comment
#   bail REASON                   "Bail out!" and exit 1
#   need_sandbox_env VAR...       bail unless each VAR of "tools/sandbox env"
#                                 is set
#   tap_done                      print the plan; status 1 if any failed
# shellcheck shell=bash

n=0
failed=0

check() {
    local desc=$1
    shift
    n=$((n + 1))
    if "$@"; then
        echo "ok $n - $desc"
    else
        echo "not ok $n - $desc"
        failed=$((failed + 1))
        if declare -F tap_on_failure >/dev/null; then
            tap_on_failure
        fi
    fi
}

eq() { [ "$1" = "$2" ] || { echo "#   got '$1', want '$2'"; return 1; }; }
lt() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -lt "$2" ] || { echo "#   got '$1' and '$2', want the first smaller"; return 1; }; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }' || { echo "#   got $1, want at most $2"; return 1; }; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }' || { echo "#   got '$1', want more than $2"; return 1; }; }

bail() { echo "Bail out! $*"; exit 1; }

need_sandbox_env() {
    local v
    for v in "$@"; do
        [ -n "${!v:-}" ] || bail "$v must be set (eval \"\$(tools/sandbox env)\")"
    done
}

tap_done() {
    echo "1..$n"
    [ "$failed" = 0 ]
}
