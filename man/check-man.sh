#!/bin/sh
# check-man.sh -- checks that the manual pages are clean and current
# (`make check-man`):
#   * `man --warnings` reports nothing for each page;
#   * every option in the option column of `leirc --help` is in leirc(1);
#   * every strategy of `leirc --list-passes` has its section in
#     leir-strategies(7), marked "Not implemented yet" exactly when it is not;
#   * the pages' headers name the package version.
#
#   man/check-man.sh SRCDIR LEIRC VERSION
# Exit status 0 when all hold, 1 otherwise (each problem on one line).
set -u
srcdir=$1 leirc=$2 version=$3
man=$srcdir/man
rc=0
bad() { echo "check-man: $*"; rc=1; }

for page in "$man"/*.[1-9]; do
  out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
  [ -z "$out" ] || bad "$(basename "$page"): $out"
  sed -n 's/^\.TH .*"leirc \([0-9][^"]*\)".*/\1/p' "$page" | grep -qx "$version" ||
    bad "$(basename "$page"): .TH does not say \"leirc $version\""
done

# The options: `  -x, --long...` and `      --long...` lines of --help.
# In the page a '-' is written '\-'; font escapes may sit around names.
plain=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man/leirc.1")
opts=$("$leirc" --help | sed -n 's/^ \{2,6\}\(-[A-Za-z]\)\{0,1\}\(, \)\{0,1\}\(--[A-Za-z][A-Za-z-]*\)\{0,1\}.*/\1 \3/p')
for o in $opts; do
  printf '%s\n' "$plain" | grep -q -e "$o\\([^A-Za-z-]\\|\$\\)" || bad "leirc.1 does not describe $o"
done

# The strategies: NAME LEVEL CLASS implemented|not-implemented [alias A].
passes=$("$leirc" --list-passes) || bad "leirc --list-passes failed"
while read -r name _ _ status _; do
  [ -n "$name" ] || continue
  section=$(sed -n "/^\\.SS \\\\%$name\$/,/^\\.S[SH] /p" "$man/leir-strategies.7")
  if [ -z "$section" ]; then
    bad "leir-strategies.7 has no section for $name"
    continue
  fi
  marked=no
  printf '%s\n' "$section" | grep -q 'Not implemented yet' && marked=yes
  case $status:$marked in
    implemented:yes) bad "leir-strategies.7 says $name is not implemented" ;;
    not-implemented:no) bad "leir-strategies.7 does not say $name is not implemented" ;;
  esac
done <<EOF
$passes
EOF
[ "$rc" -eq 0 ] && echo "check-man: the manual pages are clean and current"
exit "$rc"
