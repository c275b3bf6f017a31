#!/usr/bin/env bash
# include_rules.sh: no #include crosses a forbidden line between the parts
# of the tree (doc/hacking.md, "Parts and arrows"; each sched/*/README).
#
# The rules: for each part (a folder), the parts whose headers it may
# include and the system headers it must not include.  A quoted include
# is resolved to the part that holds the header (header names are unique
# across the parts); one that no part holds is an error too.  The check
# runs on the source tree, then on a scratch copy with forbidden includes
# planted in it, which it must report one by one (so that it can fail).
# No servers, no build needed.
set -euo pipefail

: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
# shellcheck source=tap.bash
. "$(dirname "${BASH_SOURCE[0]}")/tap.bash"

# part | the parts it may include | system headers it must not include
# (extended regular expression on the name between < >)
RULES='
sched/common    | sched/common                                          | ^(mysql\.h|errmsg\.h|mysqld_error\.h|libxml/|fcgiapp\.h|fcgi_stdio\.h)
sched/policy    | sched/common sched/policy                             | ^(mysql\.h|errmsg\.h|mysqld_error\.h|libxml/|fcgiapp\.h|fcgi_stdio\.h|openssl/|curl/)
sched/wire      | sched/common sched/wire                               | ^(mysql\.h|errmsg\.h|mysqld_error\.h|curl/)
sched/scheduler | sched/common sched/policy sched/wire sched/scheduler db | ^(mysql\.h|errmsg\.h|mysqld_error\.h|libxml/|curl/)
sched/upload    | sched/common sched/wire sched/upload                  | ^(mysql\.h|errmsg\.h|mysqld_error\.h|curl/)
sched/webrpc    | sched/common sched/wire sched/webrpc db               | ^(mysql\.h|errmsg\.h|mysqld_error\.h|libxml/|curl/)
db              | db                                                    | ^(libxml/|fcgiapp\.h|fcgi_stdio\.h|openssl/|curl/)
daemons         | sched/common sched/policy db daemons                  | ^(mysql\.h|errmsg\.h|mysqld_error\.h|libxml/|fcgiapp\.h|fcgi_stdio\.h|curl/)
tools           | sched/common sched/policy db tools                    | ^(mysql\.h|errmsg\.h|mysqld_error\.h|libxml/|fcgiapp\.h|fcgi_stdio\.h)
tools/loadtest  | sched/common sched/policy sched/wire sched/scheduler db tools/loadtest | ^(mysql\.h|errmsg\.h|mysqld_error\.h)
'

# check_tree ROOT: print one line per forbidden include under ROOT (and
# per part without a source, so that a moved folder cannot pass unseen);
# status 1 if there is any.
check_tree() {
    local root=$1 bad=0 part allowed forbidden f line inc where
    declare -A home=()
    while IFS='|' read -r part allowed forbidden; do
        part=$(echo "$part" | xargs)
        [ -n "$part" ] || continue
        for f in "$root/$part"/*.h; do
            [ -e "$f" ] && home[${f##*/}]=$part
        done
    done <<<"$RULES"
    while IFS='|' read -r part allowed forbidden; do
        part=$(echo "$part" | xargs)
        [ -n "$part" ] || continue
        allowed=" $(echo "$allowed" | xargs) "
        forbidden=$(echo "$forbidden" | xargs)
        local nfiles=0
        for f in "$root/$part"/*.c "$root/$part"/*.h; do
            [ -e "$f" ] || continue
            nfiles=$((nfiles + 1))
            while IFS= read -r line; do
                if [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
                    inc=${BASH_REMATCH[1]}
                    where=${home[${inc##*/}]:-}
                    if [ -z "$where" ]; then
                        echo "$part/${f##*/}: includes \"$inc\", which no part holds"
                        bad=1
                    elif [[ $allowed != *" $where "* ]]; then
                        echo "$part/${f##*/}: includes \"$inc\" of $where; $part may include only:${allowed% }"
                        bad=1
                    fi
                elif [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\<([^\>]+)\> ]]; then
                    inc=${BASH_REMATCH[1]}
                    if [[ $inc =~ $forbidden ]]; then
                        echo "$part/${f##*/}: includes <$inc>, which $part must not use"
                        bad=1
                    fi
                fi
            done <"$f"
        done
        if [ "$nfiles" = 0 ]; then
            echo "$part: no source file (a part moved? update the rules)"
            bad=1
        fi
    done <<<"$RULES"
    return "$bad"
}

# ---------------------------------------------------------------- the tree
out=$(check_tree "$top_srcdir") && status=0 || status=$?
[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/#   /' | head -40
check "no include crosses a forbidden line in the source tree" eq "$status" 0

# ---------------------------------------------------------------- a bad copy
scratch=$(mktemp -d -t locsched-include-rules.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
for d in sched/common sched/policy sched/wire sched/scheduler sched/upload sched/webrpc db \
         daemons tools tools/loadtest; do
    mkdir -p "$scratch/$d"
    cp "$top_srcdir/$d"/*.[ch] "$scratch/$d/"
done
out=$(check_tree "$scratch") && status=0 || status=$?
check "the scratch copy passes before anything is planted" eq "$status" 0

# plant FILE LINE: append an include line to a file of the copy
plant() { printf '%s\n' "$2" >>"$scratch/$1"; }
plant sched/policy/edf.c '#include "db.h"'
plant sched/policy/estimate.c '#include <libxml/parser.h>'
plant sched/common/buf.c '#include <mysql.h>'
plant sched/wire/fcgi_io.c '#include "handler.h"'
plant sched/wire/upload_auth.c '#include "edf.h"'
plant db/db_conn.c '#include "log.h"'
plant tools/create_batch.c '#include "sched_request.h"'
plant daemons/transitioner.c '#include "reply_build.h"'
plant sched/upload/file_upload_handler.c '#include "db_sched.h"'
plant sched/scheduler/handler.c '#include "no_such_header.h"'
plant sched/webrpc/webrpc_logic.c '#include "edf.h"'
out=$(check_tree "$scratch") && status=0 || status=$?
printf '%s\n' "$out" | sed 's/^/#   /'
check "the planted includes make the check fail" eq "$status" 1
expect() {  # expect TEXT: the check reported a line containing TEXT
    grep -qF -- "$1" <<<"$out" || { echo "#   no report containing: $1"; return 1; }
}
check "policy including the data layer is reported" \
    expect 'sched/policy/edf.c: includes "db.h" of db'
check "policy including libxml2 is reported" \
    expect 'sched/policy/estimate.c: includes <libxml/parser.h>'
check "common including mysql.h is reported" expect 'sched/common/buf.c: includes <mysql.h>'
check "wire including the scheduler is reported" \
    expect 'sched/wire/fcgi_io.c: includes "handler.h" of sched/scheduler'
check "wire including the policy is reported" \
    expect 'sched/wire/upload_auth.c: includes "edf.h" of sched/policy'
check "db including anything of sched/ is reported" \
    expect 'db/db_conn.c: includes "log.h" of sched/common'
check "tools including the wire format is reported" \
    expect 'tools/create_batch.c: includes "sched_request.h" of sched/wire'
check "daemons including the scheduler is reported" \
    expect 'daemons/transitioner.c: includes "reply_build.h" of sched/scheduler'
check "the upload handler including the data layer is reported" \
    expect 'sched/upload/file_upload_handler.c: includes "db_sched.h" of db'
check "a header that no part holds is reported" \
    expect 'sched/scheduler/handler.c: includes "no_such_header.h", which no part holds'
check "the account RPCs including the scheduling policy is reported" \
    expect 'sched/webrpc/webrpc_logic.c: includes "edf.h" of sched/policy'
check "nothing else is reported" eq "$(grep -c . <<<"$out")" 11

tap_done
