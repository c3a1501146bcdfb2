import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// The article's pictures: the text first with blank rows holding each picture's place, then
/// the picture fetched through the fetcher and drawn over those rows; hostile pictures end as
/// their alt text with one status line.
@Suite struct ArticlePicturesTests {
    static let squares: Data = {
        let picture = TestPictures.squares(side: 64)
        return TestPictures.png(width: picture.width, height: picture.height, rgba: picture.rgba)
    }()

    /// An item whose content holds `pictures` (`<img>` tags), newest of the first demo feed.
    func addItem(_ html: String, to store: ZeaderStore) throws {
        let context = store.container.viewContext
        try context.performAndWait {
            let server = try #require(try Server.findFirst(byAttribute: "title", value: "Zeader News", in: context))
            let item = context.insert(FeedItem.self)
            item.guid = "pictures"
            item.title = "With pictures"
            item.content = html
            item.sortDate = Date(timeIntervalSince1970: 1_900_000_000)
            item.server = server
            try context.save()
        }
    }

    func reader(_ display: PictureSettings.Display, store: ZeaderStore, cache: URL? = nil, effects: (any ReaderEffects)? = nil)
        throws -> Harness
    {
        var config = ReaderConfig()
        config.pictures.display = display
        config.pictures.viewer = "feh %u"
        let h = try Harness(
            width: 80, height: 40, config: config, effects: effects,
            fetcher: FeedFetcher(configuration: FetcherConfiguration(version: "test")), store: store)
        let cacheHome = cache ?? FileManager.default.temporaryDirectory.appendingPathComponent("zeader-pictures-\(UUID())")
        h.queue.sync { h.app.pictures = ArticlePictures(config: config, environment: ["XDG_CACHE_HOME": cacheHome.path]) }
        return h
    }

    func waitForPictures(_ h: Harness) async -> [PlacedPicture] {
        for _ in 0..<250 {
            _ = h.settle()
            if let last = h.backend.pictureFrames.last, !last.isEmpty { return last }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return []
    }

    func waitFor(_ text: String, in h: Harness) async -> Bool {
        for _ in 0..<250 {
            if h.screen.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    func row(of text: String, in h: Harness) -> Int? {
        (0..<40).first { h.line($0).contains(text) }
    }

    @Test func symbolsAreDrawnWhereThePictureStandsInItsColours() async throws {
        let store = try ZeaderStore.inMemory()
        try DemoFeeds.load(into: store)
        try await withLoopbackServer({ request in
            request.path == "/squares.png"
                ? .respond(status: 200, headers: [("Content-Type", "image/png")], body: Self.squares) : .status(404)
        }) { http in
            try addItem(
                "<p>Before the picture.</p><p><img src=\"\(http.url("/squares.png"))\" alt=\"Squares\" width=\"128\" height=\"128\"></p><p>After the picture.</p>"
                    + String(repeating: "<p>More text.</p>", count: 40),
                to: store)
            let h = try reader(.symbols, store: store)
            let first = h.type(.enter, .enter)
            // The text is on screen at once, the picture's 8 rows (128 px at 8 × 16 per cell) held blank.
            #expect(first.contains("Before the picture.") && first.contains("After the picture."))
            let alt = try #require(row(of: "[image: Squares]", in: h))
            #expect(row(of: "After the picture.", in: h) == alt + 1 + 8 + 1)
            let placed = await waitForPictures(h)
            try #require(placed.count == 1)
            #expect(placed[0].y == alt + 1 && placed[0].x == 0 && placed[0].display == .symbols)
            #expect(placed[0].rows.count == 8)
            let shown = try #require(ReadBackPicture.symbols(placed[0].rows))
            #expect(shown.width == 16)
            #expect(colour(shown.rgb(fraction: 0.25, 0.25), isNear: 0xFF0000))
            #expect(colour(shown.rgb(fraction: 0.75, 0.25), isNear: 0x00FF00))
            #expect(colour(shown.rgb(fraction: 0.25, 0.75), isNear: 0x0000FF))
            #expect(colour(shown.rgb(fraction: 0.75, 0.75), isNear: 0xFFFF00))
            // Scrolling moves the picture with the text; leaving the article clears it.
            h.type(.down)
            #expect(h.backend.pictureFrames.last?.first?.y == alt)
            h.type(.character("q"))
            #expect(h.backend.pictureFrames.last == [])
        }
    }

    @Test func pixelPicturesAreSentWholeForEachProtocol() async throws {
        for display in [PictureSettings.Display.kitty, .sixel, .iterm] {
            let store = try ZeaderStore.inMemory()
            try DemoFeeds.load(into: store)
            try await withLoopbackServer({ _ in
                .respond(status: 200, headers: [("Content-Type", "image/png")], body: Self.squares)
            }) { http in
                try addItem(
                    "<p>Text.</p><p><img src=\"\(http.url("/p.png"))\" alt=\"P\" width=\"128\" height=\"128\"></p>", to: store)
                let h = try reader(display, store: store)
                h.type(.enter, .enter)
                let alt = try #require(row(of: "[image: P]", in: h))
                let placed = await waitForPictures(h)
                try #require(placed.count == 1, "\(display)")
                #expect(placed[0].y == alt + 1)
                let bytes = placed[0].rows[0]
                let back: ReadBackPicture? =
                    switch display {
                    case .kitty: ReadBackPicture.kitty(bytes)
                    case .sixel: ReadBackPicture.sixel(bytes)
                    default: ReadBackPicture.iterm(bytes)
                    }
                #expect(colour(back?.rgb(fraction: 0.25, 0.25), isNear: 0xFF0000), "\(display)")
                #expect(colour(back?.rgb(fraction: 0.75, 0.75), isNear: 0xFFFF00), "\(display)")
            }
        }
    }

    @Test(arguments: [
        ("bomb.png", "100000 × 100000 pixels, over the limit"),
        ("cut.jpg", "the file is cut short"),
        ("frames.gif", "1000+ frames, over the limit"),
        ("page.html", "not a PNG, JPEG, GIF or still WebP picture"),
        ("missing.png", "HTTP 404 Not Found"),
    ])
    func hostilePicturesEndAsAltTextWithOneStatusLine(file: String, words: String) async throws {
        let jpeg = TestPictures.jpeg(width: 64, height: 64, rgba: TestPictures.squares(side: 32).rgba)
        let bodies: [String: Data] = [
            "/bomb.png": TestPictures.pngHeader(width: 100_000, height: 100_000),
            "/cut.jpg": jpeg.prefix(jpeg.count / 2),
            "/frames.gif": TestPictures.gif(frames: 10_000),
            "/page.html": Data("<html><body>not a picture</body></html>".utf8),
        ]
        let store = try ZeaderStore.inMemory()
        try DemoFeeds.load(into: store)
        try await withLoopbackServer({ request in
            bodies[request.path].map { .respond(status: 200, headers: [("Content-Type", "image/png")], body: $0) }
                ?? .status(404)
        }) { http in
            try addItem("<p>Text.</p><p><img src=\"\(http.url("/" + file))\" alt=\"Hostile\"></p><p>After.</p>", to: store)
            let h = try reader(.symbols, store: store)
            h.type(.enter, .enter)
            #expect(await waitFor("Picture 'Hostile' not shown:", in: h), "\(h.screen)")
            let status = h.line(39)
            #expect(status.contains(words), "\(status)")
            #expect(h.screen.contains("[image: Hostile]") && h.screen.contains("After."))
            #expect(h.backend.pictureFrames.allSatisfy { $0.isEmpty })
            // The reader goes on.
            #expect(h.type(.character("q")).contains("With pictures"))
        }
    }

    @Test func aPictureComesFromTheDiskCacheOnceFetched() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-pictures-\(UUID())")
        let store = try ZeaderStore.inMemory()
        try DemoFeeds.load(into: store)
        var url = ""
        try await withLoopbackServer({ _ in
            .respond(status: 200, headers: [("Content-Type", "image/png")], body: Self.squares)
        }) { http in
            url = http.url("/cached.png").absoluteString
            try addItem("<p><img src=\"\(url)\" alt=\"C\"></p>", to: store)
            let h = try reader(.symbols, store: store, cache: cache)
            h.type(.enter, .enter)
            #expect(await !waitForPictures(h).isEmpty)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("zeader/images").path)
        #expect(files.count == 1)
        // The server is gone: a new reader draws it from the cache.
        let h = try reader(.symbols, store: store, cache: cache)
        h.type(.enter, .enter)
        #expect(await !waitForPictures(h).isEmpty)
    }

    @Test func sixelPicturesKeepWithinTheTerminalsLargest() async throws {
        try await withLoopbackServer({ _ in
            .respond(status: 200, headers: [("Content-Type", "image/png")], body: Self.squares)
        }) { http in
            let key = EncodedPictures.Key(url: http.url("/s.png").absoluteString, columns: 40, rows: 20, display: .sixel)
            let outcome = await ArticlePictures.load(
                key, fetcher: FeedFetcher(configuration: FetcherConfiguration(version: "test")),
                cache: PictureDiskCache(directory: URL(fileURLWithPath: "/nonexistent"), capacity: 0), limits: .default,
                cellPixels: (10, 20), sixelLimit: .init(width: 100, height: 60))
            let picture = try #require(ReadBackPicture.sixel(try outcome.get()))
            #expect(picture.width <= 100 && picture.height <= 60 && picture.width >= 50)
        }
    }

    @Test func theDiskCacheKeepsToItsCapDroppingTheOldest() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-cache-\(UUID())")
        let cache = PictureDiskCache(directory: folder, capacity: 1_000)
        for index in 0..<3 {
            let url = "https://a.example/\(index).png"
            cache.store(Data(repeating: UInt8(index), count: 400), for: url)
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: Double(index * 10 - 100))], ofItemAtPath: cache.file(for: url).path
            )
        }
        cache.trim()
        #expect(cache.data(for: "https://a.example/0.png") == nil)
        #expect(cache.data(for: "https://a.example/2.png") == Data(repeating: 2, count: 400))
        #expect(PictureDiskCache(directory: folder, capacity: 0).data(for: "https://a.example/2.png") == nil)
    }

    @Test func noneAndTheSourceViewKeepTheTextAsItWas() async throws {
        let store = try ZeaderStore.inMemory()
        try DemoFeeds.load(into: store)
        try addItem("<p>A.</p><p><img src=\"https://a.example/p.png\" alt=\"P\"></p><p>B.</p>", to: store)
        let h = try reader(.none, store: store)
        h.type(.enter, .enter)
        let alt = try #require(row(of: "[image: P]", in: h))
        #expect(row(of: "B.", in: h) == alt + 2)
        #expect(h.backend.pictureFrames.allSatisfy { $0.isEmpty })
    }

    @Test func theLinkListNamesPicturesAndOpensThemInTheViewer() throws {
        let store = try ZeaderStore.inMemory()
        try DemoFeeds.load(into: store)
        try addItem(
            "<p><a href=\"https://a.example/page\">page</a><img src=\"https://a.example/p.png?a=1;rm\" alt=\"Chart\"></p>",
            to: store)
        let effects = RecordingEffects()
        let h = try reader(.none, store: store, effects: effects)
        h.type(.enter, .enter)
        let list = h.type(.character("U"))
        #expect(list.contains("https://a.example/page"))
        #expect(list.contains("[image: Chart]"))
        h.type(.end, .enter)
        #expect(
            effects.programs.last?.argv == ["/bin/sh", "-c", "feh 'https://a.example/p.png?a=1;rm'"])
        // An ordinary link still goes to the browser.
        h.type(.character("U"), .home, .enter)
        #expect(effects.programs.last?.argv.last?.contains("feh") != true)
    }
}
