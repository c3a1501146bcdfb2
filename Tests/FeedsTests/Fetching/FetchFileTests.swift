import Foundation
import Testing

@testable import Feeds

@Suite("FeedFetcher: file URLs")
struct FetchFileTests {
    private func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-fetch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func readsAFileAndReportsItUnchangedNextTime() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("feed.xml")
        try Data("<rss/>".utf8).write(to: file)
        let fetcher = makeTestFetcher()
        let first = await fetcher.fetch(FeedRequest(url: file))
        #expect(first.body == Data("<rss/>".utf8))
        let stamp = try #require(first.metadata?.lastModified)
        #expect(HTTPHeaderValues.parseHTTPDate(stamp) != nil)
        let second = await fetcher.fetch(FeedRequest(url: file, lastModified: stamp))
        guard case .notModified = second else {
            Issue.record("expected notModified, got \(second)")
            return
        }
        let stale = await fetcher.fetch(FeedRequest(url: file, lastModified: "Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(stale.body == Data("<rss/>".utf8))
    }

    @Test func missingFileIsNamed() async throws {
        let missing = URL(fileURLWithPath: "/nonexistent-zeader-\(UUID().uuidString)/feed.xml")
        let outcome = await makeTestFetcher().fetch(FeedRequest(url: missing))
        #expect(outcome == .failed(.fileNotFound(missing)))
        #expect(outcome.error?.description.contains(missing.path) == true)
    }

    @Test func directoryIsUnreadable() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = await makeTestFetcher().fetch(FeedRequest(url: directory))
        #expect(outcome == .failed(.fileUnreadable(directory, message: "is a directory")))
    }

    @Test func fileOverTheCapIsRefused() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.xml")
        try Data(repeating: 0x41, count: 2000).write(to: file)
        let outcome = await makeTestFetcher(maxBodySize: 1000).fetch(FeedRequest(url: file))
        #expect(outcome == .failed(.tooLarge(url: file, limit: 1000)))
    }

    @Test func endlessDeviceIsCutAtTheCap() async throws {
        let zero = URL(fileURLWithPath: "/dev/zero")
        let outcome = await makeTestFetcher(maxBodySize: 200_000).fetch(FeedRequest(url: zero))
        #expect(outcome == .failed(.tooLarge(url: zero, limit: 200_000)))
    }
}
