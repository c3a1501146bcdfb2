import Foundation
import ObjectGraph

/// What one run of folder sync did (``FolderSyncEngine/run(now:)``), worded by `line`.
///
/// ```swift
/// let run = try FolderSyncEngine(store: store).run()
/// for refusal in run.refusals { print(refusal) }
/// ```
public struct FolderSyncRun: Sendable {
    /// An entry of another device that was not applied here, by what it asked for.
    public enum Refusal: Equatable, Sendable {
        /// A subscription to a feed that is not http(s): a command or a file.
        case notWebFeed(url: String, device: String)
        /// A smart feed whose name or query cannot be used.
        case smartFeed(name: String, device: String, reason: String)
        /// An ignore rule that cannot be read.
        case ignoreRule(rule: String, device: String, reason: String)
    }

    /// This device's changes sent to the folder.
    public var sent = 0
    /// Other devices' entries that changed the merged state.
    public var received = 0
    /// Feeds, items, smart feeds and rules of the store written from the merged state.
    public var applied = 0
    /// Other devices' entries this run did not apply, one each.
    public var refusals: [Refusal] = []
    /// This store's smart feeds and ignore rules not sent because they name a login, one line each.
    public var heldBack: [String] = []
    /// Whether this device's files were compacted into one snapshot.
    public var compacted = false
    /// What the reading of the folder found.
    public var report = FolderSyncReport()
}

extension FolderSyncEngine {
    /// Syncs the store with the folder once (see ``FolderSyncEngine``). Nothing is lost when
    /// it fails part way: the history not yet sent is sent by the next run, and entries read
    /// again change nothing.
    ///
    /// ```swift
    /// let run = try FolderSyncEngine(store: store).run()
    /// ```
    @discardableResult
    public func run(now: Date = Date()) throws(ZeaderError) -> FolderSyncRun {
        guard try settings() != nil else { throw .folderSync(.notSetUp) }
        let file = try wrap { () throws(FolderSyncError) in try stateFile() }
        let lock = try wrap { () throws(FolderSyncError) in try FolderSyncLock.acquire(beside: file.url) }
        defer { lock.release() }
        // Read again under the lock: a run that held it may have moved the marks and the token.
        guard var settings = try settings() else { throw .folderSync(.notSetUp) }
        let folder = try wrap { () throws(FolderSyncError) in
            try SyncFolder(root: URL(fileURLWithPath: settings.folder), device: settings.device)
        }
        var state = try wrap { () throws(FolderSyncError) in try file.load() }
        if !file.isWhole() {
            // The merged state is rebuilt from every file of the folder.
            settings.readMarks = FolderReadMarks()
            settings.publishMarks = FolderPublishMarks()
        }
        var clock = HybridClock(device: settings.device, latest: settings.clock)
        var result = FolderSyncRun()
        let graphStore = store.container.store
        do {
            if !graphStore.isRecordingHistory { try graphStore.startRecordingHistory(Self.tracking) }
            var request = HistoryFetchRequest(after: settings.historyToken)
            request.excludedAuthors = [Self.author]
            let transactions = try graphStore.history(request)
            let context = store.container.newBackgroundContext(name: "folder sync")
            let local = try context.performAndWait { [state, settings] in
                try LocalChanges(transactions, in: context, state: state, feedURLs: settings.feedURLs ?? [:])
            }
            let own = local.changes.map { FolderSyncEntry(stamp: clock.stamp(at: now), change: $0) }
            state.apply(own)
            result.sent = own.count
            result.heldBack = local.heldBack

            let reading = try wrap { () throws(FolderSyncError) in try folder.read(after: settings.readMarks, now: now) }
            result.report = reading.report
            for entry in reading.entries { clock.observe(entry.stamp) }
            let affected = AffectedKeys(reading.entries)
            let before = affected.views(of: state)
            result.received = reading.entries.reduce(0) { $0 + (state.apply($1) ? 1 : 0) }
            let changed = affected.views(of: state).changes(since: before)
            try wrap { () throws(FolderSyncError) in _ = try folder.publish(state, marks: &settings.publishMarks) }

            let applied = try context.performAndWait { [state] in
                context.transactionAuthor = Self.author
                var writer = StoreWriter(context: context, state: state)
                try writer.apply(changed, inserted: local.insertedItems)
                if context.hasChanges { try context.save() }
                return (writer.applied, writer.refusals, try Self.feedURLs(in: context))
            }
            result.applied = applied.0
            result.refusals = applied.1
            settings.feedURLs = applied.2
            if folder.ownSize() > SyncFolder.compactionSize {
                try wrap { () throws(FolderSyncError) in try folder.compact(state, carrying: reading.report.goneDevices) }
                settings.publishMarks = FolderPublishMarks()
                result.compacted = true
            }
            try wrap { () throws(FolderSyncError) in try file.save(state) }
            settings.readMarks = reading.marks
            settings.clock = clock.latest
            settings.historyToken = transactions.last?.token ?? settings.historyToken
            settings.lastSync = now
            try settings.save(to: graphStore)
            // What is sent is no longer needed; the transactions after it are.
            if let token = settings.historyToken { try graphStore.deleteHistory(before: token) }
        } catch let error as ZeaderError {
            throw error
        } catch {
            throw ZeaderError.wrapping(error)
        }
        return result
    }
}

extension FolderSyncEngine {
    /// ``run(now:)`` when the store syncs through a folder; nil when it does not.
    ///
    /// ```swift
    /// if let run = try FolderSyncEngine(store: store).runIfSetUp() { print(run.line) }
    /// ```
    public func runIfSetUp(now: Date = Date()) throws(ZeaderError) -> FolderSyncRun? {
        guard try settings() != nil else { return nil }
        return try run(now: now)
    }
}

/// The keys (feeds, items, smart feeds, rules) some entries touch, to compare their views
/// before and after a merge.
struct AffectedKeys {
    var feeds = Set<String>()
    var items = Set<ItemSyncKey>()
    var smartFeeds = Set<String>()
    var rules = Set<String>()

    init(_ entries: [FolderSyncEntry]) {
        for entry in entries {
            switch entry.change {
            case .subscribed(let feed, _), .title(let feed, _), .login(let feed, _), .tagAdded(let feed, _),
                .tagRemoved(let feed, _, _):
                feeds.insert(feed)
            case .moved(let feed, let target):
                feeds.insert(feed)
                feeds.insert(target)
            case .read(let key, _), .flagged(let key, _), .deleted(let key): items.insert(key)
            case .smartFeed(let name, _): smartFeeds.insert(name)
            case .ignoreRule(let rule, _): rules.insert(rule)
            }
        }
    }

    /// What the state says of each key.
    func views(of state: FolderSyncState) -> Views {
        let queries = state.smartFeedQueries
        let rulesInForce = state.ignoreRuleTexts
        return Views(
            feeds: Dictionary(uniqueKeysWithValues: feeds.map { ($0, state.feed($0)) }),
            items: Dictionary(uniqueKeysWithValues: items.map { ($0, state.item($0)) }),
            smartFeeds: Dictionary(uniqueKeysWithValues: smartFeeds.map { ($0, queries[$0]) }),
            rules: Dictionary(uniqueKeysWithValues: rules.map { ($0, rulesInForce.contains($0)) }))
    }

    struct Views {
        var feeds: [String: FolderSyncState.FeedView?]
        var items: [ItemSyncKey: FolderSyncState.ItemView?]
        var smartFeeds: [String: String?]
        var rules: [String: Bool]

        /// The keys whose views differ from `before`'s.
        func changes(since before: Views) -> Views {
            Views(
                feeds: feeds.filter { before.feeds[$0.key] != $0.value },
                items: items.filter { before.items[$0.key] != $0.value },
                smartFeeds: smartFeeds.filter { before.smartFeeds[$0.key] != $0.value },
                rules: rules.filter { before.rules[$0.key] != $0.value })
        }
    }
}
