#!/usr/bin/env bash
# Measures `zeader sync` per service against real servers: FreshRSS (../shared/servers/freshrss)
# through its Google Reader API and its Fever API, and Tiny Tiny RSS (scripts/ttrss-server.sh).
# For each: the first sync of FEEDS feeds x ITEMS items into a new store, then a sync with
# nothing new, and a plain `zeader refresh` (no account) of the same feeds into another new
# store, which then joins the account (its history matched to the server's items, checked for
# twins). Prints one table row per measurement: wall time, zeader's own CPU time (user+system)
# and its share of the wall time, peak RSS (GNU time), the requests (zeader's summary line) and
# the load average when it ended (other work on the machine stretches wall time, not CPU time).
#
#   scripts/sync-scale.sh [ZEADER_BINARY] [FEEDS] [ITEMS]     (default .build/release/zeader 200 100)
#   RUNS=3 scripts/sync-scale.sh                               (each measurement 3 times)
#   SERVICES="greader fever" scripts/sync-scale.sh             (default: greader fever ttrss)
#   REPLAY=ttrss scripts/sync-scale.sh                         (also a first sync answered from a
#                                                              recording of one: zeader's CPU without
#                                                              the service's, scripts/sync-replay.py)
#
# Needs php (see the FreshRSS README), python3, curl and /usr/bin/time; ttrss needs what
# `scripts/ttrss-server.sh check` asks for (skipped, saying so, without it). Subscribing the
# servers to the feeds (each fetches them) takes a few minutes; only zeader's commands are timed.
set -euo pipefail
cd "$(dirname "$0")/.."
zeader=$(realpath "${1:-.build/release/zeader}"); feeds=${2:-200}; items=${3:-100}; runs=${RUNS:-1}
services=${SERVICES:-greader fever ttrss}
[ -x "$zeader" ] || { echo "sync-scale: no zeader binary at $zeader (swift build -c release)" >&2; exit 2; }
replayed=${REPLAY:-}
[ -x /usr/bin/time ] || { echo "sync-scale: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
freshrss=$(realpath ../shared/servers/freshrss/freshrss.sh)
ttrss=$(realpath scripts/ttrss-server.sh)
work=$(mktemp -d)
http_pid=
replay_pids=()
cleanup() {
  [ -n "$http_pid" ] && kill "$http_pid" 2>/dev/null
  ((${#replay_pids[@]} == 0)) || kill "${replay_pids[@]}" 2>/dev/null
  "$freshrss" stop "$work/fr" || true
  [ -d "$work/tt" ] && "$ttrss" shutdown "$work/tt" || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
feed_port=$(free_port)
api_port=$(free_port)
mkdir "$work/feeds"
python3 - "$work/feeds" "$feeds" "$items" "$feed_port" <<'PY'
import sys
out, feeds, items, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
outlines = []
for f in range(feeds):
    body = "".join(
        f"<item><guid>f{f}-i{i}</guid><title>Feed {f} item {i}</title><link>http://127.0.0.1:{port}/f{f}/{i}</link>"
        f"<pubDate>Mon, 23 Nov 2026 {i // 60 % 24:02d}:{i % 60:02d}:00 GMT</pubDate><description>&lt;p&gt;Item {i} of "
        f"feed {f}: some text, a &lt;b&gt;bold&lt;/b&gt; word and a longer sentence.&lt;/p&gt;</description></item>"
        for i in range(items))
    open(f"{out}/f{f}.xml", "w").write(f'<?xml version="1.0"?><rss version="2.0"><channel><title>Feed {f}</title>'
                                       f'<link>http://127.0.0.1:{port}/f{f}/</link>{body}</channel></rss>')
    outlines.append(f'<outline type="rss" text="Feed {f}" xmlUrl="http://127.0.0.1:{port}/f{f}.xml"/>')
open(f"{out}/feeds.opml", "w").write('<?xml version="1.0"?><opml version="2.0"><head><title>scale</title></head><body>'
                                     + "".join(outlines) + "</body></opml>")
PY
(cd "$work/feeds" && exec python3 -m http.server "$feed_port" --bind 127.0.0.1 >/dev/null 2>&1) &
http_pid=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$feed_port/f0.xml" >/dev/null && break; sleep 0.1; done
eval "$("$freshrss" start "$work/fr" "$api_port" 7200)"
auth=$(curl -s -X POST "$FRESHRSS_API/accounts/ClientLogin" -d "Email=$FRESHRSS_USER&Passwd=$FRESHRSS_PASSWORD" |
  sed -n 's/^Auth=//p')
[ -n "$auth" ] || { echo "sync-scale: FreshRSS refused the login" >&2; exit 1; }
token=$(curl -s -H "Authorization: GoogleLogin auth=$auth" "$FRESHRSS_API/reader/api/0/token")
echo "subscribing FreshRSS to $feeds feeds of $items items (it fetches each)..." >&2
pids=()
for f in $(seq 0 $((feeds - 1))); do
  curl -s -X POST -H "Authorization: GoogleLogin auth=$auth" "$FRESHRSS_API/reader/api/0/subscription/quickadd" \
    --data-urlencode "quickadd=http://127.0.0.1:$feed_port/f$f.xml" -d "T=$token" >/dev/null &
  pids+=($!)
  if ((${#pids[@]} == 4)); then wait "${pids[@]}"; pids=(); fi
done
((${#pids[@]} == 0)) || wait "${pids[@]}"
held=$(curl -s -H "Authorization: GoogleLogin auth=$auth" \
  "$FRESHRSS_API/reader/api/0/stream/items/ids?s=user/-/state/com.google/reading-list&n=100000" |
  python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("itemRefs") or []))')
echo "FreshRSS holds $held items" >&2

# Tiny Tiny RSS: its own user subscribed to the same feeds through its JSON API, then made to
# fetch them (update.php).
if [[ " $services " == *" ttrss "* ]]; then
  # PostgreSQL runs as its own user, which must reach the cluster's folder in $work (mktemp: 0700).
  chmod 755 "$work"
  if "$ttrss" check 2>/dev/null && started=$("$ttrss" start "$work/tt" auto 7200); then
    eval "$started"
    echo "subscribing Tiny Tiny RSS to $feeds feeds (it fetches each)..." >&2
    python3 - "$TTRSS_API" "$TTRSS_USER" "$TTRSS_PASSWORD" "$feed_port" "$feeds" <<'PY'
import json, sys, urllib.request
api, user, password, port, feeds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
def call(op, **fields):
    body = json.dumps({"op": op, **fields}).encode()
    return json.load(opener.open(urllib.request.Request(api, body, {"Content-Type": "application/json"})))
sid = call("login", user=user, password=password)["content"]["session_id"]
for f in range(feeds):
    call("subscribeToFeed", sid=sid, feed_url=f"http://127.0.0.1:{port}/f{f}.xml")
PY
    "$ttrss" refresh "$work/tt" >/dev/null
  else
    echo "sync-scale: Tiny Tiny RSS cannot run here: ttrss skipped" >&2
    services=${services//ttrss/}
  fi
fi

export HOME=$work   # no user config: no killfile
printf '| %-7s | %-22s | %7s | %17s | %9s | %9s | %8s | %5s |\n' service what "wall s" "CPU s (u+s)" "CPU/wall" "peak MB" requests load
printf '|%s|\n' "---------|------------------------|---------|-------------------|-----------|-----------|----------|-------"
# measure SERVICE LABEL COMMAND...: runs the command under GNU time and prints one row.
measure() {
  local service=$1 label=$2; shift 2
  /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$@" >"$work/out" 2>"$work/err" ||
    { echo "sync-scale: $service $label failed: $(cat "$work/err")" >&2; exit 1; }
  read -r wall user sys rss <"$work/time"
  local requests load
  requests=$(sed -n 's/.*(\([0-9]*\) requests).*/\1/p' "$work/out"); requests=${requests:--}
  load=$(cut -d' ' -f1 /proc/loadavg)
  python3 - "$service" "$label" "$wall" "$user" "$sys" "$rss" "$requests" "$load" <<'PY'
import sys
service, label, wall, user, sys_, rss, requests, load = sys.argv[1:]
wall, cpu = float(wall), float(user) + float(sys_)
print(f"| {service:<7} | {label:<22} | {wall:7.2f} | {cpu:5.2f} ({float(user):.2f}+{float(sys_):.2f}) | "
      f"{100 * cpu / max(wall, 0.01):8.1f}% | {int(rss) / 1024:9.1f} | {requests:>8} | {load:>5} |")
PY
}
total() { "$zeader" --db "$1" list --json | python3 -c 'import json,sys; print(sum(f["total"] for f in json.load(sys.stdin)))'; }
# add_account SERVICE STORE: the service's account on STORE.
api_of() {
  case $1 in
  greader) echo "$FRESHRSS_API" ;;
  fever) echo "${FRESHRSS_API%greader.php}fever.php" ;;
  ttrss) echo "$TTRSS_API" ;;
  esac
}
# add_account SERVICE STORE [ORIGIN]: the account at the service's API, or at the same path on ORIGIN.
add_account() {
  local api user password
  api=$(api_of "$1")
  [ -z "${3:-}" ] || api=$3/${api#http://*/}
  case $1 in
  greader | fever) user=$FRESHRSS_USER password=$FRESHRSS_PASSWORD ;;
  ttrss) user=$TTRSS_USER password=$TTRSS_PASSWORD ;;
  esac
  ZEADER_SYNC_PASSWORD=$password "$zeader" --db "$2" sync add "$api" --user "$user" >/dev/null
}
# A first sync of each REPLAY service recorded through scripts/sync-replay.py, then answered
# from the recording by a replay server at replay_origin[SERVICE].
declare -A replay_origin
for service in $replayed; do
  [[ " $services " == *" $service "* ]] || continue
  port=$(free_port)
  upstream=$(api_of "$service" | sed -E 's|^(http://[^/]*)/.*|\1|')
  python3 scripts/sync-replay.py record "$upstream" "$port" "$work/replay-$service.pickle" &
  recorder=$!
  for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
  add_account "$service" "$work/record-$service.sqlite" "http://127.0.0.1:$port"
  "$zeader" --db "$work/record-$service.sqlite" sync >/dev/null
  kill "$recorder"
  wait "$recorder" || true
  python3 scripts/sync-replay.py replay "$port" "$work/replay-$service.pickle" &
  replay_pids+=($!)
  replay_origin[$service]=http://127.0.0.1:$port
  for _ in $(seq 1 50); do curl -s -o /dev/null "${replay_origin[$service]}/" && break; sleep 0.1; done
done
for run in $(seq 1 "$runs"); do
  plain=$work/refresh-$run.sqlite
  "$zeader" --db "$plain" import "$work/feeds/feeds.opml" >/dev/null
  measure all "refresh (no account)" "$zeader" --db "$plain" refresh
  for service in $services; do
    store=$work/sync-$service-$run.sqlite
    add_account "$service" "$store"
    measure "$service" "first sync" "$zeader" --db "$store" sync
    measure "$service" "no-op sync" "$zeader" --db "$store" sync
    if [ -n "${replay_origin[$service]:-}" ]; then
      replay=$work/replay-$service-$run.sqlite
      add_account "$service" "$replay" "${replay_origin[$service]}"
      measure "$service" "first sync, replayed" "$zeader" --db "$replay" sync
    fi
    synced=$(total "$store")
    [ "$synced" = "$held" ] || echo "sync-scale: $service: the first sync stored $synced items, FreshRSS holds $held" >&2
    # A refreshed store joins the account: its history matched to the server's items.
    joining=$work/join-$service-$run.sqlite
    for suffix in "" -wal -shm; do [ ! -e "$plain$suffix" ] || cp "$plain$suffix" "$joining$suffix"; done
    add_account "$service" "$joining"
    measure "$service" "join with history" "$zeader" --db "$joining" sync
    joined=$(total "$joining")
    [ "$joined" = "$synced" ] || echo "sync-scale: $service: the joined store has $joined items, a first sync $synced (twins?)" >&2
  done
done
