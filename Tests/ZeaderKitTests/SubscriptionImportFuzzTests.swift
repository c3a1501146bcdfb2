import Feeds
import Foundation
import Testing

@testable import ZeaderKit

/// Structure-aware fuzzing of `zeader import` with OPML and newsboat urls files: documents
/// built from outlines, attributes and URLs an attacker would write (schemes in any case,
/// leading blanks and control characters, percent-encoding, entities, nesting), then
/// mutated byte by byte, go through ``FeedLibrary/importSubscriptions(data:source:allowCommands:)``
/// into a store that already holds feeds. Never a crash; never a feed that is not http(s)
/// from an OPML file; from a urls file, only URLs the user could have typed; never a stored
/// feed lost. The seed is fixed so a failure can be replayed; `ZEADER_FUZZ_ITERATIONS` (and
/// `ZEADER_FUZZ_SEED`) run it longer by hand.
@Suite("Fuzzing subscription imports")
struct SubscriptionImportFuzzTests {
    typealias RNG = SplitMix64

    @Test(.timeLimit(.minutes(30))) func importsKeepTheTrustRule() throws {
        let environment = ProcessInfo.processInfo.environment
        let iterations = environment["ZEADER_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 400
        var rng = RNG(state: environment["ZEADER_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x0D1F_F00D)
        var store = try makeStore()
        let seeded = ["https://kept.example/feed", "exec:echo kept"]
        var counts = (opml: 0, urls: 0, unreadable: 0, added: 0, skipped: 0, rejected: 0)
        for iteration in 0..<iterations {
            if iteration.isMultiple(of: 50) {
                store = try makeStore()
                for url in seeded { try FeedLibrary(store: store).add(url: url) }
            }
            let library = FeedLibrary(store: store)
            let before = try library.servers().map(\.url)
            let urlsFile = Bool.random(using: &rng)
            var document =
                urlsFile ? SubscriptionImportGenerator.urlsFile(using: &rng) : SubscriptionImportGenerator.opml(using: &rng)
            if Int.random(in: 0..<3, using: &rng) == 0 { document = SubscriptionImportGenerator.mutate(document, using: &rng) }
            let data = Data(document)
            let format = (try? SubscriptionImport.read(data: data, source: "fuzz"))?.format
            let report: ImportReport
            do {
                report = try library.importSubscriptions(data: data, source: "fuzz")
            } catch {
                switch error {
                case .unreadableFile, .notTheFileAsked: break
                default:
                    Issue.record("iteration \(iteration): \(error)")
                    continue
                }
                counts.unreadable += 1
                continue
            }
            if format == .newsboatURLs { counts.urls += 1 } else { counts.opml += 1 }
            counts.added += report.added
            counts.skipped += report.skipped.count
            counts.rejected += report.rejected.count
            let context = store.container.newBackgroundContext(name: "fuzz")
            let servers = try context.performAndWait {
                try Server.findAll(in: context).map { (url: $0.url, origin: $0.origin) }
            }
            let urls = Set(servers.map(\.url))
            #expect(before.allSatisfy(urls.contains), "iteration \(iteration): a stored feed was lost")
            #expect(servers.count == before.count + report.added, "iteration \(iteration)")
            for server in servers where !before.contains(server.url) {
                switch format {
                case .newsboatURLs?:
                    #expect(server.origin == .urlsFile)
                    #expect((try? FeedSubscription.validatedURL(server.url)) == server.url, "\(server.url)")
                default:
                    #expect(server.origin == .imported, "\(server.url)")
                    #expect(FeedTrust.webURL(server.url) == server.url, "iteration \(iteration): \(server.url) from OPML")
                    #expect(FeedTrust.reach(of: server.url) == .web)
                }
            }
        }
        print("subscription import fuzzing: \(iterations) inputs, \(counts)")
    }
}

/// The generator of ``SubscriptionImportFuzzTests``: OPML documents and urls files made of
/// the pieces an attacker tries.
enum SubscriptionImportGenerator {
    static let schemes = [
        "http", "https", "HTTP", "HtTpS", "exec", "EXEC", "Exec", "filter", "FILTER", "file", "FILE", "fIlE", "javascript",
        "data", "ftp", "gopher", "feed", "", "exec%3A", "h\u{0}ttp",
    ]
    static let separators = ["://", ":", ":/", ":///", "%3A//", "://localhost/", "::"]
    static let noise = [
        "", "", "", " ", "\n", "\t", "\r\n", "\u{1}", "\u{7F}", "\u{85}", "\u{FEFF}", "\u{200B}", "\u{202E}", "%20", "&#10;",
        "&#1;",
        "&#x9;", "&amp;", "&nbsp;",
    ]
    static let hosts = ["a.example", "127.0.0.1", "", "[::1]", "b.example:8080", "user:pw@c.example", "xn--bcher-kva.example"]
    static let paths = ["/feed", "/feed.xml?a=1&b=2", "/etc/passwd", "touch /tmp/x", "sh -c 'id'", "", "/%2e%2e/", "#frag"]
    static let words = ["news", "Tech", "\"two words\"", "\"~Title\"", "!hidden", "#comment", "\"unterminated", "tag\\\"q"]

    static func url(using rng: inout SplitMix64) -> String {
        var text = noise.randomElement(using: &rng)! + schemes.randomElement(using: &rng)!
        text += separators.randomElement(using: &rng)!
        if Bool.random(using: &rng) { text += hosts.randomElement(using: &rng)! }
        text += paths.randomElement(using: &rng)!
        if Int.random(in: 0..<4, using: &rng) == 0 { text += ":" + url(using: &rng) }  // filter:CMD:URL
        return text + (Int.random(in: 0..<5, using: &rng) == 0 ? noise.randomElement(using: &rng)! : "")
    }

    /// Attribute text with the XML specials escaped, except sometimes (a broken document).
    static func attribute(_ text: String, using rng: inout SplitMix64) -> String {
        guard Int.random(in: 0..<10, using: &rng) > 0 else { return text }
        return text.replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
    }

    static func opml(using rng: inout SplitMix64) -> [UInt8] {
        var xml = ["", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "\u{FEFF}<?xml version=\"1.0\"?>"].randomElement(
            using: &rng)!
        xml += "<opml version=\"\(["1.0", "2.0", "x"].randomElement(using: &rng)!)\"><head><title>t</title></head><body>"
        var open = 0
        for _ in 0..<Int.random(in: 0...24, using: &rng) {
            var attributes: [String] = []
            if Bool.random(using: &rng) {
                attributes.append("text=\"\(attribute(words.randomElement(using: &rng)!, using: &rng))\"")
            }
            if Bool.random(using: &rng) { attributes.append("title=\"T\(Int.random(in: 0..<5, using: &rng))\"") }
            let urlKey = ["xmlUrl", "XMLURL", "xmlurl", "url", "htmlUrl", "href"].randomElement(using: &rng)!
            if Int.random(in: 0..<5, using: &rng) > 0 {
                attributes.append("\(urlKey)=\"\(attribute(url(using: &rng), using: &rng))\"")
            }
            if Bool.random(using: &rng) {
                attributes.append("type=\"\(["rss", "RSS", "link", "include"].randomElement(using: &rng)!)\"")
            }
            if Bool.random(using: &rng) { attributes.append("htmlUrl=\"\(attribute(url(using: &rng), using: &rng))\"") }
            if Bool.random(using: &rng) { attributes.append("category=\"/a,/b/c,\(words.randomElement(using: &rng)!)\"") }
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                xml += "<outline \(attributes.joined(separator: " "))>"
                open += 1
            case 1 where open > 0:
                xml += "</outline>"
                open -= 1
            default:
                xml += "<outline \(attributes.joined(separator: " "))/>"
            }
        }
        xml += String(repeating: "</outline>", count: open) + "</body></opml>"
        return Array(xml.utf8)
    }

    static func urlsFile(using rng: inout SplitMix64) -> [UInt8] {
        var lines: [String] = []
        for _ in 0..<Int.random(in: 0...24, using: &rng) {
            var line = Bool.random(using: &rng) ? url(using: &rng) : "\"\(url(using: &rng))\""
            for _ in 0..<Int.random(in: 0...3, using: &rng) { line += " " + words.randomElement(using: &rng)! }
            if Int.random(in: 0..<8, using: &rng) == 0 { line = "# " + line }
            if Int.random(in: 0..<8, using: &rng) == 0 { line = "\"query:Q:unread = \\\"yes\\\"\"" }
            lines.append(line)
        }
        return Array(lines.joined(separator: ["\n", "\r\n", "\r"].randomElement(using: &rng)!).utf8)
    }

    /// A few random byte edits: flips, inserts, cuts, and pieces of markup spliced in.
    static func mutate(_ input: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        let tokens = ["<outline xmlUrl=\"exec:id\"/>", "&#0;", "<!ENTITY x \"y\">", "\"", "<", "\u{0}", "exec:", "file://"]
        for _ in 0..<Int.random(in: 1...6, using: &rng) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &rng)
            case 1: bytes.insert(contentsOf: Array(tokens.randomElement(using: &rng)!.utf8), at: position)
            case 2 where !bytes.isEmpty:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...32, using: &rng)))
            default: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: position)
            }
        }
        return bytes
    }
}
