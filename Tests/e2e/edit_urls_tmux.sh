#!/usr/bin/env bash
# edit_urls_tmux.sh - edit-urls (E) in the real reader, in a private tmux server: a urls file
# with an exec: feed whose command has blanks, a comment, a query: line and a "!" hidden feed is
# imported and refreshed; E with an editor that retags the exec: line changes that feed only, its
# command stays whole and its items survive; the editor is shown the file as it was written.
#   usage: Tests/e2e/edit_urls_tmux.sh      env: ZEADER=.build/debug/zeader, KEEP=1 keeps the work folder
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
zeader=$(realpath "${ZEADER:-$root/.build/debug/zeader}")
work=$(mktemp -d -t zurls.XXXXXX)
sock="$work/tmux.sock"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" LC_ALL=C.UTF-8
mkdir -p "$XDG_CONFIG_HOME" "$work/bin"
trap 'tmux -S "$sock" kill-server 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
failures=0 checks=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); "$@" || fail "$*"; }

# The exec: feed prints its items only when its arguments arrive whole and in order.
cat >"$work/bin/feed.sh" <<'SCRIPT'
#!/bin/sh
[ "$#" = 3 ] && [ "$1" = "--all" ] && [ "$2" = "--since" ] && [ "$3" = "2 days" ] || exit 3
printf '<rss version="2.0"><channel><title>Exec</title>'
for n in 1 2 3; do printf '<item><guid>exec-%s</guid><title>Exec item %s</title></item>' "$n" "$n"; done
printf '</channel></rss>\n'
SCRIPT
chmod +x "$work/bin/feed.sh"
printf '<rss version="2.0"><channel><title>Hidden</title><item><guid>h1</guid><title>Hidden item</title></item></channel></rss>\n' >"$work/hidden.xml"
cat >"$work/urls" <<URLS
# my feeds
"exec:$work/bin/feed.sh --all --since \\"2 days\\"" mine "~My Exec Feed"
"query:Unread:unread = \\"yes\\""

file://$work/hidden.xml "!" hidden
URLS
# The editor keeps what it was shown and retags the exec: line.
cat >"$work/bin/editor" <<SCRIPT
#!/bin/sh
cp "\$1" "$work/shown.urls"
sed -i 's/ mine / mine edited /' "\$1"
SCRIPT
chmod +x "$work/bin/editor"

"$zeader" import "$work/urls" >/dev/null 2>&1
"$zeader" refresh >/dev/null 2>&1 || fail "refresh"
count() { "$zeader" items --json | grep -o '"id"' | wc -l; }
check [ "$(count)" = 4 ]

t() { tmux -S "$sock" "$@"; }
screen() { t capture-pane -p -t main; }
expect() {
	local i
	checks=$((checks + 1))
	for i in $(seq 200); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.05
	done
	echo "FAIL: screen never showed '$1'" >&2
	screen | sed 's/^/    | /' >&2
	failures=$((failures + 1))
}
t new-session -d -s main -x 100 -y 20 "VISUAL=$work/bin/editor $zeader; sleep 60"
expect "My Exec Feed"
checks=$((checks + 1))
screen | grep -qF "Hidden" && { fail "the hidden feed is listed"; screen | sed "s/^/    | /" >&2; }
t send-keys -t main E
expect "0 added, 0 removed, 1 changed"
t send-keys -t main q
sleep 0.5

# The editor was shown the file as written: comment, quoting, query: line, blank line, "!".
check cmp -s "$work/urls" "$work/shown.urls"
check [ "$(count)" = 4 ]
check grep -qF 'Exec item 3' <("$zeader" items)
"$zeader" list --json >"$work/list.json"
check grep -qF '"tags":["edited","mine"]' "$work/list.json"
check grep -qF 'feed.sh --all --since' "$work/list.json"
# The command still runs whole: a refresh after the edit fails nothing.
check "$zeader" refresh
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
