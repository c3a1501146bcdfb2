#!/usr/bin/env bash
# rename_feed_tmux.sh - the reader's rename-feed key (i) on a feed of an account, in tmux: the
# status line asks for the title with the current one to edit, ENTER renames the feed in the
# list, z undoes it; the Swift test that runs this script checks what reached the server.
#   usage: Tests/e2e/rename_feed_tmux.sh
#   env: ZEADER=.build/debug/zeader, ZEADER_RENAME_DB: the store (made by the Swift test, with
#        an account whose server on 127.0.0.1 lists the feed "One")
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
zeader=$(realpath "${ZEADER:-$root/.build/debug/zeader}")
db=${ZEADER_RENAME_DB:?the store with the account}
work=$(mktemp -d -t zrename.XXXXXX)
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" LC_ALL=C.UTF-8
mkdir -p "$XDG_CONFIG_HOME/zeader"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
trap 'for s in "$work"/tmux.*.sock; do stop_server "$s"; done; rm -rf "$work"' EXIT
. "$root/Tests/e2e/tmux_lib.sh"
echo "== i asks for the title, the current one to edit; ENTER renames the feed"
start "TERM=xterm-256color $zeader --db '$db'"
expect "] One" 15
keys i
expect "Title (empty: the feed's own): One"
keys C-u
keys -l "Read later"
keys Enter
expect "Renamed: Read later"
expect "] Read later"
refute "] One"
# The reader pushes a change once it pauses: given time, the server has the rename.
sleep 3

echo "== z undoes the rename"
keys z
expect "] One"
sleep 3

echo "== i on the item list says where it works"
keys Enter
keys i
expect "Select a feed in the feed list to rename it"
keys q
keys q
expect "EXIT=0"
echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
