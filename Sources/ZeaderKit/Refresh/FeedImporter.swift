import Feeds
import Foundation
import ObjectGraph
import Synchronization

/// Writes one feed's fetch outcome into a context: upserts its items by guid (an item seen
/// again is updated in place and keeps its read flag), records validators, redirects,
/// Retry-After, 410 and errors on the Server, then saves. Use it only on `context`'s queue.
///
/// ```swift
/// let importer = FeedImporter(context: container.newBackgroundContext(name: "import"))
/// let result = importer.context.performAndWait { importer.apply(.outcome(.notModified(metadata)), to: serverID) }
/// importer.context.performAndWait { importer.flush() }
/// ```
public final class FeedImporter: Sendable {
    /// The import context (a background context).
    public let context: ManagedObjectContext
    /// Feeds whose outcome changed only the Server (304, errors, Retry-After) and is not
    /// saved yet: those are saved in groups of ``metadataBatchSize``, or with the next feed
    /// that brings items, or by ``flush()``.
    private let unsavedFeeds = Mutex(0)
    /// How many item-less outcomes are saved together (a warm refresh of 200 feeds that all
    /// answer 304 makes 7 transactions instead of 200).
    public let metadataBatchSize: Int

    public init(context: ManagedObjectContext, metadataBatchSize: Int = 32) {
        self.context = context
        self.metadataBatchSize = max(1, metadataBatchSize)
    }

    /// Saves the outcomes not saved yet. Call it on the context's queue when a refresh ends.
    ///
    /// ```swift
    /// await importer.context.run { importer.flush() }
    /// ```
    public func flush() {
        guard unsavedFeeds.withLock({ $0 }) > 0 else { return }
        do {
            try context.save()
        } catch {
            // Only Server bookkeeping (validators, times, errors) is lost; the next refresh redoes it.
            context.rollback()
        }
        unsavedFeeds.withLock { $0 = 0 }
        context.reset()
    }

    /// What happened to one feed: parsed (a 2xx body), a fetch outcome other than
    /// `.fetched`, or a failure before or after fetching (invalid URL, parse error).
    public enum Input: Sendable {
        case parsed(ParsedFeed, FetchMetadata)
        case outcome(FetchOutcome)
        /// The message names the URL. Validators are not stored, so the next refresh tries again.
        case failed(String)
    }

    /// Applies `input` to the server `serverID` and saves. On a failed save the context is
    /// rolled back and only the error is recorded on the server; nothing stored is lost.
    ///
    /// ```swift
    /// let result = importer.apply(.outcome(.notModified(metadata)), to: serverID, now: Date())
    /// ```
    public func apply(_ input: Input, to serverID: ObjectID, now: Date = Date()) -> FeedRefreshResult {
        let bringsItems: Bool
        if case .parsed = input { bringsItems = true } else { bringsItems = false }
        // A feed with items is saved alone, so that its failure cannot undo another feed's.
        if bringsItems { flush() }
        guard let server = try? context.existingObject(with: serverID) as? Server else {
            return FeedRefreshResult(url: "?", status: .failed("feed was removed during the refresh"))
        }
        let url = server.url
        var result = FeedRefreshResult(url: url, status: .notModified)
        do {
            result = try update(server, with: input, now: now)
            let unsaved = unsavedFeeds.withLock { count -> Int in
                count += 1
                return count
            }
            if !bringsItems && unsaved < metadataBatchSize && result.movedTo == nil { return result }
            unsavedFeeds.withLock { $0 = 0 }
            try context.save()
        } catch {
            unsavedFeeds.withLock { $0 = 0 }
            context.rollback()
            let message = "\(url): cannot store the feed: \(ZeaderError.wrapping(error))"
            result = FeedRefreshResult(url: url, status: .failed(message))
            if let server = try? context.existingObject(with: serverID) as? Server {
                server.lastError = message
                server.lastRefresh = now
                do { try context.save() } catch { context.rollback() }
            }
        }
        context.reset()  // bounds memory over hundreds of feeds; nothing is kept between feeds
        return result
    }

    private func update(_ server: Server, with input: Input, now: Date) throws -> FeedRefreshResult {
        let url = server.url
        var movedTo: String?
        func recordMetadata(_ metadata: FetchMetadata) throws {
            if let redirect = metadata.permanentRedirect?.absoluteString, redirect != server.url {
                if let other = try Server.findFirst(byAttribute: "url", value: .string(redirect), in: context),
                    other.objectID != server.objectID
                {
                    throw ZeaderError.other("moved permanently to \(redirect), which is already subscribed")
                }
                server.url = redirect
                movedTo = redirect
            }
            set(server, \.etag, metadata.etag)
            set(server, \.lastModified, metadata.lastModified)
        }
        let status: FeedRefreshStatus
        var parseProblem: String?  // items stored, but the document was incomplete
        switch input {
        case .parsed(let feed, let metadata):
            parseProblem = feed.problems.first.map { "\(url): \($0)" }
            try recordMetadata(metadata)
            let (new, changed) = try upsertItems(feed.items, into: server, now: now)
            if server.title?.isEmpty ?? true, let title = feed.title, !title.isEmpty { server.title = title }
            set(server, \.siteLink, feed.link)
            status = .updated(newItems: new, updatedItems: changed)
        case .failed(let message):
            status = .failed(message)
        case .outcome(.notModified(let metadata)):
            try recordMetadata(metadata)
            status = .notModified
        case .outcome(.gone(let metadata)):
            server.disabled = true
            status = .gone
            _ = metadata
        case .outcome(.deferred(let until, let metadata)):
            if server.retryAfter != until { server.retryAfter = until }
            status = .deferred(until: until)
            if let metadata {
                let message = "\(url): HTTP \(metadata.status), retry after \(Self.timestamp(until))"
                set(server, \.lastError, message)
                server.lastRefresh = now
            }
            return FeedRefreshResult(url: url, movedTo: nil, status: status)
        case .outcome(.failed(let error)):
            status = .failed(error.description)
        case .outcome(.fetched):
            preconditionFailure("a fetched body must be parsed before it is applied")
        }
        server.lastRefresh = now
        switch status {
        case .failed(let message): set(server, \.lastError, message)
        case .gone: set(server, \.lastError, "\(url): HTTP 410 Gone; the feed is disabled")
        default:
            set(server, \.lastError, parseProblem)
            if server.retryAfter != nil { server.retryAfter = nil }
            if server.disabled { server.disabled = false }
        }
        return FeedRefreshResult(url: url, movedTo: movedTo, status: status)
    }

    /// Inserts new items and updates known ones in place. The stored items with the
    /// document's guids are read in one fetch (the (server, guid) index answers it), never
    /// one by one and never the feed's whole history.
    private func upsertItems(_ items: [ParsedItem], into server: Server, now: Date) throws -> (new: Int, changed: Int) {
        guard !items.isEmpty else { return (0, 0) }
        var existing: [String: FeedItem] = [:]
        if server.objectID.primaryKey != nil {
            let guids = items.map(\.id).filter { !$0.isEmpty }
            let request = ObjectGraph.FetchRequest<FeedItem>(
                predicate: try ObjectGraph.Predicate(format: "server == %@ AND guid IN %@", server.objectID, guids))
            for item in try context.fetch(request) { existing[item.guid] = item }
        }
        var seen = Set<String>()
        var new = 0
        var changed = 0
        for parsed in items where !parsed.id.isEmpty {
            guard seen.insert(parsed.id).inserted else { continue }  // a guid repeated within one document
            if let item = existing[parsed.id] {
                if Self.copy(parsed, into: item) { changed += 1 }
            } else {
                // A new item: plain assignments (no comparisons), nil fields left alone.
                let item = context.insert(FeedItem.self)
                item.guid = parsed.id
                if let title = parsed.title { item.title = title }
                if let link = parsed.link { item.link = link }
                if let author = parsed.author { item.author = author }
                if let summary = parsed.summary { item.summary = summary }
                if let content = parsed.content { item.content = content }
                if let published = parsed.published { item.published = published }
                if let updated = parsed.updated { item.updated = updated }
                item.firstSeen = now
                item.sortDate = parsed.published ?? parsed.updated ?? now
                item.server = server
                new += 1
            }
        }
        return (new, changed)
    }

    /// Copies the feed's fields into `item`, touching only those that differ (so an unchanged
    /// item is not written). The read flag is never touched. Returns whether anything changed.
    private static func copy(_ parsed: ParsedItem, into item: FeedItem) -> Bool {
        var changed = false
        func assign<T: Equatable>(_ value: T, _ keyPath: ReferenceWritableKeyPath<FeedItem, T>) {
            if item[keyPath: keyPath] != value {
                item[keyPath: keyPath] = value
                changed = true
            }
        }
        assign(parsed.title, \.title)
        assign(parsed.link, \.link)
        assign(parsed.author, \.author)
        assign(parsed.summary, \.summary)
        assign(parsed.content, \.content)
        assign(parsed.published, \.published)
        assign(parsed.updated, \.updated)
        if changed, item.firstSeen != nil {
            let sortDate = parsed.published ?? parsed.updated ?? item.firstSeen
            if item.sortDate != sortDate { item.sortDate = sortDate }
        }
        return changed
    }

    /// Assigns only when the value differs, so an unchanged server is not written.
    private func set(_ server: Server, _ keyPath: ReferenceWritableKeyPath<Server, String?>, _ value: String?) {
        if server[keyPath: keyPath] != value { server[keyPath: keyPath] = value }
    }

    static func timestamp(_ date: Date) -> String {
        JSONText.timestamp(date)
    }
}
