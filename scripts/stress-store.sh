#!/usr/bin/env bash
# stress-store.sh - many processes on one store: each round runs two refreshes of the same
# feeds, a mark-read, a feed listing and an item listing at once, against a loopback corpus.
# Prints every failing command with its stderr and a summary; exit 1 if any command failed
# or the store fails PRAGMA integrity_check.
#   usage: ZEADER=path/to/zeader scripts/stress-store.sh [ROUNDS=20] [FEEDS=60] [ITEMS=50]
# Needs python3 and sqlite3; uses ../shared/bench's feedgen.py and serve.py when present,
# else $BENCH_DIR.
set -uo pipefail
rounds=${1:-20} feeds=${2:-60} items=${3:-50}
: "${ZEADER:?set ZEADER to the zeader binary}"
here=$(cd "$(dirname "$0")" && pwd)
bench=${BENCH_DIR:-$here/../../shared/bench}
[ -f "$bench/feedgen.py" ] || { echo "stress-store: no feedgen.py in $bench (set BENCH_DIR)" >&2; exit 2; }

work=$(mktemp -d -t zeader-stress.XXXXXX)
trap 'kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
python3 "$bench/feedgen.py" --out "$work/corpus" --feeds "$feeds" --items "$items" --seed 7 >/dev/null
python3 "$bench/serve.py" --dir "$work/corpus" --port 0 --port-file "$work/port" \
    --log "$work/server.log" --max-seconds 1800 >/dev/null 2>&1 &
server=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
sed "s/127\.0\.0\.1:[0-9]*/127.0.0.1:$port/g" "$work/corpus/feeds.opml" >"$work/feeds.opml"

db="$work/store.sqlite"
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
"$ZEADER" --db "$db" import "$work/feeds.opml" >/dev/null || { echo "stress-store: import failed" >&2; exit 1; }

failures=0 commands=0
run() { # name, args...
    local name=$1; shift
    "$ZEADER" --db "$db" "$@" >"$work/$name.out" 2>"$work/$name.err"
    local status=$?
    if [ "$status" -ne 0 ]; then
        echo "FAIL $name (exit $status): $(head -c 600 "$work/$name.err")" >"$work/$name.fail"
    fi
}
for round in $(seq "$rounds"); do
    rm -f "$work"/*.fail
    pids=()
    run refresh-a refresh --jobs 8 & pids+=($!)
    run refresh-b refresh --jobs 8 & pids+=($!)
    run mark-read mark-read --all & pids+=($!)
    run list list --json & pids+=($!)
    run items items --unread --limit 50 --json & pids+=($!)
    wait "${pids[@]}"
    commands=$((commands + 5))
    for f in "$work"/*.fail; do
        [ -e "$f" ] || continue
        failures=$((failures + 1))
        echo "round $round: $(cat "$f")"
    done
done
check=$(sqlite3 "$db" 'PRAGMA integrity_check' 2>&1)
total=$("$ZEADER" --db "$db" items --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
echo "stress-store: $rounds rounds, $commands commands, $failures failed; integrity_check: $check; items: $total (expected $((feeds * items)))"
[ "$failures" -eq 0 ] && [ "$check" = ok ] && [ "$total" -eq $((feeds * items)) ]
