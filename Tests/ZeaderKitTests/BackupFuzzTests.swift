import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Structure-aware fuzzing of the backup reader (`zeader import backup.json`): documents
/// built from a backup's shape with hostile parts — wrong types, huge and odd numbers, deep
/// nesting, duplicate keys, repeated items, truncation, flipped bytes — restored into a store
/// that already holds feeds and items. A restore either succeeds or throws one error naming
/// the file; it never crashes, never loses what the store held, and leaves a store whose
/// `items --json` and `export --json` are valid JSON with every date in ``DateBounds``.
///
/// The seed is fixed so a failure can be replayed; set `ZEADER_FUZZ_ITERATIONS` (and
/// `ZEADER_FUZZ_SEED`) to run longer by hand.
@Suite("Fuzzing the backup reader")
struct BackupFuzzTests {
    // MARK: - Generator

    struct Generator {
        var rng: SplitMix64

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
        mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }
        mutating func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }

        static let feedURLs = [
            "http://held.example/feed", "https://a.example/feed", "http://b.example/rss?x=1", "http://c.example/",
            "exec:echo hi", "file:///etc/passwd", "", "http://[::1]:99999/", "https://a.example/feed\u{0}",
            "http://日本.example/",
        ]
        static let guids = ["held-0", "held-1", "g0", "g1", "g2", "", "g\u{1B}[2J", String(repeating: "x", count: 3000)]

        /// A JSON number, as text, of every awkward kind.
        mutating func number() -> String {
            pick([
                "0", "-0", "1", "-1", "1700000000", "1.5e9", "1e17", "-1e17", "9.3e18", "-9.3e18", "9223372036854775807",
                "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551616",
                "1.7976931348623157e308", "-1.7976931348623157e308", "4.9e-324", "0.1", "1E300",
                "123456789012345678901234567890", "2147483647", "2147483648", "-2147483649", "1.0", "-0.0",
            ])
        }

        /// Number-like text JSON does not allow, or a number past a double's range.
        mutating func badNumber() -> String {
            pick(["1e309", "-1e309", "1E400", "01", "1.", "--1", "+1", "0x10", "NaN", "Infinity", "-"])
        }

        /// A date as text, of every awkward kind.
        mutating func dateString() -> String {
            if wrongTypes && chance(20) {
                return pick([
                    "2024-02-30T00:00:00Z", "yesterday", "", "2024-05-01T24:00:00Z", "99999-01-01T00:00:00Z",
                    "2024-05-01T10:00:00+99:99",
                ])
            }
            return pick([
                "2024-05-01T10:00:00Z", "2024-05-01T10:00:00.123456Z", "0000-01-01T00:00:00Z", "0001-01-01T00:30:00+01:00",
                "9999-12-31T23:59:59-01:00", "9999-12-31T23:59:59Z", "2024-05-01", "0000-12-31T23:59:59-23:59",
            ])
        }

        mutating func string() -> String {
            let text = pick([
                "plain", "", "quote \" and \\ backslash", "\u{1B}]52;c;aGk=\u{07}", "\u{202E}rtl", "\u{0}nul", "日本語",
                "\u{D7FF}", String(repeating: "long ", count: 2000), "line\nbreak", "\u{85}\u{2028}",
            ])
            return Self.quoted(text)
        }

        static func quoted(_ text: String) -> String {
            var out = ""
            JSONText.appendEscaped(text, to: &out)
            return out
        }

        /// Any JSON value, nesting up to `depth`.
        mutating func value(depth: Int = 3) -> String {
            switch int(0...9) {
            case 0: return "null"
            case 1: return pick(["true", "false"])
            case 2, 3: return number()
            case 4, 5: return string()
            case 6: return Self.quoted(dateString())
            case 7 where depth > 0:
                return "[" + (0..<int(0...3)).map { _ in value(depth: depth - 1) }.joined(separator: ",") + "]"
            case 8 where depth > 0:
                return "{" + (0..<int(0...3)).map { _ in "\(string()):\(value(depth: depth - 1))" }.joined(separator: ",") + "}"
            default: return number()
            }
        }

        /// Nesting deep enough to test every recursive reader.
        mutating func deep() -> String {
            let depth = pick([64, 600, 5_000, 100_000])
            let open = pick(["[", "{\"a\":"])
            let close = open == "[" ? "]" : "}"
            return String(repeating: open, count: depth) + "1" + String(repeating: close, count: depth)
        }

        /// Whether this document puts values of the wrong type where a backup has others.
        var wrongTypes = false

        /// A member `"key": value` of a record: `right` (itself hostile within its type), or,
        /// in a document with ``wrongTypes``, sometimes a value of any type.
        mutating func member(_ key: String, _ right: String) -> String {
            var value = right
            if wrongTypes {
                switch int(0...19) {
                case 0: value = self.value()
                case 1: value = number()
                case 2: value = deep()
                case 3: value = badNumber()
                default: break
                }
            }
            return "\(Self.quoted(key)):\(value)"
        }

        mutating func tags() -> String {
            "[" + (0..<int(0...3)).map { _ in string() }.joined(separator: ",") + "]"
        }

        mutating func feed(_ url: String) -> String {
            var members: [String] = []
            members.append(member("url", Self.quoted(url)))
            if chance(70) { members.append(member("title", string())) }
            if chance(50) { members.append(member("displayOrder", number())) }
            if chance(50) { members.append(member("tags", tags())) }
            for key in ["siteLink", "etag", "lastModified"] where chance(20) {
                members.append(member(key, string()))
            }
            // Attributes of a feed that a backup does not hold.
            for key in ["lastRefresh", "retryAfter", "disabled", "unreadCount", "syncID", "lastError"] where chance(10) {
                members.append(member(key, value()))
            }
            if chance(10) { members.append(members[int(0...members.count - 1)]) }  // a duplicate key
            members.shuffle(using: &rng)
            return "{" + members.joined(separator: ",") + "}"
        }

        mutating func item(feeds: [String]) -> String {
            var members: [String] = []
            let feed = feeds.isEmpty || int(0...299) == 0 ? pick(Self.feedURLs) : pick(feeds)
            members.append(member("feed", Self.quoted(feed)))
            members.append(member("guid", Self.quoted(int(0...299) > 0 ? pick(Self.guids.filter { !$0.isEmpty }) : "")))
            for key in ["title", "link", "author", "summary", "content", "flagLetters"] where chance(50) {
                members.append(member(key, string()))
            }
            for key in ["published", "updated", "firstSeen"] where chance(70) {
                members.append(member(key, chance(60) ? number() : Self.quoted(dateString())))
            }
            for key in ["read", "flagged"] where chance(50) {
                members.append(member(key, pick(["true", "false", "1", "0", "\"yes\"", "\"no\""])))
            }
            if chance(40) {
                var fields = [member("url", Self.quoted(pick(["https://cdn.example/a.mp3", "http://cdn.example/b?x=\"1\""])))]
                if chance(60) { fields.append(member("length", pick(["0", "12345", "9223372036854775807", "null"]))) }
                if chance(40) { fields.append(member("type", string())) }
                if chance(30) { fields.append(member("queued", pick(["true", "false"]))) }
                if chance(30) { fields.append(member("file", Self.quoted(pick(["/tmp/a.mp3", "x"])))) }
                members.append(member("enclosure", "{" + fields.joined(separator: ",") + "}"))
            }
            // Attributes of an item that a backup does not hold.
            for key in ["syncID", "enclosureLength", "sortDate", "enclosureFile", "server"] where chance(10) {
                members.append(member(key, value()))
            }
            if chance(10) { members.append(members[int(0...members.count - 1)]) }
            members.shuffle(using: &rng)
            return "{" + members.joined(separator: ",") + "}"
        }

        /// One hostile backup document.
        mutating func document() -> [UInt8] {
            wrongTypes = chance(30)
            var members: [String] = []
            if chance(97) { members.append(member("format", Self.quoted(FeedLibrary.backupFormat))) }
            if chance(80) {
                members.append(member("version", chance(90) ? pick(["1", "2", "2.0"]) : pick(["3", "-1", "1e300"])))
            }
            var urls: [String] = []
            for _ in 0..<(chance(5) ? 0 : int(1...5)) {
                let url = pick(Self.feedURLs.filter { !$0.isEmpty || chance(5) })
                urls.append(url)
            }
            let feeds = urls.map { feed($0) } + (chance(5) ? [value()] : [])
            members.append(member("feeds", "[" + feeds.joined(separator: ",") + "]"))
            var items = (0..<int(0...60)).map { _ in chance(98) ? item(feeds: urls) : value() }
            // The same item again, far from the first: a restore must not store it twice.
            if !items.isEmpty, chance(40) { items.append(contentsOf: Array(repeating: items[0], count: int(1...3))) }
            members.append(member("items", "[" + items.joined(separator: ",\n") + "]"))
            if chance(20) { members.append(member("extra", value())) }
            if chance(10) { members.append(members[int(0...members.count - 1)]) }
            members.shuffle(using: &rng)
            var bytes = Array(((chance(5) ? "\u{FEFF}" : "") + "{" + members.joined(separator: ",\n") + "}").utf8)
            switch int(0...19) {
            case 0 where !bytes.isEmpty: bytes.removeSubrange(int(0...bytes.count - 1)...)  // cut short
            case 1, 2: bytes = FuzzMutation.mutate(bytes, using: &rng)
            default: break
            }
            return bytes
        }
    }

    // MARK: - The store as held before each restore

    /// Two feeds and five items, two of them read, one flagged.
    static func heldStore() throws -> FeedLibrary {
        let store = try makeStore()
        let library = FeedLibrary(store: store)
        try library.add(url: "http://held.example/feed", tags: ["kept"])
        try library.add(url: "https://a.example/feed")
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws in
            let servers = try Server.findAll(sortedBy: "displayOrder", in: context)
            for n in 0..<5 {
                let item = context.insert(FeedItem.self)
                item.guid = "held-\(n)"
                item.title = "Held \(n)"
                item.published = Date(timeIntervalSince1970: 1_700_000_000 + Double(n))
                item.firstSeen = Date(timeIntervalSince1970: 1_700_000_100)
                item.sortDate = item.published
                item.read = n < 2
                item.flagged = n == 4
                item.server = servers[n % 2]
            }
            try context.save()
        }
        return library
    }

    /// Every (feed, guid) the store holds.
    static func held(_ library: FeedLibrary) throws -> Set<String> {
        Set(try library.items(ItemQuery()).map { "\($0.feed) \($0.id)" })
    }

    /// The store after a restore, good or bad: nothing held is gone, and its listings and
    /// backup are valid JSON with every date in range.
    static func checkStore(_ library: FeedLibrary, held: Set<String>, feeds: Set<String>, context: String) throws {
        let items = try library.items(ItemQuery())
        #expect(held.isSubset(of: Set(items.map { "\($0.feed) \($0.id)" })), "lost an item: \(context)")
        #expect(feeds.isSubset(of: Set(try library.servers().map(\.url))), "lost a feed: \(context)")
        #expect(
            (try? JSONSerialization.jsonObject(with: Data(ItemSummary.json(items).utf8))) != nil,
            "items --json is not JSON: \(context)")
        for item in items {
            #expect(item.published.map(DateBounds.contains) ?? true, "\(context)")
            #expect(item.updated.map(DateBounds.contains) ?? true, "\(context)")
        }
        var backup = ""
        try library.exportBackup { backup += $0 }
        #expect((try? JSONSerialization.jsonObject(with: Data(backup.utf8))) != nil, "export --json is not JSON: \(context)")
        for server in try library.servers() {
            #expect(server.lastRefresh == nil || DateBounds.contains(server.lastRefresh!), "\(context)")
        }
    }

    // MARK: - Runs

    @Test(.timeLimit(.minutes(60))) func hostileBackupsNeverCrashOrLose() throws {
        let environment = ProcessInfo.processInfo.environment
        let iterations = environment["ZEADER_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 150
        var generator = Generator(rng: SplitMix64(state: environment["ZEADER_FUZZ_SEED"].flatMap(UInt64.init) ?? 0xBAC0))
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var restored = 0
        var refused = 0
        var reasons: [String: Int] = [:]
        for iteration in 0..<iterations {
            let library = try Self.heldStore()
            let held = try Self.held(library)
            let feeds = Set(try library.servers().map(\.url))
            let bytes = generator.document()
            let file = directory.appendingPathComponent("backup-\(iteration).json")
            try Data(bytes).write(to: file)
            let context = "iteration \(iteration): \(String(decoding: bytes.prefix(400), as: UTF8.self))"
            do {
                _ = try library.restoreBackup(from: file, batchSize: generator.int(1...8))
                restored += 1
            } catch {
                refused += 1
                #expect(error.description.hasPrefix(file.path + ": "), "\(error) — \(context)")
                let reason = error.description.dropFirst(file.path.count + 2).prefix(50).filter { !$0.isNumber }
                reasons[reason, default: 0] += 1
            }
            try Self.checkStore(library, held: held, feeds: feeds, context: context)
            try? FileManager.default.removeItem(at: file)
        }
        // The generator reaches both outcomes.
        #expect(restored > iterations / 10 && refused > iterations / 10, "restored \(restored), refused \(refused)")
        print("backup fuzz: \(iterations) documents, \(restored) restored, \(refused) refused with one error")
        for (reason, count) in reasons.sorted(by: { $0.value > $1.value }).prefix(12) { print("  \(count)× \(reason)") }
    }

    @Test("through the command line: a refused backup is one line on stderr, exit 1 (2 for JSON that is no backup)")
    func refusedBackupIsOneLine() throws {
        var generator = Generator(rng: SplitMix64(state: 0x11E))
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var refused = 0
        for iteration in 0..<40 {
            let db = directory.appendingPathComponent("z\(iteration).sqlite").path
            let file = directory.appendingPathComponent("b\(iteration).json")
            try Data(generator.document()).write(to: file)
            let r = try zeader(["import", file.path, "--db", db], in: directory)
            // A document whose "format" is not a backup's is the user's argument (exit 2).
            let anotherKind = r.status == 2 && r.stderr.contains(": not a Zeader backup (")
            #expect(r.status == 0 || r.status == 1 || anotherKind, "\(r.stderr)")
            // Every line names the file; a backup that cannot be read is one line, and a feed
            // the restore leaves out (a command, a URL that is not http or https) one line each.
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.allSatisfy { $0.hasPrefix("zeader import: \(file.path): ") }, "\(r.stderr)")
            let perFeed = lines.filter { $0.contains(" not imported: ") || $0.contains(": skipped feed ") }
            if r.status != 0 {
                refused += 1
                #expect(lines.count - perFeed.count == (perFeed.isEmpty ? 1 : 0), "\(r.stderr)")
            } else {
                #expect(lines.count == perFeed.count, "\(r.stderr)")
            }
            let items = try zeader(["items", "--json", "--db", db], in: directory)
            #expect(items.status == 0 && (try? JSONSerialization.jsonObject(with: Data(items.stdout.utf8))) != nil)
        }
        #expect(refused > 0)
    }
}
