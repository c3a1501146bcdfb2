import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing

@testable import Feeds

/// A part file is continued only with its own bytes: its record names the URL, `If-Range`
/// carries the validator, and any mismatch starts the download over.
@Suite("FeedFetcher: a part file resumes only its own download")
struct DownloadResumeTests {
    /// Two files of the same length whose bytes differ everywhere, so a splice shows.
    static let first = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 251) })
    static let second = Data(first.map { $0 ^ 0x5A })

    func scratchPart() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("episode.mp3.part")
    }

    /// `body` as a server with validators serves it: a `Range` gets 206 unless `If-Range`
    /// names another copy (then 200 with the whole file); `ignoresIfRange` answers 206 all
    /// the same, as a careless server does. `cutAfter` closes after that many body bytes.
    static func validated(
        _ request: LoopbackHTTPServer.Request, body: Data, etag: String? = nil, lastModified: String? = nil,
        ignoresIfRange: Bool = false, cutAfter: Int? = nil
    ) -> LoopbackHTTPServer.Reply {
        var start = 0
        let ifRange = request.headers["if-range"]
        let current = ifRange == nil || ifRange == etag || ifRange == lastModified
        if let range = request.headers["range"], range.hasPrefix("bytes="), ignoresIfRange || current,
            let first = Int(range.dropFirst(6).prefix(while: \.isNumber)), first < body.count
        {
            start = first
        }
        var head = start > 0 ? "HTTP/1.1 206 Partial Content\r\n" : "HTTP/1.1 200 OK\r\n"
        if start > 0 { head += "Content-Range: bytes \(start)-\(body.count - 1)/\(body.count)\r\n" }
        if let etag { head += "ETag: \(etag)\r\n" }
        if let lastModified { head += "Last-Modified: \(lastModified)\r\n" }
        head += "Accept-Ranges: bytes\r\nContent-Length: \(body.count - start)\r\nConnection: close\r\n\r\n"
        let rest = body.subdata(in: start..<body.count)
        return .raw(Data(head.utf8) + (cutAfter.map { rest.prefix($0) } ?? rest))
    }

    /// Downloads `/a.mp3` cut after 100,000 bytes (served by `firstReply`), then again served
    /// by `secondReply`; returns the second outcome and the requests the server saw.
    func interruptedThenAgain(
        firstReply: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply,
        secondReply: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply,
        secondPath: String = "/a.mp3", part: URL
    ) async throws -> (DownloadOutcome, [LoopbackHTTPServer.Request]) {
        let isFirst = Mutex(true)
        return try await withLoopbackServer({ request in
            isFirst.withLock { $0 } ? firstReply(request) : secondReply(request)
        }) { server in
            let fetcher = makeTestFetcher()
            let cut = await fetcher.download(server.url("/a.mp3"), to: part)
            guard case .failed(.incompleteBody) = cut else {
                Issue.record("expected an interrupted download, got \(cut)")
                return (cut, [])
            }
            #expect(DownloadResumeRecord.read(forPartFile: part)?.url == server.url("/a.mp3").absoluteString)
            isFirst.withLock { $0 = false }
            let outcome = await fetcher.download(server.url(secondPath), to: part)
            return (outcome, server.requests)
        }
    }

    @Test func aChangedFileIsSentWholeThroughIfRangeAndRestarts() async throws {
        let part = try scratchPart()
        defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
        let (outcome, requests) = try await interruptedThenAgain(
            firstReply: { Self.validated($0, body: Self.first, etag: #""v1""#, cutAfter: 100_000) },
            secondReply: { Self.validated($0, body: Self.second, etag: #""v2""#) }, part: part)
        #expect(outcome == .completed(bytes: Int64(Self.second.count), resumedFrom: 0))
        #expect(requests.last?.headers["range"] == "bytes=100000-")
        #expect(requests.last?.headers["if-range"] == #""v1""#)
        #expect(try Data(contentsOf: part) == Self.second)
        #expect(DownloadResumeRecord.read(forPartFile: part) == nil)  // complete: nothing to resume
    }

    @Test func aPartialAnswerFromAnotherCopyIsRefusedAndTheDownloadRestarts() async throws {
        for (old, new) in [(#""v1""#, #""v2""#), (#"W/"v1""#, #"W/"v2""#)] {
            let part = try scratchPart()
            defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
            let (outcome, requests) = try await interruptedThenAgain(
                firstReply: { Self.validated($0, body: Self.first, etag: old, cutAfter: 100_000) },
                secondReply: { Self.validated($0, body: Self.second, etag: new, ignoresIfRange: true) }, part: part)
            #expect(outcome == .completed(bytes: Int64(Self.second.count), resumedFrom: 0), "\(old)")
            #expect(requests.map { $0.headers["range"] } == [nil, "bytes=100000-", nil], "\(old)")
            #expect(try Data(contentsOf: part) == Self.second, "\(old)")
        }
    }

    @Test func aChangedDateRestartsWhenThereIsNoETag() async throws {
        let part = try scratchPart()
        defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
        let then = "Mon, 01 Jan 2024 00:00:00 GMT"
        let (outcome, requests) = try await interruptedThenAgain(
            firstReply: { Self.validated($0, body: Self.first, lastModified: then, cutAfter: 100_000) },
            secondReply: {
                Self.validated($0, body: Self.second, lastModified: "Tue, 02 Jan 2024 00:00:00 GMT", ignoresIfRange: true)
            }, part: part)
        #expect(requests.dropFirst().first?.headers["if-range"] == then)
        #expect(outcome == .completed(bytes: Int64(Self.second.count), resumedFrom: 0))
        #expect(try Data(contentsOf: part) == Self.second)
    }

    @Test func anUnchangedFileResumesWithIfRange() async throws {
        let part = try scratchPart()
        defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
        let (outcome, requests) = try await interruptedThenAgain(
            firstReply: { Self.validated($0, body: Self.first, etag: #""v1""#, cutAfter: 100_000) },
            secondReply: { Self.validated($0, body: Self.first, etag: #""v1""#) }, part: part)
        #expect(outcome == .completed(bytes: Int64(Self.first.count), resumedFrom: 100_000))
        #expect(requests.last?.headers["if-range"] == #""v1""#)
        #expect(try Data(contentsOf: part) == Self.first)
    }

    @Test func aPartOfAnotherURLStartsOverWithoutARange() async throws {
        let part = try scratchPart()
        defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
        let (outcome, requests) = try await interruptedThenAgain(
            firstReply: { Self.validated($0, body: Self.first, cutAfter: 100_000) },
            secondReply: { Self.validated($0, body: Self.second) }, secondPath: "/b.mp3", part: part)
        #expect(outcome == .completed(bytes: Int64(Self.second.count), resumedFrom: 0))
        #expect(requests.last?.headers["range"] == nil)
        #expect(try Data(contentsOf: part) == Self.second)
    }

    @Test func aPartWithoutARecordOrWithAnUnreadableOneStartsOver() async throws {
        for record in [nil, Data("{not json".utf8)] {
            let part = try scratchPart()
            defer { try? FileManager.default.removeItem(at: part.deletingLastPathComponent()) }
            try Self.second.prefix(100_000).write(to: part)
            if let record { try record.write(to: DownloadResumeRecord.location(forPartFile: part)) }
            try await withLoopbackServer({ Self.validated($0, body: Self.first) }) { server in
                let outcome = await makeTestFetcher().download(server.url("/a.mp3"), to: part)
                #expect(outcome == .completed(bytes: Int64(Self.first.count), resumedFrom: 0))
                #expect(server.requests.map { $0.headers["range"] } == [nil])
            }
            #expect(try Data(contentsOf: part) == Self.first)
        }
    }
}
