#!/usr/bin/env bash
# tui_tmux.sh - end-to-end tests of the real `zeader` binary in a private tmux server:
# start-up, navigation, mark read and the count changing, undo/redo, search (a word of the
# article's text too), resize
# (down to 20x5 and below), save (s) and pipe-to (|), search scope and phrases and the HTML
# rendering fixtures at 80 and 200 columns (a file:// feed), newsboat `color` and
# `highlight-article` lines reaching
# the screen (capture-pane -e), a commit by another process showing
# up live, refresh (R, r) against a loopback HTTP server started here on 127.0.0.1 with
# notify-program, a concurrent `zeader refresh`, D (delete-article) against a refresh,
# the `:` command line, and the terminal restored after q,
# SIGTERM, SIGINT and a crash.
#   usage: Tests/e2e/tui_tmux.sh      env: ZEADER=.build/debug/zeader
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
zeader=$(realpath "${ZEADER:-$root/.build/debug/zeader}")
work=$(mktemp -d -t ztui.XXXXXX)
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" LC_ALL=C.UTF-8
mkdir -p "$XDG_CONFIG_HOME"
printf '#!/bin/sh\nfor a in "$@"; do printf "[%%s]\\n" "$a"; done >>"%s"\n' "$work/browser.log" >"$work/browser"
chmod +x "$work/browser"
export BROWSER="$work/browser"
# Feeds come from 127.0.0.1 only, never through a proxy.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
# Colours on (the color section checks them), whatever the caller's NO_COLOR.
unset NO_COLOR
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
server_pid=""
trap 'for s in "$work"/tmux.*.sock; do tmux -S "$s" kill-server 2>/dev/null || true; done
	[ -z "$server_pid" ] || kill -KILL "$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
. "$root/Tests/e2e/tmux_lib.sh"

echo "== start-up and navigation (demo)"
start "$zeader --demo"
expect "Zeader News"
expect_line 1 "Feeds (9 unread)"
keys j Enter
expect_line 1 "Swift on Linux (3 items)"
expect_line 2 "N 2026-11-21  Strict concurrency"
keys Enter
expect "Title: Strict concurrency in a terminal app"
keys q q
expect_line 3 "2/3"
expect_line 1 "Feeds (8 unread)"

echo "== mark read, undo, redo"
keys k A
expect_line 2 "0/4"
keys z
expect_line 2 "3/4"
expect "Undid Mark Feed Read"
keys Z
expect_line 2 "0/4"
keys z

echo "== search"
keys / c r e m e Space B R U L E E Enter
expect_line 1 "Search: creme BRULEE (1 items)"
expect_line 2 "Crème brûlée and naïve façades"
keys q

echo "== links: the browser gets the URL as its own argument, and gives the terminal back"
# (BROWSER is set for the whole pane below: a script that records its arguments.)
keys Home Enter Enter
expect "Links:"
keys 1 Enter
expect "Opened https://zeader.example/manual"
keys o
expect "Opened https://zeader.example/welcome"
checks=$((checks + 1))
if [ "$(cat "$work/browser.log")" != "$(printf '%s\n' "[https://zeader.example/manual]" "[https://zeader.example/welcome]")" ]; then
	echo "FAIL: the browser was run with: $(cat "$work/browser.log")" >&2
	failures=$((failures + 1))
fi
expect "Title: Welcome to Zeader"
keys q q

echo "== help and resize"
keys '?'
expect "Refresh all feeds"
keys q
t resize-window -t main -x 40 -y 10
expect_line 1 "Zeader 0.1.0 - Feeds (7 unread)"
t resize-window -t main -x 20 -y 5
expect_line 1 "Zeader 0.1.0 - Feeds"
t resize-window -t main -x 3 -y 2
sleep 0.3
t resize-window -t main -x 100 -y 30
expect "世界の文字 · World Scripts"

echo "== quit restores the terminal"
keys q
expect "EXIT=0"
expect "icanon echo"

echo "== newsboat's keys: hide read feeds (l), n across feeds and wrapping, O, hidden read items (L), sort, tags, filter, links"
# Its own state folder: the views it leaves (l, L, g) are remembered there, and checked on a restart.
start "XDG_STATE_HOME=$work/nbstate $zeader --demo"
expect "Zeader News"
keys A
expect_line 2 "0/4"
keys l
expect "Hiding read feeds"
expect_line 2 "Swift on Linux"
keys l
expect_line 2 "Zeader News"
keys z
expect_line 2 "3/4"
keys Home n
expect "Title: Welcome to Zeader"
keys n n
expect "Title: Safe by default"
keys n
expect "Title: Strict concurrency in a terminal app"
expect_line 1 "Strict concurrency"
keys q q End k Enter
expect_line 1 "World Scripts (3 items)"
keys n n n
keys n
# Past the last feed, round to the first with unread items.
expect "Title: A Core Data-style stack without Apple platforms"
keys q Down
expect_line 4 "Café talk"
keys O
expect "Opened https://swift-linux.example/cafe"
checks=$((checks + 1))
if ! grep -qxF "[https://swift-linux.example/cafe]" "$work/browser.log"; then
	echo "FAIL: O did not run the browser with the item's link: $(cat "$work/browser.log")" >&2
	failures=$((failures + 1))
fi
keys q
expect_line 3 "0/3"
keys Home Enter N
expect "Marked unread"
keys L
expect "Hiding read items"
expect_line 1 "Zeader News (1 items)"
keys L g t
expect "Sorted by title"
expect_line 2 "Safe by default"
keys G t
expect_line 2 "Welcome to Zeader"
keys F
keys -l 'title CONTAINS[c] "itunes"'
keys Enter
expect "1 match the filter"
expect_line 1 "Zeader News (1 items)"
expect_line 2 "Search like iTunes"
keys F C-u
keys -l 'title CONTAINS'
keys Enter
expect_line 29 "Filter: title CONTAINS"
expect_line 30 "invalid --where predicate"
keys Escape C-f
expect_line 1 "Zeader News (4 items)"
keys Enter U
expect_line 1 "Links of"
keys Enter
expect "Opened https://"
keys s
keys -l "$work/links.txt"
keys Enter
expect "Wrote"
checks=$((checks + 1))
if ! grep -q "^https://" "$work/links.txt"; then
	echo "FAIL: the link list was not written: $(cat "$work/links.txt" 2>&1)" >&2
	failures=$((failures + 1))
fi
keys q q q t
expect "No feed has a tag"
keys g u
expect "Sorted by unreadarticlecount"
expect_line 2 "Zeader News"
keys l q
expect "EXIT=0"
echo "== the views are remembered"
start "XDG_STATE_HOME=$work/nbstate $zeader --demo"
expect_line 1 "Feeds (9 unread)"
keys l
expect "Showing read feeds"
keys q
expect "EXIT=0"
echo "== tags: t lists them, ENTER shows one tag's feeds"
tagged="$work/tagged.sqlite"
"$zeader" add --db "$tagged" "file://$root/Resources/demo/zeader-news.xml" --tag news >/dev/null
"$zeader" add --db "$tagged" "file://$root/Resources/demo/swift-on-linux.atom" --tag linux --tag swift >/dev/null
start "XDG_STATE_HOME=$work/nbstate $zeader --db $tagged"
expect_line 1 "Feeds (0 unread)"
keys t
expect_line 1 "Tags"
expect_line 2 "linux (1 feeds)"
expect_line 4 "swift (1 feeds)"
keys Enter
expect "Showing the feeds tagged linux"
expect_line 2 "[linux, swift]"
expect_line 3 ""
checks=$((checks + 1))
if screen | grep -qF "zeader-news.xml"; then
	echo "FAIL: the tag list left a feed of another tag listed" >&2
	failures=$((failures + 1))
fi
keys C-t
expect "zeader-news.xml"
keys q
expect "EXIT=0"

echo "== s saves the article, | pipes it to a command; a code block at 80 columns"
start "$zeader --demo"
t resize-window -t main -x 80 -y 24
expect "Zeader News"
keys j Enter Down Enter
expect "Title: A Core Data-style stack without Apple platforms"
# The demo's one code block (<pre>) keeps its line whole at 80 columns.
expect 'let items = try FeedItem.findAll(where: "read == NO")'
keys s C-u
keys -l "$work/saved.txt"
keys Enter
expect "Saved to $work/saved.txt"
checks=$((checks + 1))
if ! grep -qxF "Title: A Core Data-style stack without Apple platforms" "$work/saved.txt" 2>/dev/null; then
	echo "FAIL: s did not save the article: $(cat "$work/saved.txt" 2>&1)" >&2
	failures=$((failures + 1))
fi
keys '|'
keys -l "sh -c \"cat > $work/piped.txt\""
keys Enter
expect "Piped to sh"
checks=$((checks + 1))
if ! grep -qF 'let items = try FeedItem.findAll(where: "read == NO")' "$work/piped.txt" 2>/dev/null; then
	echo "FAIL: | did not pipe the article's text: $(cat "$work/piped.txt" 2>&1)" >&2
	failures=$((failures + 1))
fi
expect "Title: A Core Data-style stack without Apple platforms"
keys q q q
expect "EXIT=0"

echo "== search scope and phrases, and the rendering fixtures at 80 and 200 columns (a file:// feed)"
# Two feeds built from Tests/FeedsTests/Fixtures/html: the fixtures' items (code, table, sup/sub
# with an enclosure and a long link) and search items; the other feed has one more match.
fixtures="$work/fixtures"
mkdir -p "$fixtures"
python3 - "$root/Tests/FeedsTests/Fixtures/html" "$fixtures" <<'PY'
import html, os, sys
source, out = sys.argv[1], sys.argv[2]
def read(name):
    with open(os.path.join(source, name + ".html"), encoding="utf-8") as f:
        return f.read()
long_link = "https://example.org/articles/2026/11/a-long-path-that-cannot-fit-on-one-line/of-eighty-columns/index.html"
def rss(path, title, items):
    with open(os.path.join(out, path), "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>%s</title>' % title)
        for n, (item_title, body, extra) in enumerate(items):
            f.write("<item><guid>%s-%d</guid><title>%s</title><pubDate>Sat, 21 Nov 2026 %02d:00:00 GMT</pubDate>"
                    "<description>%s</description>%s</item>" % (path, n, html.escape(item_title), n, html.escape(body), extra))
        f.write("</channel></rss>\n")
rss("fixtures.xml", "Fixture Feed", [
    ("Code fixture", read("code"), "<link>%s</link>" % long_link),
    ("Table fixture", read("table"), ""),
    ("Sup and sub fixture", read("supsub"),
     '<enclosure url="https://example.org/episode.mp3" type="audio/mpeg" length="12345678"/>'),
    ("Notes on solar power, and solar power again", "<p>solar power, solar power and more solar power</p>", ""),
    ("Solar power", "<p>A short note.</p>", ""),
    ("Power of the solar wind", "<p>The power of the wind, not solar panels.</p>", ""),
])
rss("other.xml", "Other Feed", [
    ("Solar power elsewhere", "<p>solar power in another feed</p>", ""),
    # A word far past the summary's opening: found in the article's text only.
    ("A long read", "<p>" + "Words of filler about nothing much. " * 20 + "At last the <b>zeppelin</b> hangar.</p>", ""),
])
PY
fixdb="$work/fixtures.sqlite"
"$zeader" add --db "$fixdb" "file://$fixtures/fixtures.xml" >/dev/null
"$zeader" add --db "$fixdb" "file://$fixtures/other.xml" >/dev/null
"$zeader" refresh --db "$fixdb" >/dev/null
start "$zeader --db $fixdb"
expect "Fixture Feed"
keys Home Enter
expect_line 1 "Fixture Feed (6 items)"
keys /
expect "Search Fixture Feed (TAB: all):"
keys "solar power" Enter
# This feed's three matches, the exact title first.
expect_line 1 "Search Fixture Feed: solar power (3 items)"
expect_line 2 "Solar power"
checks=$((checks + 1))
if screen | grep -qF "Solar power elsewhere"; then
	echo "FAIL: a search in one feed listed another feed's item" >&2
	failures=$((failures + 1))
fi
keys q / Tab
expect "Search: "
keys "solar power" Enter
expect_line 1 "Search: solar power (4 items)"
expect_line 2 "Solar power"
expect "Solar power elsewhere"
keys q / Tab '"solar power"' Enter
# The quoted phrase: "Power of the solar wind" has both words, not the phrase.
expect_line 1 'Search: "solar power" (3 items)'
checks=$((checks + 1))
if screen | grep -qF "Power of the solar wind"; then
	echo "FAIL: the phrase search matched the words out of order" >&2
	failures=$((failures + 1))
fi
keys q / Tab "zeppelin hangar" Enter
expect_line 1 "Search: zeppelin hangar (1 items)"
expect_line 2 "A long read"
keys q
for columns in 80 200; do
	t resize-window -t main -x "$columns" -y 40
	keys / "Code fixture" Enter Enter
	expect "Title: Code fixture"
	# The body is rendered one column narrower than the terminal.
	if [ "$columns" = 80 ]; then
		expect_line 10 "swift build -c release --product zeader -Xswiftc -enable-testing -Xlinker -rpat"
		expect_line 11 "↪ h=/usr/local/lib/swift/linux/very/long/path"
		# The long Link: header wraps under its label.
		expect_line 5 "Link: https://example.org/articles/2026/11/a-long-path-that-cannot-fit-on-one-li"
		expect_line 6 "      ne/of-eighty-columns/index.html"
	else
		expect "-Xlinker -rpath=/usr/local/lib/swift/linux/very/long/path"
		expect "Link: https://example.org/articles/2026/11/a-long-path-that-cannot-fit-on-one-line/of-eighty-columns/index.html"
		checks=$((checks + 1))
		if screen | grep -qF "↪"; then
			echo "FAIL: a code line was wrapped at 200 columns" >&2
			failures=$((failures + 1))
		fi
	fi
	keys q q / "Table fixture" Enter Enter
	expect "Title: Table fixture"
	expect "Items   | Zeader | newsboat | Notes"
	expect "100,000 | 0.10 s |   12.3 s | details[1]"
	if [ "$columns" = 80 ]; then
		expect "  9,000 | 0.09 s |   1.09 s | the first screen of a reader with a hundred"
		expect "        |        |          | feeds, measured with hyperfine over ten runs"
	else
		expect "  9,000 | 0.09 s |   1.09 s | the first screen of a reader with a hundred feeds, measured with hyperfine over ten runs"
	fi
	keys q q / "Sup and sub fixture" Enter Enter
	expect "Title: Sup and sub fixture"
	expect "Enclosure: https://example.org/episode.mp3 (audio/mpeg"
	expect "2^16 = 65536"
	expect "H[2]O"
	expect "E = mc^2."
	keys q q
done
keys q q
expect "EXIT=0"

echo "== color and highlight lines reach the screen: colours, 256-colour numbers and attributes"
mkdir -p "$XDG_CONFIG_HOME/zeader"
printf '%s\n' "color listfocus_unread yellow blue bold underline" "color info color208 color17" \
	"color listnormal_unread red default" 'highlight feedlist "on linux" color208 default underline' \
	>"$XDG_CONFIG_HOME/zeader/config"
start "TERM=xterm-256color $zeader --demo"
expect "Zeader News"
has_sgr 2 "listfocus_unread yellow blue bold underline" "1 4 33 44"
has_sgr 1 "info color208 color17" "38 5 208 48 17"
has_sgr 3 "listnormal_unread red, not bold" "31"
has_sgr 3 "highlight feedlist \"on linux\"" "38 5 208 4"
checks=$((checks + 1))
if sgr 3 | tr -d '[m' | tr ';' '\n' | grep -qx 1; then
	echo "FAIL: line 3 (listnormal_unread without attributes) is bold: $(sgr 3 | tr '\n' ' ')" >&2
	failures=$((failures + 1))
fi
keys q
expect "EXIT=0"
# A terminal of 8 colours: color208 falls back to the default colour, the attributes stay.
start "TERM=screen $zeader --demo"
expect "Zeader News"
has_sgr 2 "listfocus_unread on 8 colours" "1 4 33 44"
checks=$((checks + 1))
if sgr 1 | grep -q "208"; then
	echo "FAIL: an 8-colour terminal was sent colour 208: $(sgr 1 | tr '\n' ' ')" >&2
	failures=$((failures + 1))
fi
keys q
expect "EXIT=0"

echo "== highlight-article paints the item rows its newsboat filter matches"
printf '%s\n' 'highlight-article "title =~ \"itunes\" and unread = \"yes\"" color208 default underline' \
	>"$XDG_CONFIG_HOME/zeader/config"
start "TERM=xterm-256color $zeader --demo"
expect "Zeader News"
keys Enter
expect "Search like iTunes"
# The row below the cursor's (the newest item, Welcome to Zeader).
row=$(t capture-pane -p -t main | grep -n "Search like iTunes" | cut -d: -f1)
has_sgr "$row" "highlight-article on the matching row" "38 5 208 4"
undo_row=$(t capture-pane -p -t main | grep -n "Undo is one key away" | cut -d: -f1)
checks=$((checks + 1))
if sgr "$undo_row" | grep -q "208"; then
	echo "FAIL: a row the filter does not match is painted: $(sgr "$undo_row" | tr '\n' ' ')" >&2
	failures=$((failures + 1))
fi
keys q q
expect "EXIT=0"
rm "$XDG_CONFIG_HOME/zeader/config"

echo "== SIGTERM and SIGINT restore the terminal"
start "$zeader --demo"
expect "Zeader News"
# The reader is the only child of the pane's shell.
kill -TERM "$(pgrep -P "$(t display -p -t main '#{pane_pid}')")"
expect "EXIT=143"
expect "icanon echo"
start "$zeader --demo"
expect "Zeader News"
keys C-c
expect "EXIT=130"
expect "icanon echo"

echo "== a crash (a Swift trap is SIGILL/SIGTRAP; SEGV, BUS, FPE, ABRT) restores the terminal too"
for crash in ILL:132 SEGV:139 BUS:135 FPE:136 ABRT:134 TRAP:133; do
	start "$zeader --demo"
	expect "Zeader News"
	kill -"${crash%%:*}" "$(pgrep -P "$(t display -p -t main '#{pane_pid}')")"
	expect "EXIT=${crash##*:}"
	expect "icanon echo"
done

echo "== another process's commit shows up live"
store="$work/store.sqlite"
start "$zeader --db $store"
expect "No feeds yet"
sql="BEGIN;
  INSERT INTO Server (Z_PK, title, url, unreadCount, totalCount, displayOrder) VALUES (1, 'Cron Feed', 'http://127.0.0.1/cron.xml', 1, 1, 0);
  INSERT INTO FeedItem (Z_PK, guid, title, read, sortDate, server) VALUES (1, 'g1', 'Stored elsewhere', 0, 1795248000, 1);
  INSERT OR REPLACE INTO Z_PRIMARYKEY VALUES ('Server', 1), ('FeedItem', 1);
  COMMIT;"
if command -v sqlite3 >/dev/null; then
	sqlite3 "$store" "$sql"
else
	python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.executescript(sys.argv[2])' "$store" "$sql"
fi
expect "Cron Feed"
expect_line 2 "1/1"
keys Enter
expect "Stored elsewhere"
keys Enter q q
expect_line 2 "0/1"
keys q
expect "EXIT=0"

echo "== SIGHUP (the terminal closed) checkpoints and closes the store: no -wal left to recover"
start "$zeader --db $store"
expect "Cron Feed"
keys Enter N  # the item unread again: a write into the -wal
expect "N 2026-11-"
checks=$((checks + 1))
[ -s "$store-wal" ] || { echo "FAIL: the write left no -wal to checkpoint" >&2; failures=$((failures + 1)); }
kill -HUP "$(pgrep -P "$(t display -p -t main '#{pane_pid}')")"
expect "EXIT=129"
expect "icanon echo"
checks=$((checks + 1))
if [ -s "$store-wal" ]; then
	echo "FAIL: SIGHUP left a $(stat -c %s "$store-wal")-byte -wal" >&2
	failures=$((failures + 1))
fi

echo "== refresh against a loopback server: R fetches every feed, r the one under the cursor"
www="$work/www"
mkdir -p "$www"
# feed NAME COUNT STAMP: an RSS file of COUNT items ("NAME item 1" oldest), modified at
# STAMP (epoch seconds): the server answers If-Modified-Since from the file's time.
feed() {
	{
		printf '<?xml version="1.0"?><rss version="2.0"><channel><title>%s Feed</title>' "$1"
		for i in $(seq "$2"); do
			printf '<item><guid>%s-%d</guid><title>%s item %d</title><pubDate>Sat, 21 Nov 2026 %02d:00:00 GMT</pubDate></item>' \
				"$1" "$i" "$1" "$i" "$i"
		done
		printf '</channel></rss>\n'
	} >"$www/$1.xml.tmp"
	mv "$www/$1.xml.tmp" "$www/$1.xml"
	touch -d "@$3" "$www/$1.xml"
}
feed Alpha 2 1795000000
feed Beta 1 1795000000
# A static server on 127.0.0.1 and a free port, stopping by itself after 170 s.
serve_static "$www" 170
base="http://127.0.0.1:$port"
live="$work/live.sqlite"
"$zeader" add --db "$live" "$base/Alpha.xml" >/dev/null
"$zeader" add --db "$live" "$base/Beta.xml" >/dev/null
# notify-program: a script that appends its arguments (the message) to a log.
printf '#!/bin/sh\nprintf "[%%s]\\n" "$@" >>"%s"\n' "$work/notify.log" >"$work/notify"
chmod +x "$work/notify"
mkdir -p "$XDG_CONFIG_HOME/zeader"
printf 'notify-program %s\n' "$work/notify" >"$XDG_CONFIG_HOME/zeader/config"
# notified TEXT: the notify log's last line is [TEXT] (waits for the program, which the reader does not).
notified() {
	local i
	checks=$((checks + 1))
	for i in $(seq 100); do
		[ "$(tail -n 1 "$work/notify.log" 2>/dev/null)" = "[$1]" ] && return 0
		sleep 0.05
	done
	echo "FAIL: notify-program's last message is '$(tail -n 1 "$work/notify.log" 2>&1)', not '[$1]'" >&2
	failures=$((failures + 1))
}
# maps_libcurl: whether the reader (the pane's shell's child) has libcurl mapped.
maps_libcurl() { grep -q '/libcurl\.so' "/proc/$(pgrep -P "$(t display -p -t main '#{pane_pid}')" | head -n 1)/maps"; }
start "$zeader --db $live"
expect "$base/Beta.xml"
checks=$((checks + 1))
if maps_libcurl; then fail "the reader at rest has libcurl loaded before anything is fetched"; fi
keys R
expect_line 2 "Alpha Feed" 10
expect_line 2 "2/2"
expect_line 3 "1/1"
expect "Refreshed 2 feeds"
checks=$((checks + 1))
maps_libcurl || fail "the reader fetched without loading libcurl?"
expect_line 1 "Feeds (3 unread)"
notified "Zeader: 3 new items in 2 feeds"
feed Alpha 3 1795000100
keys r
expect_line 2 "3/3" 10
expect "Refreshed 1 feed"
expect_line 1 "Feeds (4 unread)"
notified "Zeader: 1 new item in 1 feed"
keys Enter
expect_line 1 "Alpha Feed (3 items)"
expect_line 2 "Alpha item 3"
keys q

echo "== a concurrent \`zeader refresh\` shows up live, in the feed list and in an open item list"
keys j Enter
expect_line 1 "Beta Feed (1 items)"
feed Beta 3 1795000200
checks=$((checks + 1))
if ! timeout -s KILL 60 "$zeader" refresh --db "$live" >"$work/refresh.out" 2>&1; then
	echo "FAIL: zeader refresh: $(cat "$work/refresh.out")" >&2
	failures=$((failures + 1))
fi
expect_line 1 "Beta Feed (3 items)" 4
expect_line 2 "Beta item 3"
notified "Zeader: 2 new items in 1 feed"
keys q
expect_line 3 "3/3" 4
expect_line 1 "Feeds (6 unread)"

echo "== D deletes an item for good (a refresh does not bring it back), z undoes it; ^D asks first"
keys Enter
expect_line 1 "Beta Feed (3 items)"
expect_line 2 "Beta item 3"
keys D
expect "Deleted 'Beta item 3' (z to undo)"
expect_line 1 "Beta Feed (2 items)"
feed Beta 4 1795000300
keys r
expect "Refreshed 1 feed" 10
expect_line 1 "Beta Feed (3 items)" 4
expect_line 2 "Beta item 4"
expect_line 3 "Beta item 2"
keys z
expect "Undid Delete Item"
expect_line 1 "Beta Feed (4 items)"
keys C-d
expect "Delete all 4 items of this list? [y/n]"
keys n
expect_line 1 "Beta Feed (4 items)"
keys q

echo "== : runs newsboat's commands (set, goto, a number, q); an unknown one is an error"
keys :
keys -l "set feed-sort-order=title-desc"
keys Enter
expect "feed-sort-order=title-desc"
expect_line 2 "Beta Feed"
keys :
keys -l "bogus 1"
keys Enter
expect "Unknown command 'bogus' (commands: quit, q, save, set, tag, goto, exec, or a number)"
keys :
keys -l "set feed-sort-order&"
keys Enter
expect_line 2 "Alpha Feed"
keys :
keys -l "goto beta"
keys Enter Enter
expect_line 1 "Beta Feed (4 items)"
keys q :
keys -l "1"
keys Enter Enter
expect_line 1 "Alpha Feed (3 items)"
keys q

echo "== a page naming several feeds: a offers them in a chooser, ENTER previews one"
feed Gamma 1 1795000300
feed Delta 2 1795000300
printf '<!DOCTYPE html><html><head><title>Page</title>%s%s</head><body>Two feeds</body></html>\n' \
	'<link rel="alternate" type="application/rss+xml" title="Gamma posts" href="Gamma.xml">' \
	'<link rel="alternate" type="application/atom+xml" href="/Delta.xml">' >"$www/page.html"
keys a "$base/page.html" Enter
expect_line 1 "Feeds of $base/page.html" 10
expect_line 2 "1  $base/Gamma.xml  Gamma posts  (RSS)"
expect_line 3 "2  $base/Delta.xml  (Atom)"
keys j Enter
expect "Delta Feed (2 items, $base/Delta.xml) - keep it? [y/n]" 10
keys y
expect "Added Delta Feed"
expect_line 1 "Feeds (9 unread)"
keys :
keys -l "q"
keys Enter
expect "EXIT=0"
rm "$XDG_CONFIG_HOME/zeader/config"
kill -KILL "$server_pid" 2>/dev/null || true  # nothing to clean up; KILL cannot be blocked
wait "$server_pid" 2>/dev/null || true
server_pid=""

echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
