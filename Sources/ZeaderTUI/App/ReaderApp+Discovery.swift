import Feeds
import Foundation

/// Feed discovery's chooser: when the page given to `a` names several feeds, they are listed
/// (number, URL, title, kind) and ENTER previews the one under the cursor, as typing its number
/// at the `a` prompt does.
extension ReaderApp {
    func showDiscoveredFeeds(_ feeds: [DiscoveredFeed], page: String) {
        let entries = feeds.enumerated().map { offset, feed in
            var line = "\(offset + 1)  \(feed.url)"
            if let title = feed.title.map(ReaderView.clean), !title.isEmpty { line += "  \(title)" }
            if let kind = Self.feedKind(feed.type) { line += "  (\(kind))" }
            return line
        }
        if state.screen == .picker { state.stack.removeLast() }  // one list at a time
        let picker = PickerState(kind: .discoveredFeeds, title: "Feeds of \(page)", entries: entries, values: feeds.map(\.url))
        state.stack.append(.picker(picker))
        state.say(.chooseFeed(page: page, count: feeds.count))
    }

    /// ENTER in the chooser: leaves it and previews the feed under the cursor.
    func pickDiscoveredFeed() {
        guard let url = state.picker?.selectedValue else { return }
        back()
        startPreview(url: url)
    }

    /// A link's media type as a reader says it; nil when there is none (a feed found at a common path).
    static func feedKind(_ type: String?) -> String? {
        guard let type = type?.lowercased(), !type.isEmpty else { return nil }
        if type.contains("rss") { return "RSS" }
        if type.contains("atom") { return "Atom" }
        if type.contains("json") { return "JSON Feed" }
        if type.contains("rdf") { return "RDF" }
        return ReaderView.clean(type)
    }
}
