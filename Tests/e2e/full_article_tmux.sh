#!/usr/bin/env bash
# full_article_tmux.sh - `w` in the real `zeader` binary, in a private tmux server: the item's
# web page, served on 127.0.0.1 by a server started here, replaces the feed's text in the
# article view; `w` again shows the feed's text; the article is kept with the item and shows
# with the server gone.
#   usage: Tests/e2e/full_article_tmux.sh      env: ZEADER=.build/debug/zeader
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
zeader=$(realpath "${ZEADER:-$root/.build/debug/zeader}")
work=$(mktemp -d -t zfull.XXXXXX)
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" LC_ALL=C.UTF-8
mkdir -p "$XDG_CONFIG_HOME"
# Pages come from 127.0.0.1 only, never through a proxy.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
server_pid=""
trap 'for s in "$work"/tmux.*.sock; do stop_server "$s"; done
	[ -z "$server_pid" ] || kill -KILL "$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
. "$root/Tests/e2e/tmux_lib.sh"

www="$work/www"
mkdir -p "$www"
story=$(printf 'The long text goes on with a zeppelinfield in it, and more words after it. %.0s' $(seq 8))
more=$(printf 'A second paragraph says more about the zeppelinfield. %.0s' $(seq 6))
cat >"$www/story.html" <<HTML
<html><head><title>The whole story</title></head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>The whole story</h1><p>$story</p><p>$more</p></article>
<footer>Footer words that are not the article</footer></body></html>
HTML
# A static server on 127.0.0.1 and a free port, stopping by itself after 120 s.
serve_static "$www" 120
base="http://127.0.0.1:$port"
cat >"$www/feed.xml" <<XML
<?xml version="1.0"?>
<rss version="2.0"><channel><title>Teaser Feed</title><link>$base/</link>
<item><title>A teaser</title><link>$base/story.html</link><guid>teaser</guid>
<description>Only the first lines of the story.</description><pubDate>Sat, 21 Nov 2026 10:00:00 GMT</pubDate></item>
</channel></rss>
XML
db="$work/store.sqlite"
"$zeader" add --db "$db" "$base/feed.xml" >/dev/null
"$zeader" refresh --db "$db" >/dev/null

echo "== w shows the page's article in place of the feed's text, and back"
start "$zeader --db $db"
expect "Teaser Feed"
keys Enter Enter
expect "Only the first lines of the story."
keys w
expect "zeppelinfield" 10
refute "Only the first lines of the story."
refute "Footer words"
checks=$((checks + 1))
grep -q "GET /story.html" "$work/http.log" || fail "the page was not fetched from the loopback server"
keys w
expect "Only the first lines of the story."
refute "zeppelinfield"
keys q q q
expect "EXIT=0"

echo "== kept with the item: shown with the server gone"
{
	kill -KILL "$server_pid"
	wait "$server_pid"
} 2>/dev/null || true
server_pid=""
start "$zeader --db $db"
expect "Teaser Feed"
keys Enter Enter
expect "Only the first lines of the story."
keys w
expect "zeppelinfield" 10
keys q q q
expect "EXIT=0"

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
