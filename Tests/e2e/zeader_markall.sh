#!/usr/bin/env bash
# zeader_markall.sh - what `C` (mark everything read) and `u` (undo it) cost on a big store:
# the reader runs in a private tmux server on a copy of STORE (e.g. 100,000 unread items made
# by fill_store.py, as zeader_startup.sh does); prints the time from the key to the status
# line's answer and the reader's peak RSS (VmHWM) before and after.
#   usage: Tests/e2e/zeader_markall.sh STORE.sqlite   env: ZEADER=.build/debug/zeader
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
zeader=$(realpath "${ZEADER:-$root/.build/debug/zeader}")
[ -f "${1:-}" ] || { echo "usage: $0 STORE.sqlite" >&2; exit 2; }
work=$(mktemp -d -t zmarkall.XXXXXX)
sock="$work/tmux.sock"
trap 'tmux -S "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" LC_ALL=C.UTF-8
mkdir -p "$XDG_CONFIG_HOME"
sqlite_copy() { python3 -c 'import sqlite3, sys; s = sqlite3.connect(sys.argv[1]); d = sqlite3.connect(sys.argv[2]); s.backup(d)' "$1" "$2"; }
sqlite_copy "$1" "$work/store.sqlite"
now() { date +%s%N; }
wait_for() {  # wait_for TEXT: seconds until the pane shows TEXT (gives up after 600 s)
	local t0=$1 text=$2
	for _ in $(seq 60000); do
		tmux -S "$sock" capture-pane -p -t m | grep -qF -- "$text" && break
		sleep 0.01
	done
	awk -v d=$(($(now) - t0)) 'BEGIN { printf "%.2f", d / 1e9 }'
}
hwm() { awk '/VmHWM/ { printf "%d MB", $2 / 1024 }' "/proc/$(pgrep -P "$(tmux -S "$sock" display -p -t m '#{pane_pid}')")/status"; }
tmux -S "$sock" new-session -d -s m -x 120 -y 40 "$zeader --db $work/store.sqlite; sleep 600"
t0=$(now)
echo "first frame: $(wait_for "$t0" "unread)") s, peak RSS $(hwm)"
t0=$(now)
tmux -S "$sock" send-keys -t m C
echo "C: $(wait_for "$t0" "items read (z to undo)") s, peak RSS $(hwm)"
tmux -S "$sock" capture-pane -p -t m | tail -n 1
t0=$(now)
tmux -S "$sock" send-keys -t m z
echo "z: $(wait_for "$t0" "Undid Mark All Read") s, peak RSS $(hwm)"
tmux -S "$sock" capture-pane -p -t m | head -n 1
