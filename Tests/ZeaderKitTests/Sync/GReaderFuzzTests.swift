import Foundation
import Testing

@testable import ZeaderKit

/// Structure-aware fuzzing of what a Google Reader API server sends: `stream/items/ids`,
/// `stream/items/contents` and `subscription/list` bodies, built from the members servers
/// send (and members of the wrong kind, odd ids, escapes, deep nesting, huge numbers),
/// then mutated byte-wise. The readers must never crash or hang, keep no more than they
/// were allowed, and read a well-formed document as Foundation's JSON reader does. The seed
/// is fixed (`ZEADER_FUZZ_SEED` varies it); `ZEADER_FUZZ_ITERATIONS` runs longer by hand.
@Suite("Fuzzing: the Google Reader API's JSON")
struct GReaderFuzzTests {
    static var iterations: Int {
        ProcessInfo.processInfo.environment["ZEADER_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 300
    }

    static func seed(_ salt: UInt64) -> SplitMix64 {
        SplitMix64(state: (ProcessInfo.processInfo.environment["ZEADER_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED) ^ salt)
    }

    // MARK: - Generators

    /// An item id as servers write it, and as they should not.
    static func itemID(_ rng: inout SplitMix64) -> String {
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return String(UInt64.random(in: 1...2_000_000_000_000_000, using: &rng))
        case 1:
            let hex = String(UInt64.random(in: 0...UInt64.max, using: &rng), radix: 16)
            return "tag:google.com,2005:reader/item/" + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
        case 2: return "tag:google.com,2005:reader/item/" + String(repeating: "f", count: Int.random(in: 0...40, using: &rng))
        case 3: return "-" + String(UInt64.random(in: 0...UInt64.max, using: &rng))
        case 4: return String(repeating: "9", count: Int.random(in: 1...60, using: &rng))
        case 5: return ""
        case 6: return "0"
        case 7: return "00" + String(Int.random(in: 0...999, using: &rng))
        case 8: return "/"
        case 9: return "tag:google.com,2005:reader/item/\\u0030\\u0031"
        case 10: return String(UInt64.max)
        default: return String(Int.random(in: 1...5000, using: &rng))
        }
    }

    /// A JSON value of any kind, nested up to `depth` (sometimes past the readers' limit).
    static func value(_ rng: inout SplitMix64, depth: Int) -> String {
        let kind = depth <= 0 ? Int.random(in: 0..<5, using: &rng) : Int.random(in: 0..<8, using: &rng)
        switch kind {
        case 0: return string(&rng)
        case 1:
            return ["0", "-1", "1e999", "-0.5e-7", "123456789012345678901234567890", "9.2e18", "1.5"].randomElement(using: &rng)!
        case 2: return ["true", "false", "null"].randomElement(using: &rng)!
        case 3: return "[]"
        case 4: return "{}"
        case 5:
            return "["
                + (0..<Int.random(in: 1...4, using: &rng)).map { _ in value(&rng, depth: depth - 1) }.joined(separator: ",")
                + "]"
        case 6:
            return "{"
                + (0..<Int.random(in: 1...4, using: &rng)).map { n in "\"k\(n)\":" + value(&rng, depth: depth - 1) }.joined(
                    separator: ",") + "}"
        default:
            let levels = Int.random(in: 1...200, using: &rng)
            return String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
        }
    }

    /// A JSON string with escapes, surrogates (paired and lone), non-ASCII and controls.
    static func string(_ rng: inout SplitMix64) -> String {
        let pieces = [
            "a", "Fish &amp; chips", "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\u00e9", "\\ud83d\\ude00", "\\ud83d", "\\ude00x",
            "\\u001b[31m", "é", "日本", "\\u0000", "<b>x</b>", "http://e.example/1",
        ]
        return "\""
            + (0..<Int.random(in: 0...6, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined() + "\""
    }

    static func idsDocument(_ rng: inout SplitMix64) -> String {
        var members: [String] = []
        let refs = (0..<Int.random(in: 0...30, using: &rng)).map { _ -> String in
            var fields = ["\"id\":\"\(itemID(&rng))\""]
            if Bool.random(using: &rng) { fields.append("\"directStreamIds\":\(value(&rng, depth: 2))") }
            if Bool.random(using: &rng) {
                fields.append("\"timestampUsec\":\"\(UInt64.random(in: 0...UInt64.max, using: &rng))\"")
            }
            fields.shuffle(using: &rng)
            return "{" + fields.joined(separator: ",") + "}"
        }
        members.append("\"itemRefs\":[" + refs.joined(separator: ",") + "]")
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: members.append("\"continuation\":\(string(&rng))")
        case 1: members.append("\"continuation\":null")
        case 2: members.append("\"other\":\(value(&rng, depth: 3))")
        default: break
        }
        members.shuffle(using: &rng)
        return "{" + members.joined(separator: ",") + "}"
    }

    static func contentsDocument(_ rng: inout SplitMix64) -> String {
        let keys = [
            "id", "title", "author", "published", "updated", "canonical", "alternate", "categories", "origin", "summary",
            "content", "crawlTimeMsec", "enclosure",
        ]
        let items = (0..<Int.random(in: 0...12, using: &rng)).map { _ -> String in
            var fields: [String] = []
            for key in keys where Int.random(in: 0..<3, using: &rng) > 0 {
                let field: String
                switch (key, Int.random(in: 0..<4, using: &rng)) {
                case ("id", 0...2): field = "\"\(itemID(&rng))\""
                case ("published", 0...2), ("updated", 0...2):
                    field = ["1700000000", "-99999999999999999999", "1e300", "\"1700000000\"", "9223372036854775807"]
                        .randomElement(using: &rng)!
                case ("canonical", 0...2), ("alternate", 0...2): field = "[{\"href\":\(string(&rng))}]"
                case ("categories", 0...2):
                    field = "[\"user/-/state/com.google/read\",\(value(&rng, depth: 2)),\"user/-/state/com.google/starred\"]"
                case ("origin", 0...2):
                    field = "{\"streamId\":\"feed/\(Int.random(in: 1...5, using: &rng))\",\"x\":\(value(&rng, depth: 2))}"
                case ("summary", 0...2), ("content", 0...2): field = "{\"content\":\(string(&rng))}"
                case ("title", 0...2), ("author", 0...2): field = string(&rng)
                default: field = value(&rng, depth: 4)
                }
                fields.append("\"\(key)\":\(field)")
            }
            fields.shuffle(using: &rng)
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "{\"direction\":\"ltr\",\"items\":[" + items.joined(separator: ",") + "]}"
    }

    static func subscriptionsDocument(_ rng: inout SplitMix64) -> String {
        let feeds = (0..<Int.random(in: 0...10, using: &rng)).map { n -> String in
            var fields = ["\"id\":\"feed/\(n)\""]
            if Bool.random(using: &rng) { fields.append("\"title\":\(string(&rng))") }
            if Bool.random(using: &rng) {
                fields.append("\"url\":\(Bool.random(using: &rng) ? string(&rng) : value(&rng, depth: 1))")
            }
            if Bool.random(using: &rng) { fields.append("\"htmlUrl\":\(string(&rng))") }
            if Bool.random(using: &rng) {
                fields.append(
                    "\"categories\":[{\"id\":\"user/-/label/\(n)\",\"label\":\(string(&rng))},\(value(&rng, depth: 2))]")
            }
            fields.shuffle(using: &rng)
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "{\"subscriptions\":[" + feeds.joined(separator: ",") + "]}"
    }

    /// Byte-wise damage: flips, insertions, cuts, structural characters, duplicated slices.
    static func mutate(_ input: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
        let tokens = ["{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "null", "1e99999", "\u{0}", "\u{FEFF}"].map {
            Array($0.utf8)
        }
        var bytes = input
        for _ in 0..<Int.random(in: 1...6, using: &rng) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &rng)
            case 1: bytes.insert(contentsOf: tokens.randomElement(using: &rng)!, at: position)
            case 2 where !bytes.isEmpty:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...32, using: &rng)))
            case 3 where bytes.count > 8:
                let end = min(bytes.count, position + Int.random(in: 1...128, using: &rng))
                bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0..<bytes.count, using: &rng))
            default: if !bytes.isEmpty { bytes.removeSubrange(position...) }
            }
        }
        return bytes
    }

    // MARK: - What Foundation reads

    static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) as? [String: Any]
    }

    // MARK: - Tests

    @Test(.timeLimit(.minutes(30))) func itemIDPagesNeverCrashAndKeepNoMoreThanAllowed() {
        var rng = Self.seed(11)
        let ceiling = GReaderClient.itemIDCeiling(now: Date())
        var agreed = 0
        for iteration in 0..<Self.iterations {
            let document = Array(Self.idsDocument(&rng).utf8)
            let input = iteration % 2 == 0 ? document : Self.mutate(document, using: &rng)
            let limit = Int.random(in: 0...40, using: &rng)
            let page = ItemRefScanner.scan(input, keepingAtMost: limit, ceiling: ceiling)
            guard let page else { continue }
            #expect(page.ids.count <= limit)
            #expect(page.ids.allSatisfy { $0 >= 1 && $0 <= ceiling })
            // A well-formed page reads as Foundation reads it.
            guard iteration % 2 == 0, let tree = Self.object(input) else { continue }
            let refs = (tree["itemRefs"] as? [[String: Any]]) ?? []
            let expected = refs.compactMap { ($0["id"] as? String).flatMap(GReaderClient.number) }.filter {
                $0 >= 1 && $0 <= ceiling
            }
            #expect(page.ids == Array(expected.prefix(limit)), "\(String(decoding: input, as: UTF8.self))")
            #expect(page.overflowed == (expected.count > limit))
            #expect(page.continuation == tree["continuation"] as? String)
            agreed += 1
        }
        #expect(agreed > 0)
    }

    @Test(.timeLimit(.minutes(30))) func itemContentsNeverCrashAndReadAsFoundationDoes() {
        var rng = Self.seed(12)
        var agreed = 0
        for iteration in 0..<Self.iterations {
            let document = Array(Self.contentsDocument(&rng).utf8)
            let input = iteration % 2 == 0 ? document : Self.mutate(document, using: &rng)
            guard let items = ItemContentsScanner.scan(Data(input)) else { continue }
            #expect(items.count <= input.count / 8)
            for item in items {
                _ = item.decimalID
                _ = item.link
                _ = (item.isRead, item.isStarred)
                _ = FeedSync.displayText(item.title ?? "")
            }
            guard iteration % 2 == 0, let tree = Self.object(input) else { continue }
            let listed = ((tree["items"] as? [[String: Any]]) ?? []).filter { ($0["id"] as? String).map { !$0.isEmpty } ?? false }
            #expect(items.map(\.id) == listed.map { $0["id"] as! String })
            #expect(items.map(\.title) == listed.map { $0["title"] as? String })
            agreed += 1
        }
        #expect(agreed > 0)
    }

    @Test(.timeLimit(.minutes(30))) func subscriptionListsNeverCrash() {
        var rng = Self.seed(13)
        var read = 0
        for iteration in 0..<Self.iterations {
            let document = Array(Self.subscriptionsDocument(&rng).utf8)
            let input = iteration % 2 == 0 ? document : Self.mutate(document, using: &rng)
            do {
                let feeds = try GReaderClient.subscriptionList(Data(input))
                for feed in feeds { _ = feed.labels }
                read += 1
            } catch {
                #expect(error.description.contains("subscription/list"))
            }
        }
        #expect(read > 0)
    }

    /// Whole pages as a server sends them, big: many refs, long strings, deep skipped values.
    @Test(.timeLimit(.minutes(30))) func largePagesStayWithinTheirBounds() {
        var rng = Self.seed(14)
        for _ in 0..<max(1, Self.iterations / 30) {
            let count = Int.random(in: 1_000...20_000, using: &rng)
            var text = "{\"itemRefs\":["
            // Members to skip, nested less deep than the readers' limit.
            for n in 0..<count {
                text += (n == 0 ? "" : ",") + "{\"id\":\"\(n + 1)\",\"x\":[\(Self.string(&rng)),{\"y\":[1e5]}]}"
            }
            text += "],\"continuation\":\"c\"}"
            let limit = Int.random(in: 0...count * 2, using: &rng)
            let page = ItemRefScanner.scan(Array(text.utf8), keepingAtMost: limit)
            #expect(page?.ids.count == min(count, limit))
            #expect(page?.overflowed == (count > limit))
        }
    }
}
