import Foundation
import Testing

@testable import Feeds

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("OPML and urls files")
struct OPMLTests {
    private func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Bundle.module.resourceURL!.appendingPathComponent("Fixtures/opml/\(name)"))
    }

    private func parse(_ xml: String) throws -> [OPMLSubscription] {
        try OPML.parse(data: Data(xml.utf8), source: "test.opml")
    }

    // MARK: - Import

    @Test func nestedOutlinesBecomeCategories() throws {
        let feeds = try OPML.parse(data: fixture("nested-2.0.opml"), source: "nested-2.0.opml")
        #expect(
            feeds == [
                OPMLSubscription(
                    url: "https://feeds.bbci.co.uk/news/rss.xml", title: "BBC News", siteLink: "https://www.bbc.co.uk/news",
                    categories: ["News", "Tech"]),
                OPMLSubscription(
                    url: "https://town.example/feed?format=rss&lang=en", title: "Town Crier", categories: ["News", "Local"]),
                OPMLSubscription(
                    url: "https://lwn.net/headlines/rss", title: "LWN", siteLink: "https://lwn.net/",
                    categories: ["Tech", "Linux", "Kernel"]),
                OPMLSubscription(url: "https://unfiled.example/atom.xml", title: "Unfiled 日本"),
            ])
    }

    @Test func opml10WithAnyCaseAttributesAndDeclaredEncoding() throws {
        let feeds = try OPML.parse(data: fixture("opml-1.0.opml"), source: "opml-1.0.opml")
        #expect(
            feeds.map(\.url) == [
                "http://www.scripting.com/rss.xml", "http://upper.example/rss", "http://old.example/rss.xml",
                "http://latin1.example/feed",
            ])
        #expect(feeds[0].title == "Café Scripting News")
        #expect(feeds[0].siteLink == "http://www.scripting.com/")
        #expect(feeds[1].title == "Upper case attributes")
        #expect(feeds[3].title == "Latin-1 bytes: café naïve")
    }

    @Test func bareAmpersandsAreRecovered() throws {
        let feeds = try OPML.parse(data: fixture("malformed-ampersand.opml"), source: "malformed-ampersand.opml")
        #expect(feeds.map(\.url) == ["https://qa.example/rss?a=1&b=2", "https://next.example/rss"])
        #expect(feeds.first?.title == "Q&A")
    }

    @Test func titleFallsBackToTextAndControlCharactersGo() throws {
        let feeds = try parse(
            #"<opml version="2.0"><body><outline text=" Text&#x9B; &#x85;name " xmlUrl=" https://a.example/ "/><outline xmlUrl="https://b.example/"/><outline text="no url"/></body></opml>"#
        )
        #expect(
            feeds == [
                OPMLSubscription(url: "https://a.example/", title: "Text name"), OPMLSubscription(url: "https://b.example/"),
            ])
    }

    @Test func htmlEntitiesAndBareAmpersandsAreRepaired() throws {
        let feeds = try parse(
            #"<opml version="2.0"><body><outline text="Caf&eacute; &amp; Bar&nbsp;&mdash; &unknownname; &#233; &#xE9;" xmlUrl="https://a.example/?a=1&b=2&amp;c=3&#38;d=4"/></body></opml>"#
        )
        #expect(feeds.first?.title == "Café & Bar\u{A0}— &unknownname; é é")
        #expect(feeds.first?.url == "https://a.example/?a=1&b=2&c=3&d=4")
    }

    @Test func utf16DocumentsAreRead() throws {
        let xml =
            #"<?xml version="1.0" encoding="UTF-16"?><opml version="2.0"><body><outline text="Ünïcode" xmlUrl="https://u.example/"/></body></opml>"#
        var data = Data([0xFF, 0xFE])
        data.append(xml.data(using: .utf16LittleEndian)!)
        let feeds = try OPML.parse(data: data, source: "utf16.opml")
        #expect(feeds == [OPMLSubscription(url: "https://u.example/", title: "Ünïcode")])
    }

    // MARK: - Errors and hostile input

    @Test func notXMLNamesTheFileAndPosition() {
        #expect {
            try OPML.parse(data: Data("this is not xml".utf8), source: "junk.opml")
        } throws: { error in
            guard case .notXML(let source, let line, _, let message) = error as? OPMLError else { return false }
            return source == "junk.opml" && line == 1 && !message.isEmpty && "\(error)".hasPrefix("junk.opml:1:")
        }
        #expect(throws: OPMLError.notXML(source: "empty.opml", line: 1, column: 1, message: "the file is empty")) {
            try OPML.parse(data: Data(), source: "empty.opml")
        }
    }

    @Test func otherXMLIsNotOPML() {
        #expect(throws: OPMLError.notOPML(source: "test.opml", rootElement: "rss")) {
            try parse(#"<rss version="2.0"><channel/></rss>"#)
        }
        #expect(throws: OPMLError.missingBody(source: "test.opml")) {
            try parse(#"<opml version="2.0"><head/></opml>"#)
        }
    }

    @Test func entityDeclarationsAreRefused() {
        let xxe = """
            <?xml version="1.0"?>
            <!DOCTYPE opml [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
            <opml version="2.0"><body><outline text="&xxe;" xmlUrl="https://a.example/"/></body></opml>
            """
        #expect(throws: OPMLError.entityDeclarations(source: "test.opml")) { try parse(xxe) }
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
            <opml version="2.0"><body><outline text="&lol3;" xmlUrl="https://a.example/"/></body></opml>
            """
        #expect(throws: OPMLError.entityDeclarations(source: "test.opml")) { try parse(laughs) }
        var utf16 = Data([0xFF, 0xFE])
        utf16.append(xxe.data(using: .utf16LittleEndian)!)
        #expect(throws: OPMLError.entityDeclarations(source: "x")) { try OPML.parse(data: utf16, source: "x") }
    }

    @Test func externalDTDIsNeitherLoadedNorFatal() throws {
        // The system identifier points at a port nothing listens on; with network and DTD
        // loading off, libxml2 must not try it, and the undefined entity stays unexpanded.
        let started = Date()
        let feeds = try parse(
            """
            <?xml version="1.0"?>
            <!DOCTYPE opml SYSTEM "http://127.0.0.1:9/opml.dtd">
            <opml version="2.0"><body><outline text="a &undefined; b" xmlUrl="https://a.example/"/></body></opml>
            """)
        #expect(feeds.map(\.url) == ["https://a.example/"])
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test func oversizedFilesAreRefused() {
        let data = Data(count: OPML.maximumSize + 1)
        #expect(throws: OPMLError.tooLarge(source: "big.opml", bytes: OPML.maximumSize + 1, limit: OPML.maximumSize)) {
            try OPML.parse(data: data, source: "big.opml")
        }
    }

    // MARK: - Export

    static let tricky = [
        OPMLSubscription(
            url: "https://a.example/feed?x=1&y=<2>", title: "Quotes \" ' & <tags> \u{1}bell\ttab\nnewline",
            siteLink: "https://a.example/", categories: ["Tech & Science", "Two, with comma"]),
        OPMLSubscription(url: "https://b.example/rss", title: "日本語 😀", categories: ["Tech & Science"]),
        OPMLSubscription(url: "https://c.example/rss", title: nil, siteLink: nil, categories: []),
        OPMLSubscription(url: "https://d.example/rss", title: "D", categories: ["Other"]),
    ]

    @Test func exportRoundTrips() throws {
        let xml = OPML.export(Self.tricky, title: "Mine & yours", dateCreated: Date(timeIntervalSince1970: 0))
        let back = try OPML.parse(data: Data(xml.utf8), source: "export.opml")
        var expected = Self.tricky
        expected[0].title = "Quotes \" ' & <tags> bell\ttab\nnewline"
        expected[0].categories = ["Tech & Science", "Two  with comma"]
        expected[2].title = "https://c.example/rss"  // OPML 2.0 requires text: the URL stands in
        #expect(back == [expected[0], expected[1], expected[3], expected[2]])
    }

    @Test func exportIsWellFormedOPML20() throws {
        let xml = OPML.export(Self.tricky, dateCreated: Date(timeIntervalSince1970: 0))
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">"))
        #expect(xml.contains("<dateCreated>Thu, 01 Jan 1970 00:00:00 GMT</dateCreated>"))
        #expect(!xml.contains("\u{1}"))
        let parser = XMLParser(data: Data(xml.utf8))
        let delegate = OutlineCounter()
        parser.delegate = delegate
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(delegate.outlinesWithoutText == 0)
        #expect(delegate.feeds == 4)
    }

    @Test(.enabled(if: newsboatPath != nil, "newsboat is not installed"))
    func newsboatImportsTheExport() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-opml-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("export.opml")
        try OPML.export(Self.tricky).write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: newsboatPath!)
        process.arguments = ["-i", file.path]
        process.environment = [
            "HOME": directory.path, "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
            "XDG_DATA_HOME": directory.appendingPathComponent("data").path, "PATH": "/usr/bin:/bin",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let urlsFile = [
            directory.appendingPathComponent("config/newsboat/urls"), directory.appendingPathComponent(".newsboat/urls"),
        ]
        .first { FileManager.default.fileExists(atPath: $0.path) }
        let urls = try String(contentsOf: try #require(urlsFile), encoding: .utf8)
        let imported = NewsboatURLs.parse(urls, source: "urls").subscriptions
        #expect(imported.map(\.url).sorted() == Self.tricky.map(\.url).sorted())
        #expect(imported.first { $0.url == "https://b.example/rss" }?.categories == ["Tech & Science"])
    }

    // MARK: - newsboat urls files

    @Test func newsboatURLsFile() throws {
        let list = try SubscriptionImport.read(data: fixture("newsboat-urls.txt"), source: "urls")
        #expect(
            list.subscriptions == [
                OPMLSubscription(
                    url: "https://blog.fefe.de/rss.xml?html", categories: ["interesting", "conspiracy", "news", "cool stuff"]),
                OPMLSubscription(url: "https://rss.orf.at/news.xml", title: "ORF News", categories: ["news", "orf", "extra"]),
                OPMLSubscription(url: "https://www.heise.de/newsticker/heise.rdf", categories: ["news", "interesting"]),
                OPMLSubscription(url: "exec:~/bin/execurl-script", categories: ["tag1"]),
                OPMLSubscription(url: "filter:~/bin/filter-script:https://some.test/url", categories: ["tag3"]),
                OPMLSubscription(url: "https://hidden.example/feed", categories: ["!hidden"]),
                OPMLSubscription(url: "https://quoted.example/feed", categories: ["tag with \"quotes\" and \\ backslash"]),
                OPMLSubscription(url: "https://example.org/page#fragment", categories: ["fragment-in-url"]),
            ])
        #expect(
            list.queryFeeds == [
                SubscriptionImport.QueryFeed(line: "query:Unread Articles:unread = \"yes\"", tags: [], place: "urls:6")
            ])
        #expect(list.queryFeeds.map(\.filter) == ["unread = \"yes\""])
        #expect(
            list.notes == [
                "urls:7: exec feed: it runs \"exec:~/bin/execurl-script\" (without a shell) at each refresh",
                "urls:8: filter feed: it runs \"filter:~/bin/filter-script:https://some.test/url\" (without a shell) at each refresh",
                "urls:11: https://rss.orf.at/news.xml is listed again; tags merged",
                "urls:13: skipped \"not-a-url\": not an http, https or file URL",
            ])
    }

    @Test func urlsFileEdgeCases() {
        let list = NewsboatURLs.parse(
            "\r\n  \n#only comment\nhttps://a.example/1\r\nhttps://a.example/2 \"unterminated tag\n\"~\" https://x\n\"~Title Only\"\n",
            source: "u")
        #expect(
            list.subscriptions == [
                OPMLSubscription(url: "https://a.example/1"),
                OPMLSubscription(url: "https://a.example/2", categories: ["unterminated tag"]),
            ])
        #expect(
            list.notes == [
                "u:5: unterminated quote; read to the end of the line",
                "u:6: skipped \"~\": not an http, https or file URL",
                "u:7: skipped \"~Title Only\": not an http, https or file URL",
            ])
        #expect(NewsboatURLs.tokenize("a \"b c\" d#e #f g").words == ["a", "b c", "d#e"])
    }

    @Test func importDetectsTheKindOfFile() throws {
        var opml = Data([0xEF, 0xBB, 0xBF])
        opml.append(
            Data("\n  <opml version=\"1.0\"><body><outline text=\"x\" xmlUrl=\"https://x.example/\"/></body></opml>".utf8))
        #expect(try SubscriptionImport.read(data: opml, source: "a").subscriptions.map(\.url) == ["https://x.example/"])
        #expect(
            try SubscriptionImport.read(data: Data("https://y.example/ t\n".utf8), source: "b").subscriptions
                == [OPMLSubscription(url: "https://y.example/", categories: ["t"])])
        #expect(throws: OPMLError.unreadableText(source: "c")) {
            try SubscriptionImport.read(data: Data([0x68, 0xFF, 0xFE, 0x00, 0xC3]), source: "c")
        }
    }
}

private let newsboatPath: String? = ["/usr/bin/newsboat", "/usr/local/bin/newsboat"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

/// Counts outlines in an exported document, with Foundation's own XML parser as a
/// second opinion on well-formedness.
private final class OutlineCounter: NSObject, XMLParserDelegate {
    var feeds = 0
    var outlinesWithoutText = 0

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        guard elementName == "outline" else { return }
        if attributes["xmlUrl"] != nil { feeds += 1 }
        if (attributes["text"] ?? "").isEmpty { outlinesWithoutText += 1 }
    }
}

@Suite("OPML, mutated input")
struct OPMLMutationTests {
    @Test func mutatedDocumentsNeverCrash() throws {
        let seed = try Data(contentsOf: Bundle.module.resourceURL!.appendingPathComponent("Fixtures/opml/nested-2.0.opml"))
        var generator = FeedsTextRandom(seed: 2024)
        let inserts: [[UInt8]] = ["<", ">", "&", "\"", "<outline", "/>", "</body>", "<!--", "]]>", "\u{0}", "&#0;", "&#x110000;"]
            .map { Array($0.utf8) }
        var parsed = 0
        for _ in 0..<fuzzIterations(600) {
            var bytes = [UInt8](seed)
            for _ in 0..<(1 + Int(generator.next() % 6)) {
                let position = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes.remove(at: position)
                case 1: bytes[position] = UInt8(truncatingIfNeeded: generator.next())
                default: bytes.insert(contentsOf: inserts[Int(generator.next() % UInt64(inserts.count))], at: position)
                }
            }
            do {
                let feeds = try OPML.parse(data: Data(bytes), source: "mutated.opml")
                parsed += 1
                #expect(feeds.allSatisfy { !$0.url.isEmpty })
            } catch is OPMLError {
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        #expect(parsed > 300, "recovery should keep most lightly damaged files readable")
    }
}
