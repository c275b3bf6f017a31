#!/usr/bin/env bash
# man_pages.sh: "make install" installs a manual page for every program it
# installs, the pages render cleanly, and they document what the programs
# say they accept; the example configuration files are installed too.
#
# Installs the build into a scratch DESTDIR, then checks:
#   - every program in $(pkglibexecdir) has exactly one page
#     man[18]/locsched-PROGRAM.[18], and every such page a program;
#   - each page renders with "man -l" without warnings, has the sections
#     NAME (naming the program), SYNOPSIS, DESCRIPTION, EXIT STATUS and
#     SEE ALSO, and mentions every option that "PROGRAM --help" prints;
#   - locsched(7) and locsched.conf(5) are installed, and locsched.conf(5)
#     describes every setting of "scheduler --help-config";
#   - the example configs and systemd units are installed under
#     $(docdir)/examples, the units naming the installed programs.
# Needs: make, man (Debian package man-db).  No servers.
set -euo pipefail

name=man_pages.sh
: "${top_builddir:?set top_builddir (run_suite does)}"
command -v man >/dev/null 2>&1 || { echo "$name: man not found (Debian package man-db)" >&2; exit 1; }

fails=0
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; fails=$((fails + 1)); }

dest=$(mktemp -d -t locsched-man-check.XXXXXX)
trap 'rm -rf "$dest"' EXIT

# the install folders of this build, from its Makefile
# (outside any make that runs us; make may also print how it remakes a
# stale Makefile, hence the marker)
dirs=$(printf 'locsched-print-dirs:\n\t@echo LOCSCHED_DIRS $(pkglibexecdir) $(mandir) $(docdir)\n' |
       env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
           make -s --no-print-directory -C "$top_builddir/doc" -f Makefile -f - locsched-print-dirs |
       sed -n 's/^LOCSCHED_DIRS //p')
read -r pkglibexecdir mandir docdir <<<"$dirs"
[ -n "$docdir" ] || { echo "$name: could not read the install folders from $top_builddir/doc/Makefile" >&2; exit 1; }

# a real "make install", outside any make that may be running us
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top_builddir" install DESTDIR="$dest/root" \
        >"$dest/install.log" 2>&1; then
    cat "$dest/install.log"
    echo "$name: make install DESTDIR=... failed" >&2
    exit 1
fi
ok "make install into a scratch DESTDIR"
bin=$dest/root$pkglibexecdir
man_root=$dest/root$mandir
doc_root=$dest/root$docdir

# render PAGE: its text (ASCII, 80 columns) on stdout; groff's warnings in
# $dest/warnings
render() {
    LC_ALL=C MANWIDTH=80 MAN_KEEP_FORMATTING= man --warnings -E ascii -l "$1" 2>"$dest/warnings" |
        col -bx 2>/dev/null || true
}

# ---- a page per program
programs=()
for p in "$bin"/*; do
    [ -f "$p" ] && [ -x "$p" ] && programs+=("${p##*/}")
done
if [ "${#programs[@]}" -ge 10 ]; then
    ok "${#programs[@]} programs installed in $pkglibexecdir"
else
    bad "only ${#programs[@]} programs installed in $pkglibexecdir: ${programs[*]:-none}"
fi
for must in scheduler file_upload_handler work_generator create_batch make_project db_upgrade; do
    [ -x "$bin/$must" ] || bad "$must is not installed in $pkglibexecdir"
done

for prog in "${programs[@]}"; do
    pages=()
    for f in "$man_root"/man1/locsched-"$prog".1 "$man_root"/man8/locsched-"$prog".8; do
        [ -f "$f" ] && pages+=("$f")
    done
    if [ "${#pages[@]}" -ne 1 ]; then
        bad "$prog: ${#pages[@]} manual pages (want one, man1/locsched-$prog.1 or man8/locsched-$prog.8)"
        continue
    fi
    page=${pages[0]}
    text=$(render "$page")
    problems=""
    if [ -s "$dest/warnings" ]; then
        problems="$problems; groff warnings: $(tr '\n' ' ' <"$dest/warnings")"
    fi
    for section in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" "SEE ALSO"; do
        grep -q "^$section\$" <<<"$text" || problems="$problems; no $section section"
    done
    name_line=$(awk '/^NAME$/ { getline; print; exit }' <<<"$text")
    case " $name_line " in
        *" $prog "*|*" $prog,"*) ;;
        *) problems="$problems; NAME does not name $prog ($name_line)" ;;
    esac
    # every option the program's --help mentions
    help=$("$bin/$prog" --help 2>&1 </dev/null) || problems="$problems; $prog --help failed"
    missing=""
    for opt in $(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$help" | sort -u); do
        grep -qF -- "$opt" <<<"$text" || missing="$missing $opt"
    done
    [ -z "$missing" ] || problems="$problems; options of --help missing from the page:$missing"
    if [ -z "$problems" ]; then
        ok "$prog: ${page#"$man_root"/}"
    else
        bad "$prog: ${page#"$man_root"/}${problems}"
    fi
done

# ---- no page without a program
for f in "$man_root"/man1/locsched-*.1 "$man_root"/man8/locsched-*.8; do
    [ -f "$f" ] || continue
    p=${f##*/locsched-}
    p=${p%.[18]}
    [ -x "$bin/$p" ] || bad "${f#"$man_root"/} documents $p, which is not installed"
done

# ---- overview and configuration pages
for f in man7/locsched.7 man5/locsched.conf.5; do
    if [ ! -f "$man_root/$f" ]; then
        bad "$f is not installed"
        continue
    fi
    render "$man_root/$f" >"$dest/text"
    if [ -s "$dest/warnings" ]; then
        bad "$f renders with warnings: $(tr '\n' ' ' <"$dest/warnings")"
    else
        ok "$f renders"
    fi
done
if [ -f "$man_root/man5/locsched.conf.5" ]; then
    render "$man_root/man5/locsched.conf.5" >"$dest/conf.txt"
    settings=$("$bin/scheduler" --help-config | sed -n '3,$p' | awk -F'|' '{ gsub(/ /, "", $2); print $2 }')
    missing=""
    for s in $settings; do
        grep -qE "^ {7}$s\$" "$dest/conf.txt" || missing="$missing $s"
    done
    if [ -n "$settings" ] && [ -z "$missing" ]; then
        ok "locsched.conf(5) describes all $(wc -w <<<"$settings") settings"
    else
        bad "locsched.conf(5) lacks settings:${missing:- (none listed by scheduler --help-config)}"
    fi
fi

# ---- examples and guides
for f in examples/locsched.conf examples/apache-locsched.conf examples/galera-node.cnf \
         examples/systemd/locsched-daemons.target \
         examples/systemd/daemons.env examples/systemd/locsched-status-pages.timer \
         admin-guide.md config-reference.md keys.md locality.md; do
    [ -s "$doc_root/$f" ] || bad "$docdir/$f is not installed"
done
for u in work-generator:work_generator transitioner:transitioner locality-daemon:locality_daemon \
         status-pages:status_pages; do
    unit=$doc_root/examples/systemd/locsched-${u%%:*}.service
    if [ ! -s "$unit" ]; then
        bad "$docdir/examples/systemd/${unit##*/} is not installed"
    elif ! grep -q "^ExecStart=$pkglibexecdir/${u#*:} --config " "$unit" || grep -q '@[a-z]*@' "$unit"; then
        bad "${unit##*/} does not start $pkglibexecdir/${u#*:} --config ... (or has an unreplaced @name@)"
    else
        ok "${unit##*/} starts $pkglibexecdir/${u#*:}"
    fi
done

echo "$name: $fails problem(s)"
[ "$fails" = 0 ]
