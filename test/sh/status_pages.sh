#!/usr/bin/env bash
# status_pages.sh - the status and batch pages (tools/status_pages) in a
# real browser, served by the sandbox's Apache:
#   - set-up: a plain and a locality batch, the daemons' passes (one left
#     running in the background, so the page has a running daemon and
#     stopped ones), scheduler requests (replay) and two malformed ones;
#   - status_pages --one-pass writes index.html and a page per batch into
#     PROJECT_DIR/html/status, which Apache serves as /status/ (HTTP 200,
#     text/html); both pages are well-formed XML (python3's parser);
#   - headless Chromium loads them from Apache (--dump-dom): the headings,
#     the daemon rows and their states in words, the request and error
#     counts, the figures matching the database, the batch links, a
#     progress bar per cursor, a title in every SVG, no script;
#   - its screenshots are not blank: many colours, and a fair share of the
#     pixels not the background (test/sh/png_colors.py, python3 stdlib).
# Set STATUS_SHOT_DIR to keep the screenshots there (the admin guide's
# picture is made that way).
#
# Needs the sandbox environment (run_suite exports it), top_builddir,
# chromium and python3 (tools/install_deps).  Prints TAP.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=${srcdir:-$(dirname "$here")}
build=${top_builddir:-${LOCSCHED_BUILD_DIR:-$(dirname "$srcdir")}}
. "$here/tap.bash"
need_sandbox_env LOCSCHED_CONFIG MASTER_URL SCHED_URL DB_SOCKET DB_NAME DB_USER DB_PASSWORD \
    PROJECT_DIR SANDBOX_DIR DEMO_AUTHENTICATOR
TOOLS=$build/tools
SP=$TOOLS/status_pages
REPLAY=$TOOLS/loadtest/replay
for p in "$SP" "$REPLAY" "$TOOLS/create_account" "$TOOLS/add_app_version" "$TOOLS/create_batch" \
         "$build/daemons/work_generator" "$build/daemons/transitioner" \
         "$build/daemons/locality_daemon"; do
    [ -x "$p" ] || bail "$p is not built"
done
for c in chromium python3 curl mariadb; do
    command -v "$c" >/dev/null 2>&1 || bail "$c is not installed (tools/install_deps)"
done

T=$(mktemp -d "${TMPDIR:-/tmp}/status_pages.XXXXXX")
bg_pid=""
cleanup() {
    [ -n "$bg_pid" ] && kill "$bg_pid" 2>/dev/null && wait "$bg_pid" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
PFX=sp$$x$(date +%s)
SCHED_LOG=$SANDBOX_DIR/apache/error.log
OUT=$PROJECT_DIR/html/status
sql() {
    MYSQL_PWD=$DB_PASSWORD mariadb --no-defaults --socket="$DB_SOCKET" -u "$DB_USER" --batch \
        --skip-column-names "$DB_NAME" -e "$1"
}
tap_on_failure() {
    if [ -s "$T/out" ]; then
        echo "#   last output:"
        tail -n 20 "$T/out" | sed 's/^/#   | /'
    fi
}
has() { grep -qF -- "$2" "$1" || { echo "#   $1 lacks: $2"; return 1; }; }
count() { grep -oF -- "$2" "$1" | wc -l | tr -d ' '; }

# ---- set-up
for i in 1 2 3 4; do
    "$TOOLS/create_account" --config "$LOCSCHED_CONFIG" --name "$PFX$i" \
        --email "$PFX.$i@status.test" 2>>"$T/setup.log" >>"$T/auth"
done
printf '#!/bin/sh\necho status\n' >"$T/${PFX}app.sh"
"$TOOLS/add_app_version" --config "$LOCSCHED_CONFIG" --app "${PFX}app" --version 1 \
    --file "$T/${PFX}app.sh" --key "$PROJECT_DIR/keys/code_sign_private.pem" >>"$T/setup.log" 2>&1
"$TOOLS/create_batch" --config "$LOCSCHED_CONFIG" --name "${PFX}plain" --app "${PFX}app" \
    --generate-files 10:1024 --uniform 30:1:0 >>"$T/setup.log" 2>&1
"$TOOLS/create_batch" --config "$LOCSCHED_CONFIG" --name "${PFX}loc" --app "${PFX}app" \
    --generate-files 40:2048 --uniform 39:2:1 --locality --cursors 2 >>"$T/setup.log" 2>&1
plain_id=$(sql "SELECT id FROM batch WHERE name = '${PFX}plain'")
loc_id=$(sql "SELECT id FROM batch WHERE name = '${PFX}loc'")
check "set-up: two batches" eq "$([ -n "$plain_id" ] && [ -n "$loc_id" ] && echo yes)" yes
[ "$failed" = 0 ] || { sed 's/^/#   /' "$T/setup.log"; tap_done; exit 1; }

for d in work_generator locality_daemon; do
    "$build/daemons/$d" --config "$LOCSCHED_CONFIG" --one-pass >>"$T/daemons.log" 2>&1
done
"$REPLAY" --url "$SCHED_URL" --requests "$srcdir/recorded" --hosts 8 --auth-file "$T/auth" \
    --concurrency 2 --duration 3 --run-seconds 1 --work-secs 600 \
    --db-socket "$DB_SOCKET" --db-user "$DB_USER" --db-password "$DB_PASSWORD" \
    --db-name "$DB_NAME" >"$T/out" 2>&1
check "replay sent requests without errors" grep -Eq ', 0 errors$' "$T/out"
for i in 1 2; do
    curl -sS -o /dev/null --max-time 30 --data-binary 'not a request' "$SCHED_URL"
done
# the transitioner keeps running (a running daemon on the page)
"$build/daemons/transitioner" --config "$LOCSCHED_CONFIG" --sleep 1 >>"$T/daemons.log" 2>&1 &
bg_pid=$!
# (up to a minute: a loaded machine, a sanitizer build)
for _ in $(seq 1 600); do
    [ "$(sql "SELECT COUNT(*) FROM daemon_status WHERE name = 'transitioner' AND pid = $bg_pid AND stopped = 0 AND last_pass_time > 0")" = 1 ] && break
    sleep 0.1
done
check "the daemons wrote their status rows" \
    eq "$(sql "SELECT COUNT(DISTINCT name) FROM daemon_status
               WHERE name IN ('work_generator', 'transitioner', 'locality_daemon')")" 3
check "the running transitioner's row is not stopped" \
    eq "$(sql "SELECT stopped FROM daemon_status WHERE name = 'transitioner' AND pid = $bg_pid")" 0
# (its row without --mod: earlier tests of the suite may have left rows of
# work_generator --mod N I)
check "a daemon run with --one-pass says it stopped" \
    eq "$(sql "SELECT stopped FROM daemon_status WHERE name = 'work_generator' AND mod_n = 1")" 1

# ---- the pages
"$SP" --config "$LOCSCHED_CONFIG" --one-pass --sched-log "$SCHED_LOG" >"$T/out" 2>&1
check "status_pages --one-pass exits 0" eq "$?" 0
check "index.html written" test -s "$OUT/index.html"
check "a page per batch" test -s "$OUT/batch_$loc_id.html" -a -s "$OUT/batch_$plain_id.html"
check "no temporary file left" eq "$(find "$OUT" -name '.*.tmp' | wc -l | tr -d ' ')" 0
"$SP" --config "$LOCSCHED_CONFIG" --one-pass --sleep 0 >"$T/out" 2>&1
check "a bad --sleep is refused (exit 2)" eq "$?" 2
for f in index.html "batch_$loc_id.html"; do
    code=$(curl -sS -o "$T/$f" -w '%{http_code} %{content_type}' --max-time 30 "${MASTER_URL}status/$f")
    check "Apache serves /status/$f as HTML" eq "${code%%;*}" "200 text/html"
    check "$f is well-formed XML" python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$T/$f"
done

# ---- in the browser
browse() {  # browse OUTFILE URL ARGS...: headless Chromium
    local out=$1 url=$2
    shift 2
    timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$T/chromium" --hide-scrollbars "$@" "$url" >"$out" 2>>"$T/chromium.log"
}
browse "$T/dom.html" "${MASTER_URL}status/" --dump-dom
check "Chromium loads the status page" has "$T/dom.html" "<h1>Server status of"
D=$T/dom.html
check "one h1" eq "$(count "$D" '<h1')" 1
for h in Daemons "Scheduler requests" "Jobs and hosts" Batches; do
    check "a section '$h'" grep -Eq "<h2 id=\"[a-z]+\">$h</h2>" "$D"
done
check "the running transitioner, in words" \
    grep -Eq '<th scope="row">transitioner</th><td>[^<]+</td><td>all</td><td class="state-running">running</td>' "$D"
check "the work generator stopped, in words" \
    grep -Eq '<th scope="row">work_generator</th><td>[^<]+</td><td>all</td><td class="state-stopped">stopped</td>' "$D"
req=$(sed -n 's/.*Last 60 minutes: \([0-9]*\) requests, \([0-9]*\) answered with an error.*/\1 \2/p' "$D")
check "requests of the last hour counted from the scheduler's log" gt "${req% *}" 10
check "the two malformed requests counted as errors (at least)" le 2 "${req#* }"
unsent=$(sql "SELECT COUNT(*) FROM result WHERE server_state = 2")
inprog=$(sql "SELECT COUNT(*) FROM result WHERE server_state = 4")
check "results unsent as in the database" has "$D" "<td class=\"n\" id=\"unsent\">$unsent</td>"
check "results in progress as in the database" has "$D" "<td class=\"n\" id=\"in-progress\">$inprog</td>"
hosts=$(sql "SELECT COUNT(*) FROM host WHERE rpc_time >= UNIX_TIMESTAMP() - 86400")
check "hosts active in the last day as in the database" has "$D" "id=\"hosts-active\">$hosts</td>"
check "the database size" grep -Eq 'id="db-size">[0-9.]+ (kB|MB|GB)</td>' "$D"
check "a link to each batch page" has "$D" "<a href=\"batch_$loc_id.html\">${PFX}loc</a>"
check "two charts" eq "$(count "$D" 'role="img"')" 2
check "every svg has a title" eq "$(count "$D" '<title id="chart-')" 2
check "no script" eq "$(count "$D" '<script')" 0

browse "$T/bdom.html" "${MASTER_URL}status/batch_$loc_id.html" --dump-dom
B=$T/bdom.html
check "Chromium loads the batch page" has "$B" "<h1>Batch ${PFX}loc ($loc_id)</h1>"
check "a progress bar for the batch and each of its 2 cursors" \
    eq "$(count "$B" 'class="progress" role="img"')" 3
done_db=$(sql "SELECT COUNT(*) FROM workunit WHERE batch = $loc_id AND (canonical_resultid <> 0 OR error_mask <> 0)")
check "jobs done as in the database" grep -Eq "id=\"batch-done\">$done_db \\(" "$B"
check "the ETA row" grep -Eq 'Expected end \(ETA\)</th><td id="batch-eta">|<th scope="row">Completed</th>' "$B"
check "completion over time, the job space, files, validation" \
    grep -q 'id="chart-completion".*' "$B"
for h in Progress "Completion over time" "Job space" Files Validation; do
    check "a section '$h'" grep -Eq "<h2 id=\"[a-z-]+\">$h</h2>" "$B"
done
check "two job-space bands" eq "$(count "$B" 'class="band"')" 2
tr '\n' ' ' <"$B" | grep -o '<svg[^>]*>[^<]*<[a-z]*' >"$T/svgs"
check "five svgs: three bars, the completion chart, the job space" eq "$(wc -l <"$T/svgs" | tr -d ' ')" 5
check "every svg opens with a title" eq "$(grep -vc '<title$' "$T/svgs")" 0

# ---- screenshots: not blank
for page in index "batch_$loc_id"; do
    browse "$T/shot.out" "${MASTER_URL}status/$page.html" --window-size=1100,1600 \
        --screenshot="$T/$page.png"
    read -r colours share < <(python3 "$here/png_colors.py" "$T/$page.png" 2>>"$T/out" || echo "0 0")
    check "screenshot of $page.html: more than 20 colours ($colours)" gt "${colours:-0}" 20
    check "screenshot of $page.html: over 2% of it drawn ($share)" gt "${share:-0}" 0.02
    if [ -n "${STATUS_SHOT_DIR:-}" ]; then
        cp "$T/$page.png" "$STATUS_SHOT_DIR/"
    fi
done

tap_done
