import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// podboat's directives and `urls-source` in the config, on the real podcast configs
/// (ZeaderKitTests' Fixtures/newsboat-podcast), and newsboat's `"!"` hidden feeds in the feed list.
@Suite struct PodboatDirectivesTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ZeaderKitTests/Fixtures/newsboat-podcast")

    @Test(arguments: ["006.config", "008.config", "009.config", "010.config"])
    func theRealPodcastConfigsLoadWithTheirPodboatLines(file: String) throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent(file), encoding: .utf8)
        let config = try ReaderConfig.parse(text, file: file)
        let podboat = config.warnings.filter { warning in
            ["max-downloads", "delete-played-files", "download-path", "player"].contains {
                warning.message.contains("'\($0)'") || warning.message.hasPrefix($0 + " ")
            }
        }
        #expect(podboat.isEmpty, "\(podboat)")
        if text.contains("max-downloads") { #expect(config.podcasts.maxDownloads != nil) }
    }

    @Test func valuesAsPodboatReadsThem() throws {
        let config = try ReaderConfig.parse(
            "max-downloads 3\ndelete-played-files YES\nurls-source \"local\"\n", file: "c")
        #expect(config.podcasts.maxDownloads == 3)
        #expect(config.podcasts.deletePlayedFiles)
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        let clamped = try ReaderConfig.parse("max-downloads 100\n", file: "c")
        #expect(clamped.podcasts.maxDownloads == 16)
        #expect(clamped.warnings.map(\.message) == ["max-downloads 100 is outside 1–16; 16 is used"])
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("max-downloads many\n", file: "c") }
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("delete-played-files maybe\n", file: "c") }
    }

    @Test(arguments: [
        ("miniflux", "zeader sync add"), ("FreshRSS", "zeader sync add"), ("inoreader", "zeader sync add"),
        ("ttrss", "does not speak ttrss"), ("newsblur", "does not speak newsblur"), ("ocnews", "does not speak ocnews"),
        ("opml", "does not speak opml"),
    ])
    func urlsSourceSaysWhereTheFeedsCanComeFrom(source: String, says: String) throws {
        let config = try ReaderConfig.parse("urls-source \(source)\n", file: "c")
        #expect(config.warnings.count == 1)
        #expect(config.warnings.first?.message.contains(says) == true, "\(config.warnings)")
    }

    @Test func podlistFormatIsReadAndTheFileNameFormatIsKept() throws {
        let config = try ReaderConfig.parse(
            "podlist-format \"%4i %-20S %50b\"\ndownload-filename-format \"%n-%t.%e\"\n", file: "c")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        #expect(config.formats.podList?.source == "%4i %-20S %50b")
        #expect(config.podcasts.fileNameFormat == "%n-%t.%e")
        // A field podboat does not have is named, and the rest of the format is used.
        let odd = try ReaderConfig.parse("podlist-format \"%i %Z %S\"\n", file: "c")
        #expect(odd.warnings.map(\.message) == ["podlist-format: %Z is not one of its fields (shown empty)"])
        #expect(odd.formats.podList != nil)
    }

    @Test func hiddenFeedsAreLeftOutOfTheFeedListOnly() throws {
        let server = try ZeaderModel.current.entity(named: "Server")
        let rows = [
            FeedRow(kind: .server(ObjectID(entity: server, primaryKey: 1)), title: "A", unread: 1, total: 1, tags: ["!", "yt"]),
            FeedRow(kind: .server(ObjectID(entity: server, primaryKey: 2)), title: "B", unread: 1, total: 1, tags: ["yt"]),
        ]
        #expect(ViewOptions().arranged(rows).map(\.title) == ["B"])
        var tagged = ViewOptions()
        tagged.tag = "yt"
        #expect(tagged.arranged(rows).map(\.title) == ["B"])
        // The first screen read by SQL leaves them out too, and counts without them.
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait {
            for index in 0..<30 {
                try FeedSubscription.add(
                    url: "https://f\(index).example/rss", tags: index % 3 == 0 ? ["!hidden", "x"] : ["x"], in: context)
            }
            try context.save()
            let page = try #require(try FeedListPage.first(rows: 5, showRead: true, order: FeedEditing.order, in: context))
            #expect(page.count == 20)
            #expect(page.servers.allSatisfy { !FeedTags.isHidden($0.tags) })
        }
        withExtendedLifetime(store) {}
    }
}
