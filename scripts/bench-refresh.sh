#!/usr/bin/env bash
# bench-refresh.sh - refresh cost against feed count (issue 18): zeader's cold and warm refresh
# beside sfeed's cold run, at several feed counts, on one loopback corpus per size.
# Per size: feedgen.py writes FEEDS x ITEMS (the bench harness's generator), serve.py serves
# it on 127.0.0.1; then RUNS times, alternating so that load hits both alike:
#   sfeed cold   `sfeed_update` into an empty dir (stock sfeed: plain curl, no validators)
#   zeader cold  `zeader import feeds.opml` (untimed), then `zeader refresh --jobs JOBS`
#   zeader warm  the same refresh again: every feed answers 304
# Prints the medians (wall s, CPU s = user+sys, peak RSS MiB), zeader cold / sfeed cold, the
# per-feed cost, and the growth from the first size to the last beside the growth in feeds.
#   usage: scripts/bench-refresh.sh       env: SIZES="100 400 1600" ITEMS=200 RUNS=3 JOBS=8
#          ZEADER=.build/release/zeader  BASE=other/zeader (a second build, timed alike)
#          NEWSRAFT=path/to/newsraft (its cold `-e reload-all`, alternated alike; skipped when unset)
#          BENCH=/work/shared/bench  NO_SFEED=1  KEEP=1
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-/work/shared/bench}
. "$bench/lib.sh"
zeader=$(realpath "${ZEADER:-$root/.build/release/zeader}")
[ -x "$zeader" ] || die "no zeader binary at $zeader (swift build -c release --static-swift-stdlib --product zeader)"
sizes=${SIZES:-100 400 1600} items=${ITEMS:-200} runs=${RUNS:-3} jobs=${JOBS:-8}
[ -n "${NO_SFEED:-}" ] || command -v sfeed_update >/dev/null || die "sfeed is not installed (or NO_SFEED=1)"
builds=("zeader=$zeader")
[ -n "${BASE:-}" ] && builds=("base=$(realpath "$BASE")" "${builds[@]}")
work=$(mktemp -d -t zrefresh.XXXXXX)
cleanup() {
	stop_server
	if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir -p "$work/home"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share"
echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $items items per feed, $runs run(s), jobs $jobs"

declare -A result
labels=()
put() { # put LABEL SIZE VALUE
	[[ " ${labels[*]} " == *" $1 "* ]] || labels+=("$1")
	result["$1|$2"]=$3
}
# row LABEL SIZE: medians of W C and max of R (filled by timed) under LABEL.
declare -A W C R
timed() { # timed KEY CMD...: one run; appends to W[KEY] C[KEY] R[KEY]
	local key=$1
	shift
	measure "$key" "$@"
	W[$key]="${W[$key]:-} $WALL" C[$key]="${C[$key]:-} $CPU_S" R[$key]="${R[$key]:-} $RSS_MB"
}

for feeds in $sizes; do
	corpus="$work/corpus-$feeds"
	python3 "$bench/feedgen.py" --feeds "$feeds" --items "$items" --out "$corpus" >/dev/null
	# The harness's start_server, waiting longer: preloading 80,000 items on a loaded machine takes over a minute.
	rm -f "$work/port"
	python3 "$bench/serve.py" --dir "$corpus" --port 0 --port-file "$work/port" --preload --log /dev/null \
		--stats /dev/null --max-seconds $((600 + feeds * items / 100)) >/dev/null 2>"$work/server.err" &
	SERVER_PID=$!
	for _ in $(seq 3000); do [ -s "$work/port" ] && break; sleep 0.1; done
	[ -s "$work/port" ] || die "serve.py did not start: $(cat "$work/server.err")"
	PORT=$(cat "$work/port")
	with_port "$corpus/feeds.opml" "$PORT" >"$work/feeds.opml"
	{
		echo "sfeedpath=\"$work/sfeed\""
		echo "maxjobs=$jobs"
		echo "feeds() {"
		with_port "$corpus/urls.txt" "$PORT" | while read -r url; do
			name=${url##*/}
			printf '\tfeed "%s" "%s"\n' "${name%.xml}" "$url"
		done
		echo "}"
	} >"$work/sfeedrc"
	W=() C=() R=()
	for r in $(seq "$runs"); do
		if [ -z "${NO_SFEED:-}" ]; then
			rm -rf "$work/sfeed"
			timed sfeed sfeed_update "$work/sfeedrc"
			n=$(cat "$work/sfeed"/* | wc -l)
			[ "$n" = $((feeds * items)) ] || echo "  sfeed stored $n items, expected $((feeds * items))" >&2
		fi
		if [ -n "${NEWSRAFT:-}" ]; then
			nr="$work/newsraft.sqlite3"
			rm -f "$nr" "$nr-wal" "$nr-shm"
			with_port "$corpus/urls.txt" "$PORT" | awk '{ print $1 }' >"$work/newsraft-feeds"
			printf 'download-max-connections %s\n' "$jobs" >"$work/newsraft-config"
			timed newsraft "$NEWSRAFT" -f "$work/newsraft-feeds" -c "$work/newsraft-config" -d "$nr" -e reload-all
			n=$(sqlite3 "$nr" "SELECT COUNT(*) FROM items")
			[ "$n" = $((feeds * items)) ] || echo "  newsraft stored $n items, expected $((feeds * items))" >&2
		fi
		for build in "${builds[@]}"; do
			name=${build%%=*} bin=${build#*=} db="$work/z.sqlite"
			rm -f "$db" "$db-wal" "$db-shm"
			"$bin" --db "$db" import "$work/feeds.opml" >/dev/null
			timed "$name cold" "$bin" --db "$db" refresh --jobs "$jobs"
			timed "$name warm" "$bin" --db "$db" refresh --jobs "$jobs"
			n=$(sqlite3 "$db" "SELECT COUNT(*) FROM FeedItem")
			[ "$n" = $((feeds * items)) ] || echo "  $name stored $n items, expected $((feeds * items))" >&2
		done
		echo "  $feeds feeds, run $r done (load $(cut -d' ' -f1 /proc/loadavg))"
	done
	stop_server
	for key in "${!W[@]}"; do
		# shellcheck disable=SC2086
		put "$key wall s" "$feeds" "$(median ${W[$key]})"
		# shellcheck disable=SC2086
		put "$key cpu s" "$feeds" "$(median ${C[$key]})"
		# shellcheck disable=SC2086
		put "$key peak MiB" "$feeds" "$(maxof ${R[$key]})"
	done
	for build in "${builds[@]}"; do
		name=${build%%=*}
		cold=${result["$name cold wall s|$feeds"]}
		put "$name cold ms per feed" "$feeds" "$(awk -v c="$cold" -v f="$feeds" 'BEGIN { printf "%.2f", 1000 * c / f }')"
		[ -n "${NO_SFEED:-}" ] || put "$name cold / sfeed cold" "$feeds" \
			"$(awk -v c="$cold" -v s="${result["sfeed wall s|$feeds"]}" 'BEGIN { printf "%.2f", c / s }')"
		[ -z "${NEWSRAFT:-}" ] || put "$name cold / newsraft" "$feeds" \
			"$(awk -v c="$cold" -v s="${result["newsraft wall s|$feeds"]}" 'BEGIN { printf "%.2f", c / s }')"
	done
	rm -rf "$corpus" "$work/sfeed" "$work"/z.sqlite* "$work"/newsraft.sqlite3*
done

set -- $sizes
first=$1
last=${!#}
printf '\n%-30s' "feeds x $items items"
for n in $sizes; do printf '%10s' "$n"; done
printf '%10s\n' "growth"
mapfile -t sorted < <(printf '%s\n' "${labels[@]}" | sort)
for label in "${sorted[@]}"; do
	printf '%-30s' "$label"
	for n in $sizes; do printf '%10s' "${result["$label|$n"]:-}"; done
	awk -v a="${result["$label|$first"]:-0}" -v b="${result["$label|$last"]:-0}" \
		'BEGIN { if (a > 0) printf "%9.2fx\n", b / a; else print "         -" }'
done
echo "(feeds grow $(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.0f", b / a }')x; $(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
