#!/usr/bin/env bash
# reader_accounts_tmux.sh - the real reader (in tmux) on a store with two sync accounts and a
# local feed: the feed list shows each synced feed's account (`[up] One`) and nothing before a
# local feed's title; the sync when it starts, and R, sync the account whose server answers
# and end with one status line naming the account whose server is away, and its reason.
#   usage: Tests/e2e/reader_accounts_tmux.sh
#   env: ZEADER=.build/debug/zeader, ZEADER_ACCOUNTS_DB: the store (made by the Swift test that
#        runs this script, with the accounts `up`, served on 127.0.0.1, and `down`)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
zeader=$(realpath "${ZEADER:-$root/.build/debug/zeader}")
db=${ZEADER_ACCOUNTS_DB:?the store with the accounts}
work=$(mktemp -d -t zaccounts.XXXXXX)
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" LC_ALL=C.UTF-8
mkdir -p "$XDG_CONFIG_HOME/zeader"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
trap 'for s in "$work"/tmux.*.sock; do stop_server "$s"; done; rm -rf "$work"' EXIT
. "$root/Tests/e2e/tmux_lib.sh"
echo "== the sync at start: the account up syncs, down is named on the status line"
start "TERM=xterm-256color $zeader --db '$db'"
expect "[up] One" 15
expect "Here only"
refute "[down]"
refute "] Here only"
expect "the sync failed: down: cannot reach the sync server" 15
refute "up: "

echo "== R syncs again: the same line, the feed still shown"
keys R
expect "the sync failed: down: cannot reach the sync server" 15
expect "[up] One"
refute "up: "

keys q
expect "EXIT=0"
echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
