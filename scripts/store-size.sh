#!/usr/bin/env bash
# store-size.sh - bytes per item of Zeader's store and newsboat's cache on the same
# generated corpus (the bench harness's feedgen.py, served on 127.0.0.1), with a per-part
# table from SQLite's dbstat: Zeader's store as a refresh leaves it, and without its
# full-text index (a copy with the index's table and triggers dropped, then VACUUMed).
#   usage: ZEADER=.build/release/zeader scripts/store-size.sh [FEEDS=100] [ITEMS=50]   (KEEP=1 keeps the stores)
#   needs: python3, sqlite3 (with dbstat), newsboat; the harness in $BENCH (/work/shared/bench)
set -euo pipefail
feeds=${1:-100} items=${2:-50}
bench=${BENCH:-/work/shared/bench}
zeader=${ZEADER:-.build/debug/zeader}
zeader=$(realpath "$zeader")
work=$(mktemp -d -t store-size.XXXXXX)
trap 'kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

python3 "$bench/feedgen.py" --out "$work/corpus" --feeds "$feeds" --items "$items" --seed 1 >/dev/null
python3 "$bench/serve.py" --dir "$work/corpus" --port 0 --port-file "$work/port" --no-gzip --max-seconds 600 \
	--log "$work/server.log" --stats "$work/stats" >/dev/null 2>"$work/server.err" &
server=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
sed "s/:8080/:$port/g" "$work/corpus/feeds.opml" >"$work/feeds.opml"
sed "s/:8080/:$port/g" "$work/corpus/urls.txt" >"$work/urls"

export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME"
db="$work/z.sqlite"
"$zeader" --db "$db" import "$work/feeds.opml" >/dev/null
"$zeader" --db "$db" refresh --jobs 8 >/dev/null
printf 'max-items 0\nkeep-articles-days 0\nreload-threads 8\n' >"$work/nbconfig"
newsboat -u "$work/urls" -c "$work/cache.db" -C "$work/nbconfig" -x reload >/dev/null 2>&1

n=$(sqlite3 "$db" 'SELECT COUNT(*) FROM FeedItem')
nb=$(sqlite3 "$work/cache.db" 'SELECT COUNT(*) FROM rss_item')
# Zeader without the full-text index: the same store with the index's table, view and triggers gone.
cp "$db" "$work/nofts.sqlite"
sqlite3 "$work/nofts.sqlite" "$(sqlite3 "$work/nofts.sqlite" "SELECT 'DROP ' || type || ' IF EXISTS \"' || name || '\";' FROM sqlite_master WHERE (type IN ('trigger', 'view') AND name LIKE 'ZSEARCH%') OR (type = 'table' AND name = 'ZSEARCH')") VACUUM;"

part() { # FILE SQL-CONDITION ITEMS
	sqlite3 "$1" "SELECT printf('%.0f', COALESCE(SUM(pgsize), 0) * 1.0 / $3) FROM dbstat WHERE $2"
}
size() { echo $(($(stat -c %s "$1") / $2)); }
[ -n "${KEEP:-}" ] && echo "stores kept in $work"
echo "corpus: $feeds feeds x $items items; zeader $n items, newsboat $nb items; bytes per item"
printf '%-34s %8s\n' "part" "B/item"
printf '%-34s %8s\n' "zeader file (with FTS)" "$(size "$db" "$n")"
printf '%-34s %8s\n' "zeader file (without FTS)" "$(size "$work/nofts.sqlite" "$n")"
printf '%-34s %8s\n' "  FeedItemBody (content)" "$(part "$db" "name = 'FeedItemBody'" "$n")"
printf '%-34s %8s\n' "  FeedItem rows" "$(part "$db" "name = 'FeedItem'" "$n")"
printf '%-34s %8s\n' "  FTS (ZSEARCH*)" "$(part "$db" "name LIKE 'ZSEARCH%'" "$n")"
printf '%-34s %8s\n' "  FeedItem indexes" "$(part "$db" "name LIKE 'Z_FeedItem%' OR name LIKE 'sqlite_autoindex_FeedItem%'" "$n")"
printf '%-34s %8s\n' "  FeedItemBody indexes" "$(part "$db" "name LIKE 'Z_FeedItemBody%' OR name LIKE 'sqlite_autoindex_FeedItemBody%'" "$n")"
printf '%-34s %8s\n' "  the rest (feeds, metadata, free)" "$(part "$db" "name NOT LIKE 'ZSEARCH%' AND name NOT LIKE '%FeedItem%'" "$n")"
printf '%-34s %8s\n' "    of which free pages" "$(($(sqlite3 "$db" 'PRAGMA freelist_count') * $(sqlite3 "$db" 'PRAGMA page_size') / n))"
printf '%-34s %8s\n' "  summary column (text bytes)" "$(sqlite3 "$db" "SELECT printf('%.0f', COALESCE(SUM(length(CAST(summary AS BLOB))), 0) * 1.0 / $n) FROM FeedItem")"
printf '%-34s %8s\n' "newsboat cache.db" "$(size "$work/cache.db" "$nb")"
printf '%-34s %8s\n' "  rss_item" "$(part "$work/cache.db" "name = 'rss_item'" "$nb")"
printf '%-34s %8s\n' "  its indexes" "$(part "$work/cache.db" "name LIKE 'idx%' OR name LIKE 'sqlite_autoindex_rss_item%'" "$nb")"
