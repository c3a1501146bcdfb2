#!/usr/bin/env bash
# zeader_startup.sh - Zeader's start-up at scale, measured like ../shared/bench/newsboat_startup.sh:
# the same feedgen.py corpus (default 500 feeds x 200 items = 100k items) loaded into a
# store, then the time from launching `zeader --db STORE` in a private tmux server until
# the feed list shows the same title newsboat's script waits for, and the peak RSS
# (GNU time around the reader).
#   usage: Tests/e2e/zeader_startup.sh   env: ZEADER=.build/release/zeader FEEDS=500 ITEMS=200 RUNS=5
#          BENCH=/work/shared/bench KEEP=1
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
zeader=$(realpath "${ZEADER:-$root/.build/release/zeader}")
bench=${BENCH:-$root/../shared/bench}
feeds=${FEEDS:-500} items=${ITEMS:-200} runs=${RUNS:-5}
work=$(mktemp -d -t zstartup.XXXXXX)
sock="$work/tmux.sock" sess="zstartup-$$"
cleanup() {
	tmux -S "$sock" kill-server 2>/dev/null || true
	if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
die() { echo "error: $*" >&2; exit 1; }
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

python3 "$bench/feedgen.py" --feeds "$feeds" --items "$items" --out "$work/corpus" >/dev/null
store="$work/zeader.sqlite"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" LC_ALL=C.UTF-8
mkdir -p "$XDG_CONFIG_HOME"
# Create the empty store (schema and search index) by starting the reader once.
tmux -S "$sock" new-session -d -s "$sess" -x 120 -y 40 "$zeader --db $store"
for _ in $(seq 100); do tmux -S "$sock" capture-pane -p -t "$sess" | grep -q "No feeds yet" && break; sleep 0.1; done
tmux -S "$sock" send-keys -t "$sess" q
sleep 0.5
t0=$(date +%s%N)
python3 "$root/Tests/e2e/fill_store.py" "$zeader" "$work/corpus" "$store"
echo "store filled in $(awk -v d=$(($(date +%s%N) - t0)) 'BEGIN { printf "%.1f", d / 1e9 }') s: $(du -m "$store" | cut -f1) MB"

title=$(python3 -c 'import json, sys
print(next(f["title"] for f in json.load(open(sys.argv[1]))["list"][:30] if f["title"].isascii()))' \
	"$work/corpus/corpus.json")
uis=() rss=()
for r in $(seq "$runs"); do
	tmux -S "$sock" new-session -d -s "$sess" -x 120 -y 40 "sleep 600"
	t0=$(date +%s%N)
	tmux -S "$sock" respawn-pane -k -t "$sess" \
		"TERM=screen-256color /usr/bin/time -v -o $work/time.$r $zeader --db $store"
	while ! tmux -S "$sock" capture-pane -p -t "$sess" | grep -qF "$title"; do
		[ $(($(date +%s%N) - t0)) -lt 60000000000 ] || die "no feed list after 60 s"
		sleep 0.01
	done
	t1=$(date +%s%N)
	tmux -S "$sock" capture-pane -p -t "$sess" >"$work/ui-screen.txt"
	uis+=("$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.3f", d / 1e9 }')")
	tmux -S "$sock" send-keys -t "$sess" q
	for _ in $(seq 100); do [ -s "$work/time.$r" ] && break; sleep 0.05; done
	rss+=("$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/time.$r")")
	tmux -S "$sock" kill-session -t "$sess" 2>/dev/null || true
done
# The same start with 'q' typed in advance: the reader draws its first frame, reads the
# q and exits, so GNU time gives the CPU time of start-up + first frame + quit, which
# unlike wall time does not depend on the other load of the machine.
cpus=() walls=()
for r in $(seq "$runs"); do
	rm -f "$work/quick.$r"
	tmux -S "$sock" new-session -d -s "$sess" -x 120 -y 40 \
		"sleep 0.4; TERM=screen-256color /usr/bin/time -f '%e %U %S' -o $work/quick.$r $zeader --db $store; sleep 30"
	sleep 0.1
	tmux -S "$sock" send-keys -t "$sess" q
	for _ in $(seq 200); do [ -s "$work/quick.$r" ] && break; sleep 0.05; done
	read -r wall user sys <"$work/quick.$r"
	cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')") walls+=("$wall")
	tmux -S "$sock" kill-session -t "$sess" 2>/dev/null || true
done
echo "start, first frame and quit: CPU median $(median "${cpus[@]}") s (runs: ${cpus[*]}), wall median $(median "${walls[@]}") s"
head -3 "$work/ui-screen.txt"
echo "Zeader ($feeds feeds x $items items): feed list shown after median $(median "${uis[@]}") s" \
	"(runs: ${uis[*]}; title \"$title\"), peak RSS $(printf '%s\n' "${rss[@]}" | sort -g | tail -n 1) MB"
