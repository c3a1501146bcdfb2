#!/usr/bin/env python3
"""fill_store.py - loads a feedgen.py corpus into an existing (empty) Zeader store.

  fill_store.py ZEADER CORPUS_DIR STORE.sqlite [--read-every N]

Each feed file goes through the real parser (`ZEADER parse FILE --base-url URL`), and the
rows are written as ObjectGraph lays them out (Server/FeedItem tables, each item's content in
its own FeedItemBody row with the item's key (model version 4), Z_PRIMARYKEY,
stored derived counts unreadCount/totalCount), so the reader sees what a refresh would
have stored. The store must already exist (start `zeader --db STORE` once): its FTS
triggers then index the items too. Used by the start-up benchmark and the tmux tests
until `zeader import` + `zeader refresh` land.
"""
import argparse
import concurrent.futures
import datetime as dt
import json
import os
import sqlite3
import subprocess
import time


def parse(zeader, path, url):
    out = subprocess.run([zeader, "parse", path, "--base-url", url], check=True, capture_output=True).stdout
    return json.loads(out)


def seconds(value):
    if not value:
        return None
    return dt.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc).timestamp()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("zeader")
    ap.add_argument("corpus")
    ap.add_argument("store")
    ap.add_argument("--read-every", type=int, default=3, help="mark every Nth item read (0: none)")
    args = ap.parse_args()
    files = sorted(f for f in os.listdir(os.path.join(args.corpus, "feeds")) if f.endswith(".xml"))
    urls = ["http://127.0.0.1:8080/feeds/" + f for f in files]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        parsed = list(pool.map(lambda fu: parse(args.zeader, os.path.join(args.corpus, "feeds", fu[0]), fu[1]),
                               zip(files, urls)))
    db = sqlite3.connect(args.store)
    db.execute("PRAGMA journal_mode=WAL")
    now = time.time()
    server_pk = db.execute("SELECT COALESCE(MAX(Z_PK), 0) FROM Server").fetchone()[0]
    item_pk = db.execute("SELECT COALESCE(MAX(Z_PK), 0) FROM FeedItem").fetchone()[0]
    order = db.execute("SELECT COALESCE(MAX(displayOrder), -1) FROM Server").fetchone()[0]
    n = 0
    with db:
        for url, feed in zip(urls, parsed):
            server_pk += 1
            order += 1
            items = []
            seen = set()
            for it in feed["items"]:
                guid = it["id"] or it["link"] or it["title"]
                if guid in seen:
                    continue
                seen.add(guid)
                item_pk += 1
                n += 1
                read = 1 if args.read_every and n % args.read_every == 0 else 0
                published, updated = seconds(it["published"]), seconds(it["updated"])
                items.append((item_pk, guid, it["title"], it["link"], it["author"], it["summary"], it["content"],
                              published, updated, read, now, published or updated or now, server_pk))
            unread = sum(1 for i in items if i[9] == 0)
            db.execute("INSERT INTO Server (Z_PK, title, url, siteLink, unreadCount, totalCount, displayOrder, lastRefresh)"
                       " VALUES (?,?,?,?,?,?,?,?)", (server_pk, feed["title"], url, feed["link"], unread, len(items), order, now))
            db.executemany("INSERT INTO FeedItemBody (Z_PK, content) VALUES (?,?)", [(i[0], i[6]) for i in items])
            db.executemany("INSERT INTO FeedItem (Z_PK, guid, title, link, author, summary, body, published, updated,"
                           " read, firstSeen, sortDate, server) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           [i[:6] + (i[0],) + i[7:] for i in items])
        for entity, pk in (("Server", server_pk), ("FeedItem", item_pk), ("FeedItemBody", item_pk)):
            db.execute("INSERT OR REPLACE INTO Z_PRIMARYKEY (Z_ENTITY, Z_MAX) VALUES (?, ?)", (entity, pk))
    print(f"{len(parsed)} feeds, {n} items")


if __name__ == "__main__":
    main()
