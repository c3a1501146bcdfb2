import Foundation
import Testing

@testable import Feeds

/// Bounded random-mutation fuzzing: every fixture, mutated many times (bytes flipped,
/// inserted, deleted, spliced with markup), must parse or throw a FeedParseError, never
/// crash or hang. The seed is fixed so a failure can be replayed; set
/// `ZEADER_FUZZ_ITERATIONS` (and `ZEADER_FUZZ_SEED`) to run longer by hand.
@Suite("Fuzzing")
struct FuzzTests {
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let tokens: [[UInt8]] = [
        "<", ">", "&", ";", "&amp;", "&nbsp;", "&#0;", "&#x9B;", "&#150;", "<![CDATA[", "]]>", "<!--", "-->", "<?xml ",
        "<!DOCTYPE x [<!ENTITY e \"&e;&e;\">]>", "&e;", "xml:base=\"../\"", "<item>", "</item>", "<entry>", "</entry>",
        "<title type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\">", "</div></title>", "\u{0}", "\u{1B}[31m",
        "encoding=\"UTF-16\"", "encoding=\"windows-1251\"", "\u{FEFF}", "<link href=\"", "\"/>", "Sun, 32 Foo 99 25:61",
        "2024-02-30T24:00:00+99:99",
    ].map { Array($0.utf8) }

    static func mutate(_ input: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...8, using: &rng) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &rng)
            case 1: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: position)
            case 2 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...64, using: &rng))
                bytes.removeSubrange(position..<end)
            case 3: bytes.insert(contentsOf: tokens.randomElement(using: &rng)!, at: position)
            case 4 where bytes.count > 16:  // duplicate a slice
                let end = min(bytes.count, position + Int.random(in: 1...256, using: &rng))
                bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0..<bytes.count, using: &rng))
            default:
                if !bytes.isEmpty { bytes.removeSubrange(min(position, bytes.count)...) }
            }
        }
        return bytes
    }

    static var fixtureNames: [String] {
        let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!
        // Files only: other suites keep their fixtures in subdirectories.
        return ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted().filter { name in
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isDirectory)
            return exists && !isDirectory.boolValue
        }
    }

    @Test(.timeLimit(.minutes(30))) func randomMutationsNeverCrash() throws {
        let environment = ProcessInfo.processInfo.environment
        let iterations = environment["ZEADER_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 3000
        var rng = SplitMix64(state: environment["ZEADER_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED)
        let corpus = try Self.fixtureNames.map { Array(try fixture($0)) }
        var parsed = 0
        var refused = 0
        var splitting = FeedParser.Limits()
        splitting.parallelParsingThreshold = 0  // every other input also goes through the two-halves path
        for iteration in 0..<iterations {
            let input = Self.mutate(corpus[iteration % corpus.count], using: &rng)
            do {
                let feed = try FeedParser.parse(
                    data: Data(input), url: URL(string: "https://fuzz.example/feed"),
                    limits: iteration % 2 == 1 ? splitting : FeedParser.Limits())
                _ = feed.contractJSON()
                for item in feed.items {
                    #expect(!(item.title ?? "").unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" })
                }
                parsed += 1
            } catch {
                refused += 1
            }
        }
        #expect(parsed + refused == iterations)
        #expect(parsed > 0)
    }

    // MARK: - Structure-aware generators

    /// Iterations of each structured generator: a few hundred in CI (deterministic seed),
    /// `ZEADER_FUZZ_ITERATIONS` for long runs by hand (`ZEADER_FUZZ_SEED` to vary them).
    static var structuredIterations: Int {
        ProcessInfo.processInfo.environment["ZEADER_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 300
    }

    static func seed(_ salt: UInt64) -> SplitMix64 {
        SplitMix64(state: (ProcessInfo.processInfo.environment["ZEADER_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED) ^ salt)
    }

    static func digits(_ count: Int, using rng: inout SplitMix64) -> String {
        String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
    }

    /// A date as feeds write them, with fields and zones of any length and shape.
    static func oddDate(using rng: inout SplitMix64) -> String {
        func number(_ rng: inout SplitMix64) -> String {
            Bool.random(using: &rng)
                ? String(Int.random(in: 0...99, using: &rng)) : digits(Int.random(in: 1...40, using: &rng), using: &rng)
        }
        var zone: String
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: zone = ["+", "-"].randomElement(using: &rng)! + digits(Int.random(in: 0...40, using: &rng), using: &rng)
        case 1:
            zone =
                ["+", "-"].randomElement(using: &rng)!
                + (0..<Int.random(in: 1...20, using: &rng)).map { _ in digits(Int.random(in: 1...3, using: &rng), using: &rng) }
                .joined(separator: ":")
        case 2:
            zone = ["GMT", "EST", "Z", "A", "J", "UTC+5", "GMT-99999999999999999999", "NZDT", "XYZW"].randomElement(using: &rng)!
        case 3: zone = ""
        case 4: zone = "+" + String(repeating: ":", count: Int.random(in: 1...10, using: &rng))
        default: zone = "+0100"
        }
        switch Int.random(in: 0..<3, using: &rng) {
        case 0:
            return "Mon, \(number(&rng)) \(["Jan", "Février", "Dez", "xyz"].randomElement(using: &rng)!) \(number(&rng)) "
                + "\(number(&rng)):\(number(&rng)):\(number(&rng)).\(digits(Int.random(in: 0...30, using: &rng), using: &rng)) \(zone)"
        case 1:
            return "\(digits(Int.random(in: 4...24, using: &rng), using: &rng))-\(number(&rng))-\(number(&rng))T"
                + "\(number(&rng)):\(number(&rng)):\(number(&rng)).\(digits(Int.random(in: 1...40, using: &rng), using: &rng))\(zone)"
        default:
            return "\(number(&rng)) \(number(&rng)) \(number(&rng)) \(zone) \(number(&rng)):\(number(&rng))"
        }
    }

    @Test func datesWithLongAndOddZonesNeverCrash() throws {
        var rng = Self.seed(1)
        for _ in 0..<Self.structuredIterations {
            let date = Self.oddDate(using: &rng)
            _ = FeedDateParser.date(from: date)
            _ = JSONFeedParser.parseDate(date)
            let xml =
                "<rss><channel><title>D</title><item><guid>1</guid><pubDate>\(date)</pubDate><dc:date xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\(date)</dc:date></item><item><guid>2</guid></item></channel></rss>"
            let feed = try FeedParser.parse(data: Data(xml.utf8))
            #expect(feed.items.count == 2, "\(date)")
            let json =
                "{\"version\": \"1\", \"items\": [{\"id\": \"1\", \"date_published\": \"\(date)\", \"date_modified\": \"\(date)\"}]}"
            #expect(try FeedParser.parse(data: Data(json.utf8)).items.count == 1)
        }
    }

    /// A DOCTYPE with entity chains (each referring to the one before) and fans (each
    /// referring several times to the ones before), some declared and never used, some
    /// looping, and a title that uses some of them.
    static func entityDocument(using rng: inout SplitMix64) -> String {
        let depth =
            Int.random(in: 0..<10, using: &rng) == 0
            ? Int.random(in: 60...3000, using: &rng) : Int.random(in: 1...70, using: &rng)
        var declarations = "<!ENTITY n0 \"\(["x", "&amp;", "&#233;", "&nbsp;", "<b>b</b>", ""].randomElement(using: &rng)!)\">"
        for level in 1..<depth {
            let fan = Int.random(in: 1...(Int.random(in: 0..<4, using: &rng) == 0 ? 12 : 2), using: &rng)
            let target = Int.random(in: 0..<8, using: &rng) == 0 ? Int.random(in: 0..<level, using: &rng) : level - 1
            let loop = Int.random(in: 0..<200, using: &rng) == 0 ? "&n\(level);" : ""
            declarations += "<!ENTITY n\(level) \"\(String(repeating: "&n\(target);", count: fan))\(loop)y\">"
        }
        let uses = (0..<Int.random(in: 0...5, using: &rng)).map { _ in "&n\(Int.random(in: 0..<depth, using: &rng));" }.joined()
        return
            "<!DOCTYPE rss [\(declarations)]><rss><channel><title>T\(uses)</title><item><guid>1</guid><title>\(uses)</title></item></channel></rss>"
    }

    @Test(.timeLimit(.minutes(30))) func entityChainsAndFansNeverCrash() {
        var rng = Self.seed(2)
        for _ in 0..<Self.structuredIterations {
            let xml = Self.entityDocument(using: &rng)
            do {
                let feed = try FeedParser.parse(data: Data(xml.utf8))
                #expect(feed.items.count == 1)
            } catch {
                switch error.reason {
                case .entityExpansionLimit, .entityLoop, .entityDepthLimit: break
                default: Issue.record("unexpected \(error)")
                }
            }
        }
    }

    /// Elements nested deep inside an item's fields (past libxml2's 256 levels at times).
    @Test(.timeLimit(.minutes(30))) func deepNestingNeverCrashes() {
        var rng = Self.seed(3)
        let shapes: [(String, String)] = [
            ("<description>", "</description>"),
            ("<content type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\">", "</div></content>"),
            ("<x:unknown xmlns:x=\"urn:x\">", "</x:unknown>"), ("<title type=\"xhtml\">", "</title>"),
        ]
        for iteration in 0..<Self.structuredIterations {
            let depth = Int.random(in: 1...(iteration % 5 == 0 ? 5000 : 300), using: &rng)
            let (open, close) = shapes.randomElement(using: &rng)!
            let tag = ["b", "div", "span", "a", "item", "entry"].randomElement(using: &rng)!
            let atom = Bool.random(using: &rng)
            let inner =
                open + String(repeating: "<\(tag)>", count: depth) + "deep" + String(repeating: "</\(tag)>", count: depth) + close
            let xml =
                atom
                ? "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>A</title><entry><id>1</id>\(inner)</entry><entry><id>2</id></entry></feed>"
                : "<rss><channel><title>R</title><item><guid>1</guid>\(inner)</item><item><guid>2</guid></item></channel></rss>"
            var json: [UInt8] = []
            _ = try? FeedParser.writeContractJSON(data: Data(xml.utf8)) { json.append(contentsOf: $0) }
            _ = try? FeedParser.parse(data: Data(xml.utf8))
        }
    }

    /// Control characters (C0 but tab, line feed, carriage return; ESC) in CDATA sections,
    /// attributes and text: every item is read, with all of its other text.
    @Test(.timeLimit(.minutes(30))) func controlCharactersInCDATAAndAttributesLoseNothing() throws {
        var rng = Self.seed(4)
        let controls: [UInt8] = Array(0x00...0x08) + [0x0B, 0x0C] + Array(0x0E...0x1F)
        for _ in 0..<Self.structuredIterations {
            let count = Int.random(in: 1...12, using: &rng)
            var document = Array("<rss version=\"2.0\"><channel><title>C</title>".utf8)
            var titles: [String] = []
            for index in 0..<count {
                var title: [UInt8] = Array("title \(index)".utf8)
                var body: [UInt8] = Array("body of \(index)".utf8)
                var link: [UInt8] = Array("http://c.example/\(index)".utf8)
                for _ in 0..<Int.random(in: 0...3, using: &rng) {
                    let control = controls.randomElement(using: &rng)!
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: title.insert(control, at: Int.random(in: 0...title.count, using: &rng))
                    case 1: body.insert(control, at: Int.random(in: 0...body.count, using: &rng))
                    default: link.insert(control, at: Int.random(in: 0...link.count, using: &rng))
                    }
                }
                titles.append(String(decoding: title.filter { !controls.contains($0) }, as: UTF8.self))
                document += Array("<item><guid>g\(index)</guid><title>".utf8) + title + Array("</title>".utf8)
                document += Array("<enclosure type=\"audio/mpeg\" url=\"".utf8) + link + Array("\"/>".utf8)
                document += Array("<description><![CDATA[<p>".utf8) + body + Array("</p>]]></description></item>".utf8)
            }
            document += Array("</channel></rss>".utf8)
            let feed = try FeedParser.parse(data: Data(document))
            #expect(feed.items.map(\.id) == (0..<count).map { "g\($0)" })
            #expect(feed.items.map(\.title) == titles)
            for (index, item) in feed.items.enumerated() {
                #expect(item.summary == "body of \(index)")
                #expect(item.enclosures.first?.url == "http://c.example/\(index)")
            }
            var json: [UInt8] = []
            try FeedParser.writeContractJSON(data: Data(document)) { json.append(contentsOf: $0) }
            #expect(!json.dropLast().contains(where: { $0 < 0x20 }), "only the final newline")
        }
    }

    @Test func dateAndURLParsersSurviveGarbage() {
        var rng = SplitMix64(state: 42)
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &rng)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &rng)
                    ? UInt8.random(in: 0x20...0x7E, using: &rng) : Array("0123456789:+-TZ ,".utf8).randomElement(using: &rng)!
            }
            let text = String(decoding: bytes, as: UTF8.self)
            _ = FeedDateParser.date(from: text)
            _ = FeedURLResolver.resolve(text, against: "https://a.example/b/c?d#e")
            _ = FeedMarkup.plainText(text)
        }
    }
}
