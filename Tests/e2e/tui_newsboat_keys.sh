#!/usr/bin/env bash
# tui_newsboat_keys.sh - a newsboat user's config in the real `zeader` binary, in a private
# tmux server: per-view keys (`bind-key j down article` holds in the article only), `u` listing
# the links with the article's numbers, digits jumping in a list, a macro that sets the
# browser and sets it back, and `browser` run through the shell with a hostile URL (quotes,
# `;`, `$(…)`, backquotes) that must arrive as text and run nothing.
#   usage: Tests/e2e/tui_newsboat_keys.sh      env: ZEADER=.build/debug/zeader
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
zeader=$(realpath "${ZEADER:-$root/.build/debug/zeader}")
work=$(mktemp -d -t znbkeys.XXXXXX)
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" LC_ALL=C.UTF-8
export XDG_STATE_HOME="$work/home/.local/state"
mkdir -p "$XDG_CONFIG_HOME/zeader"
unset BROWSER NO_COLOR
trap 'for s in "$work"/tmux.*.sock; do tmux -S "$s" kill-server 2>/dev/null || true; done; rm -rf "$work"' EXIT
. "$root/Tests/e2e/tmux_lib.sh"

# A feed whose first item's link is hostile, whose body is longer than the screen and has a
# link, an image and an enclosure; a second feed to go to.
hostile="https://127.0.0.1/q?a='x';touch\${IFS}pwned1;'&b=\$(touch\${IFS}pwned2)&c=\`touch\${IFS}pwned3\`&d=\"e\""
python3 - "$work" "$hostile" <<'PY'
import html, os, sys
out, hostile = sys.argv[1], sys.argv[2]
body = ('<p>Read <a href="https://127.0.0.1/a">the first page</a>, see '
        '<img src="https://127.0.0.1/pic.png" alt="pic"> and <a href="https://127.0.0.1/b">the second</a>.</p>'
        '<p>Plain <strong>strong</strong> <em>emphasis</em> <u>under</u></p>'
        + "".join("<p>Paragraph %d of a long article.</p>" % n for n in range(1, 41)))
def rss(path, title, items):
    with open(os.path.join(out, path), "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>%s</title>' % title)
        for n, (item_title, link, text, extra) in enumerate(items):
            f.write("<item><guid>%s-%d</guid><title>%s</title><link>%s</link>"
                    "<pubDate>Sat, 21 Nov 2026 %02d:00:00 GMT</pubDate><description>%s</description>%s</item>"
                    % (path, n, html.escape(item_title), html.escape(link), 20 - n, html.escape(text), extra))
        f.write("</channel></rss>\n")
rss("hostile.xml", "Hostile Feed", [
    ("Hostile link", hostile, body, '<enclosure url="https://127.0.0.1/ep.mp3" type="audio/mpeg" length="1000"/>'),
    ("Second item", "https://127.0.0.1/second", "<p>Two.</p>", ""),
    ("Third item", "https://127.0.0.1/third", "<p>Three.</p>", ""),
])
rss("other.xml", "Other Feed", [("Other item", "https://127.0.0.1/other", "<p>Other.</p>", "")])
PY
db="$work/keys.sqlite"
"$zeader" add --db "$db" "file://$work/hostile.xml" >/dev/null
"$zeader" add --db "$db" "file://$work/other.xml" >/dev/null
"$zeader" refresh --db "$db" >/dev/null

# browser through the shell, in the background as people write it; a macro that sets another
# browser, opens, and sets the first one back; a macro whose browser quotes %u itself.
cat >"$XDG_CONFIG_HOME/zeader/config" <<CONFIG
browser "echo %u >> $work/shell.log &"
unbind-key j
bind-key j down article
bind-key J next-feed articlelist
macro v set browser "echo %u >> $work/macro.log" ; open-in-browser ; set browser "echo %u >> $work/shell.log &"
macro w set browser "echo '%u' >> $work/quoted.log" ; open-in-browser ; set browser "echo %u >> $work/shell.log &"
CONFIG

# logged FILE LINE…: waits up to 5 s for FILE to hold exactly these lines.
logged() {
	local file=$1 i
	shift
	checks=$((checks + 1))
	for i in $(seq 100); do
		[ "$(cat "$file" 2>/dev/null)" = "$(printf '%s\n' "$@")" ] && return 0
		sleep 0.05
	done
	fail "$file holds '$(cat "$file" 2>&1)', not '$*'"
}

start "cd $work && $zeader --db $db"
expect "Hostile Feed"

echo "== per-view keys: j is unbound in the lists, moves down in the article; J goes to the next feed from the item list only"
keys j
expect "Key j is not bound"
keys Enter
expect_line 1 "Hostile Feed (3 items)"
keys j
expect "Key j is not bound"
keys Enter
expect "Title: Hostile link"
expect_line 2 "Feed: Hostile Feed"
keys j
expect_line 2 "Title: Hostile link"
keys J
expect "Title: Second item"
keys q
expect_line 1 "Hostile Feed (3 items)"
keys J
expect_line 1 "Other Feed (1 items)"
keys q

echo "== digits: a position prompt in a list; ENTER goes there, a number beyond the list says so"
keys 2
expect_line 30 ":2"
keys Enter Enter
expect_line 1 "Other Feed (1 items)"
keys q 7 Enter
expect "No entry 7 (the list has 2)"
keys 1 Enter Enter
expect_line 1 "Hostile Feed (3 items)"

echo "== u lists the links with the numbers the article shows"
keys Home Enter
expect "Title: Hostile link"
keys End
expect "[1] https://127.0.0.1/a"
expect "[2] https://127.0.0.1/pic.png"
expect "[3] https://127.0.0.1/b"
expect "[4] https://127.0.0.1/ep.mp3 (enclosure)"
keys u
expect_line 1 "Links of Hostile link"
expect "1  https://127.0.0.1/a"
expect "2  [image: pic]  https://127.0.0.1/pic.png"
expect "3  https://127.0.0.1/b"
expect "4  https://127.0.0.1/ep.mp3 (audio/mpeg"
keys 3 Enter Enter
logged "$work/shell.log" "https://127.0.0.1/b"
keys q
expect_line 1 "Zeader 0.1.0 - Hostile link"

echo "== browser through the shell: a hostile URL arrives as text and runs nothing"
rm -f "$work/shell.log"
keys o
logged "$work/shell.log" "$hostile"

echo "== a macro sets the browser, opens, and sets it back"
keys , v
logged "$work/macro.log" "$hostile"
keys o
logged "$work/shell.log" "$hostile" "$hostile"
keys , w
logged "$work/quoted.log" "$hostile"
logged "$work/macro.log" "$hostile"
keys q q q
expect "EXIT=0"
checks=$((checks + 1))
ran=$(find "$work" "$HOME" -maxdepth 1 -name 'pwned*')
[ -z "$ran" ] || fail "the hostile URL ran a command: $ran"

echo "== article styles and basic colours as newsboat paints them (capture-pane -e)"
# newsboat 2.21 in tmux: the article's text in the 'article' colour, <strong> bold, links and
# <u> underlined, <em> plain; a read row in 'listnormal', the cursor's in 'listfocus'.
cat >"$XDG_CONFIG_HOME/zeader/config" <<CONFIG
color article cyan default
color listnormal cyan default
color listfocus yellow blue bold
CONFIG
"$zeader" mark-read --db "$db" --all >/dev/null
start "cd $work && TERM=xterm-256color $zeader --db $db"
expect "Hostile Feed"
# seq_of LINE TEXT: the SGR codes in effect where TEXT starts on line LINE (tmux writes only
# the changes, also from one line to the next: the lines above count).
seq_of() {
	t capture-pane -e -p -t main | python3 -c '
import re, sys
lines, target, text = sys.stdin.read().split("\n"), int(sys.argv[1]), sys.argv[2]
codes = set()
def apply(sequence):
    global codes
    for code in (sequence[2:-1] or "0").split(";"):
        if code == "0": codes = set()
        elif code == "22": codes -= {"1", "2"}
        elif code == "24": codes -= {"4"}
        elif code == "39": codes -= {str(c) for c in range(30, 38)}
        elif code == "49": codes -= {str(c) for c in range(40, 48)}
        else: codes.add(code)
for number, line in enumerate(lines[:target], 1):
    at = re.sub(r"\x1b\[[0-9;]*m", "", line).find(text) if number == target else -1
    plain = 0
    for part in re.split(r"(\x1b\[[0-9;]*m)", line):
        if part.startswith("\x1b["):
            apply(part)
        elif at >= 0 and plain + len(part) > at:
            print(" ".join(sorted(codes, key=int)))
            sys.exit()
        else:
            plain += len(part)
print("(not found)")' "$1" "$2"
}
# paints LINE TEXT CODES [NOT]: TEXT on line LINE is drawn with every code of CODES and none of NOT.
paints() {
	local got code tries=0
	checks=$((checks + 1))
	while :; do
		got=" $(seq_of "$1" "$2") "
		local ok=1
		for code in $3; do [[ $got == *" $code "* ]] || ok=0; done
		for code in ${4:-}; do [[ $got == *" $code "* ]] && ok=0; done
		[ $ok = 1 ] && return 0
		tries=$((tries + 1))
		[ $tries -ge 25 ] && break
		sleep 0.2
	done
	fail "line $1: '$2' is drawn with [$got], not with [$3] without [${4:-}]"
}
paints 2 "Hostile Feed" "1 33 44"
paints 3 "Other Feed" "36" "1 4 44"
keys Enter Enter
expect "Plain strong"
line=$(screen | grep -n "Plain strong" | cut -d: -f1)
paints "$line" "Plain" "36" "1 4"
paints "$line" "strong" "1 36" "4"
paints "$line" "emphasis" "36" "1 4"
paints "$line" "under" "4 36" "1"
line=$(screen | grep -n "Read the first page" | cut -d: -f1)
paints "$line" "the first page" "4 36" "1"
paints "$line" "Read" "36" "1 4"
keys Q
expect "EXIT=0"

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
