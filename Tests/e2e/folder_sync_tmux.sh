#!/usr/bin/env bash
# folder_sync_tmux.sh - two devices (two homes, two stores) sharing one folder, the reader
# open on one of them in a private tmux server: a feed read on the other device and sent by
# its `zeader refresh` shows read in the open reader after its refresh (r), and a read made
# in the reader reaches the other device; a refused entry and the folder gone are named on
# the reader's status line.
#   usage: Tests/e2e/folder_sync_tmux.sh      env: ZEADER=.build/debug/zeader
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
zeader=$(realpath "${ZEADER:-$root/.build/debug/zeader}")
work=$(mktemp -d -t zfolder.XXXXXX)
export LC_ALL=C.UTF-8
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY NO_COLOR
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
server_pid=""
# The panes' programs are killed, not hung up: under `swift test` SIGHUP may be blocked, and a
# pane left waiting would hold this script's output open.
trap 'for s in "$work"/tmux.*.sock; do
		for pid in $(tmux -S "$s" list-panes -a -F "#{pane_pid}" 2>/dev/null); do kill -KILL -- "-$pid" "$pid" 2>/dev/null || true; done
		tmux -S "$s" kill-server 2>/dev/null || true
	done
	[ -z "$server_pid" ] || kill -KILL "$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
. "$root/Tests/e2e/tmux_lib.sh"

# on DEVICE ARGS…: runs zeader as device a or b (its own home, XDG dirs and store).
on() {
	local device=$1
	shift
	HOME="$work/$device" XDG_CONFIG_HOME="$work/$device/.config" XDG_DATA_HOME="$work/$device/.local/share" \
		"$zeader" --db "$work/$device/z.sqlite" "$@"
}
mkdir -p "$work/www" "$work/shared" "$work/a/.config/zeader" "$work/b/.config/zeader"
{
	printf '<?xml version="1.0"?>\n<rss version="2.0"><channel><title>Shared Feed</title><link>http://example.org/</link>\n'
	for i in 1 2 3; do
		printf '<item><guid>s%s</guid><title>Story %s</title><link>http://example.org/%s</link><pubDate>%s Jan 2026 10:00:00 GMT</pubDate></item>\n' \
			"$i" "$i" "$i" "$i"
	done
	printf '</channel></rss>\n'
} >"$work/www/shared.xml"
serve_static "$work/www" 170
feed="http://127.0.0.1:$port/shared.xml"

echo "== two devices, one folder"
on a add "$feed" >/dev/null
on a refresh >/dev/null
on a sync add "folder:$work/shared" >/dev/null
on b sync add "folder:$work/shared" >/dev/null
on b refresh >/dev/null

echo "== the reader on b shows a's read after its refresh"
start "HOME='$work/b' XDG_CONFIG_HOME='$work/b/.config' XDG_DATA_HOME='$work/b/.local/share' '$zeader' --db '$work/b/z.sqlite'"
expect "Shared Feed"
expect_line 1 "Feeds (3 unread)"
on a mark-read --feed "$feed" >/dev/null
on a refresh >/dev/null
keys r
expect_line 1 "Feeds (0 unread)" 10
expect "0/3"

echo "== a read made in the reader reaches the other device"
on a sync >/dev/null
keys Enter
expect "Story 1"
keys N
keys q
keys r
sleep 1
checks=$((checks + 1))
unread=$(on a sync >/dev/null && on a list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["unread"])')
[ "$unread" = 1 ] || fail "device a has $unread unread items, not 1"

echo "== what goes wrong with the folder is named on the status line"
mkdir -p "$work/shared/zeader-sync/evil1"
printf '{"feed":"exec:touch %s/ran","op":"sub","t":"mitvfg1s.0.evil1","v":true}\n' "$work" \
	>"$work/shared/zeader-sync/evil1/log-1.jsonl"
keys r
expect "; refused a subscription from device evil1: exec:touch" 10
checks=$((checks + 1))
[ ! -e "$work/ran" ] || fail "another device's exec: feed ran"
mv "$work/shared" "$work/shared-gone"
keys r
expect "; folder sync failed: sync folder $work/shared is" 10
mv "$work/shared-gone" "$work/shared"
keys r
for _ in $(seq 200); do screen | grep -qF "folder sync failed" || break; sleep 0.05; done
expect "Refreshed 1 feed" 10
refute "folder sync failed"
keys q
expect "EXIT=0"

echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
