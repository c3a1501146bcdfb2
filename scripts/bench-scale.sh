#!/usr/bin/env bash
# bench-scale.sh - what screens, queries and bulk commands cost as the history grows (issue 18).
# For each size it builds a store of that many items over FEEDS feeds, generated directly
# (`zeader-bench scale-build`: titles, summaries, ~2-3 KB of HTML content, 70% read, 2% flagged,
# tags, two smart feeds), then times the command-line listings (median of RUNS wall seconds,
# and the peak RSS, max over runs, from GNU time), the reader's first screen
# (`zeader-bench first-screen`: open, feed list with counts, first frame), whole-result
# commands (`items --json`, `export --json`), `mark-read --all` (its bytes written), and the
# store's bytes per item (and the full-text index's share, from dbstat). Prints one table
# with the growth from the first size to the last.
# Then it refreshes every feed of the store against the bench harness's server (serve.py on
# 127.0.0.1, serving feedgen.py's FEEDS x REFRESH_ITEMS corpus, which the store's feeds point at):
# once cold (every feed downloaded, its items stored into the big store), then warm (every
# feed answers 304; median of RUNS).
# With MIGRATE=1 it also builds a model version 3 store of each size and times its migration.
#   usage: scripts/bench-scale.sh            env: SIZES="10000 100000 1000000" FEEDS=2000 RUNS=3 MIGRATE=
#          ZEADER=.build/release/zeader BENCH=.build/release/zeader-bench WORK=dir KEEP=1
#          HARNESS=/work/shared/bench REFRESH_ITEMS=10 JOBS=8
# KEEP=1 keeps WORK and each size's store, after its refreshes, as WORK/kept-SIZE.sqlite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
zeader=$(realpath "${ZEADER:-$root/.build/release/zeader}")
bench=$(realpath "${BENCH:-$root/.build/release/zeader-bench}")
sizes=${SIZES:-10000 100000 1000000} feeds=${FEEDS:-2000} runs=${RUNS:-3}
[ -x "$zeader" ] && [ -x "$bench" ] || { echo "build first: swift build -c release" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "needs sqlite3" >&2; exit 1; }
harness=${HARNESS:-/work/shared/bench} refresh_items=${REFRESH_ITEMS:-10} jobs=${JOBS:-8}
[ -f "$harness/serve.py" ] && [ -f "$harness/feedgen.py" ] || { echo "needs the bench harness (HARNESS=dir)" >&2; exit 1; }
work=${WORK:-$(mktemp -d -t zscale.XXXXXX)}
mkdir -p "$work"
server=
cleanup() {
	if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then kill "$server"; fi
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" LC_ALL=C.UTF-8
mkdir -p "$XDG_CONFIG_HOME"

median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
declare -A result
labels=()
put() { # put LABEL SIZE VALUE
	[[ " ${labels[*]} " == *" $1 "* ]] || labels+=("$1")
	result["$1|$2"]=$3
}
# timed LABEL SIZE RUNS CMD...: median wall seconds and max peak RSS (MiB) of CMD, stdout dropped.
timed() {
	local label=$1 size=$2 n=$3
	shift 3
	local walls=() rss=0 r
	for r in $(seq "$n"); do
		/usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
			echo "failed: $* ($(head -c 300 "$work/err"))" >&2
			exit 1
		}
		read -r w m <"$work/time"
		walls+=("$w")
		[ "$m" -gt "$rss" ] && rss=$m
	done
	put "$label s" "$size" "$(median "${walls[@]}")"
	put "$label MiB" "$size" "$(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }')"
}

# The feeds the stores point at, served on loopback (ETag and Last-Modified, so a second fetch is a 304).
python3 "$harness/feedgen.py" --feeds "$feeds" --items "$refresh_items" --out "$work/corpus" >/dev/null
rm -f "$work/port"
python3 "$harness/serve.py" --dir "$work/corpus" --port 0 --port-file "$work/port" --preload \
	--log /dev/null --stats /dev/null --max-seconds 86400 >/dev/null 2>"$work/server.err" &
server=$!
for _ in $(seq 3000); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "serve.py did not start: $(cat "$work/server.err")" >&2; exit 1; }
feed_base="http://127.0.0.1:$(cat "$work/port")/feeds/"
feed7="${feed_base}feed-0008.xml" # the store's eighth feed (zeader-bench scaleFeedURL)

for n in $sizes; do
	store="$work/store-$n.sqlite"
	t0=$(date +%s%N)
	"$bench" scale-build "$store" "$n" "$feeds" --feed-url "$feed_base"
	# Written back before the timings: every command's open writes (GRDB recreates the -wal)
	# and syncs, which would make the first listing pay for the build's dirty pages.
	sync "$store"
	put "build s" "$n" "$(awk -v d=$(($(date +%s%N) - t0)) 'BEGIN { printf "%.1f", d / 1e9 }')"
	bytes=$(stat -c %s "$store")
	put "store B/item" "$n" $((bytes / n))
	fts=$(sqlite3 "$store" "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name LIKE 'ZSEARCH%'")
	put "  of which FTS B/item" "$n" $((fts / n))
	idx=$(sqlite3 "$store" "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name LIKE 'Z_FeedItem_%' OR name LIKE 'sqlite_autoindex_FeedItem%'")
	put "  of which indexes B/item" "$n" $((idx / n))
	rows=$(sqlite3 "$store" "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name = 'FeedItem'")
	put "  of which item rows B/item" "$n" $((rows / n))
	bodies=$(sqlite3 "$store" "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name = 'FeedItemBody'")
	put "  of which contents B/item" "$n" $((bodies / n))
	z=("$zeader" --db "$store")
	# One untimed command first: right after a large build the first open is slower than
	# the later ones (a copy of the store is not), and a reader's store is not built and
	# listed in the same second.
	"${z[@]}" items --limit 1 >/dev/null
	timed "items --unread --limit 50" "$n" "$runs" "${z[@]}" items --unread --limit 50
	timed "items --flagged --limit 50" "$n" "$runs" "${z[@]}" items --flagged --limit 50
	timed "items --tag linux --limit 50" "$n" "$runs" "${z[@]}" items --tag linux --limit 50
	timed "items --feed F --limit 50" "$n" "$runs" "${z[@]}" items --feed "$feed7" --limit 50
	timed "items --search kernel --limit 50" "$n" "$runs" "${z[@]}" items --search kernel --limit 50
	timed "items --search 2 words --limit 50" "$n" "$runs" "${z[@]}" items --search "linux release" --limit 50
	timed "items --search rare --limit 50" "$n" "$runs" "${z[@]}" items --search dexdexpar --limit 50
	timed "items --search none --limit 50" "$n" "$runs" "${z[@]}" items --search nowhereword --limit 50
	timed "list (feeds)" "$n" "$runs" "${z[@]}" list
	out=$("$bench" first-screen "$store" 5)
	put "first screen s" "$n" "$(echo "$out" | awk '{ print $2 }')"
	/usr/bin/time -f "%M" -o "$work/time" "$bench" first-screen "$store" 1 >/dev/null
	put "first screen MiB" "$n" "$(awk '{ printf "%.0f", $1 / 1024 }' "$work/time")"
	timed "items --search kernel (all)" "$n" 1 "${z[@]}" items --search kernel --json
	timed "items --json (all)" "$n" 1 "${z[@]}" items --json
	timed "export --json" "$n" 1 "${z[@]}" export --json
	/usr/bin/time -f "%e %M %O" -o "$work/time" "${z[@]}" mark-read --all >/dev/null
	read -r w m o <"$work/time"
	put "mark-read --all s" "$n" "$w"
	put "mark-read --all MiB" "$n" "$(awk -v k="$m" 'BEGIN { printf "%.0f", k / 1024 }')"
	put "mark-read --all written B/item" "$n" "$(awk -v o="$o" -v n="$n" 'BEGIN { printf "%.0f", o * 512 / n }')"
	put "  -wal after, MiB" "$n" "$(awk -v b="$(stat -c %s "$store-wal" 2>/dev/null || echo 0)" 'BEGIN { printf "%.1f", b / 1048576 }')"
	# Every feed against the server: cold (all downloaded and stored), then warm (all 304).
	timed "refresh all cold (+$refresh_items/feed)" "$n" 1 "${z[@]}" refresh --jobs "$jobs"
	timed "refresh all warm (304)" "$n" "$runs" "${z[@]}" refresh --jobs "$jobs"
	"${z[@]}" refresh --jobs "$jobs" | grep -q " $feeds unchanged" || {
		echo "the warm refresh did not find every feed unchanged: $("${z[@]}" refresh --jobs "$jobs")" >&2
		exit 1
	}
	if [ -n "${KEEP:-}" ]; then # kept (after its refreshes) for timing more commands by hand
		mv "$store" "$work/kept-$n.sqlite"
		rm -f "$store-wal" "$store-shm"
	fi
	rm -f "$store" "$store-wal" "$store-shm" "$store".v*.bak
	if [ -n "${MIGRATE:-}" ]; then # a model version 3 store of the same size, opened (migrated) by this build
		"$bench" scale-build "$store" "$n" "$feeds" v3
		put "v3 store B/item" "$n" $(($(stat -c %s "$store") / n))
		timed "migrate v3 -> v4 (first open)" "$n" 1 "${z[@]}" list
		put "migrated store B/item" "$n" $(($(stat -c %s "$store") / n))
		rm -f "$store" "$store-wal" "$store-shm" "$store".v*.bak
	fi
done

set -- $sizes
first=$1
last=${!#}
printf '%-36s' "items ($feeds feeds)"
for n in $sizes; do printf '%12s' "$n"; done
printf '%10s\n' "growth"
for label in "${labels[@]}"; do
	printf '%-36s' "$label"
	for n in $sizes; do printf '%12s' "${result["$label|$n"]:-}"; done
	awk -v a="${result["$label|$first"]:-0}" -v b="${result["$label|$last"]:-0}" \
		'BEGIN { if (a > 0) printf "%9.2fx\n", b / a; else print "         -" }'
done
echo "($(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $zeader)"
