import Feeds
import Foundation
import ObjectGraph

/// The user's urls file as they wrote it: each feed's line word for word, and the lines that
/// name no feed Zeader stores — comments, blank lines, `query:` feeds, lines it could not use —
/// where they stood. Kept in store metadata by the imports of a urls file and by edit-urls
/// (`E`), so that `E` writes the file back as the user wrote it: a feed whose tags and
/// `"~title"` did not change keeps its line (quoting, tag order, `"!"` tags), the other lines
/// stay before the feed they preceded, and feeds added since get a line of their own.
///
/// ```swift
/// var layout = URLsFileLayout(text: "# news\nhttps://a.example/rss tech\n")
/// try layout.save(to: context.container.store)
/// ```
public struct URLsFileLayout: Codable, Equatable, Sendable {
    /// One line of the file.
    ///
    /// ```swift
    /// URLsFileLayout(text: "# news\n").entries   // [.text("# news")]
    /// ```
    public enum Entry: Codable, Equatable, Sendable {
        /// A line that names no stored feed, written back as it is.
        case text(String)
        /// A feed's line: the stored feed's URL and the line as written.
        case feed(url: String, line: String)
    }

    /// The lines, in the file's order.
    ///
    /// ```swift
    /// let comments = layout.entries.filter { if case .text = $0 { true } else { false } }
    /// ```
    public var entries: [Entry]

    /// The layout of a urls file's text; a line is a feed's when it subscribes to one (as
    /// ``FeedURLsEditing/apply(_:source:in:)`` reads it).
    ///
    /// ```swift
    /// URLsFileLayout(text: "\"query:Unread:unread = \\\"yes\\\"\"\n").entries.count   // 1, a text line
    /// ```
    public init(text: String) {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        if lines.last?.isEmpty == true { lines.removeLast() }  // the newline that ends the last line
        entries = lines.map { rawLine in
            let line = String(rawLine)
            guard let subscription = NewsboatURLs.parse(line, source: "").subscriptions.first else { return .text(line) }
            return .feed(url: (try? FeedSubscription.validatedURL(subscription.url)) ?? subscription.url, line: line)
        }
    }

    init(entries: [Entry]) { self.entries = entries }

    /// The URLs of the feeds' lines.
    var feedURLs: Set<String> {
        Set(entries.compactMap { if case .feed(let url, _) = $0 { url } else { nil } })
    }

    // MARK: - Storing

    /// The store metadata key of the layout.
    static let metadataKey = "zeader.urls.layout"

    /// The layout stored in `store`, or nil when there is none (or it cannot be read).
    ///
    /// ```swift
    /// let layout = URLsFileLayout.stored(in: context.container.store)
    /// ```
    public static func stored(in store: PersistentStore) -> URLsFileLayout? {
        guard let json = try? store.metadata(forKey: metadataKey) else { return nil }
        return try? JSONDecoder().decode(URLsFileLayout.self, from: Data(json.utf8))
    }

    /// Stores the layout in `store`, replacing the one there.
    ///
    /// ```swift
    /// try URLsFileLayout(text: edited).save(to: context.container.store)
    /// ```
    public func save(to store: PersistentStore) throws {
        let data = try JSONEncoder().encode(self)
        try store.setMetadata(String(decoding: data, as: UTF8.self), forKey: Self.metadataKey)
    }

    /// Records a urls file that was imported: it replaces the stored layout when it lists every
    /// feed that one lists (the same file, or a longer one); else its lines for feeds the stored
    /// layout lacks, and its other lines, are added at the end.
    ///
    /// ```swift
    /// try URLsFileLayout.recordImport(of: text, in: store)
    /// ```
    public static func recordImport(of text: String, in store: PersistentStore) throws {
        let imported = URLsFileLayout(text: text)
        guard var layout = stored(in: store), !layout.feedURLs.isSubset(of: imported.feedURLs) else {
            try imported.save(to: store)
            return
        }
        let known = layout.feedURLs
        layout.entries += imported.entries.filter { entry in
            if case .feed(let url, _) = entry { return !known.contains(url) }
            return true
        }
        try layout.save(to: store)
    }

    // MARK: - Writing

    /// The file's lines for `servers` (in the user's order): each feed's own line when
    /// `unchanged` says it still says what the feed is, else `line(server)`; the lines that name
    /// no feed before the feed they preceded (a removed feed's go before the next one kept), a
    /// feed's repeated line where it was, and feeds the layout lacks at their place in the order.
    ///
    /// ```swift
    /// let lines = layout.lines(for: servers, unchanged: { _, _ in true }, line: { $0.url })
    /// ```
    public func lines(
        for servers: [Server], unchanged: (Server, String) -> Bool, line: (Server) -> String
    ) -> [String] {
        let present = Set(servers.map(\.url))
        var pending: [String] = []
        var before: [String: [String]] = [:]
        var written: [String: String] = [:]
        for entry in entries {
            switch entry {
            case .text(let text):
                pending.append(text)
            case .feed(let url, let text):
                guard present.contains(url) else { continue }
                if written[url] == nil {
                    written[url] = text
                    before[url] = pending
                    pending = []
                } else {
                    pending.append(text)  // a feed listed again: newsboat merges its tags
                }
            }
        }
        var lines: [String] = []
        for server in servers {
            lines += before[server.url] ?? []
            if let text = written[server.url], unchanged(server, text) {
                lines.append(text)
            } else {
                lines.append(line(server))
            }
        }
        return lines + pending
    }
}
