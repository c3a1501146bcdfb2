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
    ])
    func zeaderErrorWording(error: ZeaderError, text: String) {
        #expect(error.description == text)
    }

    @Test func refreshFailuresNameTheFeed() throws {
        let url = try #require(URL(string: "http://a.example/feed"))
        #expect(RefreshFailure.fetch(.httpStatus(404, url: url)).description.contains("http://a.example/feed"))
        #expect(RefreshFailure.parse(FeedParseError(.empty, url: url)).description == "http://a.example/feed: empty document")
        #expect(
            RefreshFailure.movedToSubscribedFeed(url: "http://a/", target: "http://b/").description
                == "http://a/: moved permanently to http://b/, which is already subscribed")
        #expect(
            RefreshFailure.store(url: "http://a/", .other("disk full")).description
                == "http://a/: cannot store the feed: disk full")
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
