import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Adding a feed has one implementation: `zeader add` and the reader's preview both go
/// through ``FeedSubscription``; a previewed feed is stored exactly as a refresh stores it.
@Suite struct FeedSubscriptionTests {
    func feedFile(_ items: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zs-\(UUID().uuidString.prefix(8)).xml")
        try Data(#"<rss version="2.0"><channel><title>Kept</title>\#(items)</channel></rss>"#.utf8).write(to: file)
        return file
    }

    @Test func aKeptPreviewIsWhatARefreshWouldStore() async throws {
        let file = try feedFile(
            "<item><guid>a</guid><title>A</title></item><item><guid></guid><title>No id</title><link>http://x/1</link></item>")
        defer { try? FileManager.default.removeItem(at: file) }
        let store = try ZeaderStore.inMemory()
        let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: "test"))
        let input = await FeedPreview.fetch(file.absoluteString, with: fetcher)
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let preview = try FeedPreview(url: file.absoluteString, input: input, store: store)
            #expect(preview.title == "Kept" && preview.itemCount == 2)
            #expect(try Server.count(in: context) == 0)  // nothing saved while the preview waits
            try preview.keep()
            #expect(try FeedItem.count(in: context) == 2)
        }
        // A refresh of the kept feed finds every item already stored, under the same guids.
        let summary = try await FeedRefresher(store: store).refresh(urls: [file.absoluteString])
        #expect(summary.failures.isEmpty)
        #expect(summary.progress.newItems == 0)
        #expect(try context.performAndWait { try FeedItem.count(in: context) } == 2)
    }

    @Test func aDiscardedPreviewLeavesNothing() async throws {
        let file = try feedFile("<item><guid>a</guid><title>A</title></item>")
        defer { try? FileManager.default.removeItem(at: file) }
        let store = try ZeaderStore.inMemory()
        let input = await FeedPreview.fetch(
            file.absoluteString, with: FeedFetcher(configuration: FetcherConfiguration(version: "t")))
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            try FeedPreview(url: file.absoluteString, input: input, store: store).discard()
            #expect(try Server.count(in: context) == 0 && FeedItem.count(in: context) == 0)
        }
    }

    @Test func aMissingFileIsAFetchFailureNamingIt() async throws {
        let url = "file:///nonexistent/zeader-feed.xml"
        let store = try ZeaderStore.inMemory()
        let input = await FeedPreview.fetch(url, with: FeedFetcher(configuration: FetcherConfiguration(version: "t")))
        _ = store.container.viewContext.performAndWait {
            #expect {
                try FeedPreview(url: url, input: input, store: store)
            } throws: { error in
                guard case .feedUnavailable(.fetch) = error as? ZeaderError else { return false }
                return "\(error)".contains("/nonexistent/zeader-feed.xml")
            }
        }
    }

    @Test func theCommandLineAndThePreviewRefuseTheSameURLs() async throws {
        let store = try ZeaderStore.inMemory()
        let library = FeedLibrary(store: store)
        try library.add(url: "https://example.org/feed")
        #expect(throws: ZeaderError.alreadySubscribed("https://example.org/feed")) {
            try library.add(url: " https://example.org/feed ")
        }
        #expect(throws: ZeaderError.invalidURL("ftp://x", reason: "unsupported scheme 'ftp' (expected http, https or file)")) {
            try library.add(url: "ftp://x")
        }
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            #expect(try FeedSubscription.isSubscribed("https://example.org/feed", in: context))
            #expect(throws: ZeaderError.alreadySubscribed("https://example.org/feed")) {
                try FeedSubscription.add(url: "https://example.org/feed", in: context)
            }
        }
    }
}
