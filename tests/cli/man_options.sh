#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The man page cannot drift from --help: every option that any command's
# --help lists (its Usage lines and option lines) must appear in that
# command's entry of doc/anonsim.1 (or under COMMON OPTIONS), and the page
# must have its EXAMPLES, FILES, EXIT STATUS and OUTPUT.
. "${top_srcdir:-.}/tests/lib.sh"
man="$top_srcdir/doc/anonsim.1"

# the page as text: \- is -, font changes go
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man" >"$tmp/man.txt"

# section TITLE-PREFIX: the text of the .SS or .SH whose title starts so
section() {
	awk -v t="$1" '/^\.S[SH] / { title = $0; sub(/^\.S[SH] "?/, "", title)
		on = index(title, t) == 1 && (length(title) == length(t) ||
			substr(title, length(t) + 1, 1) ~ /[ "]/) }
		on' "$tmp/man.txt"
}
section "COMMON OPTIONS" >"$tmp/common.txt"
[ -s "$tmp/common.txt" ] || fail "anonsim.1 has no COMMON OPTIONS"

for section in EXAMPLES FILES "EXIT STATUS" ENVIRONMENT OUTPUT "COMMON OPTIONS" "SEE ALSO"; do
	grep -q "^\.SH $section\$" "$man" || fail "anonsim.1 has no $section section"
done

commands=$("$ANONSIM" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ -n "$commands" ] || fail "no commands in anonsim --help"
checked=0
for cmd in $commands "trace check" "trace stat" "trace convert" "trace cat" "trace gen" "trace import" \
	"trace list"; do
	# shellcheck disable=SC2086 # cmd is one or two words
	"$ANONSIM" $cmd --help >"$tmp/help" 2>&1 || { fail "anonsim $cmd --help failed"; continue; }
	# a subcommand's help is its own, not its parent's
	case $cmd in
	"trace "*)
		head -n 1 "$tmp/help" | grep -q "^Usage: anonsim $cmd" ||
			fail "anonsim $cmd --help: not $cmd's help: $(head -n 1 "$tmp/help")"
		;;
	esac
	grep -q '^Exit status: 0 ok' "$tmp/help" || fail "anonsim $cmd --help has no exit statuses"
	opts=$(grep -E '^(Usage:|       anonsim|  +-)' "$tmp/help" |
		grep -oE '(^|[][ ,|(])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[][ ,|(]//' | sort -u)
	section "anonsim $cmd" >"$tmp/entry.txt"
	[ -s "$tmp/entry.txt" ] || { fail "anonsim.1 has no entry .SS \"anonsim $cmd ...\""; continue; }
	for o in $opts; do
		checked=$((checked + 1))
		cat "$tmp/entry.txt" "$tmp/common.txt" |
			grep -qE -- "(^|[^a-zA-Z0-9-])$o([^a-zA-Z0-9-]|\$)" ||
			fail "anonsim $cmd: option $o is not in its entry in anonsim.1"
	done
done
# the options are really read: replay alone lists more than 20
[ "$checked" -gt 100 ] || fail "only $checked options found in the --help texts"
finish
