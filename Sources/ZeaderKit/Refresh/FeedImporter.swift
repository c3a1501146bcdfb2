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

    /// Sets `context`'s merge policy to `.objectTrumps`: another process refreshing the same
    /// feeds at the same time changes the same Server bookkeeping (lastRefresh, validators,
    /// lastError); the last refresh to save wins key by key instead of failing.
    /// The ignore rules in force (``Killfile``): new items matching one are not stored.
    public let ignoreRules: [Killfile.CompiledRule]

    public init(context: ManagedObjectContext, metadataBatchSize: Int = 32, ignoreRules: [Killfile.CompiledRule] = []) {
        context.mergePolicy = .objectTrumps
        self.context = context
        self.ignoreRules = ignoreRules
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
        /// Validators are not stored, so the next refresh tries again.
        case failed(RefreshFailure)
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
        guard var server = try? context.existingObject(with: serverID) as? Server else {
            return FeedRefreshResult(serverID: serverID, url: "?", status: .failed(.removedDuringRefresh))
        }
        let url = server.url
        var result = FeedRefreshResult(serverID: serverID, url: url, status: .notModified)
        var attempts = 0
        do {
            while true {
                do {
                    result = try update(server, with: input, now: now)
                    let unsaved = unsavedFeeds.withLock { count -> Int in
                        count += 1
                        return count
                    }
                    if !bringsItems && unsaved < metadataBatchSize && result.movedTo == nil { return result }
                    unsavedFeeds.withLock { $0 = 0 }
                    try context.save()
                    break
                } catch let error as ObjectGraphError where bringsItems && attempts < Self.raceRetries && Self.isRace(error) {
                    // Another process stored some of these items (or changed the feed) between
                    // our read and our save: read again and upsert onto what it wrote.
                    attempts += 1
                    unsavedFeeds.withLock { $0 = 0 }
                    context.rollback()
                    context.reset()
                    guard let again = try? context.existingObject(with: serverID) as? Server else {
                        throw RefreshFailure.removedDuringRefresh
                    }
                    server = again
                }
            }
        } catch {
            unsavedFeeds.withLock { $0 = 0 }
            context.rollback()
            let failure = error as? RefreshFailure ?? .store(url: url, ZeaderError.wrapping(error))
            result = FeedRefreshResult(serverID: serverID, url: url, status: .failed(failure))
            if let server = try? context.existingObject(with: serverID) as? Server {
                server.lastError = Messages.lastError(failure.description)
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
        switch input {
        case .parsed(let feed, let metadata):
            parseProblem = feed.problems.first.map { "\(url): \($0)" }
            try recordMetadata(metadata)
            let (new, changed) = try ItemImport.upsert(feed.items, into: server, in: context, now: now, ignoring: ignoreRules)
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
        return FeedRefreshResult(serverID: server.objectID, url: url, movedTo: movedTo, status: status)
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
