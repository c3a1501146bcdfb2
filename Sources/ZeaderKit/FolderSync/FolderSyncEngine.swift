import Foundation
import ObjectGraph

/// Sync without a server: the store's changes go to a folder the user's devices share, and
/// the other devices' come back (``SyncFolder``, merged by ``FolderSyncState``'s rule). This
/// store's changes are read from its persistent history (ObjectGraph's, Core Data's
/// persistent history tracking), which turning folder sync on starts; what it writes back is
/// saved as ``author``, so a run never sends back what it applied.
///
/// A run: this store's changes since the last one become entries (stamped by the device's
/// ``HybridClock``); the others' files are read; every entry is merged; this device's new
/// entries are appended to its files; what changed in the merge is written to the store;
/// the device's files are compacted once large. Items are matched by feed URL and guid
/// (``ItemSyncKey``); an item not fetched yet here takes its state when a refresh stores it.
///
/// ```swift
/// let sync = FolderSyncEngine(store: store)
/// try sync.add(folder: "/home/me/Sync")
/// let run = try sync.run()
/// print(run.line)
/// ```
public struct FolderSyncEngine: Sendable {
    /// The transaction author of the store writes a run makes.
    public static let author = "folder-sync"
    /// The attributes the history keeps of deleted objects: what names them in the folder.
    static let tracking = PersistentHistoryTracking(tombstones: [
        "Server": ["url"], "SmartFeed": ["title"], "IgnoreRule": ["scope", "predicateFormat"],
    ])

    public let store: ZeaderStore

    public init(store: ZeaderStore) {
        self.store = store
    }

    /// The store's folder sync settings; nil without one.
    public func settings() throws(ZeaderError) -> FolderSyncSettings? {
        do { return try FolderSyncSettings.load(from: store.container.store) } catch { throw .store(error) }
    }

    /// The state file beside the store.
    func stateFile() throws(FolderSyncError) -> FolderSyncStateFile {
        guard let url = store.url else { throw .inMemoryStore }
        return FolderSyncStateFile(storeURL: url)
    }

    // MARK: - Setting up

    /// Turns folder sync on through the folder at `path` (which must exist): a new device id,
    /// the store's history recorded from now on, and what the store holds — its feeds with
    /// their titles and tags, its read and flagged items, smart feeds and ignore rules — sent
    /// as this device's first changes, then a first run. Adding the folder the store syncs
    /// through already just runs.
    ///
    /// ```swift
    /// let run = try FolderSyncEngine(store: store).add(folder: "~/Sync")
    /// ```
    @discardableResult
    public func add(folder path: String, now: Date = Date()) throws(ZeaderError) -> FolderSyncRun {
        let root = URL(fileURLWithPath: path).standardizedFileURL
        guard SyncFolder.isDirectory(root) else { throw .folderSync(.missingFolder(path: root.path)) }
        if let current = try settings() {
            guard current.folder == root.path else { throw .folderSync(.alreadySetUp(folder: current.folder)) }
            return try run(now: now)
        }
        let file = try wrap { () throws(FolderSyncError) in try stateFile() }
        var settings = FolderSyncSettings(folder: root.path, device: FolderSyncDevice.newID())
        var clock = HybridClock(device: settings.device)
        var heldBack: [String] = []
        do {
            try store.container.store.startRecordingHistory(Self.tracking)
            settings.historyToken = try store.container.store.currentHistoryToken()
            let context = store.container.newBackgroundContext()
            let entries = try context.performAndWait {
                try Self.entriesForStoreAsItIs(in: context, clock: &clock, heldBack: &heldBack, now: now)
            }
            var state = FolderSyncState()
            state.apply(entries)
            settings.clock = clock.latest
            settings.feedURLs = try context.performAndWait { try Self.feedURLs(in: context) }
            try file.save(state)
            try settings.save(to: store.container.store)
        } catch {
            throw ZeaderError.wrapping(error)
        }
        var first = try run(now: now)
        first.heldBack = heldBack + first.heldBack
        return first
    }

    /// Turns folder sync off: the store stops recording history and forgets the folder. The
    /// folder keeps this device's files, so the changes it sent stay with the other devices.
    /// False when there was no folder sync.
    ///
    /// ```swift
    /// try FolderSyncEngine(store: store).remove()
    /// ```
    @discardableResult
    public func remove() throws(ZeaderError) -> Bool {
        guard try settings() != nil || store.container.store.isRecordingHistory else { return false }
        do {
            try store.container.store.stopRecordingHistory()
            try store.container.store.setMetadata(nil, forKey: FolderSyncSettings.metadataKey)
        } catch {
            throw .store(error)
        }
        try? stateFile().remove()
        return true
    }

    /// The entries that send what the store holds: each http(s) feed by its URL without a
    /// login (``FolderSyncFeedURL``; subscribed, title, tags, whether it needs a login), each
    /// item read or flagged (not the unread ones: a device joining with a new store does not
    /// unread what the others read), each smart feed and stored ignore rule that names no login
    /// (the others named in `heldBack`).
    static func entriesForStoreAsItIs(
        in context: ManagedObjectContext, clock: inout HybridClock, heldBack: inout [String], now: Date
    ) throws -> [FolderSyncEntry] {
        var changes: [FolderSyncChange] = []
        for server in try Server.findAll(in: context) {
            guard let url = FolderSyncFeedURL.shared(server.url) else { continue }
            changes.append(.subscribed(feed: url, true))
            if FolderSyncFeedURL.hasLogin(server.url) { changes.append(.login(feed: url, true)) }
            if let title = server.title, !title.isEmpty { changes.append(.title(feed: url, title)) }
            for tag in FeedTags.list(server.tags) { changes.append(.tagAdded(feed: url, tag: tag)) }
            let marked = try context.fetchValues(
                FetchRequest<FeedItem>(
                    predicate: try ObjectPredicate(
                        format: "server == %@ AND (read == YES OR flagged == YES)", server.objectID)),
                keys: ["guid", "read", "flagged"])
            for row in marked {
                guard case .string(let guid) = row.values[0] else { continue }
                let key = ItemSyncKey(feedURL: url, guid: guid)
                if row.values[1] == .bool(true) { changes.append(.read(key, true)) }
                if row.values[2] == .bool(true) { changes.append(.flagged(key, true)) }
            }
        }
        for smart in try SmartFeeds.stored(in: context) {
            guard !FolderSyncFeedURL.textHasLogin(smart.predicateFormat) else {
                heldBack.append(Messages.folderSyncHeldBackSmartFeed(smart.title))
                continue
            }
            changes.append(.smartFeed(name: smart.title, query: smart.predicateFormat))
        }
        for rule in try Killfile.stored(in: context) {
            let text = FolderSyncRules.text(scope: rule.scope, predicate: rule.predicateFormat)
            guard !FolderSyncFeedURL.textHasLogin(text) else {
                heldBack.append(Messages.folderSyncHeldBackRule(text))
                continue
            }
            changes.append(.ignoreRule(text, true))
        }
        return changes.map { FolderSyncEntry(stamp: clock.stamp(at: now), change: $0) }
    }

    /// Each web feed's URL as the folder names it, by the feed's primary key.
    static func feedURLs(in context: ManagedObjectContext) throws -> [String: String] {
        var urls: [String: String] = [:]
        for row in try context.fetchValues(FetchRequest<Server>(), keys: ["url"]) {
            guard case .string(let url) = row.values[0], let shared = FolderSyncFeedURL.shared(url) else { continue }
            urls[String(row.objectID.rawValue)] = shared
        }
        return urls
    }

    /// Runs `body`, its folder errors as ``ZeaderError/folderSync(_:)``.
    func wrap<T>(_ body: () throws(FolderSyncError) -> T) throws(ZeaderError) -> T {
        do { return try body() } catch { throw .folderSync(error) }
    }
}

/// How an ignore rule is written in a sync folder: its scope and its predicate, split by a tab
/// (a scope holds none: a feed URL, `*`, or `tag:` and a tag, which ``FeedTags`` cleans of them).
///
/// ```swift
/// FolderSyncRules.text(scope: "*", predicate: "title CONTAINS \"ad\"")   // "*\ttitle CONTAINS \"ad\""
/// FolderSyncRules.parts(of: "*\tread == YES")?.predicate                 // "read == YES"
/// ```
public enum FolderSyncRules {
    /// The rule's written form.
    public static func text(scope: String, predicate: String) -> String { scope + "\t" + predicate }

    /// The scope and predicate of a written rule; nil without both.
    public static func parts(of text: String) -> (scope: String, predicate: String)? {
        let parts = text.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}
