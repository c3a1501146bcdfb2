import Foundation
import ObjectGraph
import Testing

@testable import Feeds
@testable import ZeaderKit

/// Structure-aware fuzzing of the names downloads get: enclosure URLs and feed titles built
/// from the pieces hostile feeds use (percent-encoding, `..`, long multi-byte names,
/// extensions of every length, combining marks, right-to-left text, control characters).
/// Every name must be one valid path component within the limits, and distinct enclosures
/// must never share a file. The seed is fixed so a failure can be replayed; set
/// `ZEADER_PODCAST_FUZZ_ITERATIONS` (and `ZEADER_PODCAST_FUZZ_SEED`) to run longer by hand.
@Suite("Podcast names: fuzzed")
struct PodcastNameFuzzTests {
    static let iterations = ProcessInfo.processInfo.environment["ZEADER_PODCAST_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 400
    static let seed = ProcessInfo.processInfo.environment["ZEADER_PODCAST_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED_CA57

    static let pieces = [
        "episode", "Ep 1", "..", ".", "/", "\\", "%2F", "%2e%2E", "%00", "%0A", "%1B[31m", "%FF%FE", "%C3%A9", "%E2%80%AE",
        "é", "漢字", "🎵", "👩‍👩‍👧", "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}", "e\u{301}\u{302}\u{303}",
        "שלום", "مرحبا", "\u{202E}", "\u{200F}", "\u{2066}", "\u{FEFF}", "\u{E0041}", "\u{1}", "\u{1B}[2J", "\u{7F}", "\u{85}",
        "\u{2028}", " ", "\t", "\n", "?", "#", ":", "*", "\"", "<", ">", "|", "~", "-", "_", ".part", ".resume", ".PART",
    ]

    static func piece(using rng: inout SplitMix64) -> String {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0:  // one character under many combining marks: a grapheme longer than any limit
            return "a" + String(repeating: "\u{301}", count: Int.random(in: 1...400, using: &rng))
        case 1:  // a long run of one piece
            return String(repeating: pieces.randomElement(using: &rng)!, count: Int.random(in: 1...120, using: &rng))
        default:
            return pieces.randomElement(using: &rng)!
        }
    }

    /// A name of a few pieces and an extension of any length (possibly none).
    static func name(using rng: inout SplitMix64) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...5, using: &rng) { text += piece(using: &rng) }
        if Bool.random(using: &rng) {
            text += "."
            for _ in 0..<Int.random(in: 0...12, using: &rng) { text += piece(using: &rng) }
        }
        return text
    }

    static func enclosureURL(using rng: inout SplitMix64) -> String {
        var url = ["https://x.example/", "http://127.0.0.1/a/", "https://x.example", "", "ftp://x/", "garbage "]
            .randomElement(using: &rng)!
        for _ in 0..<Int.random(in: 0...3, using: &rng) { url += name(using: &rng) + "/" }
        url += name(using: &rng)
        if Bool.random(using: &rng) { url += "?" + name(using: &rng) }
        if Int.random(in: 0..<4, using: &rng) == 0 { url += "#" + name(using: &rng) }
        return url
    }

    /// What every name must be: one component (no `/`, NUL, control or format character,
    /// not `.` or `..`, no leading dot or space), not empty, not one of the downloader's own
    /// endings, and short enough that its numbered, part and record forms fit in 255 bytes.
    static func checkComponent(
        _ name: String, from input: String, isEpisode: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let context = Comment(rawValue: "\(name.debugDescription) from \(input.debugDescription)")
        #expect(!name.isEmpty && name != "." && name != "..", context, sourceLocation: sourceLocation)
        #expect(!name.hasPrefix(".") && !name.hasPrefix(" "), context, sourceLocation: sourceLocation)
        #expect(
            !name.unicodeScalars.contains {
                $0 == "/" || $0 == "\0" || $0.properties.generalCategory == .control
                    || $0.properties.generalCategory == .format
            }, context, sourceLocation: sourceLocation)
        #expect(name.utf8.count <= PodcastFileName.maxBytes + 1, context, sourceLocation: sourceLocation)
        #expect(
            (PodcastFileName.numbered(name, 99_999) + ".part.resume").utf8.count <= 255, context, sourceLocation: sourceLocation)
        guard isEpisode else { return }  // a folder holds no part files beside it
        let lowered = name.lowercased()
        #expect(!lowered.hasSuffix(".part") && !lowered.hasSuffix(".resume"), context, sourceLocation: sourceLocation)
    }

    @Test("every generated enclosure URL, title and feed title gives one valid component")
    func namesAreValidComponents() {
        var rng = SplitMix64(state: Self.seed)
        for _ in 0..<Self.iterations {
            let url = Self.enclosureURL(using: &rng)
            let title = Bool.random(using: &rng) ? Self.name(using: &rng) : nil
            Self.checkComponent(PodcastFileName.episode(url: url, title: title), from: url)
            let feedTitle = Self.name(using: &rng)
            Self.checkComponent(PodcastFileName.folder(feedTitle), from: feedTitle, isEpisode: false)
        }
    }

    @Test("planned downloads of distinct enclosures never share a file, and each part and record can be created")
    func plansNeverCollide() throws {
        var rng = SplitMix64(state: Self.seed ^ 0xF00D)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-podfuzz-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var settings = PodcastSettings()
        settings.downloadPath = root.path
        let downloader = PodcastDownloader(library: FeedLibrary(store: try makeStore()), settings: settings, version: "t")
        let objectID = try PodcastTests().anItemID()
        // Few feed titles and few names, so that folders and files collide often.
        let feedTitles = (0..<4).map { _ in Self.name(using: &rng) }
        let names = (0..<6).map { _ in Self.name(using: &rng) }
        for round in 0..<max(1, Self.iterations / 20) {
            var urls = Set<String>()
            var episodes: [PodcastEpisode] = []
            for index in 0..<Int.random(in: 1...12, using: &rng) {
                let name = Bool.random(using: &rng) ? names.randomElement(using: &rng)! : Self.name(using: &rng)
                let url = "https://h\(index).example/\(round)/" + name
                guard urls.insert(url).inserted else { continue }
                episodes.append(
                    PodcastEpisode(
                        feed: "https://f.example/\(index)", feedTitle: feedTitles.randomElement(using: &rng)!, id: "\(index)",
                        title: nil, enclosure: EnclosureSummary(url: url), objectID: objectID))
            }
            let plan = downloader.plan(episodes)
            var paths = Set<String>()
            for (episode, destination) in plan {
                let file = try destination.get()
                #expect(file.deletingLastPathComponent().deletingLastPathComponent().path == root.path)
                #expect(paths.insert(file.path.lowercased()).inserted, "\(file.path) twice")
                // The part file and its record are real files of this name.
                let part = file.appendingPathExtension("part")
                #expect(FileManager.default.createFile(atPath: part.path, contents: Data("x".utf8)), "\(part.path)")
                try DownloadResumeRecord(url: episode.enclosure.url).write(forPartFile: part)
            }
            // The next plan sees those parts: the same episodes get the same files again.
            #expect(downloader.plan(episodes).map { try? $0.1.get() } == plan.map { try? $0.1.get() })
            try FileManager.default.removeItem(at: root)
        }
    }
}
