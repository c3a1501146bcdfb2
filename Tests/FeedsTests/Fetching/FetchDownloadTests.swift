import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing

@testable import Feeds

/// `FeedFetcher.download`: streamed to a part file, resumed with Range, capped, failing cleanly.
@Suite("FeedFetcher: downloads to a file, resumable")
struct FetchDownloadTests {
    /// 300 KB of bytes that differ with their position, so a resume at the wrong offset shows.
    static let media = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 251) })

    func scratchFile(_ name: String = "episode.mp3.part") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name)
    }

    @Test func aWholeFileIsWrittenToThePartFileWithProgress() async throws {
        let part = try scratchFile()
        defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
        let reports = Mutex<[DownloadProgress]>([])
        try await withLoopbackServer({ .ranged($0, body: Self.media) }) { server in
            let outcome = await makeTestFetcher().download(server.url("/a.mp3"), to: part) { p in
                reports.withLock { $0.append(p) }
            }
            #expect(outcome == .completed(bytes: Int64(Self.media.count), resumedFrom: 0))
            #expect(server.requests.first?.headers["range"] == nil)
            #expect(server.requests.first?.headers["accept-encoding"] == nil)
        }
        #expect(try Data(contentsOf: part) == Self.media)
        let seen = reports.withLock { $0 }
        #expect(seen.first == DownloadProgress(received: 0, total: Int64(Self.media.count)))
        #expect(seen.allSatisfy { $0.total == Int64(Self.media.count) } && seen.count >= 2)
    }

    @Test func anInterruptedDownloadKeepsItsPartAndResumesWithRange() async throws {
        let part = try scratchFile()
        defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
        let first = Mutex(true)
        try await withLoopbackServer({ request in
            let cut = first.withLock { isFirst in
                defer { isFirst = false }
                return isFirst
            }
            return .ranged(request, body: Self.media, cutAfter: cut ? 100_000 : nil)
        }) { server in
            let fetcher = makeTestFetcher()
            let interrupted = await fetcher.download(server.url("/a.mp3"), to: part)
            guard case .failed(.incompleteBody(_, let received, let expected)) = interrupted else {
                Issue.record("expected an incomplete body, got \(interrupted)")
                return
            }
            #expect(received == 100_000 && expected == Int64(Self.media.count))
            let kept = try Data(contentsOf: part)
            #expect(kept == Self.media.prefix(100_000))

            let resumed = await fetcher.download(server.url("/a.mp3"), to: part)
            #expect(resumed == .completed(bytes: Int64(Self.media.count), resumedFrom: 100_000))
            #expect(server.requests.last?.headers["range"] == "bytes=100000-")
        }
        #expect(try Data(contentsOf: part) == Self.media)
    }

    @Test func aServerWithoutRangesRestartsThePartFile() async throws {
        let part = try scratchFile()
        defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
        try Data("stale bytes of another file".utf8).write(to: part)
        try await withLoopbackServer({ .ranged($0, body: Self.media, rangesHonoured: false) }) { server in
            try DownloadResumeRecord(url: server.url("/a.mp3").absoluteString).write(forPartFile: part)
            let outcome = await makeTestFetcher().download(server.url("/a.mp3"), to: part)
            #expect(outcome == .completed(bytes: Int64(Self.media.count), resumedFrom: 0))
            #expect(server.requests.first?.headers["range"] == "bytes=27-")
        }
        #expect(try Data(contentsOf: part) == Self.media)
    }

    @Test func aPartLongerThanTheFileGets416AndOneFreshRequest() async throws {
        let part = try scratchFile()
        defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
        try Data(count: Self.media.count + 10).write(to: part)
        try await withLoopbackServer({ .ranged($0, body: Self.media) }) { server in
            try DownloadResumeRecord(url: server.url("/a.mp3").absoluteString).write(forPartFile: part)
            let outcome = await makeTestFetcher().download(server.url("/a.mp3"), to: part)
            #expect(outcome == .completed(bytes: Int64(Self.media.count), resumedFrom: 0))
            #expect(server.requests.map { $0.headers["range"] } == ["bytes=300010-", nil])
        }
        #expect(try Data(contentsOf: part) == Self.media)
    }

    @Test func aFileOverTheCapIsRefusedBeforeItsBodyAndThePartRemoved() async throws {
        let part = try scratchFile()
        defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
        try await withLoopbackServer({ .ranged($0, body: Self.media) }) { server in
            let url = server.url("/big.mp3")
            let outcome = await makeTestFetcher(maxBodySize: 200_000).download(url, to: part)
            #expect(outcome == .failed(.tooLarge(url: url, limit: 200_000)))
        }
        #expect(!FileManager.default.fileExists(atPath: part.path))
    }

    @Test func aFileWithoutALengthIsCutAtTheCap() async throws {
        let part = try scratchFile()
        defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
        try await withLoopbackServer({ _ in .endless(fullSpeed: true) }) { server in
            let url = server.url("/stream.mp3")
            let outcome = await makeTestFetcher(maxBodySize: 500_000).download(url, to: part)
            #expect(outcome == .failed(.tooLarge(url: url, limit: 500_000)))
        }
        #expect(!FileManager.default.fileExists(atPath: part.path))
    }

    @Test func aMissingFileIsAnHTTPErrorAndWritesNothing() async throws {
        let part = try scratchFile()
        defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
        try await withLoopbackServer({ _ in .status(404) }) { server in
            let url = server.url("/gone.mp3")
            let outcome = await makeTestFetcher().download(url, to: part)
            #expect(outcome == .failed(.httpStatus(404, url: url)))
        }
        #expect(!FileManager.default.fileExists(atPath: part.path))
    }

    @Test func onlyHTTPIsDownloaded() async throws {
        let part = try scratchFile()
        defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
        let url = URL(string: "file:///etc/passwd")!
        #expect(await makeTestFetcher().download(url, to: part) == .failed(.unsupportedScheme(url)))
        #expect(!FileManager.default.fileExists(atPath: part.path))
    }

    @Test func contentRangeIsRead() {
        #expect(DownloadSink.contentRange("bytes 100-199/200")! == (100, 200))
        #expect(DownloadSink.contentRange("bytes 5-9/*")! == (5, nil))
        #expect(DownloadSink.contentRange("items 1-2/3") == nil)
        #expect(DownloadSink.contentRange(nil) == nil)
    }
}
