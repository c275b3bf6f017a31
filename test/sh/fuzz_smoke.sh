#!/usr/bin/env bash
# run_suite: once (builds its own clang ASan/UBSan binaries; the plain build's suite runs it, see test/run_suite)
# fuzz_smoke.sh - the short fuzz run of "make check": builds the four
# libFuzzer targets of test/fuzz with clang (test/fuzz/build), replays the
# saved crashers of test/fuzz/crashers, then fuzzes each target for
# FUZZ_SMOKE_SECONDS seconds (default 10) from its seed corpus
# (test/fuzz/run).  Any finding fails.
#
# Needs clang with libFuzzer (Debian: clang, libclang-rt-dev; installed by
# tools/install_deps).  Uses the sandbox only for one seed: the config the
# sandbox runs with ($LOCSCHED_CONFIG), added to the config target's
# work corpus.  Binaries, work corpora and logs are in
# $top_builddir/test/fuzz-build (the folder "make fuzz" uses).
#
# Prints TAP; exit status 1 if anything failed.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
FUZZ=$top_srcdir/test/fuzz
OUT=$top_builddir/test/fuzz-build
SECONDS_EACH=${FUZZ_SMOKE_SECONDS:-10}
TARGETS="fuzz_sched_request fuzz_upload_request fuzz_config fuzz_batch_desc fuzz_account_args"

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; failed=$((failed + 1)); }

mkdir -p "$OUT"
if "$FUZZ/build" --out "$OUT" >"$OUT/build.log" 2>&1; then
    ok "fuzz targets built with clang"
else
    not_ok "fuzz targets built with clang"
    sed 's/^/#   /' "$OUT/build.log"
    echo "1..$n"
    exit 1
fi

# 1. every saved crasher must now be handled (file names: TARGET-...)
for t in $TARGETS; do
    for c in "$FUZZ/crashers/$t"-*; do
        [ -f "$c" ] || continue
        if "$OUT/$t" -runs=1 "$c" >"$OUT/replay.log" 2>&1; then
            ok "crasher ${c##*/} no longer crashes $t"
        else
            not_ok "crasher ${c##*/} still crashes $t"
            grep -E -A12 'ERROR|runtime error|post-condition' "$OUT/replay.log" | head -n 30 |
                sed 's/^/#   /'
        fi
    done
done

# 2. the sandbox's live config as one more seed
if [ -n "${LOCSCHED_CONFIG:-}" ] && [ -r "$LOCSCHED_CONFIG" ]; then
    mkdir -p "$OUT/work/fuzz_config"
    cp "$LOCSCHED_CONFIG" "$OUT/work/fuzz_config/sandbox-live.conf"
fi

# 3. a short run of each target
for t in $TARGETS; do
    if FUZZ_SECONDS=$SECONDS_EACH "$FUZZ/run" --out "$OUT" "$t" >"$OUT/smoke-$t.log" 2>&1; then
        ok "$(tail -n 1 "$OUT/smoke-$t.log")"
    else
        not_ok "$t: fuzzing found a problem (or could not run)"
        sed 's/^/#   /' "$OUT/smoke-$t.log" | tail -n 70
    fi
done

echo "1..$n"
[ "$failed" = 0 ]
