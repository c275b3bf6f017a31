# verify.sh - the checks of test/faults/run after the load (sourced by
# shellcheck shell=bash
# it): the faults really happened, the daemons settle, check_invariants
# finds nothing, the hosts saw only errors a BOINC client retries, every
# job a host received is that host's in the database, every job the
# database gave a host that never reached it went out at a fault, and
# every report stored was acknowledged.  Then the figures.
# Needs from run: check, note, sql, SB, SANDBOX, TOOLS, CONF, out_dir,
# FAULTS, SAMPLES, hosts, load_s (the load's length), fault_end (the
# planned fault phase), fault_phase_s (the one run), kill_every, MARGIN.

# jget FILE KEY: the first number after "KEY": in FILE.
jget() { grep -o "\"$2\": *[-0-9.e+]*" "$1" | head -n 1 | sed 's/.*: *//'; }
eq() { [ "$1" = "$2" ] || { echo "#   got '$1', want '$2'"; return 1; }; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }' ||
       { echo "#   got '$1', want at least $2"; return 1; }; }
empty_file() { [ ! -s "$1" ] || { head -n 20 "$1" | sed 's/^/#   /'; return 1; }; }
count_kind() { awk -F'\t' -v k="$1" 'NR > 1 && $3 == k { n++ } END { print n + 0 }' "$FAULTS"; }

# settle: wait (at most 120 s) until the transitioner has nothing due
# and the validator nothing to validate, then stop the daemons (SIGTERM to their pids; each finishes the unit of
# work in hand) so that the checker reads a quiet database.  A deadline
# that passes after that changes nothing until a transitioner handles it.
settle() {
    local i due name pid
    for ((i = 0; i < 120; i++)); do
        due=$(sql "SELECT COUNT(*) FROM workunit WHERE transition_time <= UNIX_TIMESTAMP()
                   OR need_validate <> 0" 2>/dev/null)
        echo "$i $due" >>"$out_dir/settle.log"
        [ "$due" = 0 ] && break
        sleep 1
    done
    SETTLE_S=$i
    SETTLE_DUE=$due
    for name in work_generator transitioner locality_daemon validator assimilator file_deleter; do
        if pid=$(daemon_pid "$name"); then
            stop_pid "$pid" "$name"
        else
            echo "#   $name was not running at the end of the load"
            DAEMON_GONE="${DAEMON_GONE:-} $name"
        fi
    done
}

# verify_outputs: the assimilator and the file deleter, killed inside a
# pass during the load, finish the backlog with one pass each; then every
# finished workunit is assimilated, its batch's results folder holds
# exactly one file for it (its output WU_0 or its record WU.error: the
# replay's hosts upload nothing, so records), no temporary file is left,
# and every assimilated workunit whose results are over has its files
# deleted.
verify_outputs() {
    local rc=0 b name want got tmp
    "$build/daemons/assimilator" --config "$CONF" --one-pass >"$out_dir/assimilator-final.log" 2>&1 || rc=$?
    check "assimilator --one-pass after the load (exit status $rc)" eq "$rc" 0
    rc=0
    "$build/daemons/file_deleter" --config "$CONF" --one-pass >"$out_dir/file_deleter-final.log" 2>&1 || rc=$?
    check "file_deleter --one-pass after the load (exit status $rc)" eq "$rc" 0
    check "every finished workunit is assimilated" \
        eq "$(sql "SELECT COUNT(*) FROM workunit WHERE assimilate_state <> 2
                   AND (canonical_resultid <> 0 OR error_mask <> 0)")" 0
    check "no workunit assimilated before it finished" \
        eq "$(sql "SELECT COUNT(*) FROM workunit WHERE assimilate_state <> 0
                   AND canonical_resultid = 0 AND error_mask = 0")" 0
    local bad=""
    while IFS=$'\t' read -r b name want; do
        [ -n "$b" ] || continue
        got=$(find "$PROJECT_DIR/results/$name" -maxdepth 1 -type f ! -name '.*' 2>/dev/null | wc -l)
        tmp=$(find "$PROJECT_DIR/results/$name" -maxdepth 1 -name '.*' 2>/dev/null | wc -l)
        [ "$got" = "$want" ] && [ "$tmp" = 0 ] || bad="$bad [batch $name: $want assimilated, $got files, $tmp temporary]"
    done < <(sql "SELECT b.id, b.name, COUNT(*) FROM workunit w JOIN batch b ON b.id = w.batch
                  WHERE w.assimilate_state = 2 GROUP BY b.id, b.name")
    check "one file per assimilated workunit in its batch's results folder, no temporary file left" eq "$bad" ""
    check "every assimilated workunit with all its results over has its files deleted" \
        eq "$(sql "SELECT COUNT(*) FROM workunit w WHERE w.assimilate_state = 2 AND w.file_delete_state <> 2
                   AND NOT EXISTS (SELECT 1 FROM result r WHERE r.workunitid = w.id AND r.server_state <> 5)")" 0
}

# verify_validation: the validator, killed inside a pass during the load,
# left nothing undone and did nothing twice: no job that reached its
# quorum of successes waits for validation, each host's and each
# account's credit is exactly the sum granted to its results (a result
# granted twice would show), the results of the account whose outputs
# were wrong got no credit and none is VALID in the jobs of quorum 2 (a
# job of quorum 1, the plain batch's, has nothing to compare its one
# output with: any readable output is valid), and validation happened
# (valid results, and wrong outputs found INVALID or INCONCLUSIVE).  check_invariants
# has checked the states (credit only to VALID results, canonical results
# VALID).  Sets VA_FIGURES.
verify_validation() {
    local valid invalid inconclusive bad_valid bad_credit caught
    check "no job that reached its quorum of reported successes waits for validation" \
        eq "$(sql "SELECT COUNT(*) FROM workunit w WHERE w.canonical_resultid = 0 AND w.error_mask = 0
                   AND (w.need_validate <> 0 OR (SELECT COUNT(*) FROM result r WHERE r.workunitid = w.id
                        AND r.server_state = 5 AND r.outcome = 1 AND r.validate_state = 0) >= w.min_quorum)")" 0
    check "each host's credit is the sum granted to its results: none granted twice" \
        eq "$(sql "SELECT COUNT(*) FROM host h WHERE ABS(h.total_credit - (SELECT COALESCE(SUM(r.granted_credit), 0)
                   FROM result r WHERE r.hostid = h.id)) > 1e-6 * GREATEST(1, h.total_credit)")" 0
    check "each account's credit is the sum granted to its results: none granted twice" \
        eq "$(sql "SELECT COUNT(*) FROM user u WHERE ABS(u.total_credit - (SELECT COALESCE(SUM(r.granted_credit), 0)
                   FROM result r WHERE r.userid = u.id)) > 1e-6 * GREATEST(1, u.total_credit)")" 0
    bad_valid=$(sql "SELECT COUNT(*) FROM result r JOIN workunit w ON w.id = r.workunitid
                     WHERE r.userid = '${BAD_USER:-0}' AND w.min_quorum >= 2 AND r.validate_state = 1")
    bad_credit=$(sql "SELECT COUNT(*) FROM result r JOIN workunit w ON w.id = r.workunitid
                      WHERE r.userid = '${BAD_USER:-0}' AND w.min_quorum >= 2 AND r.granted_credit > 0")
    check "the wrong outputs (account #${BAD_USER:-?}) in jobs of quorum 2 were never VALID and got no credit" \
        eq "$bad_valid $bad_credit" "0 0"
    valid=$(sql "SELECT COUNT(*) FROM result WHERE validate_state = 1")
    invalid=$(sql "SELECT COUNT(*) FROM result WHERE validate_state = 2")
    inconclusive=$(sql "SELECT COUNT(*) FROM result WHERE validate_state = 4")
    # a wrong output is INCONCLUSIVE until the third replica outvotes it
    # (in a short run that replica may not be back yet), then INVALID
    caught=$(sql "SELECT COUNT(*) FROM result r JOIN workunit w ON w.id = r.workunitid
                  WHERE r.userid = '${BAD_USER:-0}' AND w.min_quorum >= 2 AND r.validate_state IN (2, 4)")
    check "the validator validated results ($valid valid) and caught wrong outputs ($caught INVALID or INCONCLUSIVE)" \
        test "$valid" -gt 0 -a "$caught" -gt 0
    VA_FIGURES="$valid valid, $invalid invalid ($(sql "SELECT COUNT(*) FROM result WHERE outcome = 6")"
    VA_FIGURES="$VA_FIGURES without a usable output), $inconclusive inconclusive;"
    VA_FIGURES="$VA_FIGURES $(sql "SELECT COUNT(*) FROM workunit WHERE canonical_resultid <> 0") jobs with a canonical result"
}

# sched_errors: the scheduler's "request not handled" reasons in Apache's
# error log, ids and numbers folded, with their counts (most first).
sched_errors() {
    sed -n 's/.* ERROR \[scheduler:[0-9]*\] request not handled: //p' "$SB/apache/error.log" |
        sed -E 's/\[[a-z_]+#[0-9]+\]/[#]/g; s/#sql-[A-Za-z0-9-]+\.[A-Z]+/#sql-N/g;
                s/after [0-9]+ tries in [0-9.]+ s/after N tries/; s/ via [^:]*:/ via SOCKET:/' |
        cut -c1-160 | sort | uniq -c | sort -rn
}

# progress_at T: "requests failed" of the first progress line at or after
# T seconds (replay --progress, on its standard error).
progress_at() {
    awk -v T="$1" '$1 == "replay:" && $2 ~ /^t=/ {
            t = $2; sub(/^t=/, "", t); sub(/s$/, "", t)
            if (t + 0 >= T + 0) { print t, $5, $NF; found = 1; exit }
        }
        END { if (!found) print "none" }' "$out_dir/replay.err"
}

verify_all() {
    local out=$out_dir/replay.out js=$out_dir/replay.json
    grep '^{"url"' "$out" >"$js" 2>/dev/null
    sed 's/^/#   /' "$out" | grep -v '^#   {"url"'
    check "the replay ran to its end (exit status $replay_rc: 0, or 3 when a request failed)" \
        test "$replay_rc" = 0 -o "$replay_rc" = 3
    check "the replay printed its figures" [ -s "$js" ]
    [ -s "$js" ] || return 0

    local requests jobs acked n_failed e_transport e_http e_unparse e_msg e_proto e_double
    requests=$(jget "$js" requests); jobs=$(jget "$js" jobs); acked=$(jget "$js" reported)
    n_failed=$(jget "$js" failed)
    e_transport=$(jget "$js" transport); e_http=$(jget "$js" http)
    e_unparse=$(jget "$js" unparseable); e_msg=$(jget "$js" error_message)
    e_proto=$(jget "$js" protocol); e_double=$(jget "$js" double_send)

    # ---- the faults happened
    local n_sched n_sched_busy want_kills min_procs procs_at_kill
    n_sched=$(count_kind scheduler)
    n_sched_busy=$(awk -F'\t' 'NR > 1 && $3 == "scheduler" && $5 ~ /state=busy/ { n++ } END { print n + 0 }' "$FAULTS")
    want_kills=$(( (fault_end - 1) / kill_every ))
    check "a scheduler process was killed every $kill_every s ($n_sched kills, $n_sched_busy while serving)" \
        ge "$n_sched" "$want_kills"
    procs_at_kill=$(awk -F'\t' 'NR > 1 && $3 == "scheduler" {
            split($5, a, /[= ]/); if (m == "" || a[2] + 0 < m) m = a[2] + 0
        } END { print m + 0 }' "$FAULTS")
    check "at least 4 scheduler processes were running at every kill (fewest: $procs_at_kill)" \
        ge "$procs_at_kill" 4
    min_procs=$(awk -F'\t' -v s=5 '$1 >= s { if (m == "" || $2 + 0 < m) m = $2 + 0 } END { print m + 0 }' "$SAMPLES")
    local max_procs
    max_procs=$(awk -F'\t' '{ if ($2 + 0 > m) m = $2 + 0 } END { print m + 0 }' "$SAMPLES")
    local db_line
    db_line=$(awk -F'\t' 'NR > 1 && $3 == "mariadb_up" { print $4 "\t" $5 }' "$FAULTS")
    check "MariaDB was killed once" eq "$(count_kind mariadb)" 1
    check "tools/sandbox start brought MariaDB back (restart status 0, a new mariadbd)" \
        awk -F'\t' -v old="$(awk -F'\t' 'NR > 1 && $3 == "mariadb" { print $4 }' "$FAULTS")" \
        '{ exit !($1 != "none" && $1 != old && $2 ~ /restart_status=0 /) }' <<<"$db_line"
    check "Apache kept running through the MariaDB restart" \
        awk '{ a = $0; sub(/.*apache_before=/, "", a); sub(/ .*/, "", a)
               b = $0; sub(/.*apache_after=/, "", b); sub(/ .*/, "", b); exit !(a != "" && a == b) }' <<<"$db_line"
    check "no daemon died when MariaDB went away" eq "$(count_kind daemon_died_with_db)" 0
    local name
    for name in work_generator transitioner locality_daemon validator assimilator file_deleter; do
        check "$name was killed inside a pass and started again" \
            awk -F'\t' -v k="$name" 'NR > 1 && $3 == k { killed = 1 }
                NR > 1 && $3 == k "_up" && $4 != "none" && $5 == "restart_status=0" { up = 1 }
                END { exit !(killed && up) }' "$FAULTS"
    done

    # ---- what the hosts saw
    local q first last tail_req tail_fail qline
    q=$(awk -F'\t' 'NR > 1 { if ($1 + 0 > m) m = $1 + 0 } END { printf "%d", m + 0.999 }' "$FAULTS")
    q=$((q + MARGIN))
    qline=$(progress_at "$q")
    local tail_from_t tail_from_req tail_from_fail
    read -r tail_from_t tail_from_req tail_from_fail <<<"$qline"
    if [ "$tail_from_t" = none ]; then
        check "the replay's progress reaches the quiet tail (from $q s)" false
        tail_req=0 tail_fail=unknown
    else
        tail_req=$((requests - tail_from_req))
        tail_fail=$((n_failed - tail_from_fail))
        local tail_desc="no request failed in the last $((load_s - tail_from_t)) s (from"
        tail_desc="$tail_desc $tail_from_t s, $MARGIN s after the last fault): every host's"
        tail_desc="$tail_desc reports were acknowledged"
        if ! check "$tail_desc" eq "$tail_fail" 0; then
            local since
            since=$(date -d "@$((T0_MS / 1000 + tail_from_t))" '+%Y-%m-%d %H:%M:%S')
            echo "#   errors in Apache's error log since $since:"
            awk -v s="$since" '/^[0-9]/ && ($1 " " $2) >= s && / (ERROR|WARN) /' "$SB/apache/error.log" |
                head -n 20 | cut -c1-300 | sed 's/^/#     /'
        fi
        check "every host kept sending in that time ($tail_req requests, at least $((3 * hosts)))" \
            ge "$tail_req" $((3 * hosts))
        # a request with an unacknowledged report fails (protocol), so a
        # host whose last request came through in the tail holds none
        check "every one of the $hosts hosts had a request handled in that time" \
            eq "$(sql "SELECT COUNT(*) FROM host WHERE rpc_time >= $((T0_MS / 1000 + tail_from_t + 1))")" "$hosts"
    fi
    check "no malformed reply (unparseable: $e_unparse)" eq "$e_unparse" 0
    check "no result sent twice (replay: double_send $e_double)" eq "$e_double" 0
    local ap_codes non200 bad_codes
    ap_codes=$(awk '$0 ~ /"POST \/cgi-bin\/scheduler / { print $(NF - 2) }' "$SB/apache/access.log" |
               sort | uniq -c | awk '{ printf "%s%s:%s", sep, $2, $1; sep = " " }')
    non200=$(awk '/"POST \/cgi-bin\/scheduler / && $(NF - 2) != 200 { n++ } END { print n + 0 }' \
             "$SB/apache/access.log")
    bad_codes=$(awk '/"POST \/cgi-bin\/scheduler / && $(NF - 2) != 200 && $(NF - 2) !~ /^5/ {
                         print $(NF - 2) }' "$SB/apache/access.log" | sort -u | tr '\n' ' ')
    check "every scheduler reply that was not HTTP 200 was a 5xx ($ap_codes)" eq "$bad_codes" ""
    check "the replay's HTTP errors are Apache's non-200 replies" eq "$e_http" "$non200"
    local probes bad_probes
    probes=$(wc -l <"$out_dir/probes.tsv" 2>/dev/null || echo 0)
    bad_probes=$(awk -F'\t' '$4 !~ /^retry-/' "$out_dir/probes.tsv" 2>/dev/null | wc -l)
    local probe_kinds
    probe_kinds=$(cut -f4 "$out_dir/probes.tsv" 2>/dev/null | sort | uniq -c |
                  awk '{ printf "%s%s %s", s, $2, $1; s = ", " }')
    check "$probes requests of our own while MariaDB was down got only replies a client retries ($probe_kinds)" \
        eq "$bad_probes" 0

    # ---- settle, then the invariant checker
    settle
    check "the transitioner and the validator caught up within 120 s of the end of the load" \
        eq "${SETTLE_DUE:-x}" 0
    check "the daemons were all running at the end of the load" eq "${DAEMON_GONE:-}" ""
    local ci_rc=0 violations
    "$TOOLS/check_invariants" --config "$CONF" --json >"$out_dir/check_invariants.json" \
        2>"$out_dir/check_invariants.err" || ci_rc=$?
    violations=$(jget "$out_dir/check_invariants.json" violations)
    "$TOOLS/check_invariants" --config "$CONF" >"$out_dir/check_invariants.txt" 2>&1
    check "tools/check_invariants ran (exit status $ci_rc)" test "$ci_rc" -le 1
    if ! check "tools/check_invariants: zero violations (got ${violations:-none})" eq "${violations:-x}" 0; then
        sed 's/^/#   /' "$out_dir/check_invariants.txt" "$out_dir/check_invariants.err"
    fi

    # ---- validation: after the kills, every job validated once
    verify_validation

    # ---- outputs: after the kills, every finished workunit assimilated once
    verify_outputs

    # ---- the hosts' jobs against the database
    sort -u "$out_dir/record" >"$out_dir/received.txt"
    sql "SELECT name, hostid, sent_time, server_state, outcome FROM result WHERE hostid > 0" |
        sort >"$out_dir/claimed.tsv"
    cut -f1,2 "$out_dir/claimed.tsv" | tr '\t' ' ' | sort >"$out_dir/claimed.txt"
    comm -23 "$out_dir/received.txt" "$out_dir/claimed.txt" >"$out_dir/received_not_claimed.txt"
    check "every job a host received is that host's in the database ($(wc -l <"$out_dir/received.txt") jobs)" \
        empty_file "$out_dir/received_not_claimed.txt"
    comm -13 "$out_dir/received.txt" "$out_dir/claimed.txt" >"$out_dir/lost_replies.txt"
    # a job given to a host in the database that never reached it: the
    # reply was lost.  That must have happened at a fault: sent at most 10 s
    # before a scheduler kill or MariaDB's kill, or while it was down.
    awk -F'\t' 'FNR == NR {
            if (FNR > 1 && ($3 == "scheduler" || $3 == "mariadb")) { lo[++n] = $2 - 10; hi[n] = $2 + 1 }
            if (FNR > 1 && $3 == "mariadb_up" && n) hi[n] = $2 + 1
            next
        }
        FILENAME ~ /claimed.tsv$/ { sent[$1 " " $2] = $3; next }
        {
            s = sent[$0]; ok = 0
            for (i = 1; i <= n; i++) if (s >= lo[i] && s <= hi[i]) { ok = 1; break }
            if (!ok) print $0, "sent_time", s
        }' "$FAULTS" "$out_dir/claimed.tsv" "$out_dir/lost_replies.txt" >"$out_dir/lost_without_fault.txt"
    LOST=$(wc -l <"$out_dir/lost_replies.txt")
    check "every job that never reached its host went out at a fault ($LOST such jobs)" \
        empty_file "$out_dir/lost_without_fault.txt"
    local successes
    # (a success whose output the validator found unusable is stored with
    # outcome VALIDATE_ERROR, 6)
    successes=$(awk -F'\t' '$4 == 5 && ($5 == 1 || $5 == 6) { n++ } END { print n + 0 }' "$out_dir/claimed.tsv")
    check "every report stored as a success was acknowledged to its host, and no other (stored $successes, acknowledged $acked)" \
        eq "$successes" "$acked"

    # ---- crashes
    grep -E 'ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error: |unexpected signal ([0-8]|1[0-9])([^0-9]|$)' \
        "$SB/apache/error.log" "$PROJECT_DIR"/log/*.log >"$out_dir/crashes.txt" 2>/dev/null
    check "no crash or sanitizer report in Apache's and the daemons' logs" \
        empty_file "$out_dir/crashes.txt"

    # ---- figures
    local rate down lost_bare
    rate=$(awk -v a="$requests" -v d="$load_s" 'BEGIN { printf "%.0f", a / (d > 0 ? d : 1) }')
    down=$(awk '{ s = $0; sub(/.*down_s=/, "", s); sub(/ .*/, "", s); print s }' <<<"$db_line")
    lost_bare=$(wc -l <"$out_dir/lost_without_fault.txt")
    {
        echo "fault-injection run: $load_s s of load, $hosts hosts in flight," \
             "faults in the first $fault_phase_s s (planned: $fault_end s)"
        echo "requests served     $requests ($rate/s), $((requests - n_failed)) without error"
        echo "jobs sent           $jobs; reports acknowledged $acked"
        echo "failed requests     $n_failed: transport $e_transport, http $e_http ($ap_codes)," \
             "error replies $e_msg, unacknowledged reports $e_proto, unparseable $e_unparse," \
             "double sends $e_double"
        echo "quiet tail          $tail_req requests, $tail_fail failed"
        echo "faults injected     scheduler SIGKILL $n_sched ($n_sched_busy serving a request);" \
             "mariadbd SIGKILL $(count_kind mariadb) (down $down s);" \
             "work_generator $(count_kind work_generator), transitioner $(count_kind transitioner)," \
             "locality_daemon $(count_kind locality_daemon), validator $(count_kind validator)," \
             "assimilator $(count_kind assimilator), file_deleter $(count_kind file_deleter) (each inside a pass)"
        echo "scheduler processes $min_procs to $max_procs (sampled each second after the first 5 s)"
        echo "probes while down   $probes ($probe_kinds)"
        echo "replies lost        $LOST jobs given to a host whose reply never arrived" \
             "($lost_bare of them not at a fault)"
        echo "settle              ${SETTLE_S:-?} s; check_invariants violations ${violations:-?}"
        echo "validation          ${VA_FIGURES:-?}"
        echo "scheduler errors    (the reasons of its error replies in Apache's error log; the"
        echo "                    replies of the db_timeout s after a failure are not listed)"
        sched_errors | sed 's/^/                   /'
    } >"$out_dir/figures.txt"
    sed 's/^/# /' "$out_dir/figures.txt"
}
