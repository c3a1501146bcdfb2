import Feeds
import Foundation
import ObjectGraph

/// Adding a feed: the one implementation `zeader add` and the reader's `a` share. The URL
/// is checked (``validatedURL(_:)``), a feed subscribed already is refused, and the new
/// Server goes last in the user's order. The command line saves it at once (its items
/// come with the next refresh); the reader first shows a ``FeedPreview``.
///
/// ```swift
/// let server = try FeedSubscription.add(url: "https://example.org/feed.xml", title: "Example", in: context)
/// try context.save()
/// ```
public enum FeedSubscription {
    /// Checks that `text` is a URL Zeader can fetch (http or https with a host, or file)
    /// and returns it trimmed, its scheme in lower case. A control character anywhere
    /// (ESC, a line break inside the URL) is refused, never stored.
    ///
    /// ```swift
    /// try FeedSubscription.validatedURL(" https://example.org/feed ")   // "https://example.org/feed"
    /// ```
    public static func validatedURL(_ text: String) throws(ZeaderError) -> String {
        var trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalidURL(text, reason: "empty") }
        if let control = trimmed.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            throw .invalidURL(
                text, reason: "contains the control character U+\(String(format: "%04X", control.value)) (type or paste it again)"
            )
        }
        if CommandFeed.isCommand(trimmed) {
            // newsboat's exec:/filter: feeds, run without a shell at each refresh.
            guard CommandFeed(subscription: trimmed) != nil else {
                throw .invalidURL(
                    text,
                    reason:
                        "an exec: feed needs a command, a filter: feed a command and an http, https or file URL (filter:COMMAND:URL)"
                )
            }
            return trimmed
        }
        // The scheme is case-insensitive (RFC 3986 3.1): `HTTP://` is stored as `http://`.
        if let colon = trimmed.firstIndex(of: ":"),
            trimmed[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        {
            trimmed = trimmed[..<colon].lowercased() + trimmed[colon...]
        }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased() else {
            throw .invalidURL(text, reason: "not an absolute URL (expected http://, https:// or file://)")
        }
        switch scheme {
        case "http", "https":
            guard let host = url.host, !host.isEmpty else { throw .invalidURL(text, reason: "no host") }
        case "file":
            guard !url.path.isEmpty else { throw .invalidURL(text, reason: "no path") }
        default:
            throw .invalidURL(text, reason: "unsupported scheme '\(scheme)' (expected http, https or file)")
        }
        return trimmed
    }

    /// Whether a feed with this URL is subscribed (as stored in `context`'s store).
    ///
    /// ```swift
    /// if try FeedSubscription.isSubscribed(url, in: context) { … }
    /// ```
    public static func isSubscribed(_ url: String, in context: ManagedObjectContext) throws -> Bool {
        try Server.findFirst(byAttribute: "url", value: .string(url), in: context) != nil
    }

    /// Inserts a Server for `url` (checked, trimmed) into `context`, last in the user's
    /// order, with an optional title and tags; the caller saves (or, for a preview,
    /// decides). Throws ``ZeaderError/alreadySubscribed(_:)`` for a URL subscribed already.
    /// The feed's ``Server/origin`` is what the user typed: only the user's own typing and
    /// files call this (imports go through ``FeedTrust``).
    ///
    /// ```swift
    /// try FeedSubscription.add(url: url, tags: ["news"], in: context)
    /// ```
    @discardableResult
    public static func add(url text: String, title: String? = nil, tags: [String] = [], in context: ManagedObjectContext)
        throws -> Server
    {
        try add(url: text, title: title, tags: tags, origin: .typed, in: context)
    }

    /// ``add(url:title:tags:in:)`` recording another origin (`.urlsFile` for a line of the
    /// user's urls file).
    ///
    /// ```swift
    /// try FeedSubscription.add(url: "exec:~/bin/feed", origin: .urlsFile, in: context)
    /// ```
    @discardableResult
    public static func add(
        url text: String, title: String? = nil, tags: [String] = [], origin: FeedOrigin, in context: ManagedObjectContext
    ) throws -> Server {
        let url = try validatedURL(text)
        if try isSubscribed(url, in: context) { throw ZeaderError.alreadySubscribed(url) }
        let server = context.insert(Server.self)
        server.url = url
        server.origin = origin
        if let title, !title.isEmpty { server.title = title }
        server.tags = FeedTags.normalized(tags)
        server.displayOrder = try nextDisplayOrder(in: context)
        SyncQueue.queue(.subscribe, for: server, in: context)
        return server
    }

    /// The `displayOrder` that puts a new feed last.
    ///
    /// ```swift
    /// server.displayOrder = try FeedSubscription.nextDisplayOrder(in: context)
    /// ```
    public static func nextDisplayOrder(in context: ManagedObjectContext) throws -> Int64 {
        let last = try Server.findFirst(where: .true, sortedBy: "displayOrder", ascending: false, in: context)
        return displayOrder(after: last?.displayOrder ?? -1)
    }

    /// The positions a feed takes in the user's order: far more than anyone has feeds. A
    /// backup's `displayOrder` is clamped into it where it enters, so the next position
    /// never overflows.
    ///
    /// ```swift
    /// FeedSubscription.displayOrderRange.contains(server.displayOrder)   // true
    /// ```
    public static let displayOrderRange: ClosedRange<Int64> = 0...Int64(Int32.max)

    /// The position after `position`, at most the end of ``displayOrderRange`` (a store
    /// written before the clamp may hold any number).
    ///
    /// ```swift
    /// FeedSubscription.displayOrder(after: 4)   // 5
    /// ```
    public static func displayOrder(after position: Int64) -> Int64 {
        min(position, displayOrderRange.upperBound - 1) + 1
    }
}

/// The reader's "add feed": the feed fetched and parsed, then held with its items in a
/// scratch context until the user keeps it (saved to the store) or discards it (nothing
/// was ever written). Fetching goes through the refresh's own ``FeedRefresher/fetchAndParse(_:with:)``,
/// the Server through ``FeedSubscription/add(url:title:tags:in:)`` and the items through
/// ``ItemImport``, so a previewed feed is stored exactly as a refresh would store it.
///
/// ```swift
/// let input = await FeedPreview.fetch(url, with: fetcher)           // off the view queue
/// let preview = try FeedPreview(url: url, input: input, store: store)   // on the view queue
/// print(preview.title, preview.itemCount)
/// try preview.keep()   // or preview.discard()
/// ```
public final class FeedPreview {
    /// The feed's URL as the user typed it (checked).
    public let url: String
    /// The scratch context holding the new Server and its items.
    public let context: ManagedObjectContext
    /// The feed's title as shown (the URL when it has none).
    public let title: String
    /// How many items the feed holds.
    public let itemCount: Int

    /// Fetches and parses `url`; call from any task.
    ///
    /// ```swift
    /// let input = await FeedPreview.fetch("https://example.org/feed.xml", with: fetcher)
    /// ```
    public static func fetch(_ url: String, with fetcher: FeedFetcher) async -> FeedImporter.Input {
        guard let address = CommandFeed.requestURL(url) else { return .failed(.invalidURL(url)) }
        return await FeedRefresher.fetchAndParse(FeedRequest(url: address), with: fetcher)
    }

    /// Puts the fetched feed into a new scratch context of `store`, on the view context's
    /// queue. A fetch that brought no feed throws ``ZeaderError/feedUnavailable(_:)``.
    ///
    /// ```swift
    /// let preview = try FeedPreview(url: url, input: input, store: store)
    /// ```
    public init(url text: String, input: FeedImporter.Input, store: ZeaderStore, now: Date = Date()) throws(ZeaderError) {
        let url = try FeedSubscription.validatedURL(text)
        let feed: ParsedFeed
        let metadata: FetchMetadata
        switch input {
        case .parsed(let parsed, let fetched):
            feed = parsed
            metadata = fetched
        case .failed(let failure):
            throw .feedUnavailable(failure)
        case .outcome(.failed(let error)):
            throw .feedUnavailable(.fetch(error))
        case .outcome(.gone(let fetched)), .outcome(.notModified(let fetched)):
            throw .feedUnavailable(.fetch(.httpStatus(fetched.status, url: URL(string: url) ?? fetched.finalURL)))
        case .outcome(.deferred(_, let fetched)):
            throw .feedUnavailable(
                .fetch(.httpStatus(fetched?.status ?? 503, url: URL(string: url) ?? URL(fileURLWithPath: "/"))))
        case .outcome(.fetched):
            preconditionFailure("a fetched body is parsed by fetchAndParse")
        }
        let scratch = store.container.newScratchContext()
        do {
            let server = try FeedSubscription.add(url: url, in: scratch)
            ItemImport.updateDetails(of: server, from: feed)
            server.etag = metadata.etag
            server.lastModified = metadata.lastModified
            server.lastRefresh = now
            _ = try ItemImport.upsert(feed.items, into: server, in: scratch, now: now)
            self.url = url
            context = scratch
            title = server.displayTitle
            itemCount = server.feedItems.count
        } catch {
            scratch.reset()
            throw ZeaderError.wrapping(error)
        }
    }

    /// Saves the feed and its items to the store.
    ///
    /// ```swift
    /// try preview.keep()   // the reader's `y`
    /// ```
    public func keep() throws(ZeaderError) {
        do {
            try context.save()
        } catch {
            context.rollback()
            throw ZeaderError.wrapping(error)
        }
    }

    /// Drops the feed; nothing was written.
    ///
    /// ```swift
    /// preview.discard()   // the reader's `n`
    /// ```
    public func discard() {
        context.reset()
    }
}
