import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// `zeader import` of the thirteen real urls files (Fixtures/newsboat-urls): every line that is
/// not blank or a comment comes out as a feed (with its tags, `"!"` hidden and `"~"` title),
/// a smart feed (`query:`), or a note naming its line; nothing is dropped in silence.
@Suite struct NewsboatURLsImportCorpusTests {
    static let files = URLsFileRoundTripTests.files

    @Test(arguments: files)
    func everyLineIsAFeedASmartFeedOrANote(file: String) throws {
        let text = try URLsFileRoundTripTests.text(file)
        let store = try ZeaderStore.inMemory()
        let report = try FeedLibrary(store: store).importSubscriptions(data: Data(text.utf8), source: "urls")
        let context = store.container.viewContext
        try context.performAndWait {
            let servers = Dictionary(
                try context.fetch(FetchRequest<Server>()).map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
            let smartFeeds = Set(try context.fetch(FetchRequest<SmartFeed>()).map(\.title))
            let said = report.notes + report.rejected + report.skipped
            var feeds = 0
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
                let place = "urls:\(index + 1):"
                let alone = NewsboatURLs.parse(String(line), source: "urls")
                if let query = alone.queryFeeds.first {
                    #expect(
                        smartFeeds.contains(query.name) || said.contains { $0.hasPrefix(place) }, "\(file) \(place) \(line)")
                } else if let subscription = alone.subscriptions.first, let server = servers[subscription.url] {
                    feeds += 1
                    // Each of the line's tags is the feed's (a repeated feed gathers them all).
                    for tag in subscription.categories {
                        #expect(FeedTags.contains(server.tags, tag), "\(file) \(place) tag \(tag) of \(line)")
                    }
                    if let title = subscription.title { #expect(server.title == title, "\(file) \(place) \(line)") }
                } else {
                    #expect(said.contains { $0.hasPrefix(place) }, "\(file) \(place) dropped in silence: \(line)")
                }
            }
            #expect(feeds > 0 || !smartFeeds.isEmpty, "\(file)")
        }
    }

    /// Each kind of line newsboat's manual names, in one file, imported with nothing lost.
    @Test func everyKindOfLineImports() throws {
        let text = """
            https://a.example/feed
            https://b.example/feed news "tech news" "!" "~B's \\"own\\" title"   # a comment
            \t"https://c.example/feed"\ttagged
            "exec:~/bin/feed --all" scripts
            "filter:~/bin/clean:https://d.example/feed" cleaned
            "query:Unread:unread = \\"yes\\""
            "query:Long reads:title =~ \\"^[[:alpha:]]+$\\"" reading
            https://e.example/feed "~Title only"

            """
        let store = try ZeaderStore.inMemory()
        let report = try FeedLibrary(store: store).importSubscriptions(data: Data(text.utf8), source: "urls")
        let context = store.container.viewContext
        try context.performAndWait {
            let servers = try context.fetch(FetchRequest<Server>()).sorted { $0.displayOrder < $1.displayOrder }
            #expect(
                servers.map(\.url) == [
                    "https://a.example/feed", "https://b.example/feed", "https://c.example/feed", "exec:~/bin/feed --all",
                    "filter:~/bin/clean:https://d.example/feed", "https://e.example/feed",
                ])
            #expect(FeedTags.list(servers[1].tags).sorted() == ["!", "news", "tech news"])
            #expect(FeedTags.isHidden(servers[1].tags))
            #expect(servers[1].title == "B's \"own\" title")
            #expect(servers[5].title == "Title only")
            #expect(Set(try context.fetch(FetchRequest<SmartFeed>()).map(\.title)) == ["Unread", "Long reads"])
            #expect(report.rejected.isEmpty, "\(report.rejected)")
        }
    }
}
