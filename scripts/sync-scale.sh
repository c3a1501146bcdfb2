#!/usr/bin/env bash
# Measures `zeader sync` against a real FreshRSS (../shared/servers/freshrss): the first sync
# of FEEDS feeds x ITEMS items, then a sync with nothing new. Prints wall time, zeader's own
# CPU time, peak RSS (GNU time) and the number of requests (zeader's summary line).
#
#   scripts/sync-scale.sh [ZEADER_BINARY] [FEEDS] [ITEMS]     (default .build/release/zeader 200 100)
#
# Needs php (see the FreshRSS README), python3 and /usr/bin/time. Subscribing FreshRSS to
# the feeds (it fetches each) takes a few minutes; the sync itself is what is timed.
set -euo pipefail
cd "$(dirname "$0")/.."
zeader=$(realpath "${1:-.build/release/zeader}"); feeds=${2:-200}; items=${3:-100}
freshrss=$(realpath ../shared/servers/freshrss/freshrss.sh)
work=$(mktemp -d); trap 'kill $http_pid 2>/dev/null; "$freshrss" stop "$work/fr"; rm -rf "$work"' EXIT
feed_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
api_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir "$work/feeds"
python3 - "$work/feeds" "$feeds" "$items" "$feed_port" <<'PY'
import sys
out, feeds, items, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
for f in range(feeds):
    body = "".join(
        f"<item><guid>f{f}-i{i}</guid><title>Feed {f} item {i}</title><link>http://127.0.0.1:{port}/f{f}/{i}</link>"
        f"<pubDate>Mon, 23 Nov 2026 {i // 60 % 24:02d}:{i % 60:02d}:00 GMT</pubDate><description>&lt;p&gt;Item {i} of "
        f"feed {f}: some text, a &lt;b&gt;bold&lt;/b&gt; word and a longer sentence.&lt;/p&gt;</description></item>"
        for i in range(items))
    open(f"{out}/f{f}.xml", "w").write(f'<?xml version="1.0"?><rss version="2.0"><channel><title>Feed {f}</title>'
                                       f'<link>http://127.0.0.1:{port}/f{f}/</link>{body}</channel></rss>')
PY
(cd "$work/feeds" && exec python3 -m http.server "$feed_port" --bind 127.0.0.1 >/dev/null 2>&1) & http_pid=$!
eval "$("$freshrss" start "$work/fr" "$api_port" 3600)"
auth=$(curl -s -X POST "$FRESHRSS_API/accounts/ClientLogin" -d "Email=$FRESHRSS_USER&Passwd=$FRESHRSS_PASSWORD" | sed -n 's/^Auth=//p')
token=$(curl -s -H "Authorization: GoogleLogin auth=$auth" "$FRESHRSS_API/reader/api/0/token")
pids=()
for f in $(seq 0 $((feeds - 1))); do
  curl -s -X POST -H "Authorization: GoogleLogin auth=$auth" "$FRESHRSS_API/reader/api/0/subscription/quickadd" \
    --data-urlencode "quickadd=http://127.0.0.1:$feed_port/f$f.xml" -d "T=$token" >/dev/null & pids+=($!)
  if (( ${#pids[@]} == 4 )); then wait "${pids[@]}"; pids=(); fi
done
(( ${#pids[@]} == 0 )) || wait "${pids[@]}"
export ZEADER_SYNC_PASSWORD=$FRESHRSS_PASSWORD
"$zeader" --db "$work/z.sqlite" sync add "$FRESHRSS_API" --user "$FRESHRSS_USER" >/dev/null
for run in first no-op; do
  /usr/bin/time -f "$run sync: wall %e s, zeader CPU %U+%S s, peak RSS %M KB" "$zeader" --db "$work/z.sqlite" sync
done
