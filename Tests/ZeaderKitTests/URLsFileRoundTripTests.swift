import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// edit-urls (`E`) on real urls files (Fixtures/newsboat-urls): the file the user wrote comes
/// back as they wrote it — comments, blank lines, `query:` lines, quoting, `"!"` hidden feeds and
/// `"~"` renames — an unchanged file changes nothing, and an edit of one line changes only
/// that feed, deleting no item of any other.
@Suite struct URLsFileRoundTripTests {
    static let folder = Bundle.module.url(forResource: "Fixtures/newsboat-urls", withExtension: nil)!
    static let files =
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?
        .filter { $0.hasSuffix(".urls") }.sorted() ?? []

    static func text(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    /// A store holding the file's feeds as the reader's `E` reads them, one item in each feed.
    static func store(reading text: String) throws -> (ZeaderStore, ManagedObjectContext) {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait {
            context.undoManager = ContextUndoManager()
            _ = try FeedURLsEditing.apply(text, in: context)
            for server in try FeedEditing.servers(in: context) {
                _ = try ItemImport.upsert(
                    [ParsedItem(id: "item-of-\(server.url)", title: "one")], into: server, in: context, now: Date())
            }
            try context.save()
        }
        return (store, context)
    }

    /// Each feed as the store holds it: URL, tags, title, item count.
    static func feeds(_ context: ManagedObjectContext) throws -> [String] {
        try FeedEditing.servers(in: context).map { "\($0.url) [\($0.tags ?? "")] \($0.title ?? "-") \($0.feedItems.count)" }
    }

    /// The file without the newline that ends it (a written file always ends with one).
    static func lines(_ text: String) -> String {
        text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// The line with a tag `"edited tag"` after its URL word (before any comment that ends it).
    static func addingTag(to line: String) -> String {
        let start = line.firstIndex { !$0.isWhitespace } ?? line.endIndex
        var end = start
        if end < line.endIndex, line[end] == "\"" {
            end = line.index(after: end)
            while end < line.endIndex, line[end] != "\"" {
                if line[end] == "\\" { end = line.index(after: end) }
                if end < line.endIndex { end = line.index(after: end) }
            }
            if end < line.endIndex { end = line.index(after: end) }
        } else {
            end = line[start...].firstIndex { $0.isWhitespace } ?? line.endIndex
        }
        return String(line[..<end]) + " \"edited tag\"" + line[end...]
    }

    @Test func theCorpusIsHere() {
        #expect(Self.files.count == 13)
    }

    @Test(arguments: files)
    func anUnchangedFileIsWrittenBackWordForWordAndChangesNothing(file: String) throws {
        let original = try Self.text(file)
        let (store, context) = try Self.store(reading: original)
        defer { withExtendedLifetime(store) {} }
        try context.performAndWait {
            let before = try Self.feeds(context)
            let written = try FeedURLsEditing.text(in: context)
            #expect(Self.lines(written) == Self.lines(original))
            let report = try FeedURLsEditing.apply(written, in: context)
            #expect(report.isEmpty, "\(report)")
            #expect(try Self.feeds(context) == before)
            #expect(try FeedURLsEditing.text(in: context) == written)
        }
    }

    @Test(arguments: files)
    func anEditOfOneLineChangesOnlyThatFeed(file: String) throws {
        let original = try Self.text(file)
        let (store, context) = try Self.store(reading: original)
        defer { withExtendedLifetime(store) {} }
        try context.performAndWait {
            let written = try FeedURLsEditing.text(in: context)
            var lines = written.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let feedLines = lines.indices.filter {
                NewsboatURLs.parse(lines[$0], source: "").subscriptions.first != nil
            }
            let servers = try FeedEditing.servers(in: context)
            guard !feedLines.isEmpty else { return }  // a file of query feeds only
            // The first, the middle and the last feed line (a command feed where the file has one).
            let commandLine = feedLines.first { lines[$0].contains("exec:") && lines[$0].contains(" ") }
            for index in Set([feedLines.first, feedLines[feedLines.count / 2], feedLines.last, commandLine].compactMap { $0 }) {
                let before = try Self.feeds(context)
                let url = try #require(NewsboatURLs.parse(lines[index], source: "").subscriptions.first).url
                let edited = Self.addingTag(to: lines[index])
                var changed = lines
                changed[index] = edited
                let report = try FeedURLsEditing.apply(changed.joined(separator: "\n"), in: context)
                #expect(report.changed == 1 && report.added.isEmpty && report.removed.isEmpty, "\(file): \(report)")
                let after = try Self.feeds(context)
                #expect(after.count == before.count)
                for (old, new) in zip(before, after) where !old.hasPrefix(url + " ") {
                    #expect(old == new)
                }
                #expect(servers.allSatisfy { !$0.isDeleted && $0.feedItems.count == 1 })
                #expect(try FeedTags.contains(FeedEditing.server(url: url, in: context).tags, "edited tag"))
                // The edited line is written back as edited.
                #expect(try FeedURLsEditing.text(in: context).contains(edited + "\n"))
                lines = changed
            }
        }
    }

    @Test func hiddenFeedsAndRenamesAreKeptBothWays() throws {
        let text = """
            # mine
            https://a.example/feed youtube "!" #vsauce
            https://b.example/feed "!hidden too" "~B's \\"title\\""
            https://c.example/feed "~Shown"
            "query:Hidden ones:tags # \\"!\\""

            """
        let (store, context) = try Self.store(reading: text)
        defer { withExtendedLifetime(store) {} }
        try context.performAndWait {
            let servers = try FeedEditing.servers(in: context)
            #expect(servers.map { FeedTags.isHidden($0.tags) } == [true, true, false])
            #expect(servers.map(\.title) == [nil, "B's \"title\"", "Shown"])
            #expect(try context.count(for: FetchRequest<Server>(predicate: FeedTags.visiblePredicate)) == 1)
            // The hidden feeds' items still reach a smart feed and a tag's items.
            let items = try context.fetch(
                FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "server.tags CONTAINS[c] %@", "youtube")))
            #expect(items.count == 1)
            #expect(Self.lines(try FeedURLsEditing.text(in: context)) == Self.lines(text))
            // Retagged, a feed's line is written anew and keeps its "!" tag and "~" title.
            try FeedEditing.tag(servers[1].objectID, add: ["news"], in: context)
            let written = try FeedURLsEditing.text(in: context)
            #expect(written.contains("https://b.example/feed \"!hidden too\" news \"~B's \\\"title\\\"\"\n"), "\(written)")
            #expect(written.hasPrefix("# mine\nhttps://a.example/feed youtube \"!\" #vsauce\n"))
            #expect(written.contains("\"query:Hidden ones:tags # \\\"!\\\"\"\n"))
        }
        // The OPML export keeps them too, and an import of it hides the same feeds.
        let library = FeedLibrary(store: store)
        let opml = try library.exportOPML()
        let other = FeedLibrary(store: try ZeaderStore.inMemory())
        defer { withExtendedLifetime(other) {} }
        _ = try other.importSubscriptions(data: Data(opml.utf8), source: "export.opml")
        let hidden = try other.store.container.viewContext.performAndWait {
            try FeedEditing.servers(in: other.store.container.viewContext).map { FeedTags.isHidden($0.tags) }
        }
        #expect(hidden == [true, true, false])
    }

    @Test func anImportedURLsFileIsWhatEWritesAndAReimportDoesNotRepeatIt() throws {
        let original = try Self.text("011.urls")
        let library = FeedLibrary(store: try ZeaderStore.inMemory())
        defer { withExtendedLifetime(library) {} }
        _ = try library.importSubscriptions(data: Data(original.utf8), source: "urls")
        _ = try library.importSubscriptions(data: Data(original.utf8), source: "urls")
        let context = library.store.container.viewContext
        let written = try context.performAndWait { try FeedURLsEditing.text(in: context) }
        #expect(Self.lines(written) == Self.lines(original))
    }
}
