import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// podboat's view in the reader: `P` opens the podcast queue, its rows follow `podlist-format`,
/// and podboat's actions (and the config's `bind-key … podboat` lines) act on the episode selected.
@Suite(.serialized) struct ReaderPodcastQueueTests {
    static let episodeTitle = "Café talk: Swift and ncurses"

    /// Queues the demo's podcast (Swift on Linux, its last item) and opens the queue.
    func queueTheEpisodeAndOpenTheQueue(_ h: Harness) -> String {
        h.type(.down, .enter, .end, .character("e"))
        return h.type(.character("P"))
    }

    func episodeID(_ h: Harness) throws -> ObjectID {
        try h.queue.sync {
            let context = h.store.container.viewContext
            return try #require(try FeedItem.findFirst(byAttribute: "title", value: Self.episodeTitle, in: context)).objectID
        }
    }

    func queued(_ h: Harness) throws -> [PodcastEpisode] {
        try h.queue.sync { try PodcastQueue.episodes(in: h.store.container.viewContext) }
    }

    /// Changes the stored episode (its enclosure's URL, its downloaded file) as a download or a feed would.
    func change(_ h: Harness, _ body: @escaping (FeedItem) -> Void) throws {
        let id = try episodeID(h)
        try h.queue.sync {
            let context = h.store.container.viewContext
            let item = try #require(try context.existingObject(with: id) as? FeedItem)
            body(item)
            try context.save()
        }
    }

    /// Waits (without a time limit that a slow machine would miss) until `done` holds, or gives up.
    /// It sleeps without holding a thread of the cooperative pool, where the download's task runs.
    func wait(_ h: Harness, until done: () throws -> Bool) async rethrows -> Bool {
        for _ in 0..<600 {
            if try done() { return true }
            try? await Task.sleep(for: .milliseconds(50))
            _ = h.settle()
        }
        return false
    }

    @Test func pOpensTheQueueWithPodboatsRowsAndQClosesIt() throws {
        let h = try Harness(width: 160)
        let screen = queueTheEpisodeAndOpenTheQueue(h)
        #expect(screen.contains("Queue (0 downloads in progress, 1 total)"), "\(screen)")
        // podboat's default podlist-format.
        #expect(screen.contains("   1 [   0.0MB/"), "\(screen)")
        #expect(screen.contains("queued"))
        #expect(screen.contains("https://swift-linux.example/media/cafe-talk.mp3 ->"), "\(screen)")
        #expect(h.queue.sync { h.app.state.keyView } == .podboat)
        h.type(.character("q"))
        #expect(h.queue.sync { h.app.state.screen } == .items)
    }

    @Test func podlistFormatShapesTheRows() throws {
        let config = try ReaderConfig.parse("podlist-format \"%i|%-8S|%u|%b|%p%%\"\n", file: "c")
        let h = try Harness(config: config)
        let screen = queueTheEpisodeAndOpenTheQueue(h)
        #expect(screen.contains("1|queued  |https://swift-linux.example/media/cafe-talk.mp3||0.0%"), "\(screen)")
    }

    @Test func dInTheQueueTakesTheEpisodeOutAndDStillDeletesItemsInTheList() throws {
        let h = try Harness()
        _ = queueTheEpisodeAndOpenTheQueue(h)
        var screen = h.type(.character("D"))
        #expect(screen.contains("Took \(Self.episodeTitle) out of the queue (z puts it back)"), "\(screen)")
        #expect(try queued(h).isEmpty)
        #expect(screen.contains("Queue (0 downloads in progress, 0 total)"))
        // An empty queue: the episode's actions say so.
        #expect(h.type(.character("d")).contains("The podcast queue is empty"))
        screen = h.type(.character("z"))
        #expect(try queued(h).map(\.title) == [Self.episodeTitle])
        #expect(screen.contains("Queue (0 downloads in progress, 1 total)"), "\(screen)")
        // Back in the item list, D deletes the item as newsboat's does.
        screen = h.type(.character("q"), .character("D"))
        #expect(screen.contains("Deleted '\(Self.episodeTitle)'"), "\(screen)")
    }

    @Test func playRunsThePlayerOnTheDownloadedFileThenFinishedAndPurged() throws {
        let effects = RecordingEffects()
        var config = try ReaderConfig.parse("player \"mpv --no-video\"\n", file: "c")
        config.browser = "true"
        let h = try Harness(config: config, effects: effects)
        _ = queueTheEpisodeAndOpenTheQueue(h)
        // Not downloaded: said so, nothing runs.
        #expect(h.type(.character("p")).contains("\(Self.episodeTitle) is not downloaded yet (d downloads it)"))
        #expect(effects.programs.isEmpty)
        #expect(h.type(.character("m")).contains("only a played episode can be marked finished"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-episode-\(UUID()).mp3")
        try Data("ID3".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try change(h) { $0.enclosureFile = file.path }
        var screen = h.type(.character("p"))
        #expect(effects.programs.map(\.argv) == [["mpv", "--no-video", file.path]])
        #expect(screen.contains("Played \(file.path)"), "\(screen)")
        #expect(screen.contains(" played "), "\(screen)")
        screen = h.type(.character("m"))
        #expect(screen.contains(" finished "), "\(screen)")
        // ENTER plays too.
        h.type(.enter)
        #expect(effects.programs.count == 2)
        h.type(.character("m"))
        screen = h.type(.character("P"))
        #expect(screen.contains("Took 1 finished episode out of the queue"), "\(screen)")
        #expect(try queued(h).isEmpty)
    }

    @Test func aBoundKeyDownloadsTheEpisodeIntoDownloadPath() async throws {
        let body = Data((0..<40_000).map { UInt8($0 % 251) })
        let server = try LoopbackHTTPServer { _ in
            .respond(status: 200, headers: [("Content-Type", "audio/mpeg")], body: body)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-podcasts-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try ReaderConfig.parse(
            "download-path \"\(folder.path)\"\nbind-key x pb-download\nmax-downloads 2\n", file: "c")
        let h = try Harness(config: config)
        try change(h) { $0.enclosureURL = server.url("/episode.mp3").absoluteString }
        _ = queueTheEpisodeAndOpenTheQueue(h)
        #expect(h.type(.character("c")).contains("is not downloading"))
        h.type(.character("x"))
        let downloaded = try await wait(h) { try queued(h).first?.isDownloaded == true }
        #expect(downloaded)
        let episode = try #require(try queued(h).first)
        let file = try #require(episode.enclosure.file)
        #expect(file.hasPrefix(folder.path))
        #expect(FileManager.default.contents(atPath: file) == body)
        let ready = await wait(h) { h.screen.contains(" ready ") }
        #expect(ready, "\(h.screen)")
        #expect(h.screen.contains("Queue (0 downloads in progress, 1 total) - 2 parallel downloads"), "\(h.screen)")
        #expect(h.type(.character("x")).contains("is downloaded already"))
        // podboat's numbers of downloads at a time, and automatic download.
        #expect(h.type(.character("+")).contains("3 downloads at a time"))
        #expect(h.type(.character("-"), .character("-"), .character("-")).contains("1 download at a time"))
        #expect(h.type(.character("a")).contains("Downloading every queued episode, 1 at a time"))
        #expect(h.type(.character("a")).contains("Automatic download off"))
    }

    @Test func cCancelsTheRunningDownload() async throws {
        let server = try LoopbackHTTPServer { _ in
            .trickle(chunk: Data(repeating: 7, count: 512), interval: 0.2, count: 3000)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-podcasts-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try ReaderConfig.parse("download-path \"\(folder.path)\"\n", file: "c")
        let h = try Harness(config: config)
        try change(h) { $0.enclosureURL = server.url("/slow.mp3").absoluteString }
        _ = queueTheEpisodeAndOpenTheQueue(h)
        h.type(.character("d"))
        let downloading = await wait(h) { h.screen.contains(" downloading ") }
        #expect(downloading, "\(h.screen)")
        #expect(h.type(.character("D")).contains("is downloading: c cancels it first"))
        let screen = h.type(.character("c"))
        #expect(screen.contains("Canceled \(Self.episodeTitle) (d resumes it)"), "\(screen)")
        let ended = await wait(h) { h.queue.sync { h.app.podcastDownloads.tasks.isEmpty } }
        #expect(ended)
        #expect(h.screen.contains(" canceled "), "\(h.screen)")
        #expect(try queued(h).first?.isDownloaded == false)
    }
}
