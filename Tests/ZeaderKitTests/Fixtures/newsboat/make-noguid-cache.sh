#!/bin/sh
# Rebuilds ../newsboat-noguid-cache.db with newsboat itself (2.21): serves this folder's d.xml
# (UTF-8 bytes under an ISO-8859-1 declaration, which newsboat stores as mojibake) and e.xml
# (true Latin-1), neither with guids, on 127.0.0.1:8765, and runs `newsboat -x reload` into a
# fresh cache. NewsboatImportTests rewrites the port to its own loopback server's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
python3 -m http.server 8765 --bind 127.0.0.1 -d "$here" >/dev/null 2>&1 &
server=$!
sleep 1
printf '%s\n' 'http://127.0.0.1:8765/d.xml' 'http://127.0.0.1:8765/e.xml' >"$work/urls"
: >"$work/config"
HOME=$work newsboat -u "$work/urls" -c "$work/cache.db" -C "$work/config" -x reload
sqlite3 "$work/cache.db" "VACUUM;"
cp "$work/cache.db" "$here/../newsboat-noguid-cache.db"
