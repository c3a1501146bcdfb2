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

    @Test func dateAndURLParsersSurviveGarbage() {
        var rng = SplitMix64(state: 42)
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &rng)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &rng) ? UInt8.random(in: 0x20...0x7E, using: &rng) : Array("0123456789:+-TZ ,".utf8).randomElement(using: &rng)!
            }
            let text = String(decoding: bytes, as: UTF8.self)
            _ = FeedDateParser.date(from: text)
            _ = FeedURLResolver.resolve(text, against: "https://a.example/b/c?d#e")
            _ = FeedMarkup.plainText(text)
        }
    }
}
