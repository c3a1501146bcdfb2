import Feeds
import Foundation
import ObjectGraph

/// newsboat's edit-urls (`E`) on a store: the subscriptions written as a newsboat `urls`
/// file, edited by the user, and the edited text applied back — new lines subscribe,
/// removed lines unsubscribe (the feed and its items, as `d` does), changed tags and
/// `"~titles"` are updated, and the feeds take the file's order. All of it is one undo
/// step. Lines the urls format cannot use (query feeds, bad URLs) are reported, change
/// nothing, and are written back by the next edit as they were (``URLsFileLayout``), as are
/// comments and each unchanged feed's line. Call on `context`'s queue.
///
/// ```swift
/// let text = try FeedURLsEditing.text(in: context)
/// let report = try FeedURLsEditing.apply(edited, in: context)   // "Edit URLs"; undo restores the feeds
/// ```
public enum FeedURLsEditing {
    /// What applying an edited urls file did.
    public struct Report: Equatable, Sendable {
        /// The feeds subscribed (their IDs, to refresh) and the URLs unsubscribed.
        public var added: [ObjectID] = []
        public var removed: [String] = []
        /// Feeds whose tags or title changed.
        public var changed = 0
        /// Whether the order of the feeds changed.
        public var reordered = false
        /// Lines that were skipped, with their line numbers.
        public var notes: [String] = []

        public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed == 0 && !reordered }
    }

    /// The subscriptions as a newsboat urls file, in the user's order: `URL tag… "~title"`.
    /// After an import of a urls file or an earlier edit, the file as the user wrote it
    /// (``URLsFileLayout``): comments, blank lines and `query:` lines where they were, and each
    /// feed's own line while its tags and title are what it says.
    public static func text(in context: ManagedObjectContext) throws -> String {
        let servers = try FeedEditing.servers(in: context)
        if let layout = URLsFileLayout.stored(in: context.container.store) {
            let lines = layout.lines(for: servers, unchanged: Self.says, line: Self.line)
            return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
        }
        let lines = [
            "# Zeader's subscriptions in newsboat's urls format: one feed a line, its URL then its tags;",
            "# \"~Title\" names it. Add a line to subscribe, delete one to unsubscribe (its items go too;",
            "# u in the reader undoes the whole edit). Lines starting with # are ignored.",
        ]
        return (lines + servers.map(Self.line)).joined(separator: "\n") + "\n"
    }

    /// A feed's line: its URL, its tags (`"!"` ones too), its title as `"~title"`; each word
    /// quoted where it must be (a command feed's URL has blanks: unquoted, a later read splits it).
    static func line(_ server: Server) -> String {
        var words = [quoted(server.url)] + FeedTags.list(server.tags).map(quoted)
        if let title = server.title, !title.isEmpty { words.append(quoted("~" + title)) }
        if let settings = server.settings, !settings.isEmpty { words += ["<", settings] }
        return words.joined(separator: " ")
    }

    /// Whether the urls file's `line` still says what `server` is: the same tags, and its
    /// title unless the line gives none.
    static func says(_ server: Server, _ line: String) -> Bool {
        guard let subscription = NewsboatURLs.parse(line, source: "").subscriptions.first else { return false }
        guard FeedTags.normalized(subscription.categories) == server.tags else { return false }
        guard FeedSettingsEditing.storedText(of: subscription.settings) == server.settings else { return false }
        guard let title = subscription.title, !title.isEmpty else { return true }
        return title == server.title
    }

    /// A word of the urls file: quoted when it has blanks, quotes, backslashes or a leading `#`.
    static func quoted(_ word: String) -> String {
        guard word.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "\\" }) || word.hasPrefix("#") else {
            return word
        }
        return "\"" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Applies an edited urls file (see the type's summary); throws without changing
    /// anything when a line's URL is refused.
    public static func apply(_ text: String, source: String = "urls", in context: ManagedObjectContext) throws -> Report {
        let parsed = NewsboatURLs.parse(text, source: source)
        var report = Report()
        report.notes = parsed.notes
        for query in parsed.queryFeeds {
            report.notes.append(
                "\(query.place): skipped query feed \"\(query.name)\" (query feeds are newsboat filters; use a smart feed)")
        }
        let servers = try FeedEditing.servers(in: context)
        var byURL: [String: Server] = [:]
        for server in servers { byURL[server.url] = server }
        var wanted: [String] = []
        for subscription in parsed.subscriptions {
            wanted.append((try? FeedSubscription.validatedURL(subscription.url)) ?? subscription.url)
        }
        let kept = Set(wanted)
        let orderBefore = servers.map(\.url).filter(kept.contains)
        var added: [Server] = []
        try ItemMarking.undoable("Edit URLs", in: context) {
            for server in servers where !kept.contains(server.url) {
                report.removed.append(server.url)
                SyncQueue.queue(.unsubscribe, for: server, in: context)
                context.delete(server)
            }
            for (subscription, url) in zip(parsed.subscriptions, wanted) {
                let tags = FeedTags.normalized(subscription.categories)
                if let server = byURL[url] {
                    if let note = FeedSettingsEditing.applyLine(subscription.settings, to: server, url: url) {
                        report.notes.append(note)
                    }
                    let title = subscription.title?.isEmpty == false ? subscription.title : nil
                    if server.tags != tags || (title != nil && server.title != title) {
                        // Each reaches the feed's account as the same change made by `t` or a rename would.
                        if server.tags != tags {
                            server.tags = tags
                            SyncQueue.queue(.tags, for: server, in: context)
                        }
                        if let title, server.title != title {
                            server.title = title
                            SyncQueue.queue(.title, for: server, in: context)
                        }
                        report.changed += 1
                    }
                } else {
                    let server = try FeedSubscription.add(
                        url: url, title: subscription.title, tags: subscription.categories, in: context)
                    if let note = FeedSettingsEditing.applyLine(subscription.settings, to: server, url: url) {
                        report.notes.append(note)
                    }
                    added.append(server)
                }
            }
            for (index, url) in wanted.enumerated() {
                let server = byURL[url] ?? added.first { $0.url == url }
                if let server, server.displayOrder != Int64(index) { server.displayOrder = Int64(index) }
            }
            report.reordered = orderBefore != wanted.filter { byURL[$0] != nil }
        }
        report.added = added.map(\.objectID)  // permanent once saved
        try? URLsFileLayout(text: text).save(to: context.container.store)  // without it, E writes its own lines
        return report
    }
}
