import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Synchronization
import Testing

@testable import ZeaderKit

/// A feed with enclosures: `(guid, enclosure path or nil)`; RSS enclosure, media:content and
/// an Atom-style link are all parsed by Feeds, so RSS enclosures stand for them here.
private func podcastFeed(_ base: URL, _ episodes: [(String, String?)], title: String = "Cast") -> String {
    var xml = #"<?xml version="1.0"?><rss version="2.0"><channel><title>\#(title)</title>"#
    for (guid, path) in episodes {
        xml += "<item><title>Episode \(guid)</title><guid>\(guid)</guid>"
        if let path { xml += #"<enclosure url="\#(base.absoluteString)\#(path)" type="audio/mpeg" length="300000"/>"# }
        xml += "</item>"
    }
    return xml + "</channel></rss>"
}

private let media = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 7) })

@Suite("Podcasts: enclosures stored, queued, downloaded")
struct PodcastTests {
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-podcasts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The object ID of an item saved in a fresh store.
    func anItemID() throws -> ObjectID {
        let store = try makeStore()
        let context = store.container.viewContext
        return try context.performAndWait {
            let server = context.insert(Server.self)
            server.url = "https://x.example/feed"
            let item = context.insert(FeedItem.self)
            item.guid = "g"
            item.server = server
            try context.save()
            return item.objectID
        }
    }

    func settings(_ folder: URL, maxSize: Int64 = 1 << 30) -> PodcastSettings {
        var settings = PodcastSettings()
        settings.downloadPath = folder.path
        settings.maxSize = maxSize
        return settings
    }

    @Test("a refresh stores the enclosure, items --json shows it, and a changed URL forgets the old download")
    func enclosuresAreStoredAndUpdated() async throws {
        let routes = Routes()
        try await withLoopbackServer(routes.handler) { http in
            routes["/feed"] = .ok(podcastFeed(http.url(""), [("e1", "/e1.mp3"), ("plain", nil)]))
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            try library.add(url: http.url("/feed").absoluteString)
            _ = try await FeedRefresher(store: store, options: testOptions()).refresh()
            let items = try library.items(ItemQuery())
            let e1 = try #require(items.first { $0.id == "e1" })
            #expect(
                e1.enclosure == EnclosureSummary(url: http.url("/e1.mp3").absoluteString, type: "audio/mpeg", length: 300_000))
            #expect(items.first { $0.id == "plain" }?.enclosure == nil)
            let json = ItemSummary.json(items)
            #expect(
                json.contains(
                    #""enclosure":{"url":"\#(http.url("/e1.mp3").absoluteString)","type":"audio/mpeg","length":300000,"queued":false,"file":null}"#
                ))
            #expect(json.contains(#""enclosure":null"#))
            #expect(try library.items(ItemQuery(wherePredicate: "enclosureURL != nil")).map(\.id) == ["e1"])

            try library.setQueued(true, ids: ["e1"])
            routes["/feed"] = .ok(podcastFeed(http.url(""), [("e1", "/e1-v2.mp3"), ("plain", nil)]))
            _ = try await FeedRefresher(store: store, options: testOptions()).refresh()
            let queue = try library.podcasts()
            #expect(queue.map(\.enclosure.url) == [http.url("/e1-v2.mp3").absoluteString])
            #expect(queue.first?.enclosure.queued == true)
        }
    }

    @Test("a news feed's media:content pictures are no podcast; a stored picture goes at the next refresh")
    func picturesAreNoEnclosure() async throws {
        let routes = Routes()
        try await withLoopbackServer(routes.handler) { http in
            // As the Guardian's feeds: two sizes of a picture per item, one without a type.
            let pictures = #"""
                <?xml version="1.0"?><rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>News</title>
                <item><title>Story</title><guid>s1</guid>
                <media:content width="140" url="https://i.example/pic/140.jpg"><media:credit>X</media:credit></media:content>
                <media:content width="460" url="https://i.example/pic/460.jpg" medium="image" type="image/jpeg"/></item>
                <item><title>Episode</title><guid>s2</guid>
                <media:content url="https://i.example/pic/ep.jpg" type="image/jpeg"/>
                <media:content url="https://a.example/ep.mp3" medium="audio"/></item>
                </channel></rss>
                """#
            routes["/feed"] = .ok(pictures)
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            try library.add(url: http.url("/feed").absoluteString)
            _ = try await FeedRefresher(store: store, options: testOptions()).refresh()
            var items = try library.items(ItemQuery())
            #expect(items.first { $0.id == "s1" }?.enclosure == nil)
            #expect(items.first { $0.id == "s2" }?.enclosure?.url == "https://a.example/ep.mp3")

            // A picture a store holds as the enclosure is dropped when the feed is read again.
            let context = store.container.newBackgroundContext(name: "test")
            try context.performAndWait {
                let item = try #require(try FeedItem.findAll(in: context).first { $0.guid == "s1" })
                item.enclosureURL = "https://i.example/pic/140.jpg"
                try context.save()
            }
            routes["/feed"] = .ok(
                pictures.replacingOccurrences(of: "<title>Story</title>", with: "<title>Story, updated</title>"))
            _ = try await FeedRefresher(store: store, options: testOptions()).refresh()
            items = try library.items(ItemQuery())
            #expect(items.first { $0.id == "s1" }?.enclosure == nil)
        }
    }

    @Test("queueing an item without an enclosure, or an unknown id, is refused and changes nothing")
    func queueRefusals() async throws {
        let routes = Routes()
        try await withLoopbackServer(routes.handler) { http in
            routes["/feed"] = .ok(podcastFeed(http.url(""), [("e1", "/e1.mp3"), ("plain", nil)]))
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            try library.add(url: http.url("/feed").absoluteString)
            _ = try await FeedRefresher(store: store, options: testOptions()).refresh()
            #expect(throws: ZeaderError.noEnclosure(id: "plain")) {
                try library.setQueued(true, ids: ["e1", "plain"])
            }
            #expect(throws: ZeaderError.noSuchItem(id: "nope", feed: nil)) { try library.setQueued(true, ids: ["nope"]) }
            #expect(try library.podcasts().isEmpty)
            #expect(try library.setQueued(true, ids: ["e1"]) == 1)
            #expect(try library.setQueued(true, ids: ["e1"]) == 0)
            #expect(try library.setQueued(false, ids: ["e1"]) == 1)
            #expect(try library.podcasts().isEmpty)
        }
    }

    @Test(
        "download: an interrupted episode resumes from its .part, a 404 and an oversized one fail, the rest are marked downloaded"
    )
    func downloadQueue() async throws {
        let cutOnce = Mutex(true)
        let routes = Routes()
        try await withLoopbackServer({ request in
            switch request.path {
            case "/cut.mp3":
                let cut = cutOnce.withLock { first in
                    defer { first = false }
                    return first
                }
                return .ranged(request, body: media, cutAfter: cut ? 120_000 : nil)
            case "/whole.mp3", "/big.mp3": return .ranged(request, body: media)
            default: return routes.handler(request)
            }
        }) { http in
            routes["/feed"] = .ok(
                podcastFeed(
                    http.url(""), [("cut", "/cut.mp3"), ("whole", "/whole.mp3"), ("missing", "/missing.mp3")],
                    title: "../Cast\u{1B}[31m"))
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            try library.add(url: http.url("/feed").absoluteString)
            _ = try await FeedRefresher(store: store, options: testOptions()).refresh()
            try library.setQueued(true, ids: ["cut", "whole", "missing"])
            let root = try folder()
            defer { try? FileManager.default.removeItem(at: root) }
            let events = Mutex<[String]>([])
            let downloader = PodcastDownloader(library: library, settings: settings(root), version: "test", jobs: 2)
            let first = try await downloader.downloadQueued(jobs: 2) { event in
                if case .failed(let episode, let message) = event { events.withLock { $0.append("\(episode.id): \(message)") } }
            }
            #expect(first.downloaded == 1 && first.failed == 2)
            let failures = events.withLock { $0 }.sorted()
            #expect(failures.count == 2 && failures[0].hasPrefix("cut: ") && failures[0].contains("120000"))
            #expect(failures[1].hasPrefix("missing: ") && failures[1].hasSuffix("HTTP 404 Not Found"))

            // The feed's folder is one safe component: no "..", no escape character.
            let folders = try FileManager.default.contentsOfDirectory(atPath: root.path)
            #expect(
                folders.count == 1 && folders.allSatisfy { !$0.hasPrefix(".") && !$0.contains("\u{1B}") && $0.contains("Cast") })
            let feedFolder = root.appendingPathComponent(try #require(folders.first))
            let part = feedFolder.appendingPathComponent("cut.mp3.part")
            #expect(try Data(contentsOf: part).count == 120_000)
            #expect(!FileManager.default.fileExists(atPath: feedFolder.appendingPathComponent("missing.mp3.part").path))

            routes["/missing.mp3"] = .respond(status: 200, headers: [], body: Data("ok".utf8))
            let second = try await downloader.downloadQueued(jobs: 1) { _ in }
            #expect(second.downloaded == 2 && second.failed == 0)
            #expect(second.bytes == Int64(media.count - 120_000) + 2)
            #expect(try Data(contentsOf: feedFolder.appendingPathComponent("cut.mp3")) == media)
            #expect(!FileManager.default.fileExists(atPath: part.path))

            let queue = try library.podcasts()
            #expect(queue.count == 3 && queue.allSatisfy(\.isDownloaded))
            #expect(
                Set(queue.compactMap(\.enclosure.file))
                    == Set(
                        ["cut.mp3", "whole.mp3", "missing.mp3"].map {
                            feedFolder.appendingPathComponent($0).path
                        }))
            let third = try await downloader.downloadQueued(jobs: 1) { _ in }
            #expect(third == PodcastDownloader.Report())  // nothing left to do

            // Over the cap: refused, nothing kept.
            routes["/feed"] = .ok(podcastFeed(http.url(""), [("big", "/big.mp3")], title: "Cast"))
            _ = try await FeedRefresher(store: store, options: testOptions()).refresh()
            try library.setQueued(true, ids: ["big"])
            let capped = PodcastDownloader(library: library, settings: settings(root, maxSize: 100_000), version: "test")
            let fourth = try await capped.downloadQueued(jobs: 1) { _ in }
            #expect(fourth.failed == 1 && fourth.downloaded == 0)
            let contents = try FileManager.default.contentsOfDirectory(atPath: feedFolder.path).sorted()
            #expect(contents == ["cut.mp3", "missing.mp3", "whole.mp3"])
        }
    }

    @Test("two episodes with the same file name get distinct files")
    func sameNameTwice() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let downloader = PodcastDownloader(library: FeedLibrary(store: try makeStore()), settings: settings(root), version: "t")
        let id = try anItemID()
        func episode(_ n: String) -> PodcastEpisode {
            PodcastEpisode(
                feed: "f", feedTitle: "Show", id: n, title: nil,
                enclosure: EnclosureSummary(url: "https://x.example/\(n)/audio.mp3"), objectID: id)
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Show"), withIntermediateDirectories: true)
        try Data().write(to: root.appendingPathComponent("Show/audio.mp3"))
        let plan = try downloader.plan([episode("a"), episode("b")]).map { try $0.1.get().lastPathComponent }
        #expect(plan == ["audio (2).mp3", "audio (3).mp3"])
    }

    @Test("file names from hostile feeds are one harmless path component")
    func hostileNames() {
        #expect(PodcastFileName.episode(url: "https://x.example/a/..%2F..%2Fetc%2Fpasswd", title: nil) == "_.._etc_passwd")
        #expect(PodcastFileName.episode(url: "https://x.example/", title: "Ep\u{1B}[2J 1/2") == "Ep_[2J 1_2")
        #expect(PodcastFileName.episode(url: "https://x.example/.hidden.mp3?x=1", title: nil) == "hidden.mp3")
        #expect(PodcastFileName.episode(url: "https://x.example/%00%0A", title: nil) == "episode")
        #expect(PodcastFileName.folder("..") == "feed")
        #expect(PodcastFileName.folder("a\u{202E}b") == "a_b")  // a right-to-left override
        let long = PodcastFileName.episode(url: "https://x.example/" + String(repeating: "é", count: 300) + ".mp3", title: nil)
        #expect(long.utf8.count <= 200 && long.hasSuffix(".mp3"))
    }

    @Test("the player gets the file as its own argument; no player or no file is one clear error")
    func playerCommand() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("a; rm -rf ~.mp3")
        try Data("x".utf8).write(to: file)
        var episode = PodcastEpisode(
            feed: "f", feedTitle: "F", id: "e", title: nil, enclosure: EnclosureSummary(url: "https://x.example/a.mp3"),
            objectID: try anItemID())
        #expect(throws: ZeaderError.self) { try PodcastPlayer.command(for: episode, player: ["mpv"]) }
        episode.enclosure.file = file.path
        #expect(try PodcastPlayer.command(for: episode, player: ["mpv", "--no-video"]) == ["mpv", "--no-video", file.path])
        #expect(throws: ZeaderError.self) { try PodcastPlayer.command(for: episode, player: nil) }
        // A real run: the file name (with `;` in it) arrives as one argument, never as shell text.
        let marker = root.appendingPathComponent("played")
        #expect(try PodcastPlayer.play(episode, player: ["/bin/sh", "-c", "cp \"$0\" \(marker.path)"]) == 0)
        #expect(FileManager.default.fileExists(atPath: marker.path))
    }

    @Test("the player starts as from a shell: only the terminal, default signals, none blocked")
    func playerInheritsOnlyTheTerminal() async throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("episode.mp3")
        try Data("x".utf8).write(to: file)
        var episode = PodcastEpisode(
            feed: "f", feedTitle: "F", id: "e", title: nil, enclosure: EnclosureSummary(url: "https://x.example/a.mp3"),
            objectID: try anItemID())
        episode.enclosure.file = file.path
        // `ls` lists its own descriptors (3 is the directory it reads); `grep` its own signals.
        let script =
            #"{ ls /proc/self/fd | tr '\n' ' '; grep -E '^Sig(Blk|Ign)' /proc/self/status | tr '\n\t' '  '; } > "$0.seen""#
        let seen = try await withStateAProgramMustNotInherit { leaky in
            #expect(leaky > 3)
            #expect(try PodcastPlayer.play(episode, player: ["/bin/sh", "-c", script]) == 0)
            return try String(contentsOfFile: file.path + ".seen", encoding: .utf8)
        }
        // Signals 32 and 33 are glibc's own (thread cancellation, setxid).
        #expect(seen == "0 1 2 3 SigBlk: 0000000000000000 SigIgn: 0000000180000000 ")
    }

    @Test("config: download-path, podcast-max-size, player")
    func settingsDirectives() throws {
        var settings = PodcastSettings()
        #expect(try settings.apply("podcast-max-size", ["500M"]) && settings.maxSize == 500_000_000)
        #expect(ByteCount.text(settings.maxSize) == "500.0 MB")
        #expect(ByteCount.text(PodcastSettings().maxSize) == "2.0 GB")
        #expect(try settings.apply("player", ["mpv --no-video"]) && settings.player == ["mpv", "--no-video"])
        #expect(try settings.apply("download-path", ["~/Pods"]))
        #expect(settings.downloadDirectory(environment: ["HOME": "/home/u"]).path == "/home/u/Pods")
        #expect(try !settings.apply("browser", ["x"]))
        #expect(throws: PodcastSettingsError.self) { try settings.apply("podcast-max-size", ["lots"]) }
        #expect(PodcastSettings().downloadDirectory(environment: ["XDG_DATA_HOME": "/d"]).path == "/d/zeader/podcasts")
        // podboat's placeholders: the feed's title and host, each one safe path component.
        let home = ["HOME": "/home/u"]
        #expect(
            settings.episodeFolder(feedTitle: "Cast", feedURL: "https://x.example/f", environment: home).path
                == "/home/u/Pods/Cast")
        #expect(try settings.apply("download-path", ["~/Pods/%h/%n"]))
        #expect(
            settings.episodeFolder(feedTitle: "Linux/Weekly", feedURL: "https://x.example:8080/f", environment: home).path
                == "/home/u/Pods/x.example/Linux_Weekly")
        #expect(PodcastFileName.folder("Linux Weekly / News") == "Linux Weekly News")
        #expect(settings.episodeFolder(feedTitle: "..", feedURL: "exec:x", environment: home).path == "/home/u/Pods/feed/feed")
        #expect(settings.episodeFolder(feedTitle: "~", feedURL: "https://h/f", environment: home).path == "/home/u/Pods/h/~")
    }

    @Test("zeader podcasts list shows sizes in powers of 1000, as the reader's article header does")
    func listShowsTheReadersSize() async throws {
        let routes = Routes()
        try await withLoopbackServer(routes.handler) { http in
            routes["/feed"] = .ok(podcastFeed(http.url(""), [("whole", "/whole.mp3")]))
            let dir = try folder()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            #expect(try zeader(["--db", db, "add", http.url("/feed").absoluteString], in: dir).status == 0)
            #expect(try zeader(["--db", db, "refresh"], in: dir).status == 0)
            #expect(try zeader(["--db", db, "podcasts", "add", "whole"], in: dir).status == 0)
            let list = try zeader(["--db", db, "podcasts", "list"], in: dir)
            #expect(list.status == 0)
            // 300,000 bytes: the reader's header says 300.0 kB (ArticleHeaderTests).
            #expect(list.stdout.contains("whole.mp3 (audio/mpeg, 300.0 kB)"), "\(list.stdout)")
        }
    }

    @Test("podcast-max-size 293K is 293,000 bytes, as 293.0 kB is printed: a 300,000-byte episode is refused")
    func maxSizeInThePrintedUnits() async throws {
        let routes = Routes()
        try await withLoopbackServer(routes.handler) { http in
            routes["/feed"] = .ok(podcastFeed(http.url(""), [("whole", "/whole.mp3")]))
            routes["/whole.mp3"] = .respond(status: 200, headers: [("Content-Type", "audio/mpeg")], body: media)
            let dir = try folder()
            defer { try? FileManager.default.removeItem(at: dir) }
            let config = dir.appendingPathComponent("config/zeader")
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
            try "podcast-max-size 293K\ndownload-path \(dir.appendingPathComponent("pods").path)\n".write(
                to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
            let db = dir.appendingPathComponent("z.sqlite").path
            #expect(try zeader(["--db", db, "add", http.url("/feed").absoluteString], in: dir).status == 0)
            #expect(try zeader(["--db", db, "refresh"], in: dir).status == 0)
            #expect(try zeader(["--db", db, "podcasts", "add", "whole"], in: dir).status == 0)
            let download = try zeader(["--db", db, "podcasts", "download"], in: dir)
            #expect(download.status == 1, "\(download.stderr)")
            #expect(
                download.stderr.contains("whole.mp3: larger than podcast-max-size (293.0 kB), not downloaded"),
                "\(download.stderr)")
            #expect(download.stdout == "0 downloaded (0 bytes), 1 failed\n")
        }
    }

    @Test("the article's enclosure line")
    func headerLine() {
        #expect(
            EnclosureSummary(url: "https://x.example/a.mp3", type: "audio/mpeg", length: 12_400_000).headerLine
                == "Enclosure: https://x.example/a.mp3 (audio/mpeg, 12.4 MB)")
        #expect(EnclosureSummary(url: "https://x.example/a.mp3").headerLine == "Enclosure: https://x.example/a.mp3")
        #expect(ByteCount.text(512) == "512 bytes" && ByteCount.text(3 << 30) == "3.2 GB")
    }

    @Test("the enclosure stored is the first audio or video one, http(s) only")
    func choice() {
        let chosen = EnclosureChoice.primary(of: [
            Enclosure(url: "javascript:alert(1)", type: "audio/mpeg"),
            Enclosure(url: "https://x.example/i.jpg", type: "image/jpeg"),
            Enclosure(url: "https://x.example/a.ogg", type: "audio/ogg"),
        ])
        #expect(chosen?.url == "https://x.example/a.ogg")
        #expect(EnclosureChoice.primary(of: [Enclosure(url: "file:///etc/passwd")]) == nil)
        // Pictures and documents are no podcast: a feed's media:content images are not kept.
        let noMedia = EnclosureChoice.primary(of: [
            Enclosure(url: "https:///no-host.mp3", type: "audio/mpeg"), Enclosure(url: "not a url", type: "video/mp4"),
            Enclosure(url: "HTTP://x.example/doc.pdf", type: "application/pdf"),
            Enclosure(url: "https://x.example/b.png", type: "image/png"),
            Enclosure(url: "https://x.example/c.jpg"), Enclosure(url: "https://x.example/d.mp3", type: "image/jpeg"),
        ])
        #expect(noMedia == nil)
        // Without a type, or with a generic one, the file name decides; parameters are ignored.
        #expect(
            EnclosureChoice.primary(of: [
                Enclosure(url: "https://x.example/e.jpg"), Enclosure(url: "https://x.example/e.MP3?x=1"),
            ])?.url == "https://x.example/e.MP3?x=1")
        #expect(EnclosureChoice.primary(of: [Enclosure(url: "https://x.example/f.m4a", type: "application/octet-stream")]) != nil)
        #expect(EnclosureChoice.primary(of: [Enclosure(url: "https://x.example/g", type: "audio/mpeg; charset=binary")]) != nil)
        #expect(EnclosureChoice.primary(of: [Enclosure(url: "https://x.example/h.ogg", type: "application/ogg")]) != nil)
        #expect(EnclosureChoice.primary(of: []) == nil)
        #expect(EnclosureChoice.primary(of: [Enclosure(url: "mailto:a@x.example", type: "audio/mpeg")]) == nil)
        #expect(EnclosureChoice.primary(of: [Enclosure(url: "https://x.example/v", type: "VIDEO/MP4")])?.type == "VIDEO/MP4")
    }
}
