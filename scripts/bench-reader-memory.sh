#!/usr/bin/env bash
# bench-reader-memory.sh - the interactive reader's memory at rest beside newsboat's and
# newsraft's, on the same stored items.
# Per size: feedgen.py writes SIZE items (ITEMS per feed), serve.py serves it on 127.0.0.1;
# each reader stores it once (zeader refresh, newsboat -x reload, newsraft -e reload-all),
# then opens in a private tmux server (120 x 40), shows its feed list, and after SETTLE
# seconds with no key pressed its resident memory is read from /proc (VmRSS, and its parts:
# anonymous memory, and mapped files: the binary and its libraries). RUNS openings, max.
#   usage: scripts/bench-reader-memory.sh    env: SIZES="10000 100000" ITEMS=200 RUNS=3 SETTLE=3
#          ZEADER=.build/release/zeader  BASE=other/zeader (a second build, measured alike)
#          NEWSRAFT=path/to/newsraft (skipped with a line when unset)  BENCH=/work/shared/bench  KEEP=1
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-/work/shared/bench}
. "$bench/lib.sh"
zeader=$(realpath "${ZEADER:-$root/.build/release/zeader}")
[ -x "$zeader" ] || die "no zeader binary at $zeader (swift build -c release --static-swift-stdlib --product zeader)"
command -v tmux >/dev/null || die "tmux is not installed"
sizes=${SIZES:-10000 100000} items=${ITEMS:-200} runs=${RUNS:-3} settle=${SETTLE:-3}
builds=("zeader=$zeader")
[ -n "${BASE:-}" ] && builds=("base=$(realpath "$BASE")" "${builds[@]}")
work=$(mktemp -d -t zreadermem.XXXXXX)
sock="$work/tmux.sock" sess="readermem-$$" # a private tmux server: never the user's
cleanup() {
	tmux -S "$sock" kill-server 2>/dev/null || true
	stop_server
	if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir -p "$work/home/.config" "$work/home/.local/share"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share"
echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $items items per feed, $runs opening(s)"
[ -n "${NEWSRAFT:-}" ] || echo "== newsraft skipped: set NEWSRAFT to a newsraft binary (see $bench/newsraft_reload.sh)"

# at_rest NAME WAIT_FOR CMD... : opens CMD in the tmux server until WAIT_FOR shows on its
# screen, waits SETTLE s, and prints "NAME VmRSS RssAnon RssFile" (MB) of the reader itself.
at_rest() {
	local name=$1 wait_for=$2 cmd pid t0 status
	shift 2
	cmd=$(printf '%q ' exec env LC_ALL=C.UTF-8 TERM=screen-256color "$@")
	tmux -S "$sock" new-session -d -s "$sess" -x 120 -y 40 "$cmd"
	pid=$(tmux -S "$sock" display-message -p -t "$sess" '#{pane_pid}')
	t0=$(date +%s)
	until tmux -S "$sock" capture-pane -p -t "$sess" | grep -qF -- "$wait_for"; do
		[ $(($(date +%s) - t0)) -lt 300 ] || die "$name showed no \"$wait_for\" after 300 s"
		sleep 0.1
	done
	sleep "$settle"
	status=$(cat "/proc/$pid/status")
	tmux -S "$sock" kill-session -t "$sess"
	sleep 0.5 # let the reader exit and release its store
	awk -v n="$name" '/^VmRSS:/ { v = $2 } /^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 }
		END { printf "%s %.1f %.1f %.1f\n", n, v / 1024, a / 1024, f / 1024 }' <<<"$status"
}

results=()
for size in $sizes; do
	feeds=$(((size + items - 1) / items))
	corpus="$work/corpus-$size"
	python3 "$bench/feedgen.py" --feeds "$feeds" --items "$items" --out "$corpus" >/dev/null
	start_server "$corpus" "$work" $((600 + size / 100))
	with_port "$corpus/feeds.opml" "$PORT" >"$work/feeds.opml"
	with_port "$corpus/urls.txt" "$PORT" | awk '{ print $1 }' >"$work/urls"
	# The first feed's title: on every reader's first screen.
	title=$(python3 -c 'import json, sys
print(next(f["title"] for f in json.load(open(sys.argv[1]))["list"] if f["title"].isascii()))' "$corpus/corpus.json")
	for build in "${builds[@]}"; do
		name=${build%%=*} bin=${build#*=} db="$work/z-$size.sqlite"
		rm -f "$db" "$db-wal" "$db-shm"
		"$bin" --db "$db" import "$work/feeds.opml" >/dev/null
		"$bin" --db "$db" refresh --jobs 8 >/dev/null
		for _ in $(seq "$runs"); do results+=("$size $(at_rest "$name" "$title" "$bin" --db "$db")"); done
	done
	printf 'reload-threads 8\nmax-items 0\ndownload-timeout 120\n' >"$work/newsboat.conf"
	newsboat=(newsboat -u "$work/urls" -c "$work/cache-$size.db" -C "$work/newsboat.conf")
	"${newsboat[@]}" -x reload >/dev/null 2>&1
	for _ in $(seq "$runs"); do results+=("$size $(at_rest newsboat "$title" "${newsboat[@]}")"); done
	if [ -n "${NEWSRAFT:-}" ]; then
		printf 'download-max-connections 8\n' >"$work/newsraft.conf"
		newsraft=("$NEWSRAFT" -f "$work/urls" -c "$work/newsraft.conf" -d "$work/newsraft-$size.sqlite3")
		"${newsraft[@]}" -e reload-all >/dev/null 2>&1
		for _ in $(seq "$runs"); do results+=("$size $(at_rest newsraft "$title" "${newsraft[@]}")"); done
	fi
	stop_server
done

echo
echo "the reader at rest on its feed list, MB (max of $runs openings): VmRSS = anonymous + mapped files"
printf '%s\n' "${results[@]}" | awk '
	{ k = $2 "|" $1; if (!(k in v) || $3 > v[k]) { v[k] = $3; a[k] = $4; f[k] = $5 }
	  if (!($2 in seen)) { seen[$2] = 1; names[++n] = $2 } if (!($1 in sz)) { sz[$1] = 1; sizes[++m] = $1 } }
	END { printf "%-10s", "reader"; for (j = 1; j <= m; j++) printf "  %-26s", sizes[j] " items"; print ""
	      for (i = 1; i <= n; i++) { printf "%-10s", names[i]
	        for (j = 1; j <= m; j++) { k = names[i] "|" sizes[j]
	          printf "  %-26s", (k in v) ? sprintf("%5.1f (anon %.1f, files %.1f)", v[k], a[k], f[k]) : "-" }
	        print "" } }'
