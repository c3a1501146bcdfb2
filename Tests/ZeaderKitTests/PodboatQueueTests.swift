import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing

@testable import ZeaderKit

/// podboat's queue file into the podcast queue: the real queues (Fixtures/newsboat-podcast) read
/// whole, episodes matched by enclosure, downloaded files kept only inside the download folder,
/// and every hostile path refused with a message, never taken.
@Suite struct PodboatQueueTests {
    static let folder = Bundle.module.url(forResource: "Fixtures/newsboat-podcast", withExtension: nil)!

    @Test(arguments: ["001", "002", "003", "004", "005"])
    func everyRealQueueReadsWhole(name: String) throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent("\(name).queue"), encoding: .utf8)
        let (entries, problems) = PodboatQueue.parse(text)
        #expect(problems.isEmpty)
        #expect(entries.count == text.split(separator: "\n").count)
        #expect(entries.allSatisfy { $0.url.hasPrefix("http") && $0.path?.hasPrefix("/home/") == true })
    }

    @Test func statesAndQuotedPathsAsPodboatWritesThem() throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent("004.queue"), encoding: .utf8)
        #expect(PodboatQueue.parse(text).entries.map(\.state) == [.downloaded, .played])
        let quoted = try String(contentsOf: Self.folder.appendingPathComponent("005.queue"), encoding: .utf8)
        #expect(
            PodboatQueue.parse(quoted).entries.first?.path == "/home/djwilcox/downloads/Everything Black and White/media.mp3")
        let (entries, problems) = PodboatQueue.parse(
            "https://c.example/1.mp3 \"/p/a \\\"b\\\".mp3\" finished\nhttps://c.example/2.mp3 \"/p/2.mp3\" lost\nftp://c.example/3\n\n"
        )
        #expect(entries.map(\.state) == [.downloaded, .queued])
        #expect(entries.first?.path == "/p/a \"b\".mp3")
        #expect(problems == [.unknownState(line: 2, "lost"), .notAnEpisodeURL(line: 3, "ftp://c.example/3")])
    }

    /// A store with one feed whose items have the enclosures `urls`.
    static func library(enclosures urls: [String]) throws -> FeedLibrary {
        let library = FeedLibrary(store: try ZeaderStore.inMemory())
        let context = library.store.container.viewContext
        try context.performAndWait {
            let server = try FeedSubscription.add(url: "https://cast.example/feed", title: "Cast", in: context)
            let parsed = urls.enumerated().map { ParsedItem(id: "e\($0.offset)", title: "Episode \($0.offset)") }
            _ = try ItemImport.upsert(parsed, into: server, in: context, now: Date())
            for item in server.feedItems { item.enclosureURL = urls[Int(item.guid.dropFirst())!] }
            try context.save()
        }
        return library
    }

    @Test func hostilePathsAreRefusedWithAMessageAndNeverTaken() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("podboat-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let downloads = base.appendingPathComponent("podcasts")
        try FileManager.default.createDirectory(at: downloads.appendingPathComponent("Cast"), withIntermediateDirectories: true)
        let good = downloads.appendingPathComponent("Cast/1.mp3").path
        try Data("mp3".utf8).write(to: URL(fileURLWithPath: good))
        let outside = base.appendingPathComponent("secret").path
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside))
        // A symbolic link inside the folder that points out of it.
        try FileManager.default.createSymbolicLink(
            atPath: downloads.appendingPathComponent("Cast/link.mp3").path, withDestinationPath: outside)
        let urls = (1...9).map { "https://cast.example/\($0).mp3" }
        let library = try Self.library(enclosures: urls)
        let queue = base.appendingPathComponent("queue")
        let lines = [
            "\(urls[0]) \"\(good)\" downloaded",
            "\(urls[1]) \"\(downloads.path)/Cast/../../secret\" downloaded",
            "\(urls[2]) \"\(outside)\" played",
            "\(urls[3]) \"\(downloads.path)/Cast/link.mp3\" downloaded",
            "\(urls[4]) \"\(downloads.path)/Cast/\u{1B}]0;x\u{07}.mp3\" downloaded",
            "\(urls[5]) \"Cast/1.mp3\" downloaded",
            "\(urls[6]) \"/anywhere/6.mp3\"",
            "\(urls[7]) \"\(downloads.path)/../x.mp3\"",
            "https://elsewhere.example/9.mp3 \"/p/9.mp3\"",
        ]
        try lines.joined(separator: "\n").write(to: queue, atomically: true, encoding: .utf8)
        let report = try library.importPodboatQueue(from: queue, downloadFolder: downloads)
        let root = downloads.resolvingSymlinksInPath().path
        #expect(report.queued == 8)
        #expect(report.filesKept == 1)
        #expect(
            report.problems == [
                .refusedPath(line: 2, path: "\(downloads.path)/Cast/../../secret", .parentFolder),
                .refusedPath(line: 3, path: outside, .outside(folder: root)),
                .refusedPath(line: 4, path: "\(downloads.path)/Cast/link.mp3", .outside(folder: root)),
                .refusedPath(line: 5, path: "\(downloads.path)/Cast/\u{1B}]0;x\u{07}.mp3", .controlCharacter),
                .refusedPath(line: 6, path: "Cast/1.mp3", .relative),
                .refusedPath(line: 8, path: "\(downloads.path)/../x.mp3", .parentFolder),
                .notInAnyFeed(line: 9, url: "https://elsewhere.example/9.mp3"),
            ])
        let episodes = try library.podcasts()
        #expect(episodes.count == 8)
        #expect(episodes.compactMap(\.enclosure.file) == [URL(fileURLWithPath: good).resolvingSymlinksInPath().path])
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "keep")
        // Every message names the file and line, and says the episode is queued again.
        let message = Messages.podboatQueueProblem(report.problems[1], source: "queue")
        #expect(
            message
                == "queue:3: the file \"\(outside)\" is not used: it is outside download-path (\(root)); the episode is queued to download again"
        )
        // Imported twice, nothing changes.
        let again = try library.importPodboatQueue(from: queue, downloadFolder: downloads)
        #expect(again.queued == 0 && again.alreadyQueued == 8 && again.filesKept == 0)
    }

    @Test("zeader import cache.db takes the queue beside it, with a report")
    func importOfACacheTakesItsQueue() async throws {
        let routes = try newsboatFixtureRoutes()
        try await withLoopbackServer(routes.handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let base = http.url("").absoluteString
            _ = try await newsboatFixtureCache("newsboat-cache", in: dir, base: base)
            try newsboatURLs(port: base).write(to: dir.appendingPathComponent("urls"), atomically: true, encoding: .utf8)
            let downloads = dir.appendingPathComponent("casts")
            try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
            try writeConfig("download-path \"\(downloads.path)\"\n", in: dir)
            let file = downloads.appendingPathComponent("2.mp3").path
            try Data("mp3".utf8).write(to: URL(fileURLWithPath: file))
            try """
            http://example.org/a/2.mp3 "\(file)" downloaded
            http://example.org/gone.mp3 "\(downloads.path)/gone.mp3"
            http://example.org/a/2.mp3 "/etc/../etc/passwd" played

            """.write(to: dir.appendingPathComponent("queue"), atomically: true, encoding: .utf8)
            let db = dir.appendingPathComponent("z.sqlite").path
            let queue = dir.appendingPathComponent("queue").path
            // newsboat's folder: its cache.db, with the urls and queue files beside it.
            var r = try zeader(["import", dir.path, "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(
                r.stdout.hasSuffix(
                    "podcast queue: 1 episode queued from \(queue) (1 already queued, 1 downloaded file kept, 2 not taken)\n"),
                "\(r.stdout)")
            #expect(
                r.stderr.contains(
                    "zeader import: \(queue):2: skipped http://example.org/gone.mp3: no imported item has this enclosure\n"))
            #expect(
                r.stderr.contains(
                    "zeader import: \(queue):3: the file \"/etc/../etc/passwd\" is not used: it goes up a folder (..)"))
            r = try zeader(["podcasts", "list", "--json", "--db", db], in: dir)
            #expect(r.stdout.contains("\"downloaded\":true,\"file\":\"\(file)\""), "\(r.stdout)")
            // podboat's delete-played-files: removing the episode deletes its file, and only a file in download-path.
            try writeConfig("download-path \"\(downloads.path)\"\ndelete-played-files yes\n", in: dir)
            r = try zeader(["podcasts", "remove", "a-2", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: file))
            #expect(FileManager.default.fileExists(atPath: "/etc/passwd"))
            // A folder without newsboat's files is one message.
            let empty = dir.appendingPathComponent("empty")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            r = try zeader(["import", empty.path, "--db", db], in: dir)
            #expect(r.status == 1)
            #expect(r.stderr == "zeader import: \(empty.path) is a folder without newsboat's cache.db or urls\n")
            // --queue names another file; without a cache it is refused.
            r = try zeader(["import", dir.appendingPathComponent("urls").path, "--queue", queue, "--db", db], in: dir)
            #expect(r.status == 2)
            #expect(r.stderr.contains("--urls and --queue go with a newsboat cache.db"))
        }
    }
}
