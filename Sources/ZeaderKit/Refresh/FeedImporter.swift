import Feeds
import Foundation
import ObjectGraph

/// Writes feeds' fetch outcomes into a context: upserts their items by guid (an item seen
/// again is updated in place and keeps its read flag), records validators, redirects,
/// Retry-After, 410 and errors on each Server, then saves — one feed alone (``apply(_:to:now:)``)
/// or several in one transaction (``applyTogether(_:now:)``, what a refresh's ``SaveGrouping``
/// calls). Use it only on `context`'s queue.
///
/// ```swift
/// let importer = FeedImporter(context: container.newBackgroundContext(name: "import"))
/// let result = importer.context.performAndWait { importer.apply(.outcome(.notModified(metadata)), to: serverID) }
/// ```
public final class FeedImporter: Sendable {
    /// The import context (a background context).
    public let context: ManagedObjectContext
    /// The ignore rules in force (``Killfile``): new items matching one are not stored.
    public let ignoreRules: [Killfile.CompiledRule]
    /// Whether stored items are also matched by link (a store with a sync account:
    /// ``ItemImport/upsert(_:into:in:now:ignoring:matchingLinks:)``).
    public let matchingLinks: Bool
    /// The rules that act on new items (``ItemRules``), in order.
    public let actionRules: [ItemRules.CompiledRule]

    /// Sets `context`'s merge policy to `.objectTrumps`: another process refreshing the same
    /// feeds at the same time changes the same Server bookkeeping (lastRefresh, validators,
    /// lastError); the last refresh to save wins key by key instead of failing.
    public init(
        context: ManagedObjectContext, ignoreRules: [Killfile.CompiledRule] = [], matchingLinks: Bool = false,
        actionRules: [ItemRules.CompiledRule] = []
    ) {
        context.mergePolicy = .objectTrumps
        self.context = context
        self.ignoreRules = ignoreRules
        self.matchingLinks = matchingLinks
        self.actionRules = actionRules
    }

    /// What happened to one feed: parsed (a 2xx body), a fetch outcome other than
    /// `.fetched`, or a failure before or after fetching (invalid URL, parse error).
    public enum Input: Sendable {
        case parsed(ParsedFeed, FetchMetadata)
        case outcome(FetchOutcome)
        /// Validators are not stored, so the next refresh tries again.
        case failed(RefreshFailure)

        /// How many items it brings (none unless parsed).
        var itemCount: Int {
            if case .parsed(let feed, _) = self { return feed.items.count }
            return 0
        }
    }

    /// Applies `input` to the server `serverID` and saves it alone. On a failed save the
    /// context is rolled back and only the error is recorded on the server; nothing stored
    /// is lost.
    ///
    /// ```swift
    /// let result = importer.apply(.outcome(.notModified(metadata)), to: serverID, now: Date())
    /// ```
    public func apply(_ input: Input, to serverID: ObjectID, now: Date = Date()) -> FeedRefreshResult {
        defer { context.reset() }  // bounds memory over hundreds of feeds; nothing is kept between feeds
        guard var server = try? context.existingObject(with: serverID) as? Server else {
            return FeedRefreshResult(serverID: serverID, url: "?", status: .failed(.removedDuringRefresh))
        }
        let url = server.url
        var attempts = 0
        do {
            while true {
                do {
                    let result = try update(server, with: input, now: now)
                    try context.save()
                    return result
                } catch let error as ObjectGraphError where attempts < Self.raceRetries && Self.isRace(error) {
                    // Another process stored some of these items (or changed the feed) between
                    // our read and our save: read again and upsert onto what it wrote.
                    attempts += 1
                    context.rollback()
                    context.reset()
                    guard let again = try? context.existingObject(with: serverID) as? Server else {
                        throw RefreshFailure.removedDuringRefresh
                    }
                    server = again
                }
            }
        } catch {
            context.rollback()
            let failure = error as? RefreshFailure ?? .store(url: url, ZeaderError.wrapping(error))
            if let server = try? context.existingObject(with: serverID) as? Server {
                server.lastError = Messages.lastError(failure.description)
                server.lastRefresh = now
                do { try context.save() } catch { context.rollback() }
            }
            return FeedRefreshResult(serverID: serverID, url: url, status: .failed(failure))
        }
    }

    /// Applies several feeds' outcomes and saves them in one transaction. Should anything
    /// fail (one feed's items refused by the store, a redirect onto a feed another outcome
    /// renamed, a race with another process), the transaction is rolled back and every feed
    /// is applied again and saved alone (``apply(_:to:now:)``): one hostile feed costs the
    /// others one attempt, never their items, and gets its own error.
    ///
    /// ```swift
    /// let results = importer.applyTogether([(input, serverID), (other, otherID)], now: Date())
    /// ```
    public func applyTogether(_ feeds: [(input: Input, serverID: ObjectID)], now: Date = Date()) -> [FeedRefreshResult] {
        if feeds.count == 1 { return [apply(feeds[0].input, to: feeds[0].serverID, now: now)] }
        do {
            let servers = feeds.map { try? context.existingObject(with: $0.serverID) as? Server }
            let empty = try ItemImport.feedsWithNothingStored(servers.compactMap { $0 }, in: context)
            let results = try zip(feeds, servers).map { feed, server throws -> FeedRefreshResult in
                guard let server else {
                    return FeedRefreshResult(serverID: feed.serverID, url: "?", status: .failed(.removedDuringRefresh))
                }
                return try update(server, with: feed.input, now: now, feedIsEmpty: empty.contains(server.objectID))
            }
            try context.save()
            context.reset()
            return results
        } catch {
            context.rollback()
            context.reset()
            return feeds.map { apply($0.input, to: $0.serverID, now: now) }
        }
    }

    private func update(_ server: Server, with input: Input, now: Date, feedIsEmpty: Bool = false) throws -> FeedRefreshResult {
        let url = server.url
        var movedTo: String?
        func recordMetadata(_ metadata: FetchMetadata) throws {
            if let redirect = metadata.permanentRedirect?.absoluteString, redirect != server.url {
                if let other = try Server.findFirst(byAttribute: "url", value: .string(redirect), in: context),
                    other.objectID != server.objectID
                {
                    throw RefreshFailure.movedToSubscribedFeed(url: url, target: redirect)
                }
                server.url = redirect
                movedTo = redirect
            }
            set(server, \.etag, metadata.etag)
            set(server, \.lastModified, metadata.lastModified)
        }
        let status: FeedRefreshStatus
        var parseProblem: String?  // items stored, but the document was incomplete
        var firings: [ItemRules.Firing] = []
        switch input {
        case .parsed(let feed, let metadata):
            parseProblem = feed.problems.first.map { "\(url): \($0)" }
            try recordMetadata(metadata)
            let (new, changed) = try ItemImport.upsert(
                feed.items, into: server, in: context, now: now, ignoring: ignoreRules, acting: actionRules,
                firings: &firings, matchingLinks: matchingLinks, feedIsEmpty: feedIsEmpty)
            ItemImport.updateDetails(of: server, from: feed)
            status = .updated(newItems: new, updatedItems: changed)
        case .failed(let failure):
            status = .failed(failure)
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
                set(server, \.lastError, Messages.deferred(url: url, httpStatus: metadata.status, until: until))
                server.lastRefresh = now
            }
            return FeedRefreshResult(serverID: server.objectID, url: url, movedTo: nil, status: status)
        case .outcome(.failed(let error)):
            status = .failed(.fetch(error))
        case .outcome(.fetched):
            preconditionFailure("a fetched body must be parsed before it is applied")
        }
        server.lastRefresh = now
        switch status {
        case .failed(let failure): set(server, \.lastError, failure.description)
        case .gone: set(server, \.lastError, Messages.gone(url: url))
        default:
            set(server, \.lastError, parseProblem)
            if server.retryAfter != nil { server.retryAfter = nil }
            if server.disabled { server.disabled = false }
        }
        var result = FeedRefreshResult(serverID: server.objectID, url: url, movedTo: movedTo, status: status)
        result.firings = firings
        return result
    }

    /// How many times a feed's items are read and saved again after another process won a
    /// race for the same rows.
    static let raceRetries = 5

    /// Whether `error` means another writer got there first: an item with the same guid
    /// inserted meanwhile, or (under a merge policy that does not resolve it) a conflict.
    static func isRace(_ error: ObjectGraphError) -> Bool {
        switch error {
        case .uniquenessViolation, .mergeConflict: return true
        default: return false
        }
    }

    /// Assigns only when the value differs, so an unchanged server is not written; a
    /// `lastError` is stored as one capped line (``Messages/lastError(_:)``).
    private func set(_ server: Server, _ keyPath: ReferenceWritableKeyPath<Server, String?>, _ value: String?) {
        let value = keyPath == \Server.lastError ? value.map(Messages.lastError) : value
        if server[keyPath: keyPath] != value { server[keyPath: keyPath] = value }
    }
}
