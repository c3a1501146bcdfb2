#!/bin/sh
# Benchmark: `zeader import cache.db` of a newsboat cache with ITEMS items over FEEDS feeds.
# The cache is newsboat 2.21's own schema (Tests/ZeaderKitTests/Fixtures/newsboat-cache.db,
# made by newsboat -x reload) filled by SQL inserts: 1 in 3 items read, 1 in 50 flagged,
# 1 in 100 deleted, HTML content of ~600 bytes.
#   ZEADER=.build/release/zeader ITEMS=100000 FEEDS=200 Tests/e2e/newsboat_import_bench.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ZEADER=${ZEADER:-$here/../../.build/release/zeader}
ITEMS=${ITEMS:-100000}
FEEDS=${FEEDS:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/../ZeaderKitTests/Fixtures/newsboat-cache.db" "$work/cache.db"
sqlite3 "$work/cache.db" <<SQL
DELETE FROM rss_item; DELETE FROM rss_feed;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $FEEDS)
INSERT INTO rss_feed (rssurl, url, title) SELECT 'http://127.0.0.1:9/feed' || i || '.xml', 'http://example.org/' || i, 'Feed ' || i FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $ITEMS)
INSERT INTO rss_item (guid, title, author, url, feedurl, pubDate, content, unread, flags, deleted)
SELECT 'guid-' || i, 'Item ' || i || ' about something', 'Author ' || (i % 37), 'http://example.org/item/' || i,
  'http://127.0.0.1:9/feed' || (i % $FEEDS + 1) || '.xml', 1700000000 + i * 60,
  '<p>Paragraph <b>' || i || '</b> of an article with <a href="http://example.org/' || i || '">a link</a>. ' || substr(hex(randomblob(200)), 1, 400) || '</p><p>More text &amp; entities &eacute;.</p>',
  CASE WHEN i % 3 = 0 THEN 0 ELSE 1 END, CASE WHEN i % 50 = 0 THEN 'I' ELSE NULL END, CASE WHEN i % 100 = 0 THEN 1 ELSE 0 END
FROM n;
SQL
echo "cache: $(du -h "$work/cache.db" | cut -f1), $ITEMS items, $FEEDS feeds"
/usr/bin/time -v "$ZEADER" import "$work/cache.db" --db "$work/z.sqlite" 2>"$work/time" >"$work/out"
cat "$work/out"
grep -E "Elapsed|Maximum resident|User time|System time" "$work/time"
/usr/bin/time -f "again: %e s, %M KB" "$ZEADER" import "$work/cache.db" --db "$work/z.sqlite"
echo "store: $(du -h "$work/z.sqlite" | cut -f1), wal: $(du -h "$work/z.sqlite-wal" 2>/dev/null | cut -f1)"
