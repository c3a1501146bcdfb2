#!/usr/bin/env bash
# crash-refresh.sh - kill `zeader refresh` with SIGKILL at random moments and check the store.
#   usage: scripts/crash-refresh.sh        env: ZEADER=.build/release/zeader KILLS=50 FEEDS=100 ITEMS=50
# Serves a loopback corpus (../shared/bench), imports it, then KILLS times: marks a random feed
# read, clears the validators (so every feed is downloaded and upserted again), starts a refresh
# and kills it after a random delay. After each kill: PRAGMA integrity_check is ok, no
# (server, guid) is stored twice, every read flag set before is still set, and each feed's
# stored unreadCount equals its unread items. At the end one refresh must finish with status 0
# and every item of the corpus stored exactly once.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-/work/shared/bench}
. "$bench/lib.sh"
ZEADER=${ZEADER:-$here/.build/release/zeader}
kills=${KILLS:-50} feeds=${FEEDS:-100} items=${ITEMS:-50}
[ -x "$ZEADER" ] || die "no zeader binary at $ZEADER (swift build -c release --product zeader)"
command -v sqlite3 >/dev/null || die "sqlite3 missing"
work=$(mktemp -d -t zeader-crash.XXXXXX)
cleanup() { stop_server; [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"; }
trap cleanup EXIT

python3 "$bench/feedgen.py" --feeds "$feeds" --items "$items" --out "$work/corpus" >/dev/null
start_server "$work/corpus" "$work" 3600
with_port "$work/corpus/feeds.opml" "$PORT" >"$work/feeds.opml"
db="$work/z.sqlite"
export ZEADER_DB=$db HOME=$work XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config
"$ZEADER" import "$work/feeds.opml" >/dev/null

read_flags() { "$ZEADER" items --json | python3 -c '
import json, sys
for i in json.load(sys.stdin):
    if i["read"]: print(i["feed"] + " " + i["id"])' | sort; }

check() {
	local ic dups counts missing
	ic=$(sqlite3 "$db" "PRAGMA integrity_check")
	[ "$ic" = ok ] || die "kill $1: integrity_check: $ic"
	dups=$(sqlite3 "$db" "SELECT count(*) FROM (SELECT server, guid FROM FeedItem GROUP BY server, guid HAVING count(*) > 1)")
	[ "$dups" = 0 ] || die "kill $1: $dups duplicated items"
	counts=$(sqlite3 "$db" "SELECT count(*) FROM Server s WHERE s.unreadCount != (SELECT count(*) FROM FeedItem i WHERE i.server = s.Z_PK AND i.read = 0) OR s.totalCount != (SELECT count(*) FROM FeedItem i WHERE i.server = s.Z_PK)")
	[ "$counts" = 0 ] || die "kill $1: $counts feeds with wrong stored counts"
	missing=$(comm -23 "$work/read-before" <(read_flags) | wc -l)
	[ "$missing" = 0 ] || die "kill $1: $missing read flags lost"
}

# One full refresh first; then time a refresh that downloads everything again, so the kills
# land anywhere inside one.
"$ZEADER" refresh --jobs 8 >/dev/null || true
sqlite3 "$db" "UPDATE Server SET etag = NULL, lastModified = NULL"
start=$(date +%s.%N)
"$ZEADER" refresh --jobs 8 >/dev/null || true
full=$(echo "$(date +%s.%N) - $start" | bc)
echo "corpus: $feeds feeds x $items items on 127.0.0.1:$PORT; a full re-download takes ${full}s; $kills kills wanted"
urls=($(sqlite3 "$db" "SELECT url FROM Server"))
killed_mid=0 rounds=0
while ((killed_mid < kills && rounds < 4 * kills)); do
	rounds=$((rounds + 1))
	"$ZEADER" mark-read --feed "${urls[RANDOM % ${#urls[@]}]}" >/dev/null
	# One feed removed and subscribed again (so the refresh inserts as well as updates), and
	# validators cleared (so every feed is downloaded and upserted again).
	"$ZEADER" remove "${urls[RANDOM % ${#urls[@]}]}" >/dev/null
	"$ZEADER" import "$work/feeds.opml" >/dev/null
	sqlite3 "$db" "UPDATE Server SET etag = NULL, lastModified = NULL"
	read_flags >"$work/read-before"
	"$ZEADER" refresh --jobs 8 >/dev/null 2>&1 &
	pid=$!
	sleep "$(python3 -c "import random; print(round(random.uniform(0.02, $full), 3))")"
	if kill -9 "$pid" 2>/dev/null; then killed_mid=$((killed_mid + 1)); fi
	wait "$pid" 2>/dev/null || true
	check "$rounds"
done
((killed_mid >= kills)) || die "only $killed_mid of $rounds refreshes were still running when killed"
"$ZEADER" refresh --jobs 8 >"$work/final.out" || die "final refresh failed: $(cat "$work/final.out")"
stored=$("$ZEADER" items --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
expected=$((feeds * items))
[ "$stored" = "$expected" ] || die "final: $stored items stored, $expected expected"
check final
echo "ok: $killed_mid refreshes killed mid-run (SIGKILL) in $rounds rounds; integrity ok, no duplicates, read flags kept, counts exact; final refresh: $(cat "$work/final.out"); $stored/$expected items"
