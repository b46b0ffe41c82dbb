#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# completion.sh - the bash completion (src/cli/anonsim.bash-completion),
# sourced in a bash of its own, offers exactly the commands "anonsim
# --help" lists, the subcommands "anonsim trace --help" lists, and for
# each of them every option its --help lists (on option lines, at any
# indentation, and in "Options ...:" paragraphs), the strategies of the
# registry, the values of --policy, --variant and --geometry the tool
# accepts (as its refusals name them), and file names.  The lists are
# read here from the tool, not written down: an option added to a --help
# and not completed fails.  A completion that lost an option is caught,
# and a --help that gains one is completed at once.
. "$top_srcdir/tests/lib.sh"
command -v bash >/dev/null 2>&1 || { echo "no bash: skipped"; exit 77; }
completion=$top_srcdir/src/cli/anonsim.bash-completion
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# The options a help text lists that are other programs' (GNU parallel's
# --sshlogin in sweep's, strace's -e and -p in trace import's example).
foreign() {
	case $1 in
	sweep) echo --sshlogin ;;
	"trace import") printf '%s\n' -e -p ;;
	esac
}

# listed [CMD...]: the options "anonsim CMD --help" lists, one a line,
# sorted (anonsim's own also from its Usage lines)
listed() {
	"$ANONSIM" "$@" --help | awk -v top=$(($# == 0)) '
		/^$/ { shared = 0 }
		/^Options [^:]*: --/ { shared = 1 }
		shared || /^ +-/ || (top && /^(Usage:|       anonsim)/) {
			line = $0
			while (match(line, /(^|[][ ,|(])--?[A-Za-z][A-Za-z0-9-]*/)) {
				o = substr(line, RSTART, RLENGTH)
				sub(/^[][ ,|(]/, "", o)
				print o
				line = substr(line, RSTART + RLENGTH)
			}
		}' | LC_ALL=C sort -u >"$tmp/listed"
	foreign "$*" | LC_ALL=C sort >"$tmp/foreign"
	LC_ALL=C comm -23 "$tmp/listed" "$tmp/foreign"
}

# The driver: each line of standard input is "WORD...|CUR", the words of
# a command line before the one being completed; each output line is
# what the completion offers for it, space-separated and sorted.
# STALE=OPTION drops OPTION from what the completion reads.
cat >"$tmp/driver.bash" <<'END'
. "$1"
if [[ -n ${STALE:-} ]]; then
	eval "_fresh_options() $(declare -f _anonsim_options | tail -n +2)"
	_anonsim_options() { _fresh_options "$@" | awk -v o="$STALE" '$1 != o'; }
fi
while IFS= read -r line; do
	read -r -a COMP_WORDS <<<"${line%|*}"
	COMP_WORDS+=("${line##*|}")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_anonsim
	printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' ' '
	echo
done
END
# complete "WORD...|CUR"...: one output line per query into $tmp/got
complete_lines() {
	printf '%s\n' "$@" >"$tmp/queries"
	bash --norc --noprofile "$tmp/driver.bash" "$completion" <"$tmp/queries" >"$tmp/got" 2>"$tmp/bash.err" ||
		fail "bash failed on the completion: $(cat "$tmp/bash.err")"
	[ -s "$tmp/bash.err" ] && fail "bash said: $(cat "$tmp/bash.err")"
}
# same WHAT LIST OFFERED: fail unless the two space-separated lists hold
# the same words
same() {
	printf '%s\n' $2 | LC_ALL=C sort -u >"$tmp/want"
	printf '%s\n' $3 | LC_ALL=C sort -u >"$tmp/offered"
	cmp -s "$tmp/want" "$tmp/offered" ||
		fail "$1: listed but not offered: $(LC_ALL=C comm -23 "$tmp/want" "$tmp/offered" | tr '\n' ' ')offered but not listed: $(LC_ALL=C comm -13 "$tmp/want" "$tmp/offered" | tr '\n' ' ')"
}

commands=$("$ANONSIM" --help | awk '/^Commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
subcommands=$("$ANONSIM" trace --help | sed -n 's/^\(Usage:\)\{0,1\} *anonsim trace \([a-z]*\).*/\2/p')
[ "$(echo $commands | wc -w)" -ge 7 ] || fail "too few commands in anonsim --help: $commands"
[ "$(echo $subcommands | wc -w)" -ge 7 ] || fail "expected at least 7 trace subcommands: $(echo $subcommands)"

# the command lines completed: commands, subcommands, then each one's options
queries="$ANONSIM|
$ANONSIM|-
$ANONSIM trace|"
for c in $commands; do
	[ "$c" = trace ] || queries="$queries
$ANONSIM $c|-"
done
for s in $subcommands; do
	queries="$queries
$ANONSIM trace $s|-"
done
# shellcheck disable=SC2086 # one query a line
(IFS='
'; complete_lines $queries)
exec 3<"$tmp/got"
read -r got <&3; same "anonsim" "$commands" "$got"
read -r got <&3; same "anonsim -" "$(listed)" "$got"
read -r got <&3; same "anonsim trace" "$subcommands" "$got"
checked=0
for c in $commands "trace $subcommands"; do
	case $c in
	trace) continue ;;
	"trace "*) set -- $subcommands; c= ;;
	*) set -- "$c" ;;
	esac
	for w; do
		[ -n "$c" ] && cmd=$w || cmd="trace $w"
		read -r got <&3
		# shellcheck disable=SC2086
		want=$(listed $cmd)
		same "anonsim $cmd -" "$want" "$got"
		checked=$((checked + $(echo $want | wc -w)))
	done
done
exec 3<&-
# every option is read: 149 as this was written, replay alone 36
[ "$checked" -gt 120 ] || fail "only $checked options found in the --help texts"

# the values: the strategies of the registry and those each option's
# refusal names ("expected one of A, B, or C" / "expected A, B or C")
accepted() {
	"$ANONSIM" replay "$1" '?' "$top_srcdir/traces/debian-boot-64M.trace.gz" 2>&1 |
		sed -n 's/.*expected \(one of \)\{0,1\}//p' | sed -e 's/,* or / /' -e 's/,//g'
}
strategies=$("$ANONSIM" replay --help | awk '/^Strategies:/ { on = 1; next }
	on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
# six strategies and QEMU's five cache modes naming two of them
[ "$(echo $strategies | wc -w)" -eq 11 ] || fail "expected 11 strategy names: $strategies"
mkdir "$tmp/files" "$tmp/files/dir"
: >"$tmp/files/a.trace"
: >"$tmp/files/a.atr.gz"
complete_lines "$ANONSIM replay --strategy|" "$ANONSIM density -s|" \
	"$ANONSIM replay --policy|" "$ANONSIM density --variant|" "$ANONSIM replay --geometry|" \
	"$ANONSIM replay --strategy =|" "$ANONSIM sweep -s|read-copy,p" \
	"$ANONSIM trace import --from|" "$ANONSIM replay --policy|2" \
	"$ANONSIM replay|$tmp/files/a" "$ANONSIM replay -o|$tmp/files/" \
	"$ANONSIM reproduce -d|$tmp/files/" "$ANONSIM replay --host-mem|" \
	"$ANONSIM trace stat|$tmp/files/a.t"
exec 3<"$tmp/got"
read -r got <&3; same "anonsim replay --strategy" "$strategies all" "$got"
same "the strategies' refusal" "$(accepted --strategy)" "$got"
read -r got <&3; same "anonsim density -s" "$strategies all" "$got"
read -r got <&3; same "anonsim replay --policy" "$(accepted --policy)" "$got"
same "--policy values" "modern 2.4" "$got"
read -r got <&3; same "anonsim density --variant" "$(accepted --variant)" "$got"
same "--variant values" "posted fixed both" "$got"
read -r got <&3; same "anonsim replay --geometry" "$(accepted --geometry)" "$got"
same "--geometry values" "x86_64 i386" "$got"
read -r got <&3; same "anonsim replay --strategy=" "$strategies all" "$got"
read -r got <&3; same "anonsim sweep -s read-copy,p" "read-copy,punch" "$got"
read -r got <&3; same "anonsim trace import --from" "strace" "$got"
read -r got <&3; same "anonsim replay --policy 2" "2.4" "$got"
read -r got <&3; same "anonsim replay FILE" "$tmp/files/a.atr.gz $tmp/files/a.trace" "$got"
read -r got <&3; same "anonsim replay -o FILE" "$tmp/files/a.atr.gz $tmp/files/a.trace $tmp/files/dir" "$got"
read -r got <&3; same "anonsim reproduce -d DIR" "$tmp/files/dir" "$got"
read -r got <&3; same "anonsim replay --host-mem SIZE" "" "$got"
read -r got <&3; same "anonsim trace stat FILE" "$tmp/files/a.trace" "$got"
exec 3<&-

# the check catches a completion that lost an option
STALE=--pages complete_lines "$ANONSIM replay|-"
read -r got <"$tmp/got"
failures_before=$failures
same "stale" "$(listed replay)" "$got" 2>"$tmp/stale.err"
failures=$failures_before
[ "$(cat "$tmp/stale.err")" = "FAIL: stale: listed but not offered: --pages offered but not listed: " ] ||
	fail "a completion without --pages was not caught: $(cat "$tmp/stale.err")"
# a --help that gains an option (and a command) is completed as it stands
cat >"$tmp/anonsim" <<END
#!/bin/sh
"$ANONSIM" "\$@" || exit
case "\$*" in
"replay --help") echo "      --planted FILE  an option added to the help" ;;
--help) echo "Commands:"; echo "  planted    a command added to the help" ;;
esac
END
chmod +x "$tmp/anonsim"
complete_lines "$tmp/anonsim replay|--pl" "$tmp/anonsim|pl" "$tmp/anonsim replay --planted|$tmp/files/a.t"
exec 3<"$tmp/got"
read -r got <&3; same "a planted option" "--planted" "$got"
read -r got <&3; same "a planted command" "planted" "$got"
read -r got <&3; same "a planted option's FILE" "$tmp/files/a.trace" "$got"
exec 3<&-
finish
