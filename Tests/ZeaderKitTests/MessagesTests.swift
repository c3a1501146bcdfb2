import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Errors are data; `Messages.swift` words them, one line each, naming what is at fault.
@Suite struct MessagesTests {
    @Test(arguments: [
        (ZeaderError.invalidURL("x", reason: "no host"), "invalid feed URL 'x': no host"),
        (.alreadySubscribed("http://a/"), "already subscribed: http://a/"),
        (.notSubscribed("http://a/"), "not subscribed: http://a/"),
        (.unreadableFile(path: "/f", reason: "empty"), "/f: empty"),
        (.invalidPredicate("column 3"), "invalid --where predicate: column 3"),
        (
            .cannotCreateFolder(path: "/ro/z", reason: "Permission denied"),
            "cannot create the store's folder /ro/z: Permission denied"
        ),
        (.invalidSmartPredicate("column 1"), "invalid --smart predicate: column 1"),
        (.smartFeedNeedsTitle, "a smart feed needs a --title"),
        (.smartFeedExists("Swift"), "a smart feed named 'Swift' exists already"),
        (.noItemsNamed(flagging: false), "name the items to unflag: their ids, or --feed URL"),
        (.noSuchItem(id: "7", feed: "http://a/"), "no item with id '7' in http://a/"),
        (.notAFeedInStore("http://a/"), "http://a/ is not a feed in this store"),
        (.feedUnavailable(.invalidURL("y")), "y: invalid URL"),
        (
            .unknownSortField("size-asc"),
            "unknown sort order 'size-asc' (one of: date, title, author, feed, flags, link, guid, optionally -asc or -desc)"
        ),
        (.unknownSortDirection("up", order: "title-up"), "unknown sort direction 'up' in 'title-up' (asc or desc)"),
        (.sync(.noAccount), "no sync account (add one with `zeader sync add API_URL --user NAME`)"),
        (
            .sync(.invalidAPIURL("ftp://x")),
            "invalid sync API URL 'ftp://x': give the server's Google Reader API URL, http or https (for FreshRSS https://HOST/api/greader.php)"
        ),
        (
            .syncFailed(.sync(.server(status: 500, request: "subscription/list")), pending: 2, localFeeds: nil),
            "the sync failed: the sync server answered HTTP 500 to subscription/list; changes not yet pushed are kept, "
                + "run `zeader sync` again later; the 2 changes made here are kept for the next sync"
        ),
        (.password(.commandPrintedNothing), "--password-command printed no password"),
        (.password(.commandFailed(.signalled(9))), "--password-command failed (killed by signal 9)"),
        (.password(.commandOutputTooLarge(limit: 10)), "--password-command printed more than 10 bytes"),
        (.password(.commandCouldNotRun(reason: "no shell")), "--password-command could not run: no shell"),
        (
            .password(.noTerminal),
            "no terminal to ask for the password: set $ZEADER_SYNC_PASSWORD or use --password-command"
        ),
        (.password(.noneGiven), "no password given"),
        (.noEnclosure(id: "e1"), "item 'e1' has no enclosure to download"),
        (.notQueued(id: "e1"), "'e1' is not in the podcast queue"),
        (.noPlayer, "no player configured (add a line such as 'player mpv' to the config file)"),
        (.notDownloaded(id: "e1"), "'e1' is not downloaded yet (zeader podcasts download)"),
        (.cannotRun(.cannotRun(program: "mpv", reason: "not found")), "cannot run mpv: not found"),
        (.backupFromStandardInput, "a JSON backup must be given as a file (it is read in place and can be resumed)"),
        (.urlsWithoutNewsboatCache(path: "f.opml"), "--urls and --queue go with a newsboat cache.db, and f.opml is not one"),
        (.invalidItemID(" ", .empty), "invalid item id ' ': empty (ids are as `zeader items --json` prints them)"),
        (
            .invalidItemID("greader:x", .notAServerNumber),
            "invalid item id 'greader:x': greader: needs the sync server's item number (1 to 18446744073709551615) "
                + "(ids are as `zeader items --json` prints them)"
        ),
        (.invalidIgnoreRuleNumber(0), "ignore rules are numbered from 1, not 0 (see `zeader ignore list`)"),
        (.notTheFileAsked(path: "/p.jpg", reason: "not OPML"), "/p.jpg: not OPML"),
        (.storeIsAFolder(path: "/d"), "the store /d is a folder; --db names the store's file (such as /d/zeader.sqlite)"),
        (.cancelled, "cancelled"),
        (.unexpected(type: "Swift.DecodingError", detail: "bad"), "unexpected error (Swift.DecodingError): bad"),
    ])
    func zeaderErrorWording(error: ZeaderError, text: String) {
        #expect(error.description == text)
    }

    /// What the user typed or left out exits 2; what failed (network, store, server, a file,
    /// a program, something named that is not there) exits 1.
    @Test(arguments: [
        (ZeaderError.invalidURL("x", reason: "no host"), true),
        (.invalidPredicate("column 3"), true),
        (.invalidIgnoreRule("column 1"), true),
        (.invalidSmartPredicate("column 1"), true),
        (.smartFeedNeedsTitle, true),
        (.noItemsNamed(flagging: true), true),
        (.unknownSortField("size"), true),
        (.unknownSortDirection("up", order: "title-up"), true),
        (.sync(.invalidAPIURL("ftp://x")), true),
        (.password(.noTerminal), true),
        (.password(.noneGiven), true),
        (.backupFromStandardInput, true),
        (.notTheFileAsked(path: "/p.jpg", reason: "not OPML"), true),
        (.storeIsAFolder(path: "/d"), true),
        (.store(.notADatabase(path: "/notes.txt")), true),
        (.store(.damaged(path: "/z", detail: "page 3")), false),
        (.invalidItemID("", .empty), true),
        (.invalidItemID("tag:google.com,2005:reader/item/xyz", .notSixteenHexDigits), true),
        (.invalidIgnoreRuleNumber(-3), true),
        (.urlsWithoutNewsboatCache(path: "f.opml"), true),
        (.alreadySubscribed("http://a/"), false),
        (.notSubscribed("http://a/"), false),
        (.unreadableFile(path: "/f", reason: "empty"), false),
        (.predicateTimedOut(seconds: 5), false),
        (.store(.readOnlyStore(path: "/z")), false),
        (.cannotCreateFolder(path: "/ro", reason: "denied"), false),
        (.cannotCreateDownloadFolder(path: "/ro", reason: "denied"), false),
        (.smartFeedExists("Swift"), false),
        (.noSuchItem(id: "7", feed: nil), false),
        (.notAFeedInStore("http://a/"), false),
        (.feedUnavailable(.invalidURL("y")), false),
        (.noSuchIgnoreRule(3), false),
        (.sync(.noAccount), false),
        (.sync(.loginRefused(user: "u", url: "http://a/")), false),
        (.syncFailed(.sync(.invalidAPIURL("x")), pending: 0, localFeeds: nil), false),
        (.password(.commandFailed(.exited(1))), false),
        (.password(.commandPrintedNothing), false),
        (.noEnclosure(id: "e1"), false),
        (.notQueued(id: "e1"), false),
        (.noPlayer, false),
        (.notDownloaded(id: "e1"), false),
        (.cannotRun(.emptyCommand), false),
        (.cancelled, false),
        (.unexpected(type: "T", detail: "d"), false),
    ])
    func usageErrorsAreTheUsersInput(error: ZeaderError, isUsage: Bool) {
        #expect(error.isUsageError == isUsage, "\(error)")
    }

    @Test func wrappingKeepsTheKind() throws {
        let url = try #require(URL(string: "http://a.example/feed"))
        #expect(ZeaderError.wrapping(SyncError.noAccount) == .sync(.noAccount))
        #expect(
            ZeaderError.wrapping(FetchError.httpStatus(500, url: url)) == .feedUnavailable(.fetch(.httpStatus(500, url: url))))
        #expect(ZeaderError.wrapping(CancellationError()) == .cancelled)
        #expect(ZeaderError.wrapping(ObjectGraphError.readOnlyStore(path: "/z")) == .store(.readOnlyStore(path: "/z")))
        struct Odd: Error {}
        guard case .unexpected(let type, _) = ZeaderError.wrapping(Odd()) else {
            Issue.record("an unknown error is .unexpected")
            return
        }
        #expect(type.hasSuffix("Odd"))
    }

    @Test func refreshFailuresNameTheFeed() throws {
        let url = try #require(URL(string: "http://a.example/feed"))
        #expect(RefreshFailure.fetch(.httpStatus(404, url: url)).description.contains("http://a.example/feed"))
        #expect(RefreshFailure.parse(FeedParseError(.empty, url: url)).description == "http://a.example/feed: empty document")
        #expect(
            RefreshFailure.movedToSubscribedFeed(url: "http://a/", target: "http://b/").description
                == "http://a/: moved permanently to http://b/, which is already subscribed")
        #expect(
            RefreshFailure.store(url: "http://a/", .store(.readOnlyStore(path: "/z"))).description
                == "http://a/: cannot store the feed: the store /z is read-only: it can be listed and read, not changed")
    }

    @Test func goneHasOneWording() throws {
        let store = try ZeaderStore.inMemory()
        let id = try store.container.viewContext.performAndWait { () throws -> ObjectID in
            let server = store.container.viewContext.insert(Server.self)
            server.url = "http://a/"
            try store.container.viewContext.save()
            return server.objectID
        }
        let result = FeedRefreshResult(serverID: id, url: "http://a/", status: .gone)
        #expect(result.problem == "http://a/: HTTP 410 Gone; the feed is disabled")
        #expect(result.problem == Messages.gone(url: "http://a/"))
    }
}
