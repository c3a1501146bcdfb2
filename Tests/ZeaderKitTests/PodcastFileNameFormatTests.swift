import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// podboat's `download-filename-format`: placeholders filled from the episode, the conditional
/// of podboat's default, and a result that is always one harmless path component.
@Suite struct PodcastFileNameFormatTests {
    static func episode(
        url: String = "https://cdn.example/show/ep%201.mp3?x=1", title: String? = "Episode 1", feedTitle: String = "My Show",
        published: Date? = Date(timeIntervalSince1970: 1_763_725_245)  // 2025-11-21 11:40:45 UTC
    ) throws -> PodcastEpisode {
        let entity = try ZeaderModel.current.entity(named: "FeedItem")
        return PodcastEpisode(
            feed: "https://feeds.example/show.xml", feedTitle: feedTitle, id: "1", title: title,
            enclosure: EnclosureSummary(url: url), objectID: ObjectID(entity: entity, primaryKey: 1), published: published)
    }

    @Test func placeholdersAsPodboatFillsThem() throws {
        let e = try Self.episode()
        #expect(PodcastFileName.formatted("%F-%t.%e", for: e) == "2025-11-21-Episode 1.mp3")
        #expect(PodcastFileName.formatted("%u", for: e) == "ep 1.mp3")
        #expect(PodcastFileName.formatted("%h %n %N", for: e) == "feeds.example My Show My Show")
        #expect(PodcastFileName.formatted("%Y%y-%m-%b-%d %H%M%S 100%%", for: e) == "202525-11-Nov-21 114045 100%")
        // podboat's default: the URL's name, else the date.
        let podboatDefault = "%?u?%u&%Y-%b-%d-%H%M%S.unknown?"
        #expect(PodcastFileName.formatted(podboatDefault, for: e) == "ep 1.mp3")
        #expect(
            PodcastFileName.formatted(podboatDefault, for: try Self.episode(url: "https://cdn.example/"))
                == "2025-Nov-21-114045.unknown")
    }

    @Test func whatAFeedWritesNeverPicksTheFolder() throws {
        let hostile = try Self.episode(
            url: "https://x.example/..%2F..%2Fetc%2Fpasswd", title: "../../\u{1B}[2J/etc", feedTitle: "/root/.ssh",
            published: nil)
        for format in ["%t", "%n/%t", "../%t", "%u", "%F%e", "%", "%?t?%t&x", ".%t", "%z%q"] {
            let name = PodcastFileName.formatted(format, for: hostile)
            #expect(!name.isEmpty && !name.contains("/") && !name.hasPrefix("."), "\(format) → \(name)")
            #expect(!name.unicodeScalars.contains { $0.properties.generalCategory == .control })
            #expect(name.utf8.count <= PodcastFileName.maxBytes + 1)
        }
        // Nothing usable left: the enclosure's own name.
        #expect(
            PodcastFileName.formatted("%F", for: hostile)
                == PodcastFileName.episode(url: hostile.enclosure.url, title: hostile.title))
        let long = try Self.episode(title: String(repeating: "é", count: 400))
        #expect(PodcastFileName.formatted("%t.%e", for: long).hasSuffix(".mp3"))
    }

    @Test func theDownloaderPlansTheFormattedName() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fmt-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var settings = PodcastSettings()
        settings.downloadPath = root.path
        settings.fileNameFormat = "%F-%t.%e"
        let library = FeedLibrary(store: try ZeaderStore.inMemory())
        let downloader = PodcastDownloader(library: library, settings: settings, version: "t")
        let plan = try downloader.plan([try Self.episode(), try Self.episode()]).map { try $0.1.get().lastPathComponent }
        #expect(plan == ["2025-11-21-Episode 1.mp3", "2025-11-21-Episode 1 (2).mp3"])
    }
}
