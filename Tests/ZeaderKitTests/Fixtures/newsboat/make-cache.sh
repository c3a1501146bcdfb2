#!/bin/sh
# Rebuilds ../newsboat-cache.db with newsboat itself (2.21): serves this folder's feeds on
# 127.0.0.1:8765, runs `newsboat -x reload` into a fresh cache, then marks items as a user
# would: a-1 read, a-2 flagged "Is", a-3 deleted. NewsboatImportTests uses the result where
# newsboat is not installed (it rewrites the port to its own loopback server's).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
python3 -m http.server 8765 --bind 127.0.0.1 -d "$here" >/dev/null 2>&1 &
server=$!
sleep 1
printf '%s\n' 'http://127.0.0.1:8765/a.xml news "~Custom A"' 'http://127.0.0.1:8765/b.xml' 'http://127.0.0.1:8765/c.xml tech' >"$work/urls"
: >"$work/config"
HOME=$work newsboat -u "$work/urls" -c "$work/cache.db" -C "$work/config" -x reload
sqlite3 "$work/cache.db" "UPDATE rss_item SET unread = 0 WHERE guid = 'a-1'; UPDATE rss_item SET flags = 'Is' WHERE guid = 'a-2'; UPDATE rss_item SET deleted = 1 WHERE guid = 'a-3'; VACUUM;"
cp "$work/cache.db" "$here/../newsboat-cache.db"
