import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Synchronization
import Testing

@testable import Feeds
@testable import ZeaderKit

/// An enclosure whose name a feed chose never stops the queue, and a download never takes
/// another episode's bytes.
@Suite("Podcasts: hostile names and shared names")
struct PodcastDownloadSafetyTests {
    /// A character carrying 150 combining marks: 301 bytes in one grapheme.
    static let heavy = "e" + String(repeating: "\u{301}", count: 150)

    static func feed(_ base: URL, title: String, episodes: [(guid: String, path: String)]) -> String {
        var xml = #"<?xml version="1.0"?><rss version="2.0"><channel><title>\#(title)</title>"#
        for episode in episodes {
            xml += "<item><title>Episode \(episode.guid)</title><guid>\(episode.guid)</guid>"
            xml += #"<enclosure url="\#(base.absoluteString)\#(episode.path)" type="audio/mpeg" length="300000"/></item>"#
        }
        return xml + "</channel></rss>"
    }

    static let first = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 / 3) })
    static let second = Data(first.map { $0 ^ 0xA5 })

    func scratchFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-podsafe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func settings(_ folder: URL) -> PodcastSettings {
        var settings = PodcastSettings()
        settings.downloadPath = folder.path
        return settings
    }

    @Test("names are total: heavy extensions, graphemes past the limit, all-extension names, empty results")
    func namesAreTotal() {
        let inputs = [
            "ep." + Self.heavy + Self.heavy,  // an "extension" of 2 characters and 603 bytes
            "." + Self.heavy + Self.heavy,
            String(repeating: "x", count: 190) + "." + Self.heavy,
            "a" + String(repeating: "\u{301}", count: 600),  // one grapheme over the limit
            String(repeating: "é", count: 150) + "." + String(repeating: "漢", count: 8),
            String(repeating: " ", count: 300) + "." + String(repeating: ".", count: 300),
            String(repeating: "🏳️‍🌈", count: 40) + ".mp3",
        ]
        for input in inputs {
            for name in [
                PodcastFileName.episode(url: "https://x.example/" + input, title: nil),
                PodcastFileName.episode(url: "https://x.example/", title: input),
            ] {
                PodcastNameFuzzTests.checkComponent(name, from: input)
            }
            PodcastNameFuzzTests.checkComponent(PodcastFileName.folder(input), from: input, isEpisode: false)
        }
        #expect(PodcastFileName.episode(url: "https://x.example/ep.mp3.part", title: nil) == "ep.mp3.part_")
        #expect(PodcastFileName.numbered("a.mp3", 2) == "a (2).mp3")
        #expect(PodcastFileName.numbered("a." + Self.heavy, 3) == "a." + Self.heavy + " (3)")
    }

    @Test("a queue with a heavy-named episode and a feed whose folder cannot be made still downloads the rest")
    func oneBadEpisodeBlocksNothing() async throws {
        let routes = Routes()
        let root = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try await withLoopbackServer({ request in
            request.path == "/a" || request.path == "/b" ? routes.handler(request) : .ranged(request, body: Self.first)
        }) { http in
            routes["/a"] = .ok(
                Self.feed(
                    http.url(""), title: "Show." + Self.heavy + Self.heavy,
                    episodes: [("heavy", "/ep." + Self.heavy + Self.heavy), ("plain", "/plain.mp3")]))
            routes["/b"] = .ok(Self.feed(http.url(""), title: "Blocked", episodes: [("blocked", "/blocked.mp3")]))
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            try library.add(url: http.url("/a").absoluteString)
            try library.add(url: http.url("/b").absoluteString)
            _ = try await FeedRefresher(store: store, options: testOptions()).refresh()
            try library.setQueued(true, ids: ["heavy", "plain", "blocked"])
            // A file where the feed's folder would go: that feed's episode cannot be planned.
            try Data().write(to: root.appendingPathComponent("Blocked"))
            let failures = Mutex<[String]>([])
            let downloader = PodcastDownloader(library: library, settings: settings(root), version: "test")
            let report = try await downloader.downloadQueued(jobs: 2) { event in
                if case .failed(let episode, let message) = event { failures.withLock { $0.append("\(episode.id): \(message)") } }
            }
            #expect(report.downloaded == 2 && report.failed == 1)
            let messages = failures.withLock { $0 }
            #expect(messages.count == 1 && messages[0].hasPrefix("blocked: cannot create the download folder "))
            #expect(messages.first?.contains(root.appendingPathComponent("Blocked").path) == true)
            let done = try library.podcasts().filter(\.isDownloaded)
            #expect(Set(done.map(\.id)) == ["heavy", "plain"])
            for episode in done { #expect(try Data(contentsOf: URL(fileURLWithPath: episode.enclosure.file!)) == Self.first) }
        }
    }

    @Test("two feeds titled alike, each with episode.mp3: an interrupted one keeps its part, the other never resumes it")
    func alikeFeedsNeverShareAPartFile() async throws {
        let cutFirst = Mutex(true)
        let routes = Routes()
        let root = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try await withLoopbackServer({ request in
            switch request.path {
            case "/one/episode.mp3":
                let cut = cutFirst.withLock { isFirst in
                    defer { isFirst = false }
                    return isFirst
                }
                return .ranged(request, body: Self.first, cutAfter: cut ? 100_000 : nil)
            case "/two/episode.mp3": return .ranged(request, body: Self.second)
            default: return routes.handler(request)
            }
        }) { http in
            routes["/f1"] = .ok(Self.feed(http.url(""), title: "Show", episodes: [("one", "/one/episode.mp3")]))
            routes["/f2"] = .ok(Self.feed(http.url(""), title: "Show", episodes: [("two", "/two/episode.mp3")]))
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            try library.add(url: http.url("/f1").absoluteString)
            try library.add(url: http.url("/f2").absoluteString)
            _ = try await FeedRefresher(store: store, options: testOptions()).refresh()
            let downloader = PodcastDownloader(library: library, settings: settings(root), version: "test")

            try library.setQueued(true, ids: ["one"])
            let cut = try await downloader.downloadQueued(jobs: 1) { _ in }
            #expect(cut.failed == 1)

            // The first episode leaves the queue for now; the second has the same name.
            try library.setQueued(false, ids: ["one"])
            try library.setQueued(true, ids: ["two"])
            let resumed = Mutex<[Int64]>([])
            let second = try await downloader.downloadQueued(jobs: 1) { event in
                if case .finished(_, _, _, let from) = event { resumed.withLock { $0.append(from) } }
            }
            #expect(second.downloaded == 1 && resumed.withLock { $0 } == [0])
            let two = try #require(try library.podcasts().first { $0.id == "two" }?.enclosure.file)
            #expect(try Data(contentsOf: URL(fileURLWithPath: two)) == Self.second)

            // The first comes back and resumes its own bytes.
            try library.setQueued(true, ids: ["one"])
            let third = try await downloader.downloadQueued(jobs: 1) { event in
                if case .finished(_, _, _, let from) = event { resumed.withLock { $0.append(from) } }
            }
            #expect(third.downloaded == 1 && resumed.withLock { $0 } == [0, 100_000])
            let one = try #require(try library.podcasts().first { $0.id == "one" }?.enclosure.file)
            #expect(one != two)
            #expect(try Data(contentsOf: URL(fileURLWithPath: one)) == Self.first)
            let left = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Show").path)
            #expect(left.allSatisfy { !$0.hasSuffix(".part") && !$0.hasSuffix(".resume") }, "\(left)")
        }
    }
}
