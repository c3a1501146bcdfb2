#!/usr/bin/env bash
# reader_sync_freshrss.sh - the real reader (in tmux) with a real FreshRSS on 127.0.0.1:
# quitting the reader pushes the read made in it (the server has it afterwards, nothing is
# pending); an open reader shows another device's read within its sync-interval, without a
# key press; quitting with the server gone still exits 0 and says, once the terminal is
# restored, how many changes are kept for the next sync, and so does ^C.
#   usage: Tests/e2e/reader_sync_freshrss.sh   env: ZEADER=.build/debug/zeader,
#          ZEADER_FRESHRSS=…/freshrss.sh (else ../shared/servers/freshrss/ beside the repository)
#   exit: 0 passed, 1 failed, 77 FreshRSS cannot run here (the reason on stderr)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
zeader=$(realpath "${ZEADER:-$root/.build/debug/zeader}")
freshrss=${ZEADER_FRESHRSS:-$(dirname "$root")/shared/servers/freshrss/freshrss.sh}
[ -x "$freshrss" ] || { echo "SKIP: no freshrss.sh at $freshrss" >&2; exit 77; }
work=$(mktemp -d -t zsync.XXXXXX)
sock="$work/tmux.0.sock" starts=0
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" LC_ALL=C.UTF-8
mkdir -p "$XDG_CONFIG_HOME/zeader"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY NO_COLOR
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
feed_pid="" fr_group=""
stop_freshrss() {
	"$freshrss" stop "$work/fr" >/dev/null 2>&1 || true
	# Its PHP workers live in the process group of the leader it started; SIGTERM may be
	# blocked when this runs under `swift test`, so they are killed.
	[ -z "$fr_group" ] || kill -KILL -- "-$fr_group" 2>/dev/null || true
	fr_group=""
}
# The panes' programs are killed, not hung up: under `swift test` SIGHUP may be blocked, and a
# pane left waiting would hold this script's output open.
stop_tmux() {
	local pid
	for pid in $(tmux -S "$sock" list-panes -a -F '#{pane_pid}' 2>/dev/null); do kill -KILL -- "-$pid" "$pid" 2>/dev/null || true; done
	tmux -S "$sock" kill-server 2>/dev/null || true
}
trap 'stop_tmux; stop_freshrss
	[ -z "$feed_pid" ] || kill -KILL "$feed_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
failures=0 checks=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

t() { tmux -S "$sock" "$@"; }
screen() { t capture-pane -p -J -t main; }  # -J: a wrapped line as one
# expect TEXT [SECONDS]: waits until the screen shows TEXT.
expect() {
	local text=$1 limit=${2:-10} i
	checks=$((checks + 1))
	for i in $(seq $((limit * 20))); do
		screen | grep -qF -- "$text" && return 0
		sleep 0.05
	done
	fail "screen never showed '$text'"
	screen | sed 's/^/    | /' >&2
}
keys() { t send-keys -t main "$@"; sleep 0.2; }
start() {
	stop_tmux
	starts=$((starts + 1))
	sock="$work/tmux.$starts.sock"  # a fresh private server each time
	t new-session -d -s main -x 100 -y 30 "stty sane; $*; echo EXIT=\$?; sleep 60"
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

echo "== FreshRSS and a feed on 127.0.0.1"
port=$(free_port)
# Output to files: the server it leaves running must not hold this script's pipes.
status=0
"$freshrss" start "$work/fr" "$port" 400 >"$work/fr.env" 2>"$work/fr.err" </dev/null || status=$?
if [ "$status" != 0 ]; then
	# 3: PHP or one of its extensions is missing (freshrss.sh says which).
	[ "$status" = 3 ] && { echo "SKIP: $(cat "$work/fr.err")" >&2; exit 77; }
	echo "FAIL: freshrss.sh start (status $status): $(cat "$work/fr.err")" >&2
	exit 1
fi
# shellcheck disable=SC1091
. "$work/fr.env"
fr_group=$(cat "$work/fr/server.pid" 2>/dev/null || true)
www="$work/www"
mkdir -p "$www"
{
	printf '<?xml version="1.0"?><rss version="2.0"><channel><title>Travel</title><link>http://127.0.0.1/travel/</link>\n'
	for i in 1 2 3; do
		printf '<item><guid>t%d</guid><title>Travel item %d</title><link>http://127.0.0.1/travel/%d</link>' "$i" "$i" "$i"
		printf '<pubDate>Sat, 21 Nov 2026 0%d:00:00 GMT</pubDate></item>\n' "$i"
	done
	printf '</channel></rss>\n'
} >"$www/travel.xml"
python3 -u "$root/Tests/e2e/serve_static.py" "$www" 400 >"$work/http.log" 2>&1 </dev/null &
feed_pid=$!
disown "$feed_pid"  # killed by the trap, without a "Killed" line
feed_port=""
for i in $(seq 200); do
	feed_port=$(sed -n 's/^serving on 127\.0\.0\.1 port \([0-9]*\)$/\1/p' "$work/http.log" | head -n 1)
	[ -n "$feed_port" ] && break
	sleep 0.05
done
[ -n "$feed_port" ] || { echo "FAIL: the feed server did not start" >&2; exit 1; }

# "Another device": the API itself, through curl.
auth=$(curl -s -X POST "$FRESHRSS_API/accounts/ClientLogin" \
	--data-urlencode "Email=$FRESHRSS_USER" --data-urlencode "Passwd=$FRESHRSS_PASSWORD" | sed -n 's/^Auth=//p')
api() { curl -s -H "Authorization: GoogleLogin auth=$auth" "$@"; }
token=$(api "$FRESHRSS_API/reader/api/0/token")
api -X POST "$FRESHRSS_API/reader/api/0/subscription/quickadd" --data-urlencode "T=$token" \
	--data-urlencode "quickadd=http://127.0.0.1:$feed_port/travel.xml" >/dev/null
unread_ids() {
	api "$FRESHRSS_API/reader/api/0/stream/items/ids?s=user/-/state/com.google/reading-list&xt=user/-/state/com.google/read&n=100" |
		python3 -c 'import json, sys; print(" ".join(r["id"] for r in json.load(sys.stdin).get("itemRefs", [])))'
}
checks=$((checks + 1))
[ "$(unread_ids | wc -w)" = 3 ] || fail "FreshRSS has not the feed's 3 unread items: '$(unread_ids)'"

store="$work/a.sqlite"
ZEADER_SYNC_PASSWORD=$FRESHRSS_PASSWORD "$zeader" sync add "$FRESHRSS_API" --user "$FRESHRSS_USER" --db "$store" >/dev/null
"$zeader" sync --db "$store" >/dev/null

echo "== quitting the reader pushes the read made in it"
start "$zeader --db $store"
expect "3/3"
expect "Travel"
keys Enter
expect "Travel item 3"
keys Enter
expect "Title: Travel item"
keys q q q  # article, items, then quit: before the push that follows an edit's pause
expect "EXIT=0" 10
checks=$((checks + 1))
[ "$(unread_ids | wc -w)" = 2 ] || fail "after quitting, FreshRSS should have 2 unread items, has: '$(unread_ids)'"
checks=$((checks + 1))
"$zeader" sync status --db "$store" | grep -q "pending changes: 0" ||
	fail "changes left pending after quitting: $("$zeader" sync status --db "$store")"

echo "== an open reader shows another device's read within sync-interval"
printf 'sync-interval 2s\n' >"$XDG_CONFIG_HOME/zeader/config"
start "$zeader --db $store"
expect "2/3"
keys Enter
expect "Travel item 1"
read -r other _ <<<"$(unread_ids)"
api -X POST "$FRESHRSS_API/reader/api/0/edit-tag" --data-urlencode "T=$token" --data-urlencode "i=$other" \
	--data-urlencode "a=user/-/state/com.google/read" >/dev/null
keys q
expect "1/3" 15
keys q
expect "EXIT=0"

echo "== ^C (SIGINT) ends the reader at once and says the change is kept"
printf 'sync-interval 0\n' >"$XDG_CONFIG_HOME/zeader/config"
start "$zeader --db $store"
expect "Synced"
expect "1/3"
keys Enter
expect "Travel item 1"
keys N  # item 3 unread again
keys C-c
expect "stopped by signal 2 before pushing; the 1 change made here is kept for the next sync"
expect "EXIT=130"

echo "== quitting with the server gone exits 0 and says the change is kept"
start "$zeader --db $store"
expect "Synced"  # the start's sync pushed the change kept above
expect "2/3"
stop_freshrss
keys Enter
expect "Travel item 1"
keys N  # item 3 read again
keys q q
expect "the 1 change made here is kept for the next sync" 15
expect "EXIT=0"

echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
