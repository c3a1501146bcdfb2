#!/usr/bin/env bash
# A real Tiny Tiny RSS server (Debian's tt-rss package, its JSON API at /api/) on PostgreSQL, on
# the loopback address only, for the sync tests. Everything it makes lives in DIR: a copy of the
# web tree, its config.php, a throwaway PostgreSQL cluster listening on a socket in DIR only.
#
#   ttrss-server.sh install                  install what is missing (apt-get, no questions asked)
#   ttrss-server.sh check                    exit 3, saying what, when something is missing
#   ttrss-server.sh start DIR PORT [LIFE_S]  make the cluster, the database and the user, serve on
#                                            127.0.0.1:PORT (auto: a free one); prints TTRSS_URL
#                                            TTRSS_API (…/api/) TTRSS_USER TTRSS_PASSWORD TTRSS_PID
#   ttrss-server.sh add-user DIR NAME        another user (NAME-password-1), API allowed; prints
#                                            TTRSS_USER TTRSS_PASSWORD
#   ttrss-server.sh disable-api DIR NAME     take the user's API access away
#   ttrss-server.sh refresh DIR              make the server fetch its feeds now
#   ttrss-server.sh expire-sessions DIR      forget every API session (a stale session_id)
#   ttrss-server.sh stop DIR                 stop the web server (the database keeps running)
#   ttrss-server.sh serve DIR PORT [LIFE_S]  serve again after stop (a server coming back)
#   ttrss-server.sh shutdown DIR             stop the web server and the database
#
# Both stop by themselves after LIFE_S seconds (default 600). `start` says what is missing and
# exits 3 when it cannot run (no tt-rss, PostgreSQL or php-pgsql), so a test can skip with that.
set -euo pipefail
USER_NAME=alice
PASSWORD=alice-password-1
WWW=/usr/share/tt-rss/www
SCHEMA=/usr/share/tt-rss/schema/ttrss_schema_pgsql.sql
PACKAGES=(tt-rss php-pgsql php-cli php-cgi dbconfig-no-thanks postgresql)
export PHP_CLI_SERVER_WORKERS=${PHP_CLI_SERVER_WORKERS:-4} # parallel requests
# tt-rss fetches feeds and icons with libcurl: anything not on the loopback address goes to a
# closed local port, so the server never reaches a host off this machine
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9
export ALL_PROXY=http://127.0.0.1:9 all_proxy=http://127.0.0.1:9 no_proxy=127.0.0.1,localhost,::1 NO_PROXY=127.0.0.1,localhost,::1

pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

# PostgreSQL and tt-rss's update.php refuse to run as root: as root, they run as the system's
# users for them.
as_db() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
web=(); if [ "$(id -u)" = 0 ]; then web=(runuser -u www-data --); fi

need() {
  local missing=()
  [ -f "$WWW/api/index.php" ] || missing+=(tt-rss)
  [ -n "$(pgbin)" ] || missing+=(postgresql)
  command -v php >/dev/null || missing+=(php-cli)
  command -v php >/dev/null && ! { php -m 2>/dev/null | grep -ix pdo_pgsql >/dev/null; } && missing+=(php-pgsql)
  ((${#missing[@]} == 0)) || { echo "ttrss: not installed: ${missing[*]} (run: $0 install)" >&2; exit 3; }
}

psql_in() { as_db "$(pgbin)/psql" -X -q -v ON_ERROR_STOP=1 -h "$1/sock" -d ttrss -U ttrss "${@:2}"; }

# A user (tt-rss's MODE2 hash: sha256 of salt and password) with API access allowed.
add_user() {
  psql_in "$1" >>"$1/install.log" 2>&1 <<SQL || { echo "ttrss: adding user $2 failed, see $1/install.log" >&2; exit 1; }
insert into ttrss_users (login, pwd_hash, salt, access_level)
  values ('$2', 'MODE2:' || encode(sha256(convert_to('salt1' || '$3', 'UTF8')), 'hex'), 'salt1', 0);
insert into ttrss_user_prefs (owner_uid, pref_name, value)
  select id, 'ENABLE_API_ACCESS', 'true' from ttrss_users where login = '$2';
SQL
}

cmd=${1:-}; dir=${2:-}
[ "$cmd" = install ] || [ "$cmd" = check ] || { [ -n "$cmd" ] && [ -n "$dir" ]; } || { sed -n '2,22p' "$0" >&2; exit 2; }
case $cmd in
check) need ;;
install)
  # tt-rss's package would set up a database of the system's through dbconfig: say no, the
  # tests make their own; --no-install-recommends keeps Apache out (php -S serves it)
  echo 'tt-rss tt-rss/dbconfig-install boolean false' | debconf-set-selections
  export DEBIAN_FRONTEND=noninteractive
  # apt reaches its mirror through the machine's own settings, not the closed port above
  unset http_proxy https_proxy HTTPS_PROXY ALL_PROXY all_proxy
  apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" ||
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}"; } ;;
start)
  port=${3:?port}; life=${4:-600}
  need
  if [ "$port" = auto ]; then
    # the first port from a random start that nothing answers on
    port=$((20000 + RANDOM % 20000))
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  fi
  mkdir -p "$dir"; dir=$(cd "$dir" && pwd)
  chmod 711 "$dir"
  # the web tree, copied so that its config.php (found as ../config.php from api/) is this one
  cp -a "$WWW" "$dir/www"
  # the package's relative links (lib/gettext → ../../../php/…) point at the system's copies
  (cd "$WWW" && find . -type l) | while read -r link; do
    ln -sfn "$(readlink -f "$WWW/$link")" "$dir/www/$link"
  done
  rm -f "$dir/www/config.php" "$dir/www/feed-icons"
  mkdir -p "$dir/www/feed-icons" "$dir/lock" "$dir/cache"/{images,upload,export,feeds}
  # tt-rss fetches only from ports 80 and 443 off the loopback address, and this snapshot's
  # build_url drops a URL's port (mended upstream later); the tests' feeds are served on loopback
  # ports (its outgoing requests still go nowhere else: see http_proxy)
  sed -i -e 's/if (\$extended_filtering) {/if (false \&\& $extended_filtering) {/' \
    -e 's/strpos(\$\(fetch_effective_\)\{0,1\}ip_addr, "127.") === 0/false/' \
    -e "s/\\\$tmp = \\\$parts\['scheme'\] \. \":\/\/\" \. \\\$parts\['host'\];/&  if (isset(\$parts['port'])) \$tmp .= ':' . \$parts['port'];/" \
    "$dir/www/classes/urlhelper.php"
  [ "$(id -u)" = 0 ] && chown -R www-data "$dir/www/feed-icons" "$dir/lock" "$dir/cache"
  sed -e "s|include_once('/etc/tt-rss/database.php');|\$dbtype='pgsql'; \$dbserver='$dir/sock'; \$dbport='5432'; \$dbuser='ttrss'; \$dbname='ttrss'; \$dbpass='';|" \
    -e "s|'%SELF_URL_PATH'|'http://127.0.0.1:$port/'|" \
    -e "s|'/var/lib/tt-rss'|'$dir/lock'|" -e "s|'/var/cache/tt-rss'|'$dir/cache'|" \
    -e "s|define('CHECK_FOR_UPDATES', true)|define('CHECK_FOR_UPDATES', false)|" \
    -e "s|define('LOG_DESTINATION', 'syslog')|define('LOG_DESTINATION', '')|" \
    /etc/tt-rss/config.php >"$dir/www/config.php"
  # the cluster: owned by the user PostgreSQL runs as, on a socket in DIR only, no fsync
  mkdir -p "$dir/pg" "$dir/sock"
  [ "$(id -u)" = 0 ] && chown postgres "$dir/pg" "$dir/sock"
  as_db "$(pgbin)/initdb" -D "$dir/pg" -U ttrss -A trust --no-sync -E UTF8 >"$dir/install.log" 2>&1 ||
    { echo "ttrss: initdb failed, see $dir/install.log" >&2; exit 1; }
  as_db "$(pgbin)/pg_ctl" -D "$dir/pg" -l "$dir/sock/pg.log" -w -o \
    "-k $dir/sock -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >>"$dir/install.log" 2>&1 || { echo "ttrss: PostgreSQL did not start, see $dir/sock/pg.log" >&2; exit 1; }
  # the database stops with the lifetime too, even when no one calls stop
  setsid bash -c "sleep $life; as() { if [ \$(id -u) = 0 ]; then runuser -u postgres -- \"\$@\"; else \"\$@\"; fi; }; as '$(pgbin)/pg_ctl' -D '$dir/pg' -m immediate stop" \
    </dev/null >/dev/null 2>&1 &
  echo $! >"$dir/db-watch.pid"
  as_db "$(pgbin)/createdb" -h "$dir/sock" -U ttrss ttrss >>"$dir/install.log" 2>&1
  psql_in "$dir" -f "$SCHEMA" >>"$dir/install.log" 2>&1 ||
    { echo "ttrss: schema failed, see $dir/install.log" >&2; exit 1; }
  add_user "$dir" "$USER_NAME" "$PASSWORD"
  exec "$0" serve "$dir" "$port" "$life" ;;
add-user)
  # a user of one test's own: tests sharing one server do not see each other's feeds
  name=${3:?name}
  [[ $name =~ ^[a-z0-9_-]+$ ]] || { echo "ttrss: user names here are [a-z0-9_-]+" >&2; exit 2; }
  add_user "$dir" "$name" "$name-password-1"
  echo "TTRSS_USER=$name"
  echo "TTRSS_PASSWORD=$name-password-1" ;;
disable-api)
  name=${3:?name}
  psql_in "$dir" -c "update ttrss_user_prefs set value = 'false' where pref_name = 'ENABLE_API_ACCESS'
    and owner_uid = (select id from ttrss_users where login = '$name')" >/dev/null ;;
serve)
  port=${3:?port}; life=${4:-600}
  need
  dir=$(cd "$dir" && pwd)
  [ -f "$dir/www/config.php" ] || { echo "ttrss: nothing installed in $dir (use start)" >&2; exit 1; }
  setsid timeout "$life" "${web[@]}" php -S "127.0.0.1:$port" -t "$dir/www" >>"$dir/server.log" 2>&1 </dev/null &
  echo $! >"$dir/server.pid"
  for _ in $(seq 1 100); do
    if curl -sf "http://127.0.0.1:$port/api/" -d '{"op":"login","user":"'$USER_NAME'","password":"'$PASSWORD'"}' |
        grep -q '"status":0'; then
      echo "TTRSS_URL=http://127.0.0.1:$port/"
      echo "TTRSS_API=http://127.0.0.1:$port/api/"
      echo "TTRSS_USER=$USER_NAME"
      echo "TTRSS_PASSWORD=$PASSWORD"
      echo "TTRSS_PID=$(cat "$dir/server.pid")"
      exit 0
    fi
    sleep 0.1
  done
  echo "ttrss: server did not answer on 127.0.0.1:$port, see $dir/server.log" >&2; exit 1 ;;
refresh)
  # every feed due now, then fetched (update.php skips feeds fetched within their interval)
  # and its copies of feeds fetched in the last minutes (which it reads instead) forgotten
  psql_in "$dir" -c "update ttrss_feeds set last_updated = null, last_update_started = null" >/dev/null
  rm -f "$dir/cache/feeds/"*
  (cd "$dir/www" && "${web[@]}" php update.php --feeds --quiet 2>&1 | tail -3) || true ;;
expire-sessions)
  psql_in "$dir" -c "delete from ttrss_sessions" >/dev/null ;;
stop)
  # php -S's workers share its process group, whose leader is `timeout`
  if [ -f "$dir/server.pid" ]; then kill -- -"$(cat "$dir/server.pid")" 2>/dev/null || true; fi ;;
shutdown)
  if [ -f "$dir/server.pid" ]; then kill -- -"$(cat "$dir/server.pid")" 2>/dev/null || true; fi
  as_db "$(pgbin)/pg_ctl" -D "$dir/pg" -m immediate stop >/dev/null 2>&1 || true
  if [ -f "$dir/db-watch.pid" ]; then kill -- -"$(cat "$dir/db-watch.pid")" 2>/dev/null || true; fi ;;
*) sed -n '2,22p' "$0" >&2; exit 2 ;;
esac
