#!/bin/sh
# Benchmark: `zeader cleanup` of ITEMS read items over FEEDS feeds down to KEEP per feed
# (default 1,000,000 → 200 × 500 = 100,000). The store is filled by `zeader import` of a
# newsboat cache made by SQL inserts into newsboat 2.21's schema (newsboat_import_bench.sh's
# recipe, all items read). Prints time and peak RSS (GNU time) and the largest -wal seen.
#   ZEADER=.build/release/zeader Tests/e2e/cleanup_bench.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ZEADER=${ZEADER:-$here/../../.build/release/zeader}
ITEMS=${ITEMS:-1000000}
FEEDS=${FEEDS:-200}
KEEP=${KEEP:-500}
work=${WORK:-$(mktemp -d)}
cp "$here/../ZeaderKitTests/Fixtures/newsboat-cache.db" "$work/cache.db"
sqlite3 "$work/cache.db" <<SQL
DELETE FROM rss_item; DELETE FROM rss_feed;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $FEEDS)
INSERT INTO rss_feed (rssurl, url, title) SELECT 'http://127.0.0.1:9/feed' || i || '.xml', 'http://example.org/' || i, 'Feed ' || i FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $ITEMS)
INSERT INTO rss_item (guid, title, author, url, feedurl, pubDate, content, unread)
SELECT 'guid-' || i, 'Item ' || i, 'Author ' || (i % 37), 'http://example.org/item/' || i,
  'http://127.0.0.1:9/feed' || (i % $FEEDS + 1) || '.xml', 1700000000 + i * 60,
  '<p>Paragraph ' || i || ' ' || substr(hex(randomblob(100)), 1, 200) || '</p>', 0
FROM n;
SQL
/usr/bin/time -f "import: %e s, peak RSS %M KB" "$ZEADER" import "$work/cache.db" --db "$work/z.sqlite"
rm -f "$work/cache.db"
echo "store before: $(du -h "$work/z.sqlite" | cut -f1)"
: >"$work/wal-sizes"
( while :; do stat -c %s "$work/z.sqlite-wal" 2>/dev/null >>"$work/wal-sizes" || true; sleep 0.2; done ) &
watcher=$!
/usr/bin/time -v "$ZEADER" cleanup --max-items "$KEEP" --db "$work/z.sqlite" 2>"$work/time"
kill $watcher
grep -E "Elapsed|Maximum resident|User time|System time" "$work/time"
echo "largest -wal during cleanup: $(sort -n "$work/wal-sizes" | tail -1) bytes"
echo "items left: $("$ZEADER" items --db "$work/z.sqlite" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"
/usr/bin/time -f "vacuum: %e s, peak RSS %M KB" "$ZEADER" cleanup --max-items "$KEEP" --vacuum --db "$work/z.sqlite"
echo "store after: $(du -h "$work/z.sqlite" | cut -f1)"
[ -n "${WORK:-}" ] || rm -rf "$work"
