#!/usr/bin/env bash
# mouse_tmux.sh - the mouse in the real `zeader` binary, in a private tmux server: SGR mouse
# reports (what a terminal sends in mode 1006) typed into the pane select and open rows, double
# click, scroll lists and articles with the wheel, open an article's link by its number and go
# back from the title bar; keys keep working; the modes the reader asks of the terminal (read
# from tmux's pane flags) follow `mouse yes|no`, the terminal's terminfo entry and `:set mouse`,
# are off while the browser has the terminal, and after q and SIGTERM.
#   usage: Tests/e2e/mouse_tmux.sh      env: ZEADER=.build/debug/zeader
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
zeader=$(realpath "${ZEADER:-$root/.build/debug/zeader}")
work=$(mktemp -d -t zmouse.XXXXXX)
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" LC_ALL=C.UTF-8
mkdir -p "$XDG_CONFIG_HOME/zeader"
# The browser records its argument and the mouse modes of the pane while it has the terminal.
cat >"$work/browser" <<EOF
#!/bin/sh
printf '[%s] modes=%s\n' "\$1" "\$(tmux -S "\$(cat "$work/socket")" display -p -t main '#{mouse_standard_flag}#{mouse_sgr_flag}')" >>"$work/browser.log"
EOF
chmod +x "$work/browser"
export BROWSER="$work/browser"
trap 'for s in "$work"/tmux.*.sock; do stop_server "$s"; done; rm -rf "$work"' EXIT
. "$root/Tests/e2e/tmux_lib.sh"
# expect_modes FLAGS: the pane's mouse modes 1000 and 1006, as tmux sees them ("11": both on).
expect_modes() {
	local want=$1 i got
	checks=$((checks + 1))
	for i in $(seq 100); do
		got=$(t display -p -t main '#{mouse_standard_flag}#{mouse_sgr_flag}')
		[ "$got" = "$want" ] && return 0
		sleep 0.05
	done
	fail "the pane's mouse modes are $got, not $want"
}
# A report as the terminal sends it: button, 1-based column and row; M a press, m a release.
report() { t send-keys -t main -l $'\e'"[<$1;$2;$3$4"; }
click() { report 0 "$1" "$2" M; report 0 "$1" "$2" m; sleep 0.15; }
double_click() { t send-keys -t main -l $'\e'"[<0;$1;$2M"$'\e'"[<0;$1;$2m"$'\e'"[<0;$1;$2M"$'\e'"[<0;$1;$2m"; sleep 0.15; }
wheel_down() { report 65 "$1" "$2" M; sleep 0.15; }
wheel_up() { report 64 "$1" "$2" M; sleep 0.15; }
# start CMD: runs CMD in a fresh 100x30 pane, then a shell line reporting the exit status.
start() {
	stop_server "$sock"
	starts=$((starts + 1))
	sock="$work/tmux.$starts.sock"
	echo "$sock" >"$work/socket"
	t new-session -d -s main -x 100 -y 30 "stty sane; $*; echo EXIT=\$?; sleep 60"
}
config() { printf '%s\n' "$@" >"$XDG_CONFIG_HOME/zeader/config"; }

echo "== click, double click, title bar (TERM=xterm-256color: curses reads a report's start as KEY_MOUSE)"
config ""
start "TERM=xterm-256color $zeader --demo"
expect_line 1 "Feeds (9 unread)"
expect_modes 11
click 20 3 # Swift on Linux: selected
expect_line 1 "Feeds (9 unread)"
click 20 3 # the selected row: opened
expect_line 1 "Swift on Linux (3 items)"
double_click 30 3 # the second item, not selected: the first press selects, the second opens
expect "Title: A Core Data-style stack without Apple platforms"
click 10 1 # the title bar: back to the list, on the item opened
expect_line 1 "Swift on Linux (3 items)"
double_click 30 2 # the first item: the first press opens, the second is swallowed
expect "Title: Strict concurrency in a terminal app"
click 10 1
expect_line 1 "Swift on Linux (3 items)"
click 10 1
expect_line 1 "Feeds ("
click 10 1 # on the feed list the title bar does nothing (never quits)
sleep 0.3
expect_line 1 "Feeds ("
refute "not bound"
refute "0;"

echo "== a link number in the article opens the link"
keys k Enter Enter
expect "Links:"
row=$(screen | grep -nF '[1]' | head -1 | cut -d: -f1)
column=$(screen | sed -n "${row}p" | awk '{ print index($0, "[1]") }')
click $((column + 1)) "$row"
expect "Opened https://zeader.example/manual"
checks=$((checks + 1))
grep -qxF "[https://zeader.example/manual] modes=00" "$work/browser.log" ||
	fail "the browser ran with: $(cat "$work/browser.log")"
expect_modes 11 # given back after the browser
keys q q

echo "== the wheel scrolls lists and articles; keys still work"
t resize-window -t main -x 100 -y 4 # two rows of the four feeds
expect_line 2 "Zeader News"
wheel_down 20 3
expect_line 2 "World Scripts"
wheel_up 20 3
expect_line 2 "Zeader News"
t resize-window -t main -x 100 -y 8 # the article is longer than the screen
keys Enter Enter # the cursor kept in the window by the wheel: Swift on Linux
expect_line 2 "Feed: Swift on Linux"
wheel_down 20 5
checks=$((checks + 1))
sleep 0.3
if screen | sed -n 2p | grep -qF "Feed: Swift on Linux"; then fail "the wheel did not scroll the article"; fi
wheel_up 20 5
expect_line 2 "Feed: Swift on Linux"
keys q Down
expect_line 1 "Swift on Linux (3 items)"
refute "not bound"

echo "== :set mouse"
keys : s e t Space m o u s e Space n o Enter
expect "mouse=no"
expect_modes 00
keys : s e t Space m o u s e '!' Enter
expect "mouse=yes"
expect_modes 11

echo "== q and SIGTERM leave the terminal without mouse reports"
keys q q q
expect "EXIT=0"
expect_modes 00
start "TERM=xterm-256color $zeader --demo"
expect_modes 11
kill -TERM "$(pgrep -P "$(t display -p -t main '#{pane_pid}')")"
expect "EXIT="
expect_modes 00

echo "== TERM=tmux-256color: the report comes byte by byte"
start "TERM=tmux-256color $zeader --demo"
expect_line 1 "Feeds (9 unread)"
expect_modes 11
click 20 3
click 20 3
expect_line 1 "Swift on Linux (3 items)"
refute "not bound"

echo "== mouse no: no reports asked, none acted on"
config "mouse no"
start "TERM=xterm-256color $zeader --demo"
expect_line 1 "Feeds (9 unread)"
expect_modes 00
click 20 3
click 20 3
sleep 0.3
expect_line 1 "Feeds (9 unread)"
refute "not bound"
keys j Enter
expect_line 1 "Swift on Linux (3 items)"

echo "== a terminal whose terminfo has no mouse: off unless the config says yes"
config ""
start "TERM=vt100 $zeader --demo"
expect "Zeader News"
expect_modes 00
config "mouse yes"
start "TERM=vt100 $zeader --demo"
expect "Zeader News"
expect_modes 11

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
