#!/usr/bin/env bash
# bench-network.sh - the fetcher over loopback, beside newsboat (and curl):
#   slow     SLOW_FEEDS feeds that each answer after DELAY s: wall, CPU (user+sys), peak RSS
#   big      one ~15 MB feed (feedgen.py --big): cold refresh of zeader vs newsboat vs curl
#   hostile  an endless body and a gzip bomb (1 GiB of zeros): peak RSS, time, lastError
#   startup  `zeader --version`: time (hyperfine) and peak RSS
#   usage:   scripts/bench-network.sh [slow|big|hostile|startup|all]   (default all)
#   env:     ZEADER=.build/release/zeader  BASE=path (a second zeader to compare, optional)
#            SLOW_FEEDS=48 DELAY=2 JOBS=8 HOSTS=1 BIG_ITEMS=5000 RUNS=3 KEEP=1
# The slow feeds are all on one host by default (people follow dozens of channels or
# projects on one site), where zeader's per-host share has to grow past its starting 4;
# HOSTS=N spreads them over the loopback addresses 127.0.0.1 … 127.0.0.N.
# Every server is on 127.0.0.1; all state lives in a mktemp dir.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-/work/shared/bench}
. "$bench/lib.sh"
ZEADER=${ZEADER:-$here/.build/release/zeader}
[ -x "$ZEADER" ] || die "no zeader binary at $ZEADER (swift build -c release --static-swift-stdlib --product zeader)"
what=${1:-all} runs=${RUNS:-3} jobs=${JOBS:-8}
slow_feeds=${SLOW_FEEDS:-48} delay=${DELAY:-2} big_items=${BIG_ITEMS:-5000} hosts=${HOSTS:-1}
work=$(mktemp -d -t zeader-net.XXXXXX)
server_pid=
cleanup() {
	if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill "$server_pid"; fi
	[ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/home"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share"

zeaders=("after=$ZEADER")
[ -n "${BASE:-}" ] && zeaders=("before=$BASE" "${zeaders[@]}")

python3 "$bench/feedgen.py" --out "$work/big" --big --items "$big_items" >/dev/null
python3 "$here/scripts/bench-network-server.py" --port-file "$work/port" --delay "$delay" \
	--big "$work/big/big.xml" --hosts "$hosts" --max-seconds 1800 2>"$work/server.err" &
server_pid=$!
# Making the gzip bomb (1 GiB compressed) takes over 30 s on a loaded machine.
for _ in $(seq 1800); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || die "server did not start: $(cat "$work/server.err")"
port=$(cat "$work/port")
base="http://127.0.0.1:$port"
echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); server $base; $runs run(s) per row"

# row NAME : prints the medians of the WALLS, CPUS and max of RSSS arrays filled by the caller.
row() {
	printf '%-22s wall %6s s   cpu %6s s   user %6s s   sys %6s s   peak RSS %6s MB\n' "$1" \
		"$(median "${WALLS[@]}")" "$(median "${CPUS[@]}")" "$(median "${USERS[@]}")" \
		"$(median "${SYSS[@]}")" "$(maxof "${RSSS[@]}")"
}

# timed CMD... : one run under GNU time; appends to WALLS CPUS USERS SYSS RSSS.
timed() {
	local tf rc=0
	tf=$(mktemp)
	/usr/bin/time -f '%e %U %S %M' -o "$tf" "$@" >>"$work/out.log" 2>&1 || rc=$?
	read -r w u s m < <(tail -n 1 "$tf")  # GNU time puts "Command exited …" first
	rm -f "$tf"
	WALLS+=("$w") USERS+=("$u") SYSS+=("$s") RSSS+=("$(awk -v k="$m" 'BEGIN { printf "%.1f", k / 1024 }')")
	CPUS+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
	[ "$rc" = 0 ] || echo "  ($* exited $rc)" >>"$work/out.log"
}

reset_rows() { WALLS=() CPUS=() USERS=() SYSS=() RSSS=(); }

# zeader_refresh BINARY URL... : fresh store with these feeds, then one timed refresh.
zeader_refresh() {
	local bin=$1 db="$work/z.sqlite"; shift
	rm -f "$db" "$db-wal" "$db-shm"
	for url in "$@"; do "$bin" --db "$db" add --no-fetch "$url" >/dev/null 2>&1 || true; done
	timed "$bin" --db "$db" refresh --jobs "$jobs"
}

# The refresh after a first one on the same store: what a reader refreshing every day meets.
zeader_refresh_again() {
	local bin=$1 db="$work/z.sqlite"; shift
	rm -f "$db" "$db-wal" "$db-shm"
	for url in "$@"; do "$bin" --db "$db" add --no-fetch "$url" >/dev/null 2>&1 || true; done
	"$bin" --db "$db" refresh --jobs "$jobs" >>"$work/out.log" 2>&1 || true
	timed "$bin" --db "$db" refresh --jobs "$jobs"
}

# newsboat_reload URL... : fresh cache with these feeds, then one timed reload.
newsboat_reload() {
	printf '%s\n' "$@" >"$work/urls"
	printf 'reload-threads %s\nmax-items 0\ndownload-timeout 60\ndownload-retries 1\n' "$jobs" >"$work/nb.conf"
	rm -f "$work/cache.db" "$work/cache.db.lock"
	timed newsboat -u "$work/urls" -c "$work/cache.db" -C "$work/nb.conf" -x reload
}

if [ "$what" = slow ] || [ "$what" = all ]; then
	mapfile -t urls < <(for i in $(seq "$slow_feeds"); do
		echo "http://127.0.0.$((i % hosts + 1)):$port/slow/$i.xml"
	done)
	echo "-- slow: $slow_feeds feeds on $hosts hosts, each answering after $delay s, $jobs at a time"
	for z in "${zeaders[@]}"; do
		reset_rows
		for _ in $(seq "$runs"); do zeader_refresh "${z#*=}" "${urls[@]}"; done
		row "zeader ${z%%=*}"
		reset_rows
		for _ in $(seq "$runs"); do zeader_refresh_again "${z#*=}" "${urls[@]}"; done
		row "zeader ${z%%=*}, again"
	done
	reset_rows
	for _ in $(seq "$runs"); do newsboat_reload "${urls[@]}"; done
	row "newsboat"
fi

if [ "$what" = big ] || [ "$what" = all ]; then
	size=$(stat -c %s "$work/big/big.xml")
	echo "-- big: one feed of $((size / 1000000)) MB ($big_items items), cold"
	for z in "${zeaders[@]}"; do
		reset_rows
		for _ in $(seq "$runs"); do zeader_refresh "${z#*=}" "$base/big.xml"; done
		row "zeader ${z%%=*}"
	done
	reset_rows
	for _ in $(seq "$runs"); do newsboat_reload "$base/big.xml"; done
	row "newsboat"
	reset_rows
	for _ in $(seq "$runs"); do timed curl -s -o /dev/null "$base/big.xml"; done
	row "curl (download only)"
fi

if [ "$what" = hostile ] || [ "$what" = all ]; then
	echo "-- hostile: one feed each, the default 16 MiB cap"
	for target in endless gzip-bomb; do
		for z in "${zeaders[@]}"; do
			reset_rows
			for _ in $(seq "$runs"); do zeader_refresh "${z#*=}" "$base/$target"; done
			row "zeader ${z%%=*} $target"
			echo "    lastError: $("${z#*=}" --db "$work/z.sqlite" list --json |
				python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["lastError"])')"
		done
	done
fi

if [ "$what" = startup ] || [ "$what" = all ]; then
	echo "-- startup: zeader --version"
	for z in "${zeaders[@]}"; do
		reset_rows
		for _ in $(seq 10); do timed "${z#*=}" --version; done
		row "zeader ${z%%=*}"
		if command -v hyperfine >/dev/null; then
			hyperfine -N --warmup 3 --runs 50 --export-json "$work/hf.json" "${z#*=} --version" >/dev/null 2>&1
			python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]
print("    hyperfine: mean %.1f ms ± %.1f ms, median %.1f ms" % (r["mean"]*1e3, r["stddev"]*1e3, r["median"]*1e3))' "$work/hf.json"
		fi
	done
fi
